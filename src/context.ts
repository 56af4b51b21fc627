import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Metrics } from './metrics.js';
import type { SecretBox } from './secretbox.js';
import type { NonceStore } from './services/nonces.js';
import type { RateLimits } from './services/rateLimits.js';
import type { Db } from './store/db.js';
import type { Allowlist, Resolver } from './callbacks/urlGuard.js';

/** Everything a service, route or worker needs, passed explicitly (no globals). */
export interface Ctx {
  readonly config: Config;
  readonly db: Db;
  /**
   * Where long reads go (merchant statements, exports, reports, dashboards): a streaming replica
   * while it keeps up (DATABASE_READ_URL, `store/readReplica.ts`), else `db` itself. Never written to.
   */
  readonly readDb: Db;
  readonly clock: Clock;
  readonly box: SecretBox;
  readonly nonces: NonceStore;
  readonly limits: RateLimits;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** SHA-256 of the operator token; the token itself is never kept in memory after start. */
  readonly adminTokenHash: Buffer;
  /** CALLBACK_ALLOWLIST, parsed once. */
  readonly callbackAllowlist: Allowlist;
  /** DNS resolution for callback URL checks; tests inject their own. */
  readonly resolve?: Resolver;
}

const reading = new WeakMap<Ctx, Ctx>();

/**
 * The context of a read-only report built on a service that reads `ctx.db` (a list's page, the
 * audit trail): the same context with `readDb` as its `db`, so every statement of it reads where
 * reports read. One per context, so what a service keys by its context stays the same.
 */
export function readingCtx(ctx: Ctx): Ctx {
  if (ctx.readDb === ctx.db) return ctx;
  let r = reading.get(ctx);
  if (!r) reading.set(ctx, (r = { ...ctx, db: ctx.readDb }));
  return r;
}
