/**
 * Load benchmark: measures Paygate's signed endpoints against baselines served by the same process
 * tree (a bare Fastify route, and a route that does the same SHA-256 + HMAC work without a
 * database), and reports each ratio. Loopback only, bounded in requests and time.
 *
 *   npm run bench            # PGlite in memory
 *   DATABASE_URL=postgres://… MASTER_KEY=… npm run bench
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { Agent, request } from 'undici';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { createRuntime, createLogger } from '../src/runtime.js';
import { hmacHex, sha256Hex, signRequest } from '../src/signing.js';
import * as op from '../src/services/operator.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const MAX_REQUESTS = 200_000;

interface Result {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(name: string, makeRequest: () => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + DURATION_MS;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until && latencies.length < MAX_REQUESTS) {
        const t = performance.now();
        const status = await makeRequest().catch(() => 0);
        latencies.push(performance.now() - t);
        if (status < 200 || status >= 300) errors++;
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { name, requests: latencies.length, rps: latencies.length / secs, p50: pct(0.5), p99: pct(0.99), errors };
}

async function main() {
  const agent = new Agent({ connections: CONNECTIONS, pipelining: 1 });
  const call = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
    const r = await request(url, { dispatcher: agent, method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body });
    await r.body.dump();
    return r.statusCode;
  };

  // Baselines in this process: a bare route, and the same hashing and HMAC work as authentication.
  const base = Fastify();
  base.get('/hello', async () => ({ ok: true }));
  base.post('/hmac', async (req) => {
    const body = JSON.stringify(req.body ?? {});
    return { sign: hmacHex('secret', `1.nonce.POST./hmac.${sha256Hex(body)}`) };
  });
  await base.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(base.server.address() as AddressInfo).port}`;

  // Against a server, the benchmark works in a database of its own and drops it afterwards.
  const serverUrl = process.env.DATABASE_URL || null;
  const benchDb = `paygate_bench_${process.pid}`;
  const adminSql = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl! });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  let databaseUrl: string | undefined;
  if (serverUrl) {
    await adminSql(`CREATE DATABASE ${benchDb}`);
    const u = new URL(serverUrl);
    u.pathname = `/${benchDb}`;
    databaseUrl = u.toString();
  }
  const config = parseConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
    MASTER_KEY: process.env.MASTER_KEY ?? randomBytes(32).toString('hex'),
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    DATA_DIR: process.env.DATA_DIR ?? `/tmp/paygate-bench-${process.pid}`,
  });
  const runtime = await createRuntime(config, { clock: systemClock, log: createLogger('silent') });
  const { ctx } = runtime;
  const m = await op.createMerchant(ctx, { name: 'Bench', sandbox: true });
  await op.putCurrency(ctx, 'RUB', { enabled: true, spreadPercent: '0' });
  await op.putManualRate(ctx, 'RUB', '91.8');
  const desk = await op.createDesk(ctx, m.id, {
    method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0',
    callbackUrl: 'https://93.184.215.14/cb', callbacksEnabled: false, tariffId: null,
  });
  // The order-create rate limit (30 per 10 s per desk) would measure the limiter, not the service.
  ctx.limits.orderCreate.take = async () => ({ ok: true });
  const app = buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const signedHeaders = (method: string, path: string, body: string) => {
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(9).toString('hex');
    return {
      'content-type': 'application/json',
      'x-gate-key': desk.key,
      'x-gate-ts': ts,
      'x-gate-nonce': nonce,
      'x-gate-sign': signRequest(desk.secret, ts, nonce, method, path, body),
    };
  };
  const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp"}';

  const results: Result[] = [];
  results.push(await load('baseline: bare GET', () => call(`${baseUrl}/hello`)));
  results.push(await load('baseline: POST + SHA-256 + HMAC', () => call(`${baseUrl}/hmac`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: orderBody })));
  results.push(await load('GET /gw/v1/balance (signed)', () => call(`${url}/gw/v1/balance`, { headers: signedHeaders('GET', '/gw/v1/balance', '') })));
  results.push(await load('POST /gw/v1/orders (signed, sandbox)', () => call(`${url}/gw/v1/orders`, { method: 'POST', headers: signedHeaders('POST', '/gw/v1/orders', orderBody), body: orderBody })));

  const ref = results[1].rps;
  console.log(`database: ${ctx.db.kind}, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s each`);
  console.log('scenario'.padEnd(40), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors'.padStart(7), 'vs hmac baseline'.padStart(17));
  for (const r of results) {
    console.log(r.name.padEnd(40), r.rps.toFixed(0).padStart(9), r.p50.toFixed(1).padStart(8), r.p99.toFixed(1).padStart(8), String(r.errors).padStart(7), (r.rps / ref).toFixed(2).padStart(17));
  }
  await app.close();
  await base.close();
  await agent.close();
  await runtime.close();
  if (serverUrl) await adminSql(`DROP DATABASE IF EXISTS ${benchDb} WITH (FORCE)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
