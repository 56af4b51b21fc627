import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { payPageView } from '../../services/orderViews.js';
import { getMerchant } from '../../store/merchants.js';
import { getOrderById } from '../../store/orders.js';
import { sendOk, sendTooMany } from '../errors.js';

/**
 * Data for the customer's payment page. Unsigned, so it is rate limited per client IP and shows
 * nothing about the merchant beyond a display name; order ids carry 130 random bits.
 */
export async function payRoutes(pay: FastifyInstance, ctx: Ctx): Promise<void> {
  pay.get('/:id', async (req, reply) => {
    const page = await loadPayPage(ctx, req, reply);
    if (page === 'limited') return reply;
    if (!page) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    return sendOk(req, reply, page);
  });
}

/**
 * What both the data endpoint and the hosted page show, behind the per-IP limit: 'limited' when the
 * 429 has been sent, null for an unknown order.
 */
export async function loadPayPage(ctx: Ctx, req: FastifyRequest, reply: FastifyReply): Promise<PayPage | null | 'limited'> {
  const admission = await ctx.limits.payPage.take(req.ip);
  if (!admission.ok) {
    sendTooMany(reply, admission.retryAfterMs);
    return 'limited';
  }
  const id = (req.params as { id: string }).id;
  const o = id.startsWith('ord_') ? await getOrderById(ctx.db, id) : null;
  if (!o) return null;
  const merchant = await getMerchant(ctx.db, o.merchant_id);
  return payPageView(o, merchant?.name ?? null);
}

export type PayPage = ReturnType<typeof payPageView>;
