-- Cabinet teams and payment links.

-- Every cabinet user has a role: `owner` (everything), `developer` (desks, secrets, callbacks; not
-- the team) or `viewer` (reads only). The users there are were each their merchant's only kind of
-- user, with every right: they are owners.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'developer', 'viewer'));

-- An owner's invitation of a new member: only a SHA-256 of the token in the link is kept. It is
-- used once (`used_at`, set by the statement that creates the user) and lapses after 7 days.
CREATE TABLE user_invitations (
  token_hash text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  invited_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  user_id text
);
CREATE INDEX user_invitations_merchant ON user_invitations (merchant_id, created_at DESC);

-- A payment link (`/l/{id}`): each opening creates an order of `amount` `currency` on the desk,
-- with the description; `opened` numbers the openings, which gives each order a fresh orderRef.
CREATE TABLE payment_links (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  desk_id text NOT NULL REFERENCES desks(id),
  amount numeric(24, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  rail text,
  description text NOT NULL CHECK (char_length(description) BETWEEN 1 AND 255),
  enabled boolean NOT NULL DEFAULT true,
  expires_at timestamptz,
  opened integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payment_links_merchant ON payment_links (merchant_id, created_at DESC, id DESC);

-- The orders each link created, newest first.
CREATE TABLE payment_link_orders (
  link_id text NOT NULL REFERENCES payment_links(id),
  order_id text NOT NULL REFERENCES orders(id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (link_id, order_id)
);
CREATE INDEX payment_link_orders_time ON payment_link_orders (link_id, created_at DESC);

-- What an order is for, as the merchant described it (a payment link's description): shown in the
-- order's reads and on its payment page. A new nullable column: no table rewrite.
ALTER TABLE orders ADD COLUMN description text;
