-- Who started which order of a payment link. Opening `/l/{id}` only shows the link; its Pay button
-- (`POST /l/{id}`) starts an order, at most 3 open at once per link and client address. Each such
-- start is a row here: written (order_id null) in the transaction that counts the link's opening,
-- before the order is created, so that starts running at once from one address cannot pass the
-- count together; the order's id is set once it exists, and the row is removed when the order is
-- refused. A row whose order never came (a crash in between) counts only for a few minutes.
CREATE TABLE payment_link_openings (
  link_id text NOT NULL REFERENCES payment_links(id),
  -- The opening's number (payment_links.opened after it): the n of the order's orderRef `{linkId}-{n}`.
  opening integer NOT NULL,
  -- The client's address as the server sees it (`req.ip`, behind the proxies TRUST_PROXY names).
  client text NOT NULL,
  order_id text REFERENCES orders(id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (link_id, opening)
);

-- The count of one address's open starts of a link: its rows only, newest first, each joined to
-- its order by the order's key.
CREATE INDEX payment_link_openings_client ON payment_link_openings (link_id, client, created_at DESC);

-- Customers' addresses are kept only as long as the count needs them and support may ask (30 days):
-- the retention job forgets older rows, oldest first, through this index.
CREATE INDEX payment_link_openings_age ON payment_link_openings (created_at);
