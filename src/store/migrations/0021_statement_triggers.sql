-- The rows the database writes for its writers (an order's transitions and its assignment's copy of
-- its state, a ledger entry's share of the daily rollup) were written by row triggers: one function
-- call and one statement per row, so completing 100 orders at once ran 300 statements besides its
-- own. They are now written once per statement, from the statement's transition tables, with the
-- same rows and sums as before. Still in the writing transaction, whatever code writes.

-- A function keeps the plans of its statements from its first call, made for the transition
-- tables of that call and the statistics of then: the plan of a single-row update (a nested loop)
-- reads one transition table once per row of the other when a statement changes 100 rows, and a
-- plan made while a table was small scans all of it later. So these functions plan without nested
-- loops and without sequential scans: the transition tables are hashed, and the rows of other tables
-- are found through their key (`= ANY (ARRAY(…))`), the same plan serving one row or a thousand.
-- (Planning every call instead, with EXECUTE, made every single-order update four times dearer.)

-- ---- orders: transitions and the assignment's copy, for every row whose status (placement,
-- close time) the statement changed. An UPDATE trigger with transition tables cannot name columns,
-- so it fires for every update of orders and picks the changed rows itself.
CREATE OR REPLACE FUNCTION orders_changed() RETURNS trigger LANGUAGE plpgsql
  SET enable_nestloop = off SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO order_transitions (order_id, from_status, to_status, sub_status, reason, at)
  SELECT n.id, o.status, n.status, n.sub_status, n.cancel_reason, n.updated_at
    FROM changed_new n JOIN changed_old o ON o.id = n.id
   WHERE o.status IS DISTINCT FROM n.status
   ORDER BY n.id;
  UPDATE requisite_assignments a SET order_status = c.status, order_placement = c.placement, order_finished_at = c.finished_at
    FROM (SELECT n.id, n.status, n.placement, n.finished_at FROM changed_new n JOIN changed_old o ON o.id = n.id
           WHERE o.status IS DISTINCT FROM n.status OR o.placement IS DISTINCT FROM n.placement OR o.finished_at IS DISTINCT FROM n.finished_at) c
   WHERE a.order_id = c.id AND a.order_id = ANY (ARRAY(SELECT id FROM changed_new));
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS orders_status_history ON orders;
DROP TRIGGER IF EXISTS orders_assignment_state ON orders;
CREATE TRIGGER orders_changed AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new
  FOR EACH STATEMENT EXECUTE FUNCTION orders_changed();
DROP FUNCTION IF EXISTS record_order_transition();
DROP FUNCTION IF EXISTS assignment_order_state();

-- ---- ledger_daily: the statement's entries summed per merchant, UTC day and sandbox flag, taken
-- in that order (as the backfill summed them). Dropping the row trigger and creating this one in
-- one transaction counts every entry once.
CREATE OR REPLACE FUNCTION ledger_daily_add_all() RETURNS trigger LANGUAGE plpgsql
  SET enable_nestloop = off SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO ledger_daily AS d (merchant_id, day, sandbox, turnover, credits, credit_count, reversals, withdrawals, adjustments, net, entries)
  SELECT l.merchant_id, (l.created_at AT TIME ZONE 'UTC')::date, coalesce(o.sandbox, false),
         coalesce(sum(o.settled_amount) FILTER (WHERE l.kind = 'credit'), 0),
         coalesce(sum(l.amount) FILTER (WHERE l.kind = 'credit'), 0),
         count(*) FILTER (WHERE l.kind = 'credit'),
         coalesce(sum(l.amount) FILTER (WHERE l.kind = 'reversal'), 0),
         coalesce(sum(l.amount) FILTER (WHERE l.kind = 'withdrawal'), 0),
         coalesce(sum(l.amount) FILTER (WHERE l.kind = 'adjustment'), 0),
         sum(l.amount), count(*)
    FROM added l
    LEFT JOIN (SELECT id, settled_amount, sandbox FROM orders WHERE id = ANY (ARRAY(SELECT order_id FROM added WHERE order_id IS NOT NULL))) o
      ON o.id = l.order_id
   GROUP BY 1, 2, 3
   ORDER BY 1, 2, 3
  ON CONFLICT (merchant_id, day, sandbox) DO UPDATE SET
    turnover = d.turnover + excluded.turnover, credits = d.credits + excluded.credits, credit_count = d.credit_count + excluded.credit_count,
    reversals = d.reversals + excluded.reversals, withdrawals = d.withdrawals + excluded.withdrawals,
    adjustments = d.adjustments + excluded.adjustments, net = d.net + excluded.net, entries = d.entries + excluded.entries;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS ledger_entries_daily ON ledger_entries;
CREATE TRIGGER ledger_entries_daily AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_daily_add_all();
DROP FUNCTION IF EXISTS ledger_daily_add();

-- ---- Room on each page for a row's next version: the rows below are updated in place again and
-- again (an assignment as its order moves, a counter or a day's rollup with every completion, a
-- merchant's balance), and an update that fits on its row's page touches no index (a HOT update).
-- Applies to pages written from now on.
ALTER TABLE requisite_assignments SET (fillfactor = 70);
ALTER TABLE turnover_counters SET (fillfactor = 50);
ALTER TABLE ledger_daily SET (fillfactor = 50);
ALTER TABLE merchants SET (fillfactor = 70);
