import type { Redis } from 'ioredis';
import { systemClock, type Clock } from '../clock.js';
import { AppError } from '../domain/errors.js';

/**
 * Spec rate limits: "N per window, M queued", in fixed windows that start with a key's first use.
 * Counts are shared through Redis when given; queues live in each process. Time is the injected
 * clock's, for the counts and for the waits in the queue alike.
 */
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
/** Forgotten-password requests per client IP: the 21st within an hour answers 429. */
export const PASSWORD_RESET_CLIENT_LIMIT: LimitSpec = { points: 20, durationSec: 3600, queued: 0 };
/** Reset links mailed per address (typed, whether it has an account or not): 3 an hour, then none until the hour ends. */
export const PASSWORD_RESET_ADDRESS_LIMIT: LimitSpec = { points: 3, durationSec: 3600, queued: 0 };

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
  /** Forgotten-password requests per client IP. */
  passwordResetClient: Limiter;
  /** Reset links per email address, so nobody can fill a stranger's mailbox with them. */
  passwordResetAddress: Limiter;
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

/** A key's uses in its current window, and the milliseconds left of that window. */
interface WindowUse {
  uses: number;
  msLeft: number;
}

/** Fixed windows per key: in this process, or in Redis for every instance. */
interface WindowStore {
  /** Counts one use of the key at `now` (a refused one too, as the window's count), starting a window when none runs. */
  hit(key: string, now: number): Promise<WindowUse>;
  /** Gives back one use of the window running at `now`, if one runs. */
  giveBack(key: string, now: number): Promise<void>;
  /** The milliseconds left of the key's window at `now`, or null when none runs. */
  msLeft(key: string, now: number): Promise<number | null>;
}

function memoryWindows(windowMs: number): WindowStore {
  const windows = new Map<string, { uses: number; expiresAt: number }>();
  // Every window ends within windowMs of its start, so one sweep per windowMs keeps the map to the keys used in the last window.
  let nextSweep = 0;
  const running = (key: string, now: number) => {
    const w = windows.get(key);
    return w && w.expiresAt > now ? w : null;
  };
  return {
    async hit(key, now) {
      let w = running(key, now);
      if (!w) {
        if (windows.size >= SWEEP_ABOVE && now >= nextSweep) {
          for (const [k, v] of windows) if (v.expiresAt <= now) windows.delete(k);
          nextSweep = now + windowMs;
        }
        windows.set(key, (w = { uses: 0, expiresAt: now + windowMs }));
      }
      w.uses++;
      return { uses: w.uses, msLeft: w.expiresAt - now };
    },
    async giveBack(key, now) {
      const w = running(key, now);
      if (w) w.uses--;
    },
    async msLeft(key, now) {
      const w = running(key, now);
      return w ? w.expiresAt - now : null;
    },
  };
}

// KEYS[1] the key; ARGV: now, the window in ms, and 1 to count a use or -1 to give one back (only
// within a running window). Returns the uses of the window and the ms left of it. The window's end
// is kept with the count, so every instance reads the same window; the TTL only cleans up.
const WINDOW_SCRIPT = `
local now = tonumber(ARGV[1])
local delta = tonumber(ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'uses', 'ends')
local uses = tonumber(s[1]) or 0
local ends = tonumber(s[2]) or 0
if ends <= now then
  if delta < 0 then return {0, 0} end
  uses = 0
  ends = now + tonumber(ARGV[2])
end
uses = uses + delta
redis.call('HSET', KEYS[1], 'uses', uses, 'ends', ends)
redis.call('PEXPIRE', KEYS[1], math.floor(ends - now))
return {uses, ends - now}
`;

function redisWindows(redis: Redis, prefix: string, windowMs: number): WindowStore {
  const run = async (key: string, now: number, delta: 1 | -1): Promise<WindowUse> => {
    const [uses, msLeft] = (await redisCall(redis.eval(WINDOW_SCRIPT, 1, `${prefix}${key}`, now, windowMs, delta))) as [number, number];
    return { uses: Number(uses), msLeft: Number(msLeft) };
  };
  return {
    hit: (key, now) => run(key, now, 1),
    async giveBack(key, now) {
      await run(key, now, -1);
    },
    async msLeft(key, now) {
      const ends = Number(await redisCall(redis.hget(`${prefix}${key}`, 'ends')));
      return ends > now ? ends - now : null;
    },
  };
}

const ADMITTED: Admission = { ok: true };

interface Waiter {
  resolve: (a: Admission) => void;
  reject: (err: unknown) => void;
}

/** One key's queue: who waits, in order, and whether a wake-up for the next window is set. */
interface KeyQueue {
  waiting: Waiter[];
  waking: boolean;
  /** Requests admitted through this queue or waiting in it right now. */
  users: number;
}

function limiter(spec: LimitSpec, name: string, redis: Redis | null, clock: Clock): Limiter {
  const windowMs = spec.durationSec * 1000;
  // Keys of their own (a hash with the window's end), apart from the plain counters earlier versions
  // kept under paygate:rl:, so that during a rolling upgrade neither reads the other's.
  const windows = redis ? redisWindows(redis, `paygate:rlw:${name}:`, windowMs) : memoryWindows(windowMs);
  // A queue per key, holding at most `queued` waiters and admitting them in order as the window
  // frees up; dropped once nobody uses it, so a per-client-IP limit does not grow with every visitor.
  const queues = new Map<string, KeyQueue>();

  async function consume(key: string): Promise<Admission> {
    const w = await windows.hit(key, clock.now());
    return w.uses <= spec.points ? ADMITTED : { ok: false, retryAfterMs: w.msLeft };
  }

  function wakeAfter(q: KeyQueue, key: string, ms: number): void {
    q.waking = true;
    void clock.sleep(ms).then(() => drain(q, key));
  }

  /** The window moved on: the waiters are admitted in order while it has room. */
  async function drain(q: KeyQueue, key: string): Promise<void> {
    q.waking = false;
    while (q.waiting.length > 0) {
      const head = q.waiting.shift()!;
      let w: WindowUse;
      try {
        w = await windows.hit(key, clock.now());
      } catch (err) {
        head.reject(err);
        continue;
      }
      if (w.uses <= spec.points) {
        head.resolve(ADMITTED);
        continue;
      }
      q.waiting.unshift(head);
      if (!q.waking) wakeAfter(q, key, w.msLeft);
      return;
    }
  }

  async function admit(q: KeyQueue, key: string): Promise<Admission> {
    // Nobody waiting: a use of the window, admitted at once if it has room.
    if (q.waiting.length === 0) {
      const w = await windows.hit(key, clock.now());
      if (w.uses <= spec.points) return ADMITTED;
      if (!q.waking) wakeAfter(q, key, w.msLeft);
    }
    if (q.waiting.length >= spec.queued) return { ok: false, retryAfterMs: (await windows.msLeft(key, clock.now())) ?? windowMs };
    return new Promise<Admission>((resolve, reject) => q.waiting.push({ resolve, reject }));
  }

  async function queued(key: string): Promise<Admission> {
    let q = queues.get(key);
    if (!q) queues.set(key, (q = { waiting: [], waking: false, users: 0 }));
    q.users++;
    try {
      return await admit(q, key);
    } finally {
      if (--q.users === 0) queues.delete(key);
    }
  }

  // A Redis that does not answer is an outage (503, from redisCall), not a bug (500).
  return {
    take: (key) => (spec.queued > 0 ? queued(key) : consume(key)),
    async refund(key) {
      await windows.giveBack(key, clock.now()).catch(() => {});
    },
    activeKeys: () => queues.size,
  };
}

/**
 * The spec's limits; `specs` replaces some of them (tools that replay traffic, tests of other
 * rules). `clock` is the context's (ctx.clock); the wall clock only for tools that serve no traffic.
 */
export function createRateLimits(redis: Redis | null, specs: Partial<Record<keyof RateLimits, LimitSpec>> = {}, clock: Clock = systemClock): RateLimits {
  return {
    orderCreate: limiter(specs.orderCreate ?? ORDER_CREATE_LIMIT, 'order-create', redis, clock),
    payPage: limiter(specs.payPage ?? PAY_PAGE_LIMIT, 'pay-page', redis, clock),
    payerReference: limiter(specs.payerReference ?? PAYER_REFERENCE_LIMIT, 'payer-ref', redis, clock),
    signIn: limiter(specs.signIn ?? SIGN_IN_LIMIT, 'sign-in', redis, clock),
    passwordResetClient: limiter(specs.passwordResetClient ?? PASSWORD_RESET_CLIENT_LIMIT, 'reset-client', redis, clock),
    passwordResetAddress: limiter(specs.passwordResetAddress ?? PASSWORD_RESET_ADDRESS_LIMIT, 'reset-address', redis, clock),
    accountChecks: accountGuard(redis),
    challengeAttempts: attemptCap(redis, CHALLENGE_ATTEMPTS, 'challenge'),
  };
}
