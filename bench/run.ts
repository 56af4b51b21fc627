/**
 * Order-path benchmark: Paygate's signed endpoints against bare endpoints on the same database,
 * driven by an external load generator (bench/loadgen.ts, autocannon in its own process, signing
 * every request over a pool of 400 sandbox desks so the per-desk order limit never triggers).
 * Loopback only, bounded in time. Prints each scenario and its ratio to the baselines.
 *
 *   npm run bench                                   # embedded database (PGlite)
 *   DATABASE_URL=postgres://… npm run bench         # PostgreSQL, in a throwaway database
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../src/http/app.js';
import { registerRawBodyParser, rawBodyOf } from '../src/http/rawBody.js';
import { benchRuntime } from './runtime.js';
import * as op from '../src/services/operator.js';
import { createOrder } from '../src/services/createOrder.js';
import { getDesk } from '../src/store/desks.js';
import { getMerchant } from '../src/store/merchants.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function loadgen(name: string, job: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./loadgen.ts', import.meta.url).pathname, JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, ...job })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator for ${name} exited ${code}`));
      resolve({ name, ...JSON.parse(out.trim().split('\n').at(-1)!) });
    });
  });
}

async function main() {
  const bench = await benchRuntime('bench');
  const { runtime, work } = bench;
  const { ctx } = runtime;

  // The yardsticks, on the same database: a POST that hashes the body, computes one HMAC and does
  // one INSERT, and a GET that does SELECT 1.
  await ctx.db.exec('CREATE TABLE IF NOT EXISTS bench_bare (id bigserial PRIMARY KEY, body_sha256 text NOT NULL, sign text NOT NULL, at timestamptz NOT NULL DEFAULT now())');
  const bare = Fastify();
  registerRawBodyParser(bare);
  bare.post('/bare', async (req) => {
    const raw = rawBodyOf(req.body);
    const sha = createHash('sha256').update(raw.bytes).digest('hex');
    const sign = createHmac('sha256', 'secret').update(`${req.headers['x-gate-ts']}.${req.headers['x-gate-nonce']}.POST./bare.${sha}`).digest('hex');
    await ctx.db.query('INSERT INTO bench_bare (body_sha256, sign) VALUES ($1, $2)', [sha, sign]);
    return { status: 'ok' };
  });
  bare.get('/select1', async () => {
    await ctx.db.query('SELECT 1');
    return { status: 'ok' };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

  await op.putCurrency(ctx, 'RUB', { enabled: true, spreadPercent: '0' });
  await op.putManualRate(ctx, 'RUB', '91.8');
  const desks: { key: string; secret: string; orderId: string }[] = [];
  for (let i = 0; i < DESKS; i++) {
    const m = await op.createMerchant(ctx, { name: `Bench ${i}`, sandbox: true });
    const d = await op.createDesk(ctx, m.id, {
      method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0',
      callbackUrl: 'https://93.184.215.14/cb', callbacksEnabled: false, tariffId: null,
    });
    const order = await createOrder(ctx, (await getDesk(ctx.db, d.id))!, (await getMerchant(ctx.db, m.id))!, { amount: 100, rail: 'Sbp' });
    desks.push({ key: d.key, secret: d.secret, orderId: order.id });
  }
  const desksFile = join(work, 'desks.json');
  writeFileSync(desksFile, JSON.stringify(desks));

  const app = buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"bench-{i}"}';

  const results: Result[] = [];
  results.push(await loadgen('baseline: GET SELECT 1', { url: bareUrl, method: 'GET', path: '/select1', body: '' }));
  results.push(await loadgen('baseline: POST hash + HMAC + INSERT', { url: bareUrl, method: 'POST', path: '/bare', body: orderBody, desksFile }));
  // BENCH_ONLY=orders (or a path fragment) narrows the Paygate scenarios, e.g. for a CPU profile of one of them.
  const only = process.env.BENCH_ONLY;
  const pick = (name: string) => !only || name.includes(only);
  for (const path of ['/gw/v1/balance', '/gw/v1/methods', '/gw/v1/rates', '/gw/v1/orders/{order}']) {
    if (pick(`GET ${path}`)) results.push(await loadgen(`GET ${path}`, { url, method: 'GET', path, body: '', desksFile }));
  }
  if (pick('POST /gw/v1/orders')) results.push(await loadgen('POST /gw/v1/orders', { url, method: 'POST', path: '/gw/v1/orders', body: orderBody, desksFile }));

  const [select1, insert] = results;
  console.log(`database: ${ctx.db.kind}; ${CONNECTIONS} connections, ${SECONDS} s each, ${DESKS} desks, load generator in its own process`);
  console.log('scenario'.padEnd(38), 'req/s'.padStart(8), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), 'errors'.padStart(7), 'non-2xx'.padStart(8), 'vs INSERT'.padStart(10), 'vs SELECT 1'.padStart(12));
  for (const r of results) {
    console.log(
      r.name.padEnd(38), r.rps.toFixed(0).padStart(8), String(r.p50).padStart(7), String(r.p99).padStart(7), String(r.errors).padStart(7), String(r.non2xx).padStart(8),
      (r.rps / insert.rps).toFixed(2).padStart(10), (r.rps / select1.rps).toFixed(2).padStart(12),
    );
  }
  await app.close();
  await bare.close();
  await bench.dispose();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
