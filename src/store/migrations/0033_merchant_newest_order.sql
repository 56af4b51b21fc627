--! no-transaction
-- A merchant's newest placed order, found at once: its list (newest first) starts there. Without
-- it, a merchant holding a large share of all orders had its list planned as a walk down the
-- global sequence from the newest order of anyone, and a burst of other merchants' orders made that
-- walk skip every one of them (100,000 rows and 50 ms at a million orders). The list now bounds
-- its walk by this merchant's newest sequence, read from this index alone. Built CONCURRENTLY so a
-- running service keeps writing while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_merchant_placed_seq ON orders (merchant_id, seq) WHERE placement = 'placed';
