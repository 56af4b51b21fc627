/**
 * SQL of a pool's requisites: the requisites with their accounts, and the requisite each order of a
 * pool was given (assignments), with the load the assignment rules read (src/domain/requisites.ts).
 */
import type { RequisiteState, RequisiteTerms } from '../domain/requisites.js';
import type { Queryable } from './db.js';

export interface RequisiteRow {
  id: string;
  seq: number;
  provider_id: string;
  payment: Record<string, string | null>;
  currency: string | null;
  rails: string[] | null;
  min_amount: string;
  max_amount: string;
  daily_limit: string;
  max_open_orders: number;
  label: string | null;
  state: RequisiteState;
  last_used_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A requisite with what is on it now (see `LoadAt`). */
export interface RequisiteLoadRow extends RequisiteRow {
  open_orders: number;
  open_amount: string;
  received_today: string;
  same_amount_open: boolean;
  quarantined: boolean;
}

/** The instants the load of a requisite is read at, and the order it is read for (when there is one). */
export interface LoadAt {
  now: Date;
  /** Orders of the amount that closed unpaid after this keep it in quarantine. */
  quarantineSince: Date;
  dayStart: Date;
  dayEnd: Date;
  amount?: string | null;
  currency?: string | null;
}

/**
 * A requisite's load: its open orders (Created or Payed before expiresAt; an assignment whose order
 * is still being placed counts, one whose placement failed does not), their amounts, today's matched
 * credits, and for the order at hand whether its amount is open or in quarantine there: an order of
 * that amount closed unpaid (Canceled, or Dispute since) or expired and not yet closed, its close
 * counted from the earlier of its expiry and its closing (the expiry worker may come by late). Only
 * assignments expiring after the quarantine began are read: any other is neither open nor recent.
 * The order's status, placement and close time are read from the assignment's copy (migration
 * 0020 keeps it), not from the orders table: one table, however many orders are open. A copy still
 * empty is an order written after its assignment (placed at once) that has not changed since: open
 * until it expires, and in quarantine once expired until the expiry worker closes it.
 */
const LOAD = `
  SELECT r.*, COALESCE(s.open_orders, 0)::int AS open_orders, COALESCE(s.open_amount, 0)::numeric AS open_amount,
         COALESCE(s.same_amount_open, false) AS same_amount_open, COALESCE(s.quarantined, false) AS quarantined,
         COALESCE((SELECT sum(c.amount) FROM credits c
                    WHERE c.requisite_id = r.id AND c.status = 'matched' AND c.received_at >= $3 AND c.received_at < $4), 0)::numeric AS received_today
    FROM requisites r
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE x.open) AS open_orders,
             sum(x.amount) FILTER (WHERE x.open) AS open_amount,
             bool_or(x.open AND x.same) AS same_amount_open,
             bool_or(x.same AND NOT x.open AND (
               (x.status IN ('Canceled', 'Dispute') AND LEAST(COALESCE(x.finished_at, x.expires_at), x.expires_at) > $2)
               OR (COALESCE(x.status, 'Created') = 'Created' AND COALESCE(x.placement, 'placed') = 'placed' AND x.expires_at <= $1))) AS quarantined
        FROM (SELECT a.amount, a.expires_at, a.order_status AS status, a.order_placement AS placement, a.order_finished_at AS finished_at,
                     (a.expires_at > $1 AND COALESCE(a.order_status, 'Created') IN ('Created', 'Payed') AND COALESCE(a.order_placement, 'pending') <> 'failed') AS open,
                     (a.amount = $5::numeric AND a.currency = $6::text) AS same
                FROM requisite_assignments a
               WHERE a.requisite_id = r.id AND a.expires_at > LEAST($1, $2)) x
    ) s ON true`;

const loadParams = (at: LoadAt) => [at.now, at.quarantineSince, at.dayStart, at.dayEnd, at.amount ?? null, at.currency ?? null];

export async function listRequisiteLoads(q: Queryable, providerId: string, at: LoadAt): Promise<RequisiteLoadRow[]> {
  const { rows } = await q.query<RequisiteLoadRow>(`${LOAD} WHERE r.provider_id = $7 ORDER BY r.seq`, [...loadParams(at), providerId]);
  return rows;
}

export async function getRequisiteLoad(q: Queryable, id: string, at: LoadAt): Promise<RequisiteLoadRow | null> {
  const { rows } = await q.query<RequisiteLoadRow>(`${LOAD} WHERE r.id = $7`, [...loadParams(at), id]);
  return rows[0] ?? null;
}

/**
 * Locks the requisite row: every assignment to it takes this lock first, so two instances issuing
 * orders at once read each other's assignments before deciding (READ COMMITTED reads afresh after the lock).
 */
export async function lockRequisite(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT id FROM requisites WHERE id = $1 FOR UPDATE', [id]);
  return rows.length === 1;
}

/** A requisite to insert: its checked terms (domain/requisites.ts) and where and when it belongs. */
export type NewRequisite = RequisiteTerms & {
  id: string;
  providerId: string;
  at: Date;
};

export async function insertRequisite(q: Queryable, r: NewRequisite): Promise<void> {
  await q.query(
    `INSERT INTO requisites (id, provider_id, payment, currency, rails, min_amount, max_amount, daily_limit, max_open_orders, label, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
    [r.id, r.providerId, JSON.stringify(r.payment), r.currency, r.rails === null ? null : JSON.stringify(r.rails), r.minAmount, r.maxAmount, r.dailyLimit, r.maxOpenOrders, r.label, r.at],
  );
  if (r.accounts.length) {
    await q.query(
      `INSERT INTO requisite_accounts (requisite_id, provider_id, account) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING`,
      [r.id, r.providerId, r.accounts],
    );
  }
}

export async function getRequisite(q: Queryable, id: string): Promise<RequisiteRow | null> {
  const { rows } = await q.query<RequisiteRow>('SELECT * FROM requisites WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export interface RequisitePatch {
  minAmount?: string;
  maxAmount?: string;
  dailyLimit?: string;
  maxOpenOrders?: number;
  label?: string | null;
  state?: RequisiteState;
}

export async function updateRequisite(q: Queryable, id: string, p: RequisitePatch, at: Date): Promise<void> {
  await q.query(
    `UPDATE requisites SET
       min_amount = COALESCE($2::numeric, min_amount), max_amount = COALESCE($3::numeric, max_amount),
       daily_limit = COALESCE($4::numeric, daily_limit), max_open_orders = COALESCE($5::int, max_open_orders),
       label = CASE WHEN $6::boolean THEN $7::text ELSE label END, state = COALESCE($8::text, state), updated_at = $9
     WHERE id = $1`,
    [id, p.minAmount ?? null, p.maxAmount ?? null, p.dailyLimit ?? null, p.maxOpenOrders ?? null, p.label !== undefined, p.label ?? null, p.state ?? null, at],
  );
}

/** Accounts already held by another requisite of the provider. */
export async function accountsInUse(q: Queryable, providerId: string, accounts: string[]): Promise<{ account: string; requisite_id: string }[]> {
  const { rows } = await q.query<{ account: string; requisite_id: string }>(
    'SELECT account, requisite_id FROM requisite_accounts WHERE provider_id = $1 AND account = ANY($2::text[]) ORDER BY account',
    [providerId, accounts],
  );
  return rows;
}

// ---- assignments

export interface Assignment {
  orderId: string;
  requisiteId: string;
  providerId: string;
  amount: string;
  currency: string;
  rail: string | null;
  expiresAt: Date;
  at: Date;
}

/**
 * Records the requisite an order was given, with its order's state when the order row is there
 * already, and marks the requisite used, in one statement; false when the order already has one.
 */
export async function insertAssignment(q: Queryable, a: Assignment): Promise<boolean> {
  const { rows } = await q.query(
    `WITH ins AS (
       INSERT INTO requisite_assignments (order_id, requisite_id, provider_id, amount, currency, rail, expires_at, assigned_at, order_status, order_placement, order_finished_at)
       SELECT $1::text, $2::text, $3::text, $4::numeric, $5::text, $6::text, $7::timestamptz, $8::timestamptz, o.status, o.placement, o.finished_at
         FROM (SELECT 1) one LEFT JOIN orders o ON o.id = $1::text
       ON CONFLICT (order_id) DO NOTHING RETURNING requisite_id)
     UPDATE requisites r SET last_used_at = $8::timestamptz FROM ins WHERE r.id = ins.requisite_id RETURNING r.id`,
    [a.orderId, a.requisiteId, a.providerId, a.amount, a.currency, a.rail, a.expiresAt, a.at],
  );
  return rows.length === 1;
}

/** The requisite an order was given, with its payment keys. */
export async function assignedRequisite(q: Queryable, orderId: string): Promise<RequisiteRow | null> {
  const { rows } = await q.query<RequisiteRow>(
    'SELECT r.* FROM requisite_assignments a JOIN requisites r ON r.id = a.requisite_id WHERE a.order_id = $1',
    [orderId],
  );
  return rows[0] ?? null;
}

// ---- declines

export interface DeclineRow {
  seq: number;
  provider_id: string;
  order_id: string;
  amount: string;
  currency: string;
  rail: string | null;
  reason: string;
  at: Date;
  /** What became of the order: placed by another provider (its name), still being placed, or refused. */
  placement: 'pending' | 'placed' | 'failed' | null;
  placed_with: string | null;
}

/** Records that the pool declined an order, and why. */
export async function insertDecline(q: Queryable, d: { providerId: string; orderId: string; amount: string; currency: string; rail: string | null; reason: string; at: Date }): Promise<void> {
  await q.query('INSERT INTO pool_declines (provider_id, order_id, amount, currency, rail, reason, at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    d.providerId, d.orderId, d.amount, d.currency, d.rail, d.reason, d.at,
  ]);
}

/** The pool's latest declines, newest first, each with what became of its order. */
export async function listDeclines(q: Queryable, providerId: string, limit: number): Promise<DeclineRow[]> {
  const { rows } = await q.query<DeclineRow>(
    `SELECT d.*, o.placement, p.name AS placed_with FROM pool_declines d
       LEFT JOIN orders o ON o.id = d.order_id LEFT JOIN providers p ON p.id = o.provider_id AND o.placement = 'placed'
      WHERE d.provider_id = $1 ORDER BY d.at DESC, d.seq DESC LIMIT $2`,
    [providerId, limit],
  );
  return rows;
}

/** Forgets declines recorded before `before`, at most `limit` of them (the oldest first); returns how many. */
export async function pruneDeclines(q: Queryable, before: Date, limit = 10_000): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM pool_declines WHERE seq IN (SELECT seq FROM pool_declines WHERE at < $1 ORDER BY seq LIMIT $2) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return rows[0]?.n ?? 0;
}

/** How many orders the pool declined since then. */
export async function countDeclinesSince(q: Queryable, providerId: string, since: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM pool_declines WHERE provider_id = $1 AND at >= $2', [providerId, since]);
  return rows[0]?.n ?? 0;
}
