-- The dashboard's callback figures: events per UTC hour of their writing, mode and delivery state.
-- A state still moves for about 21 minutes after an event is written (its retries), so the
-- maintenance worker counts the last two hours again every minute and the last day every ten
-- minutes; the dashboard sums the hours and never counts events itself.
CREATE TABLE callback_hour_stats (
  hour timestamptz NOT NULL,
  sandbox boolean NOT NULL,
  state text NOT NULL,
  events bigint NOT NULL,
  PRIMARY KEY (hour, sandbox, state)
);
