--! no-transaction
-- A requisite's load (the pool's ranking of its requisites for every new order, and the pool's pages)
-- sums the money matched on it today. Through (requisite_id, received_at) that read every credit of
-- the day on the requisite, matched or not, from the table: on a day of 50,000 unmatched credits
-- over 200 requisites, 50,000 rows for each order placed and each page shown. This index holds the
-- matched credits alone, with their amounts, so the sum reads only those, from the index. Built
-- CONCURRENTLY, so a service on a big database keeps receiving credits while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS credits_requisite_matched_received ON credits (requisite_id, received_at) INCLUDE (amount) WHERE status = 'matched';
