import type { Redis } from 'ioredis';
import { AppError } from '../domain/errors.js';
import { RateLimiterMemory, RateLimiterQueue, RateLimiterQueueError, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Spec rate limits: "N per window, M queued". Counts are shared through Redis when given; queues live in each process. */
export interface LimitSpec {
  points: number;
  durationSec: number;
  queued: number;
}

export const ORDER_CREATE_LIMIT: LimitSpec = { points: 30, durationSec: 10, queued: 5 };
export const PAY_PAGE_LIMIT: LimitSpec = { points: 100, durationSec: 10, queued: 10 };
export const PAYER_REFERENCE_LIMIT: LimitSpec = { points: 10, durationSec: 60, queued: 0 };
/** Cabinet and back-office sign-in: 10 per minute per client IP, the 11th refused. */
export const SIGN_IN_LIMIT: LimitSpec = { points: 10, durationSec: 60, queued: 0 };

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

export interface Limiter {
  take(key: string): Promise<Admission>;
  /** Gives back one admission that `take` granted to a request that then turned out not to count (a replay, say). */
  refund(key: string): Promise<void>;
  /** Keys that currently hold queue state (requests admitted or waiting right now); idle keys hold none. */
  activeKeys(): number;
}

export interface RateLimits {
  orderCreate: Limiter;
  payPage: Limiter;
  payerReference: Limiter;
  signIn: Limiter;
}

function limiter(spec: LimitSpec, name: string, redis: Redis | null): Limiter {
  const base: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `paygate:rl:${name}`, points: spec.points, duration: spec.durationSec })
    : new RateLimiterMemory({ keyPrefix: name, points: spec.points, duration: spec.durationSec });
  // One queue per key, holding at most `queued` waiters and handing them tokens as the window frees
  // up. A RateLimiterQueue remembers every key it was ever given, which for a per-client-IP limit grows
  // with every visitor until restart; so each key gets its own queue, dropped once nobody uses it.
  const queues = new Map<string, { queue: RateLimiterQueue; users: number }>();

  async function consume(key: string): Promise<Admission> {
    try {
      await base.consume(key);
      return { ok: true };
    } catch (e) {
      const ms = (e as { msBeforeNext?: number }).msBeforeNext;
      if (typeof ms === 'number') return { ok: false, retryAfterMs: ms };
      throw e;
    }
  }

  async function queued(key: string): Promise<Admission> {
    let entry = queues.get(key);
    if (!entry) queues.set(key, (entry = { queue: new RateLimiterQueue(base, { maxQueueSize: spec.queued }), users: 0 }));
    entry.users++;
    try {
      await entry.queue.removeTokens(1, key);
      return { ok: true };
    } catch (e) {
      if (e instanceof RateLimiterQueueError) {
        const res = await base.get(key);
        return { ok: false, retryAfterMs: res?.msBeforeNext ?? spec.durationSec * 1000 };
      }
      throw e;
    } finally {
      if (--entry.users === 0) queues.delete(key);
    }
  }

  const take = (key: string) => (spec.queued > 0 ? queued(key) : consume(key));
  return {
    // A Redis that does not answer is an outage (503), not a bug (500).
    take: redis
      ? (key) =>
          take(key).catch((err) => {
            throw err instanceof AppError ? err : new AppError('SERVICE_UNAVAILABLE', 'shared rate limits (Redis) are unavailable; retry shortly');
          })
      : take,
    async refund(key) {
      await base.reward(key, 1).catch(() => {});
    },
    activeKeys: () => queues.size,
  };
}

/** The spec's limits; `specs` replaces some of them (tools that replay traffic, tests of other rules). */
export function createRateLimits(redis: Redis | null, specs: Partial<Record<keyof RateLimits, LimitSpec>> = {}): RateLimits {
  return {
    orderCreate: limiter(specs.orderCreate ?? ORDER_CREATE_LIMIT, 'order-create', redis),
    payPage: limiter(specs.payPage ?? PAY_PAGE_LIMIT, 'pay-page', redis),
    payerReference: limiter(specs.payerReference ?? PAYER_REFERENCE_LIMIT, 'payer-ref', redis),
    signIn: limiter(specs.signIn ?? SIGN_IN_LIMIT, 'sign-in', redis),
  };
}
