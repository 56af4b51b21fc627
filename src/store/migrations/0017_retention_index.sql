--! no-transaction
-- Retention's own index (spec/scale.md, "Keeping it that way"): the delivered events by age.
-- Retention takes the oldest delivered events first; through outbox_created it stepped over every
-- old event that is not delivered (refused and failed ones stay in the hot table for good), on
-- every batch, more with each year. Built CONCURRENTLY, so a service on a big database keeps
-- delivering callbacks while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_delivered_created ON outbox_events (created_at) WHERE state = 'delivered';
