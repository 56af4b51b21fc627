-- Two-factor sign-in for cabinet users and operators, and appeal receipts kept in the database.

-- The TOTP secret, sealed under the master key; enabled once the first code was confirmed.
ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz;
ALTER TABLE operators ADD COLUMN totp_secret text;
ALTER TABLE operators ADD COLUMN totp_enabled_at timestamptz;

-- One-time recovery codes (hashes only); a used code is marked, never reused.
CREATE TABLE recovery_codes (
  surface text NOT NULL CHECK (surface IN ('cabinet', 'office')),
  account_id text NOT NULL,
  code_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (surface, account_id, code_hash)
);

-- The last accepted TOTP time step per account, so a code cannot be replayed within its window.
CREATE TABLE totp_steps (
  surface text NOT NULL CHECK (surface IN ('cabinet', 'office')),
  account_id text NOT NULL,
  last_step bigint NOT NULL,
  PRIMARY KEY (surface, account_id)
);

-- A receipt file attached to an appeal (PDF, PNG or JPEG, at most 5 MiB), served to the merchant
-- and to operators from any instance.
CREATE TABLE appeal_receipts (
  appeal_id text PRIMARY KEY REFERENCES appeals(id),
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  file_name text,
  size_bytes integer NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 5242880),
  sha256 text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL
);
