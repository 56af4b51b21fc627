-- Mail leaves from an outbox: a mail is a row written in the transaction of what it tells (an
-- invitation, a reset, a decision, a withdrawal's progress), and a worker sends it afterwards with
-- retries, never in a request's path. Without a mail server configured the rows stay `kept` and are
-- shown to admins in the back office.
CREATE TABLE mail_outbox (
  id text PRIMARY KEY,
  to_address text NOT NULL,
  -- The recipient's language (a payment-page language code); the mail is written in it.
  lang text NOT NULL,
  -- Which mail: its template (see src/mail), and the template's fields.
  kind text NOT NULL,
  data jsonb NOT NULL,
  -- queued → sent | failed (given up after the retries) | kept (no mail server configured).
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed', 'kept')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);

-- The sender's queue: due rows, oldest first.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'queued';
CREATE INDEX mail_outbox_created ON mail_outbox (created_at DESC);
