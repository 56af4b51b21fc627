-- Alerts: operators are told when evidence stops or money waits. A worker evaluates the
-- conditions; each holds for a subject under a stable key (kind and subject), raised once and
-- resolved once: at most one open alert a key (the partial unique index), a resolved one kept
-- as history. Raising and resolving queue one delivery per enabled webhook channel and one mail
-- per email channel in the same transaction; the webhooks leave from alert_deliveries with
-- retries, the mails from mail_outbox.
CREATE TABLE alerts (
  id text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  kind text NOT NULL,
  subject_id text NOT NULL,
  key text NOT NULL,
  summary text NOT NULL,
  detail jsonb NOT NULL,
  raised_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE UNIQUE INDEX alerts_open_key ON alerts (key) WHERE resolved_at IS NULL;
CREATE INDEX alerts_open_seq ON alerts (seq) WHERE resolved_at IS NULL;

CREATE TABLE alert_channels (
  id text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('email', 'webhook')),
  name text NOT NULL,
  -- an address for email, a URL (checked like callback URLs) for a webhook
  target text NOT NULL,
  lang text NOT NULL DEFAULT 'en',
  -- the webhook's signing secret, sealed under the master key; null for email
  secret_enc text,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((kind = 'webhook') = (secret_enc IS NOT NULL))
);

CREATE TABLE alert_deliveries (
  id text PRIMARY KEY,
  alert_id text NOT NULL REFERENCES alerts (id),
  channel_id text NOT NULL REFERENCES alert_channels (id),
  event text NOT NULL CHECK (event IN ('raised', 'resolved')),
  -- the exact bytes posted and signed
  body text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_by text,
  locked_until timestamptz,
  last_http_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id);
