-- Keyset paging of the operator lists (newest first) and of the order list by desk, status and provider.
CREATE INDEX merchants_created ON merchants (created_at DESC, id DESC);
CREATE INDEX desks_created ON desks (created_at DESC, id DESC);
CREATE INDEX orders_desk_seq ON orders (desk_id, seq);
CREATE INDEX orders_status_seq ON orders (status, seq);
CREATE INDEX orders_provider_seq ON orders (provider_id, seq);
CREATE INDEX appeals_created ON appeals (created_at DESC, id DESC);
CREATE INDEX appeals_merchant ON appeals (merchant_id, created_at DESC);
