import type { Db, Queryable } from './db.js';
import { CATALOG_VERSIONS_VALUE, type CatalogVersions } from './catalogVersions.js';
import { batchNow, nonceClaimCte, RELAXED_COMMIT } from './nonces.js';
import { batchedPerDatabase } from './batches.js';
import type { OrderStatus, SubStatus } from '../domain/orders.js';

export interface OrderRow {
  id: string;
  seq: number;
  desk_id: string;
  merchant_id: string;
  order_ref: string | null;
  amount: string;
  currency: string;
  rate: string;
  settled_amount: string;
  method: string;
  rail: string | null;
  direction: string;
  status: OrderStatus;
  sub_status: SubStatus;
  placement: 'pending' | 'placed' | 'failed';
  payment: Record<string, string | null> | null;
  provider_id: string | null;
  sandbox: boolean;
  notify_url: string | null;
  success_url: string | null;
  fail_url: string | null;
  back_url: string | null;
  operator: string | null;
  lifetime_minutes: number;
  commission_rate: string;
  commission_amount: string;
  credited_amount: string;
  cancel_reason: string | null;
  payer_reference: string | null;
  created_at: Date;
  expires_at: Date;
  finished_at: Date | null;
  updated_at: Date;
}

/** What an order's get view shows (`orderView`): the columns `ORDER_VIEW_COLUMNS` selects. */
export type OrderViewRow = Pick<
  OrderRow,
  | 'id' | 'order_ref' | 'amount' | 'currency' | 'rate' | 'settled_amount' | 'method' | 'rail' | 'status' | 'sub_status' | 'payment'
  | 'payer_reference' | 'commission_rate' | 'commission_amount' | 'credited_amount' | 'cancel_reason' | 'created_at' | 'expires_at' | 'finished_at'
>;
const ORDER_VIEW_COLUMNS = `id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status, payment,
  payer_reference, commission_rate, commission_amount, credited_amount, cancel_reason, created_at, expires_at, finished_at`;

/** A desk's order for the view (desk and value are SQL expressions): by its id, or the newest by its reference. */
const orderViewBy = (by: 'id' | 'ref', desk: string, value: string) =>
  by === 'id'
    ? `SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE id = ${value} AND desk_id = ${desk} AND placement = 'placed'`
    : `SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE desk_id = ${desk} AND order_ref = ${value} AND placement = 'placed' ORDER BY seq DESC LIMIT 1`;

export interface NewOrder {
  id: string;
  deskId: string;
  merchantId: string;
  orderRef: string | null;
  amount: string;
  currency: string;
  rate: string;
  settledAmount: string;
  method: string;
  rail: string | null;
  sandbox: boolean;
  notifyUrl: string | null;
  successUrl: string | null;
  failUrl: string | null;
  backUrl: string | null;
  operator: string | null;
  lifetimeMinutes: number;
  createdAt: Date;
  expiresAt: Date;
}

const PENDING_ORDER_COLUMNS = `id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status,
       placement, sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, updated_at`;
const PENDING_ORDER_VALUES = `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'Created', 'WaitingForPayment', 'pending', $11, $12, $13, $14, $15, $16, $17, $18, $19, $18`;
const pendingOrderParams = (o: NewOrder) => [o.id, o.deskId, o.merchantId, o.orderRef, o.amount, o.currency, o.rate, o.settledAmount, o.method, o.rail, o.sandbox,
  o.notifyUrl, o.successUrl, o.failUrl, o.backUrl, o.operator, o.lifetimeMinutes, o.createdAt, o.expiresAt];

/** An order inserted already placed (P175): the pending columns, placed, with $20 the payment and $21 the provider. */
const PLACED_ORDER_COLUMNS = `${PENDING_ORDER_COLUMNS}, payment, provider_id`;
const PLACED_ORDER_VALUES = `${PENDING_ORDER_VALUES.replace("'pending'", "'placed'")}, $20, $21`;

/** The order's reference claimed unless held (in the order parameters' numbering); `claim` has a row when it was. */
const CLAIM_REF = `WITH claim AS (
       INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at) VALUES ($2, $4, $1, $5, $6, $18)
       ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING 1)`;

/** The reservation: invisible ('pending') until the provider cascade has placed it. */
export async function insertPendingOrder(q: Queryable, o: NewOrder): Promise<void> {
  await q.query(`INSERT INTO orders (${PENDING_ORDER_COLUMNS}) VALUES (${PENDING_ORDER_VALUES})`, pendingOrderParams(o));
}

/**
 * The common case of a reservation in one statement: the order's reference is claimed (nobody
 * holds it) and the pending order inserted, both or neither. Returns false when the reference is
 * already held, which the caller settles with the idempotency rules.
 */
export async function insertPendingOrderClaimingRef(q: Queryable, o: NewOrder): Promise<boolean> {
  if (o.orderRef === null) {
    await insertPendingOrder(q, o);
    return true;
  }
  const { rows } = await q.query(
    `${CLAIM_REF}
     INSERT INTO orders (${PENDING_ORDER_COLUMNS}) SELECT ${PENDING_ORDER_VALUES} WHERE EXISTS (SELECT 1 FROM claim) RETURNING 1`,
    pendingOrderParams(o),
  );
  return rows.length === 1;
}

/**
 * Reservation and placement in one statement, for an order whose provider issued its details
 * without leaving the process (nothing to wait for in between): the reference claimed (when there
 * is one) and the order inserted already placed, both or neither. Null when the reference is
 * already held, which the caller settles with the idempotency rules.
 */
export async function insertPlacedOrderClaimingRef(q: Queryable, o: NewOrder, payment: Record<string, string | null>, providerId: string): Promise<OrderRow | null> {
  const params = [...pendingOrderParams(o), JSON.stringify(payment), providerId];
  const { rows } = await q.query<OrderRow>(
    o.orderRef === null
      ? `INSERT INTO orders (${PLACED_ORDER_COLUMNS}) VALUES (${PLACED_ORDER_VALUES}) RETURNING *`
      : `${CLAIM_REF}
         INSERT INTO orders (${PLACED_ORDER_COLUMNS}) SELECT ${PLACED_ORDER_VALUES} WHERE EXISTS (SELECT 1 FROM claim) RETURNING *`,
    params,
  );
  return rows[0] ?? null;
}

/** What authentication left to check for an order created in one statement with it (see `insertPlacedOrderAuthenticating`). */
export interface AuthToSettle {
  deskKey: string;
  nonce: string;
  /** The desk's sealed secret, desk and merchant row versions and catalogue versions the request was checked against. */
  sealedSecret: string;
  deskVersion: number;
  merchantVersion: number;
  versions: CatalogVersions;
  now: Date;
  nonceExpiresAt: Date;
}

/**
 * Authentication's last check, the reservation and the placement in one statement. The nonce is
 * claimed only while the desk (with its secret), its merchant and the catalogues are at the
 * versions the order was validated against (`claimed`; a replayed nonce is not claimed either);
 * the reference only if the nonce was claimed; the order is inserted, already placed, only if the
 * reference was free or there is none (`placed`). When the desk, merchant or a catalogue moved,
 * nothing is written.
 */
async function insertOnePlacedOrderAuthenticating(
  db: Db,
  { order: o, payment, providerId, auth: a }: PlacedOrderToInsert,
): Promise<{ claimed: boolean; placed: boolean }> {
  const current = `desks d JOIN merchants m ON m.id = d.merchant_id
        WHERE d.key = $22 AND d.secret_enc = $24 AND d.row_version = $25 AND m.row_version = $26 AND ${CATALOG_VERSIONS_VALUE} = $27::jsonb`;
  const { rows } = await db.query<{ claimed: number; placed: number }>(
    `WITH ${nonceClaimCte(current, '$22', '$23', '$28', '$29')},
     claim AS (
       INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at)
       SELECT $2, $4, $1, $5, $6, $18 WHERE $4::text IS NOT NULL AND EXISTS (SELECT 1 FROM n)
       ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING 1),
     o AS (
       INSERT INTO orders (${PLACED_ORDER_COLUMNS}) SELECT ${PLACED_ORDER_VALUES}
        WHERE EXISTS (SELECT 1 FROM n) AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM claim)) RETURNING 1)
     SELECT (SELECT count(*) FROM n)::int AS claimed, (SELECT count(*) FROM o)::int AS placed`,
    [...pendingOrderParams(o), JSON.stringify(payment), providerId,
      a.deskKey, a.nonce, a.sealedSecret, a.deskVersion, a.merchantVersion, JSON.stringify(a.versions), a.now, a.nonceExpiresAt],
  );
  const r = rows[0]!;
  return { claimed: r.claimed === 1, placed: r.placed === 1 };
}

/** The statement of `readDeskOrderAuthenticating` for one read. */
async function readOneDeskOrderAuthenticating(db: Db, r: DeskOrderRead): Promise<{ claimed: boolean; order: OrderViewRow | null }> {
  const { deskId, idOrRef, auth: a } = r;
  // One index lookup: by id for an `ord_` id, by reference otherwise.
  const { rows } = await db.query<OrderViewRow & { auth_claimed: number; auth_relaxed: string }>(
    `WITH ${nonceClaimCte('desks WHERE key = $1 AND secret_enc = $3', '$1', '$2', '$4', '$5')}
     SELECT (SELECT count(*) FROM n)::int AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM (SELECT 1) one LEFT JOIN LATERAL (${orderViewBy(byId(idOrRef) ? 'id' : 'ref', '$6', '$7')}) o ON EXISTS (SELECT 1 FROM n)`,
    [a.deskKey, a.nonce, a.sealedSecret, a.now, a.nonceExpiresAt, deskId, idOrRef],
  );
  const { auth_claimed, auth_relaxed: _relaxed, ...found } = rows[0]!;
  return { claimed: auth_claimed === 1, order: found.id ? found : null };
}

/** `readOneDeskOrderAuthenticating` for several reads in one statement; their nonces must differ (see `insertPlacedOrdersAuthenticating`). */
async function readDeskOrdersAuthenticating(db: Db, reads: DeskOrderRead[]): Promise<{ claimed: boolean; order: OrderViewRow | null }[]> {
  const batch = reads.map(({ deskId, idOrRef, auth: a }, i) => ({
    i, desk_key: a.deskKey, nonce: a.nonce, sealed: a.sealedSecret, nonce_expires_at: a.nonceExpiresAt, desk_id: deskId, v: idOrRef, by_id: byId(idOrRef),
  }));
  const { rows } = await db.query<OrderViewRow & { i: number; auth_claimed: boolean; auth_relaxed: string }>(
    `WITH b AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(i int, desk_key text, nonce text, sealed text, nonce_expires_at timestamptz, desk_id text, v text, by_id boolean)),
     ${nonceClaimCte('b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed', 'b.desk_key', 'b.nonce', '$2', 'b.nonce_expires_at')},
     bn AS (SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce)
     SELECT b.i, b.i IN (SELECT i FROM bn) AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM b LEFT JOIN LATERAL (
         SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE b.by_id AND id = b.v AND desk_id = b.desk_id AND placement = 'placed'
         UNION ALL
         (SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE NOT b.by_id AND desk_id = b.desk_id AND order_ref = b.v AND placement = 'placed' ORDER BY seq DESC LIMIT 1)
       ) o ON b.i IN (SELECT i FROM bn)`,
    [JSON.stringify(batch), batchNow(reads.map((x) => x.auth.now))],
  );
  const out = reads.map(() => ({ claimed: false, order: null as OrderViewRow | null }));
  for (const { i, auth_claimed, auth_relaxed: _relaxed, ...found } of rows) out[i] = { claimed: auth_claimed, order: found.id ? found : null };
  return out;
}

interface DeskOrderRead {
  deskId: string;
  idOrRef: string;
  auth: Pick<AuthToSettle, 'deskKey' | 'nonce' | 'sealedSecret' | 'now' | 'nonceExpiresAt'>;
}
const byId = (idOrRef: string) => idOrRef.startsWith('ord_');
const readDeskOrder = batchedPerDatabase(readOneDeskOrderAuthenticating, readDeskOrdersAuthenticating, (r) => `${r.auth.deskKey} ${r.auth.nonce}`);

/**
 * An order of a desk (by `ord_` id, else the newest by orderRef, as `findDeskOrder`) read in one
 * statement with authentication's last check: the nonce is claimed (committing as any claim does,
 * see RELAXED_COMMIT) only while the desk still has the sealed secret the request was checked
 * against and the nonce is fresh (`claimed`), and the order is read only when it was. Reads that
 * arrive together share one statement (`batchedPerDatabase`).
 */
export async function readDeskOrderAuthenticating(
  db: Db,
  deskId: string,
  idOrRef: string,
  a: DeskOrderRead['auth'],
): Promise<{ claimed: boolean; order: OrderViewRow | null }> {
  const r = await readDeskOrder(db, { deskId, idOrRef, auth: a });
  // An `ord_` reference that is no order's id is looked up by reference (authentication is settled by then).
  if (r.claimed && !r.order && byId(idOrRef)) return { claimed: true, order: (await db.query<OrderViewRow>(orderViewBy('ref', '$1', '$2'), [deskId, idOrRef])).rows[0] ?? null };
  return r;
}

/** The placed order, or null when the reservation was given up in the meantime. */
export async function markPlaced(q: Queryable, id: string, payment: Record<string, string | null>, providerId: string, at: Date): Promise<OrderRow | null> {
  const { rows } = await q.query<OrderRow>(
    `UPDATE orders SET placement = 'placed', payment = $2, provider_id = $3, updated_at = $4 WHERE id = $1 AND placement = 'pending' RETURNING *`,
    [id, JSON.stringify(payment), providerId, at],
  );
  return rows[0] ?? null;
}

export async function markPlacementFailed(q: Queryable, id: string, at: Date): Promise<void> {
  await q.query(`UPDATE orders SET placement = 'failed', updated_at = $2 WHERE id = $1 AND placement = 'pending'`, [id, at]);
}

/** Reservations whose creator died mid-cascade (longer than the cascade can take) are given up. */
export async function failStalePlacements(q: Queryable, olderThan: Date, at: Date): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE orders SET placement = 'failed', updated_at = $2 WHERE placement = 'pending' AND created_at < $1`,
    [olderThan, at],
  );
  return rowCount;
}

export async function getOrderById(q: Queryable, id: string, opts: { forUpdate?: boolean; anyPlacement?: boolean } = {}): Promise<OrderRow | null> {
  const { rows } = await q.query<OrderRow>(
    `SELECT * FROM orders WHERE id = $1${opts.anyPlacement ? '' : ` AND placement = 'placed'`}${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

/** `{id}` is an ord_ id or the merchant's orderRef; of several orders with one reference, the newest. */
export async function findDeskOrder(q: Queryable, deskId: string, idOrRef: string): Promise<OrderRow | null> {
  if (idOrRef.startsWith('ord_')) {
    const { rows } = await q.query<OrderRow>(`SELECT * FROM orders WHERE id = $1 AND desk_id = $2 AND placement = 'placed'`, [idOrRef, deskId]);
    if (rows[0]) return rows[0];
  }
  const { rows } = await q.query<OrderRow>(
    `SELECT * FROM orders WHERE desk_id = $1 AND order_ref = $2 AND placement = 'placed' ORDER BY seq DESC LIMIT 1`,
    [deskId, idOrRef],
  );
  return rows[0] ?? null;
}

export interface OrderChange {
  status: OrderStatus;
  subStatus?: SubStatus;
  cancelReason?: string | null;
  finishedAt?: Date | null;
  commissionRate?: string;
  commissionAmount?: string;
  creditedAmount?: string;
}

/** A transition: applied only if the order is still in one of the expected states. */
export async function transitionOrder(q: Queryable, id: string, from: readonly OrderStatus[], change: OrderChange, at: Date): Promise<OrderRow | null> {
  const { rows } = await q.query<OrderRow>(
    `UPDATE orders SET status = $3,
       sub_status = COALESCE($4, sub_status),
       cancel_reason = CASE WHEN $5::boolean THEN $6 ELSE cancel_reason END,
       finished_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE finished_at END,
       commission_rate = COALESCE($9, commission_rate),
       commission_amount = COALESCE($10, commission_amount),
       credited_amount = COALESCE($11, credited_amount),
       updated_at = $12
     WHERE id = $1 AND status = ANY($2::text[]) AND placement = 'placed'
     RETURNING *`,
    [id, from, change.status, change.subStatus ?? null, change.cancelReason !== undefined, change.cancelReason ?? null,
      change.finishedAt !== undefined, change.finishedAt ?? null, change.commissionRate ?? null, change.commissionAmount ?? null,
      change.creditedAmount ?? null, at],
  );
  return rows[0] ?? null;
}

/**
 * Claims and closes up to `limit` due orders in one statement: Created, placed, expiresAt reached.
 * SKIP LOCKED lets several workers share a backlog without overlap, and the status is re-checked on
 * the locked row, so an order a merchant or provider moved meanwhile is never closed.
 */
export async function closeDueOrders(q: Queryable, now: Date, limit: number): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(
    // MATERIALIZED: the claim runs exactly once; a subquery in FROM may be rescanned by the join and
    // hand back more rows than the limit.
    `WITH due AS MATERIALIZED (
       SELECT id FROM orders WHERE status = 'Created' AND placement = 'placed' AND expires_at <= $1
        ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE orders o SET status = 'Canceled', sub_status = 'Expired', cancel_reason = 'expired', finished_at = $1, updated_at = $1
       FROM due WHERE o.id = due.id
     RETURNING o.*`,
    [now, limit],
  );
  return rows.sort((a, b) => a.expires_at.getTime() - b.expires_at.getTime() || a.seq - b.seq);
}

export async function setPayerReference(q: Queryable, id: string, ref: string, at: Date): Promise<void> {
  await q.query('UPDATE orders SET payer_reference = $2, updated_at = $3 WHERE id = $1', [id, ref, at]);
}

/** Who may see an order: a desk (gateway), a merchant (cabinet), or the platform (operators) when both are absent. */
export interface OrderScope {
  merchantId?: string;
  deskId?: string;
}

/**
 * An order by its ord_ id, or by reference within a desk or merchant (the newest of several), seen
 * from a scope: an order outside it is simply not found.
 */
export async function findScopedOrder(q: Queryable, scope: OrderScope, idOrRef: string): Promise<OrderRow | null> {
  if (scope.deskId && !scope.merchantId) return findDeskOrder(q, scope.deskId, idOrRef);
  const params = [idOrRef, scope.merchantId ?? null, scope.deskId ?? null];
  const inScope = `($2::text IS NULL OR merchant_id = $2) AND ($3::text IS NULL OR desk_id = $3) AND placement = 'placed'`;
  if (idOrRef.startsWith('ord_')) {
    const { rows } = await q.query<OrderRow>(`SELECT * FROM orders WHERE id = $1 AND ${inScope}`, params);
    if (rows[0]) return rows[0];
  }
  if (!scope.merchantId && !scope.deskId) return null;
  const { rows } = await q.query<OrderRow>(`SELECT * FROM orders WHERE order_ref = $1 AND ${inScope} ORDER BY seq DESC LIMIT 1`, params);
  return rows[0] ?? null;
}

export interface OrderListFilter extends OrderScope {
  status?: string;
  providerId?: string;
  from?: Date;
  to?: Date;
  /** An ord_ id or an orderRef. */
  q?: string;
  /** Keyset: orders older than this one (by creation sequence). */
  beforeSeq?: number;
  limit: number;
}

/** Newest first, keyset-paged by `seq` so a page costs the same at any depth. */
export async function listOrders(q: Queryable, f: OrderListFilter): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(
    `SELECT * FROM orders
      WHERE placement = 'placed'
        AND ($1::text IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR desk_id = $2)
        AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR provider_id = $4)
        AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6)
        AND ($7::text IS NULL OR id = $7 OR order_ref = $7)
        AND ($8::bigint IS NULL OR seq < $8)
      ORDER BY seq DESC LIMIT $9`,
    [f.merchantId ?? null, f.deskId ?? null, f.status ?? null, f.providerId ?? null, f.from ?? null, f.to ?? null, f.q ?? null, f.beforeSeq ?? null, f.limit],
  );
  return rows;
}

export async function orderSeq(q: Queryable, id: string): Promise<number | null> {
  const { rows } = await q.query<{ seq: number }>('SELECT seq FROM orders WHERE id = $1', [id]);
  return rows[0]?.seq ?? null;
}

export interface TransitionRow {
  id: number;
  order_id: string;
  from_status: string;
  to_status: string;
  sub_status: string | null;
  reason: string | null;
  at: Date;
}

/** The order's status changes, oldest first (recorded by the orders_status_history trigger). */
export async function listOrderTransitions(q: Queryable, orderId: string): Promise<TransitionRow[]> {
  const { rows } = await q.query<TransitionRow>('SELECT * FROM order_transitions WHERE order_id = $1 ORDER BY id', [orderId]);
  return rows;
}

/** One order of `insertPlacedOrdersAuthenticating`. */
export interface PlacedOrderToInsert {
  order: NewOrder;
  payment: Record<string, string | null>;
  providerId: string;
  auth: AuthToSettle;
}

/**
 * `insertPlacedOrderAuthenticating` for several orders in one statement (one commit), each as on
 * its own: its nonce claimed only while its desk, merchant and the catalogues are at its versions,
 * its reference claimed (for this very order) only when its nonce was, and the order inserted only
 * when both hold. The items must not share a nonce of one desk key; `batchNow` is their time.
 * References are inserted in key order, as nonces are (`nonceClaimCte`).
 */
export async function insertPlacedOrdersAuthenticating(db: Db, items: readonly PlacedOrderToInsert[]): Promise<{ claimed: boolean; placed: boolean }[]> {
  const batch = items.map(({ order: o, payment, providerId, auth: a }, i) => ({
    i, id: o.id, desk_id: o.deskId, merchant_id: o.merchantId, order_ref: o.orderRef, amount: o.amount, currency: o.currency, rate: o.rate,
    settled_amount: o.settledAmount, method: o.method, rail: o.rail, sandbox: o.sandbox, notify_url: o.notifyUrl, success_url: o.successUrl,
    fail_url: o.failUrl, back_url: o.backUrl, operator: o.operator, lifetime_minutes: o.lifetimeMinutes, created_at: o.createdAt,
    expires_at: o.expiresAt, payment, provider_id: providerId, desk_key: a.deskKey, nonce: a.nonce, sealed: a.sealedSecret,
    desk_version: a.deskVersion, merchant_version: a.merchantVersion, versions: a.versions, nonce_expires_at: a.nonceExpiresAt,
  }));
  // Each order's nonce only while its desk, secret, merchant and the catalogues are at its versions.
  const current = `b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed AND d.row_version = b.desk_version
         JOIN merchants m ON m.id = d.merchant_id AND m.row_version = b.merchant_version
        WHERE b.versions = ${CATALOG_VERSIONS_VALUE}`;
  const { rows } = await db.query<{ i: number; claimed: boolean; placed: boolean }>(
    `WITH b AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(i int, id text, desk_id text, merchant_id text, order_ref text, amount numeric,
         currency text, rate numeric, settled_amount numeric, method text, rail text, sandbox boolean, notify_url text, success_url text,
         fail_url text, back_url text, operator text, lifetime_minutes int, created_at timestamptz, expires_at timestamptz, payment jsonb,
         provider_id text, desk_key text, nonce text, sealed text, desk_version bigint, merchant_version bigint, versions jsonb,
         nonce_expires_at timestamptz)),
     ${nonceClaimCte(current, 'b.desk_key', 'b.nonce', '$2', 'b.nonce_expires_at')},
     bn AS (SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce),
     claim AS (
       INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at)
       SELECT desk_id, order_ref, id, amount, currency, created_at FROM bn WHERE order_ref IS NOT NULL ORDER BY desk_id, order_ref
       ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING order_id),
     o AS (
       INSERT INTO orders (${PLACED_ORDER_COLUMNS})
       SELECT id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, 'Created', 'WaitingForPayment', 'placed',
              sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, created_at, payment, provider_id
         FROM bn WHERE order_ref IS NULL OR id IN (SELECT order_id FROM claim)
       RETURNING id)
     SELECT b.i, b.id IN (SELECT id FROM bn) AS claimed, b.id IN (SELECT id FROM o) AS placed FROM b`,
    [JSON.stringify(batch), batchNow(items.map((x) => x.auth.now))],
  );
  const out = items.map(() => ({ claimed: false, placed: false }));
  for (const r of rows) out[r.i] = { claimed: r.claimed, placed: r.placed };
  return out;
}

/**
 * `insertOnePlacedOrderAuthenticating` as the caller sees it: orders that arrive together on one
 * database are sent as one statement (`batchedPerDatabase`), an order alone as its own.
 */
const placeOrder = batchedPerDatabase(insertOnePlacedOrderAuthenticating, insertPlacedOrdersAuthenticating, (x) => `${x.auth.deskKey} ${x.auth.nonce}`);

export function insertPlacedOrderAuthenticating(
  db: Db,
  o: NewOrder,
  payment: Record<string, string | null>,
  providerId: string,
  a: AuthToSettle,
): Promise<{ claimed: boolean; placed: boolean }> {
  return placeOrder(db, { order: o, payment, providerId, auth: a });
}
