import type { Ctx } from '../context.js';
import { newId } from '../ids.js';
import type { Queryable } from '../store/db.js';
import { insertEvent, type EventKind } from '../store/outbox.js';
import type { OrderRow } from '../store/orders.js';
import { eventBody } from './orderViews.js';

/** Writes the order's event to the outbox inside the caller's transaction, to the URL captured at creation. */
export async function emitEvent(q: Queryable, ctx: Ctx, order: OrderRow, event: EventKind): Promise<string> {
  const at = ctx.clock.now();
  const id = newId('evt');
  await insertEvent(q, { id, orderId: order.id, deskId: order.desk_id, event, body: eventBody(order, event, at), url: order.notify_url, at: new Date(at) });
  return id;
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
