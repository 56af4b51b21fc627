import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { sendOk } from '../errors.js';
import { balanceOf, methodsFor, ratesFor } from '../../services/gatewayReads.js';
import { AppError } from '../../domain/errors.js';
import { createOrder } from '../../services/createOrder.js';
import { cancelByMerchant } from '../../services/orderActions.js';
import { createView, orderView } from '../../services/orderViews.js';
import { findDeskOrder } from '../../store/orders.js';
import { sendTooMany } from '../errors.js';
import { field, jsonBody } from '../validate.js';

export async function gatewayRoutes(gw: FastifyInstance, ctx: Ctx): Promise<void> {
  gw.get('/methods', async (req, reply) => sendOk(req, reply, await methodsFor(ctx, req.desk!)));

  gw.get('/rates', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const filter = q.currency;
    if (filter !== undefined && typeof filter !== 'string') throw new AppError('VALIDATION_ERROR', 'currency: must be given once');
    return sendOk(req, reply, await ratesFor(ctx, req.desk!, filter));
  });

  gw.get('/balance', async (req, reply) => sendOk(req, reply, await balanceOf(ctx, req.desk!)));

  gw.post('/orders', async (req, reply) => {
    // 30 per 10 s per desk key, 5 queued; counted after authentication so nobody can spend a desk's quota.
    const admission = await ctx.limits.orderCreate.take(req.desk!.key);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const order = await createOrder(ctx, req.desk!, jsonBody(req.body));
    return sendOk(req, reply, createView(order), 201);
  });

  gw.get('/orders/:id', async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const order = await findDeskOrder(ctx.db, req.desk!.id, id);
    if (!order) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
    return sendOk(req, reply, orderView(order));
  });

  gw.post('/orders/:id/cancel', async (req, reply) => {
    const b = jsonBody(req.body);
    const reason = field.string(b, 'reason', { nullable: true, max: 500 }) ?? null;
    const order = await cancelByMerchant(ctx, req.desk!.id, (req.params as { id: string }).id, reason);
    return sendOk(req, reply, orderView(order));
  });
}
