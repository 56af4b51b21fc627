/**
 * Exports at size (issue "Reports and exports at any size", point 2): BENCH_EXPORT_ORDERS
 * (1,000,000) orders of one merchant written with SQL into a throwaway database, the real server
 * started on it as `npm start` runs it, then the heaviest export, the back office's orders CSV of
 * every one of them, downloaded over and over (two at once, an operator's limit) while a load
 * generator in its own process (bench/loadgen.ts) times `GET /healthz` and another a signed
 * `GET /gw/v1/balance`, against the same with nothing else running. For each: p50 and p99 of both,
 * the exports' rows per second and the server's peak RSS (from /proc every 20 ms).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:exports   # PostgreSQL
 *   npm run bench:exports                                                              # embedded database
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPglite } from '../src/store/db.js';
import { throwawayDatabase } from './runtime.js';
import { freePort, provisionDesks, rssMb, signInCookie, startPaygate, type PaygateProcess } from './server.js';

const TOKEN = 'bench-admin-token-0123456789';
const ORDERS = Number(process.env.BENCH_EXPORT_ORDERS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_EXPORT_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_EXPORT_CONNECTIONS ?? 2);
const PASSWORD = 'bench export passphrase 2026';

/** `n` copies of the order, a second apart going back, every third cancelled: as the tests write them. */
function ordersSql(orderId: string, n: number): string {
  return `INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, direction, status, sub_status, placement,
       payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, cancel_reason, created_at, expires_at, updated_at)
     SELECT 'ord_bx' || lpad(g::text, 22, '0'), desk_id, merchant_id, 'bench-' || g, amount + g, currency, rate, settled_amount, method, rail, direction,
       CASE WHEN g % 3 = 0 THEN 'Canceled' ELSE status END, CASE WHEN g % 3 = 0 THEN 'Cancelled' ELSE sub_status END, placement,
       payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, CASE WHEN g % 3 = 0 THEN 'cancelled by merchant' END,
       created_at - g * interval '1 second', expires_at, updated_at
     FROM orders, generate_series(1, ${n}) g WHERE id = '${orderId}'`;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function loadgen(job: Record<string, unknown>): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./loadgen.ts', import.meta.url).pathname, JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, ...job })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** The office's session cookie of a new operator, signed in through the form as a browser does. */
async function officeCookie(base: string): Promise<string> {
  const email = 'bench@paygate.example';
  const made = await fetch(`${base}/admin/v1/operators`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, role: 'admin' }),
  });
  if (made.status !== 201) throw new Error(`operator: ${made.status} ${await made.text()}`);
  return signInCookie(base, 'office', email, PASSWORD);
}

/** Downloads the export to the end, counting its lines. */
async function download(url: string, cookie: string): Promise<{ ms: number; lines: number; firstByteMs: number }> {
  const t = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  const reader = res.body!.getReader();
  let lines = 0;
  let firstByteMs = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstByteMs) firstByteMs = performance.now() - t;
    for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
  }
  return { ms: performance.now() - t, lines, firstByteMs };
}

/** The server's own event-loop delay since the last scrape (prom-client resets it on each), p99 and max in ms. */
async function loopDelay(metricsBase: string): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${metricsBase}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}

async function probeRound(server: PaygateProcess, metricsBase: string, desksFile: string, busy: (until: number) => Promise<string>): Promise<{ health: Load; balance: Load; peak: number; loop: { p99: number; max: number }; note: string }> {
  await loopDelay(metricsBase);
  const pid = server.process.pid!;
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const until = Date.now() + SECONDS * 1000;
  const [health, balance, note] = await Promise.all([
    loadgen({ url: server.base, method: 'GET', path: '/healthz', body: '' }),
    loadgen({ url: server.base, method: 'GET', path: '/gw/v1/balance', body: '', desksFile }),
    busy(until),
  ]);
  clearInterval(sampler);
  return { health, balance, peak: Math.max(peak, rssMb(pid)), loop: await loopDelay(metricsBase), note };
}

async function main() {
  const database = await throwawayDatabase('exports');
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-exports-'));
  const metricsPort = await freePort();
  const metricsBase = `http://127.0.0.1:${metricsPort}`;
  const start = () => startPaygate({ databaseUrl: database?.url, dataDir, env: { OFFICE_REQUIRE_2FA: 'false', METRICS_PORT: String(metricsPort) } });
  let server = await start();
  try {
    const desks = await provisionDesks(server.base, 4);
    const desksFile = join(dataDir, 'desks.json');
    writeFileSync(desksFile, JSON.stringify(desks));
    const t = performance.now();
    const statements = [ordersSql(desks[0]!.orderId, ORDERS), 'ANALYZE orders'];
    if (database) {
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      for (const s of statements) await c.query(s);
      await c.end();
    } else {
      // The embedded database is one process's: the server stops while the orders are written.
      await server.stop();
      const db = await openPglite(join(dataDir, 'pg'));
      for (const s of statements) await db.exec(s);
      await db.close();
      server = await start();
    }
    console.log(`${database ? 'PostgreSQL' : 'embedded database'}: ${ORDERS.toLocaleString('en')} orders of one merchant written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const cookie = await officeCookie(server.base);
    const url = `${server.base}/office/orders.csv?mode=sandbox`;
    const rows: string[] = [];
    const line = (name: string, r: Awaited<ReturnType<typeof probeRound>>) =>
      rows.push(
        `| ${name} | ${r.health.p50} | ${r.health.p99} | ${r.balance.rps.toFixed(0)} | ${r.balance.p50} | ${r.balance.p99} | ${r.health.errors + r.health.non2xx + r.balance.errors + r.balance.non2xx} | ${r.loop.p99.toFixed(1)} / ${r.loop.max.toFixed(1)} | ${r.peak.toFixed(0)} | ${r.note} |`,
      );

    line('idle', await probeRound(server, metricsBase, desksFile, async () => ''));
    // Two at once, again and again until the probes end: the heaviest export an operator can ask for.
    line(
      'orders CSV ×2, all orders',
      await probeRound(server, metricsBase, desksFile, async (until) => {
        const done: { ms: number; lines: number; firstByteMs: number }[] = [];
        await Promise.all(
          [0, 1].map(async () => {
            while (Date.now() < until) done.push(await download(url, cookie));
          }),
        );
        const rowsPerS = done.reduce((s, d) => s + d.lines - 1, 0) / (done.reduce((s, d) => s + d.ms, 0) / 1000 / 2);
        return `${done.length} exports of ${(done[0]!.lines - 1).toLocaleString('en')} rows, ${(done[0]!.ms / 1000).toFixed(1)} s each (first byte ${done[0]!.firstByteMs.toFixed(0)} ms), ${Math.round(rowsPerS).toLocaleString('en')} rows/s`;
      }),
    );
    console.log(`${CONNECTIONS} connections per load generator, ${SECONDS} s per round`);
    console.log('| while | /healthz p50 ms | /healthz p99 ms | balance req/s | balance p50 ms | balance p99 ms | errors | server event-loop delay p99 / max ms | server RSS peak MB | exports |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await server.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
