import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { sendTooMany } from '../server/errors.js';
import { parseJsonBodyHook } from '../server/rawBody.js';
import { registerHealthRoutes, type HealthOptions } from './health.js';
import { gatewayAuthHook } from './gatewayAuth.js';
import { adminAuthHook } from './adminAuth.js';
import { gatewayRoutes } from './routes/gateway.js';
import { webhookEndpointRoutes } from './routes/webhookEndpoints.js';
import { adminRoutes } from './routes/admin.js';
import { payRoutes } from './routes/pay.js';
import { providerRoutes } from './routes/providers.js';
import { registerOpenApi } from './openapi.js';
import { docsRoutes } from './docs.js';

/**
 * Every JSON path: health, the OpenAPI document and its docs page, the merchant API, the operator
 * API, the payment page's data and the providers' connector. Answers a getter of the OpenAPI
 * document (ready once the app is).
 */
export async function apiRoutes(root: FastifyInstance, ctx: Ctx, opts: HealthOptions, version: string): Promise<() => Record<string, unknown>> {
  await registerOpenApi(root, version);
  const document = () => root.swagger() as unknown as Record<string, unknown>;

  // Liveness and readiness; metrics are served on METRICS_PORT, never here.
  registerHealthRoutes(root, ctx, opts);
  await root.register(docsRoutes(version));

  await root.register(
    async (gw) => {
      gw.addHook('preValidation', gatewayAuthHook(ctx));
      gw.addHook('preValidation', parseJsonBodyHook());
      await gw.register(gatewayRoutes(ctx));
      await gw.register(webhookEndpointRoutes(ctx));
    },
    { prefix: '/gw/v1' },
  );
  await root.register(
    async (admin) => {
      admin.addHook('preValidation', adminAuthHook(ctx));
      admin.addHook('preValidation', parseJsonBodyHook());
      await admin.register(adminRoutes(ctx));
    },
    { prefix: '/admin/v1' },
  );
  await root.register(
    async (pay) => {
      pay.addHook('preValidation', payRateLimitHook(ctx));
      pay.addHook('preValidation', parseJsonBodyHook());
      await pay.register(payRoutes(ctx));
    },
    { prefix: '/api/pay' },
  );
  await root.register(providerRoutes(ctx), { prefix: '/providers/v1' });
  return document;
}

/** Per client IP, before anything else is read: 100 per 10 s for the page data, 10 per minute for UTR reports. */
function payRateLimitHook(ctx: Ctx) {
  return async function limitPayPage(req: FastifyRequest, reply: FastifyReply) {
    const limiter = req.method === 'POST' ? ctx.limits.payerReference : ctx.limits.payPage;
    const admission = await limiter.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
  };
}
