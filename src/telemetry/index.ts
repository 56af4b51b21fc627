/**
 * Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: `startTracing` loads OpenTelemetry (otel.ts) and
 * exports spans over OTLP/HTTP. Without it nothing of OpenTelemetry is imported, and `span` only
 * calls its function: the order path pays one test of a variable.
 */
import type { Db, Queryable } from '../store/db.js';

export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

/** What a function running inside a span may do with it: add what it learnt (an outcome, a status). */
export interface SpanHandle {
  set(attrs: SpanAttributes): void;
}

/** What otel.ts provides once loaded. */
export interface Tracing {
  /** A span, a child of `parent` (a W3C traceparent) when given, else of the span running now. */
  span<T>(name: string, attrs: SpanAttributes, fn: (s: SpanHandle) => Promise<T>, parent?: string | null): Promise<T>;
  /** The trace id of the span running now, or null outside any span. */
  traceId(): string | null;
  /** The W3C traceparent of the span running now, or null outside any span. */
  traceParent(): string | null;
  /** Sends the spans still waiting and stops. */
  shutdown(): Promise<void>;
}

const NO_SPAN: SpanHandle = { set() {} };
let tracing: Tracing | null = null;

/** Whether this environment turns tracing on: an OTLP endpoint is set, and OTEL_SDK_DISABLED is not `true`. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return !!endpoint && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/**
 * Turns tracing on when the environment asks for it. Called once at the start of the process,
 * before the database, Redis and the app are loaded: the pg and ioredis instrumentations patch
 * those modules as they are imported, and @fastify/otel joins every Fastify instance made after.
 * Answers whether tracing is on.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<boolean> {
  if (tracing || !tracingWanted(env)) return tracing !== null;
  const { startOtel } = await import('./otel.js');
  tracing = startOtel();
  return true;
}

export async function stopTracing(): Promise<void> {
  const t = tracing;
  tracing = null;
  await t?.shutdown();
}

export function tracingOn(): boolean {
  return tracing !== null;
}

/**
 * Runs fn inside a span named `name`: a child of `parent` (a W3C traceparent kept with the work,
 * such as an outbox event's) when given, else of the span running now. With tracing off, just runs fn.
 */
export function span<T>(name: string, attrs: SpanAttributes, fn: (s: SpanHandle) => Promise<T>, parent?: string | null): Promise<T> {
  return tracing ? tracing.span(name, attrs, fn, parent) : fn(NO_SPAN);
}

/** The W3C traceparent of the request or job running now, to keep with work done later; null with tracing off. */
export function activeTraceParent(): string | null {
  return tracing ? tracing.traceParent() : null;
}

/** The trace id of the request or job running now; null with tracing off. */
export function activeTraceId(): string | null {
  return tracing ? tracing.traceId() : null;
}

/**
 * The embedded database is not `pg`, so no instrumentation sees its statements: with tracing on,
 * each statement run inside a span gets a span here, named and described as the pg
 * instrumentation names its own. With tracing off the database is returned as it is.
 */
export function traceEmbeddedQueries(db: Db): Db {
  if (!tracing || db.kind !== 'pglite') return db;
  // Inside traced work only, as the pg instrumentation is set up: the workers' polling outside any
  // span (every 200 ms) would otherwise be a trace of one statement each.
  const statementSpan = <T>(sql: string, run: () => Promise<T>): Promise<T> =>
    activeTraceId() === null ? run() : span(`pglite.query:${sqlOperation(sql)}`, { 'db.system.name': 'postgresql', 'db.query.text': sql }, run);
  const traced = (q: Queryable): Queryable => ({
    query: (sql, params) => statementSpan(sql, () => q.query(sql, params)),
    exec: (sql) => statementSpan(sql, () => q.exec(sql)),
  });
  const outer = traced(db);
  return { ...db, query: outer.query, exec: outer.exec, tx: (fn) => db.tx((q) => fn(traced(q))) };
}

/** What a statement does, for its span's name: its first word (`SELECT`, `INSERT`, `WITH`, …). */
export function sqlOperation(sql: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(sql)?.[1];
  return word ? word.toUpperCase() : 'SQL';
}
