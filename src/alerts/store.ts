/**
 * SQL of alerts (migration 0032): the alerts themselves (at most one open a key), the channels an
 * admin configures, and the webhook deliveries the sender claims with a lease. One exported
 * function per statement, the connection or transaction first.
 */
import type { Queryable } from '../store/db.js';

export interface AlertRow {
  id: string;
  seq: string;
  kind: string;
  subject_id: string;
  key: string;
  summary: string;
  detail: Record<string, unknown>;
  raised_at: Date;
  resolved_at: Date | null;
}

export interface NewAlert {
  id: string;
  kind: string;
  subjectId: string;
  key: string;
  summary: string;
  detail: Record<string, unknown>;
  at: Date;
}

/** The open alerts of the given kinds: what the evaluator compares the conditions with. */
export async function openAlertsOfKinds(q: Queryable, kinds: readonly string[]): Promise<AlertRow[]> {
  const { rows } = await q.query<AlertRow>('SELECT * FROM alerts WHERE resolved_at IS NULL AND kind = ANY($1::text[]) ORDER BY seq', [kinds]);
  return rows;
}

/**
 * Raises an alert unless one of its key is open (the partial unique index decides, so two
 * evaluators at once raise it once). Null when it was open already.
 */
export async function raiseAlert(q: Queryable, a: NewAlert): Promise<AlertRow | null> {
  const { rows } = await q.query<AlertRow>(
    `INSERT INTO alerts (id, kind, subject_id, key, summary, detail, raised_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (key) WHERE resolved_at IS NULL DO NOTHING RETURNING *`,
    [a.id, a.kind, a.subjectId, a.key, a.summary, JSON.stringify(a.detail), a.at],
  );
  return rows[0] ?? null;
}

/** Resolves an open alert; null when it was resolved already (by another evaluator). */
export async function resolveAlert(q: Queryable, id: string, at: Date): Promise<AlertRow | null> {
  const { rows } = await q.query<AlertRow>('UPDATE alerts SET resolved_at = $2 WHERE id = $1 AND resolved_at IS NULL RETURNING *', [id, at]);
  return rows[0] ?? null;
}

export async function getAlert(q: Queryable, id: string): Promise<AlertRow | null> {
  const { rows } = await q.query<AlertRow>('SELECT * FROM alerts WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export type AlertState = 'open' | 'resolved';

/** Newest first, by raising; `pastSeq` continues a page. */
export async function listAlerts(q: Queryable, f: { state: AlertState | null; kind: string | null; pastSeq: string | null; limit: number }): Promise<AlertRow[]> {
  const { rows } = await q.query<AlertRow>(
    `SELECT * FROM alerts
      WHERE ($1::text IS NULL OR ($1 = 'open') = (resolved_at IS NULL))
        AND ($2::text IS NULL OR kind = $2)
        AND ($3::bigint IS NULL OR seq < $3)
      ORDER BY seq DESC LIMIT $4`,
    [f.state, f.kind, f.pastSeq, f.limit],
  );
  return rows;
}

export async function countOpenAlerts(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts WHERE resolved_at IS NULL');
  return rows[0]!.n;
}

// ---- channels

export type ChannelKind = 'email' | 'webhook';

export interface ChannelRow {
  id: string;
  seq: string;
  kind: ChannelKind;
  name: string;
  target: string;
  lang: string;
  secret_enc: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function insertChannel(q: Queryable, c: { id: string; kind: ChannelKind; name: string; target: string; lang: string; secretEnc: string | null; enabled: boolean; at: Date }): Promise<ChannelRow> {
  const { rows } = await q.query<ChannelRow>(
    `INSERT INTO alert_channels (id, kind, name, target, lang, secret_enc, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
    [c.id, c.kind, c.name, c.target, c.lang, c.secretEnc, c.enabled, c.at],
  );
  return rows[0]!;
}

export async function getChannel(q: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<ChannelRow | null> {
  const { rows } = await q.query<ChannelRow>(`SELECT * FROM alert_channels WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** Oldest first; `enabledOnly` for the channels an alert goes to. */
export async function listChannels(q: Queryable, opts: { enabledOnly?: boolean } = {}): Promise<ChannelRow[]> {
  const { rows } = await q.query<ChannelRow>(`SELECT * FROM alert_channels${opts.enabledOnly ? ' WHERE enabled' : ''} ORDER BY seq`);
  return rows;
}

export async function updateChannel(q: Queryable, id: string, p: { name: string; target: string; lang: string; secretEnc: string | null; enabled: boolean }, at: Date): Promise<ChannelRow> {
  const { rows } = await q.query<ChannelRow>(
    'UPDATE alert_channels SET name = $2, target = $3, lang = $4, secret_enc = $5, enabled = $6, updated_at = $7 WHERE id = $1 RETURNING *',
    [id, p.name, p.target, p.lang, p.secretEnc, p.enabled, at],
  );
  return rows[0]!;
}

// ---- webhook deliveries

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  alert_id: string;
  channel_id: string;
  event: 'raised' | 'resolved';
  body: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  locked_by: string | null;
  locked_until: Date | null;
  last_http_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertDelivery(q: Queryable, d: { id: string; alertId: string; channelId: string; event: 'raised' | 'resolved'; body: string; at: Date }): Promise<void> {
  await q.query(
    `INSERT INTO alert_deliveries (id, alert_id, channel_id, event, body, state, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6, $6)`,
    [d.id, d.alertId, d.channelId, d.event, d.body, d.at],
  );
}

/**
 * Claims due deliveries for one sender: SKIP LOCKED, so two senders never take the same one; a
 * lease past `locked_until` belongs to a sender that stopped mid-send and is taken over. Each
 * claim counts as an attempt, so a send cut short by a crash counts too.
 */
export async function claimDueDeliveries(q: Queryable, c: { me: string; now: Date; leaseUntil: Date; limit: number }): Promise<DeliveryRow[]> {
  const { rows } = await q.query<DeliveryRow>(
    `WITH due AS (
       SELECT id FROM alert_deliveries
        WHERE state = 'pending' AND next_attempt_at <= $2 AND (locked_by IS NULL OR locked_until < $2)
        ORDER BY next_attempt_at, id LIMIT $4
        FOR UPDATE SKIP LOCKED)
     UPDATE alert_deliveries d SET locked_by = $1, locked_until = $3, attempts = d.attempts + 1, updated_at = $2
       FROM due WHERE d.id = due.id
     RETURNING d.*`,
    [c.me, c.now, c.leaseUntil, c.limit],
  );
  return rows;
}

/** The attempt's outcome, only while this sender still holds the delivery: delivered, failed for good, or due again at `next`. */
export async function finishDelivery(
  q: Queryable,
  me: string,
  id: string,
  r: { state: DeliveryState; next: Date | null; httpCode: number | null; error: string | null; at: Date },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE alert_deliveries SET state = $3, next_attempt_at = COALESCE($4, next_attempt_at), last_http_code = $5, last_error = $6,
            locked_by = NULL, locked_until = NULL, updated_at = $7
      WHERE id = $2 AND locked_by = $1 AND state = 'pending'`,
    [me, id, r.state, r.next, r.httpCode, r.error, r.at],
  );
  return rowCount === 1;
}

export async function deliveriesOfAlert(q: Queryable, alertId: string): Promise<DeliveryRow[]> {
  const { rows } = await q.query<DeliveryRow>('SELECT * FROM alert_deliveries WHERE alert_id = $1 ORDER BY created_at, id', [alertId]);
  return rows;
}

// ---- what the conditions read (src/alerts/conditions.ts)

export interface WaitingCreditsRow {
  provider_id: string;
  provider_name: string;
  credits: number;
  oldest_at: Date;
  oldest_id: string;
}

/** Per provider, the unmatched credits recorded at or before `recordedBy`: how many, and the oldest. */
export async function waitingCreditsByProvider(q: Queryable, recordedBy: Date): Promise<WaitingCreditsRow[]> {
  const { rows } = await q.query<WaitingCreditsRow>(
    `SELECT c.provider_id, p.name AS provider_name, count(*)::int AS credits, min(c.created_at) AS oldest_at,
            (array_agg(c.id ORDER BY c.created_at, c.seq))[1] AS oldest_id
       FROM credits c JOIN providers p ON p.id = c.provider_id
      WHERE c.status = 'unmatched' AND c.created_at <= $1
      GROUP BY c.provider_id, p.name ORDER BY c.provider_id`,
    [recordedBy],
  );
  return rows;
}

export interface AccountStatementRow {
  provider_id: string;
  provider_name: string;
  account_key: string;
  statement_id: string;
  filename: string | null;
  balance_check: string;
  balance_difference: string | null;
  continuity: string;
  gap_from: string | null;
  gap_to: string | null;
}

/**
 * For each provider and account, the statement recorded last (by upload), when its balances do
 * not add up or it leaves a gap after the one before: a newer statement of the account that is
 * right ends the finding, whether it is the next one or the missing one uploaded late.
 */
export async function accountsWithStatementFindings(q: Queryable): Promise<AccountStatementRow[]> {
  const { rows } = await q.query<AccountStatementRow>(
    `SELECT * FROM (
       SELECT DISTINCT ON (s.provider_id, k.account_key)
              s.provider_id, p.name AS provider_name, k.account_key, s.id AS statement_id, s.filename, s.balance_check,
              s.balance_difference::text AS balance_difference, s.continuity,
              to_char(s.gap_from, 'YYYY-MM-DD') AS gap_from, to_char(s.gap_to, 'YYYY-MM-DD') AS gap_to
         FROM statements s
         JOIN providers p ON p.id = s.provider_id
         CROSS JOIN LATERAL unnest(s.account_keys) AS k(account_key)
        WHERE s.state = 'recorded'
        ORDER BY s.provider_id, k.account_key, s.seq DESC) latest
      WHERE balance_check = 'inconsistent' OR continuity = 'gap'
      ORDER BY provider_id, account_key`,
  );
  return rows;
}

export interface CircuitRow {
  provider_id: string;
  provider_name: string;
  method: string;
  rail: string;
  state: unknown;
}

/** Every circuit the cascade has written (a provider × method × rail that has had traffic). */
export async function allCircuits(q: Queryable): Promise<CircuitRow[]> {
  const { rows } = await q.query<CircuitRow>(
    `SELECT c.provider_id, p.name AS provider_name, c.method, c.rail, c.state
       FROM provider_circuits c JOIN providers p ON p.id = c.provider_id ORDER BY c.provider_id, c.method, c.rail`,
  );
  return rows;
}

export interface RequisiteNearLimitRow {
  id: string;
  provider_id: string;
  provider_name: string;
  label: string | null;
  currency: string | null;
  daily_limit: string;
  received_today: string;
}

/**
 * Active requisites with a daily limit whose matched credits of the day (UTC, as the limit counts
 * them) reached `share` of it; the sum and the comparison are numeric, in the database.
 */
export async function requisitesNearDailyLimit(q: Queryable, day: { start: Date; end: Date }, share: string): Promise<RequisiteNearLimitRow[]> {
  const { rows } = await q.query<RequisiteNearLimitRow>(
    `SELECT r.id, r.provider_id, p.name AS provider_name, r.label, r.currency, r.daily_limit::text AS daily_limit, sum(c.amount)::text AS received_today
       FROM requisites r
       JOIN providers p ON p.id = r.provider_id
       JOIN credits c ON c.requisite_id = r.id AND c.status = 'matched' AND c.received_at >= $1 AND c.received_at < $2
      WHERE r.state = 'active' AND r.daily_limit > 0
      GROUP BY r.id, p.name
     HAVING sum(c.amount) >= r.daily_limit * $3::numeric
      ORDER BY r.id`,
    [day.start, day.end, share],
  );
  return rows;
}

export interface UnreadMessagesRow {
  provider_id: string;
  provider_name: string;
  messages: number;
  oldest_at: Date;
}

/** Per provider, the unread messages (device messages) recorded at or before `recordedBy`: how many, and since when. */
export async function unreadMessagesByProvider(q: Queryable, recordedBy: Date): Promise<UnreadMessagesRow[]> {
  const { rows } = await q.query<UnreadMessagesRow>(
    `SELECT m.provider_id, p.name AS provider_name, count(*)::int AS messages, min(m.created_at) AS oldest_at
       FROM messages m JOIN providers p ON p.id = m.provider_id
      WHERE m.outcome = 'unread' AND m.created_at <= $1
      GROUP BY m.provider_id, p.name ORDER BY m.provider_id`,
    [recordedBy],
  );
  return rows;
}
