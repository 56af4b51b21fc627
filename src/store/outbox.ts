import type { Queryable } from './db.js';

export type EventKind = 'order.completed' | 'order.cancelled' | 'order.appealed' | 'order.updated';

/** An event with its exact body bytes and the URL captured at order creation; due for a first attempt at once. */
export async function insertEvent(
  q: Queryable,
  e: { id: string; orderId: string; deskId: string; event: EventKind; body: string; url: string | null; at: Date },
): Promise<void> {
  await q.query(
    `INSERT INTO outbox_events (id, order_id, desk_id, event, body, url, state, attempts, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7)`,
    [e.id, e.orderId, e.deskId, e.event, e.body, e.url, e.at],
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
  state: 'pending' | 'delivered' | 'rejected' | 'failed' | 'suppressed';
  attempts: number;
  next_attempt_at: Date | null;
  locked_by: string | null;
  locked_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
}

export async function listOrderEvents(q: Queryable, orderId: string): Promise<OutboxRow[]> {
  const { rows } = await q.query<OutboxRow>('SELECT * FROM outbox_events WHERE order_id = $1 ORDER BY seq', [orderId]);
  return rows;
}

/**
 * Claims due events for one worker: SKIP LOCKED so concurrent workers never take the same row, and a
 * claim older than `staleBefore` (a worker that died mid-send) is taken over.
 */
export async function claimDueEvents(q: Queryable, me: string, now: Date, staleBefore: Date, limit: number): Promise<OutboxRow[]> {
  const { rows } = await q.query<OutboxRow>(
    `UPDATE outbox_events SET locked_by = $1, locked_at = $2
      WHERE id IN (
        SELECT id FROM outbox_events
         WHERE state = 'pending' AND next_attempt_at <= $2 AND (locked_by IS NULL OR locked_at < $3)
         ORDER BY next_attempt_at, seq LIMIT $4 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [me, now, staleBefore, limit],
  );
  return rows.sort((a, b) => a.seq - b.seq);
}

export type AttemptOutcome = 'delivered' | 'retry' | 'rejected' | 'failed' | 'suppressed';

/** Records one attempt and moves the event on, only if this worker still holds the claim. */
export async function finishAttempt(
  q: Queryable,
  e: { eventId: string; orderId: string; me: string; attempt: number; outcome: AttemptOutcome; httpCode: number | null; response: string | null; error: string | null; at: Date; nextAttemptAt: Date | null },
): Promise<boolean> {
  const state = e.outcome === 'retry' ? 'pending' : e.outcome;
  const { rowCount } = await q.query(
    `UPDATE outbox_events SET state = $3, attempts = $4, next_attempt_at = $5, locked_by = NULL, locked_at = NULL,
       finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE $6::timestamptz END
     WHERE id = $1 AND locked_by = $2`,
    [e.eventId, e.me, state, e.attempt, e.nextAttemptAt, e.at],
  );
  if (rowCount !== 1) return false;
  await q.query(
    `INSERT INTO callback_attempts (event_id, order_id, attempt, outcome, http_code, response, error, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.eventId, e.orderId, e.attempt, e.outcome, e.httpCode, e.response, e.error, e.at],
  );
  return true;
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

export async function listOrderAttempts(q: Queryable, orderId: string): Promise<AttemptRow[]> {
  const { rows } = await q.query<AttemptRow>(
    `SELECT a.*, e.event FROM callback_attempts a JOIN outbox_events e ON e.id = a.event_id WHERE a.order_id = $1 ORDER BY a.id`,
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

/** The desk's events, oldest first, after a cursor; optionally one order's, or only those not delivered. */
export async function listDeskEvents(
  q: Queryable,
  f: { deskId: string; afterSeq: number; orderId: string | null; undeliveredOnly: boolean; limit: number },
): Promise<OutboxRow[]> {
  const { rows } = await q.query<OutboxRow>(
    `SELECT * FROM outbox_events WHERE desk_id = $1 AND seq > $2
       AND ($3::text IS NULL OR order_id = $3) AND (NOT $4::boolean OR state <> 'delivered')
     ORDER BY seq LIMIT $5`,
    [f.deskId, f.afterSeq, f.orderId, f.undeliveredOnly, f.limit],
  );
  return rows;
}

export async function getDeskEvent(q: Queryable, deskId: string, id: string): Promise<OutboxRow | null> {
  const { rows } = await q.query<OutboxRow>('SELECT * FROM outbox_events WHERE id = $1 AND desk_id = $2', [id, deskId]);
  return rows[0] ?? null;
}
