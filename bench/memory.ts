/**
 * Memory under mixed load: the real server in a process of its own, started as `npm start` starts
 * it (src/ turned into plain JavaScript under dist/, then `node dist/main.js serve`), provisioned through the operator API, then driven for
 * MEMORY_SECONDS (default 300) by load generators in their own processes, all at once: balance,
 * methods, rates, order reads and order creation. The server's resident set size
 * is sampled every 5 s from /proc; the run prints it per minute, the peak, and the growth from the
 * end of the second minute to the end of the run.
 *
 *   DATABASE_URL=postgres://… npm run bench:memory      # PostgreSQL, in a throwaway database
 *   npm run bench:memory                                 # embedded database in a temporary DATA_DIR
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signRequest } from '../src/signing.js';
import { throwawayDatabase } from './runtime.js';

const SECONDS = Number(process.env.MEMORY_SECONDS ?? 300);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TOKEN = 'bench-admin-token-0123456789';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'paygate-memory-'));
  const database = await throwawayDatabase('memory');
  const databaseUrl = database?.url;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    DATA_DIR: join(work, 'data'),
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: TOKEN,
    MASTER_KEY: randomBytes(32).toString('hex'),
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  delete env.REDIS_URL;
  execFileSync(process.execPath, ['tools/transpile.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const server = spawn(process.execPath, ['dist/main.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const children: ChildProcess[] = [server];
  const cleanup = async () => {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(work, { recursive: true, force: true });
    await database?.drop().catch(() => {});
  };
  try {
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('the server did not start');
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const j = (await res.json()) as { result: any };
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j)}`);
      return j.result;
    };
    await admin('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
    await admin('PUT', '/rates/RUB', { rate: '91.8' });
    const desks: { key: string; secret: string; orderId: string }[] = [];
    for (let i = 0; i < DESKS; i++) {
      const m = await admin('POST', '/merchants', { name: `Memory ${i}`, sandbox: true });
      const d = await admin('POST', `/merchants/${m.id}/desks`, {
        method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0',
        callbackUrl: 'https://93.184.215.14/cb', callbacksEnabled: false, tariffId: null,
      });
      const body = JSON.stringify({ amount: 100, rail: 'Sbp', currency: 'RUB' });
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('hex');
      const res = await fetch(`${base}/gw/v1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gate-key': d.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(d.secret, ts, nonce, 'POST', '/gw/v1/orders', body) },
        body,
      });
      const order = (await res.json()) as { result: { id: string } };
      desks.push({ key: d.key, secret: d.secret, orderId: order.result.id });
    }
    const desksFile = join(work, 'desks.json');
    writeFileSync(desksFile, JSON.stringify(desks));

    const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"memory-{i}"}';
    const jobs = [
      { method: 'GET', path: '/gw/v1/balance', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/methods', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/rates', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/orders/{order}', body: '', desksFile, connections: 4 },
      { method: 'POST', path: '/gw/v1/orders', body: orderBody, desksFile, connections: 4 },
    ];
    const started = Date.now();
    const samples: { t: number; mb: number }[] = [{ t: 0, mb: rssMb(server.pid!) }];
    const loads = jobs.map(
      (job) =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/loadgen.ts'), JSON.stringify({ url: base, seconds: SECONDS, ...job })], { stdio: ['ignore', 'pipe', 'inherit'] });
          children.push(child);
          let out = '';
          child.stdout!.on('data', (c) => (out += c));
          child.on('exit', () => resolve(`${job.method} ${job.path}: ${out.trim()}`));
        }),
    );
    const sampler = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(server.pid!) }), 5000);
    const results = await Promise.all(loads);
    clearInterval(sampler);
    samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(server.pid!) });

    // Per minute of load: the mean and the peak of that minute's samples (one sample is too noisy:
    // a collection just before it can hide tens of megabytes).
    const minute = (m: number) => samples.filter((x) => x.t > (m - 1) * 60 && x.t <= m * 60).map((x) => x.mb);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`database: ${database ? 'pg' : 'pglite'}; ${SECONDS} s of mixed load, ${DESKS} desks, 20 connections over 5 load generators`);
    for (const r of results) console.log(r);
    console.log(`RSS at the start of the load: ${samples[0]!.mb.toFixed(1)} MB`);
    for (let m = 1; m * 60 <= SECONDS + 5; m++) {
      const xs = minute(m);
      if (xs.length) console.log(`RSS in minute ${m}: mean ${mean(xs).toFixed(1)} MB, peak ${Math.max(...xs).toFixed(1)} MB`);
    }
    if (SECONDS >= 300) console.log(`growth of the mean from minute 2 to minute 5: ${(mean(minute(5)) - mean(minute(2))).toFixed(1)} MB`);
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
