import type { Db, Queryable } from './db.js';
import { CATALOG_VERSIONS_VALUE, type CatalogVersions } from './catalogVersions.js';
import { batchNow, nonceClaim, RELAXED_COMMIT } from './nonces.js';
import { alone, batchedPerDatabase } from './batches.js';
import { query, raw, sql, type Sql } from './sql.js';
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
  /** What the order is for, as the merchant described it (a payment link's description); null for API orders. */
  description: string | null;
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
  | 'description'
>;
const ORDER_VIEW_COLUMNS = raw(`id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status, payment,
  payer_reference, commission_rate, commission_amount, credited_amount, cancel_reason, created_at, expires_at, finished_at, description`);

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

/** One order for `writeOrders`. */
export interface OrderToWrite {
  order: NewOrder;
  /** The details a provider issued: the order is written placed. Without them it is a reservation ('pending'), invisible until placed. */
  issued: { payment: Record<string, string | null>; providerId: string } | null;
  /**
   * The order's reference is claimed in the same statement and the order written only if it was
   * free (or there is none). False when the caller's transaction already holds the reference.
   */
  claimRef: boolean;
  /**
   * Authentication's last check in the same statement: the nonce is claimed only while the desk
   * (with its secret), its merchant and the catalogues are at the versions the order was validated
   * against (a replayed nonce is not claimed either), and the order is written only if it was.
   */
  auth: AuthToSettle | null;
}

export interface OrderWritten {
  /** The nonce was claimed (always, for an order without `auth`). */
  claimed: boolean;
  /** The order row was inserted. */
  inserted: boolean;
}

/**
 * Writes orders, the only statement that inserts one: each order as it would be on its own, with
 * its nonce claimed first when it carries `auth` and its reference claimed for this very order
 * when `claimRef` says so, the order inserted only when both hold. When a desk, merchant or
 * catalogue moved, nothing is written for that order. Several orders go in one statement (one
 * commit); they must not share a nonce of one desk key. References are inserted in key order, as
 * nonces are (`nonceClaim`), so two instances' batches wait for each other rather than deadlock.
 */
export async function writeOrders(q: Queryable, items: readonly OrderToWrite[]): Promise<OrderWritten[]> {
  const batch = items.map(({ order: o, issued, claimRef, auth: a }, i) => ({
    i, id: o.id, desk_id: o.deskId, merchant_id: o.merchantId, order_ref: o.orderRef, amount: o.amount, currency: o.currency, rate: o.rate,
    settled_amount: o.settledAmount, method: o.method, rail: o.rail, sandbox: o.sandbox, notify_url: o.notifyUrl, success_url: o.successUrl,
    fail_url: o.failUrl, back_url: o.backUrl, operator: o.operator, lifetime_minutes: o.lifetimeMinutes, created_at: o.createdAt,
    expires_at: o.expiresAt, placement: issued ? 'placed' : 'pending', payment: issued?.payment ?? null, provider_id: issued?.providerId ?? null,
    claim_ref: claimRef && o.orderRef !== null, desk_key: a?.deskKey ?? null, nonce: a?.nonce ?? null, sealed: a?.sealedSecret ?? null,
    desk_version: a?.deskVersion ?? null, merchant_version: a?.merchantVersion ?? null, versions: a?.versions ?? null, nonce_expires_at: a?.nonceExpiresAt ?? null,
  }));
  const authTimes = items.flatMap((x) => (x.auth ? [x.auth.now] : []));
  // Without a nonce to claim the claim's time matters to nothing; any valid time will do.
  const now = authTimes.length > 0 ? batchNow(authTimes) : items[0]!.order.createdAt;
  const { rows } = await query<{ i: number; claimed: boolean; inserted: boolean }>(
    q,
    sql`WITH b AS (
       SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS t(i int, id text, desk_id text, merchant_id text, order_ref text, amount numeric,
         currency text, rate numeric, settled_amount numeric, method text, rail text, sandbox boolean, notify_url text, success_url text,
         fail_url text, back_url text, operator text, lifetime_minutes int, created_at timestamptz, expires_at timestamptz, placement text, payment jsonb,
         provider_id text, claim_ref boolean, desk_key text, nonce text, sealed text, desk_version bigint, merchant_version bigint, versions jsonb,
         nonce_expires_at timestamptz)),
     ${nonceClaim(
       sql`SELECT b.desk_key, b.nonce, b.nonce_expires_at AS expires_at
         FROM b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed AND d.row_version = b.desk_version
           JOIN merchants m ON m.id = d.merchant_id AND m.row_version = b.merchant_version
        WHERE b.versions = ${raw(CATALOG_VERSIONS_VALUE)}`,
       now,
     )},
     ok AS (
       SELECT * FROM b WHERE desk_key IS NULL
       UNION ALL
       SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce),
     claim AS (
       INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at)
       SELECT desk_id, order_ref, id, amount, currency, created_at FROM ok WHERE claim_ref ORDER BY desk_id, order_ref
       ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING order_id),
     o AS (
       INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status, placement,
                           sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, updated_at, payment, provider_id)
       SELECT id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, 'Created', 'WaitingForPayment', placement,
              sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, created_at, payment, provider_id
         FROM ok WHERE NOT claim_ref OR id IN (SELECT order_id FROM claim)
       RETURNING id)
     SELECT b.i, b.id IN (SELECT id FROM ok) AS claimed, b.id IN (SELECT id FROM o) AS inserted FROM b`,
  );
  const out = items.map(() => ({ claimed: false, inserted: false }));
  for (const r of rows) out[r.i] = { claimed: r.claimed, inserted: r.inserted };
  return out;
}

/**
 * `writeOrders` on the database itself (never inside a transaction): orders that arrive together
 * go as one statement (`batchedPerDatabase`), an order alone as a batch of one.
 */
export const writeOrder = batchedPerDatabase<Db, OrderToWrite, OrderWritten>(alone(writeOrders), writeOrders, (x) => (x.auth ? `${x.auth.deskKey} ${x.auth.nonce}` : x.order.id));

/** A desk's newest order with the reference, for the view. */
const deskOrderViewByRef = (deskId: string, ref: string) =>
  sql`SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE desk_id = ${deskId} AND order_ref = ${ref} AND placement = 'placed' ORDER BY seq DESC LIMIT 1`;

interface DeskOrderRead {
  deskId: string;
  idOrRef: string;
  auth: Pick<AuthToSettle, 'deskKey' | 'nonce' | 'sealedSecret' | 'now' | 'nonceExpiresAt'>;
}
const byId = (idOrRef: string) => idOrRef.startsWith('ord_');

/**
 * The statement of `readDeskOrderAuthenticating` for several reads (their nonces must differ per
 * desk key; `batchNow` is their time): each nonce claimed only while its desk has the sealed
 * secret the request was checked against, and each order read (one index lookup: by id for an
 * `ord_` id, by reference otherwise) only when its nonce was claimed.
 */
async function readDeskOrdersAuthenticating(db: Db, reads: DeskOrderRead[]): Promise<{ claimed: boolean; order: OrderViewRow | null }[]> {
  const batch = reads.map(({ deskId, idOrRef, auth: a }, i) => ({
    i, desk_key: a.deskKey, nonce: a.nonce, sealed: a.sealedSecret, nonce_expires_at: a.nonceExpiresAt, desk_id: deskId, v: idOrRef, by_id: byId(idOrRef),
  }));
  const { rows } = await query<OrderViewRow & { i: number; auth_claimed: boolean; auth_relaxed: string }>(
    db,
    sql`WITH b AS (
       SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS t(i int, desk_key text, nonce text, sealed text, nonce_expires_at timestamptz, desk_id text, v text, by_id boolean)),
     ${nonceClaim(
       sql`SELECT b.desk_key, b.nonce, b.nonce_expires_at AS expires_at FROM b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed`,
       batchNow(reads.map((x) => x.auth.now)),
     )},
     bn AS (SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce)
     SELECT b.i, b.i IN (SELECT i FROM bn) AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM b LEFT JOIN LATERAL (
         SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE b.by_id AND id = b.v AND desk_id = b.desk_id AND placement = 'placed'
         UNION ALL
         (SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE NOT b.by_id AND desk_id = b.desk_id AND order_ref = b.v AND placement = 'placed' ORDER BY seq DESC LIMIT 1)
       ) o ON b.i IN (SELECT i FROM bn)`,
  );
  const out = reads.map(() => ({ claimed: false, order: null as OrderViewRow | null }));
  for (const { i, auth_claimed, auth_relaxed: _relaxed, ...found } of rows) out[i] = { claimed: auth_claimed, order: found.id ? found : null };
  return out;
}

/**
 * The same for a read alone, in a statement of its own: a read goes alone whenever the database is
 * idle, and one index lookup chosen here costs less than the batch's lateral over both.
 */
async function readOneDeskOrderAuthenticating(db: Db, r: DeskOrderRead): Promise<{ claimed: boolean; order: OrderViewRow | null }> {
  const { deskId, idOrRef, auth: a } = r;
  const view = byId(idOrRef)
    ? sql`SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE id = ${idOrRef} AND desk_id = ${deskId} AND placement = 'placed'`
    : deskOrderViewByRef(deskId, idOrRef);
  const { rows } = await query<OrderViewRow & { auth_claimed: number; auth_relaxed: string }>(
    db,
    sql`WITH ${nonceClaim(
      sql`SELECT key AS desk_key, ${a.nonce}::text AS nonce, ${a.nonceExpiresAt}::timestamptz AS expires_at FROM desks WHERE key = ${a.deskKey} AND secret_enc = ${a.sealedSecret}`,
      a.now,
    )}
     SELECT (SELECT count(*) FROM n)::int AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM (SELECT 1) one LEFT JOIN LATERAL (${view}) o ON EXISTS (SELECT 1 FROM n)`,
  );
  const { auth_claimed, auth_relaxed: _relaxed, ...found } = rows[0]!;
  return { claimed: auth_claimed === 1, order: found.id ? found : null };
}

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
  if (r.claimed && !r.order && byId(idOrRef)) return { claimed: true, order: (await query<OrderViewRow>(db, deskOrderViewByRef(deskId, idOrRef))).rows[0] ?? null };
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
  const merchantId = scope.merchantId ?? null;
  const deskId = scope.deskId ?? null;
  const inScope = sql`(${merchantId}::text IS NULL OR merchant_id = ${merchantId}) AND (${deskId}::text IS NULL OR desk_id = ${deskId}) AND placement = 'placed'`;
  if (idOrRef.startsWith('ord_')) {
    const { rows } = await query<OrderRow>(q, sql`SELECT * FROM orders WHERE id = ${idOrRef} AND ${inScope}`);
    if (rows[0]) return rows[0];
  }
  if (!scope.merchantId && !scope.deskId) return null;
  const { rows } = await query<OrderRow>(q, sql`SELECT * FROM orders WHERE order_ref = ${idOrRef} AND ${inScope} ORDER BY seq DESC LIMIT 1`);
  return rows[0] ?? null;
}

export interface OrderListFilter extends OrderScope {
  status?: string;
  providerId?: string;
  from?: Date;
  to?: Date;
  /** An ord_ id or an orderRef (and a payer reference with `qPayerReference`). */
  q?: string;
  /** `q` matches a payer reference too (the cabinet's search, as the back office's). */
  qPayerReference?: boolean;
  /** Keyset: orders older than this one (by creation sequence). */
  beforeSeq?: number;
  limit: number;
}

/**
 * Newest first, keyset-paged so a page costs the same at any depth. The statement holds only the
 * filters given, so each shape is planned for itself and keeps its index. Without a period the
 * order is the creation sequence; with one (`from`, `to`) it is the creation time, then the
 * sequence: the same order but among orders created in the same instant by concurrent requests
 * (an order's time and number are taken together as it is inserted), and it lets
 * (merchant_id | desk_id | ·, created_at, seq) serve the page from the period's newest end instead
 * of walking every later order or sorting the whole period.
 */
export async function listOrders(q: Queryable, f: OrderListFilter): Promise<OrderRow[]> {
  const byTime = f.from != null || f.to != null;
  const where: Sql[] = [sql`placement = 'placed'`];
  if (f.merchantId != null) where.push(sql`merchant_id = ${f.merchantId}`);
  if (f.deskId != null) where.push(sql`desk_id = ${f.deskId}`);
  if (f.status != null) where.push(sql`status = ${f.status}`);
  if (f.providerId != null) where.push(sql`provider_id = ${f.providerId}`);
  if (f.from != null) where.push(sql`created_at >= ${f.from}`);
  if (f.to != null) where.push(sql`created_at < ${f.to}`);
  if (f.q != null) where.push(f.qPayerReference ? sql`(id = ${f.q} OR order_ref = ${f.q} OR payer_reference = ${f.q})` : sql`(id = ${f.q} OR order_ref = ${f.q})`);
  if (f.beforeSeq != null) {
    where.push(byTime ? sql`(created_at, seq) < (SELECT c.created_at, c.seq FROM orders c WHERE c.seq = ${f.beforeSeq})` : sql`seq < ${f.beforeSeq}`);
  }
  const { rows } = await query<OrderRow>(
    q,
    sql`SELECT * FROM orders WHERE ${where.reduce((all, p) => sql`${all} AND ${p}`)} ORDER BY ${raw(byTime ? 'created_at DESC, seq DESC' : 'seq DESC')} LIMIT ${f.limit}`,
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
