import type { Ctx } from '../context.js';
import { loadMigrations, schemaVersion } from '../store/migrate.js';

export interface HealthOptions {
  /** Liveness: /healthz answers 503 until this says migrations ran and the workers are running. */
  ready?: () => boolean;
  /** Once shutdown begins, /readyz answers 503 so balancers stop sending traffic here. */
  shuttingDown?: () => boolean;
  /** The shared Redis, when REDIS_URL is set: /readyz needs it to answer. */
  redis?: { ping(): Promise<unknown> } | null;
}

/** A dependency that does not answer within this long counts as down for readiness. */
const CHECK_TIMEOUT_MS = 2_000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}

export type CheckResult = 'ok' | 'not configured' | string;

/** The readiness checks, each named: database, migrations, redis, and whether shutdown began. */
export async function readiness(ctx: Ctx, opts: HealthOptions): Promise<{ ready: boolean; failing: string[]; checks: Record<string, CheckResult> }> {
  const checks: Record<string, CheckResult> = {};
  const latest = loadMigrations().at(-1)?.version ?? 0;
  const [db, redis] = await Promise.allSettled([
    within(schemaVersion(ctx.db), CHECK_TIMEOUT_MS),
    opts.redis ? within(opts.redis.ping(), CHECK_TIMEOUT_MS) : Promise.resolve('not configured'),
  ]);
  if (db.status === 'fulfilled') {
    checks.database = 'ok';
    const v = db.value;
    checks.migrations = v === latest ? 'ok' : `schema at version ${v}, code expects ${latest}`;
  } else {
    checks.database = `unavailable: ${(db.reason as Error).message}`;
    checks.migrations = 'unknown';
  }
  checks.redis = redis.status === 'fulfilled' ? (opts.redis ? 'ok' : 'not configured') : `unavailable: ${(redis.reason as Error).message}`;
  if (opts.shuttingDown?.()) checks.shutdown = 'shutting down';
  const failing = Object.entries(checks)
    .filter(([, v]) => v !== 'ok' && v !== 'not configured')
    .map(([k]) => k);
  return { ready: failing.length === 0, failing, checks };
}

