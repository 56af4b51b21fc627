/**
 * Every page at a year of data (bench/README.md, "A year of data"): the volume tool fills a throwaway
 * database at two sizes, the real server starts on each (as `npm start` runs it), and every read
 * the contract lists is timed 30 times one after another after 5 warm-ups. The two servers run side
 * by side and each request goes to each size in turn, so load from other work on the machine moves
 * both sizes alike. Prints the p95 of each at both sizes and their ratio, and each server's peak
 * memory while serving them.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale   # 20,000 and 2,000,000 on PostgreSQL
 *   npm run bench:scale                                                              # 20,000 and 200,000 on the embedded database
 *
 * BENCH_SCALE_SIZES=20000,2000000 chooses the sizes (the first is the reference); BENCH_SCALE_KEEP=1
 * keeps the databases (PostgreSQL: paygate_scale_N, samples and master key in /tmp/paygate-scale-N.*;
 * embedded: /tmp/paygate-scale-embedded-N with /tmp/paygate-scale-embedded-N.*), and a later run
 * with BENCH_SCALE_REUSE=1 measures them again without generating;
 * BENCH_SCALE_ONLY=balance (part of a read's name) times only those reads.
 *
 * Then the write rate: on a copy of each database (so the data measured stays as the tool made it),
 * a server started on each, BENCH_SCALE_WRITE_DESKS (600) sandbox desks provisioned through the
 * operator API on each create orders over 32 connections from a load generator in its own process
 * (bench/loadgen.ts), BENCH_SCALE_WRITE_SECONDS (8) at a time, three times per size alternating;
 * the ratio of the large size's median rate to the small one's is printed.
 * BENCH_SCALE_WRITE_SECONDS=0 skips it.
 *
 * The volume tool makes the pool too (BENCH_SCALE_POOL=0 leaves it out); on each new database a
 * busy day is added through the credit feed, BENCH_SCALE_DAY_CREDITS (50,000) credits received
 * today on the pool's requisites, so the day reconciliation report is read at that size. Last,
 * on the largest size alone, the heavy reads one at a time (a month's statement as JSON and as CSV,
 * two at once, the 366 days the API allows, a month of the large merchant's orders as the back
 * office exports them) with the server's peak RSS, while bench/probe.ts, a process of its own,
 * times `GET /healthz` and a signed `GET /gw/v1/balance` 20 times a second each
 * (BENCH_SCALE_HEAVY=0 skips them).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { signRequest } from '../src/signing.js';
import { download, provisionDesks, ROOT, rssMb, signInCookie, startPaygate, type PaygateProcess } from './server.js';

const TOKEN = 'bench-admin-token-0123456789';
const WARMUPS = 5;
const RUNS = 30;
// The targets: 100 ms on PostgreSQL at 2,000,000 orders; 200 ms on the embedded database at 200,000.
const LIMIT_MS = process.env.DATABASE_URL ? 100 : 200;
const LIMIT_RATIO = 2.5;

interface Volume {
  orders: number;
  merchant: { id: string; email: string; password: string; deskId: string; deskKey: string; deskSecret: string };
  operator: { email: string; password: string };
  sampleOrderIds: string[];
  sampleOrderRefs: string[];
  samplePayerReferences: string[];
  days: string[];
  pool: { id: string; key: string; secret: string; days: string[] } | null;
}

const withPool = process.env.BENCH_SCALE_POOL !== '0';
const dayCredits = Number(process.env.BENCH_SCALE_DAY_CREDITS ?? 50_000);
const heavy = process.env.BENCH_SCALE_HEAVY !== '0';
/** The busy day of the pool: today, when the busy day's credits are fed. */
const TODAY = new Date().toISOString().slice(0, 10);

interface Place {
  /** PostgreSQL: the database's URL; embedded: null. */
  url: string | null;
  dataDir: string;
  masterKey: string;
  samplesFile: string;
  drop(): Promise<void>;
}

const serverUrl = process.env.DATABASE_URL || null;
const sizes = (process.env.BENCH_SCALE_SIZES ?? (serverUrl ? '20000,2000000' : '20000,200000')).split(',').map(Number);
const keep = process.env.BENCH_SCALE_KEEP === '1';
const reuse = process.env.BENCH_SCALE_REUSE === '1';
const only = process.env.BENCH_SCALE_ONLY;
const writeSeconds = Number(process.env.BENCH_SCALE_WRITE_SECONDS ?? 8);
const writeDesks = Number(process.env.BENCH_SCALE_WRITE_DESKS ?? 600);
const WRITE_CONNECTIONS = 32;

async function adminSql(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl! });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

async function placeFor(orders: number): Promise<Place & { fresh: boolean }> {
  // PostgreSQL's and the embedded database's runs keep their files apart.
  const base = serverUrl ? `/tmp/paygate-scale-${orders}` : `/tmp/paygate-scale-embedded-${orders}`;
  const samplesFile = `${base}.json`;
  const keyFile = `${base}.key`;
  const known = reuse && existsSync(samplesFile) && existsSync(keyFile);
  const masterKey = known ? readFileSync(keyFile, 'utf8').trim() : randomBytes(32).toString('hex');
  const dataDir = join(base, 'data');
  let url: string | null = null;
  if (serverUrl) {
    const name = `paygate_scale_${orders}`;
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    url = u.toString();
    if (!known) {
      await adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await adminSql(`CREATE DATABASE ${name}`);
    }
  } else if (!known) {
    rmSync(base, { recursive: true, force: true });
  }
  mkdirSync(base, { recursive: true });
  writeFileSync(keyFile, masterKey);
  return {
    url,
    dataDir,
    masterKey,
    samplesFile,
    fresh: !known,
    async drop() {
      if (keep) return;
      if (serverUrl) await adminSql(`DROP DATABASE IF EXISTS paygate_scale_${orders} WITH (FORCE)`);
      rmSync(base, { recursive: true, force: true });
      rmSync(samplesFile, { force: true });
      rmSync(keyFile, { force: true });
    },
  };
}

/** Runs the volume tool as a command, the way a person would; its progress goes to our stderr. */
async function generate(place: Place, orders: number): Promise<{ volume: Volume; seconds: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, MASTER_KEY: place.masterKey, DATA_DIR: place.dataDir };
  if (place.url) env.DATABASE_URL = place.url;
  else delete env.DATABASE_URL;
  const started = Date.now();
  const args = ['--orders', String(orders), ...(withPool ? ['--pool'] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tools/volume/main.ts'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`seed:volume exited with ${code}`);
  const last = out.trim().split('\n').at(-1)!;
  writeFileSync(place.samplesFile, last);
  return { volume: JSON.parse(last) as Volume, seconds: (Date.now() - started) / 1000 };
}

// ---- a browser of the cabinet and the back office: cookies, the CSRF token of the sign-in form

class Browser {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}
  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return res;
  }
  private header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async get(path: string): Promise<Response> {
    return this.keep(await fetch(`${this.base}${path}`, { headers: { cookie: this.header() }, redirect: 'manual' }));
  }
  async signIn(surface: 'cabinet' | 'office', email: string, password: string): Promise<void> {
    const page = await (await this.get(`/${surface}/sign-in`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    const body = new URLSearchParams({ email, password, ...(csrf ? { _csrf: csrf } : {}) });
    const res = this.keep(
      await fetch(`${this.base}/${surface}/sign-in`, {
        method: 'POST',
        headers: { cookie: this.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
        redirect: 'manual',
      }),
    );
    if (res.status !== 303) throw new Error(`${surface} sign-in answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  }
}

function signedGet(base: string, v: Volume, path: string): Promise<Response> {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const sign = signRequest(v.merchant.deskSecret, ts, nonce, 'GET', path.split('?')[0]!, '');
  return fetch(`${base}${path}`, { headers: { 'x-gate-key': v.merchant.deskKey, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sign } });
}

const adminGet = (base: string, path: string) => fetch(`${base}/admin/v1${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });

interface Read {
  name: string;
  /** The k-th request of this read (samples are taken in turn). */
  run(k: number): Promise<Response>;
  /** Timed to the body's first bytes, the rest of it then refused (a long download's first page). */
  firstByte?: boolean;
}

/**
 * The month the month-long reads cover (that of the samples' sixth day), its first day after it
 * (lists take an end excluded) and its last day (statements name their last day, included).
 */
function monthOf(v: Volume): { month: string; monthEnd: string; monthLast: string } {
  const month = v.days[5]!.slice(0, 7);
  const monthEnd = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
  return { month, monthEnd, monthLast: new Date(Date.parse(monthEnd) - 86_400_000).toISOString().slice(0, 10) };
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

async function readsFor(base: string, v: Volume): Promise<Read[]> {
  const cabinet = new Browser(base);
  await cabinet.signIn('cabinet', v.merchant.email, v.merchant.password);
  const office = new Browser(base);
  await office.signIn('office', v.operator.email, v.operator.password);
  // The page reached by following "older" 20 times (its link, as a person clicks it).
  let older = '/cabinet/orders';
  for (let k = 0; k < 20; k++) {
    const html = await (await cabinet.get(older)).text();
    const link = /href="(\/cabinet\/orders\?[^"]*before=[^"]+)"/.exec(html)?.[1];
    if (!link) throw new Error(`no "older" link on ${older}`);
    older = link.replaceAll('&amp;', '&');
  }
  const { month, monthEnd, monthLast } = monthOf(v);
  const pick = <T>(xs: T[], k: number) => xs[k % xs.length]!;
  const page = (b: Browser, path: (k: number) => string) => (k: number) => b.get(path(k));
  const reads: Read[] = [
    { name: 'GET /gw/v1/orders/{id}', run: (k) => signedGet(base, v, `/gw/v1/orders/${pick(v.sampleOrderIds, k)}`) },
    { name: 'GET /gw/v1/balance', run: () => signedGet(base, v, '/gw/v1/balance') },
    { name: 'GET /gw/v1/events', run: () => signedGet(base, v, '/gw/v1/events') },
    { name: 'cabinet home', run: page(cabinet, () => '/cabinet') },
    { name: 'cabinet orders', run: page(cabinet, () => '/cabinet/orders') },
    { name: 'cabinet orders, 20 pages older', run: page(cabinet, () => older) },
    { name: 'cabinet orders ?status', run: page(cabinet, () => '/cabinet/orders?status=Completed') },
    { name: 'cabinet orders ?desk', run: page(cabinet, () => `/cabinet/orders?desk=${v.merchant.deskId}`) },
    { name: 'cabinet orders, a month', run: page(cabinet, () => `/cabinet/orders?from=${month}-01&to=${monthEnd}`) },
    { name: 'cabinet orders ?q=id', run: page(cabinet, (k) => `/cabinet/orders?q=${pick(v.sampleOrderIds, k)}`) },
    { name: 'cabinet orders ?q=orderRef', run: page(cabinet, (k) => `/cabinet/orders?q=${pick(v.sampleOrderRefs, k)}`) },
    { name: 'cabinet orders ?q=payer ref', run: page(cabinet, (k) => `/cabinet/orders?q=${pick(v.samplePayerReferences, k)}`) },
    { name: 'cabinet orders.csv, a day', run: page(cabinet, (k) => `/cabinet/orders.csv?from=${pick(v.days, k)}&to=${nextDay(pick(v.days, k))}`) },
    { name: 'cabinet order page', run: page(cabinet, (k) => `/cabinet/orders/${pick(v.sampleOrderIds, k)}`) },
    { name: 'cabinet balance', run: page(cabinet, () => '/cabinet/balance') },
    { name: 'cabinet callbacks', run: page(cabinet, () => '/cabinet/callbacks') },
    { name: 'cabinet appeals', run: page(cabinet, () => '/cabinet/appeals') },
    { name: 'office home', run: page(office, () => '/office') },
    { name: 'office orders', run: page(office, () => '/office/orders') },
    { name: 'office orders ?q=id', run: page(office, (k) => `/office/orders?q=${pick(v.sampleOrderIds, k)}`) },
    { name: 'office orders ?q=payer ref', run: page(office, (k) => `/office/orders?q=${pick(v.samplePayerReferences, k)}`) },
    { name: 'office merchant page', run: page(office, () => `/office/merchants/${v.merchant.id}`) },
    { name: 'office appeals queue', run: page(office, () => '/office/queues/appeals') },
    { name: 'office audit', run: page(office, () => '/office/audit') },
    { name: 'office credits', run: page(office, () => '/office/credits') },
    { name: 'GET /admin/v1/orders', run: () => adminGet(base, '/orders') },
    { name: 'GET /admin/v1/orders?merchantId', run: () => adminGet(base, `/orders?merchantId=${v.merchant.id}`) },
    { name: 'GET /admin/v1/audit', run: () => adminGet(base, '/audit') },
    { name: 'GET /admin/v1/appeals?status=Open', run: () => adminGet(base, '/appeals?status=Open') },
    {
      name: 'statement JSON, a month, first byte',
      firstByte: true,
      run: () => adminGet(base, `/merchants/${v.merchant.id}/statement?from=${month}-01&to=${monthLast}`),
    },
    { name: 'cabinet statement.csv, a month, first byte', firstByte: true, run: page(cabinet, () => `/cabinet/statement.csv?from=${month}-01&to=${monthLast}`) },
  ];
  if (v.pool) {
    const pool = v.pool;
    reads.push(
      { name: 'GET /admin/v1/reconciliation, a day', run: (k) => adminGet(base, `/reconciliation?providerId=${pool.id}&date=${pick(pool.days, k)}`) },
      { name: `GET /admin/v1/reconciliation, ${dayCredits.toLocaleString('en')} credits`, run: () => adminGet(base, `/reconciliation?providerId=${pool.id}&date=${TODAY}`) },
      { name: `office pool report, ${dayCredits.toLocaleString('en')} credits`, run: page(office, () => `/office/pools/${pool.id}/report?date=${TODAY}`) },
      { name: 'GET /admin/v1/credits', run: () => adminGet(base, `/credits?providerId=${pool.id}`) },
    );
  }
  return reads.filter((r) => !only || r.name.includes(only));
}

/** p95 of 30: the 29th fastest (nearest rank). */
const p95 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(0.95 * ms.length) - 1]!;

interface Timing {
  p95: number | null;
  median: number | null;
  status: string;
}

/**
 * Every read on every size, interleaved: each read's k-th request goes to each size's server in
 * turn, so a machine whose load moves (other work on the same cores) moves every size's figures
 * alike and their ratio stays meaningful.
 */
async function timeReads(servers: PaygateProcess[], readSets: Read[][]): Promise<{ timings: Map<string, Timing>[]; peakMb: number[] }> {
  const timings = servers.map(() => new Map<string, Timing>());
  const peakMb = servers.map((s) => rssMb(s.process.pid!));
  const sampler = setInterval(() => servers.forEach((s, i) => (peakMb[i] = Math.max(peakMb[i]!, rssMb(s.process.pid!)))), 200);
  try {
    for (let r = 0; r < readSets[0]!.length; r++) {
      const status = servers.map(() => 'ok');
      const ms: number[][] = servers.map(() => []);
      for (let k = 0; k < WARMUPS + RUNS; k++) {
        for (let i = 0; i < servers.length; i++) {
          const t = performance.now();
          const read = readSets[i]![r]!;
          const res = await read.run(k);
          let took: number;
          if (read.firstByte && res.body) {
            const reader = res.body.getReader();
            await reader.read();
            took = performance.now() - t;
            await reader.cancel();
          } else {
            await res.arrayBuffer();
            took = performance.now() - t;
          }
          if (res.status !== 200) status[i] = `HTTP ${res.status}`;
          if (k >= WARMUPS) ms[i]!.push(took);
        }
      }
      const name = readSets[0]![r]!.name;
      servers.forEach((_, i) => {
        const sorted = [...ms[i]!].sort((x, y) => x - y);
        const ok = status[i] === 'ok';
        timings[i]!.set(name, { p95: ok ? p95(ms[i]!) : null, median: ok ? sorted[Math.floor(sorted.length / 2)]! : null, status: status[i]! });
      });
      process.stderr.write(`  ${name}: ${servers.map((_, i) => (status[i] === 'ok' ? `p95 ${p95(ms[i]!).toFixed(1)} ms` : status[i])).join(' | ')}\n`);
    }
  } finally {
    clearInterval(sampler);
  }
  return { timings, peakMb };
}

interface Prepared {
  orders: number;
  place: Place;
  volume: Volume;
  seconds: number | null;
  env: Record<string, string>;
}

async function prepare(orders: number): Promise<Prepared> {
  const place = await placeFor(orders);
  let volume: Volume;
  let seconds: number | null = null;
  if (place.fresh) {
    process.stderr.write(`\n== ${orders.toLocaleString('en')} orders: seed:volume\n`);
    ({ volume, seconds } = await generate(place, orders));
  } else volume = JSON.parse(readFileSync(place.samplesFile, 'utf8')) as Volume;
  return { orders, place, volume, seconds, env: { MASTER_KEY: place.masterKey, OFFICE_REQUIRE_2FA: 'false' } };
}

/**
 * The pool's busy day on a new database: `dayCredits` credits received now on the pool's
 * requisites, sent through the credit feed by bench/feedgen.ts (a process of its own) in batches
 * of 500, as a bank poller sends them; amounts of no order, so each is looked up and left waiting.
 */
async function busyDay(p: Prepared): Promise<void> {
  const pool = p.volume.pool;
  if (!pool || p.seconds === null || dayCredits <= 0) return;
  process.stderr.write(`== ${p.orders.toLocaleString('en')} orders: ${dayCredits.toLocaleString('en')} credits today through the feed\n`);
  const server = await startPaygate({ databaseUrl: p.place.url ?? undefined, dataDir: p.place.dataDir, env: p.env });
  try {
    const res = await adminGet(server.base, `/providers/${pool.id}/requisites`);
    const requisites = ((await res.json()) as { result: { payment: Record<string, string | undefined> }[] }).result;
    const accounts = requisites.map((r) => r.payment.card ?? r.payment.phone ?? r.payment.account).filter((a): a is string => !!a);
    // Amounts of no order: kopecks no order of the tool has (its amounts are whole).
    const credits = Array.from({ length: dayCredits }, (_, i) => ({ account: accounts[i % accounts.length]!, amount: `${1000 + (i % 9000)}.37` }));
    const file = `${p.place.samplesFile}.day-credits.json`;
    writeFileSync(file, JSON.stringify(credits));
    const t = performance.now();
    const job = { url: server.base, providerId: pool.id, key: pool.key, secret: pool.secret, creditsFile: file, batch: 500, connections: 2, run: `busy-${TODAY}` };
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/feedgen.ts'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(file, { force: true });
    process.stderr.write(`  fed in ${((performance.now() - t) / 1000).toFixed(1)} s: ${out.trim().split('\n').at(-1)}\n`);
  } finally {
    await server.stop();
  }
}

/** The reads on every size, the servers freshly started and running side by side. */
async function measureReads(all: Prepared[]) {
  process.stderr.write(`== ${all.map((p) => p.orders.toLocaleString('en')).join(' and ')} orders: the service, freshly started on each, reads interleaved\n`);
  const servers: PaygateProcess[] = [];
  try {
    for (const p of all) servers.push(await startPaygate({ databaseUrl: p.place.url ?? undefined, dataDir: p.place.dataDir, env: p.env }));
    const readSets: Read[][] = [];
    for (let i = 0; i < all.length; i++) readSets.push(await readsFor(servers[i]!.base, all[i]!.volume));
    return { ...(await timeReads(servers, readSets)), names: readSets[0]!.map((r) => r.name) };
  } finally {
    for (const s of servers) await s.stop();
  }
}

/**
 * Order creation on a copy of each database (PostgreSQL: CREATE DATABASE … TEMPLATE; embedded: a
 * copy of the data folder), from `writeDesks` desks at once so the per-desk order limit (30 per
 * 10 s) is not the ceiling: the servers run side by side and WRITE_ROUNDS runs of
 * `writeSeconds` alternate between the sizes; each size's rate is the median of its runs. The
 * copies are removed afterwards.
 */
const WRITE_ROUNDS = 3;
interface WriteRun {
  rps: number;
  total: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function writeRates(all: Prepared[]): Promise<(WriteRun & { rounds: number[] })[]> {
  process.stderr.write(`== order creation on a copy of each database, ${writeDesks} desks, ${WRITE_ROUNDS} × ${writeSeconds} s, alternating\n`);
  const copies: { url?: string; dataDir: string; drop(): Promise<void> }[] = [];
  const servers: PaygateProcess[] = [];
  try {
    for (const p of all) {
      const copy = `paygate_scale_${p.orders}_writes`;
      const copyDir = `${p.place.dataDir}-writes`;
      if (p.place.url) {
        await adminSql(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
        // A file copy: the default of PostgreSQL 15 writes every page of the copy to the log.
        await adminSql(`CREATE DATABASE ${copy} TEMPLATE paygate_scale_${p.orders} STRATEGY FILE_COPY`).catch(() => adminSql(`CREATE DATABASE ${copy} TEMPLATE paygate_scale_${p.orders}`));
        const u = new URL(p.place.url);
        u.pathname = `/${copy}`;
        copies.push({ url: u.toString(), dataDir: p.place.dataDir, drop: () => adminSql(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`) });
      } else {
        rmSync(copyDir, { recursive: true, force: true });
        execFileSync('cp', ['-a', p.place.dataDir, copyDir]);
        copies.push({ dataDir: copyDir, drop: async () => rmSync(copyDir, { recursive: true, force: true }) });
      }
    }
    const desksFiles: string[] = [];
    for (let i = 0; i < all.length; i++) {
      servers.push(await startPaygate({ databaseUrl: copies[i]!.url, dataDir: copies[i]!.dataDir, env: all[i]!.env }));
      const file = `/tmp/paygate-scale-${all[i]!.orders}-writes.desks.json`;
      writeFileSync(file, JSON.stringify(await provisionDesks(servers[i]!.base, writeDesks)));
      desksFiles.push(file);
    }
    const runs: WriteRun[][] = all.map(() => []);
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      for (let i = 0; i < all.length; i++) {
        const job = { url: servers[i]!.base, method: 'POST', path: '/gw/v1/orders', body: '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"scale-' + round + '-{i}"}', desksFile: desksFiles[i], connections: WRITE_CONNECTIONS, seconds: writeSeconds };
        const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/loadgen.ts'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout!.on('data', (c) => (out += c));
        await new Promise((resolve) => child.once('exit', resolve));
        const r = JSON.parse(out.trim().split('\n').at(-1)!) as WriteRun;
        runs[i]!.push(r);
        process.stderr.write(`  @${all[i]!.orders.toLocaleString('en')} POST /gw/v1/orders: ${r.rps.toFixed(0)} per second (${r.total} in ${writeSeconds} s, p99 ${r.p99} ms, ${r.non2xx} not 2xx)\n`);
      }
    }
    for (const f of desksFiles) rmSync(f, { force: true });
    return runs.map((rs) => ({ ...[...rs].sort((x, y) => x.rps - y.rps)[Math.floor(rs.length / 2)]!, rounds: rs.map((x) => x.rps) }));
  } finally {
    for (const s of servers) await s.stop();
    for (const c of copies) await c.drop();
  }
}

interface Probed {
  health: { n: number; p50: number; p99: number; max: number; failed: number };
  balance: { n: number; p50: number; p99: number; max: number; failed: number };
}

/** Runs `work` while bench/probe.ts times the health probe and the signed balance; the server's peak RSS meanwhile. */
async function probed<T>(server: PaygateProcess, v: Volume, work: () => Promise<T>): Promise<{ value: T; probes: Probed; peakMb: number }> {
  const job = { url: server.base, desk: { key: v.merchant.deskKey, secret: v.merchant.deskSecret }, rate: 20 };
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/probe.ts'), JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const pid = server.process.pid!;
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 20);
  try {
    // The probe process starts (tsx) and warms up before the work does; it counts from "go".
    await new Promise((r) => setTimeout(r, 3000));
    child.stdin!.write('go\n');
    const value = await work();
    return { value, probes: await finish(), peakMb: Math.max(peakMb, rssMb(pid)) };
  } finally {
    clearInterval(sampler);
    if (child.exitCode === null) child.stdin!.end();
  }
  async function finish(): Promise<Probed> {
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
    return JSON.parse(out.trim().split('\n').at(-1)!) as Probed;
  }
}

/** The heavy reads on the largest size, one after another, each under the probes. */
async function heavyReads(p: Prepared): Promise<string[]> {
  const v = p.volume;
  process.stderr.write(`== ${p.orders.toLocaleString('en')} orders: the heavy reads, under the probes\n`);
  const server = await startPaygate({ databaseUrl: p.place.url ?? undefined, dataDir: p.place.dataDir, env: p.env });
  const lines: string[] = [];
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const cabinet = await signInCookie(server.base, 'cabinet', v.merchant.email, v.merchant.password);
    const office = await signInCookie(server.base, 'office', v.operator.email, v.operator.password);
    const { month, monthEnd, monthLast } = monthOf(v);
    const yearFrom = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const statement = (from: string, to: string) => `${server.base}/admin/v1/merchants/${v.merchant.id}/statement?from=${from}&to=${to}`;
    const jobs: { name: string; run: () => Promise<Awaited<ReturnType<typeof download>>[]> }[] = [
      { name: 'nothing (the probes alone, 5 s)', run: async () => (await new Promise((r) => setTimeout(r, 5000)), []) },
      { name: 'statement JSON, a month', run: async () => [await download(statement(`${month}-01`, monthLast), auth)] },
      { name: 'cabinet statement.csv, a month', run: async () => [await download(`${server.base}/cabinet/statement.csv?from=${month}-01&to=${monthLast}`, { cookie: cabinet })] },
      { name: 'statement JSON, a month, two at once', run: () => Promise.all([download(statement(`${month}-01`, monthLast), auth), download(statement(`${month}-01`, monthLast), auth)]) },
      { name: 'statement JSON, 366 days', run: async () => [await download(statement(yearFrom, TODAY), auth)] },
      { name: 'office orders.csv, the large merchant\'s month', run: async () => [await download(`${server.base}/office/orders.csv?merchantId=${v.merchant.id}&from=${month}-01&to=${monthEnd}`, { cookie: office })] },
    ];
    lines.push('| while | first byte | total | size | server RSS peak | `/healthz` p50 / p99 / max ms | balance p50 / p99 / max ms | probes failed |', '|---|---|---|---|---|---|---|---|');
    for (const job of jobs) {
      const { value, probes, peakMb } = await probed(server, v, job.run);
      const fmt = (x: Probed['health']) => (x.n === 0 ? '– (no probe within it)' : `${x.p50.toFixed(1)} / ${x.p99.toFixed(1)} / ${x.max.toFixed(1)}`);
      const bad = value.find((r) => r.status !== 200);
      const line = `| ${job.name} | ${value.map((r) => `${r.firstByteMs.toFixed(0)} ms`).join(', ') || '–'} | ${value.map((r) => `${(r.totalMs / 1000).toFixed(2)} s`).join(', ') || '–'} | ${value.map((r) => `${(r.bytes / 1048576).toFixed(1)} MiB`).join(', ') || '–'}${bad ? ` (HTTP ${bad.status})` : ''} | ${peakMb.toFixed(0)} MB | ${fmt(probes.health)} | ${fmt(probes.balance)} | ${probes.health.failed + probes.balance.failed} |`;
      process.stderr.write(`  ${line}\n`);
      lines.push(line);
    }
  } finally {
    await server.stop();
  }
  return lines;
}

async function main() {
  const all: Prepared[] = [];
  for (const n of sizes) all.push(await prepare(n));
  let results;
  let heavyLines: string[] = [];
  try {
    for (const p of all) await busyDay(p);
    const reads = await measureReads(all);
    if (heavy && serverUrl) heavyLines = await heavyReads(all.at(-1)!);
    const writes = writeSeconds > 0 ? await writeRates(all) : null;
    results = all.map((p, i) => ({ orders: p.orders, seconds: p.seconds, timings: reads.timings[i]!, peakMb: reads.peakMb[i]!, names: reads.names, writes: writes?.[i] ?? null }));
  } finally {
    for (const p of all) await p.place.drop();
  }
  const [small, ...large] = results;
  const fmt = (t: Timing | undefined) => (t?.p95 == null ? (t?.status ?? '–') : t.p95.toFixed(1));
  console.log(`database: ${serverUrl ? 'PostgreSQL' : 'embedded (PGlite)'}; ${WARMUPS} warm-ups, p95 of ${RUNS} one after another, the sizes interleaved; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const r of results) console.log(`${r.orders.toLocaleString('en')} orders: ${r.seconds === null ? 'reused' : `generated in ${r.seconds.toFixed(0)} s`}; server peak RSS ${r.peakMb.toFixed(0)} MB`);
  const header = ['read', ...results.map((r) => `p95 ms @${r.orders.toLocaleString('en')}`), ...large.map((r) => `ratio @${r.orders.toLocaleString('en')}`), 'within'];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const name of small!.names) {
    const s = small!.timings.get(name);
    const cells = results.map((r) => fmt(r.timings.get(name)));
    const ratios = large.map((r) => {
      const l = r.timings.get(name);
      return s?.p95 && l?.p95 ? (l.p95 / s.p95).toFixed(2) : '–';
    });
    const ok = large.every((r) => {
      const l = r.timings.get(name);
      return !!(s?.p95 && l?.p95 && l.p95 <= LIMIT_MS && l.p95 / s.p95 <= LIMIT_RATIO);
    });
    console.log(`| ${name} | ${cells.join(' | ')} | ${ratios.join(' | ')} | ${ok ? 'yes' : 'NO'} |`);
  }
  const smallWrites = small!.writes;
  if (smallWrites) {
    const rate = (r: (typeof results)[number]) => (r.writes ? `${r.writes.rps.toFixed(0)}/s (p99 ${r.writes.p99} ms, ${r.writes.non2xx} not 2xx)` : '–');
    console.log(`order creation, ${writeDesks} desks, ${WRITE_CONNECTIONS} connections, median of ${WRITE_ROUNDS} × ${writeSeconds} s: ${results.map((r) => `@${r.orders.toLocaleString('en')} ${rate(r)}`).join('; ')}`);
    // Each round's ratio compares two runs made one after the other, under much the same load from
    // other work; the median of the rounds' ratios is the figure.
    for (const r of large) {
      if (!r.writes) continue;
      const ratios = r.writes.rounds.map((rps, k) => rps / smallWrites.rounds[k]!);
      const median = [...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)]!;
      console.log(`write-rate ratio @${r.orders.toLocaleString('en')}: rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ${median.toFixed(2)} (at least 0.8: ${median >= 0.8 ? 'yes' : 'NO'}); of the medians ${(r.writes.rps / smallWrites.rps).toFixed(2)}`);
    }
  }
  if (heavyLines.length) {
    console.log(`heavy reads at ${all.at(-1)!.orders.toLocaleString('en')} orders, one after another, probes 20 per second each from their own process:`);
    for (const l of heavyLines) console.log(l);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
