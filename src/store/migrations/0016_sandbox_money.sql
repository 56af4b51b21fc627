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

-- The daily rollup takes the mode from the entry itself.
CREATE OR REPLACE FUNCTION ledger_daily_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  settled numeric := 0;
BEGIN
  IF NEW.kind = 'credit' AND NEW.order_id IS NOT NULL THEN
    SELECT o.settled_amount INTO settled FROM orders o WHERE o.id = NEW.order_id;
  END IF;
  INSERT INTO ledger_daily AS d (merchant_id, day, sandbox, turnover, credits, credit_count, reversals, withdrawals, adjustments, net, entries)
  VALUES (NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.sandbox,
          CASE WHEN NEW.kind = 'credit' THEN coalesce(settled, 0) ELSE 0 END,
          CASE WHEN NEW.kind = 'credit' THEN NEW.amount ELSE 0 END,
          CASE WHEN NEW.kind = 'credit' THEN 1 ELSE 0 END,
          CASE WHEN NEW.kind = 'reversal' THEN NEW.amount ELSE 0 END,
          CASE WHEN NEW.kind = 'withdrawal' THEN NEW.amount ELSE 0 END,
          CASE WHEN NEW.kind = 'adjustment' THEN NEW.amount ELSE 0 END,
          NEW.amount, 1)
  ON CONFLICT (merchant_id, day, sandbox) DO UPDATE SET
    turnover = d.turnover + excluded.turnover, credits = d.credits + excluded.credits, credit_count = d.credit_count + excluded.credit_count,
    reversals = d.reversals + excluded.reversals, withdrawals = d.withdrawals + excluded.withdrawals,
    adjustments = d.adjustments + excluded.adjustments, net = d.net + excluded.net, entries = d.entries + excluded.entries;
  RETURN NULL;
END;
$$;
