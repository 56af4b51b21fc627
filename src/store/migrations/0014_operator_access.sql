-- An operator can be disabled: no sign-in, every session ended; enabled again by clearing it.
ALTER TABLE operators ADD COLUMN disabled_at timestamptz;
