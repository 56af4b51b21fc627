import type { FastifyInstance } from 'fastify';
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
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const id = (req.params as { id: string }).id;
    const o = id.startsWith('ord_') ? await getOrderById(ctx.db, id) : null;
    if (!o) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    const merchant = await getMerchant(ctx.db, o.merchant_id);
    return sendOk(req, reply, payPageView(o, merchant?.name ?? null));
  });
}
