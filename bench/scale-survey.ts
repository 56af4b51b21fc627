/**
 * The statements behind every read the scale benchmark times, with their plans: the app runs in this
 * process on a database the volume tool filled, every read is made once (after one warm-up) with
 * the statements it sends recorded, and each statement is run again under
 * `EXPLAIN (ANALYZE, BUFFERS)` (inside a transaction that is rolled back, as some claim nonces).
 *
 *   DATABASE_URL=postgres://…/paygate_scale_2000000 MASTER_KEY=… SAMPLES=/tmp/paygate-scale-2000000.json npx tsx bench/scale-survey.ts
 *
 * (bench:scale with BENCH_SCALE_KEEP=1 leaves such a database, its key and its samples.) Prints,
 * per read, each statement's execution time and the plan's scans; SURVEY_PLANS=1 prints whole plans.
 * The last section lists every sequential scan of a table that grows with history ("none" is the aim).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { buildApp } from '../src/app/buildApp.js';
import { createLogger, createRuntime } from '../src/runtime.js';
import type { Db, Queryable } from '../src/store/db.js';
import { signRequest } from '../src/signing.js';

interface Recorded {
  sql: string;
  params: readonly unknown[];
}

let recording: Recorded[] | null = null;

/** The database, every statement with parameters noted while `recording` is set. */
function recorded(db: Db): Db {
  const note = (sql: string, params: readonly unknown[] | undefined) => {
    if (recording && !/^\s*(BEGIN|COMMIT|ROLLBACK|SET|SAVEPOINT)/i.test(sql)) recording.push({ sql, params: params ?? [] });
  };
  const wrap = (q: Queryable): Queryable => ({
    query: (sql, params) => (note(sql, params), q.query(sql, params)),
    exec: (sql) => (note(sql, []), q.exec(sql)),
  });
  return { ...db, ...wrap(db), tx: (fn) => db.tx((q) => fn(wrap(q))), listen: db.listen.bind(db), close: db.close.bind(db) };
}

async function main() {
  const samples = JSON.parse(readFileSync(process.env.SAMPLES!, 'utf8').trim().split('\n').at(-1)!);
  const config = parseConfig({ ...process.env, OFFICE_REQUIRE_2FA: 'false', SEED_DEMO: 'false', ADMIN_TOKEN: 'survey-admin-token-0123456789' });
  const runtime = await createRuntime(config, { clock: systemClock, log: createLogger('silent') });
  const ctx = { ...runtime.ctx, db: recorded(runtime.ctx.db) };
  const app = buildApp(ctx);
  await app.ready();
  const explain = new pg.Client({ connectionString: config.databaseUrl! });
  await explain.connect();
  const cookies = { cabinet: await signIn(app, 'cabinet', samples.merchant.email, samples.merchant.password), office: await signIn(app, 'office', samples.operator.email, samples.operator.password) };
  const gw = (path: string) => () => {
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    const sign = signRequest(samples.merchant.deskSecret, ts, nonce, 'GET', path.split('?')[0]!, '');
    return app.inject({ method: 'GET', url: path, headers: { 'x-gate-key': samples.merchant.deskKey, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sign } });
  };
  const page = (surface: 'cabinet' | 'office', url: string) => () => app.inject({ method: 'GET', url, headers: { cookie: cookies[surface] } });
  const adm = (url: string) => () => app.inject({ method: 'GET', url: `/admin/v1${url}`, headers: { authorization: 'Bearer survey-admin-token-0123456789' } });
  const id = samples.sampleOrderIds[50];
  const day = samples.days[5];
  const month = day.slice(0, 7);
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  // The page reached by following "older" 20 times, and the second page of a month, by their links.
  const follow = async (start: string, times: number) => {
    let url = start;
    for (let k = 0; k < times; k++) {
      const body = (await page('cabinet', url)()).body;
      const link = /href="(\/cabinet\/orders\?[^"]*before=[^"]+)"/.exec(body)?.[1];
      if (!link) throw new Error(`no "older" link on ${url}`);
      url = link.replaceAll('&amp;', '&');
    }
    return url;
  };
  const monthEnd = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
  const monthUrl = `/cabinet/orders?from=${month}-01&to=${monthEnd}`;
  const older = await follow('/cabinet/orders', 20);
  const monthOlder = await follow(monthUrl, 1);
  const reads: [string, () => Promise<{ statusCode: number }>][] = [
    ['GET /gw/v1/orders/{id}', gw(`/gw/v1/orders/${id}`)],
    ['GET /gw/v1/balance', gw('/gw/v1/balance')],
    ['GET /gw/v1/events', gw('/gw/v1/events')],
    ['cabinet home', page('cabinet', '/cabinet')],
    ['cabinet orders', page('cabinet', '/cabinet/orders')],
    ['cabinet orders ?status', page('cabinet', '/cabinet/orders?status=Completed')],
    ['cabinet orders ?desk', page('cabinet', `/cabinet/orders?desk=${samples.merchant.deskId}`)],
    ['cabinet orders, 20 pages older', page('cabinet', older)],
    ['cabinet orders, a month', page('cabinet', monthUrl)],
    ['cabinet orders, a month, older', page('cabinet', monthOlder)],
    ['cabinet orders ?q=id', page('cabinet', `/cabinet/orders?q=${id}`)],
    ['cabinet orders ?q=orderRef', page('cabinet', `/cabinet/orders?q=${samples.sampleOrderRefs[50]}`)],
    ['cabinet orders ?q=payer ref', page('cabinet', `/cabinet/orders?q=${samples.samplePayerReferences[50]}`)],
    ['cabinet orders.csv, a day', page('cabinet', `/cabinet/orders.csv?from=${day}&to=${next(day)}`)],
    ['cabinet order page', page('cabinet', `/cabinet/orders/${id}`)],
    ['cabinet balance', page('cabinet', '/cabinet/balance')],
    ['cabinet callbacks', page('cabinet', '/cabinet/callbacks')],
    ['cabinet appeals', page('cabinet', '/cabinet/appeals')],
    ['office home', page('office', '/office')],
    ['office orders', page('office', '/office/orders')],
    ['office orders ?q=id', page('office', `/office/orders?q=${id}`)],
    ['office orders ?q=payer ref', page('office', `/office/orders?q=${samples.samplePayerReferences[50]}`)],
    ['office merchant page', page('office', `/office/merchants/${samples.merchant.id}`)],
    ['office appeals queue', page('office', '/office/queues/appeals')],
    ['office audit', page('office', '/office/audit')],
    ['office credits', page('office', '/office/credits')],
    ['GET /admin/v1/orders', adm('/orders')],
    ['GET /admin/v1/orders?merchantId', adm(`/orders?merchantId=${samples.merchant.id}`)],
    ['GET /admin/v1/audit', adm('/audit')],
    ['GET /admin/v1/appeals?status=Open', adm('/appeals?status=Open')],
  ];
  // Tables that grow with history: none of them may be read whole on a request's path.
  const growing = /^(orders|order_refs|order_transitions|outbox_events|outbox_events_archive|callback_attempts|callback_attempts_archive|ledger_entries|audit_entries|appeals|nonces|turnover_counters|credits|order_day_stats|ledger_daily|requisite_assignments|payment_link_orders|provider_messages|appeal_receipts|withdrawals)$/;
  const seqScans: string[] = [];
  for (const [name, run] of reads) {
    await run();
    recording = [];
    const t = performance.now();
    const res = await run();
    const ms = performance.now() - t;
    const statements = recording;
    recording = null;
    console.log(`\n## ${name}: HTTP ${res.statusCode}, ${ms.toFixed(1)} ms, ${statements.length} statements`);
    for (const s of statements) {
      await explain.query('BEGIN');
      try {
        const { rows } = await explain.query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, values: s.params as unknown[] });
        const plan = rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
        for (const l of plan) {
          const m = /Seq Scan on (\w+)/.exec(l);
          if (m && growing.test(m[1]!)) seqScans.push(`${name}: ${l.trim().slice(0, 120)}`);
        }
        const time = plan.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
        const text = s.sql.replace(/\s+/g, ' ').trim();
        console.log(`- ${time}: \`${text.length > 140 ? `${text.slice(0, 140)}…` : text}\``);
        const scans = plan.filter((l) => /Scan|Join|Sort(?! Method)|Limit|Aggregate/.test(l) && !/Buffers/.test(l)).map((l) => l.replace(/\(cost=[^)]*\)\s*/, '').trim());
        for (const l of process.env.SURVEY_PLANS ? plan : scans.slice(0, 6)) console.log(`    ${l.slice(0, 160)}`);
      } catch (err) {
        console.log(`- (not explained: ${(err as Error).message.split('\n')[0]})`);
      } finally {
        await explain.query('ROLLBACK');
      }
    }
  }
  console.log(`\n## sequential scans of tables that grow with history: ${seqScans.length === 0 ? 'none' : ''}`);
  for (const l of seqScans) console.log(`- ${l}`);
  await explain.end();
  await app.close();
  await runtime.close();
}

async function signIn(app: FastifyInstance, surface: 'cabinet' | 'office', email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (headers: Record<string, unknown>) => {
    for (const line of ([] as string[]).concat((headers['set-cookie'] as string[] | string | undefined) ?? [])) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await app.inject({ method: 'GET', url: `/${surface}/sign-in` });
  keep(form.headers);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const res = await app.inject({
    method: 'POST',
    url: `/${surface}/sign-in`,
    headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email, password, _csrf: csrf }).toString(),
  });
  if (res.statusCode !== 303) throw new Error(`${surface} sign-in: ${res.statusCode}`);
  keep(res.headers);
  return cookie();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
