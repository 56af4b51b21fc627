-- Credit identity: a payment is never dropped and two payments are never taken for one.
--
-- A credit was unique by (provider, source id), and a statement's source id was whatever the
-- bank wrote first (often a counter within the file, or a reference the payer chose), so real
-- payments were dropped as repeats. Now:
--  - an item of the feed, of a device or entered by hand is idempotent by its own id together
--    with its terms (account, currency, amount, booking day): `credit_items`;
--  - a statement entry is evidence of one credit, found by its terms and the bank's own
--    reference: `statements` and `statement_entries`.
-- The terms are kept on the credit (`account_key`: the requisite the account names, else the
-- account as written without spaces, dashes and case; `booking_day`: the UTC day it arrived).

ALTER TABLE credits DROP CONSTRAINT IF EXISTS credits_provider_id_source_id_key;
ALTER TABLE credits ALTER COLUMN source_id DROP NOT NULL;
ALTER TABLE credits DROP CONSTRAINT IF EXISTS credits_source_check;
ALTER TABLE credits ADD CONSTRAINT credits_source_check CHECK (source IN ('feed', 'statement', 'operator', 'device'));
ALTER TABLE credits
  ADD COLUMN IF NOT EXISTS account_key text,
  ADD COLUMN IF NOT EXISTS booking_day date,
  -- the bank's own reference of the booking, when a statement or the feed gave one
  ADD COLUMN IF NOT EXISTS bank_reference text,
  -- a statement entry evidences the credit
  ADD COLUMN IF NOT EXISTS in_statement boolean NOT NULL DEFAULT false,
  -- recorded from a statement before statements were kept: which reference named it is not known,
  -- so the first entry of a later statement with its terms is taken to be it (a file uploaded
  -- before this change and again after it records nothing new)
  ADD COLUMN IF NOT EXISTS legacy_statement boolean NOT NULL DEFAULT false,
  -- the statement that recorded the credit, when one did
  ADD COLUMN IF NOT EXISTS statement_id text;

UPDATE credits SET
  account_key = COALESCE(requisite_id, 'raw:' || lower(regexp_replace(account, '[[:space:]-]', '', 'g'))),
  booking_day = (received_at AT TIME ZONE 'UTC')::date,
  in_statement = (source = 'statement'),
  legacy_statement = (source = 'statement')
 WHERE account_key IS NULL;

ALTER TABLE credits ALTER COLUMN account_key SET NOT NULL, ALTER COLUMN booking_day SET NOT NULL;
CREATE INDEX IF NOT EXISTS credits_terms ON credits (provider_id, account_key, currency, amount, booking_day);

-- The ids the feed, devices and people gave, each with the terms it came with: the same id with
-- the same terms is the same item; the same id with other terms is another payment.
CREATE TABLE credit_items (
  provider_id text NOT NULL,
  source text NOT NULL CHECK (source IN ('feed', 'operator', 'device')),
  source_id text NOT NULL,
  account_key text NOT NULL,
  currency text NOT NULL,
  amount numeric(24, 2) NOT NULL,
  booking_day date NOT NULL,
  credit_id text NOT NULL REFERENCES credits(id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, source, source_id, account_key, currency, amount, booking_day)
);
CREATE INDEX credit_items_credit ON credit_items (credit_id);

INSERT INTO credit_items (provider_id, source, source_id, account_key, currency, amount, booking_day, credit_id, created_at)
SELECT provider_id, source, source_id, account_key, currency, amount, booking_day, id, created_at
  FROM credits WHERE source IN ('feed', 'operator') AND source_id IS NOT NULL
ON CONFLICT DO NOTHING;

-- Every statement uploaded, kept with what it said and what became of each entry.
CREATE TABLE statements (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  provider_id text NOT NULL REFERENCES providers(id),
  filename text,
  sha256 text NOT NULL,
  format text NOT NULL,
  version text,
  -- the accounts as the file writes them, and their keys as credits compare them
  accounts jsonb NOT NULL DEFAULT '[]',
  account_keys text[] NOT NULL DEFAULT '{}',
  period_from date,
  period_to date,
  -- per section: account, period, opening and closing balances, sums, balance check, continuity
  sections jsonb NOT NULL DEFAULT '[]',
  balance_check text NOT NULL CHECK (balance_check IN ('consistent', 'inconsistent', 'not stated')),
  balance_difference numeric(24, 2),
  continuity text NOT NULL CHECK (continuity IN ('continuous', 'gap', 'first', 'not stated')),
  gap_from date,
  gap_to date,
  -- importing: entries are being recorded (a re-upload of the same bytes resumes a stalled one)
  state text NOT NULL CHECK (state IN ('importing', 'recorded')),
  counts jsonb NOT NULL DEFAULT '{}',
  uploaded_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (provider_id, sha256)
);
CREATE INDEX statements_provider_seq ON statements (provider_id, seq);
CREATE INDEX statements_seq ON statements (seq);
CREATE INDEX statements_account_keys ON statements USING gin (account_keys);

CREATE TABLE statement_entries (
  statement_id text NOT NULL REFERENCES statements(id),
  idx integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('credit', 'debit', 'other')),
  account text,
  amount numeric(24, 2),
  currency text,
  booking_date date,
  received_at timestamptz,
  bank_reference text,
  source_ref text,
  payer text,
  reference text,
  outcome text NOT NULL CHECK (outcome IN ('new', 'duplicate', 'skipped', 'unreadable')),
  credit_id text REFERENCES credits(id),
  problem text,
  PRIMARY KEY (statement_id, idx)
);
-- Each credit is evidenced by at most one entry of any one statement.
CREATE UNIQUE INDEX statement_entries_credit ON statement_entries (credit_id, statement_id) WHERE credit_id IS NOT NULL;

ALTER TABLE credits ADD CONSTRAINT credits_statement_fk FOREIGN KEY (statement_id) REFERENCES statements(id);

-- A bank's own CSV export described once per provider: separators, date format, time zone and
-- which column holds what.
CREATE TABLE statement_profiles (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  provider_id text NOT NULL REFERENCES providers(id),
  name text NOT NULL,
  profile jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX statement_profiles_provider ON statement_profiles (provider_id, seq);

-- What a completed order was paid: its amount, or the money that arrived when a person matched a
-- credit of another amount to it (its settlement, fee and credit are then computed from this).
-- Null on orders completed before it was kept: their reads show the amount.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS paid_amount numeric(24, 2);

-- Accounts as banks write them: a card, account or phone number is also found by its digits, and a
-- phone by its national number (its last 10 digits), whatever prefix and separators it is written with.
INSERT INTO requisite_accounts (requisite_id, provider_id, account)
SELECT DISTINCT q.id, q.provider_id, regexp_replace(e.value, '[^0-9]', '', 'g')
  FROM requisites q, jsonb_each_text(q.payment) e
 WHERE e.key IN ('card', 'phone', 'account', 'iban', 'upiId') AND e.value ~ '^[0-9[:space:]().+/-]+$' AND regexp_replace(e.value, '[^0-9]', '', 'g') <> ''
ON CONFLICT DO NOTHING;
INSERT INTO requisite_accounts (requisite_id, provider_id, account)
SELECT DISTINCT q.id, q.provider_id, 'tel:' || right(regexp_replace(e.value, '[^0-9]', '', 'g'), 10)
  FROM requisites q, jsonb_each_text(q.payment) e
 WHERE e.key = 'phone' AND length(regexp_replace(e.value, '[^0-9]', '', 'g')) >= 10
ON CONFLICT DO NOTHING;
