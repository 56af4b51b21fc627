import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { getPayPage, reportPayerReference } from '../../services/payPage.js';
import { sendOk } from '../../server/errors.js';
import { IdParam, routeSchema } from '../../schemas/common.js';
import { PayerReferenceBody, PayPage } from '../../schemas/gateway.js';

const TOO_MANY = { 429: { description: 'rate limited per client IP: empty body', headers: { 'Retry-After': { type: 'integer', description: 'seconds' } } } };

/**
 * Data for the customer's payment page. Unsigned, so it is rate limited per client IP (a hook of
 * this surface, before anything is read) and shows nothing about the merchant beyond a display name;
 * order ids carry 130 random bits.
 */
export function payRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  return async (pay) => {
    pay.get(
      '/:id',
      {
        schema: routeSchema({
          tags: ['payment page'],
          security: [],
          operationId: 'getPayPage',
          summary: 'Payment page data',
          description: 'Limited to 100 requests per 10 s per client IP, 10 queued. A closed order shows no payment details.',
          params: IdParam('`ord_` id'),
          ok: { status: 200, result: PayPage, description: 'what the customer needs to pay' },
          errors: ['VALIDATION_ERROR', 'ORDER_NOT_FOUND', 'PAYLOAD_TOO_LARGE'],
          extra: TOO_MANY,
        }),
      },
      async (req, reply) => {
        const page = await getPayPage(ctx, req.params.id);
        if (!page) throw new AppError('ORDER_NOT_FOUND', 'no such order');
        return sendOk(req, reply, page);
      },
    );

    pay.post(
      '/:id/payer-reference',
      {
        schema: routeSchema({
          tags: ['payment page'],
          security: [],
          operationId: 'reportPayerReference',
          summary: 'The customer reports the reference of a payment',
          description:
            'Checked per rail before it is stored: for rail `Upi` a UTR of exactly 12 digits; for other rails (and methods without rails) 4 to 40 letters, digits, `-` or `/`; ' +
            'surrounding spaces trimmed; otherwise `400 VALIDATION_ERROR`. Taken until the order is paid: on `Created` orders and on expired or cancelled ones ' +
            '(a late payment, for reconciliation), the latest report replacing the one on record. A paid order keeps its reference: `Payed` answers ' +
            '`409 ORDER_ALREADY_PAID`, `Completed` `409 ORDER_ALREADY_COMPLETED`, `Dispute` `409 ORDER_IN_DISPUTE`. Limited to 10 per minute per client IP.',
          params: IdParam('`ord_` id'),
          body: PayerReferenceBody,
          ok: { status: 200, result: PayPage, description: 'the page data with the stored reference' },
          errors: ['VALIDATION_ERROR', 'ORDER_NOT_FOUND', 'ORDER_ALREADY_PAID', 'ORDER_ALREADY_COMPLETED', 'ORDER_IN_DISPUTE', 'PAYLOAD_TOO_LARGE'],
          extra: TOO_MANY,
        }),
      },
      async (req, reply) => {
        const reported = await reportPayerReference(ctx, req.params.id, req.body.payerReference);
        if (!reported.ok) throw new AppError(reported.refusal.code, reported.refusal.detail);
        return sendOk(req, reply, reported.value);
      },
    );
  };
}
