-- Paygate schema. Amounts are numeric (exact); times are timestamptz set from the service clock.

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE merchants (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('UnderReview', 'Active', 'Blocked')),
  status_before_block text,
  block_reason text,
  sandbox boolean NOT NULL DEFAULT true,
  balance numeric(24, 8) NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);

CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  order_id text,
  kind text NOT NULL CHECK (kind IN ('credit', 'reversal', 'withdrawal', 'adjustment')),
  amount numeric(24, 8) NOT NULL,
  reason text,
  created_at timestamptz NOT NULL
);
CREATE INDEX ledger_entries_merchant ON ledger_entries (merchant_id, id);
CREATE INDEX ledger_entries_order ON ledger_entries (order_id);

CREATE TABLE tariffs (
  id text PRIMARY KEY,
  name text NOT NULL,
  bands jsonb NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE desks (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  key text NOT NULL UNIQUE,
  secret_enc text NOT NULL,
  method text NOT NULL,
  rails jsonb NOT NULL,
  currencies jsonb NOT NULL,
  min_usd numeric(24, 8) NOT NULL DEFAULT 0,
  max_usd numeric(24, 8) NOT NULL DEFAULT 0,
  callback_url text,
  callbacks_enabled boolean NOT NULL DEFAULT true,
  tariff_id text REFERENCES tariffs(id),
  enabled boolean NOT NULL DEFAULT true,
  stop_reason text,
  created_at timestamptz NOT NULL
);
CREATE INDEX desks_merchant ON desks (merchant_id);

-- Replay memory of /gw/v1 nonces (used when no Redis is configured).
CREATE TABLE nonces (
  desk_key text NOT NULL,
  nonce text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (desk_key, nonce)
);
CREATE INDEX nonces_expiry ON nonces (expires_at);

CREATE TABLE currencies (
  code text PRIMARY KEY,
  enabled boolean NOT NULL DEFAULT false,
  spread_percent numeric(12, 4) NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL
);

CREATE TABLE rates (
  code text PRIMARY KEY,
  manual_rate numeric(24, 8),
  manual_set_at timestamptz,
  market_rate numeric(30, 12),
  market_source text,
  market_fetched_at timestamptz,
  market_attempt_at timestamptz,
  -- a refused jump keeps the last good rate and leaves this flag for operators
  market_flag text,
  updated_at timestamptz NOT NULL
);

CREATE TABLE providers (
  id text PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('sandbox', 'pool', 'http')),
  priority integer NOT NULL DEFAULT 100,
  paused_manual boolean NOT NULL DEFAULT false,
  paused_appeals boolean NOT NULL DEFAULT false,
  capabilities jsonb NOT NULL DEFAULT '[]',
  base_url text,
  api_key text,
  secret_enc text,
  pool_cursor bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);

CREATE TABLE pool_requisites (
  provider_id text NOT NULL REFERENCES providers(id),
  idx integer NOT NULL,
  payment jsonb NOT NULL,
  PRIMARY KEY (provider_id, idx)
);

CREATE TABLE orders (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  desk_id text NOT NULL REFERENCES desks(id),
  merchant_id text NOT NULL REFERENCES merchants(id),
  order_ref text,
  amount numeric(24, 2) NOT NULL,
  currency text NOT NULL,
  rate numeric(24, 8) NOT NULL,
  settled_amount numeric(24, 8) NOT NULL,
  method text NOT NULL,
  rail text,
  direction text NOT NULL DEFAULT 'In',
  status text NOT NULL,
  sub_status text NOT NULL,
  -- 'pending' while the provider cascade runs outside any transaction; only 'placed' orders are visible
  placement text NOT NULL DEFAULT 'pending' CHECK (placement IN ('pending', 'placed', 'failed')),
  payment jsonb,
  provider_id text,
  sandbox boolean NOT NULL,
  notify_url text,
  success_url text,
  fail_url text,
  back_url text,
  operator text,
  lifetime_minutes integer NOT NULL,
  commission_rate numeric(12, 4) NOT NULL DEFAULT 0,
  commission_amount numeric(24, 8) NOT NULL DEFAULT 0,
  credited_amount numeric(24, 8) NOT NULL DEFAULT 0,
  cancel_reason text,
  payer_reference text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX orders_desk_ref ON orders (desk_id, order_ref, seq DESC) WHERE order_ref IS NOT NULL;
CREATE INDEX orders_due ON orders (expires_at) WHERE status = 'Created' AND placement = 'placed';
CREATE INDEX orders_pending ON orders (created_at) WHERE placement = 'pending';
CREATE INDEX orders_merchant ON orders (merchant_id, seq);

-- Idempotency by orderRef: one row per desk and reference, pointing at the order it currently means.
CREATE TABLE order_refs (
  desk_id text NOT NULL,
  order_ref text NOT NULL,
  order_id text NOT NULL,
  amount numeric(24, 2) NOT NULL,
  currency text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (desk_id, order_ref)
);

CREATE TABLE turnover_limits (
  id text PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('desk', 'merchant', 'provider', 'platform')),
  scope_id text,
  win text NOT NULL CHECK (win IN ('hour', 'day', 'month')),
  cap_usd numeric(24, 8) NOT NULL,
  notify_only boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);

-- Completed USD per scope and calendar window, incremented by completion in its own transaction.
CREATE TABLE turnover_counters (
  scope text NOT NULL,
  scope_id text NOT NULL,
  win text NOT NULL,
  window_start timestamptz NOT NULL,
  completed_usd numeric(24, 8) NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, scope_id, win, window_start)
);

CREATE TABLE platform_notifications (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  detail text NOT NULL,
  dedupe_key text UNIQUE,
  created_at timestamptz NOT NULL
);

-- Outbox: one row per event, with the exact body bytes and the URL captured at order creation.
CREATE TABLE outbox_events (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  order_id text NOT NULL,
  desk_id text NOT NULL,
  event text NOT NULL,
  body text NOT NULL,
  url text,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'rejected', 'failed', 'suppressed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  locked_by text,
  locked_at timestamptz,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX outbox_due ON outbox_events (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_order ON outbox_events (order_id, seq);
CREATE INDEX outbox_desk ON outbox_events (desk_id, seq);

CREATE TABLE callback_attempts (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL REFERENCES outbox_events(id),
  order_id text NOT NULL,
  attempt integer NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'rejected', 'failed', 'suppressed')),
  http_code integer,
  response text,
  error text,
  at timestamptz NOT NULL
);
CREATE INDEX callback_attempts_order ON callback_attempts (order_id, id);

CREATE TABLE appeals (
  id text PRIMARY KEY,
  order_id text NOT NULL REFERENCES orders(id),
  desk_id text NOT NULL,
  merchant_id text NOT NULL,
  provider_id text,
  status text NOT NULL CHECK (status IN ('Open', 'Accepted', 'Rejected', 'Cancelled')),
  amount numeric(24, 8) NOT NULL,
  reason text,
  evidence_url text,
  comment text,
  sla_due_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE UNIQUE INDEX appeals_one_open ON appeals (order_id) WHERE status = 'Open';
CREATE INDEX appeals_open_sla ON appeals (sla_due_at) WHERE status = 'Open';

CREATE TABLE provider_circuits (
  provider_id text NOT NULL,
  method text NOT NULL,
  rail text NOT NULL,
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, method, rail)
);

CREATE TABLE provider_messages (
  provider_id text NOT NULL,
  event_id text NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, event_id)
);

-- The built-in sandbox provider exists from the first start; it serves every method, rail and
-- currency, and only merchants that are not approved.
INSERT INTO providers (id, name, kind, priority, capabilities, created_at)
VALUES ('prv_sandbox', 'Sandbox', 'sandbox', 0, '[]', now());
