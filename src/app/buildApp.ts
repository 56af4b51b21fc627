import { randomHex } from '../ids.js';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Ctx } from '../context.js';
import { answerClientError, handleError, sendError } from '../server/errors.js';
import { registerRawBodyParser } from '../server/rawBody.js';
import type { HealthOptions } from '../services/health.js';
import { apiRoutes } from '../http/api.js';
import { adminAuthHook } from '../http/adminAuth.js';
import { reconciliationOffice } from '../reconciliation/pages/index.js';
import { reconciliationRoutes } from '../reconciliation/routes.js';
import { alertRoutes } from '../alerts/routes.js';
import { alertPages, alertsNav } from '../alerts/pages.js';
import { webRoutes } from '../web/routes.js';
import { shareCompiledSchemas } from '../server/compiledSchemas.js';
import { schemaErrorFormatter } from '../server/schemaErrors.js';
import { activeTraceId } from '../telemetry/index.js';

export type AppOptions = HealthOptions;

/** Every route the app serves, as registered: the shared authentication suites walk this list. */
export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    paygateRoutes: RouteEntry[];
    /** The OpenAPI document generated from the route schemas (after ready()). */
    openapiDocument(): Record<string, unknown>;
  }
}

export const API_VERSION = '1.0.0';

/** Builds the HTTP app without listening: tests call inject(), main() calls listen(). */
export function buildApp(ctx: Ctx, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: () => randomHex(12),
    // One line per request is written by the onResponse hook below, with the route and the trace id.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    // While the app closes, requests still arriving on open connections answer our own 503
    // envelope (the onRequest hook below), not Fastify's bare body.
    return503OnClosing: false,
    // A request must arrive whole within REQUEST_TIMEOUT_SECONDS (headers and body): a client that
    // opens a body and never finishes it is answered 408 and dropped instead of holding a socket
    // and a file descriptor for ever. Node checks open requests every connectionsCheckingInterval.
    requestTimeout: ctx.config.requestTimeoutMs,
    http: {
      // A HTTP/1.1 request without Host is refused by the onRequest hook below, in the envelope,
      // instead of by Node with an empty body.
      requireHostHeader: false,
      headersTimeout: Math.min(60_000, ctx.config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(ctx.config.requestTimeoutMs / 4))),
    },
    // Orders are read by orderRef (up to 255 characters, longer once percent-encoded).
    routerOptions: { maxParamLength: 2048 },
    // Errors raised by the router itself (bad URL encoding, oversized parameters) get the same envelope.
    frameworkErrors: (err, req, reply) => handleError(err, req, reply),
    // Requests Node's parser refuses before any route sees them get the envelope too.
    clientErrorHandler: (err, socket) => answerClientError(ctx, err, socket),
    schemaErrorFormatter,
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (ctx.config.trustProxy === true) {
    ctx.log.warn(
      'TRUST_PROXY=true believes every X-Forwarded-For entry, so a client can choose its own address and walk around the per-IP limits; in production set TRUST_PROXY to the proxies\' addresses (for example 10.0.0.5 or 10.0.0.0/8)',
    );
  }
  shareCompiledSchemas(app as unknown as FastifyInstance);
  app.decorateRequest('desk', null);
  app.decorateRequest('merchant', null);
  app.decorateRequest('catalogVersions', null);
  app.decorateRequest('pendingAuth', null);
  app.decorateRequest('rawBody', null);
  app.decorateRequest('actor', null);
  const routes: RouteEntry[] = [];
  app.decorate('paygateRoutes', routes);
  let document: (() => Record<string, unknown>) | null = null;
  app.decorate('openapiDocument', () => {
    if (!document) throw new Error('the app is not ready');
    return document();
  });
  app.addHook('onRoute', (r) => {
    for (const method of ([] as string[]).concat(r.method)) if (method !== 'HEAD') routes.push({ method, url: r.url });
  });
  registerRawBodyParser(app);

  // Callback-style (not async) hooks: they run on every request, and do nothing that waits.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    // With tracing on, the request's span is open by now (@fastify/otel's hook runs first): its
    // trace id becomes the request's, in the answer, the envelope and the log lines.
    const traced = activeTraceId();
    if (traced !== null && traced !== req.id) {
      req.id = traced;
      req.log = reply.log = ctx.log.child({ traceId: traced }) as FastifyBaseLogger;
    }
    reply.header('X-Trace-Id', req.id).header('X-Content-Type-Options', 'nosniff');
    if (req.raw.httpVersion === '1.1' && !req.headers.host) return sendError(req, reply, 'VALIDATION_ERROR', 'an HTTP/1.1 request needs a Host header');
    if (!closing) return done();
    reply.header('Connection', 'close');
    sendError(req, reply, 'SERVICE_UNAVAILABLE', 'this instance is shutting down; send the request again');
  });
  // Once shutdown began, every answer closes its connection: a keep-alive connection whose request
  // was still running when the listener closed would otherwise hold the shutdown until the client
  // dropped it.
  if (opts.shuttingDown) {
    const shuttingDown = opts.shuttingDown;
    app.addHook('onSend', (_req, reply, payload, done) => {
      if (shuttingDown()) reply.header('Connection', 'close');
      done(null, payload);
    });
  }
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    ctx.metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    ctx.metrics.httpLatency.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    req.log.info({ method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  app.setErrorHandler((err, req, reply) => handleError(err, req, reply));
  app.setNotFoundHandler((req, reply) => sendError(req, reply, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));

  app.register(async (root) => {
    // The API and the pages are peers over the same services: neither imports the other.
    document = await apiRoutes(root, ctx, opts, API_VERSION);
    await root.register(reconciliationRoutes(ctx, { adminAuth: adminAuthHook(ctx) }));
    await root.register(alertRoutes(ctx, { adminAuth: adminAuthHook(ctx) }));
    // The reconciliation room's pages join the back office; the pages never import that room.
    // The alerts page joins them, its count under the queues after the reconciliation room's.
    const office = { ...reconciliationOffice, pages: [...(reconciliationOffice.pages ?? []), alertPages], nav: [...(reconciliationOffice.nav ?? []), alertsNav] };
    await root.register(async (p) => webRoutes(p, ctx, office));
  });
  return app as unknown as FastifyInstance;
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count is given as the function Fastify itself makes of a
 * number (trust the first n hops), because its types leave numbers out.
 */
function trustProxyOption(t: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof t === 'number') return (_address, hop) => hop < t;
  return typeof t === 'object' ? [...t] : t;
}
