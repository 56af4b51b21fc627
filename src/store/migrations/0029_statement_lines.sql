--! no-transaction
-- A merchant's statement reads its live entries of a range of days oldest first, by time and then
-- by id, a batch at a time: on the server through one cursor, on the embedded database a page of
-- 1,000 after the last one read, `(created_at, id) > (…)`. Through (merchant_id, created_at) the
-- embedded database, which keeps no statistics of its own, read every entry left in the range for
-- each page and sorted them (40 ms a page, 200 pages for 200,000 entries, growing with the range);
-- this index hands each page its rows in order, sandbox entries aside. Built CONCURRENTLY, so a
-- service on a big database keeps crediting while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ledger_entries_merchant_live_time ON ledger_entries (merchant_id, created_at, id) WHERE NOT sandbox;
