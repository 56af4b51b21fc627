import type { OperatorRow, UserRow } from './accounts.js';
import type { Queryable } from './db.js';
import type { MerchantRow } from './merchants.js';
import type { OrderRow } from './orders.js';
import type { TariffRow } from './tariffs.js';

/**
 * The back office's reads that no API route needs: queues, counts and the figures of the
 * dashboard. Every statement is read-only; the actions go through the operator API's services.
 */

export async function getOperator(q: Queryable, id: string): Promise<OperatorRow | null> {
  const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export interface QueueCounts {
  review: number;
  appeals: number;
  overdue: number;
  payed: number;
  reconcile: number;
  callbacks: number;
}

/** A window of callback health: events of the last days whose endpoint failed or keeps retrying. */
const CALLBACK_WINDOW = `e.created_at > $1::timestamptz - interval '7 days'`;
const FAILING = `(e.state IN ('failed', 'rejected') OR (e.state = 'pending' AND e.attempts > 0))`;
const RECONCILE = `o.status = 'Canceled' AND o.sandbox = false AND o.payer_reference IS NOT NULL AND o.placement = 'placed'`;
const POOL_PAYED = `o.status = 'Payed' AND o.placement = 'placed' AND p.kind = 'pool'`;

export async function queueCounts(q: Queryable, now: Date): Promise<QueueCounts> {
  const { rows } = await q.query<Record<keyof QueueCounts, string>>(
    `SELECT
       (SELECT count(*) FROM merchants WHERE status = 'UnderReview') AS review,
       (SELECT count(*) FROM appeals WHERE status = 'Open') AS appeals,
       (SELECT count(*) FROM appeals WHERE status = 'Open' AND sla_due_at < $1) AS overdue,
       (SELECT count(*) FROM orders o JOIN providers p ON p.id = o.provider_id WHERE ${POOL_PAYED}) AS payed,
       (SELECT count(*) FROM orders o WHERE ${RECONCILE}) AS reconcile,
       (SELECT count(DISTINCT (e.desk_id, e.url)) FROM outbox_events e WHERE ${CALLBACK_WINDOW} AND ${FAILING}) AS callbacks`,
    [now],
  );
  const r = rows[0]!;
  return { review: +r.review, appeals: +r.appeals, overdue: +r.overdue, payed: +r.payed, reconcile: +r.reconcile, callbacks: +r.callbacks };
}

export interface ReviewMerchantRow extends MerchantRow {
  desks: string;
  sandbox_orders: string;
  sandbox_completed: string;
}

/** Merchants under review, the longest waiting first, with what they did in the sandbox. */
export async function merchantsUnderReview(q: Queryable, limit: number): Promise<ReviewMerchantRow[]> {
  const { rows } = await q.query<ReviewMerchantRow>(
    `SELECT m.*,
       (SELECT count(*) FROM desks d WHERE d.merchant_id = m.id) AS desks,
       (SELECT count(*) FROM orders o WHERE o.merchant_id = m.id AND o.sandbox AND o.placement = 'placed') AS sandbox_orders,
       (SELECT count(*) FROM orders o WHERE o.merchant_id = m.id AND o.sandbox AND o.status = 'Completed') AS sandbox_completed
     FROM merchants m WHERE m.status = 'UnderReview' ORDER BY m.created_at, m.id LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Pool orders the payer reported paid, waiting for the platform's confirmation: the oldest report first. */
export async function payedPoolOrders(q: Queryable, limit: number): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(`SELECT o.* FROM orders o JOIN providers p ON p.id = o.provider_id WHERE ${POOL_PAYED} ORDER BY o.updated_at, o.seq LIMIT $1`, [limit]);
  return rows;
}

/** Live orders cancelled although a payment reference arrived for them: the oldest first. */
export async function ordersToReconcile(q: Queryable, limit: number): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(`SELECT o.* FROM orders o WHERE ${RECONCILE} ORDER BY o.updated_at, o.seq LIMIT $1`, [limit]);
  return rows;
}

export interface FailingEndpointRow {
  desk_id: string;
  merchant_id: string;
  url: string | null;
  failed: string;
  retrying: string;
  last_event_at: Date;
  last_error: string | null;
}

/** Callback endpoints with failed or retrying events in the last 7 days, the most failing first. */
export async function failingEndpoints(q: Queryable, now: Date, limit: number): Promise<FailingEndpointRow[]> {
  const { rows } = await q.query<FailingEndpointRow>(
    `SELECT e.desk_id, d.merchant_id, e.url,
       count(*) FILTER (WHERE e.state IN ('failed', 'rejected')) AS failed,
       count(*) FILTER (WHERE e.state = 'pending') AS retrying,
       max(e.created_at) AS last_event_at,
       (SELECT coalesce(a.error, 'HTTP ' || a.http_code) FROM callback_attempts a JOIN outbox_events x ON x.id = a.event_id
         WHERE x.desk_id = e.desk_id AND x.url IS NOT DISTINCT FROM e.url AND a.outcome <> 'delivered' ORDER BY a.id DESC LIMIT 1) AS last_error
     FROM outbox_events e JOIN desks d ON d.id = e.desk_id
     WHERE ${CALLBACK_WINDOW} AND ${FAILING}
     GROUP BY e.desk_id, d.merchant_id, e.url
     ORDER BY count(*) DESC, max(e.created_at) DESC LIMIT $2`,
    [now, limit],
  );
  return rows;
}

export async function merchantUsers(q: Queryable, merchantId: string): Promise<UserRow[]> {
  const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
  return rows;
}

export interface WithdrawalRow {
  id: string;
  merchant_id: string;
  amount_usd: string;
  reference: string;
  created_at: Date;
}

export async function merchantWithdrawals(q: Queryable, merchantId: string, limit: number): Promise<WithdrawalRow[]> {
  const { rows } = await q.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [merchantId, limit]);
  return rows;
}

/** Orders whose payer reference (a UTR) is exactly the one given, newest first. */
export async function ordersByPayerReference(q: Queryable, ref: string, limit: number): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(`SELECT * FROM orders WHERE payer_reference = $1 AND placement = 'placed' ORDER BY seq DESC LIMIT $2`, [ref, limit]);
  return rows;
}

/** Which of the given appeals have a receipt file. */
export async function appealsWithReceipt(q: Queryable, appealIds: readonly string[]): Promise<Set<string>> {
  if (appealIds.length === 0) return new Set();
  const { rows } = await q.query<{ appeal_id: string }>('SELECT appeal_id FROM appeal_receipts WHERE appeal_id = ANY($1::text[])', [appealIds]);
  return new Set(rows.map((r) => r.appeal_id));
}

export interface CounterRow {
  scope: string;
  scope_id: string;
  win: string;
  completed_usd: string;
}

/** The counters of the windows that contain `now`, one per scope and window. */
export async function currentCounters(q: Queryable, starts: { hour: Date; day: Date; month: Date }): Promise<CounterRow[]> {
  const { rows } = await q.query<CounterRow>(
    `SELECT scope, scope_id, win, completed_usd::text AS completed_usd FROM turnover_counters
     WHERE (win = 'hour' AND window_start = $1) OR (win = 'day' AND window_start = $2) OR (win = 'month' AND window_start = $3)`,
    [starts.hour, starts.day, starts.month],
  );
  return rows;
}

// ---- figures of the dashboard and the provider pages

export interface TurnoverRow {
  sandbox: boolean;
  today: string;
  month: string;
  today_count: string;
  month_count: string;
}

/** Completed USD (settled amount) since the start of the UTC day and month, live and sandbox apart. */
export async function turnoverSince(q: Queryable, dayStart: Date, monthStart: Date): Promise<TurnoverRow[]> {
  const { rows } = await q.query<TurnoverRow>(
    `SELECT sandbox,
       coalesce(sum(settled_amount) FILTER (WHERE finished_at >= $1), 0)::text AS today,
       coalesce(sum(settled_amount), 0)::text AS month,
       count(*) FILTER (WHERE finished_at >= $1) AS today_count,
       count(*) AS month_count
     FROM orders WHERE status = 'Completed' AND finished_at >= $2 GROUP BY sandbox`,
    [dayStart, monthStart],
  );
  return rows;
}

export async function ordersByStatus(q: Queryable, since: Date): Promise<{ status: string; n: string }[]> {
  const { rows } = await q.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM orders WHERE created_at >= $1 AND placement = 'placed' GROUP BY status ORDER BY status`,
    [since],
  );
  return rows;
}

export async function conversionByMethod(q: Queryable, since: Date): Promise<{ method: string; created: string; completed: string }[]> {
  const { rows } = await q.query<{ method: string; created: string; completed: string }>(
    `SELECT method, count(*) AS created, count(*) FILTER (WHERE status = 'Completed') AS completed
     FROM orders WHERE created_at >= $1 AND placement = 'placed' GROUP BY method ORDER BY method`,
    [since],
  );
  return rows;
}

export interface ProviderDayRow {
  provider_id: string;
  day: string;
  placed: string;
  completed: string;
}

/** Orders each provider served per UTC day since `since`, and how many of them completed. */
export async function providerDailyOutcomes(q: Queryable, since: Date, providerId: string | null): Promise<ProviderDayRow[]> {
  const { rows } = await q.query<ProviderDayRow>(
    `SELECT provider_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS placed,
       count(*) FILTER (WHERE status = 'Completed') AS completed
     FROM orders WHERE created_at >= $1 AND placement = 'placed' AND provider_id IS NOT NULL AND ($2::text IS NULL OR provider_id = $2)
     GROUP BY provider_id, day ORDER BY provider_id, day`,
    [since, providerId],
  );
  return rows;
}

/** Callback events of the period by their state. */
export async function callbackStates(q: Queryable, since: Date): Promise<{ state: string; n: string }[]> {
  const { rows } = await q.query<{ state: string; n: string }>(`SELECT state, count(*) AS n FROM outbox_events WHERE created_at >= $1 GROUP BY state ORDER BY state`, [since]);
  return rows;
}

export async function listTariffs(q: Queryable): Promise<TariffRow[]> {
  const { rows } = await q.query<TariffRow>('SELECT * FROM tariffs ORDER BY created_at, id');
  return rows;
}
