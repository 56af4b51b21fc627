import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { ACCOUNT_LOCK, CHALLENGE_ATTEMPTS, type RateLimits } from '../../src/services/rateLimits.js';

/*
 * The per-account lock and the per-challenge cap, the same cases for the in-process store and for
 * Redis (test/integration/redisRateLimits.test.ts). `pair` gives two instances: with Redis two
 * gateways on their own connections, in memory the one process twice. Time is passed in, as the
 * services pass the injected clock, so nothing here waits.
 */

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const MIN = 60_000;

export function accountLimitCases(pair: () => [RateLimits, RateLimits]) {
  const fresh = () => `test:${randomBytes(8).toString('hex')}`;

  it('the 10th check within 15 minutes locks the account for a minute, from either instance; the right answer is no way round it', async () => {
    const [one, two] = pair();
    const key = fresh();
    for (let i = 0; i < 10; i++) expect(await (i % 2 ? one : two).accountChecks.attempt(key, T0 + i * 1000), `check ${i + 1}`).toEqual({ ok: true });
    expect(await one.accountChecks.attempt(key, T0 + 9_000)).toEqual({ ok: false, retryAfterMs: MIN });
    expect(await two.accountChecks.attempt(key, T0 + 39_000)).toEqual({ ok: false, retryAfterMs: 30_000 });
    // another account is not held back
    expect(await one.accountChecks.attempt(fresh(), T0 + 10_000)).toEqual({ ok: true });
  });

  it('each lock after the first comes after one more check and lasts twice as long, up to an hour', async () => {
    const [one, two] = pair();
    const key = fresh();
    let now = T0;
    for (let i = 0; i < 10; i++) await one.accountChecks.attempt(key, now);
    const waits: number[] = [];
    for (let lock = 0; lock < 9; lock++) {
      const refused = await two.accountChecks.attempt(key, now);
      expect(refused.ok).toBe(false);
      const wait = refused.ok ? 0 : refused.retryAfterMs;
      waits.push(wait);
      now += wait;
      // the lock is over: one check is let through, and it starts the next lock
      expect(await one.accountChecks.attempt(key, now)).toEqual({ ok: true });
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60].map((m) => m * MIN));
    expect(ACCOUNT_LOCK.maxLockMs).toBe(60 * MIN);
  });

  it('a success clears the count and the doubling', async () => {
    const [one, two] = pair();
    const key = fresh();
    for (let i = 0; i < 10; i++) await one.accountChecks.attempt(key, T0);
    expect((await one.accountChecks.attempt(key, T0 + MIN)).ok).toBe(true);
    expect(await two.accountChecks.attempt(key, T0 + MIN)).toEqual({ ok: false, retryAfterMs: 2 * MIN });
    await two.accountChecks.clear(key);
    for (let i = 0; i < 10; i++) expect((await one.accountChecks.attempt(key, T0 + MIN)).ok, `check ${i + 1} after the clear`).toBe(true);
    expect(await one.accountChecks.attempt(key, T0 + MIN)).toEqual({ ok: false, retryAfterMs: MIN });
    // nine checks, a success, nine more: never locked
    const other = fresh();
    for (let i = 0; i < 9; i++) await one.accountChecks.attempt(other, T0);
    await one.accountChecks.clear(other);
    for (let i = 0; i < 9; i++) expect((await two.accountChecks.attempt(other, T0)).ok).toBe(true);
  });

  it('counts within a 15-minute window, and forgets the doubling a day after the last lock', async () => {
    const [one] = pair();
    const key = fresh();
    for (let i = 0; i < 9; i++) await one.accountChecks.attempt(key, T0);
    // a new window: nine more are let through
    for (let i = 0; i < 9; i++) expect((await one.accountChecks.attempt(key, T0 + ACCOUNT_LOCK.windowMs)).ok).toBe(true);
    expect((await one.accountChecks.attempt(key, T0 + ACCOUNT_LOCK.windowMs)).ok).toBe(true);
    expect((await one.accountChecks.attempt(key, T0 + ACCOUNT_LOCK.windowMs)).ok).toBe(false);
    const lockEnd = T0 + ACCOUNT_LOCK.windowMs + MIN;
    // a day after that lock ended the account starts from scratch: ten checks, then a minute
    const later = lockEnd + ACCOUNT_LOCK.memoryMs;
    for (let i = 0; i < 10; i++) expect((await one.accountChecks.attempt(key, later)).ok, `check ${i + 1} a day later`).toBe(true);
    expect(await one.accountChecks.attempt(key, later)).toEqual({ ok: false, retryAfterMs: MIN });
  });

  it(`a challenge takes ${CHALLENGE_ATTEMPTS} codes across instances; the next ones are refused`, async () => {
    const [one, two] = pair();
    const key = fresh();
    const ttl = 5 * MIN;
    for (let i = 0; i < CHALLENGE_ATTEMPTS; i++) expect((await (i % 2 ? one : two).challengeAttempts.take(key, T0, ttl)).ok, `code ${i + 1}`).toBe(true);
    expect((await one.challengeAttempts.take(key, T0, ttl)).ok).toBe(false);
    expect((await two.challengeAttempts.take(key, T0 + 1000, ttl)).ok).toBe(false);
    expect((await two.challengeAttempts.take(fresh(), T0, ttl)).ok).toBe(true);
  });
}
