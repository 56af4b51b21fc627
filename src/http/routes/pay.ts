import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { isoSeconds } from '../../domain/time.js';
import { fmt2 } from '../../domain/money.js';
import { paymentView } from '../../services/orderViews.js';
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
    const { rows } = await ctx.db.query<{ name: string }>('SELECT name FROM merchants WHERE id = $1', [o.merchant_id]);
    return sendOk(req, reply, {
      id: o.id,
      status: o.status,
      subStatus: o.sub_status,
      amount: fmt2(o.amount),
      currency: o.currency,
      method: o.method,
      rail: o.rail,
      payment: paymentView(o.payment),
      payerReference: o.payer_reference,
      expiresAt: isoSeconds(o.expires_at),
      successUrl: o.success_url ?? o.back_url,
      failUrl: o.fail_url ?? o.back_url,
      backUrl: o.back_url,
      merchant: { displayName: rows[0]?.name ?? null },
      sandbox: o.sandbox,
    });
  });
}
