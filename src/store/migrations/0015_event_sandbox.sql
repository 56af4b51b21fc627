-- Whether an event is about a sandbox order, written with the event: the dashboard counts a day of
-- one mode's callbacks from the events alone instead of looking up each event's order. Events
-- written before this have none; the dashboard looks their orders up as before.
ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS sandbox boolean;
ALTER TABLE outbox_events_archive ADD COLUMN IF NOT EXISTS sandbox boolean;
