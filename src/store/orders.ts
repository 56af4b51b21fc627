import type { Queryable } from './db.js';
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
  /** What a completed order was paid (its amount unless a person matched money of another amount); null before completion. */
  paid_amount: string | null;
  updated_at: Date;
}

/** What an order's get view shows (`orderView`): the columns `ORDER_VIEW_COLUMNS` selects. */
export type OrderViewRow = Pick<
  OrderRow,
  | 'id' | 'order_ref' | 'amount' | 'currency' | 'rate' | 'settled_amount' | 'method' | 'rail' | 'status' | 'sub_status' | 'payment'
  | 'payer_reference' | 'commission_rate' | 'commission_amount' | 'credited_amount' | 'cancel_reason' | 'created_at' | 'expires_at' | 'finished_at'
  | 'description' | 'paid_amount' | 'sandbox'
>;
export const ORDER_VIEW_COLUMNS = raw(`id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status, payment,
  payer_reference, commission_rate, commission_amount, credited_amount, cancel_reason, created_at, expires_at, finished_at, description, paid_amount, sandbox`);

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
  if (f.merchantId != null) {
    where.push(sql`merchant_id = ${f.merchantId}`);
    // The walk starts at the merchant's newest order whichever index the planner takes: along the
    // global sequence (or, over a period, the creation time) it would otherwise step over every
    // newer order of other merchants first (a merchant with half the orders looks cheapest to find
    // that way). The bound is read through each of its desks' newest order, an index probe per desk
    // (orders_desk_seq, orders_desk_created).
    const key = raw(byTime ? 'created_at' : 'seq');
    where.push(sql`${key} <= (SELECT max(n.${key}) FROM desks md CROSS JOIN LATERAL (SELECT o.${key} FROM orders o WHERE o.desk_id = md.id ORDER BY o.${key} DESC LIMIT 1) n WHERE md.merchant_id = ${f.merchantId})`);
  }
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

/** The order's status changes, oldest first (recorded by the orders_changed trigger). */
export async function listOrderTransitions(q: Queryable, orderId: string): Promise<TransitionRow[]> {
  const { rows } = await q.query<TransitionRow>('SELECT * FROM order_transitions WHERE order_id = $1 ORDER BY id', [orderId]);
  return rows;
}
