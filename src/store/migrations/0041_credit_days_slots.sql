-- A pool's credits of a day were summed into one row per requisite and status (0038): every
-- transaction that received credits on a requisite took that row's lock until it committed, so the
-- feed's batches sent at once waited for each other (4 connections: 2,200 credits a second where
-- 3,000 went before the rollup; 1 connection: no difference). Each row is now striped over 16
-- slots, a connection writing the slot of its server process: batches on different connections
-- never wait for each other's sums, and the report adds the slots up (a day of 200 requisites is at
-- most 9,600 rows, read in a few milliseconds). A slot's row may go below zero (a credit received
-- on one connection and matched on another); only the sum over the slots means anything.
ALTER TABLE credit_days ADD COLUMN IF NOT EXISTS slot smallint NOT NULL DEFAULT 0;
ALTER TABLE credit_days DROP CONSTRAINT IF EXISTS credit_days_pkey;
ALTER TABLE credit_days ADD CONSTRAINT credit_days_pkey PRIMARY KEY (provider_id, day, requisite_id, status, slot);

-- The writing connection's slot: its server process, 16 apart.
CREATE OR REPLACE FUNCTION credit_days_slot() RETURNS smallint LANGUAGE sql VOLATILE AS $$ SELECT (pg_backend_pid() % 16)::smallint $$;

CREATE OR REPLACE FUNCTION credit_days_changed() RETURNS trigger LANGUAGE plpgsql
  SET enable_nestloop = off SET enable_seqscan = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, slot, credits, amount)
    SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
           COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
           c.status, credit_days_slot(), count(*), sum(c.amount)
      FROM credits_added c
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (provider_id, day, requisite_id, status, slot) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Most updates of a credit leave its key as it was (an item, a statement, a time): they sum to
    -- nothing and write nothing.
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, slot, credits, amount)
    SELECT k.provider_id, k.day, k.requisite_id, k.status, credit_days_slot(), sum(k.n), sum(k.amount)
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
    ON CONFLICT (provider_id, day, requisite_id, status, slot) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  ELSE
    INSERT INTO credit_days AS d (provider_id, day, requisite_id, status, slot, credits, amount)
    SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date,
           COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, ''),
           c.status, credit_days_slot(), -count(*), -sum(c.amount)
      FROM credits_removed c
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (provider_id, day, requisite_id, status, slot) DO UPDATE SET credits = d.credits + excluded.credits, amount = d.amount + excluded.amount;
  END IF;
  RETURN NULL;
END;
$$;
