import type { Queryable } from './db.js';
import type { OrderRow } from './orders.js';

/** A payment link (`/l/{id}`), the orders its openings created and which client address started each. */

export interface LinkRow {
  id: string;
  merchant_id: string;
  desk_id: string;
  amount: string;
  currency: string;
  /** The rail its orders use; null: the first of the desk's rails that serves the currency. */
  rail: string | null;
  description: string;
  enabled: boolean;
  expires_at: Date | null;
  /** How many times it was opened: the number in the next order's reference. */
  opened: number;
  created_at: Date;
  updated_at: Date;
}

/** A link of a list, with how many orders it created and how many of them completed. */
export interface LinkLine extends LinkRow {
  orders: number;
  completed: number;
}

export async function insertLink(
  q: Queryable,
  l: { id: string; merchantId: string; deskId: string; amount: string; currency: string; rail: string | null; description: string; expiresAt: Date | null; at: Date },
): Promise<LinkRow> {
  const { rows } = await q.query<LinkRow>(
    `INSERT INTO payment_links (id, merchant_id, desk_id, amount, currency, rail, description, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *`,
    [l.id, l.merchantId, l.deskId, l.amount, l.currency, l.rail, l.description, l.expiresAt, l.at],
  );
  return rows[0]!;
}

export async function getLink(q: Queryable, id: string): Promise<LinkRow | null> {
  const { rows } = await q.query<LinkRow>('SELECT * FROM payment_links WHERE id = $1', [id]);
  return rows[0] ?? null;
}

const LINE = `l.*,
  (SELECT count(*)::int FROM payment_link_orders lo WHERE lo.link_id = l.id) AS orders,
  (SELECT count(*)::int FROM payment_link_orders lo JOIN orders o ON o.id = lo.order_id WHERE lo.link_id = l.id AND o.status = 'Completed') AS completed`;

/** The merchant's links, newest first, from before the link `beforeId` when given. */
export async function listLinks(q: Queryable, f: { merchantId: string; beforeId?: string; limit: number }): Promise<LinkLine[]> {
  const { rows } = await q.query<LinkLine>(
    `SELECT ${LINE} FROM payment_links l
      WHERE l.merchant_id = $1
        AND ($2::text IS NULL OR (l.created_at, l.id) < (SELECT created_at, id FROM payment_links WHERE id = $2))
      ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
    [f.merchantId, f.beforeId ?? null, f.limit],
  );
  return rows;
}

export async function getLinkLine(q: Queryable, id: string): Promise<LinkLine | null> {
  const { rows } = await q.query<LinkLine>(`SELECT ${LINE} FROM payment_links l WHERE l.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function setLinkEnabled(q: Queryable, merchantId: string, id: string, enabled: boolean, at: Date): Promise<LinkRow | null> {
  const { rows } = await q.query<LinkRow>(
    'UPDATE payment_links SET enabled = $3, updated_at = $4 WHERE id = $2 AND merchant_id = $1 RETURNING *',
    [merchantId, id, enabled, at],
  );
  return rows[0] ?? null;
}

/**
 * Counts an opening of a link that is on and not past its expiry at `now`, in one conditional
 * update: the link as it now is, or null when it is off, lapsed or unknown.
 */
export async function openLink(q: Queryable, id: string, now: Date): Promise<LinkRow | null> {
  const { rows } = await q.query<LinkRow>(
    `UPDATE payment_links SET opened = opened + 1
      WHERE id = $1 AND enabled AND (expires_at IS NULL OR expires_at > $2) RETURNING *`,
    [id, now],
  );
  return rows[0] ?? null;
}

/**
 * Ties an order to the link that created it and gives it the link's description; with `opening`,
 * also to the client's start of it (`insertLinkStart`).
 */
export async function recordLinkOrder(q: Queryable, o: { linkId: string; orderId: string; description: string; at: Date; opening?: number }): Promise<void> {
  await q.query('UPDATE orders SET description = $2 WHERE id = $1', [o.orderId, o.description]);
  await q.query('INSERT INTO payment_link_orders (link_id, order_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [o.linkId, o.orderId, o.at]);
  if (o.opening !== undefined) await q.query('UPDATE payment_link_openings SET order_id = $3 WHERE link_id = $1 AND opening = $2', [o.linkId, o.opening, o.orderId]);
}

/** The newest `limit` orders of each link, newest first (a list page shows a few per link). */
export async function linkOrders(q: Queryable, linkIds: readonly string[], limit: number): Promise<(OrderRow & { link_id: string })[]> {
  if (linkIds.length === 0) return [];
  const { rows } = await q.query<OrderRow & { link_id: string }>(
    `SELECT x.* FROM (
       SELECT o.*, lo.link_id, row_number() OVER (PARTITION BY lo.link_id ORDER BY lo.created_at DESC, o.seq DESC) AS n
         FROM payment_link_orders lo JOIN orders o ON o.id = lo.order_id
        WHERE lo.link_id = ANY($1::text[])) x
      WHERE x.n <= $2 ORDER BY x.link_id, x.n`,
    [linkIds, limit],
  );
  return rows;
}

/** A link's row locked until the transaction ends: the openings of one link are counted one at a time. */
export async function lockLink(q: Queryable, id: string): Promise<LinkRow | null> {
  const { rows } = await q.query<LinkRow>('SELECT * FROM payment_links WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ?? null;
}

/** An order a client address started through a link and that is still open, or a start whose order is being created. */
export interface OpenLinkStart {
  opening: number;
  /** Null while its order is being created. */
  order_id: string | null;
  status: string | null;
  expires_at: Date | null;
  created_at: Date;
}

/**
 * The client's starts of the link whose order is open, newest first: `Created` (not past its
 * expiry) or `Payed`, its placement not given up; and starts still creating their order, written
 * after `placingSince` (an older one lost its process on the way). Read through
 * `payment_link_openings_client`, then each order by its key.
 */
export async function openLinkStarts(q: Queryable, f: { linkId: string; client: string; now: Date; placingSince: Date }): Promise<OpenLinkStart[]> {
  const { rows } = await q.query<OpenLinkStart>(
    `SELECT op.opening, op.order_id, o.status, o.expires_at, op.created_at
       FROM payment_link_openings op LEFT JOIN orders o ON o.id = op.order_id
      WHERE op.link_id = $1 AND op.client = $2
        AND CASE WHEN op.order_id IS NULL THEN op.created_at > $4
                 ELSE o.placement <> 'failed' AND (o.status = 'Payed' OR (o.status = 'Created' AND o.expires_at > $3)) END
      ORDER BY op.created_at DESC, op.opening DESC`,
    [f.linkId, f.client, f.now, f.placingSince],
  );
  return rows;
}

/** A client address starts an order through the link: the opening numbered `opening`, its order to come. */
export async function insertLinkStart(q: Queryable, s: { linkId: string; opening: number; client: string; at: Date }): Promise<void> {
  await q.query('INSERT INTO payment_link_openings (link_id, opening, client, created_at) VALUES ($1, $2, $3, $4)', [s.linkId, s.opening, s.client, s.at]);
}

/** The start's order was refused or failed: it holds no place among the client's open ones. */
export async function dropLinkStart(q: Queryable, linkId: string, opening: number): Promise<void> {
  await q.query('DELETE FROM payment_link_openings WHERE link_id = $1 AND opening = $2 AND order_id IS NULL', [linkId, opening]);
}

/**
 * Forgets who started a link's orders before `before` (at most `limit` rows, oldest first): a
 * customer's address is kept while it counts and for support's questions, not for ever.
 */
export async function forgetLinkStarts(q: Queryable, before: Date, limit: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM payment_link_openings WHERE (link_id, opening) IN (
        SELECT link_id, opening FROM payment_link_openings WHERE created_at < $1 ORDER BY created_at LIMIT $2) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return rows[0]?.n ?? 0;
}
