-- Reconciliation: a pool's payment details become objects of their own (requisites), each order a
-- pool serves records the requisite it was given, and money seen arriving on a requisite's account
-- (credits) is matched to the order it pays.

CREATE TABLE requisites (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  provider_id text NOT NULL REFERENCES providers(id),
  -- the payment keys as the operator gave them
  payment jsonb NOT NULL,
  -- null: any currency of the provider's capabilities
  currency text,
  -- null: every rail of the provider's capabilities; [] serves only rail-less orders
  rails jsonb,
  -- customer currency; 0 = unbounded
  min_amount numeric(24, 2) NOT NULL DEFAULT 0 CHECK (min_amount >= 0),
  max_amount numeric(24, 2) NOT NULL DEFAULT 0 CHECK (max_amount >= 0),
  daily_limit numeric(24, 2) NOT NULL DEFAULT 0 CHECK (daily_limit >= 0),
  max_open_orders integer NOT NULL DEFAULT 10 CHECK (max_open_orders >= 1),
  label text,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'retired')),
  -- when an order was last given this requisite: of two equally busy requisites the one used least recently is next
  last_used_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX requisites_provider ON requisites (provider_id, seq);

-- A requisite's payable details (card, phone, account, IBAN, UPI id) written the way credits are
-- compared: without spaces and dashes, lower case. Details never change after creation.
CREATE TABLE requisite_accounts (
  requisite_id text NOT NULL REFERENCES requisites(id),
  provider_id text NOT NULL,
  account text NOT NULL,
  PRIMARY KEY (requisite_id, account)
);
CREATE INDEX requisite_accounts_lookup ON requisite_accounts (provider_id, account);

-- Which requisite an order was given. The order's terms are copied here so the assignment rules
-- read one table, and an order still being placed already counts as open.
CREATE TABLE requisite_assignments (
  order_id text PRIMARY KEY,
  requisite_id text NOT NULL REFERENCES requisites(id),
  provider_id text NOT NULL,
  amount numeric(24, 2) NOT NULL,
  currency text NOT NULL,
  rail text,
  expires_at timestamptz NOT NULL,
  assigned_at timestamptz NOT NULL
);
CREATE INDEX requisite_assignments_open ON requisite_assignments (requisite_id, expires_at);
CREATE INDEX requisite_assignments_amount ON requisite_assignments (requisite_id, amount, currency, expires_at);
CREATE INDEX requisite_assignments_day ON requisite_assignments (provider_id, assigned_at);

CREATE TABLE credits (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  provider_id text NOT NULL REFERENCES providers(id),
  -- null when the account names no requisite of the provider
  requisite_id text REFERENCES requisites(id),
  account text NOT NULL,
  amount numeric(24, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  received_at timestamptz NOT NULL,
  -- the statement gave a date alone: received_at is that day 00:00Z and stands for the whole day
  date_only boolean NOT NULL DEFAULT false,
  payer text,
  reference text,
  source text NOT NULL CHECK (source IN ('feed', 'statement', 'operator')),
  source_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('matched', 'unmatched', 'ignored')),
  reason text,
  -- one credit pays at most one order, and an order is paid by at most one credit
  order_id text UNIQUE,
  matched_by text CHECK (matched_by IN ('reference', 'amount', 'operator')),
  candidates jsonb NOT NULL DEFAULT '[]',
  -- credit amount less the order's, when an operator matched them although they differ
  difference numeric(24, 2),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (provider_id, source_id),
  CHECK ((status = 'matched') = (order_id IS NOT NULL))
);
CREATE INDEX credits_status_seq ON credits (status, seq);
CREATE INDEX credits_provider_seq ON credits (provider_id, seq);
CREATE INDEX credits_requisite_received ON credits (requisite_id, received_at);
CREATE INDEX credits_provider_received ON credits (provider_id, received_at);

-- The pool's former list of details, each one a requisite now: any currency and rail of the
-- provider, unbounded, at most 10 open orders. Ids come from the provider and position, so they
-- are the same wherever this runs.
INSERT INTO requisites (id, provider_id, payment, created_at, updated_at)
SELECT 'rqs_' || substr(md5(r.provider_id || ':' || r.idx), 1, 26), r.provider_id, r.payment, p.created_at + r.idx * interval '1 microsecond', now()
  FROM pool_requisites r JOIN providers p ON p.id = r.provider_id
 ORDER BY r.provider_id, r.idx;

INSERT INTO requisite_accounts (requisite_id, provider_id, account)
SELECT DISTINCT q.id, q.provider_id, lower(regexp_replace(e.value, '[[:space:]-]', '', 'g'))
  FROM requisites q, jsonb_each_text(q.payment) e
 WHERE e.key IN ('card', 'phone', 'account', 'iban', 'upiId') AND regexp_replace(e.value, '[[:space:]-]', '', 'g') <> '';

DROP TABLE pool_requisites;
