import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { buildApp } from '../../src/app/buildApp.js';
import { createUser } from '../../src/services/accounts.js';
import { createRateLimits } from '../../src/services/rateLimits.js';
import { accountLimitCases } from '../helpers/accountLimitCases.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { createHarness, provisionDesk, type Harness } from '../helpers/harness.js';

describe.skipIf(!process.env.REDIS_URL)('rate limits shared through Redis', () => {
  let a: Redis;
  let b: Redis;
  beforeAll(() => {
    a = new Redis(process.env.REDIS_URL!);
    b = new Redis(process.env.REDIS_URL!);
  });
  afterAll(() => {
    a.disconnect();
    b.disconnect();
  });

  it('two instances draw from one allowance per key', async () => {
    // Two gateway instances, each with its own limiters and its own Redis connection.
    const one = createRateLimits(a);
    const two = createRateLimits(b);
    const ip = `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await one.payerReference.take(ip));
    for (let i = 0; i < 4; i++) results.push(await two.payerReference.take(ip));
    expect(results.every((r) => r.ok)).toBe(true);
    const over = await two.payerReference.take(ip);
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.retryAfterMs).toBeGreaterThan(0);
    expect((await one.payerReference.take(ip)).ok).toBe(false);
    // Another client is unaffected.
    expect((await one.payerReference.take(`${ip}-other`)).ok).toBe(true);
  });

  it('order creation: 30 per window across instances, the 31st waits in the queue of the instance that got it', async () => {
    const one = createRateLimits(a);
    const two = createRateLimits(b);
    const key = `shp_${randomBytes(13).toString('hex')}`;
    const first = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).orderCreate.take(key)));
    expect(first.every((r) => r.ok)).toBe(true);
    // Five may queue on an instance; the sixth is refused at once.
    const queued = Array.from({ length: 5 }, () => two.orderCreate.take(key));
    const refused = await two.orderCreate.take(key);
    expect(refused.ok).toBe(false);
    let settled = 0;
    // (they are still waiting when this suite disconnects; their later failure is no concern of the test)
    queued.forEach((p) => p.then(() => settled++, () => {}));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(0);
  });

  it('a window ends when the clock says so: the queued are admitted then, and what they used is gone from the next window for both instances', async () => {
    const clock = new ManualClock();
    const one = createRateLimits(a, {}, clock);
    const two = createRateLimits(b, {}, clock);
    const key = `shp_${randomBytes(13).toString('hex')}`;
    const first = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).orderCreate.take(key)));
    expect(first.every((r) => r.ok)).toBe(true);
    const queued = Promise.all(Array.from({ length: 5 }, () => two.orderCreate.take(key)));
    expect(await two.orderCreate.take(key)).toEqual({ ok: false, retryAfterMs: 10_000 });
    clock.advance(9_999);
    expect(await one.payerReference.take(`${key}-probe`)).toEqual({ ok: true }); // (a round trip for the queue to act on, if it wrongly would)
    expect(clock.sleeping).toBe(1);
    clock.advance(1);
    expect((await queued).every((r) => r.ok)).toBe(true);
    const rest = await Promise.all(Array.from({ length: 25 }, () => one.orderCreate.take(key)));
    expect(rest.every((r) => r.ok)).toBe(true);
  });

  it('a refund gives one use back to the window both instances count in', async () => {
    const clock = new ManualClock();
    const one = createRateLimits(a, {}, clock);
    const two = createRateLimits(b, {}, clock);
    const ip = `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 10; i++) expect(await (i % 2 ? one : two).payerReference.take(ip)).toEqual({ ok: true });
    clock.advance(15_000);
    expect(await two.payerReference.take(ip)).toEqual({ ok: false, retryAfterMs: 45_000 });
    await one.payerReference.refund(ip);
    await one.payerReference.refund(ip);
    expect(await two.payerReference.take(ip)).toEqual({ ok: true });
    expect(await one.payerReference.take(ip)).toEqual({ ok: false, retryAfterMs: 45_000 });
    clock.advance(45_000);
    expect(await one.payerReference.take(ip)).toEqual({ ok: true });
  });

  describe('the per-account sign-in lock and the challenge cap', () => {
    accountLimitCases(() => [createRateLimits(a), createRateLimits(b)]);

    describe('over HTTP, two gateway instances on one database and one Redis', () => {
      let h: Harness;
      let one: FastifyInstance;
      let two: FastifyInstance;
      beforeAll(async () => {
        h = await createHarness({ env: { TRUST_PROXY: 'true' } });
        one = buildApp({ ...h.ctx, limits: createRateLimits(a, {}, h.clock) });
        two = buildApp({ ...h.ctx, limits: createRateLimits(b, {}, h.clock) });
        await Promise.all([one.ready(), two.ready()]);
      });
      afterAll(async () => {
        await Promise.all([one.close(), two.close()]);
        await h.close();
      });

      it('wrong passwords on one account through both instances: the 11th answers 429 on either, with a growing delay, and a success clears it', async () => {
        const merchantId = (await provisionDesk(h.app)).merchantId;
        const email = `shared-${randomBytes(4).toString('hex')}@limits.example`;
        await createUser(h.ctx, merchantId, { email, password: 'a long and proper passphrase' });
        // Each browser has its own address, and a pair is replaced after a success (which ends the pre-session cookie).
        let browsers: FormBrowser[] = [];
        const newBrowsers = async () => {
          // Addresses of their own on every run: the per-IP counts of an earlier run may still be in Redis.
          const ip = () => `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
          browsers = [new FormBrowser(one, ip()), new FormBrowser(two, ip())];
          for (const br of browsers) await br.get('/cabinet/sign-in');
        };
        await newBrowsers();
        const post = (i: number, password: string) => browsers[i % 2]!.post('/cabinet/sign-in', [['email', email], ['password', password]]);
        for (let i = 0; i < 10; i++) expect((await post(i, `wrong guess ${i}`)).statusCode, `guess ${i + 1}`).toBe(401);
        const locked = await post(0, 'a long and proper passphrase');
        expect(locked.statusCode).toBe(429);
        expect(locked.headers['retry-after']).toBe('60');
        expect((await post(1, 'a long and proper passphrase')).headers['retry-after']).toBe('60');
        h.clock.advance(60_000);
        expect((await post(1, 'wrong once more')).statusCode).toBe(401);
        expect((await post(0, 'a long and proper passphrase')).headers['retry-after']).toBe('120');
        h.clock.advance(120_000);
        expect((await post(0, 'a long and proper passphrase')).statusCode).toBe(303);
        await newBrowsers();
        for (let i = 0; i < 10; i++) expect((await post(i, `wrong guess ${i}`)).statusCode, `guess ${i + 1} after the success`).toBe(401);
        expect((await post(0, 'wrong guess')).headers['retry-after']).toBe('60');
      });
    });
  });
});
