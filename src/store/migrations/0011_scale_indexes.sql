--! no-transaction
-- Indexes for the lists and pages at a year of data (spec/scale.md). Built CONCURRENTLY, each in
-- its own statement, so a service running on a big database keeps writing while they build; an
-- interrupted build is dropped and built again at the next start (migrate.ts).

-- The cabinet's order list filtered by status, by a period (the CSV of a day, a month) and by desk
-- and period; the operator's lists by period; the dashboard's figures of today.
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_merchant_status_seq ON orders (merchant_id, status, seq);
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_merchant_created ON orders (merchant_id, created_at, seq);
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_desk_created ON orders (desk_id, created_at, seq);
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_created ON orders (created_at);

-- Search by an orderRef without a desk (a merchant's or the platform's), and by a payer reference (UTR).
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_order_ref ON orders (order_ref) WHERE order_ref IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_payer_reference ON orders (payer_reference) WHERE payer_reference IS NOT NULL;

-- The back office's reconciliation queue and its count on every page (store/office.ts RECONCILE),
-- and the cabinet's first-run checklist ("a completed sandbox order", store/merchants.ts): both
-- would otherwise read a quarter of all orders, or all of a live merchant's, to answer.
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_reconcile ON orders (updated_at, seq)
  WHERE status = 'Canceled' AND sandbox = false AND payer_reference IS NOT NULL AND placement = 'placed';
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_merchant_sandbox_completed ON orders (merchant_id) WHERE sandbox AND status = 'Completed';

-- Events by time: the dashboard's last day, retention's oldest delivered events, and the failing
-- endpoints of the last week (the predicate is store/office.ts FAILING, word for word).
CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_created ON outbox_events (created_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_failing_created ON outbox_events (created_at)
  WHERE state IN ('failed', 'rejected') OR (state = 'pending' AND attempts > 0);

-- An event's attempts: the callbacks page's last attempt per event, and retention moving them with their event.
CREATE INDEX CONCURRENTLY IF NOT EXISTS callback_attempts_event ON callback_attempts (event_id, id);

-- An order's appeals (its page and timeline), and the appeals lists filtered by status.
CREATE INDEX CONCURRENTLY IF NOT EXISTS appeals_order ON appeals (order_id, created_at DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS appeals_status_created ON appeals (status, created_at DESC, id DESC);

-- The audit trail by time.
CREATE INDEX CONCURRENTLY IF NOT EXISTS audit_entries_at ON audit_entries (at);
