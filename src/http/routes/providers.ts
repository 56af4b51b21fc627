import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { verifyProviderMessage } from '../../providers/providerMessages.js';
import { applyProviderEvent } from '../../services/providerEvents.js';
import { getProvider } from '../../store/providers.js';
import { sendError } from '../errors.js';
import { rawBodyOf } from '../rawBody.js';

/**
 * Provider → gateway (operator-api.md, "Provider connector"): `POST /providers/v1/{providerId}/events`,
 * signed by the provider with its key and secret. Not signed by a cash desk, so no /gw/v1 hook runs.
 *
 * An id that is not an `http` provider is checked against a throwaway key and secret made at start,
 * so it fails exactly like a wrong signature (same code, same reasons, about the same time): a
 * caller cannot tell which provider ids exist.
 */
export async function providerRoutes(p: FastifyInstance, ctx: Ctx): Promise<void> {
  const decoy = { key: `decoy_${randomBytes(16).toString('hex')}`, secret: randomBytes(32).toString('hex') };

  p.post('/:providerId/events', async (req, reply) => {
    const providerId = (req.params as { providerId: string }).providerId;
    const raw = rawBodyOf(req.body);
    // The signature covers the raw bytes, and only the first 64 KiB are kept: a larger body cannot be checked.
    if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');

    const provider = await getProvider(ctx.db, providerId);
    const connected = provider !== null && provider.kind === 'http' && provider.api_key !== null && provider.secret_enc !== null;
    const verdict = verifyProviderMessage({
      headers: req.headers,
      rawBody: raw.bytes,
      expectedKey: connected ? provider.api_key! : decoy.key,
      secret: connected ? ctx.box.open(provider.secret_enc!) : decoy.secret,
      nowMs: ctx.clock.now(),
    });
    if (!verdict.ok) {
      req.log.warn({ providerId, reason: verdict.reason, status: verdict.status }, 'provider event refused');
      // The body is judged (400) only once the signature passed, so an unsigned caller learns nothing from it.
      return sendError(req, reply, verdict.status === 401 ? 'AUTH_FAILED' : 'VALIDATION_ERROR', verdict.reason);
    }
    // The decoy check passes only for a caller who guessed 32 random bytes; refused all the same.
    if (!connected) return sendError(req, reply, 'AUTH_FAILED', 'key or signature mismatch');

    const result = await applyProviderEvent(ctx, provider.id, verdict.eventId, verdict.event);
    req.log.info(
      { providerId, eventId: verdict.eventId, type: verdict.event.type, orderId: verdict.event.orderId, duplicate: result.duplicate },
      result.duplicate ? 'provider event already applied' : 'provider event applied',
    );
    return reply.code(200).send({
      status: 'ok',
      result: { eventId: verdict.eventId, duplicate: result.duplicate, ...(result.duplicate ? {} : { orderStatus: result.order.status }) },
      traceId: req.id,
    });
  });
}
