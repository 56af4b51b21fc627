-- Phones as evidence, continued: the key a forwarding app on the phone signs its deliveries with,
-- and what message retention reads.

-- The device's own signing key (sealed under the master key), shown once when the device is made
-- or its key is issued again; null for a device made before keys existed, until one is issued.
ALTER TABLE devices ADD COLUMN signing_key_enc text;

-- Retention: handled messages (a credit, skipped, dealt with by a person) oldest first; the unread
-- ones are found by messages_unread.
CREATE INDEX messages_handled_age ON messages (created_at) WHERE outcome <> 'unread';

-- When each device was silent (its requisites taking no new order), for the day report: opened
-- by the silence watch from the moment the silence began (the last sighting plus the silence),
-- closed when the device is heard from again; a silence the watch did not come by in time is
-- recorded whole when the device is heard from.
CREATE TABLE device_silences (
  device_id text NOT NULL REFERENCES devices(id),
  provider_id text NOT NULL REFERENCES providers(id),
  started_at timestamptz NOT NULL,
  -- null: still silent
  ended_at timestamptz,
  PRIMARY KEY (device_id, started_at)
);
CREATE INDEX device_silences_provider ON device_silences (provider_id, started_at);
CREATE UNIQUE INDEX device_silences_open ON device_silences (device_id) WHERE ended_at IS NULL;
