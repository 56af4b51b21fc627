--! no-transaction
-- A merchant's entries of one money (live or sandbox), newest first: the back office's merchant
-- page in the other mode. Through (merchant_id, id) a live merchant's sandbox entries, of which
-- there are few or none, cost a walk through its whole ledger. Built CONCURRENTLY, so a service on
-- a big database keeps crediting while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ledger_entries_merchant_mode ON ledger_entries (merchant_id, sandbox, id);
