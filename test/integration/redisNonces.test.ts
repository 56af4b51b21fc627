import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/buildApp.js';
import { NONCE_MEMORY_MS, redisNonceStore, type NonceStore } from '../../src/services/nonces.js';
import { createHarness, freshNonce, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

// Two Redis clients stand for two gateway instances behind one load balancer: the replay window
// has to be shared between them (D19).
describe.skipIf(!process.env.REDIS_URL)('Redis nonce memory shared by instances', () => {
  const prefix = `paygate-test:${randomBytes(6).toString('hex')}:nonce:`;
  let redisA: Redis;
  let redisB: Redis;
  let a: NonceStore;
  let b: NonceStore;

  beforeAll(async () => {
    redisA = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 2 });
    redisB = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 2 });
    a = redisNonceStore(redisA, prefix);
    b = redisNonceStore(redisB, prefix);
  });

  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redisA.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redisA.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    redisA.disconnect();
    redisB.disconnect();
  });

  const key = () => `shp_${randomBytes(13).toString('hex').slice(0, 26)}`;

  it('a nonce claimed on one instance is a replay on the other, and on the first', async () => {
    const desk = key();
    const nonce = freshNonce();
    expect(await a.claim(desk, nonce)).toBe(true);
    expect(await b.claim(desk, nonce)).toBe(false);
    expect(await a.claim(desk, nonce)).toBe(false);
  });

  it('the same nonce on another desk key is fine', async () => {
    const nonce = freshNonce();
    expect(await a.claim(key(), nonce)).toBe(true);
    expect(await b.claim(key(), nonce)).toBe(true);
  });

  it('of simultaneous claims of one nonce across both instances, exactly one wins', async () => {
    const desk = key();
    const nonce = freshNonce();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(desk, nonce)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('Redis keeps each nonce for the 360-second window, then forgets it by itself', async () => {
    const desk = key();
    const nonce = freshNonce();
    await a.claim(desk, nonce);
    const ttl = await redisB.pttl(`${prefix}${desk}:${nonce}`);
    expect(NONCE_MEMORY_MS).toBe(360_000);
    expect(ttl).toBeGreaterThan(NONCE_MEMORY_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(NONCE_MEMORY_MS);
    expect(await a.prune()).toBe(0);
  });

  describe('through two gateway apps on one database', () => {
    let h: Harness;
    let second: FastifyInstance;
    let desk: DeskCreds;
    let other: DeskCreds;

    beforeAll(async () => {
      h = await createHarness({ nonces: a });
      second = buildApp({ ...h.ctx, nonces: b });
      await second.ready();
      desk = await provisionDesk(h.app);
      other = await provisionDesk(h.app, { merchant: { name: 'Other' } });
    });
    afterAll(async () => {
      await second.close();
      await h.close();
    });

    it('a request replayed against the other instance is 409 REPLAY_DETECTED', async () => {
      const nonce = freshNonce();
      const first = await signed(h, desk, '/gw/v1/balance', { nonce });
      expect(first.statusCode).toBe(200);
      const replay = await signed({ app: second, clock: h.clock }, desk, '/gw/v1/balance', { nonce });
      expect(replay.statusCode).toBe(409);
      expect(json(replay).fault.code).toBe('REPLAY_DETECTED');
    });

    it('the same nonce from another desk passes on the other instance', async () => {
      const nonce = freshNonce();
      expect((await signed(h, desk, '/gw/v1/methods', { nonce })).statusCode).toBe(200);
      expect((await signed({ app: second, clock: h.clock }, other, '/gw/v1/methods', { nonce })).statusCode).toBe(200);
    });

    it('a request that fails authentication on one instance does not use up the nonce on the other', async () => {
      const nonce = freshNonce();
      expect(json(await signed(h, desk, '/gw/v1/methods', { nonce, secret: 'wrong-secret' })).fault.code).toBe('AUTH_FAILED');
      expect((await signed({ app: second, clock: h.clock }, desk, '/gw/v1/methods', { nonce })).statusCode).toBe(200);
    });
  });
});
