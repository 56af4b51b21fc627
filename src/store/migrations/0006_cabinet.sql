-- The cabinet's balance page reads a merchant's ledger by day (totals and the 30-day chart).
CREATE INDEX ledger_entries_merchant_time ON ledger_entries (merchant_id, created_at);
