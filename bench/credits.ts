/**
 * Credit feed and statement import benchmark. The server runs as `npm start` runs it (bench/server.ts);
 * the yardstick (bench/bare.ts: hash + HMAC + one INSERT) is measured in the same run.
 *
 * Setup, through the API as an operator and merchants would do it: one pool provider with 100
 * requisites (card numbers, up to 120 open orders each), 400 approved merchants with one live desk
 * each, and 10,000 open orders (25 per desk, under the order limit), issued their requisites by the
 * pool: 100 amounts, each amount once on every requisite, so every credit names exactly one order.
 *
 * Then a load generator in its own process (bench/feedgen.ts) sends one credit per order through
 * the signed feed, 100 to a request, and the run reports credits per second recorded and matched.
 * Last, a 50,000-entry camt.053 (001.08) and a 50,000-line MT940 (100 messages of 500 `:61:`
 * lines, one per requisite's account, balances stated) are written to disk and uploaded as
 * streams, each timed, with the server's resident set sampled every 50 ms. Each file names the
 * run (message ids, bank references), so no upload repeats the bytes of another (the same bytes
 * answer `sameAs`, the statement recorded before, and record nothing). BENCH_STATEMENTS=camt or
 * mt940 uploads only that one.
 *
 *   npm run bench:credits                                   # embedded database (PGlite)
 *   DATABASE_URL=postgres://… npm run bench:credits         # PostgreSQL, in a throwaway database
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { signRequest } from '../src/signing.js';
import { throwawayDatabase } from './runtime.js';
import { adminClient as admin, backendPids, cpuSecondsOf, freePort, inParallel, startBare, startPaygate, TOKEN } from './server.js';

const REQUISITES = Number(process.env.BENCH_REQUISITES ?? 100);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 10_000);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 50_000);
const STATEMENTS = (process.env.BENCH_STATEMENTS ?? 'camt,mt940').split(',').filter(Boolean);
const SETUP_CONCURRENCY = 16;

const card = (i: number) => `2200 7700 ${String(Math.floor(i / 10_000)).padStart(4, '0')} ${String(i % 10_000).padStart(4, '0')}`;

function child(script: string, job: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`${script} exited ${code}`))));
  });
}

interface Pool {
  id: string;
  key: string;
  secret: string;
}

/** The pool, the desks and the open orders; answers the pool and one `{account, amount}` per order. */
async function setUp(base: string): Promise<{ pool: Pool; orders: { account: string; amount: string }[] }> {
  const op = admin(base);
  await op('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await op('PUT', '/rates/RUB', { rate: '91.8' });
  const provider = await op('POST', '/providers', {
    name: 'Bench pool',
    kind: 'pool',
    priority: 10,
    capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
    requisites: [],
  });
  const pool: Pool = { id: provider.id, key: provider.key, secret: provider.secret };
  await inParallel(REQUISITES, SETUP_CONCURRENCY, async (i) => {
    await op('POST', `/providers/${pool.id}/requisites`, { payment: { card: card(i), holder: `HOLDER ${i}` }, currency: 'RUB', rails: null, maxOpenOrders: 120 });
  });
  const desks: { key: string; secret: string }[] = [];
  await inParallel(DESKS, SETUP_CONCURRENCY, async (i) => {
    const m = await op('POST', '/merchants', { name: `Bench ${i}`, sandbox: false });
    await op('POST', `/merchants/${m.id}/approve`);
    const d = await op('POST', `/merchants/${m.id}/desks`, {
      method: 'Classic', rails: ['C2c'], currencies: ['RUB'], minUsd: '0', maxUsd: '0',
      callbackUrl: 'https://93.184.215.14/cb', callbacksEnabled: false, tariffId: null,
    });
    desks[i] = { key: d.key, secret: d.secret };
  });
  const amounts = Math.ceil(ORDERS / REQUISITES);
  const orders: { account: string; amount: string }[] = [];
  const started = Date.now();
  // Consecutive orders have different amounts; each amount is ordered once per requisite.
  await inParallel(ORDERS, SETUP_CONCURRENCY, async (i) => {
    const desk = desks[i % DESKS];
    const amount = `${1000 + (i % amounts)}.00`;
    const body = JSON.stringify({ amount: Number(amount), currency: 'RUB', rail: 'C2c', orderRef: `bench-${i}`, lifetimeMinutes: 180 });
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    const res = await fetch(`${base}/gw/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(desk.secret, ts, nonce, 'POST', '/gw/v1/orders', body) },
      body,
    });
    const j = (await res.json()) as { result: { payment: { card: string } } };
    if (res.status !== 201) throw new Error(`order ${i}: ${res.status} ${JSON.stringify(j)}`);
    orders[i] = { account: j.result.payment.card, amount };
  });
  console.log(`set up: ${REQUISITES} requisites, ${DESKS} desks, ${ORDERS} open orders (orders created at ${(ORDERS / ((Date.now() - started) / 1000)).toFixed(0)}/s)`);
  return { pool, orders };
}

/** A camt.053.001.08 of `ENTRIES` booked credits, 500 to a statement, one statement per requisite, written as it is made. */
async function writeStatement(file: string, run: string): Promise<void> {
  const perStatement = 500;
  const now = new Date().toISOString();
  async function* xml() {
    yield `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>BENCH-${run}</MsgId><CreDtTm>${now}</CreDtTm></GrpHdr>`;
    for (let s = 0; s * perStatement < ENTRIES; s++) {
      let chunk = `
    <Stmt>
      <Id>BENCH-${run}-${s}</Id>
      <Acct><Id><Othr><Id>${card(s % REQUISITES).replace(/ /g, '')}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>`;
      for (let i = s * perStatement; i < Math.min(ENTRIES, (s + 1) * perStatement); i++) {
        const amount = `${500 + (i % 400)}.${String(i % 100).padStart(2, '0')}`;
        chunk += `
      <Ntry>
        <Amt Ccy="RUB">${amount}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><DtTm>${now}</DtTm></BookgDt>
        <ValDt><Dt>${now.slice(0, 10)}</Dt></ValDt>
        <AcctSvcrRef>BENCH-${run}-${i}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>E2E-${run}-${i}</EndToEndId></Refs>
          <Amt Ccy="RUB">${amount}</Amt>
          <CdtDbtInd>CRDT</CdtDbtInd>
          <RltdPties><Dbtr><Pty><Nm>Payer number ${i}</Nm></Pty></Dbtr></RltdPties>
          <RmtInf><Ustrd>Transfer ${i}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`;
        if (i % 50 === 49) {
          yield chunk;
          chunk = '';
        }
      }
      yield `${chunk}
    </Stmt>`;
    }
    yield `
  </BkToCstmrStmt>
</Document>
`;
  }
  await pipeline(xml(), createWriteStream(file));
}

/**
 * An MT940 of `ENTRIES` booked credits as a bank writes it, made like the camt.053 above: a message
 * of 500 `:61:` lines per requisite's account (each with its `:86:`), opening and closing balances
 * that add up, dated today (MT940 gives a date alone). Amounts 100.00–499.99: of no open order, and
 * none the camt.053's.
 */
async function writeMt940(file: string, run: string): Promise<void> {
  const perStatement = 500;
  const now = new Date();
  const yymmdd = now.toISOString().slice(2, 10).replace(/-/g, '');
  const comma = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
  async function* text() {
    for (let s = 0; s * perStatement < ENTRIES; s++) {
      const opening = 1_000_000 + s * 100;
      let sum = 0;
      let chunk = `:20:MT${run}${s}\r\n:25:${card(s % REQUISITES).replace(/ /g, '')}\r\n:28C:${s + 1}/1\r\n:60F:C${yymmdd}RUB${comma(opening)}\r\n`;
      for (let i = s * perStatement; i < Math.min(ENTRIES, (s + 1) * perStatement); i++) {
        const cents = (100 + (i % 400)) * 100 + (i % 100);
        sum += cents;
        chunk += `:61:${yymmdd}${yymmdd.slice(2)}CR${comma(cents)}NTRFNONREF//M${run}${i.toString(36)}\r\n:86:/ORDP//NAME/Payer number ${i}/REMI/Transfer ${i}\r\n`;
        if (i % 50 === 49) {
          yield chunk;
          chunk = '';
        }
      }
      yield `${chunk}:62F:C${yymmdd}RUB${comma(opening + sum)}\r\n-\r\n`;
    }
  }
  await pipeline(text(), createWriteStream(file));
}

/** The server's resident set now and at its highest so far (kB), from /proc. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** The server's V8 heap in use and its memory outside the heap (array buffers, sockets), in MB, from its metrics listener. */
async function heapOf(base: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const mb = (name: string) => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0) / 1048576).toFixed(0);
  return `heap ${mb('nodejs_heap_size_used_bytes')} of ${mb('nodejs_heap_size_total_bytes')} MB, external ${mb('nodejs_external_memory_bytes')} MB`;
}

/** Uploads the file as a stream (the server reads it as one); answers the status and body. */
function upload(base: string, providerId: string, file: string, contentType: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/admin/v1/providers/${providerId}/statements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType, 'content-length': statSync(file).size },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

async function main() {
  const database = await throwawayDatabase('credits');
  const work = mkdtempSync(join(tmpdir(), 'paygate-credits-'));
  const bare = await startBare({ databaseUrl: database?.url, dataDir: join(work, 'bare') });
  const metricsPort = await freePort();
  const paygate = await startPaygate({ databaseUrl: database?.url, dataDir: join(work, 'data'), env: { METRICS_PORT: String(metricsPort) } });
  const metricsBase = `http://127.0.0.1:${metricsPort}`;
  const kind = database ? 'PostgreSQL' : 'PGlite';
  try {
    const run = randomBytes(4).toString('hex');
    const { pool, orders } = await setUp(paygate.base);
    const creditsFile = join(work, 'credits.json');
    writeFileSync(creditsFile, JSON.stringify(orders));
    const desksFile = join(work, 'desks.json');
    writeFileSync(desksFile, JSON.stringify([{ key: 'bare', secret: 'bare' }]));

    const baseline = await child('./loadgen.ts', { url: bare.base, method: 'POST', path: '/bare', body: '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"bench-{i}"}', desksFile, connections: 32, seconds: 8 });
    // CPU per credit compares between runs on a machine busy with other work, where rates do not.
    // A backend the pool opens during the feed counts from its start; one it closes is lost, and
    // only the backends of this database count (not other work on the same PostgreSQL server).
    const dbBefore = new Map(database ? (await backendPids(database.url)).map((pid) => [pid, cpuSecondsOf([pid])]) : []);
    const cpuBefore = { server: cpuSecondsOf([paygate.process.pid!]) };
    const fed = await child('./feedgen.ts', { url: paygate.base, providerId: pool.id, key: pool.key, secret: pool.secret, creditsFile, batch: BATCH, connections: CONNECTIONS, run });
    const dbAfter = database ? await backendPids(database.url) : [];
    const cpu = { server: cpuSecondsOf([paygate.process.pid!]) - cpuBefore.server, db: dbAfter.reduce((sum, pid) => sum + cpuSecondsOf([pid]) - (dbBefore.get(pid) ?? 0), 0) };
    const today = new Date().toISOString().slice(0, 10);
    const report = await admin(paygate.base)('GET', `/reconciliation?providerId=${pool.id}&date=${today}`);
    const recorded = report.totals.credits as number;
    const matched = report.totals.matched as number;
    const perSecond = (n: number) => n / fed.seconds;
    console.log(`database: ${kind}; feed ${BATCH} credits a request over ${CONNECTIONS} connections, load generators in their own processes`);
    console.log(`baseline POST hash + HMAC + INSERT: ${baseline.rps.toFixed(0)} req/s (32 connections, 8 s)`);
    console.log(
      `credit feed: ${fed.credits} credits in ${fed.requests} requests, ${fed.seconds.toFixed(2)} s (p50 ${fed.p50} ms, p99 ${fed.p99} ms, errors ${fed.errors}, non-2xx ${fed.non2xx}): ` +
        `${perSecond(recorded).toFixed(0)} recorded/s, ${perSecond(matched).toFixed(0)} matched/s (${matched} of ${recorded} matched), ` +
        `${(perSecond(matched) / baseline.rps).toFixed(2)} × the INSERT baseline`,
    );
    const perCredit = (sec: number) => ((sec * 1000) / fed.credits).toFixed(3);
    console.log(`CPU per credit during the feed: server ${perCredit(cpu.server)} ms${database ? `, PostgreSQL ${perCredit(cpu.db)} ms, together ${perCredit(cpu.server + cpu.db)} ms` : ' (the embedded database included)'}`);

    for (const kind of STATEMENTS) {
      const mt940 = kind === 'mt940';
      const file = join(work, mt940 ? 'statement.sta' : 'statement.xml');
      if (mt940) await writeMt940(file, run);
      else await writeStatement(file, run);
      const pid = paygate.process.pid!;
      const before = memoryOf(pid);
      const heapBefore = await heapOf(metricsBase);
      let peak = before.rss;
      const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 50);
      const started = Date.now();
      const answer = await upload(paygate.base, pool.id, file, mt940 ? 'text/plain' : 'application/xml');
      const seconds = (Date.now() - started) / 1000;
      clearInterval(sampler);
      const after = memoryOf(pid);
      const heapAfter = await heapOf(metricsBase);
      if (answer.status !== 200) throw new Error(`statement upload: ${answer.status} ${answer.body}`);
      const summary = (JSON.parse(answer.body) as { result: Record<string, unknown> & { credits: number; sameAs: string | null } }).result;
      // The same bytes again would answer the statement recorded before and record nothing.
      if (summary.sameAs !== null) throw new Error(`statement upload answered sameAs ${summary.sameAs}: the file repeats an earlier upload`);
      const { problems, ...counts } = summary as Record<string, unknown>;
      console.log(
        `statement: ${mt940 ? 'MT940' : 'camt.053.001.08'}, ${ENTRIES} entries, ${(statSync(file).size / 1e6).toFixed(1)} MB, imported in ${seconds.toFixed(1)} s (${(summary.credits / seconds).toFixed(0)} credits/s): ` +
          `${JSON.stringify(counts)}${Array.isArray(problems) && problems.length ? `, ${problems.length} problems listed` : ''}; ` +
          `server RSS ${(before.rss / 1024).toFixed(0)} MB before, peak ${(peak / 1024).toFixed(0)} MB sampled, ${(after.rss / 1024).toFixed(0)} MB after (VmHWM ${(before.hwm / 1024).toFixed(0)} → ${(after.hwm / 1024).toFixed(0)} MB; ${heapBefore} before, ${heapAfter} after)`,
      );
    }
  } finally {
    await paygate.stop();
    await bare.stop();
    rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
