-- Sandbox money apart from live money: each ledger entry says which money it moves, and a merchant
-- keeps a running balance of each. `balance` is the live balance (what withdrawals draw on);
-- `sandbox_balance` is what simulated payments credited. The entries of sandbox orders written
-- before this are marked here, and their sum leaves the live balance for the sandbox one.
ALTER TABLE ledger_entries ADD COLUMN IF NOT EXISTS sandbox boolean NOT NULL DEFAULT false;
ALTER TABLE merchants ADD COLUMN IF NOT EXISTS sandbox_balance numeric(24, 8) NOT NULL DEFAULT 0;

UPDATE ledger_entries l SET sandbox = true FROM orders o WHERE o.id = l.order_id AND o.sandbox AND NOT l.sandbox;

UPDATE merchants m SET sandbox_balance = s.total, balance = m.balance - s.total
  FROM (SELECT merchant_id, sum(amount) AS total FROM ledger_entries WHERE sandbox GROUP BY merchant_id) s
 WHERE m.id = s.merchant_id;

-- The daily rollup (ledger_daily, 0012) already files each entry under its order's sandbox flag,
-- which is the flag written on the entry now: the two always agree.
