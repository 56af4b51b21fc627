-- Webhook endpoints (Standard Webhooks): a merchant subscribes URLs of its own to its desks'
-- events, each with its own secret. The statement that writes an order's event to the outbox also
-- writes one delivery per enabled endpoint that takes it, in the same transaction, so an event is
-- never written without its deliveries. Deliveries leave from webhook_deliveries with a lease
-- (at most WEBHOOK_ENDPOINT_CONCURRENCY in flight per endpoint); every attempt is kept in
-- webhook_attempts for the merchant's log.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  merchant_id text NOT NULL REFERENCES merchants (id),
  url text NOT NULL,
  -- event kinds, or {'*'}: every kind
  events text[] NOT NULL,
  -- desk ids, or null: every desk of the merchant
  desks text[],
  description text,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  -- the signing secret (whsec_…), sealed under the master key; during a rotation the previous one
  -- signs beside it until prev_secret_until
  secret_enc text NOT NULL,
  prev_secret_enc text,
  prev_secret_until timestamptz,
  -- the first failed attempt since the last delivered one; five days of failures disable the endpoint
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, seq);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- the event's id: webhook-id, the same on every attempt and for every endpoint
  event_id text NOT NULL,
  event text NOT NULL,
  -- the exact bytes posted and signed
  body text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  -- attempts of the current schedule (a recovery starts a new one)
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_by text,
  locked_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  UNIQUE (endpoint_id, event_id)
);
-- An endpoint's due deliveries in the order they are claimed: the claim reads a few entries per endpoint.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE state = 'pending';
-- What is in flight (a handful of rows): each endpoint's room is its limit minus these.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, locked_until) WHERE locked_by IS NOT NULL;
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE state <> 'pending';

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event text NOT NULL,
  attempt integer NOT NULL,
  -- delivered, retry (due again), failed (for good), interrupted (the sender stopped mid-send)
  outcome text NOT NULL,
  status_code integer,
  duration_ms integer,
  error text,
  response text,
  at timestamptz NOT NULL,
  next_attempt_at timestamptz
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_at ON webhook_attempts (at);
