import Fastify, { type FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { readiness, type HealthOptions } from '../services/health.js';

export type { HealthOptions };

/** GET /healthz (liveness) and GET /readyz (readiness: database, migrations, Redis, not shutting down). */
export function registerHealthRoutes(app: FastifyInstance, ctx: Ctx, opts: HealthOptions): void {
  app.get('/healthz', async (_req, reply) => {
    const ready = opts.ready ? opts.ready() : true;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'starting' });
  });
  app.get('/readyz', async (_req, reply) => {
    const r = await readiness(ctx, opts);
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'unavailable', failing: r.failing, checks: r.checks });
  });
}

/** Prometheus metrics on a listener of their own (METRICS_PORT), never on the public one. */
export function buildMetricsApp(ctx: Ctx): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => {
    reply.header('Content-Type', ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
  return app;
}
