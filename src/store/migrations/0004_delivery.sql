-- Callback delivery at full speed and fair.
--
-- An attempt taken over from a worker that stopped during the send is logged as `interrupted`:
-- the request may have reached the receiver, so the log shows it.
ALTER TABLE callback_attempts DROP CONSTRAINT IF EXISTS callback_attempts_outcome_check;
ALTER TABLE callback_attempts ADD CONSTRAINT callback_attempts_outcome_check
  CHECK (outcome IN ('delivered', 'retry', 'rejected', 'failed', 'suppressed', 'interrupted'));

-- The receiving host (lower-case host name of the URL), so one receiver cannot take every sending slot.
ALTER TABLE outbox_events ADD COLUMN receiver text;
UPDATE outbox_events
   SET receiver = lower(substring(url FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[^]]*\]|[^:/?#]*)'))
 WHERE url IS NOT NULL;

-- Due attempts in claim order; the old index only covered next_attempt_at.
DROP INDEX IF EXISTS outbox_due;
CREATE INDEX outbox_due ON outbox_events (next_attempt_at, seq) WHERE state = 'pending';
