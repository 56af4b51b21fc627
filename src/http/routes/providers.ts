import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Ctx } from '../../context.js';
import { receiveProviderEvent } from '../../services/providerEvents.js';
import { sendError, sendOk } from '../../server/errors.js';
import { PROVIDER_SECURITY } from '../openapi.js';
import { routeSchema } from '../../schemas/common.js';
import { isJsonRequest, rawBodyOf } from '../../server/rawBody.js';

// The rules of providerMessages.ts `parseProviderEvent`, which answers 400 VALIDATION_ERROR for a body that breaks them.
export const ProviderEventBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 128, description: 'the `ord_` id the provider was asked with' }),
    type: Type.Unsafe<string>({ type: 'string', enum: ['paid', 'confirmed', 'rejected', 'revoked'], description: 'paid = report-payment, confirmed = confirm, rejected = reject, revoked = reverse' }),
    payerReference: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], minLength: 1, maxLength: 255, description: 'the payer\'s reference (a UPI UTR), stored on `paid`' })),
  },
  { title: 'ProviderEventRequest', description: 'checked by the service once the signature passed; an unknown field is refused' },
);

/**
 * Provider → gateway: `POST /providers/v1/{providerId}/events`, signed by the provider with its key
 * and secret over the raw bytes. The body is judged only once the signature passed, so an unsigned
 * caller learns nothing from it; the schema here documents the body, the service checks it.
 */
export function providerRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  return async (p) => {
    p.post(
      '/:providerId/events',
      {
        schema: {
          ...routeSchema({
            security: PROVIDER_SECURITY,
            tags: ['providers'],
            operationId: 'providerEvent',
            summary: 'A payment event from an external provider',
            description: 'Idempotent by `X-Gate-Event-Id`: a repeat answers `duplicate: true` and changes nothing.',
            params: Type.Object({ providerId: Type.String({ description: '`prv_` id' }) }),
            ok: {
              status: 200,
              result: Type.Object({ eventId: Type.String(), duplicate: Type.Boolean(), orderStatus: Type.Optional(Type.String()) }),
              description: 'applied now or before',
            },
            errors: ['AUTH_FAILED', 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'ORDER_NOT_FOUND', 'ORDER_ALREADY_COMPLETED', 'NOTHING_TO_REVERSE', 'INVALID_TRANSITION', 'PAYLOAD_TOO_LARGE'],
          }),
          // Documented, not validated here: the body is checked after the signature, by the service.
          'x-request-body': ProviderEventBody,
        },
      },
      async (req, reply) => {
        const raw = rawBodyOf(req.body);
        if (!isJsonRequest(req.headers['content-type'], raw)) return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
        // The signature covers the raw bytes, and only the first 64 KiB are kept: a larger body cannot be checked.
        if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');
        const r = await receiveProviderEvent(ctx, req.params.providerId, req.headers, raw.bytes);
        if (!r.ok) return sendError(req, reply, r.code, r.detail);
        return sendOk(req, reply, { eventId: r.eventId, duplicate: r.duplicate, ...(r.orderStatus ? { orderStatus: r.orderStatus } : {}) });
      },
    );
  };
}
