import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { isoOrNull, isoSeconds } from '../../domain/time.js';
import { findDeskOrder } from '../../store/orders.js';
import { getDeskEvent, listDeskEvents } from '../../store/outbox.js';
import { sendOk } from '../errors.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/**
 * GET /gw/v1/events: every event of the calling desk, oldest first, paged by an `after` event id, so a
 * merchant whose server was down past the retry schedule recovers everything it missed.
 */
export async function gatewayEventRoutes(gw: FastifyInstance, ctx: Ctx): Promise<void> {
  gw.get('/events', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    for (const k of ['after', 'orderId', 'delivered', 'limit']) {
      if (q[k] !== undefined && typeof q[k] !== 'string') throw new AppError('VALIDATION_ERROR', `${k}: must be given once`);
    }
    const desk = req.desk!;
    let afterSeq = 0;
    if (q.after) {
      const e = await getDeskEvent(ctx.db, desk.id, q.after as string);
      if (!e) throw new AppError('VALIDATION_ERROR', 'after: unknown event id');
      afterSeq = e.seq;
    }
    let orderId: string | null = null;
    if (q.orderId) {
      const o = await findDeskOrder(ctx.db, desk.id, q.orderId as string);
      if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${q.orderId}`);
      orderId = o.id;
    }
    if (q.delivered !== undefined && q.delivered !== 'false') throw new AppError('VALIDATION_ERROR', 'delivered: only delivered=false is supported');
    let limit = DEFAULT_LIMIT;
    if (q.limit !== undefined) {
      if (!/^\d+$/.test(q.limit as string) || Number(q.limit) < 1 || Number(q.limit) > MAX_LIMIT) {
        throw new AppError('VALIDATION_ERROR', `limit: must be an integer from 1 to ${MAX_LIMIT}`);
      }
      limit = Number(q.limit);
    }
    const rows = await listDeskEvents(ctx.db, { deskId: desk.id, afterSeq, orderId, undeliveredOnly: q.delivered === 'false', limit: limit + 1 });
    const page = rows.slice(0, limit);
    return sendOk(req, reply, {
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
    });
  });
}
