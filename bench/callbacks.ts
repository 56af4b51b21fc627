/**
 * Callback delivery benchmark: one delivery worker drains a backlog of due events to a local
 * receiver that answers 200 at once, beside a baseline (the same receiver driven by a bare undici
 * loop with as many requests in flight as the worker may hold on one host) in the same run.
 * The receiver runs in a process of its own, so it does not share the event loop with either.
 *
 *   npm run bench:callbacks                       # embedded PGlite in a temporary DATA_DIR
 *   DATABASE_URL=postgres://… npm run bench:callbacks
 *
 * BENCH_EVENTS (default 10000), CALLBACK_CONCURRENCY and CALLBACK_HOST_SHARE change the load.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { Agent, request } from 'undici';
import { DeliveryWorker } from '../src/callbacks/delivery.js';
import { benchRuntime } from './runtime.js';
import * as op from '../src/services/operator.js';
import { signMessage } from '../src/signing.js';
import type { Db } from '../src/store/db.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);

const RECEIVER = `
const http = require('node:http');
let hits = 0;
const s = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { hits++; res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
process.on('message', () => process.send(hits));
`;

async function startReceiver(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (c: Buffer) => resolve(c.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

const BODY = JSON.stringify({
  event: 'order.completed',
  id: 'ord_01jbenchbenchbenchbenchbench',
  orderRef: 'bench-1',
  status: 'Completed',
  amount: { value: '918.00', currency: 'RUB' },
  settled: { value: '10.00000000', currency: 'USD', rate: '91.80000000' },
  method: 'Classic',
  rail: 'Sbp',
  occurredAt: new Date().toISOString(),
});

/** The baseline: the same POSTs, signed the same way, from a bare loop with `inFlight` requests at a time. */
async function baseline(url: string, inFlight: number, total: number): Promise<number> {
  const agent = new Agent({ connections: inFlight, pipelining: 1 });
  let sent = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < total) {
        sent++;
        const ts = String(Math.floor(Date.now() / 1000));
        const eventId = `evt_${randomBytes(13).toString('hex')}`;
        const body = Buffer.from(BODY);
        const r = await request(`${url}/cb`, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': 'application/json; charset=utf-8', 'x-gate-ts': ts, 'x-gate-event-id': eventId, 'x-gate-sign': signMessage('secret', ts, eventId, body) },
        });
        await r.body.dump();
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  await agent.close();
  return total / secs;
}

async function main() {
  const receiver = await startReceiver();
  const bench = await benchRuntime('cbbench', { CALLBACK_ALLOWLIST: '127.0.0.1' });
  const { runtime } = bench;
  const { ctx } = runtime;
  const m = await op.createMerchant(ctx, { name: 'Bench', sandbox: true });
  await op.putCurrency(ctx, 'RUB', { enabled: true, spreadPercent: '0' });
  await op.putManualRate(ctx, 'RUB', '91.8');
  const desk = await op.createDesk(ctx, m.id, {
    method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0',
    callbackUrl: `${receiver.url}/cb`, callbacksEnabled: true, tariffId: null,
  });

  // BENCH_PROFILE=1: time each statement the worker runs, to see where a pass goes.
  const stats = new Map<string, { n: number; ms: number }>();
  const db: Db = !process.env.BENCH_PROFILE
    ? ctx.db
    : {
        ...ctx.db,
        async query(sql, params) {
          const t = performance.now();
          try {
            return await ctx.db.query(sql, params);
          } finally {
            const k = sql.replace(/\s+/g, ' ').trim().slice(0, 50);
            const st = stats.get(k) ?? { n: 0, ms: 0 };
            st.n++;
            st.ms += performance.now() - t;
            stats.set(k, st);
          }
        },
      };
  const worker = new DeliveryWorker({ ...ctx, db });
  const base = await baseline(receiver.url, worker.perReceiver, EVENTS);
  console.error(`baseline done: ${base.toFixed(0)} req/s`);

  // The backlog: EVENTS events, all due now, to the one receiver.
  await ctx.db.query(
    `INSERT INTO outbox_events (id, order_id, desk_id, event, body, url, receiver, state, attempts, next_attempt_at, created_at)
     SELECT 'evt_bench' || lpad(g::text, 10, '0'), 'ord_bench' || g, $1, 'order.completed', $2, $3, '127.0.0.1', 'pending', 0, now(), now()
       FROM generate_series(1, $4::int) g`,
    [desk.id, BODY, `${receiver.url}/cb`, EVENTS],
  );
  const delivered = async () => (await ctx.metrics.callbackAttempts.get()).values.reduce((n, v) => n + v.value, 0);
  const start = performance.now();
  worker.start();
  let shown = performance.now();
  for (let n = 0; (n = await delivered()) < EVENTS; ) {
    await new Promise((r) => setTimeout(r, 5));
    if (performance.now() - shown > 5000) {
      shown = performance.now();
      console.error(`  … ${n} delivered after ${((shown - start) / 1000).toFixed(0)} s`);
    }
  }
  const secs = (performance.now() - start) / 1000;
  await worker.stop();
  const { rows } = await ctx.db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM outbox_events GROUP BY state`);

  console.log(`database: ${ctx.db.kind}; ${cpus().length} cores; worker ${worker.concurrency} slots, ${worker.perReceiver} per host; ${EVENTS} due events`);
  console.log(`baseline (bare undici loop, ${worker.perReceiver} in flight): ${base.toFixed(0)} req/s`);
  console.log(`delivery worker: ${EVENTS} callbacks in ${secs.toFixed(2)} s = ${(EVENTS / secs).toFixed(0)} callbacks/s (${((EVENTS / secs / base) * 100).toFixed(0)} % of baseline)`);
  for (const [k, v] of stats) console.log(`  ${String(v.n).padStart(6)} × ${(v.ms / v.n).toFixed(2).padStart(6)} ms  ${k}`);
  console.log(`outbox: ${rows.map((r) => `${r.state} ${r.n}`).join(', ')}`);

  receiver.stop();
  await bench.dispose();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
