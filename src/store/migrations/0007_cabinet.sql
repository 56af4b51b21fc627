-- The cabinet's balance page reads a merchant's ledger by day (totals and the 30-day chart).
CREATE INDEX ledger_entries_merchant_time ON ledger_entries (merchant_id, created_at);

-- Every change of an order's status, for the order's timeline: written by the database itself in
-- the transaction that changes the status, whichever code path does it (actions, expiry, appeals).
-- The time is the order's updated_at, which every transition sets to the moment it applies.
CREATE TABLE order_transitions (
  id bigserial PRIMARY KEY,
  order_id text NOT NULL,
  from_status text NOT NULL,
  to_status text NOT NULL,
  sub_status text,
  reason text,
  at timestamptz NOT NULL
);
CREATE INDEX order_transitions_order ON order_transitions (order_id, id);

CREATE FUNCTION record_order_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_transitions (order_id, from_status, to_status, sub_status, reason, at)
  VALUES (NEW.id, OLD.status, NEW.status, NEW.sub_status, NEW.cancel_reason, NEW.updated_at);
  RETURN NULL;
END
$$;

CREATE TRIGGER orders_status_history AFTER UPDATE OF status ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION record_order_transition();

-- The cabinet's failing deliveries and "redeliver since": only events that did not get through.
CREATE INDEX outbox_failing ON outbox_events (desk_id, seq)
  WHERE state IN ('failed', 'rejected') OR (state = 'pending' AND attempts > 0);
