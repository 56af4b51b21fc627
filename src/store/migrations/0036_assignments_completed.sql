--! no-transaction
-- The day reconciliation report's orders completed that day, per pool: through the order's state
-- kept on its assignment (0020) instead of every order of the platform (no index of orders has the
-- close time first: at 10,000,000 orders the report scanned them all, 5 to 7 s). Built
-- CONCURRENTLY, so a service on a big database keeps assigning while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS requisite_assignments_completed ON requisite_assignments (provider_id, order_finished_at) WHERE order_status = 'Completed';
