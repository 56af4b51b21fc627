-- Mail leaves through a real mail server, and forgotten passwords are reset by a mailed link.

-- Each account's language (a payment-page language code), set from the browser's language when the
-- account is made by its own person (sign-up, an accepted invitation); its mails are written in it.
-- Existing accounts read English, as every mail did before. A constant default: no table rewrite.
ALTER TABLE users ADD COLUMN lang text NOT NULL DEFAULT 'en';
ALTER TABLE operators ADD COLUMN lang text NOT NULL DEFAULT 'en';

-- The sender's lease on a mail it is sending: claimed with SKIP LOCKED, finished only by the
-- claimant; a lease older than the longest send (a dead instance) is taken over. `attempts` counts
-- the claims, so a send cut short by a crash still counts against the bound.
ALTER TABLE mail_outbox ADD COLUMN locked_by text;
ALTER TABLE mail_outbox ADD COLUMN locked_at timestamptz;

-- Which mail carried an invitation's link, so the team page says whether it went out.
ALTER TABLE user_invitations ADD COLUMN mail_id text;

-- A forgotten password's reset link: only a SHA-256 of the token in the link is kept. Used once
-- (`used_at`, set by the statement that sets the new password), lapsing 30 minutes after it was
-- made; a new password voids the account's other links.
CREATE TABLE password_resets (
  id text PRIMARY KEY,
  surface text NOT NULL CHECK (surface IN ('cabinet', 'office')),
  account_id text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX password_resets_open ON password_resets (surface, account_id) WHERE used_at IS NULL;
