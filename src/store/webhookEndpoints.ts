/**
 * SQL of webhook endpoints (migration 0033): the endpoints a merchant subscribes, their deliveries
 * (written beside each outbox event by `insertEvents`, claimed by the sender with a lease, at most
 * `concurrency` in flight per endpoint across every instance) and the attempt log. One exported
 * function per statement, the connection or transaction first.
 */
import type { Db, Queryable } from './db.js';
import { WEBHOOK_BODY_SQL, WEBHOOK_CHANNEL } from './outbox.js';

export interface WebhookEndpointRow {
  id: string;
  seq: number;
  merchant_id: string;
  url: string;
  events: string[];
  desks: string[] | null;
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret_enc: string;
  prev_secret_enc: string | null;
  prev_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertEndpoint(
  q: Queryable,
  e: { id: string; merchantId: string; url: string; events: readonly string[]; desks: readonly string[] | null; description: string | null; secretEnc: string; at: Date },
): Promise<WebhookEndpointRow> {
  const { rows } = await q.query<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (id, merchant_id, url, events, desks, description, enabled, secret_enc, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text[], $5::text[], $6, true, $7, $8, $8) RETURNING *`,
    [e.id, e.merchantId, e.url, e.events, e.desks, e.description, e.secretEnc, e.at],
  );
  return rows[0]!;
}

/** How many endpoints the merchant has, counted under a lock on the merchant's row so two creations at once cannot both pass the limit. */
export async function countEndpointsLocked(q: Queryable, merchantId: string): Promise<number> {
  await q.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE merchant_id = $1', [merchantId]);
  return rows[0]!.n;
}

export async function listEndpoints(q: Queryable, merchantId: string): Promise<WebhookEndpointRow[]> {
  const { rows } = await q.query<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE merchant_id = $1 ORDER BY seq', [merchantId]);
  return rows;
}

export async function getEndpoint(q: Queryable, merchantId: string, id: string): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return rows[0] ?? null;
}

export async function getEndpointById(q: Queryable, id: string): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Changes the given fields; enabling clears the reason it was disabled and its failing streak. */
export async function updateEndpoint(
  q: Queryable,
  merchantId: string,
  id: string,
  p: { url?: string; events?: readonly string[]; desks?: readonly string[] | null; description?: string | null; enabled?: boolean; at: Date },
): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET
        url = CASE WHEN $3 THEN $4 ELSE url END,
        events = CASE WHEN $5 THEN $6::text[] ELSE events END,
        desks = CASE WHEN $7 THEN $8::text[] ELSE desks END,
        description = CASE WHEN $9 THEN $10 ELSE description END,
        enabled = COALESCE($11, enabled),
        disabled_reason = CASE WHEN $11 IS NULL THEN disabled_reason WHEN $11 THEN NULL ELSE 'disabled by the merchant' END,
        failing_since = CASE WHEN $11 AND NOT enabled THEN NULL ELSE failing_since END,
        updated_at = $12
      WHERE id = $1 AND merchant_id = $2 RETURNING *`,
    [
      id, merchantId,
      p.url !== undefined, p.url ?? null,
      p.events !== undefined, p.events ?? null,
      p.desks !== undefined, p.desks ?? null,
      p.description !== undefined, p.description ?? null,
      p.enabled ?? null, p.at,
    ],
  );
  return rows[0] ?? null;
}

/** The new secret signs from now on; the current one keeps signing beside it until `until`. */
export async function rotateSecret(q: Queryable, merchantId: string, id: string, secretEnc: string, until: Date, at: Date): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET prev_secret_enc = secret_enc, prev_secret_until = $4, secret_enc = $3, updated_at = $5
      WHERE id = $1 AND merchant_id = $2 RETURNING *`,
    [id, merchantId, secretEnc, until, at],
  );
  return rows[0] ?? null;
}

/** Disables an endpoint the sender gave up on (410, or five days of failures); false when it was disabled already. */
export async function disableEndpoint(q: Queryable, id: string, reason: string, at: Date): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>(
    'UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND enabled RETURNING *',
    [id, reason, at],
  );
  return rows[0] ?? null;
}

// ---- deliveries

export interface ClaimedDelivery {
  id: number;
  endpoint_id: string;
  event_id: string;
  event: string;
  body: string;
  attempts: number;
  url: string;
  secret_enc: string;
  prev_secret_enc: string | null;
  prev_secret_until: Date | null;
  failing_since: Date | null;
  /** The traceparent of the work that wrote the event (migration 0035); null with tracing off. */
  trace_parent: string | null;
}

/** Advisory lock key of the claim: claims of every instance run one at a time, so no endpoint ever has more than its room in flight. */
const CLAIM_LOCK = 0x77686b31; // 'whk1'

/**
 * Claims due deliveries: for each enabled endpoint, at most `concurrency` minus what is leased now,
 * oldest due first, up to `limit` in all. A delivery whose lease ran out belonged to a sender that
 * stopped mid-send: its lost attempt is logged `interrupted` (it may have reached the receiver)
 * and it is claimed again as the next attempt.
 */
export async function claimDeliveries(db: Db, c: { me: string; now: Date; leaseUntil: Date; concurrency: number; limit: number }): Promise<ClaimedDelivery[]> {
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
    const { rows } = await q.query<ClaimedDelivery & { was_locked_by: string | null }>(
      `WITH leased AS (
         SELECT x.endpoint_id, count(*)::int AS n FROM webhook_deliveries x
          WHERE x.locked_by IS NOT NULL AND x.locked_until > $2 GROUP BY x.endpoint_id),
       ep AS (
         SELECT w.id, w.url, w.secret_enc, w.prev_secret_enc, w.prev_secret_until, w.failing_since, $4::int - coalesce(l.n, 0) AS room
           FROM webhook_endpoints w LEFT JOIN leased l ON l.endpoint_id = w.id
          WHERE w.enabled AND $4::int - coalesce(l.n, 0) > 0),
       due AS (
         SELECT d.id, d.locked_by AS was_locked_by, ep.url, ep.secret_enc, ep.prev_secret_enc, ep.prev_secret_until, ep.failing_since
           FROM ep, LATERAL (
             SELECT d.id, d.locked_by FROM webhook_deliveries d
              WHERE d.endpoint_id = ep.id AND d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.locked_by IS NULL OR d.locked_until <= $2)
              ORDER BY d.next_attempt_at, d.id
              LIMIT ep.room) d
          LIMIT $5),
       upd AS (
         UPDATE webhook_deliveries d SET locked_by = $1, locked_until = $3, attempts = d.attempts + 1
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.endpoint_id, d.event_id, d.event, d.body, d.attempts, d.trace_parent, due.was_locked_by, due.url, due.secret_enc, due.prev_secret_enc, due.prev_secret_until, due.failing_since),
       lost AS (
         INSERT INTO webhook_attempts (endpoint_id, event_id, event, attempt, outcome, error, at, next_attempt_at)
         SELECT endpoint_id, event_id, event, attempts - 1, 'interrupted', 'the sender stopped before the answer arrived', $2, $2 FROM upd WHERE was_locked_by IS NOT NULL)
       SELECT * FROM upd ORDER BY id`,
      [c.me, c.now, c.leaseUntil, c.concurrency, c.limit],
    );
    return rows;
  });
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface FinishedDelivery {
  id: number;
  endpointId: string;
  eventId: string;
  event: string;
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  response: string | null;
  at: Date;
  /** When outcome is `retry`. */
  next: Date | null;
}

/**
 * Records finished attempts of one sender in one statement: each delivery (only while this sender
 * still holds it), its attempt in the log, and each endpoint's failing streak (cleared by a delivery,
 * started by a failure). Answers the ids recorded and, per endpoint, since when it has been failing.
 */
export async function finishDeliveries(q: Queryable, me: string, done: readonly FinishedDelivery[]): Promise<{ recorded: Set<number>; failingSince: Map<string, Date> }> {
  if (done.length === 0) return { recorded: new Set(), failingSince: new Map() };
  const items = done.map((d) => ({
    id: d.id, endpoint_id: d.endpointId, event_id: d.eventId, event: d.event, attempt: d.attempt, outcome: d.outcome, status_code: d.statusCode,
    duration_ms: d.durationMs, error: d.error, response: d.response, at: d.at.toISOString(), next: d.next?.toISOString() ?? null,
  }));
  const { rows } = await q.query<{ id: number | null; endpoint_id: string | null; failing_since: Date | null }>(
    `WITH f AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS f(id bigint, endpoint_id text, event_id text, event text, attempt int, outcome text, status_code int,
              duration_ms int, error text, response text, at timestamptz, next timestamptz)),
     upd AS (
       UPDATE webhook_deliveries d
          SET state = CASE f.outcome WHEN 'retry' THEN 'pending' ELSE f.outcome END,
              next_attempt_at = COALESCE(f.next, d.next_attempt_at), locked_by = NULL, locked_until = NULL,
              last_status = f.status_code, last_error = f.error, finished_at = CASE WHEN f.outcome = 'retry' THEN NULL ELSE f.at END
         FROM f WHERE d.id = ANY($3::bigint[]) AND d.id = f.id AND d.locked_by = $1 AND d.state = 'pending'
       RETURNING d.id),
     log AS (
       INSERT INTO webhook_attempts (endpoint_id, event_id, event, attempt, outcome, status_code, duration_ms, error, response, at, next_attempt_at)
       SELECT f.endpoint_id, f.event_id, f.event, f.attempt, f.outcome, f.status_code, f.duration_ms, f.error, f.response, f.at, f.next
         FROM f JOIN upd ON upd.id = f.id ORDER BY f.at, f.id),
     streak AS (
       SELECT f.endpoint_id, bool_or(f.outcome = 'delivered') AS ok, min(f.at) AS first_failure
         FROM f JOIN upd ON upd.id = f.id GROUP BY f.endpoint_id),
     ep AS (
       UPDATE webhook_endpoints w SET failing_since = CASE WHEN s.ok THEN NULL ELSE s.first_failure END
         FROM streak s
        WHERE w.id = s.endpoint_id AND CASE WHEN s.ok THEN w.failing_since IS NOT NULL ELSE w.failing_since IS NULL END
       RETURNING w.id, w.failing_since)
     SELECT upd.id, NULL::text AS endpoint_id, NULL::timestamptz AS failing_since FROM upd
     UNION ALL
     SELECT NULL, s.endpoint_id, coalesce(ep.failing_since, w.failing_since)
       FROM streak s JOIN webhook_endpoints w ON w.id = s.endpoint_id LEFT JOIN ep ON ep.id = s.endpoint_id
      WHERE NOT s.ok`,
    // The ids again as an array: the rows are found by their key, whatever the planner thinks of the recordset.
    [me, JSON.stringify(items), done.map((d) => d.id)],
  );
  const recorded = new Set<number>();
  const failingSince = new Map<string, Date>();
  for (const r of rows) {
    if (r.id !== null) recorded.add(Number(r.id));
    else if (r.endpoint_id && r.failing_since) failingSince.set(r.endpoint_id, r.failing_since);
  }
  return { recorded, failingSince };
}

/** Hands claimed deliveries back unsent (a sender stopping before it began them): due again at once, the claim's attempt undone. */
export async function releaseDeliveries(q: Queryable, me: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL, attempts = attempts - 1 WHERE id = ANY($2::bigint[]) AND locked_by = $1 AND state = 'pending'`,
    [me, ids],
  );
}

/** A test event: one delivery to one endpoint, due at once. */
export async function insertTestDelivery(q: Queryable, d: { endpointId: string; eventId: string; body: string; at: Date }): Promise<void> {
  await q.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, event, body, state, attempts, next_attempt_at, created_at)
     VALUES ($1, $2, 'webhook.test', $3, 'pending', 0, $4, $4)`,
    [d.endpointId, d.eventId, d.body, d.at],
  );
  await notifyWebhookSenders(q);
}

/** Wakes idle webhook senders once the caller's transaction commits. */
export async function notifyWebhookSenders(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${WEBHOOK_CHANNEL}', '')`);
}

/**
 * Recovery since `since`: the endpoint's deliveries that failed for good start a new schedule, due
 * now; and every event of the merchant's desks since then that the endpoint takes but never got a
 * delivery for (it was disabled, or did not exist yet), archived events included, gets one. Answers
 * how many were queued.
 */
export async function recoverSince(q: Queryable, ep: WebhookEndpointRow, since: Date, now: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH again AS (
       UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $3, finished_at = NULL, locked_by = NULL, locked_until = NULL
        WHERE endpoint_id = $1 AND state = 'failed' AND created_at >= $2
       RETURNING 1),
     evs AS (
       SELECT o.id, o.desk_id, o.event, o.body, o.created_at AS at, o.seq FROM outbox_events o
        WHERE o.desk_id IN (SELECT id FROM desks WHERE merchant_id = $4) AND o.created_at >= $2
       UNION ALL
       SELECT o.id, o.desk_id, o.event, o.body, o.created_at AS at, o.seq FROM outbox_events_archive o
        WHERE o.desk_id IN (SELECT id FROM desks WHERE merchant_id = $4) AND o.created_at >= $2),
     added AS (
       INSERT INTO webhook_deliveries (endpoint_id, event_id, event, body, state, attempts, next_attempt_at, created_at)
       SELECT $1, e.id, e.event, ${WEBHOOK_BODY_SQL}, 'pending', 0, $3, e.at
         FROM evs e
        WHERE ($5::text[] IS NULL OR e.desk_id = ANY($5::text[]))
          AND ('*' = ANY($6::text[]) OR e.event = ANY($6::text[]))
        ORDER BY e.seq
       ON CONFLICT (endpoint_id, event_id) DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM again)::int + (SELECT count(*) FROM added)::int AS n`,
    [ep.id, since, now, ep.merchant_id, ep.desks, ep.events],
  );
  return rows[0]!.n;
}

export interface AttemptRow {
  id: number;
  event_id: string;
  event: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response: string | null;
  at: Date;
  next_attempt_at: Date | null;
}

/** The endpoint's attempts, newest first, before the attempt id `before` (exclusive). */
export async function listAttempts(q: Queryable, endpointId: string, before: number | null, limit: number): Promise<AttemptRow[]> {
  const { rows } = await q.query<AttemptRow>(
    `SELECT id, event_id, event, attempt, outcome, status_code, duration_ms, error, response, at, next_attempt_at
       FROM webhook_attempts WHERE endpoint_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [endpointId, before, limit],
  );
  return rows;
}

/** Pending deliveries per endpoint: the backlog gauge. */
export async function backlogByEndpoint(q: Queryable): Promise<{ endpoint_id: string; n: number }[]> {
  const { rows } = await q.query<{ endpoint_id: string; n: number }>(
    `SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending' GROUP BY endpoint_id`,
  );
  return rows;
}

/** Finished deliveries and attempts older than `before` are forgotten, a batch at a time; answers how many rows went. */
export async function pruneWebhookHistory(q: Queryable, before: Date, batch: number): Promise<number> {
  const a = await q.query(`DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE at < $1 ORDER BY at LIMIT $2)`, [before, batch]);
  const d = await q.query(
    `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < $1 ORDER BY finished_at LIMIT $2)`,
    [before, batch],
  );
  return a.rowCount + d.rowCount;
}
