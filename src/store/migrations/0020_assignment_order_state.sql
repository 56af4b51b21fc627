-- A pool ranks its requisites for every order it is asked to place by the load on each: the open
-- orders, their amounts, and which amounts are open or in quarantine. That read went through
-- every open assignment of the pool to its order's row (10,000 open orders: 10,000 lookups of
-- the orders table per new order). The order's status, placement and close time are now kept on
-- its assignment as well, so the read stays within requisite_assignments.
ALTER TABLE requisite_assignments
  ADD COLUMN IF NOT EXISTS order_status text,
  ADD COLUMN IF NOT EXISTS order_placement text,
  ADD COLUMN IF NOT EXISTS order_finished_at timestamptz;

UPDATE requisite_assignments a SET order_status = o.status, order_placement = o.placement, order_finished_at = o.finished_at
  FROM orders o WHERE o.id = a.order_id;

-- Kept by the database on every change of those columns, in the changing transaction, whatever
-- code changes them. An assignment recorded before its order row exists (a pool answers before the
-- order is written) has them null until the order first changes: null reads as a new order being
-- placed, as the missing order row read before.
CREATE OR REPLACE FUNCTION assignment_order_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE requisite_assignments SET order_status = NEW.status, order_placement = NEW.placement, order_finished_at = NEW.finished_at
   WHERE order_id = NEW.id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER orders_assignment_state AFTER UPDATE OF status, placement, finished_at ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.placement IS DISTINCT FROM NEW.placement OR OLD.finished_at IS DISTINCT FROM NEW.finished_at)
  EXECUTE FUNCTION assignment_order_state();
