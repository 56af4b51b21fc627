-- Accounts of the cabinet (merchant users) and the back office (operators), withdrawals, and the
-- audit trail of every operator action.

CREATE TABLE users (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_merchant ON users (merchant_id);

CREATE TABLE operators (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'support')),
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX operators_email ON operators (lower(email));

CREATE TABLE withdrawals (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  amount_usd numeric(24, 8) NOT NULL CHECK (amount_usd > 0),
  reference text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX withdrawals_merchant ON withdrawals (merchant_id, created_at DESC);

CREATE TABLE audit_entries (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  -- an operator id (opr_…) or 'token' for the operator API's bearer token
  actor text NOT NULL,
  action text NOT NULL,
  object_id text,
  -- 'ok', or the error code the action was refused with
  outcome text NOT NULL,
  detail text
);
CREATE INDEX audit_entries_object ON audit_entries (object_id, id DESC);

-- The trail is append-only: no entry is ever changed or removed.
CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit entries are never updated or deleted';
END;
$$;
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
  FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();

-- Signed-in sessions of the cabinet and the back office, server-side so any instance serves any
-- request and a sign-out or password change ends them at once. Only a hash of the cookie value is
-- kept.
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  surface text NOT NULL CHECK (surface IN ('cabinet', 'office')),
  account_id text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  user_agent text,
  ip text
);
CREATE INDEX sessions_account ON sessions (surface, account_id) WHERE revoked_at IS NULL;
