--! no-transaction
-- Daily rollups for the balance page and the dashboard, and archive tables for old callback
-- history (spec/scale.md). Run statement by statement, each safe to run again: the ledger's
-- rollup is filled in batches that commit one by one, so completions on a big database wait at
-- most for one batch, never for the whole backfill.

-- ---- ledger_daily: per merchant, UTC day and sandbox flag, what the ledger entries of that day
-- add up to. Written by the database itself with every ledger entry, in its transaction (as the
-- order transitions are), so no writer can forget it, whatever version of the code it runs.
CREATE TABLE IF NOT EXISTS ledger_daily (
  merchant_id text NOT NULL,
  day date NOT NULL,
  -- the order's flag for entries of an order; false for withdrawals and adjustments
  sandbox boolean NOT NULL,
  -- settled USD of the orders credited that day
  turnover numeric(24, 8) NOT NULL DEFAULT 0,
  credits numeric(24, 8) NOT NULL DEFAULT 0,
  credit_count bigint NOT NULL DEFAULT 0,
  reversals numeric(24, 8) NOT NULL DEFAULT 0,
  withdrawals numeric(24, 8) NOT NULL DEFAULT 0,
  adjustments numeric(24, 8) NOT NULL DEFAULT 0,
  net numeric(24, 8) NOT NULL DEFAULT 0,
  entries bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (merchant_id, day, sandbox)
);
CREATE INDEX IF NOT EXISTS ledger_daily_day ON ledger_daily (day);

CREATE OR REPLACE FUNCTION ledger_daily_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  settled numeric := 0;
  in_sandbox boolean := false;
BEGIN
  IF NEW.order_id IS NOT NULL THEN
    SELECT o.settled_amount, o.sandbox INTO settled, in_sandbox FROM orders o WHERE o.id = NEW.order_id;
    in_sandbox := coalesce(in_sandbox, false);
  END IF;
  INSERT INTO ledger_daily AS d (merchant_id, day, sandbox, turnover, credits, credit_count, reversals, withdrawals, adjustments, net, entries)
  VALUES (NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, in_sandbox,
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

-- Which entries the backfill below still has to add up: every one up to the newest that existed
-- when the trigger was created (those after it went through the trigger).
CREATE TABLE IF NOT EXISTS ledger_daily_backfill (upto bigint NOT NULL, done bigint NOT NULL);

-- The trigger and the backfill's bound in one transaction: creating the trigger waits for the
-- transactions writing entries at that moment, so every entry is counted once, by one or the other.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'ledger_entries_daily' AND tgrelid = 'ledger_entries'::regclass) THEN
    CREATE TRIGGER ledger_entries_daily AFTER INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_daily_add();
    INSERT INTO ledger_daily_backfill (upto, done) SELECT coalesce(max(id), 0), 0 FROM ledger_entries;
  END IF;
END;
$$;

-- 50,000 entries per transaction (a fraction of a second); a restart goes on from the last batch.
CREATE OR REPLACE PROCEDURE ledger_daily_backfill_run() LANGUAGE plpgsql AS $$
DECLARE
  lo bigint;
  hi bigint;
  target bigint;
BEGIN
  LOOP
    SELECT done, upto INTO lo, target FROM ledger_daily_backfill FOR UPDATE;
    EXIT WHEN lo IS NULL OR lo >= target;
    hi := least(lo + 50000, target);
    INSERT INTO ledger_daily AS d (merchant_id, day, sandbox, turnover, credits, credit_count, reversals, withdrawals, adjustments, net, entries)
    SELECT l.merchant_id, (l.created_at AT TIME ZONE 'UTC')::date, coalesce(o.sandbox, false),
           coalesce(sum(o.settled_amount) FILTER (WHERE l.kind = 'credit'), 0),
           coalesce(sum(l.amount) FILTER (WHERE l.kind = 'credit'), 0),
           count(*) FILTER (WHERE l.kind = 'credit'),
           coalesce(sum(l.amount) FILTER (WHERE l.kind = 'reversal'), 0),
           coalesce(sum(l.amount) FILTER (WHERE l.kind = 'withdrawal'), 0),
           coalesce(sum(l.amount) FILTER (WHERE l.kind = 'adjustment'), 0),
           sum(l.amount), count(*)
      FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
     WHERE l.id > lo AND l.id <= hi
     GROUP BY 1, 2, 3
    ON CONFLICT (merchant_id, day, sandbox) DO UPDATE SET
      turnover = d.turnover + excluded.turnover, credits = d.credits + excluded.credits, credit_count = d.credit_count + excluded.credit_count,
      reversals = d.reversals + excluded.reversals, withdrawals = d.withdrawals + excluded.withdrawals,
      adjustments = d.adjustments + excluded.adjustments, net = d.net + excluded.net, entries = d.entries + excluded.entries;
    UPDATE ledger_daily_backfill SET done = hi;
    COMMIT;
  END LOOP;
END;
$$;

CALL ledger_daily_backfill_run();
DROP PROCEDURE IF EXISTS ledger_daily_backfill_run();
DROP TABLE IF EXISTS ledger_daily_backfill;

-- ---- order_day_stats: placed orders per UTC day of creation, sandbox flag, method, provider and
-- current status, for the dashboard. Statuses of past days still move (expiry, appeals,
-- reconciliation), so the maintenance worker recomputes recent days from the orders and records
-- when (order_day_stats_days); the dashboard counts a day not recomputed yet, and today, live.
CREATE TABLE IF NOT EXISTS order_day_stats (
  day date NOT NULL,
  sandbox boolean NOT NULL,
  method text NOT NULL,
  -- '' for orders no provider served
  provider_id text NOT NULL,
  status text NOT NULL,
  orders bigint NOT NULL,
  PRIMARY KEY (day, sandbox, method, provider_id, status)
);
CREATE TABLE IF NOT EXISTS order_day_stats_days (
  day date PRIMARY KEY,
  refreshed_at timestamptz NOT NULL
);

-- ---- Archive of delivered callbacks older than RETENTION_DAYS: the same columns as the hot
-- tables (moved there by the retention job in small batches), read together with them by an
-- order's callback log, its timeline and a desk's events feed.
CREATE TABLE IF NOT EXISTS outbox_events_archive (LIKE outbox_events);
CREATE UNIQUE INDEX IF NOT EXISTS outbox_events_archive_id ON outbox_events_archive (id);
CREATE INDEX IF NOT EXISTS outbox_events_archive_order ON outbox_events_archive (order_id, seq);
CREATE INDEX IF NOT EXISTS outbox_events_archive_desk ON outbox_events_archive (desk_id, seq);

CREATE TABLE IF NOT EXISTS callback_attempts_archive (LIKE callback_attempts);
CREATE UNIQUE INDEX IF NOT EXISTS callback_attempts_archive_id ON callback_attempts_archive (id);
CREATE INDEX IF NOT EXISTS callback_attempts_archive_order ON callback_attempts_archive (order_id, id);
CREATE INDEX IF NOT EXISTS callback_attempts_archive_event ON callback_attempts_archive (event_id, id);
