import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { handleError, sendError } from './errors.js';
import { registerRawBodyParser } from './rawBody.js';
import { registerHealthRoutes, type HealthOptions } from './health.js';
import { gatewayAuthHook } from './gatewayAuth.js';
import { adminAuthHook } from './adminAuth.js';
import { gatewayRoutes } from './routes/gateway.js';
import { adminRoutes } from './routes/admin.js';
import { adminOperationRoutes } from './routes/adminOperations.js';
import { adminAppealRoutes } from './routes/adminAppeals.js';
import { adminCallbackRoutes } from './routes/adminCallbacks.js';
import { gatewayAppealRoutes } from './routes/gatewayAppeals.js';
import { gatewayEventRoutes } from './routes/gatewayEvents.js';
import { payRoutes } from './routes/pay.js';
import { payerReferenceRoutes } from './routes/payerReference.js';
import { payPageRoutes } from './routes/payPage.js';
import { providerRoutes } from './routes/providers.js';

export type AppOptions = HealthOptions;

/** Builds the HTTP app without listening: tests call inject(), main() calls listen(). */
export function buildApp(ctx: Ctx, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: () => randomBytes(12).toString('hex'),
    // One line per request is written by the onResponse hook below, with the route and the trace id.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    trustProxy: ctx.config.trustProxy,
    return503OnClosing: true,
    // Orders are read by orderRef (up to 255 characters, longer once percent-encoded).
    routerOptions: { maxParamLength: 2048 },
    // Errors raised by the router itself (bad URL encoding, oversized parameters) get the same envelope.
    frameworkErrors: (err, req, reply) => handleError(err, req, reply),
  });
  app.decorateRequest('desk', null);
  registerRawBodyParser(app);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Trace-Id', req.id);
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    ctx.metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    ctx.metrics.httpLatency.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    req.log.info({ method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  app.setErrorHandler((err, req, reply) => handleError(err, req, reply));
  app.setNotFoundHandler((req, reply) => sendError(req, reply, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));

  registerHealthRoutes(app, ctx, opts);

  app.register(
    async (gw) => {
      gw.addHook('preValidation', gatewayAuthHook(ctx));
      await gatewayRoutes(gw, ctx);
      await gatewayAppealRoutes(gw, ctx);
      await gatewayEventRoutes(gw, ctx);
    },
    { prefix: '/gw/v1' },
  );
  app.register(
    async (admin) => {
      admin.addHook('preValidation', adminAuthHook(ctx));
      await adminRoutes(admin, ctx);
      await adminOperationRoutes(admin, ctx);
      await adminAppealRoutes(admin, ctx);
      await adminCallbackRoutes(admin, ctx);
    },
    { prefix: '/admin/v1' },
  );
  app.register(
    async (pay) => {
      await payRoutes(pay, ctx);
      await payerReferenceRoutes(pay, ctx);
    },
    { prefix: '/api/pay' },
  );
  app.register(async (p) => providerRoutes(p, ctx), { prefix: '/providers/v1' });
  app.register(async (p) => payPageRoutes(p, ctx));
  return app;
}
