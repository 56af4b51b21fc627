/**
 * Webhook endpoint benchmark: merchants with 10 endpoints each, 3 of them dead (they accept the
 * connection and never answer), events written through the outbox as orders write them.
 *
 *   1. throughput: a backlog of events, fanned out to every endpoint; deliveries per second to
 *      the live endpoints until all are delivered, beside a baseline in the same run (a bare
 *      undici loop posting the same bodies to the same receiver with as many requests in flight
 *      as the live endpoints may hold);
 *   2. latency: events written at a steady rate; from an event's write to its arrival at each live
 *      endpoint, p50/p95/p99.
 *
 * The receivers run in a process of their own.
 *
 *   npm run bench:webhooks                         # embedded PGlite in a temporary DATA_DIR
 *   DATABASE_URL=postgres://… npm run bench:webhooks
 *
 * BENCH_MERCHANTS (4), BENCH_EVENTS per merchant (1000), BENCH_RATE events per second in the
 * latency phase (50), BENCH_SECONDS of it (20). BENCH_PROFILE=1 prints the time of each statement
 * the sender runs; BENCH_EXPLAIN=<start of a statement> prints its plan twice during the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { Agent, request } from 'undici';
import { WebhookSender } from '../src/callbacks/webhookSender.js';
import { newHistoryId } from '../src/ids.js';
import * as op from '../src/services/operator.js';
import { createEndpoint } from '../src/services/webhookEndpoints.js';
import { insertEvents } from '../src/store/outbox.js';
import type { Db } from '../src/store/db.js';
import { benchRuntime } from './runtime.js';

const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 4);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const LIVE = 7;
const DEAD = 3;

// Live endpoints answer 204 at once and note when each delivery arrived; dead ones never answer.
const RECEIVER = `
const http = require('node:http');
let hits = 0;
const arrivals = [];
let recording = false;
const live = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    hits++;
    if (recording) arrivals.push([req.headers['webhook-id'], Date.now()]);
    res.writeHead(204); res.end();
  });
});
live.keepAliveTimeout = 60000;
const dead = http.createServer(() => {});
live.listen(0, '127.0.0.1', () => dead.listen(0, '127.0.0.1', () =>
  process.stdout.write(live.address().port + ' ' + dead.address().port + '\\n')));
process.on('message', (m) => {
  if (m === 'record') { recording = true; arrivals.length = 0; process.send({ hits }); }
  else if (m === 'arrivals') process.send({ hits, arrivals });
  else process.send({ hits });
});
`;

interface Receivers {
  live: string;
  dead: string;
  ask(m: string): Promise<{ hits: number; arrivals?: [string, number][] }>;
  child: ChildProcess;
}

async function startReceivers(): Promise<Receivers> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [live, dead] = await new Promise<string[]>((resolve) => child.stdout!.once('data', (c: Buffer) => resolve(c.toString().trim().split(' '))));
  const ask = (m: string) =>
    new Promise<{ hits: number; arrivals?: [string, number][] }>((resolve) => {
      child.once('message', (r) => resolve(r as { hits: number }));
      child.send(m);
    });
  return { live: `http://127.0.0.1:${live}`, dead: `http://127.0.0.1:${dead}`, ask, child };
}

const callbackBody = (orderId: string, at: number) =>
  JSON.stringify({
    event: 'order.completed', id: orderId, orderRef: null, status: 'Completed',
    amount: { value: '918.00', currency: 'RUB' }, settled: { value: '10.00000000', currency: 'USD', rate: '91.80000000' },
    paidAmount: { value: '918.00', currency: 'RUB' }, method: 'Classic', rail: 'Sbp', occurredAt: new Date(at).toISOString(), sandbox: true,
  });

async function baseline(url: string, inFlight: number, total: number): Promise<number> {
  const agent = new Agent({ connections: inFlight, pipelining: 1 });
  const body = Buffer.from(JSON.stringify({ type: 'order.completed', timestamp: new Date().toISOString(), data: JSON.parse(callbackBody('ord_x', Date.now())) }));
  let sent = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < total) {
        sent++;
        const r = await request(`${url}/base`, { method: 'POST', dispatcher: agent, body, headers: { 'content-type': 'application/json', 'webhook-id': 'evt_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' } });
        await r.body.dump();
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  await agent.close();
  return total / secs;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function main() {
  const rx = await startReceivers();
  const bench = await benchRuntime('whbench', { CALLBACK_ALLOWLIST: '127.0.0.1' });
  const { ctx } = bench.runtime;
  await op.putCurrency(ctx, 'RUB', { enabled: true, spreadPercent: '0' });
  await op.putManualRate(ctx, 'RUB', '91.8');
  const desks: string[] = [];
  for (let m = 0; m < MERCHANTS; m++) {
    const merchant = await op.createMerchant(ctx, { name: `Bench ${m}`, sandbox: true });
    // The desk's own callbacks are off: only the endpoints are measured.
    const desk = await op.createDesk(ctx, merchant.id, { method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: null, callbacksEnabled: false, tariffId: null });
    desks.push(desk.id);
    for (let i = 0; i < LIVE; i++) await createEndpoint(ctx, merchant.id, 'bench', { url: `${rx.live}/m${m}/live${i}`, events: ['*'] });
    for (let i = 0; i < DEAD; i++) await createEndpoint(ctx, merchant.id, 'bench', { url: `${rx.dead}/m${m}/dead${i}`, events: ['*'] });
  }
  // BENCH_PROFILE=1: time each statement the sender runs, to see where its time goes.
  const stats = new Map<string, { n: number; ms: number }>();
  const db: Db = !process.env.BENCH_PROFILE
    ? ctx.db
    : {
        ...ctx.db,
        tx: (fn) => ctx.db.tx((q) => fn({ ...q, query: timed(q.query.bind(q)) } as typeof q)),
        query: timed(ctx.db.query.bind(ctx.db)),
      };
  function timed<F extends (sql: string, params?: readonly unknown[]) => Promise<any>>(f: F): F {
    return (async (sql: string, params?: readonly unknown[]) => {
      const t = performance.now();
      if (process.env.BENCH_EXPLAIN && sql.includes(process.env.BENCH_EXPLAIN) && (stats.get('explained')?.n ?? 0) < 2 && (stats.get(sql.replace(/\s+/g, ' ').trim().slice(0, 60))?.n ?? 0) > 100) {
        stats.set('explained', { n: (stats.get('explained')?.n ?? 0) + 1, ms: 0 });
        const plan = await f(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
        console.error(plan.rows.map((r: Record<string, string>) => Object.values(r)[0]).join('\n'));
      }
      try {
        return await f(sql, params);
      } finally {
        const k = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
        const st = stats.get(k) ?? { n: 0, ms: 0 };
        st.n++;
        st.ms += performance.now() - t;
        stats.set(k, st);
      }
    }) as F;
  }
  const sender = new WebhookSender({ ...ctx, db });
  const liveSlots = MERCHANTS * LIVE * ctx.config.webhookEndpointConcurrency;
  const liveTotal = MERCHANTS * EVENTS * LIVE;
  const base = await baseline(rx.live, liveSlots, Math.min(liveTotal, 20_000));
  console.error(`baseline: ${base.toFixed(0)} req/s with ${liveSlots} in flight`);

  // 1. throughput: the backlog, written as orders write events (fanned out in the same statement).
  const at = Date.now();
  for (let m = 0; m < MERCHANTS; m++) {
    for (let done = 0; done < EVENTS; done += 500) {
      const batch = Array.from({ length: Math.min(500, EVENTS - done) }, (_, k) => {
        const orderId = `ord_bench${m}x${done + k}`;
        return { id: newHistoryId('evt', at), orderId, deskId: desks[m]!, event: 'order.completed' as const, body: callbackBody(orderId, at), url: null, at: new Date(at), sandbox: true };
      });
      await insertEvents(ctx.db, batch);
    }
  }
  const before = (await rx.ask('count')).hits;
  const start = performance.now();
  sender.start();
  let shown = start;
  for (;;) {
    const n = (await rx.ask('count')).hits - before;
    if (n >= liveTotal) break;
    await new Promise((r) => setTimeout(r, 20));
    if (performance.now() - shown > 5000) {
      shown = performance.now();
      console.error(`  … ${n} of ${liveTotal} delivered after ${((shown - start) / 1000).toFixed(0)} s`);
    }
  }
  const secs = (performance.now() - start) / 1000;

  // 2. latency: RATE events a second (spread over the merchants) for SECONDS seconds.
  await rx.ask('record');
  const written = new Map<string, number>();
  const t0 = Date.now();
  for (let i = 0; i < RATE * SECONDS; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const m = i % MERCHANTS;
    const now = Date.now();
    const id = newHistoryId('evt', now);
    written.set(id, now);
    await insertEvents(ctx.db, [{ id, orderId: `ord_lat${i}`, deskId: desks[m]!, event: 'order.completed', body: callbackBody(`ord_lat${i}`, now), url: null, at: new Date(now), sandbox: true }]);
  }
  const expected = RATE * SECONDS * LIVE;
  const until = Date.now() + 30_000;
  let arrivals: [string, number][] = [];
  while (Date.now() < until) {
    arrivals = (await rx.ask('arrivals')).arrivals ?? [];
    if (arrivals.length >= expected) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const lat = arrivals.filter(([id]) => written.has(id)).map(([id, t]) => t - written.get(id)!);

  await sender.stop(0);
  const { rows } = await ctx.db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM webhook_deliveries GROUP BY state ORDER BY state`);

  console.log(`database: ${ctx.db.kind}; ${cpus().length} cores; ${MERCHANTS} merchants × (${LIVE} live + ${DEAD} dead endpoints); WEBHOOK_ENDPOINT_CONCURRENCY ${ctx.config.webhookEndpointConcurrency}`);
  console.log(`baseline (bare undici loop, ${liveSlots} in flight): ${base.toFixed(0)} req/s`);
  console.log(`throughput: ${liveTotal} live deliveries in ${secs.toFixed(2)} s = ${(liveTotal / secs).toFixed(0)} deliveries/s (${((liveTotal / secs / base) * 100).toFixed(0)} % of baseline), dead endpoints holding their slots`);
  console.log(`latency at ${RATE} events/s (${RATE * LIVE} live deliveries/s) for ${SECONDS} s: ${lat.length} of ${expected} arrived; p50 ${pct(lat, 50)} ms, p95 ${pct(lat, 95)} ms, p99 ${pct(lat, 99)} ms`);
  for (const [k, v] of stats) console.log(`  ${String(v.n).padStart(6)} × ${(v.ms / v.n).toFixed(2).padStart(6)} ms  ${k}`);
  console.log(`deliveries: ${rows.map((r) => `${r.state} ${r.n}`).join(', ')}`);
  rx.child.kill();
  await bench.dispose();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
