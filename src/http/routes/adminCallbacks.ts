import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { isoSeconds } from '../../domain/time.js';
import { currentStateEvent, emitEvent } from '../../services/events.js';
import { listOrderAttempts } from '../../store/outbox.js';
import { getOrderById } from '../../store/orders.js';
import { sendOk } from '../errors.js';

/** Callback attempt log and resend. */
export async function adminCallbackRoutes(admin: FastifyInstance, ctx: Ctx): Promise<void> {
  admin.get('/orders/:id/callbacks', async (req, reply) => {
    const id = (req.params as { id: string }).id;
    if (!(await getOrderById(ctx.db, id))) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
    const attempts = await listOrderAttempts(ctx.db, id);
    return sendOk(
      req,
      reply,
      attempts.map((a) => ({
        eventId: a.event_id,
        event: a.event,
        attempt: a.attempt,
        outcome: a.outcome,
        httpCode: a.http_code,
        response: a.response,
        error: a.error,
        at: isoSeconds(a.at),
      })),
    );
  });

  admin.post('/orders/:id/resend', async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const sent = await ctx.db.tx(async (q) => {
      const o = await getOrderById(q, id, { forUpdate: true });
      if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
      const event = currentStateEvent(o);
      return { eventId: await emitEvent(q, ctx, o, event), event, orderId: o.id, status: o.status };
    });
    return sendOk(req, reply, sent);
  });
}
