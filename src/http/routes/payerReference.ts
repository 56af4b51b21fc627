import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { payPageView } from '../../services/orderViews.js';
import { parsePayerReference, recordPayerReference } from '../../services/providerEvents.js';
import { getMerchant } from '../../store/merchants.js';
import { sendOk, sendTooMany } from '../errors.js';
import { rawBodyOf } from '../rawBody.js';
import { jsonBody } from '../validate.js';

/**
 * POST /api/pay/{id}/payer-reference `{payerReference}`: the customer reports the UTR of a Upi
 * payment. Unsigned like the page itself, so it is rate limited per client IP, before anything
 * else is read; the answer is the payment page's fields with the stored reference.
 */
export async function payerReferenceRoutes(pay: FastifyInstance, ctx: Ctx): Promise<void> {
  pay.post('/:id/payer-reference', async (req, reply) => {
    const admission = await ctx.limits.payerReference.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    if (rawBodyOf(req.body).tooLarge) throw new AppError('PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');
    const ref = parsePayerReference(jsonBody(req.body).payerReference);
    if (ref === null) throw new AppError('VALIDATION_ERROR', 'payerReference: must be 1 to 64 letters and digits (a UPI UTR is 12 digits)');
    const id = (req.params as { id: string }).id;
    const o = await recordPayerReference(ctx, id, ref);
    const merchant = await getMerchant(ctx.db, o.merchant_id);
    return sendOk(req, reply, payPageView(o, merchant?.name ?? null));
  });
}
