/**
 * OpenTelemetry itself, loaded only when tracing is on (index.ts imports this file dynamically).
 * The SDK reads its own OTEL_* variables: the endpoint and headers of the exporter, the batch
 * processor's delays and sizes, the sampler, the resource attributes, OTEL_SERVICE_NAME.
 */
import { register } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { sqlOperation, type SpanAttributes, type Tracing } from './index.js';

/** Probes and scrapes: a span each every few seconds would bury the traces anyone looks for. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function startOtel(): Tracing {
  // ioredis is imported as an ES module, which only a loader hook lets the instrumentation patch;
  // the hook looks at these modules alone, not at every import of the process.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['ioredis', 'pg', 'pg-pool'] } });

  // `paygate` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise (the later resource wins).
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'paygate' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The global provider, the AsyncLocalStorage context and the W3C traceparent propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Statements of a request, a callback attempt or a provider call; the workers' polling
      // (every 200 ms) outside any span makes none.
      new PgInstrumentation({
        requireParentSpan: true,
        ignoreConnectSpans: true,
        // Statements run prepared under a name made of their text's hash (store/db.ts), which the
        // instrumentation would put in the span's name; what the statement does says more.
        requestHook: (s, info) => s.updateName(`pg.query:${sqlOperation(info.query.text)} ${info.connection.database ?? ''}`.trimEnd()),
      }),
      // The command's name alone: rate-limit keys hold addresses and sign-in names.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      // Outgoing calls (providers, callbacks) carry `traceparent`. A merchant's callback URL may hold
      // a token in its query: the span keeps the origin and path only.
      new UndiciInstrumentation({
        requireParentforSpans: true,
        requestHook: (s, req) => {
          const url = new URL(req.path, req.origin);
          s.setAttributes({ 'url.full': `${url.origin}${url.pathname}`, 'url.query': '' });
        },
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // One span for the request: one for each of its hooks would double an order's spans for
        // little news.
        instrumentHooks: false,
        // The handler's span would be named after its source text; the request's span has the route.
        instrumentHandler: false,
        ignorePaths: (r: { url: string }) => UNTRACED_PATHS.has(r.url.split('?')[0]!),
        requestHook: (s, req) => s.setAttribute('url.path', pathForTrace(req.url, req.routeOptions.url)),
      }),
    ],
  });

  const tracer = trace.getTracer('paygate');
  return {
    span(name, attrs, fn, parent) {
      // A kept traceparent continues its trace; one that does not parse starts a new trace.
      const ctx = parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
      return tracer.startActiveSpan(name, { attributes: clean(attrs) }, ctx, async (s) => {
        try {
          return await fn({ set: (a) => s.setAttributes(clean(a)) });
        } catch (err) {
          s.recordException(err as Error);
          s.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
          throw err;
        } finally {
          s.end();
        }
      });
    },
    traceId() {
      return trace.getActiveSpan()?.spanContext().traceId ?? null;
    },
    traceParent() {
      if (!trace.getActiveSpan()) return null;
      const carrier: { traceparent?: string } = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/**
 * The request's path as a trace may keep it: never the query (searches hold names and addresses),
 * and the route's pattern instead of a path that carries a token (password resets, invitations).
 */
export function pathForTrace(url: string, route: string | undefined): string {
  if (route !== undefined && /:[A-Za-z]*(token|secret)/i.test(route)) return route;
  return url.split('?')[0]!;
}

/** OpenTelemetry refuses null attribute values; absent means not known. */
function clean(attrs: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}
