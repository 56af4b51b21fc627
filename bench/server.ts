/**
 * Paygate as a benchmark measures it: the real server in a process of its own, started as
 * `npm start` starts it (src/ turned into plain JavaScript under dist/, then `node dist/main.js
 * serve`) with the default settings, its log lines read and dropped by this process as a log
 * collector would; then sandbox desks provisioned through the operator API.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { signRequest } from '../src/signing.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** What `npm start` puts in NODE_OPTIONS unless the environment sets it. */
export const SERVER_HEAP_FLAG = '--max-old-space-size=1024';
/** The operator API token every benchmark's server is started with (`ADMIN_TOKEN`). */
export const TOKEN = 'bench-admin-token-0123456789';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BenchDesk {
  key: string;
  secret: string;
  /** An order of this desk, for the order-read scenario. */
  orderId: string;
}

export interface PaygateProcess {
  base: string;
  process: ChildProcess;
  /** Bytes of log the server wrote. */
  logBytes(): number;
  stop(): Promise<void>;
}

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (i > 600) throw new Error('the server did not start');
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the server on PostgreSQL (databaseUrl) or on an embedded database in dataDir. */
export async function startPaygate(opts: { databaseUrl?: string; dataDir: string; env?: Record<string, string> }): Promise<PaygateProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    DATA_DIR: opts.dataDir,
    SEED_DEMO: 'false',
    ADMIN_TOKEN: TOKEN,
    MASTER_KEY: randomBytes(32).toString('hex'),
    ...opts.env,
  };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.LOG_LEVEL;
  Object.assign(env, opts.env);
  execFileSync(process.execPath, ['tools/transpile.mjs'], { cwd: ROOT, stdio: 'inherit' });
  // BENCH_SERVER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` or `--trace-gc`, profiles the server.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // The heap limit `npm start` sets (NODE_OPTIONS), unless the arguments name their own.
  if (!nodeArgs.some((a) => a.startsWith('--max-old-space-size'))) nodeArgs.unshift(SERVER_HEAP_FLAG);
  const child = spawn(process.execPath, [...nodeArgs, 'dist/main.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  child.stdout!.on('data', (c: Buffer) => (bytes += c.length));
  // BENCH_SERVER_LOG=file keeps what the server wrote (its log, and `--trace-gc` lines when asked for).
  if (process.env.BENCH_SERVER_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVER_LOG));
  await waitReady(base, child);
  return {
    base,
    process: child,
    logBytes: () => bytes,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    },
  };
}

/** RUB at a manual rate, then `count` sandbox merchants with one desk each and one order per desk. */
export async function provisionDesks(base: string, count: number): Promise<BenchDesk[]> {
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
  const desks: BenchDesk[] = [];
  for (let i = 0; i < count; i++) {
    const m = await admin('POST', '/merchants', { name: `Bench ${i}`, sandbox: true });
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
    if (!res.ok) throw new Error(`order for desk ${i}: ${res.status} ${JSON.stringify(order)}`);
    desks.push({ key: d.key, secret: d.secret, orderId: order.result.id });
  }
  return desks;
}

/** The yardsticks' process (bench/bare.ts): on the same PostgreSQL, or an embedded database of its own in dataDir. */
export async function startBare(opts: { databaseUrl?: string; dataDir: string }): Promise<{ base: string; stop(): Promise<void> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, BARE_DATA_DIR: opts.dataDir };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/bare.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`the baseline server exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    },
  };
}

/** The session cookie of a cabinet user or an operator, signed in through the form as a browser does. */
export async function signInCookie(base: string, surface: 'cabinet' | 'office', email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [k, v] = pair!.split('=');
      jar.set(k!, v ?? '');
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const page = await fetch(`${base}/${surface}/sign-in`);
  keep(page);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const res = await fetch(`${base}/${surface}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, _csrf: csrf }).toString(),
  });
  if (res.status !== 303) throw new Error(`${surface} sign-in: ${res.status}`);
  keep(res);
  return cookie();
}

/** A process's resident set now, in MB, from /proc. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Downloads `url` whole, reading the body as it streams: the time to its first bytes and to its
 * end, its size, the answer's status and the body's last line (where a CSV statement has its
 * closing row).
 */
export async function download(url: string, headers: Record<string, string>): Promise<{ firstByteMs: number; totalMs: number; bytes: number; status: number; lastLine: string }> {
  const t = performance.now();
  const res = await fetch(url, { headers });
  const reader = res.body!.getReader();
  let firstByteMs = 0;
  let bytes = 0;
  let tail = new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) firstByteMs = performance.now() - t;
    bytes += value.length;
    tail = value.slice(-200);
  }
  const lastLine = new TextDecoder().decode(tail).trimEnd().split('\n').pop() ?? '';
  return { firstByteMs, totalMs: performance.now() - t, bytes, status: res.status, lastLine };
}

/** CPU seconds (user and system) the processes have used so far, from /proc; 0 for one that is gone. */
export function cpuSecondsOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks / 100;
}

/** The PostgreSQL backends serving the database at `url` now (the server's pool), from pg_stat_activity. */
export async function backendPids(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

/** Runs `fn` over 0..n-1 with `width` at a time. */
export async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await fn(next++);
  }));
}

/** The operator API of the server at `base`: `(method, path, body?)` answers `result`, or throws with the status and body. */
export function adminClient(base: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const j = (await res.json()) as { result: any };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j)}`);
    return j.result;
  };
}
