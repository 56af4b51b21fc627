-- Device messages: the bank's SMS and push notifications a phone on each requisite forwards, read
-- into credits by templates. A message is kept whatever became of it (credit, skipped, unread).

-- A phone forwarding a requisite's bank messages (`dev_`). `last_seen_at` moves with every
-- heartbeat and message; `state` is what the silence watch last decided (audited when it changes),
-- while issuing an order reads `last_seen_at` itself, so a silent device's requisites never take
-- an order even before the watch came by.
CREATE TABLE devices (
  id text PRIMARY KEY,
  provider_id text NOT NULL REFERENCES providers(id),
  name text NOT NULL,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'silent')),
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX devices_provider ON devices (provider_id, created_at);

-- The requisites whose messages a device forwards: they are paused for new orders while it is silent.
CREATE TABLE device_requisites (
  device_id text NOT NULL REFERENCES devices(id),
  requisite_id text NOT NULL REFERENCES requisites(id),
  PRIMARY KEY (device_id, requisite_id)
);
CREATE INDEX device_requisites_requisite ON device_requisites (requisite_id);

-- An operator's template (`tpl_`); the built-in ones live in the code. Patterns are re2 syntax
-- with JavaScript named groups, run in linear time.
CREATE TABLE message_templates (
  id text PRIMARY KEY,
  -- null: every pool
  provider_id text REFERENCES providers(id),
  name text NOT NULL,
  sender text,
  pattern text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('credit', 'debit', 'other')),
  currency text,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Every message received (`msg_`). A message is the sender's id with its text: the same id and
-- text again is a repeat answered as before; the same id with another text is read again, and its
-- credit follows the identity rules of items (another payment under a reused id).
CREATE TABLE messages (
  id text PRIMARY KEY,
  provider_id text NOT NULL REFERENCES providers(id),
  message_id text NOT NULL,
  text_sha256 text NOT NULL,
  -- as sent; device_known false when no device of the provider has that id
  device_id text NOT NULL,
  device_known boolean NOT NULL,
  sender text NOT NULL,
  text text NOT NULL,
  received_at timestamptz NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('credit', 'skipped', 'unread', 'done')),
  -- why unread or skipped: `unknown device`, `no template`, `account not shown`, a template's kind…
  reason text,
  template_id text,
  credit_id text,
  created_at timestamptz NOT NULL,
  UNIQUE (provider_id, message_id, text_sha256)
);
-- The unread queue, oldest first, and its count in the navigation.
CREATE INDEX messages_unread ON messages (created_at) WHERE outcome = 'unread';
-- A device's messages of the day on the pool's page.
CREATE INDEX messages_device ON messages (provider_id, device_id, created_at);
