import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { reportPayerReference } from '../../services/payPage.js';
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
    const reported = await reportPayerReference(ctx, (req.params as { id: string }).id, jsonBody(req.body).payerReference);
    if (!reported.ok) throw new AppError(reported.refusal.code, reported.refusal.detail);
    return sendOk(req, reply, reported.value);
  });
}
