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
/** Cabinet and back-office sign-in: 10 per minute per client IP, the 11th refused (per account: ACCOUNT_LOCK). */
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
  /** Password and code checks per account, from whatever addresses: see ACCOUNT_LOCK. */
  accountChecks: AccountGuard;
  /** Codes tried per second-factor challenge: see CHALLENGE_ATTEMPTS. */
  challengeAttempts: AttemptCap;
}

/**
 * Guessing one account's password (or code) from many addresses: the 10th check within 15
 * minutes locks the account for a minute; once locked, every further check that is let through
 * locks it again for twice as long (2, 4, 8 … minutes, at most an hour), until a success clears
 * the account or a day passes after the last lock. Whoever holds the password gets in as soon as a
 * lock ends; a guesser gets ten tries, then one per lock.
 */
export const ACCOUNT_LOCK = {
  checks: 10,
  windowMs: 15 * 60_000,
  firstLockMs: 60_000,
  maxLockMs: 60 * 60_000,
  /** How long after its last lock an account still starts at the doubled delay. */
  memoryMs: 24 * 3_600_000,
} as const;

/** A second-factor challenge takes this many codes; the next one voids it (the password step starts over). */
export const CHALLENGE_ATTEMPTS = 5;

/**
 * Checks of one account, counted before the check runs, so checks running at the same time cannot
 * slip past the count; a success clears it. Time is the caller's (the injected clock), so a test
 * moves it and every instance sharing Redis reads the same lock.
 */
export interface AccountGuard {
  /** Refused while the account is locked; otherwise counted (and a lock may start with it, which `clear` undoes). */
  attempt(key: string, nowMs: number): Promise<Admission>;
  /** The check succeeded: the count, the lock and its doubling are forgotten. */
  clear(key: string): Promise<void>;
}

/** At most `limit` uses of a key within `ttlMs` (set by its first use); then refused until it expires. */
export interface AttemptCap {
  take(key: string, nowMs: number, ttlMs: number): Promise<Admission>;
}

/** One account's record: checks in the current window, the lock, and how many locks came before. */
interface LockState {
  checks: number;
  windowStart: number;
  lockedUntil: number;
  level: number;
}

/**
 * The rule, once for both stores: the new state after a check at `now`, or the time left when the
 * account is locked. The Redis script below is this function, line by line.
 */
export function nextLockState(s: LockState | null, now: number, rule = ACCOUNT_LOCK): { wait: number } | { state: LockState; keepMs: number } {
  let { checks, windowStart, lockedUntil, level } = s ?? { checks: 0, windowStart: now, lockedUntil: 0, level: 0 };
  if (lockedUntil > now) return { wait: lockedUntil - now };
  if (level > 0 && now - lockedUntil >= rule.memoryMs) level = 0;
  if (now - windowStart >= rule.windowMs) {
    checks = 0;
    windowStart = now;
  }
  checks++;
  if (checks >= rule.checks || level > 0) {
    lockedUntil = now + Math.min(rule.firstLockMs * 2 ** level, rule.maxLockMs);
    level++;
    checks = 0;
    windowStart = now;
  }
  const keepMs = Math.max(lockedUntil, windowStart + rule.windowMs) - now + (level > 0 ? rule.memoryMs : 0);
  return { state: { checks, windowStart, lockedUntil, level }, keepMs };
}

// KEYS[1] the account; ARGV: now, checks, windowMs, firstLockMs, maxLockMs, memoryMs. Returns the
// milliseconds left of a lock (refused), or 0 (counted). Times are whole milliseconds well below
// 2^53; Lua 5.1 writes numbers with 14 significant digits, enough for epoch milliseconds.
const ACCOUNT_SCRIPT = `
local s = redis.call('HMGET', KEYS[1], 'checks', 'windowStart', 'lockedUntil', 'level')
local now = tonumber(ARGV[1])
local checks = tonumber(s[1]) or 0
local windowStart = tonumber(s[2]) or now
local lockedUntil = tonumber(s[3]) or 0
local level = tonumber(s[4]) or 0
if lockedUntil > now then return lockedUntil - now end
if level > 0 and now - lockedUntil >= tonumber(ARGV[6]) then level = 0 end
if now - windowStart >= tonumber(ARGV[3]) then
  checks = 0
  windowStart = now
end
checks = checks + 1
if checks >= tonumber(ARGV[2]) or level > 0 then
  lockedUntil = now + math.min(tonumber(ARGV[4]) * 2 ^ level, tonumber(ARGV[5]))
  level = level + 1
  checks = 0
  windowStart = now
end
local keep = math.max(lockedUntil, windowStart + tonumber(ARGV[3])) - now
if level > 0 then keep = keep + tonumber(ARGV[6]) end
redis.call('HSET', KEYS[1], 'checks', checks, 'windowStart', windowStart, 'lockedUntil', lockedUntil, 'level', level)
redis.call('PEXPIRE', KEYS[1], math.floor(keep))
return 0
`;

// KEYS[1] the key; ARGV[1] its lifetime in ms from the first use. Returns the uses so far, this one included.
const CAP_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

const REDIS_LIMITS_DOWN = 'shared rate limits (Redis) are unavailable; retry shortly';

function redisCall<T>(p: Promise<T>): Promise<T> {
  return p.catch(() => {
    throw new AppError('SERVICE_UNAVAILABLE', REDIS_LIMITS_DOWN);
  });
}

/** Entries of the in-process stores expire by the caller's clock; expired ones are swept once the map grows. */
const SWEEP_ABOVE = 10_000;

function sweep<V extends { expiresAt: number }>(map: Map<string, V>, now: number): void {
  if (map.size < SWEEP_ABOVE) return;
  for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k);
}

function accountGuard(redis: Redis | null, rule = ACCOUNT_LOCK): AccountGuard {
  if (redis) {
    const key = (k: string) => `paygate:rl:account:${k}`;
    return {
      async attempt(k, now) {
        const args = [now, rule.checks, rule.windowMs, rule.firstLockMs, rule.maxLockMs, rule.memoryMs];
        const wait = Number(await redisCall(redis.eval(ACCOUNT_SCRIPT, 1, key(k), ...args)));
        return wait > 0 ? { ok: false, retryAfterMs: wait } : { ok: true };
      },
      async clear(k) {
        await redisCall(redis.del(key(k)));
      },
    };
  }
  const states = new Map<string, LockState & { expiresAt: number }>();
  return {
    async attempt(k, now) {
      const held = states.get(k);
      const next = nextLockState(held && held.expiresAt > now ? held : null, now, rule);
      if ('wait' in next) return { ok: false, retryAfterMs: next.wait };
      sweep(states, now);
      states.set(k, { ...next.state, expiresAt: now + next.keepMs });
      return { ok: true };
    },
    async clear(k) {
      states.delete(k);
    },
  };
}

function attemptCap(redis: Redis | null, limit: number, name: string): AttemptCap {
  if (redis) {
    return {
      async take(k, _now, ttlMs) {
        const n = Number(await redisCall(redis.eval(CAP_SCRIPT, 1, `paygate:rl:${name}:${k}`, Math.ceil(ttlMs))));
        return n <= limit ? { ok: true } : { ok: false, retryAfterMs: Number(await redisCall(redis.pttl(`paygate:rl:${name}:${k}`))) };
      },
    };
  }
  const uses = new Map<string, { n: number; expiresAt: number }>();
  return {
    async take(k, now, ttlMs) {
      let u = uses.get(k);
      if (!u || u.expiresAt <= now) {
        sweep(uses, now);
        uses.set(k, (u = { n: 0, expiresAt: now + ttlMs }));
      }
      u.n++;
      return u.n <= limit ? { ok: true } : { ok: false, retryAfterMs: u.expiresAt - now };
    },
  };
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
    accountChecks: accountGuard(redis),
    challengeAttempts: attemptCap(redis, CHALLENGE_ATTEMPTS, 'challenge'),
  };
}
