import type { OperatorRow, UserRow } from './accounts.js';
import type { ReviewRow } from './appeals.js';
import type { Db, Queryable } from './db.js';
import type { MerchantRow } from './merchants.js';
import type { OrderRow } from './orders.js';
import { query, raw, sql, type Sql } from './sql.js';
import type { TariffRow } from './tariffs.js';

/**
 * The back office's reads that no API route needs: queues, counts and the figures of the
 * dashboard. Every statement is read-only; the actions go through the operator API's services.
 */

/** An operator who may use the back office: a disabled one is no operator for a session. */
export async function getOperator(q: Queryable, id: string): Promise<OperatorRow | null> {
  const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE id = $1 AND disabled_at IS NULL', [id]);
  return rows[0] ?? null;
}

// ---- operators: who they are, their role, whether they may sign in

export interface OperatorAccountRow extends OperatorRow {
  disabled_at: Date | null;
}

/** Operators newest first, keyset-paged by id (as every list of the operator API). */
export async function listOperators(q: Queryable, f: { beforeId?: string; limit: number }): Promise<OperatorAccountRow[]> {
  const { rows } = await q.query<OperatorAccountRow>(
    `SELECT o.* FROM operators o
      WHERE ($1::text IS NULL OR (o.created_at, o.id) < (SELECT c.created_at, c.id FROM operators c WHERE c.id = $1))
      ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [f.beforeId ?? null, f.limit],
  );
  return rows;
}

export async function getOperatorAccount(q: Queryable, id: string): Promise<OperatorAccountRow | null> {
  const { rows } = await q.query<OperatorAccountRow>('SELECT * FROM operators WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/**
 * The active admins' ids, locked until the transaction ends: a demotion or a disabling counts the
 * admins on rows no concurrent change can move, so two admins demoting each other leave one.
 */
export async function lockActiveAdmins(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(`SELECT id FROM operators WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`);
  return rows.map((r) => r.id);
}

/** Sets an operator's role and/or disabled time (null enables); fields left undefined stay. */
export async function updateOperatorAccess(q: Queryable, id: string, patch: { role?: 'admin' | 'support'; disabledAt?: Date | null }): Promise<OperatorAccountRow | null> {
  const { rows } = await q.query<OperatorAccountRow>(
    `UPDATE operators SET role = coalesce($2, role), disabled_at = CASE WHEN $3::boolean THEN $4::timestamptz ELSE disabled_at END
      WHERE id = $1 RETURNING *`,
    [id, patch.role ?? null, patch.disabledAt !== undefined, patch.disabledAt ?? null],
  );
  return rows[0] ?? null;
}

export interface QueueCounts {
  review: number;
  appeals: number;
  overdue: number;
  payed: number;
  reconcile: number;
  callbacks: number;
  /** Withdrawal requests waiting for an operator's decision. */
  withdrawals: number;
}

/** A window of callback health: events of the last days whose endpoint failed or keeps retrying. */
const CALLBACK_WINDOW = `e.created_at > $1::timestamptz - interval '7 days'`;
const FAILING = `(e.state IN ('failed', 'rejected') OR (e.state = 'pending' AND e.attempts > 0))`;
const RECONCILE = `o.status = 'Canceled' AND o.sandbox = false AND o.payer_reference IS NOT NULL AND o.placement = 'placed'`;
const POOL_PAYED = `o.status = 'Payed' AND o.placement = 'placed' AND p.kind = 'pool'`;

export async function queueCounts(q: Queryable, now: Date): Promise<QueueCounts> {
  const { rows } = await q.query<Record<keyof QueueCounts, string>>(
    `SELECT
       (SELECT count(*) FROM merchant_applications WHERE status = 'submitted') AS review,
       (SELECT count(*) FROM appeals WHERE status = 'Open') AS appeals,
       (SELECT count(*) FROM appeals WHERE status = 'Open' AND sla_due_at < $1) AS overdue,
       (SELECT count(*) FROM orders o JOIN providers p ON p.id = o.provider_id WHERE ${POOL_PAYED}) AS payed,
       (SELECT count(*) FROM orders o WHERE ${RECONCILE}) AS reconcile,
       (SELECT count(DISTINCT (e.desk_id, e.url)) FROM outbox_events e WHERE ${CALLBACK_WINDOW} AND ${FAILING}) AS callbacks,
       (SELECT count(*) FROM withdrawal_requests WHERE status = 'requested') AS withdrawals`,
    [now],
  );
  const r = rows[0]!;
  return { review: +r.review, appeals: +r.appeals, overdue: +r.overdue, payed: +r.payed, reconcile: +r.reconcile, callbacks: +r.callbacks, withdrawals: +r.withdrawals };
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

/**
 * Completed USD (settled amount) since the start of the UTC day and month, live and sandbox apart,
 * with how many orders: from the ledger's daily rollup (every completion credits the ledger in
 * its transaction), so a month costs the same few thousand rows however busy it was.
 */
export async function turnoverSince(q: Queryable, dayStart: Date, monthStart: Date): Promise<TurnoverRow[]> {
  const { rows } = await q.query<TurnoverRow>(
    `SELECT sandbox,
       coalesce(sum(turnover) FILTER (WHERE day >= $1::date), 0)::text AS today,
       coalesce(sum(turnover), 0)::text AS month,
       coalesce(sum(credit_count) FILTER (WHERE day >= $1::date), 0) AS today_count,
       coalesce(sum(credit_count), 0) AS month_count
     FROM ledger_daily WHERE day >= $2::date GROUP BY sandbox`,
    [utcDay(dayStart), utcDay(monthStart)],
  );
  return rows;
}

/** The UTC day of a moment, as a date literal. */
const utcDay = (t: Date): string => t.toISOString().slice(0, 10);

/**
 * The first UTC day from `fromDay` on that the order rollup does not hold (order_day_stats_days):
 * the days before it are read from the rollup, that day and every later one are counted live.
 */
async function firstLiveDay(q: Queryable, fromDay: string): Promise<string> {
  const { rows } = await q.query<{ d: string }>(
    `SELECT to_char(min(g.day), 'YYYY-MM-DD') AS d
       FROM (SELECT generate_series($1::date, (SELECT coalesce(max(day), $1::date) FROM order_day_stats_days) + 1, interval '1 day')::date AS day) g
      WHERE NOT EXISTS (SELECT 1 FROM order_day_stats_days s WHERE s.day = g.day)`,
    [fromDay],
  );
  return rows[0]!.d;
}

/**
 * Placed orders per UTC day of creation, sandbox flag, method, provider ('' for none) and status,
 * from the UTC day of `since` on: the days the maintenance worker has rolled up from
 * order_day_stats (today among them, redone every minute), the rest (any day not rolled up yet)
 * counted from the orders. A day's counts are as of its last roll-up.
 */
async function dayStats(q: Queryable, since: Date, f: { sandbox: boolean | null; providerId?: string | null }): Promise<Sql> {
  const from = utcDay(since);
  const live = await firstLiveDay(q, from);
  const rolled: Sql[] = [sql`day >= ${from}::date`, sql`day < ${live}::date`];
  const counted: Sql[] = [sql`created_at >= ${new Date(`${live}T00:00:00Z`)}`, sql`placement = 'placed'`];
  if (f.sandbox !== null) {
    rolled.push(sql`sandbox = ${f.sandbox}`);
    counted.push(sql`sandbox = ${f.sandbox}`);
  }
  if (f.providerId) {
    rolled.push(sql`provider_id = ${f.providerId}`);
    counted.push(sql`provider_id = ${f.providerId}`);
  }
  const and = (xs: Sql[]) => xs.reduce((all, x) => sql`${all} AND ${x}`);
  return sql`SELECT day, method, provider_id, status, orders FROM order_day_stats WHERE ${and(rolled)}
             UNION ALL
             SELECT (created_at AT TIME ZONE 'UTC')::date, method, coalesce(provider_id, ''), status, count(*)
               FROM orders WHERE ${and(counted)} GROUP BY 1, 2, 3, 4`;
}

/** `sandbox` null counts both kinds of orders; true or false one of them (the dashboard's switch). Whole UTC days from that of `since`. */
export async function ordersByStatus(q: Queryable, since: Date, sandbox: boolean | null = null): Promise<{ status: string; n: string }[]> {
  const { rows } = await query<{ status: string; n: string }>(
    q,
    sql`SELECT status, sum(orders)::bigint AS n FROM (${await dayStats(q, since, { sandbox })}) s GROUP BY status ORDER BY status`,
  );
  return rows;
}

export async function conversionByMethod(q: Queryable, since: Date, sandbox: boolean | null = null): Promise<{ method: string; created: string; completed: string }[]> {
  const { rows } = await query<{ method: string; created: string; completed: string }>(
    q,
    sql`SELECT method, sum(orders)::bigint AS created, coalesce(sum(orders) FILTER (WHERE status = 'Completed'), 0)::bigint AS completed
          FROM (${await dayStats(q, since, { sandbox })}) s GROUP BY method ORDER BY method`,
  );
  return rows;
}

export interface ProviderDayRow {
  provider_id: string;
  day: string;
  placed: string;
  completed: string;
}

/** Orders each provider served per UTC day from the day of `since`, and how many of them completed. */
export async function providerDailyOutcomes(q: Queryable, since: Date, providerId: string | null, sandbox: boolean | null = null): Promise<ProviderDayRow[]> {
  const { rows } = await query<ProviderDayRow>(
    q,
    sql`SELECT provider_id, to_char(day, 'YYYY-MM-DD') AS day, sum(orders)::bigint AS placed,
               coalesce(sum(orders) FILTER (WHERE status = 'Completed'), 0)::bigint AS completed
          FROM (${await dayStats(q, since, { sandbox, providerId })}) s
         WHERE provider_id <> ''
         GROUP BY provider_id, day ORDER BY provider_id, day`,
  );
  return rows;
}

/**
 * Recomputes the order rollup of the UTC days [fromDay, toDay) from the orders, one day per
 * transaction (a day's orders, read by created_at), and records when. Today may be among them:
 * its rows then stand for the orders so far.
 */
export async function refreshOrderDayStats(db: Db, fromDay: string, toDay: string, at: Date): Promise<number> {
  let days = 0;
  for (let d = new Date(`${fromDay}T00:00:00Z`); d < new Date(`${toDay}T00:00:00Z`); d = new Date(d.getTime() + 86_400_000)) {
    const day = utcDay(d);
    await db.tx(async (t) => {
      // Instances refreshing the same day take turns: both would delete, and the second insert collide.
      await t.query(`SELECT pg_advisory_xact_lock(hashtext('order_day_stats'), $1::int)`, [Math.floor(d.getTime() / 86_400_000)]);
      await t.query('DELETE FROM order_day_stats WHERE day = $1::date', [day]);
      await t.query(
        `INSERT INTO order_day_stats (day, sandbox, method, provider_id, status, orders)
         SELECT $1::date, sandbox, method, coalesce(provider_id, ''), status, count(*) FROM orders
          WHERE created_at >= $2 AND created_at < $3 AND placement = 'placed' GROUP BY 2, 3, 4, 5`,
        [day, d, new Date(d.getTime() + 86_400_000)],
      );
      await t.query(
        `INSERT INTO order_day_stats_days (day, refreshed_at) VALUES ($1::date, $2) ON CONFLICT (day) DO UPDATE SET refreshed_at = excluded.refreshed_at`,
        [day, at],
      );
    });
    days++;
  }
  return days;
}

/**
 * Recounts the callback events written from the UTC hour of `from` on into callback_hour_stats, in
 * one transaction (the hours' rows replaced at once, so a reader sees the old counts or the new).
 * Events written before each carried its own mode (0015) take their order's.
 */
export async function refreshCallbackHourStats(db: Db, from: Date): Promise<void> {
  const hour = new Date(Math.floor(from.getTime() / 3_600_000) * 3_600_000);
  await db.tx(async (t) => {
    await t.query(`SELECT pg_advisory_xact_lock(hashtext('callback_hour_stats'))`);
    await t.query('DELETE FROM callback_hour_stats WHERE hour >= $1', [hour]);
    await t.query(
      `INSERT INTO callback_hour_stats (hour, sandbox, state, events)
       SELECT date_trunc('hour', e.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(e.sandbox, o.sandbox, false), e.state, count(*)
         FROM outbox_events e LEFT JOIN orders o ON e.sandbox IS NULL AND o.id = e.order_id
        WHERE e.created_at >= $1
        GROUP BY 1, 2, 3`,
      [hour],
    );
  });
}

/** Callback events of one mode by their state, from the rollup: the UTC hours from that of `since` on. */
export async function callbackStatesByHour(q: Queryable, since: Date, sandbox: boolean): Promise<{ state: string; n: string }[]> {
  const { rows } = await q.query<{ state: string; n: string }>(
    `SELECT state, sum(events)::bigint AS n FROM callback_hour_stats
      WHERE hour >= $1 AND sandbox = $2 GROUP BY state ORDER BY state`,
    [new Date(Math.floor(since.getTime() / 3_600_000) * 3_600_000), sandbox],
  );
  return rows;
}

/** Callback events of the period by their state, counted from the events (the rollup's check in tests). */
export async function callbackStates(q: Queryable, since: Date, sandbox: boolean | null = null): Promise<{ state: string; n: string }[]> {
  const { rows } = await q.query<{ state: string; n: string }>(
    // The event's own flag (0015); only events written before it look their order up.
    `SELECT e.state, count(*) AS n FROM outbox_events e
      WHERE e.created_at >= $1
        AND ($2::boolean IS NULL OR e.sandbox = $2 OR (e.sandbox IS NULL AND EXISTS (SELECT 1 FROM orders o WHERE o.id = e.order_id AND o.sandbox = $2)))
      GROUP BY e.state ORDER BY e.state`,
    [since, sandbox],
  );
  return rows;
}

export async function listTariffs(q: Queryable): Promise<TariffRow[]> {
  const { rows } = await q.query<TariffRow>('SELECT * FROM tariffs ORDER BY created_at, id');
  return rows;
}

// ---- the lists of the back office: every filter an operator searches by, keyset-paged

export interface OfficeOrderFilter {
  /** Sandbox orders or live ones: the two are never listed together. */
  sandbox: boolean;
  /** An `ord_` id, an orderRef or a payer reference (UTR), exactly. */
  q?: string;
  merchantId?: string;
  deskId?: string;
  providerId?: string;
  status?: string;
  method?: string;
  rail?: string;
  currency?: string;
  /** The order's amount in its own currency, inclusive bounds. */
  amountMin?: string;
  amountMax?: string;
  /** Created at or after `from`, before `to`. */
  from?: Date;
  to?: Date;
  /** Keyset: orders older than this creation sequence. */
  beforeSeq?: number;
  limit: number;
}

/** The conditions of a filter, only those given: the planner sees each query's real shape and picks its index. */
function orderConditions(f: OfficeOrderFilter): Sql {
  const parts: Sql[] = [sql`o.placement = 'placed'`, sql`o.sandbox = ${f.sandbox}`];
  if (f.q) parts.push(sql`(o.id = ${f.q} OR o.order_ref = ${f.q} OR o.payer_reference = ${f.q})`);
  if (f.merchantId) parts.push(sql`o.merchant_id = ${f.merchantId}`);
  if (f.deskId) parts.push(sql`o.desk_id = ${f.deskId}`);
  if (f.providerId) parts.push(sql`o.provider_id = ${f.providerId}`);
  if (f.status) parts.push(sql`o.status = ${f.status}`);
  if (f.method) parts.push(sql`o.method = ${f.method}`);
  if (f.rail) parts.push(sql`o.rail = ${f.rail}`);
  if (f.currency) parts.push(sql`o.currency = ${f.currency}`);
  if (f.amountMin) parts.push(sql`o.amount >= ${f.amountMin}::numeric`);
  if (f.amountMax) parts.push(sql`o.amount <= ${f.amountMax}::numeric`);
  if (f.from) parts.push(sql`o.created_at >= ${f.from}`);
  if (f.to) parts.push(sql`o.created_at < ${f.to}`);
  if (f.beforeSeq !== undefined) {
    parts.push(byTime(f) ? sql`(o.created_at, o.seq) < (SELECT c.created_at, c.seq FROM orders c WHERE c.seq = ${f.beforeSeq})` : sql`o.seq < ${f.beforeSeq}`);
  }
  return parts.reduce((all, p) => sql`${all} AND ${p}`);
}

/** With a period the list runs by creation time along the period's index (as store/orders.ts `listOrders`). */
const byTime = (f: OfficeOrderFilter) => f.from !== undefined || f.to !== undefined;

/**
 * Orders matching every filter given, newest first: by creation sequence, or with a period by
 * creation time then sequence (the same order but among orders created in the same instant by
 * concurrent requests), so a month long ago is read from its newest end instead of walking every
 * later order.
 */
export async function searchOrders(q: Queryable, f: OfficeOrderFilter): Promise<OrderRow[]> {
  const order = raw(byTime(f) ? 'o.created_at DESC, o.seq DESC' : 'o.seq DESC');
  const { rows } = await query<OrderRow>(q, sql`SELECT o.* FROM orders o WHERE ${orderConditions(f)} ORDER BY ${order} LIMIT ${f.limit}`);
  return rows;
}

export interface MerchantMoneyRow extends MerchantRow {
  desk_count: string;
}

// The running balances kept on the merchant row (live in `balance`, sandbox in `sandbox_balance`).
const MONEY_OF = raw(`(SELECT count(*) FROM desks d WHERE d.merchant_id = m.id)::text AS desk_count`);

/** Merchants newest first (as `GET /admin/v1/merchants`), each with its live and sandbox money apart. */
export async function merchantsWithMoney(q: Queryable, f: { status?: string; q?: string; beforeId?: string; limit: number }): Promise<MerchantMoneyRow[]> {
  const where: Sql[] = [sql`true`];
  if (f.status) where.push(sql`m.status = ${f.status}`);
  if (f.q) where.push(sql`(m.id = ${f.q} OR m.name ILIKE ${`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`);
  if (f.beforeId) where.push(sql`(m.created_at, m.id) < (SELECT c.created_at, c.id FROM merchants c WHERE c.id = ${f.beforeId})`);
  const { rows } = await query<MerchantMoneyRow>(
    q,
    sql`SELECT m.*, ${MONEY_OF} FROM merchants m WHERE ${where.reduce((all, p) => sql`${all} AND ${p}`)} ORDER BY m.created_at DESC, m.id DESC LIMIT ${f.limit}`,
  );
  return rows;
}

export async function merchantWithMoney(q: Queryable, id: string): Promise<MerchantMoneyRow | null> {
  const { rows } = await query<MerchantMoneyRow>(q, sql`SELECT m.*, ${MONEY_OF} FROM merchants m WHERE m.id = ${id}`);
  return rows[0] ?? null;
}

/** Appeals with their orders, newest first, of sandbox or live orders only, optionally of one status and merchant. */
export async function appealsOfMode(q: Queryable, f: { sandbox: boolean; status?: string; merchantId?: string; beforeId?: string; limit: number }): Promise<ReviewRow[]> {
  const where: Sql[] = [sql`o.sandbox = ${f.sandbox}`];
  if (f.status) where.push(sql`a.status = ${f.status}`);
  if (f.merchantId) where.push(sql`a.merchant_id = ${f.merchantId}`);
  if (f.beforeId) where.push(sql`(a.created_at, a.id) < (SELECT c.created_at, c.id FROM appeals c WHERE c.id = ${f.beforeId})`);
  const { rows } = await query<ReviewRow>(
    q,
    sql`SELECT a.*, o.order_ref, o.status AS order_status, o.amount AS order_amount, o.currency AS order_currency,
          o.rate AS order_rate, o.settled_amount AS order_settled_amount
        FROM appeals a JOIN orders o ON o.id = a.order_id
        WHERE ${where.reduce((all, p) => sql`${all} AND ${p}`)} ORDER BY a.created_at DESC, a.id DESC LIMIT ${f.limit}`,
  );
  return rows;
}

export async function appealExists(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM appeals WHERE id = $1', [id]);
  return rows.length > 0;
}

export async function merchantExists(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM merchants WHERE id = $1', [id]);
  return rows.length > 0;
}

export interface LedgerModeRow {
  id: number;
  order_id: string | null;
  kind: string;
  amount: string;
  reason: string | null;
  created_at: Date;
}

/** A merchant's latest ledger entries of one money: sandbox (of sandbox orders) or live. */
export async function ledgerOfMode(q: Queryable, merchantId: string, sandbox: boolean, limit: number): Promise<LedgerModeRow[]> {
  const { rows } = await q.query<LedgerModeRow>(
    `SELECT le.id, le.order_id, le.kind, le.amount::text AS amount, le.reason, le.created_at
       FROM ledger_entries le
      WHERE le.merchant_id = $1 AND le.sandbox = $2
      ORDER BY le.id DESC LIMIT $3`,
    [merchantId, sandbox, limit],
  );
  return rows;
}

/** Open appeals of live (or sandbox) orders, the nearest decision target first, after the cursor appeal. */
export async function openAppealsOfMode(q: Queryable, f: { sandbox: boolean; afterId?: string; limit: number }): Promise<ReviewRow[]> {
  const after = f.afterId ? sql` AND (a.sla_due_at, a.id) > (SELECT c.sla_due_at, c.id FROM appeals c WHERE c.id = ${f.afterId})` : sql``;
  const { rows } = await query<ReviewRow>(
    q,
    sql`SELECT a.*, o.order_ref, o.status AS order_status, o.amount AS order_amount, o.currency AS order_currency,
          o.rate AS order_rate, o.settled_amount AS order_settled_amount
        FROM appeals a JOIN orders o ON o.id = a.order_id
        WHERE a.status = 'Open' AND o.sandbox = ${f.sandbox}${after} ORDER BY a.sla_due_at, a.id LIMIT ${f.limit}`,
  );
  return rows;
}

/** How many appeals of live (or sandbox) orders are open. */
export async function openAppealCount(q: Queryable, sandbox: boolean): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM appeals a JOIN orders o ON o.id = a.order_id WHERE a.status = 'Open' AND o.sandbox = $1`, [sandbox]);
  return rows[0]!.n;
}
