-- The W3C traceparent of the work that wrote an event (a request, a worker's job), when tracing
-- is on: each callback attempt's and webhook delivery's span continues that trace, so an order's
-- trace shows the deliveries it caused. Null with tracing off and for events written before.
ALTER TABLE outbox_events ADD COLUMN trace_parent text;
ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text;
-- The archive keeps the events' columns (nothing is ever attempted from it, so it stays null there).
ALTER TABLE outbox_events_archive ADD COLUMN trace_parent text;
