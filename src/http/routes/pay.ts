import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { getPayPage } from '../../services/payPage.js';
import { sendOk, sendTooMany } from '../errors.js';

/**
 * Data for the customer's payment page. Unsigned, so it is rate limited per client IP and shows
 * nothing about the merchant beyond a display name; order ids carry 130 random bits.
 */
export async function payRoutes(pay: FastifyInstance, ctx: Ctx): Promise<void> {
  pay.get('/:id', async (req, reply) => {
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const page = await getPayPage(ctx, (req.params as { id: string }).id);
    if (!page) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    return sendOk(req, reply, page);
  });
}
