/**
 * Merchant statements at size (issue "Reports and exports at any size"): one merchant with
 * BENCH_STATEMENT_ENTRIES (300,000) live ledger entries over the last 30 days and
 * BENCH_STATEMENT_HISTORY (500,000) older ones, written with SQL into a throwaway database; the
 * real server started on it as `npm start` runs it; then that month's statement read over HTTP as
 * the operator API's JSON, as the cabinet's CSV, as two JSON statements at once, and the year (366
 * days, every entry) as JSON. For each:
 * time to the first byte, total time, bytes, the server's peak RSS (from /proc every 20 ms), and
 * `GET /healthz` probed one after another all along (p50, p99, max), against the same probes with
 * nothing else running.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:statements   # PostgreSQL
 *   npm run bench:statements                                                              # embedded database
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPglite } from '../src/store/db.js';
import { download, rssMb, signInCookie, startPaygate, type PaygateProcess } from './server.js';

const TOKEN = 'bench-admin-token-0123456789';
const ENTRIES = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 300_000);
const HISTORY = Number(process.env.BENCH_STATEMENT_HISTORY ?? 500_000);
const serverUrl = process.env.DATABASE_URL || null;
const MASTER_KEY = randomBytes(32).toString('hex');
const PASSWORD = 'bench statement password 0123';

const DAY_MS = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const day = (t: Date) => t.toISOString().slice(0, 10);
const FROM = day(new Date(today.getTime() - 30 * DAY_MS));
const TO = day(today);

/** Entries `n` at even steps over [start, end), credits of 0.01000001 USD with every 50th a reversal of half of it. */
function entriesSql(merchantId: string, n: number, start: Date, end: Date, offset: number): string {
  const step = (end.getTime() - start.getTime()) / n;
  return `INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, sandbox, created_at)
    SELECT '${merchantId}', 'ord_bench_' || (g + ${offset}), CASE WHEN g % 50 = 0 THEN 'reversal' ELSE 'credit' END,
           CASE WHEN g % 50 = 0 THEN -0.00500000 ELSE 0.01000001 END, NULL, false,
           timestamptz '${start.toISOString()}' + (g::float8 * ${step}) * interval '1 millisecond'
      FROM generate_series(1, ${n}) g`;
}

function fill(merchantId: string): string[] {
  const monthStart = new Date(today.getTime() - 30 * DAY_MS);
  return [
    entriesSql(merchantId, HISTORY, new Date(monthStart.getTime() - 365 * DAY_MS), monthStart, 0),
    entriesSql(merchantId, ENTRIES, monthStart, new Date(Date.now() - 60_000), HISTORY),
    `UPDATE merchants SET balance = (SELECT sum(amount) FROM ledger_entries WHERE merchant_id = '${merchantId}' AND NOT sandbox) WHERE id = '${merchantId}'`,
  ];
}

async function admin(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await res.json()) as { result: unknown };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.result;
}


const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

/** `GET /healthz` one after another until `stop`, each timed. */
function probe(base: string): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      const t = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      times.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      return times;
    },
  };
}

/** A statement read whole; anything but 200 stops the benchmark. */
async function statement(url: string, headers: Record<string, string>) {
  const r = await download(url, headers);
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return r;
}

async function measure(server: PaygateProcess, name: string, run: () => Promise<{ firstByteMs: number; totalMs: number; bytes: number }[]>) {
  const pid = server.process.pid!;
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const probes = probe(server.base);
  const results = await run();
  const health = await probes.stop();
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));
  for (const r of results) {
    console.log(
      `${name.padEnd(16)} first byte ${r.firstByteMs.toFixed(0).padStart(6)} ms  total ${(r.totalMs / 1000).toFixed(2).padStart(6)} s  ${(r.bytes / 1048576).toFixed(1).padStart(6)} MiB  ` +
        `RSS peak ${peak.toFixed(0)} MB  /healthz p50 ${pct(health, 50).toFixed(1)} ms p99 ${pct(health, 99).toFixed(1)} ms max ${Math.max(...health).toFixed(1)} ms (${health.length} probes)`,
    );
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-statements-'));
  const dbName = `paygate_bench_statements_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string | undefined;
  const sql = async (statements: string[]) => {
    if (databaseUrl) {
      const c = new pg.Client({ connectionString: databaseUrl });
      c.on('error', () => {});
      await c.connect();
      for (const s of statements) await c.query(s);
      await c.query('ANALYZE ledger_entries');
      await c.end();
    } else {
      const db = await openPglite(join(dataDir, 'pg'));
      for (const s of statements) await db.exec(s);
      await db.close();
    }
  };
  const serverSql = async (statement: string) => {
    const c = new pg.Client({ connectionString: serverUrl! });
    c.on('error', () => {});
    await c.connect();
    await c.query(statement);
    await c.end();
  };
  if (serverUrl) {
    await serverSql(`CREATE DATABASE ${dbName}`);
    const u = new URL(serverUrl);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  const start = () => startPaygate({ databaseUrl, dataDir, env: { MASTER_KEY } });
  let server = await start();
  try {
    const merchant = await admin(server.base, 'POST', '/merchants', { name: 'Statement bench', sandbox: false });
    const email = 'owner@statement-bench.example';
    await admin(server.base, 'POST', `/merchants/${merchant.id}/users`, { email, password: PASSWORD });
    const t = performance.now();
    // The embedded database is one process's: the server stops while the entries are written.
    if (!databaseUrl) await server.stop();
    await sql(fill(merchant.id));
    if (!databaseUrl) server = await start();
    console.log(`${serverUrl ? 'PostgreSQL' : 'embedded database'}: ${ENTRIES.toLocaleString('en')} entries from ${FROM} to ${TO}, ${HISTORY.toLocaleString('en')} before (written in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    const cookie = await signInCookie(server.base, 'cabinet', email, PASSWORD);
    const json = `${server.base}/admin/v1/merchants/${merchant.id}/statement?from=${FROM}&to=${TO}`;
    const csv = `${server.base}/cabinet/statement.csv?from=${FROM}&to=${TO}`;
    const auth = { authorization: `Bearer ${TOKEN}` };

    const idle = probe(server.base);
    await new Promise((r) => setTimeout(r, 2000));
    const idleTimes = await idle.stop();
    console.log(`idle             /healthz p50 ${pct(idleTimes, 50).toFixed(1)} ms p99 ${pct(idleTimes, 99).toFixed(1)} ms max ${Math.max(...idleTimes).toFixed(1)} ms; RSS ${rssMb(server.process.pid!).toFixed(0)} MB`);
    // A warm-up read, not measured: the first statement pays for the server's first plans and pages.
    await statement(json, auth);
    await measure(server, 'JSON', async () => [await statement(json, auth)]);
    await measure(server, 'CSV', async () => {
      const r = await statement(csv, { cookie });
      if (!r.lastLine.includes(',closing,')) throw new Error(`the CSV did not end with its closing row: ${r.lastLine}`);
      return [r];
    });
    await measure(server, 'JSON, two at once', async () => Promise.all([statement(json, auth), statement(json, auth)]));
    // The longest range the API takes: every entry of both.
    const yearFrom = day(new Date(today.getTime() - 365 * DAY_MS));
    await measure(server, 'JSON, 366 days', async () => [await statement(`${server.base}/admin/v1/merchants/${merchant.id}/statement?from=${yearFrom}&to=${TO}`, auth)]);
  } finally {
    await server.stop();
    if (databaseUrl) await serverSql(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
