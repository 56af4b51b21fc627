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
