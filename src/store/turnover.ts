import type { Queryable } from './db.js';
import type { Cap, Scope, Window } from '../domain/turnover.js';

export interface LimitRow {
  id: string;
  scope: Scope;
  scope_id: string | null;
  win: Window;
  cap_usd: string;
  notify_only: boolean;
  created_at: Date;
}

export const toCap = (r: LimitRow): Cap => ({ id: r.id, scope: r.scope, scopeId: r.scope_id, window: r.win, capUsd: r.cap_usd, notifyOnly: r.notify_only });

export async function insertLimit(q: Queryable, c: Cap, at: Date): Promise<Cap> {
  const { rows } = await q.query<LimitRow>(
    'INSERT INTO turnover_limits (id, scope, scope_id, win, cap_usd, notify_only, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
    [c.id, c.scope, c.scopeId, c.window, c.capUsd, c.notifyOnly, at],
  );
  return toCap(rows[0]);
}

export async function deleteLimit(q: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await q.query('DELETE FROM turnover_limits WHERE id = $1', [id]);
  return rowCount === 1;
}

export async function listLimits(q: Queryable): Promise<Cap[]> {
  const { rows } = await q.query<LimitRow>('SELECT * FROM turnover_limits ORDER BY created_at, id');
  return rows.map(toCap);
}

/** Caps in the order they are checked: the narrowest scope first (desk, merchant, provider, platform), then the oldest. */
export const CAP_ORDER = `CASE l.scope WHEN 'desk' THEN 0 WHEN 'merchant' THEN 1 WHEN 'provider' THEN 2 ELSE 3 END, l.created_at, l.id`;

/** Every cap, in the order they are checked. */
export async function allCapsInCheckOrder(q: Queryable): Promise<Cap[]> {
  const { rows } = await q.query<LimitRow>(`SELECT * FROM turnover_limits l ORDER BY ${CAP_ORDER}`);
  return rows.map(toCap);
}

/** Caps that apply to the given scopes (platform caps always apply). */
export async function capsFor(q: Queryable, scopes: { scope: Scope; id: string }[]): Promise<Cap[]> {
  const { rows } = await q.query<LimitRow>(
    `SELECT * FROM turnover_limits l WHERE scope = 'platform' OR (scope || ':' || scope_id) = ANY($1::text[]) ORDER BY ${CAP_ORDER}`,
    [scopes.map((s) => `${s.scope}:${s.id}`)],
  );
  return rows.map(toCap);
}

export async function counterValue(q: Queryable, scope: Scope, scopeId: string, window: Window, start: Date): Promise<string> {
  const { rows } = await q.query<{ completed_usd: string }>(
    'SELECT completed_usd FROM turnover_counters WHERE scope = $1 AND scope_id = $2 AND win = $3 AND window_start = $4',
    [scope, scopeId, window, start],
  );
  return rows[0]?.completed_usd ?? '0';
}

/** How `addToCounters` names a counter (of any window start) in its answer. */
export const counterKey = (scope: Scope, scopeId: string, window: Window): string => `${scope}|${scopeId}|${window}`;

/** The order every completion takes the counters in: by scope (this rank), then id (byte order), then window (as given). */
const SCOPE_RANK_SQL = `CASE c.scope WHEN 'desk' THEN 0 WHEN 'merchant' THEN 1 WHEN 'platform' THEN 2 ELSE 3 END`;

/**
 * Adds completed turnover to the window counters, in one statement: each share (the USD of one
 * order in one scope) goes to the counter of its scope in every window given, summed per counter
 * by the database. Counters are taken in one order for every completion (scope, id, window), so
 * two never wait for each other in a circle. Answers the new totals of the counters named in
 * `wanted` (`counterKey`) that it added to: the ones a notify-only cap reads.
 */
export async function addToCounters(
  q: Queryable,
  shares: { scopes: readonly Scope[]; scopeIds: readonly string[]; usd: readonly string[] },
  windows: readonly { window: Window; start: Date }[],
  wanted: readonly string[],
): Promise<Map<string, string>> {
  if (shares.scopes.length === 0 || windows.length === 0) return new Map();
  const insert = `INSERT INTO turnover_counters (scope, scope_id, win, window_start, completed_usd)
     SELECT c.scope, c.scope_id, w.win, w.start, sum(c.usd)
       FROM unnest($1::text[], $2::text[], $3::numeric[]) AS c(scope, scope_id, usd)
      CROSS JOIN unnest($4::text[], $5::timestamptz[]) WITH ORDINALITY AS w(win, start, n)
      GROUP BY c.scope, c.scope_id, w.win, w.start, w.n
      ORDER BY ${SCOPE_RANK_SQL}, c.scope_id COLLATE "C", w.n
     ON CONFLICT (scope, scope_id, win, window_start) DO UPDATE SET completed_usd = turnover_counters.completed_usd + excluded.completed_usd`;
  const params = [shares.scopes, shares.scopeIds, shares.usd, windows.map((w) => w.window), windows.map((w) => w.start.toISOString())];
  if (wanted.length === 0) {
    await q.query(insert, params);
    return new Map();
  }
  // The key as counterKey writes it.
  const { rows } = await q.query<{ k: string; completed_usd: string }>(
    `WITH up AS (${insert} RETURNING scope || '|' || scope_id || '|' || win AS k, completed_usd)
     SELECT k, completed_usd::text AS completed_usd FROM up WHERE k = ANY($6::text[])`,
    [...params, wanted],
  );
  return new Map(rows.map((r) => [r.k, r.completed_usd]));
}

export async function notifyOnce(q: Queryable, n: { kind: string; detail: string; dedupeKey: string; at: Date }): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO platform_notifications (kind, detail, dedupe_key, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (dedupe_key) DO NOTHING RETURNING 1`,
    [n.kind, n.detail, n.dedupeKey, n.at],
  );
  return rows.length === 1;
}

const SCOPE_TABLES: Record<Exclude<Scope, 'platform'>, string> = { desk: 'desks', merchant: 'merchants', provider: 'providers' };

/** Whether the desk, merchant or provider a cap names exists. */
export async function scopeExists(q: Queryable, scope: Exclude<Scope, 'platform'>, id: string): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM ${SCOPE_TABLES[scope]} WHERE id = $1`, [id]);
  return rows.length === 1;
}

export interface NotificationRow {
  id: number;
  kind: string;
  detail: string;
  created_at: Date;
}

export async function listNotifications(q: Queryable, limit: number): Promise<NotificationRow[]> {
  const { rows } = await q.query<NotificationRow>('SELECT id, kind, detail, created_at FROM platform_notifications ORDER BY id DESC LIMIT $1', [limit]);
  return rows;
}
