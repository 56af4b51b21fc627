import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { Redis } from 'ioredis';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/buildApp.js';
import { buildMetricsApp } from '../../src/http/health.js';
import { watchRedis } from '../../src/runtime.js';
import { redisNonceStore } from '../../src/services/nonces.js';
import { createRateLimits } from '../../src/services/rateLimits.js';
import { eventually } from '../helpers/eventually.js';
import { createHarness, json, provisionDesk, signed, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('health', () => {
  it('/healthz is liveness; /readyz names each check and answers 503 with the failing part', async () => {
    let down = false;
    let closing = false;
    const redis = { ping: async () => (down ? Promise.reject(new Error('connection refused')) : 'PONG') };
    const app = buildApp(h.ctx, { ready: () => true, shuttingDown: () => closing, redis });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(json(ready)).toEqual({ status: 'ready', failing: [], checks: { database: 'ok', migrations: 'ok', redis: 'ok' } });

    down = true;
    const noRedis = await app.inject({ method: 'GET', url: '/readyz' });
    expect(noRedis.statusCode).toBe(503);
    expect(json(noRedis)).toMatchObject({ status: 'unavailable', failing: ['redis'], checks: { redis: 'unavailable: connection refused' } });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200); // alive all the same

    down = false;
    closing = true;
    const shutting = await app.inject({ method: 'GET', url: '/readyz' });
    expect(shutting.statusCode).toBe(503);
    expect(json(shutting).failing).toEqual(['shutdown']);
    await app.close();

    const starting = buildApp(h.ctx, { ready: () => false });
    expect((await starting.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
    await starting.close();
  });

  it('once shutdown began, answers close their keep-alive connection, so closing waits for nobody', async () => {
    let closing = false;
    const app = buildApp(h.ctx, { ready: () => true, shuttingDown: () => closing });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => res.resume().on('end', () => resolve(res))).on('error', reject);
      });
    try {
      expect((await get()).headers.connection).toBe('keep-alive');
      closing = true;
      const last = await get();
      expect(last.statusCode).toBe(200);
      expect(last.headers.connection).toBe('close');
      // the client keeps its agent open: only the server's answer closed the connection
      await app.close();
      expect(app.server.listening).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it('/readyz is 503 when the schema is behind the code', async () => {
    const { rows } = await h.ctx.db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1');
    await h.ctx.db.query('DELETE FROM schema_migrations WHERE version = $1', [rows[0].version]);
    try {
      const res = await h.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(json(res).failing).toEqual(['migrations']);
    } finally {
      await h.ctx.db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [rows[0].version, rows[0].name]);
    }
  });

  it('/readyz is 503 when the database does not answer', async () => {
    const app = buildApp({ ...h.ctx, db: { ...h.ctx.db, query: () => Promise.reject(new Error('connection terminated')) } });
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(json(res)).toMatchObject({ failing: ['database', 'migrations'], checks: { database: 'unavailable: connection terminated' } });
    await app.close();
  });

  it('metrics have a listener of their own', async () => {
    const m = buildMetricsApp(h.ctx);
    const res = await m.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^paygate_http_requests_total/m);
    await m.close();
  });
});

describe('bodies over 1 MiB', () => {
  it('get 413 PAYLOAD_TOO_LARGE in the envelope over a real socket, declared or chunked', async () => {
    const app = buildApp(h.ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/gw/v1/orders`;
    try {
      const big = Buffer.alloc(2 * 1024 * 1024, 0x61);
      const declared = await request(url, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
      expect(declared.statusCode).toBe(413);
      expect(await declared.body.json()).toMatchObject({ status: 'error', fault: { code: 'PAYLOAD_TOO_LARGE' }, traceId: expect.any(String) });

      async function* chunks() {
        for (let i = 0; i < 32; i++) yield Buffer.alloc(64 * 1024, 0x62);
      }
      const chunked = await request(url, { method: 'POST', body: Readable.from(chunks()), headers: { 'content-type': 'application/json' } });
      expect(chunked.statusCode).toBe(413);
      expect(((await chunked.body.json()) as any).fault.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await app.close();
    }
  });
});

describe('Redis down', () => {
  it('signed calls answer 503 SERVICE_UNAVAILABLE in the envelope, not 500', async () => {
    // A port where nothing listens.
    const redis = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => {});
    const hr = await createHarness({ nonces: redisNonceStore(redis) });
    try {
      const desk = await provisionDesk(hr.app);
      const res = await signed(hr, desk, '/gw/v1/balance');
      expect(res.statusCode).toBe(503);
      expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/Redis/) }, traceId: expect.any(String) });
      const limits = createRateLimits(redis);
      await expect(limits.orderCreate.take('k')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      redis.disconnect();
      await hr.close();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)('Redis outage and recovery (REDIS_URL)', () => {
  it('is logged once per outage, and calls recover without a restart', async () => {
    const target = new URL(process.env.REDIS_URL!);
    // A proxy in front of the real Redis, cut and restored by the test.
    const sockets = new Set<Socket>();
    let proxy: Server = createServer();
    const open = (port: number) =>
      new Promise<void>((resolve) => {
        proxy = createServer((c) => {
          const up = connect(Number(target.port || 6379), target.hostname);
          sockets.add(c).add(up);
          c.pipe(up).pipe(c);
          const end = () => (c.destroy(), up.destroy());
          c.on('error', end).on('close', end);
          up.on('error', end).on('close', end);
        });
        proxy.listen(port, '127.0.0.1', () => resolve());
      });
    await open(0);
    const port = (proxy.address() as { port: number }).port;
    const cut = async () => {
      const closed = new Promise<void>((r) => proxy.close(() => r()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    };

    const lines: any[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(c.toString())), cb()) }));
    const redis = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    watchRedis(redis, log);
    let reconnects = 0;
    redis.on('reconnecting', () => reconnects++);
    const hr = await createHarness({ nonces: redisNonceStore(redis, `paygate:test:${Date.now()}:`) });
    try {
      const desk = await provisionDesk(hr.app);
      const waitFor = async (status: number) => {
        let res: Awaited<ReturnType<typeof signed>> | undefined;
        await eventually(`a ${status} answer`, async () => (res = await signed(hr, desk, '/gw/v1/balance')).statusCode === status, { withinMs: 5_000, everyMs: 25 });
        return res!;
      };
      await waitFor(200);
      await cut();
      const down = await waitFor(503);
      expect(json(down).fault.code).toBe('SERVICE_UNAVAILABLE');
      for (let i = 0; i < 10; i++) expect([503]).toContain((await signed(hr, desk, '/gw/v1/balance')).statusCode);
      // several reconnect attempts fail meanwhile
      const before = reconnects;
      await eventually('three reconnect attempts while Redis is away', () => reconnects >= before + 3);
      await open(port);
      await waitFor(200);
      expect(lines.filter((l) => /redis unavailable/.test(l.msg))).toHaveLength(1);
      expect(lines.filter((l) => /redis available again/.test(l.msg))).toHaveLength(1);
    } finally {
      redis.disconnect();
      if (proxy.listening) await cut();
      await hr.close();
    }
  });
});
