--! no-transaction
-- The unmatched credits of each pool, counted on its pages: through the unmatched ones alone, not
-- every credit of the pool (2,500,000 at 10,000,000 orders: 0.5 s a page). Built CONCURRENTLY.
CREATE INDEX CONCURRENTLY IF NOT EXISTS credits_unmatched_provider ON credits (provider_id) WHERE status = 'unmatched';
