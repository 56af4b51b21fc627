-- The day reconciliation report counted a pool's credits of the day at request time: 50,000 credits
-- on one day took 140 ms to aggregate, growing with the day. They are now summed per pool, UTC day of
-- receipt, requisite and status as they are written, like the ledger's daily rollup (0012, 0021),
-- and the report reads a few hundred rows whatever the day holds.
--
-- The requisite a credit counts on is the report's: the one its order was given when a person
-- matched it (its account may have named another, or none), else the one its account names, else
-- none (''). An order's assignment never changes once made, so the same credit always yields the
-- same requisite, and what a change takes away is exactly what it once added.
CREATE TABLE IF NOT EXISTS credit_days (
  provider_id text NOT NULL,
  day date NOT NULL,
  -- '' for credits on an account that names no requisite of the pool
  requisite_id text NOT NULL,
  status text NOT NULL,
  credits integer NOT NULL,
  amount numeric(24, 2) NOT NULL,
  PRIMARY KEY (provider_id, day, requisite_id, status)
);
ALTER TABLE credit_days SET (fillfactor = 70);

-- The key and sign of each row of a transition table, summed per key: the upsert below adds it.
-- Written once per statement, from its transition tables, planned as 0021 explains (no nested
-- loops, no sequential scans: the operator-matched credits' assignments are found by their key).
CREATE OR REPLACE FUNCTION credit_days_changed() RETURNS trigger LANGUAGE plpgsql
  SET enable_nestloop = off SET enable_seqscan = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, credits, amount)
    SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
           COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
           c.status, count(*), sum(c.amount)
      FROM credits_added c
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (provider_id, day, requisite_id, status) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Most updates of a credit leave its key as it was (an item, a statement, a time): they sum to
    -- nothing and write nothing.
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, credits, amount)
    SELECT k.provider_id, k.day, k.requisite_id, k.status, sum(k.n), sum(k.amount)
      FROM (SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date AS day,
                   COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, '') AS requisite_id,
                   c.status, -1 AS n, -c.amount AS amount
              FROM credits_before c
            UNION ALL
            SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
                   COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
                   c.status, 1, c.amount
              FROM credits_after c) k
     GROUP BY 1, 2, 3, 4
    HAVING sum(k.n) <> 0 OR sum(k.amount) <> 0
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (provider_id, day, requisite_id, status) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  ELSE
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, credits, amount)
    SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
           COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
           c.status, -count(*), -sum(c.amount)
      FROM credits_removed c
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (provider_id, day, requisite_id, status) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  END IF;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS credits_days_added ON credits;
DROP TRIGGER IF EXISTS credits_days_updated ON credits;
DROP TRIGGER IF EXISTS credits_days_removed ON credits;
CREATE TRIGGER credits_days_added AFTER INSERT ON credits
  REFERENCING NEW TABLE AS credits_added FOR EACH STATEMENT EXECUTE FUNCTION credit_days_changed();
CREATE TRIGGER credits_days_updated AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS credits_before NEW TABLE AS credits_after FOR EACH STATEMENT EXECUTE FUNCTION credit_days_changed();
CREATE TRIGGER credits_days_removed AFTER DELETE ON credits
  REFERENCING OLD TABLE AS credits_removed FOR EACH STATEMENT EXECUTE FUNCTION credit_days_changed();

-- The credits already there, summed the same way, in this transaction: creating the triggers locks
-- the credits against writes until it commits, so each credit is counted once.
DELETE FROM credit_days;
INSERT INTO credit_days (provider_id, day, requisite_id, status, credits, amount)
SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
       COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
       c.status, count(*), sum(c.amount)
  FROM credits c
 GROUP BY 1, 2, 3, 4;
