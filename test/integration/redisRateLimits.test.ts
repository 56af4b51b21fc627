import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimits } from '../../src/services/rateLimits.js';

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
    queued.forEach((p) => p.then(() => settled++));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(0);
  });
});
