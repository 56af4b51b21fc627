import type { Queryable } from './db.js';
import { query, raw, sql } from './sql.js';

export type { EventKind } from '../domain/orders.js';
import type { EventKind } from '../domain/orders.js';

/** NOTIFY channel raised when an event is written, so an idle delivery worker wakes at once. */
export const OUTBOX_CHANNEL = 'paygate_outbox';

/** NOTIFY channel raised when webhook endpoint deliveries are written, so an idle webhook sender wakes at once. */
export const WEBHOOK_CHANNEL = 'paygate_webhooks';

/**
 * A webhook endpoint's body (Standard Webhooks): `{"type", "timestamp", "data"}`, `data` the exact
 * bytes of the callback body. Built in SQL from the event's row `e` (columns event, at, body), so the
 * callback body is never parsed again.
 */
export const WEBHOOK_BODY_SQL = `'{"type":' || to_json(e.event)::text || ',"timestamp":' || to_json(to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text || ',"data":' || e.body || '}'`;

/** The receiving host of a callback URL (lower-case host name), the unit of delivery fairness. */
export function receiverOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Why an event is suppressed, as its attempt log says (the worker says the same of an event it finds so). */
export const SUPPRESSED_OFF = 'callbacks are switched off for the cash desk';
export const SUPPRESSED_NO_URL = 'no callback URL: the order was created without one';

/**
 * Events with their exact body bytes and the URL captured at order creation, in one statement, in
 * the order given: each due for a first attempt at once, except one that could never be sent, which
 * is recorded suppressed right here, its attempt included, as the delivery worker would record it
 * (the desk's callbacks are off now, or the order has no callback URL), so no worker has to claim
 * it. One NOTIFY for all, delivered when the caller's transaction commits, never before.
 */
export async function insertEvents(
  q: Queryable,
  es: readonly { id: string; orderId: string; deskId: string; event: EventKind; body: string; url: string | null; at: Date; sandbox: boolean }[],
  /** The W3C traceparent of the work writing them, with tracing on: their callback attempts continue its trace. */
  traceParent: string | null = null,
): Promise<void> {
  if (es.length === 0) return;
  const items = es.map((e, n) => ({
    n, id: e.id, order_id: e.orderId, desk_id: e.deskId, event: e.event, body: e.body, url: e.url, receiver: receiverOf(e.url), at: e.at.toISOString(), sandbox: e.sandbox,
  }));
  await q.query(
    `WITH e AS (
       SELECT e.*, CASE WHEN NOT coalesce(d.callbacks_enabled, false) THEN '${SUPPRESSED_OFF}' WHEN e.url IS NULL THEN '${SUPPRESSED_NO_URL}' END AS suppressed
         FROM jsonb_to_recordset($1::jsonb) AS e(n int, id text, order_id text, desk_id text, event text, body text, url text, receiver text, at timestamptz, sandbox boolean)
         LEFT JOIN desks d ON d.id = e.desk_id),
     ins AS (
       INSERT INTO outbox_events (id, order_id, desk_id, event, body, url, receiver, state, attempts, next_attempt_at, created_at, finished_at, sandbox, trace_parent)
       SELECT e.id, e.order_id, e.desk_id, e.event, e.body, e.url, e.receiver,
              CASE WHEN e.suppressed IS NULL THEN 'pending' ELSE 'suppressed' END, CASE WHEN e.suppressed IS NULL THEN 0 ELSE 1 END,
              CASE WHEN e.suppressed IS NULL THEN e.at END, e.at, CASE WHEN e.suppressed IS NOT NULL THEN e.at END, e.sandbox, $2::text
         FROM e ORDER BY e.n RETURNING id, state),
     att AS (
       INSERT INTO callback_attempts (event_id, order_id, attempt, outcome, http_code, response, error, at)
       SELECT e.id, e.order_id, 1, 'suppressed', NULL, NULL, e.suppressed, e.at FROM e WHERE e.suppressed IS NOT NULL ORDER BY e.n),
     wh AS (
       INSERT INTO webhook_deliveries (endpoint_id, event_id, event, body, state, attempts, next_attempt_at, created_at, trace_parent)
       SELECT w.id, e.id, e.event, ${WEBHOOK_BODY_SQL}, 'pending', 0, e.at, e.at, $2::text
         FROM e JOIN desks d ON d.id = e.desk_id
         JOIN webhook_endpoints w ON w.merchant_id = d.merchant_id AND w.enabled
          AND (w.desks IS NULL OR e.desk_id = ANY(w.desks)) AND ('*' = ANY(w.events) OR e.event = ANY(w.events))
        ORDER BY e.n, w.seq
       RETURNING 1)
     SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM ins WHERE state = 'pending')
     UNION ALL
     SELECT pg_notify('${WEBHOOK_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM wh)`,
    [JSON.stringify(items), traceParent],
  );
}

export interface OutboxRow {
  id: string;
  seq: number;
  order_id: string;
  desk_id: string;
  event: EventKind;
  body: string;
  url: string | null;
  receiver: string | null;
  state: 'pending' | 'delivered' | 'rejected' | 'failed' | 'suppressed';
  attempts: number;
  next_attempt_at: Date | null;
  locked_by: string | null;
  locked_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  /** The order's sandbox flag (migration 0015); null for events written before it. */
  sandbox?: boolean | null;
  /** The traceparent of the work that wrote the event (migration 0035); null with tracing off. */
  trace_parent?: string | null;
}

/**
 * The columns of an event, named: the archive (outbox_events_archive, migration 0012) has the same
 * ones, and the readers below take an event from either table.
 */
const EVENT_COLUMNS = `id, seq, order_id, desk_id, event, body, url, receiver, state, attempts, next_attempt_at, locked_by, locked_at, created_at, finished_at, sandbox`;
const ATTEMPT_COLUMNS = `id, event_id, order_id, attempt, outcome, http_code, response, error, at`;
const ATTEMPT_OF_A = `a.${ATTEMPT_COLUMNS.replaceAll(', ', ', a.')}`;

/** The order's events, oldest first, archived ones included. */
export async function listOrderEvents(q: Queryable, orderId: string): Promise<OutboxRow[]> {
  const { rows } = await q.query<OutboxRow>(
    `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE order_id = $1
     UNION ALL
     SELECT ${EVENT_COLUMNS} FROM outbox_events_archive WHERE order_id = $1
     ORDER BY seq`,
    [orderId],
  );
  return rows;
}

/** A claimed event with what sending it needs from its desk (null when the desk is gone). */
export interface ClaimedEvent extends OutboxRow {
  callbacks_enabled: boolean | null;
  secret_enc: string | null;
}

/**
 * Claims due events for one worker in one statement: SKIP LOCKED so concurrent workers never take
 * the same row, and no receiving host beyond the room it has left in this worker (`room`, per host;
 * `defaultRoom` for hosts not listed; a host with no room is not even scanned, so a backlog of one
 * host never hides the others' events). A claim older than `staleBefore` belongs to a worker that
 * stopped during the send: it is taken over, and the lost send is logged as an `interrupted`
 * attempt, because it may have reached the receiver.
 */
export async function claimDueEvents(
  q: Queryable,
  c: { me: string; now: Date; staleBefore: Date; limit: number; defaultRoom?: number; room?: ReadonlyMap<string, number> },
): Promise<ClaimedEvent[]> {
  const room = [...(c.room ?? new Map<string, number>())];
  const full = room.filter(([, n]) => n <= 0).map(([r]) => r);
  const partial = room.filter(([, n]) => n > 0);
  const { rows } = await q.query<ClaimedEvent>(
    `WITH candidates AS (
       SELECT id, coalesce(receiver, '') AS receiver, next_attempt_at, seq FROM outbox_events
        WHERE state = 'pending' AND next_attempt_at <= $2 AND (locked_by IS NULL OR locked_at < $3)
          AND coalesce(receiver, '') <> ALL($5::text[])
        ORDER BY next_attempt_at, seq LIMIT $4 * 2),
     fair AS (
       SELECT c.id FROM (
         SELECT c.*, row_number() OVER (PARTITION BY c.receiver ORDER BY c.next_attempt_at, c.seq) AS n FROM candidates c) c
         LEFT JOIN unnest($6::text[], $7::int[]) AS r(receiver, room) ON r.receiver = c.receiver
        WHERE c.n <= coalesce(r.room, $8)
        ORDER BY c.next_attempt_at, c.seq LIMIT $4),
     picked AS (
       SELECT id, locked_by AS lost_by, locked_at AS lost_at FROM outbox_events
        WHERE id IN (SELECT id FROM fair)
          AND state = 'pending' AND next_attempt_at <= $2 AND (locked_by IS NULL OR locked_at < $3)
        FOR UPDATE SKIP LOCKED),
     claimed AS (
       UPDATE outbox_events o SET locked_by = $1, locked_at = $2,
              attempts = o.attempts + CASE WHEN p.lost_by IS NULL THEN 0 ELSE 1 END
         FROM picked p WHERE o.id = p.id
       RETURNING o.*, p.lost_by, p.lost_at),
     lost AS (
       INSERT INTO callback_attempts (event_id, order_id, attempt, outcome, http_code, response, error, at)
       SELECT id, order_id, attempts, 'interrupted', NULL, NULL, 'sender ' || lost_by || ' stopped before recording the answer', lost_at
         FROM claimed WHERE lost_by IS NOT NULL ORDER BY seq)
     SELECT c.*, d.callbacks_enabled, d.secret_enc FROM claimed c LEFT JOIN desks d ON d.id = c.desk_id ORDER BY c.seq`,
    [c.me, c.now, c.staleBefore, c.limit, full, partial.map(([r]) => r), partial.map(([, n]) => n), c.defaultRoom ?? c.limit],
  );
  return rows;
}

/** Hands claims back unsent (claimed beyond a receiver's share, or a worker shutting down before sending). */
export async function releaseClaims(q: Queryable, me: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await q.query(`UPDATE outbox_events SET locked_by = NULL, locked_at = NULL WHERE id = ANY($2::text[]) AND locked_by = $1`, [
    me,
    ids,
  ]);
  return rowCount;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'rejected' | 'failed' | 'suppressed' | 'interrupted';

export interface FinishedAttempt {
  eventId: string;
  orderId: string;
  attempt: number;
  outcome: AttemptOutcome;
  httpCode: number | null;
  response: string | null;
  error: string | null;
  at: Date;
  /** When the next attempt is due (outcomes `retry` and `interrupted`); null when the event is done. */
  nextAttemptAt: Date | null;
}

/**
 * Records attempts and moves their events on, in one statement, only for events this worker still
 * holds; returns the ids recorded (an event taken over by another worker is not).
 */
export async function finishAttempts(q: Queryable, me: string, list: readonly FinishedAttempt[]): Promise<Set<string>> {
  if (list.length === 0) return new Set();
  const state = (o: AttemptOutcome) => (o === 'retry' || o === 'interrupted' ? 'pending' : o);
  const { rows } = await q.query<{ event_id: string }>(
    `WITH a AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[], $11::text[])
         WITH ORDINALITY AS a(event_id, order_id, attempt, outcome, http_code, response, error, at, next_at, state, n)),
     upd AS (
       UPDATE outbox_events o SET state = a.state, attempts = a.attempt, next_attempt_at = a.next_at, locked_by = NULL, locked_at = NULL,
              finished_at = CASE WHEN a.state = 'pending' THEN NULL ELSE a.at END
         FROM a WHERE o.id = a.event_id AND o.id = ANY($2::text[]) AND o.locked_by = $1
       RETURNING o.id)
     INSERT INTO callback_attempts (event_id, order_id, attempt, outcome, http_code, response, error, at)
     SELECT a.event_id, a.order_id, a.attempt, a.outcome, a.http_code, a.response, a.error, a.at
       FROM a JOIN upd ON upd.id = a.event_id ORDER BY a.n
     RETURNING event_id`,
    [
      me,
      list.map((e) => e.eventId),
      list.map((e) => e.orderId),
      list.map((e) => e.attempt),
      list.map((e) => e.outcome),
      list.map((e) => e.httpCode),
      list.map((e) => e.response),
      list.map((e) => e.error),
      list.map((e) => e.at.toISOString()),
      list.map((e) => (e.nextAttemptAt ? e.nextAttemptAt.toISOString() : null)),
      list.map((e) => state(e.outcome)),
    ],
  );
  return new Set(rows.map((r) => r.event_id));
}

export interface AttemptRow {
  id: number;
  event_id: string;
  event: EventKind;
  attempt: number;
  outcome: AttemptOutcome;
  http_code: number | null;
  response: string | null;
  error: string | null;
  at: Date;
}

/** The order's callback attempts, oldest first, those of archived events included (from the archive). */
export async function listOrderAttempts(q: Queryable, orderId: string): Promise<AttemptRow[]> {
  const { rows } = await q.query<AttemptRow>(
    `SELECT ${ATTEMPT_OF_A}, e.event FROM callback_attempts a JOIN outbox_events e ON e.id = a.event_id WHERE a.order_id = $1
     UNION ALL
     SELECT ${ATTEMPT_OF_A}, e.event FROM callback_attempts_archive a JOIN outbox_events_archive e ON e.id = a.event_id WHERE a.order_id = $1
     ORDER BY id`,
    [orderId],
  );
  return rows;
}

/** Age basis for the delivery-lag metric: the oldest attempt that is due now. */
export async function oldestDueAt(q: Queryable, now: Date): Promise<Date | null> {
  const { rows } = await q.query<{ due: Date | null }>(
    `SELECT min(next_attempt_at) AS due FROM outbox_events WHERE state = 'pending' AND next_attempt_at <= $1`,
    [now],
  );
  return rows[0]?.due ?? null;
}

/**
 * The desk's events, oldest first, after a cursor; optionally one order's, or only those not
 * delivered. Archived events (all of them delivered) are part of the feed: each table is read by
 * its (desk, seq) index up to the page's length and the two merged.
 */
export async function listDeskEvents(
  q: Queryable,
  f: { deskId: string; afterSeq: number; orderId: string | null; undeliveredOnly: boolean; limit: number },
): Promise<OutboxRow[]> {
  const where = (table: string) => sql`SELECT ${raw(EVENT_COLUMNS)} FROM ${raw(table)} WHERE desk_id = ${f.deskId} AND seq > ${f.afterSeq}${
    f.orderId === null ? raw('') : sql` AND order_id = ${f.orderId}`
  }${f.undeliveredOnly ? raw(` AND state <> 'delivered'`) : raw('')} ORDER BY seq LIMIT ${f.limit}`;
  const statement = f.undeliveredOnly
    ? where('outbox_events')
    : sql`SELECT * FROM ((${where('outbox_events')}) UNION ALL (${where('outbox_events_archive')})) e ORDER BY seq LIMIT ${f.limit}`;
  const { rows } = await query<OutboxRow>(q, statement);
  return rows;
}

/** One of the desk's events by id, archived or not. */
export async function getDeskEvent(q: Queryable, deskId: string, id: string): Promise<OutboxRow | null> {
  const { rows } = await q.query<OutboxRow>(
    `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE id = $1 AND desk_id = $2
     UNION ALL
     SELECT ${EVENT_COLUMNS} FROM outbox_events_archive WHERE id = $1 AND desk_id = $2`,
    [id, deskId],
  );
  return rows[0] ?? null;
}

/** An event whose delivery is failing, with its last attempt. */
export interface FailingEventRow extends OutboxRow {
  order_ref: string | null;
  last_outcome: AttemptOutcome | null;
  last_http_code: number | null;
  last_response: string | null;
  last_error: string | null;
  last_at: Date | null;
}

/**
 * The merchant's events that are not getting through: given up (`failed`), refused by the receiver
 * (`rejected`), or still retrying after a failed attempt; newest first, keyset-paged by `seq`.
 * Each of the merchant's desks gives at most a page of its newest such events (outbox_failing,
 * migration 0007: its predicate is the one below), and only the page kept is joined to its orders
 * and last attempts: the cost is desks × page, however many refused events years have left.
 */
export async function listFailingEvents(q: Queryable, merchantId: string, beforeSeq: number | null, limit: number): Promise<FailingEventRow[]> {
  const { rows } = await query<FailingEventRow>(
    q,
    sql`SELECT e.*, o.order_ref, a.outcome AS last_outcome, a.http_code AS last_http_code, a.response AS last_response, a.error AS last_error, a.at AS last_at
     FROM (
       SELECT e.* FROM desks d
         CROSS JOIN LATERAL (
           SELECT * FROM outbox_events x
            WHERE x.desk_id = d.id AND (x.state IN ('failed', 'rejected') OR (x.state = 'pending' AND x.attempts > 0))${beforeSeq === null ? raw('') : sql` AND x.seq < ${beforeSeq}`}
            ORDER BY x.seq DESC LIMIT ${limit}) e
        WHERE d.merchant_id = ${merchantId}
        ORDER BY e.seq DESC LIMIT ${limit}) e
     LEFT JOIN orders o ON o.id = e.order_id
     LEFT JOIN LATERAL (SELECT * FROM callback_attempts ca WHERE ca.event_id = e.id ORDER BY ca.id DESC LIMIT 1) a ON true
     ORDER BY e.seq DESC`,
  );
  return rows;
}

/**
 * Every failed or rejected event of the merchant's desks created at or after `since` is due again
 * now, under its own id: the delivery worker makes and records the new attempts (numbered on from
 * the last). Returns the ids. The NOTIFY wakes an idle worker when the caller commits.
 */
export async function redeliverFailedSince(q: Queryable, merchantId: string, since: Date, now: Date): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `UPDATE outbox_events e SET state = 'pending', next_attempt_at = $3, finished_at = NULL, locked_by = NULL, locked_at = NULL
     FROM desks d
     WHERE d.id = e.desk_id AND d.merchant_id = $1 AND e.state IN ('failed', 'rejected') AND e.created_at >= $2
     RETURNING e.id`,
    [merchantId, since, now],
  );
  if (rows.length > 0) await q.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  return rows.map((r) => r.id);
}

/**
 * Retention: up to `limit` delivered events created before `before`, the oldest first, leave the
 * hot tables with their attempts, in one statement (one short transaction, row locks only):
 * into the archive tables, or nowhere when `archive` is false. Events being worked on are skipped.
 * Returns how many events left.
 */
export async function retireDeliveredEvents(q: Queryable, f: { before: Date; limit: number; archive: boolean }): Promise<number> {
  const picked = `picked AS (
       SELECT id FROM outbox_events WHERE state = 'delivered' AND created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;
  const statement = f.archive
    ? `WITH ${picked},
       attempts AS (DELETE FROM callback_attempts a USING picked p WHERE a.event_id = p.id RETURNING ${ATTEMPT_OF_A}),
       kept AS (INSERT INTO callback_attempts_archive (${ATTEMPT_COLUMNS}) SELECT ${ATTEMPT_COLUMNS} FROM attempts),
       events AS (DELETE FROM outbox_events e USING picked p WHERE e.id = p.id RETURNING e.${EVENT_COLUMNS.replaceAll(', ', ', e.')})
     INSERT INTO outbox_events_archive (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM events`
    : `WITH ${picked},
       attempts AS (DELETE FROM callback_attempts a USING picked p WHERE a.event_id = p.id)
     DELETE FROM outbox_events e USING picked p WHERE e.id = p.id`;
  const { rowCount } = await q.query(statement, [f.before, f.limit]);
  return rowCount;
}
