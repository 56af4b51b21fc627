-- Why a pool did not take an order: one row per decline, so the pool's back-office page can show
-- operators what the cascade moved past (every requisite busy with that amount, limits reached,
-- paused requisites, …) and when, instead of that living only in the logs.
CREATE TABLE pool_declines (
  seq bigserial PRIMARY KEY,
  provider_id text NOT NULL REFERENCES providers(id),
  order_id text NOT NULL,
  amount numeric(24, 2) NOT NULL,
  currency text NOT NULL,
  rail text,
  reason text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX pool_declines_provider ON pool_declines (provider_id, at);
