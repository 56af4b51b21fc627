import type { Ctx } from '../context.js';
import { newHistoryId } from '../ids.js';
import type { Queryable } from '../store/db.js';
import { getDeskEvent, insertEvents, listDeskEvents, listFailingEvents, listOrderAttempts, redeliverFailedSince, type EventKind } from '../store/outbox.js';
import { insertAuditEntry } from '../store/audit.js';
import { findDeskOrder, findScopedOrder, getOrderById, type OrderRow, type OrderScope } from '../store/orders.js';
import { AppError } from '../domain/errors.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { activeTraceParent } from '../telemetry/index.js';
import { eventBody } from './orderViews.js';

/** The outbox record of the order's event at `at`, to the URL captured at creation. */
function eventOf(order: OrderRow, event: EventKind, at: number) {
  return { id: newHistoryId('evt', at), orderId: order.id, deskId: order.desk_id, event, body: eventBody(order, event, at), url: order.notify_url, at: new Date(at), sandbox: order.sandbox };
}

/** Writes the order's event to the outbox inside the caller's transaction, to the URL captured at creation. */
export async function emitEvent(q: Queryable, ctx: Ctx, order: OrderRow, event: EventKind): Promise<string> {
  const e = eventOf(order, event, ctx.clock.now());
  await insertEvents(q, [e], activeTraceParent());
  return e.id;
}

/** `emitEvent` for several orders in one statement, in the order given. */
export async function emitEvents(q: Queryable, ctx: Ctx, orders: readonly OrderRow[], event: EventKind): Promise<void> {
  const at = ctx.clock.now();
  await insertEvents(q, orders.map((o) => eventOf(o, event, at)), activeTraceParent());
}

/** The event that states an order's current status (Events table: order.updated for open orders). */
export function currentStateEvent(o: OrderRow): EventKind {
  switch (o.status) {
    case 'Completed':
      return 'order.completed';
    case 'Canceled':
      return 'order.cancelled';
    case 'Dispute':
      return 'order.appealed';
    default:
      return 'order.updated';
  }
}

/** A desk's events feed query (`GET /gw/v1/events`). */
export interface EventsQuery {
  after?: string;
  orderId?: string;
  delivered?: 'false';
  limit?: number;
}

/**
 * Every event of the desk, oldest first, paged by an `after` event id, so a merchant whose server
 * was down past the retry schedule recovers everything it missed.
 */
export async function eventsFeed(ctx: Ctx, deskId: string, query: EventsQuery) {
  let afterSeq = 0;
  if (query.after) {
    const e = await getDeskEvent(ctx.db, deskId, query.after);
    if (!e) throw new AppError('VALIDATION_ERROR', 'after: unknown event id');
    afterSeq = e.seq;
  }
  let orderId: string | null = null;
  if (query.orderId) {
    const o = await findDeskOrder(ctx.db, deskId, query.orderId);
    if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${query.orderId}`);
    orderId = o.id;
  }
  const limit = query.limit ?? 100;
  const rows = await listDeskEvents(ctx.db, { deskId, afterSeq, orderId, undeliveredOnly: query.delivered === 'false', limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    events: page.map((e) => ({
      id: e.id,
      event: e.event,
      orderId: e.order_id,
      createdAt: isoSeconds(e.created_at),
      // The body exactly as it was (or will be) signed and sent; verify or parse it like a callback.
      body: e.body,
      delivery: {
        state: e.state,
        attempts: e.attempts,
        nextAttemptAt: e.state === 'pending' ? isoOrNull(e.next_attempt_at) : null,
        finishedAt: isoOrNull(e.finished_at),
      },
    })),
    hasMore: rows.length > limit,
    next: page.length ? page[page.length - 1].id : null,
  };
}

/** The callback attempt log of an order seen from a scope, oldest first. */
export async function orderCallbackLog(ctx: Ctx, scope: OrderScope, id: string) {
  const o = await findScopedOrder(ctx.db, scope, id);
  if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
  const attempts = await listOrderAttempts(ctx.db, o.id);
  return attempts.map((a) => ({
    eventId: a.event_id,
    event: a.event,
    attempt: a.attempt,
    outcome: a.outcome,
    httpCode: a.http_code,
    response: a.response,
    error: a.error,
    at: isoSeconds(a.at),
  }));
}

/** Resend: the order's current state as a new event with a new event id (operators, the merchant's cabinet). */
export async function resendOrder(ctx: Ctx, scope: OrderScope, id: string) {
  const found = await findScopedOrder(ctx.db, scope, id);
  if (!found) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
  return ctx.db.tx(async (q) => {
    const o = (await getOrderById(q, found.id, { forUpdate: true }))!;
    const event = currentStateEvent(o);
    return { eventId: await emitEvent(q, ctx, o, event), event, orderId: o.id, status: o.status };
  });
}

/** The cabinet's callbacks page: failing deliveries across the merchant's desks, newest first. */
export async function failingDeliveries(ctx: Ctx, merchantId: string, query: { before?: string; limit: number }) {
  if (query.before !== undefined && !/^\d{1,18}$/.test(query.before)) throw new AppError('VALIDATION_ERROR', 'before: an event position');
  const rows = await listFailingEvents(ctx.db, merchantId, query.before ? Number(query.before) : null, query.limit + 1);
  const kept = rows.slice(0, query.limit);
  return {
    items: kept.map((e) => ({
      eventId: e.id,
      event: e.event,
      orderId: e.order_id,
      orderRef: e.order_ref,
      deskId: e.desk_id,
      url: e.url,
      state: e.state,
      attempts: e.attempts,
      nextAttemptAt: e.state === 'pending' ? isoOrNull(e.next_attempt_at) : null,
      createdAt: isoSeconds(e.created_at),
      last: e.last_at
        ? { outcome: e.last_outcome, httpCode: e.last_http_code, response: e.last_response, error: e.last_error, at: isoSeconds(e.last_at) }
        : null,
    })),
    next: rows.length > query.limit && kept.length ? String(kept[kept.length - 1]!.seq) : null,
  };
}

/**
 * "Redeliver every failed event since a time": the merchant's failed and rejected events created
 * since then are due again under their own ids; the worker records the new attempts. The request
 * itself is recorded in the audit trail (actor: the user) in the same transaction.
 */
export async function redeliverFailed(ctx: Ctx, merchantId: string, actorId: string, since: Date) {
  if (Number.isNaN(since.getTime())) throw new AppError('VALIDATION_ERROR', 'since: a date and time');
  const now = new Date(ctx.clock.now());
  if (since.getTime() > now.getTime()) throw new AppError('VALIDATION_ERROR', 'since: must not be in the future');
  const eventIds = await ctx.db.tx(async (q) => {
    const ids = await redeliverFailedSince(q, merchantId, since, now);
    await insertAuditEntry(q, { at: now, actor: actorId, action: 'callbacks.redeliver', objectId: merchantId, outcome: 'ok', detail: `${ids.length} events since ${isoSeconds(since)}` });
    return ids;
  });
  return { eventIds, since: isoSeconds(since) };
}
