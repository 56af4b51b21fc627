import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.js';
import { cabinetKit, PASSWORD, type CabinetBrowser } from '../helpers/cabinet.js';
import { eventually } from '../helpers/eventually.js';
import { admin, ADMIN_TOKEN, createHarness, json, type Harness } from '../helpers/harness.js';
import { metric as metricOf, settled as settledOf } from '../helpers/metrics.js';

/*
 * Merchant statements at any size (issue "Reports and exports at any size", points 1 and 2): the
 * operator API's JSON and the cabinet's CSV are written as they are read, over real sockets, on
 * the embedded database and on PostgreSQL alike. Each statement is compared line by line with the
 * statement computed here from the ledger itself; a client that stops reading holds the server
 * back (and a slot) but never its memory; one that leaves frees everything; a failure after the
 * first byte leaves an answer that cannot pass for whole; health probes answer while a 200,000-entry
 * statement streams.
 */

const BIG = 200_000;
const OTHER = 100_000;

let h: Harness;
let base: string;
const { Browser, signUp, createDesk, order } = cabinetKit(() => h);
let b: CabinetBrowser;
let bigBrowser: CabinetBrowser;
let small: string; // the cabinet's merchant: a handful of entries at the edges of days
let big: string; // BIG entries
let other: string; // OTHER entries
let third: string; // no entries

/** Live ledger entries written as the volume tool writes them, the balance moved by their sum. */
async function addEntries(merchantId: string, entries: { kind: string; amount: string; at: string; orderId?: string }[]) {
  await h.ctx.db.tx(async (q) => {
    await q.query(
      `INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, sandbox, created_at)
       SELECT $1, e.order_id, e.kind, e.amount, NULL, false, e.at FROM jsonb_to_recordset($2::jsonb) AS e(order_id text, kind text, amount numeric, at timestamptz)`,
      [merchantId, JSON.stringify(entries.map((e) => ({ order_id: e.orderId ?? null, kind: e.kind, amount: e.amount, at: e.at })))],
    );
    await q.query('UPDATE merchants SET balance = balance + (SELECT sum(a) FROM unnest($2::numeric[]) a) WHERE id = $1', [merchantId, entries.map((e) => e.amount)]);
  });
}

/** `n` credits of 0.01000001 USD ten seconds apart from 2025-12-20 (the last on 2026-01-12), in one statement. */
async function addMany(merchantId: string, n: number) {
  await h.ctx.db.tx(async (q) => {
    await q.query(
      `INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, sandbox, created_at)
       SELECT $1, 'ord_gen_' || g, 'credit', 0.01000001, NULL, false, timestamptz '2025-12-20 00:00:00+00' + g * interval '10 seconds'
         FROM generate_series(1, $2::int) g`,
      [merchantId, n],
    );
    await q.query('UPDATE merchants SET balance = balance + 0.01000001 * $2::int WHERE id = $1', [merchantId, n]);
  });
}

/** The statement as the ledger itself says it, without the rollup: every live entry, summed here. */
async function expected(merchantId: string, from: string, to: string) {
  const { rows } = await h.ctx.db.query<{ id: number; kind: string; order_id: string | null; amount: string; created_at: Date; withdrawal_id: string | null }>(
    `SELECT l.id, l.kind, l.order_id, l.amount, l.created_at,
            (SELECT w.id FROM withdrawals w WHERE l.kind = 'withdrawal' AND w.merchant_id = l.merchant_id AND w.created_at = l.created_at AND w.amount_usd = -l.amount) AS withdrawal_id
       FROM ledger_entries l WHERE l.merchant_id = $1 AND NOT l.sandbox ORDER BY l.created_at, l.id`,
    [merchantId],
  );
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + 86_400_000;
  let balance = dec(0);
  for (const r of rows) if (r.created_at.getTime() < start) balance = balance.plus(r.amount);
  const openingBalance = balance.toFixed(8);
  const entries = rows
    .filter((r) => r.created_at.getTime() >= start && r.created_at.getTime() < end)
    .map((r) => {
      balance = balance.plus(r.amount);
      return {
        at: r.created_at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        type: r.kind === 'adjustment' ? (dec(r.amount).lt(0) ? 'reversal' : 'credit') : r.kind,
        orderId: r.order_id,
        withdrawalId: r.withdrawal_id,
        amountUsd: dec(r.amount).toFixed(8),
        balanceUsd: balance.toFixed(8),
      };
    });
  return { merchantId, from, to, currency: 'USD', openingBalance, closingBalance: balance.toFixed(8), entries };
}

function csvOf(s: Awaited<ReturnType<typeof expected>>): string {
  const line = (cells: (string | null)[]) => cells.map((c) => c ?? '').join(',') + '\r\n';
  return (
    line(['at', 'type', 'orderId', 'withdrawalId', 'amountUsd', 'balanceUsd']) +
    line([`${s.from}T00:00:00Z`, 'opening', null, null, null, s.openingBalance]) +
    s.entries.map((e) => line([e.at, e.type, e.orderId, e.withdrawalId, e.amountUsd, e.balanceUsd])).join('') +
    line([`${s.to}T23:59:59Z`, 'closing', null, null, null, s.closingBalance])
  );
}

interface Opened {
  res: http.IncomingMessage;
  /** Resolves with the whole body once it ended properly; rejects when the connection broke first. */
  body(): Promise<string>;
  /** What arrived so far. */
  received(): string;
  drop(): void;
}

/** A GET over a socket of its own that reads nothing until told to (`body()`), as a slow client would. */
function open(path: string, headers: Record<string, string> = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: false });
    const req = http.get(`${base}${path}`, { agent, headers }, (res) => {
      res.pause();
      res.setEncoding('utf8');
      let text = '';
      const done = new Promise<string>((ok, fail) => {
        res.on('data', (c: string) => (text += c));
        res.on('end', () => (res.complete ? ok(text) : fail(new Error('incomplete'))));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('aborted')));
        res.on('close', () => (res.complete ? ok(text) : fail(new Error('closed before the end'))));
      });
      done.catch(() => {});
      resolve({
        res,
        body: () => {
          res.resume();
          return done;
        },
        received: () => text,
        drop: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

const jsonHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };
const statementPath = (merchantId: string, from: string, to: string) => `/admin/v1/merchants/${merchantId}/statement?from=${from}&to=${to}`;
const cookieOf = (browser: CabinetBrowser) => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
const cabinetCookie = () => cookieOf(b);

const metric = (name: string) => metricOf(h, name);
const settled = (name: string) => settledOf(h, name);

/** On PostgreSQL: the statement reads' own connections still open. */
async function statementConnections(): Promise<number> {
  if (h.ctx.db.kind !== 'pg') return 0;
  const { rows } = await h.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'paygate statement' AND datname = current_database()");
  return rows[0]!.n;
}

beforeAll(async () => {
  h = await createHarness({ env: { STATEMENT_EXPORTS_PER_PROCESS: '3', STATEMENT_EXPORTS_PER_MERCHANT: '2' }, unlimitedOrders: true });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  const signedUp = await signUp('Streaming Shop');
  b = signedUp.b;
  const desk = await createDesk(b);
  // Sandbox money (a simulated payment) is never in a statement.
  const play = await order(desk, { amount: 918, rail: 'Sbp' });
  expect((await b.post(`/cabinet/orders/${play.id}/simulate-payment`)).statusCode).toBe(303);
  small = json(await admin(h.app, 'GET', '/merchants?status=UnderReview')).result.items.find((m: { name: string }) => m.name === 'Streaming Shop').id;
  await addEntries(small, [
    { kind: 'credit', amount: '100.12345678', at: '2026-01-10T09:00:00Z', orderId: 'ord_a' },
    // Exactly at midnight: the first instant of the 12th, two entries at one instant (in the order written).
    { kind: 'credit', amount: '5', at: '2026-01-12T00:00:00Z', orderId: 'ord_b' },
    { kind: 'reversal', amount: '-2.5', at: '2026-01-12T00:00:00Z', orderId: 'ord_b' },
    { kind: 'credit', amount: '1.00000001', at: '2026-01-12T23:59:59.999Z', orderId: 'ord_c' },
    // The 13th has no entries; the 14th starts with one at midnight.
    { kind: 'credit', amount: '0.00000001', at: '2026-01-14T00:00:00Z', orderId: 'ord_d' },
  ]);
  expect((await admin(h.app, 'POST', `/merchants/${small}/withdrawals`, { amountUsd: '10', reference: 'wire =1' })).statusCode).toBe(201);

  const create = async (name: string) => json(await admin(h.app, 'POST', '/merchants', { name, sandbox: false })).result.id as string;
  [big, other, third] = [await create('Big Shop'), await create('Other Shop'), await create('Third Shop')];
  await addMany(big, BIG);
  // The big merchant's own user, to download its CSV from the cabinet.
  expect((await admin(h.app, 'POST', `/merchants/${big}/users`, { email: 'owner@big.example', password: PASSWORD })).statusCode).toBe(201);
  bigBrowser = new Browser();
  await bigBrowser.get('/cabinet/sign-in');
  expect((await bigBrowser.post('/cabinet/sign-in', [['email', 'owner@big.example'], ['password', PASSWORD]])).statusCode).toBe(303);
  await addMany(other, OTHER);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(() => h.close());

describe('a statement written as it is read', () => {
  const ranges: [string, string, string][] = [
    ['2026-01-12', '2026-01-12', 'one day beginning with entries at midnight and ending a millisecond before the next'],
    ['2026-01-13', '2026-01-13', 'a day without entries: opening equals closing'],
    ['2026-01-14', '2026-01-14', 'a day that starts with an entry at midnight'],
    ['2026-01-10', '2026-01-15', 'several days, today included'],
    ['2025-01-15', '2026-01-15', '366 days, the most a statement covers'],
    ['2026-01-16', '2026-02-01', 'days after the last entry'],
  ];
  it.each(ranges)('%s to %s (%s): the JSON and the CSV are the ledger, line by line', async (from, to) => {
    const want = await expected(small, from, to);
    const api = await open(statementPath(small, from, to), jsonHeaders);
    expect(api.res.statusCode).toBe(200);
    expect(api.res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(api.res.headers['transfer-encoding']).toBe('chunked');
    const doc = JSON.parse(await api.body());
    expect(doc).toEqual({ status: 'ok', result: want, traceId: api.res.headers['x-trace-id'] });
    const sum = want.entries.reduce((t, e) => t.plus(e.amountUsd), dec(want.openingBalance));
    expect(sum.eq(want.closingBalance)).toBe(true);

    const csv = await open(`/cabinet/statement.csv?from=${from}&to=${to}`, { cookie: cabinetCookie() });
    expect(csv.res.statusCode).toBe(200);
    expect(csv.res.headers['content-disposition']).toBe(`attachment; filename="statement-${from}-${to}.csv"`);
    expect(await csv.body()).toBe(csvOf(want));
  });

  it('the edges: the closing balance of a statement ending today is the live balance; sandbox money is left out; the withdrawal is named', async () => {
    const s = await expected(small, '2026-01-10', '2026-01-15');
    const live = json(await admin(h.app, 'GET', `/merchants/${small}`)).result.balance.live;
    expect(s.closingBalance).toBe(live);
    expect(s.entries.map((e) => [e.at, e.type, e.amountUsd])).toEqual([
      ['2026-01-10T09:00:00Z', 'credit', '100.12345678'],
      ['2026-01-12T00:00:00Z', 'credit', '5.00000000'],
      ['2026-01-12T00:00:00Z', 'reversal', '-2.50000000'],
      ['2026-01-12T23:59:59Z', 'credit', '1.00000001'],
      ['2026-01-14T00:00:00Z', 'credit', '0.00000001'],
      ['2026-01-15T12:00:00Z', 'withdrawal', '-10.00000000'],
    ]);
    expect(s.entries[5]!.withdrawalId).toMatch(/^wdr_/);
    const body = JSON.parse(await (await open(statementPath(small, '2026-01-10', '2026-01-15'), jsonHeaders)).body());
    expect(body.result.entries[5].withdrawalId).toBe(s.entries[5]!.withdrawalId);
  });

  it('what can be known before the first byte is answered as before: bad days 400, an unknown merchant 404, 367 days 400', async () => {
    for (const [path, status, code] of [
      [statementPath(small, '2026-01-16', '2026-01-15'), 400, 'VALIDATION_ERROR'],
      [statementPath(small, '2026-02-30', '2026-03-01'), 400, 'VALIDATION_ERROR'],
      [statementPath(small, '2025-01-14', '2026-01-15'), 400, 'VALIDATION_ERROR'],
      [statementPath('mer_nope', '2026-01-15', '2026-01-15'), 404, 'MERCHANT_NOT_FOUND'],
    ] as const) {
      const res = await fetch(`${base}${path}`, { headers: jsonHeaders });
      expect(res.status, path).toBe(status);
      expect((await res.json()).fault.code).toBe(code);
    }
    const page = await fetch(`${base}/cabinet/statement.csv?from=2025-01-14&to=2026-01-15`, { headers: { cookie: cabinetCookie() } });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

});

describe('a large statement', () => {
  it(`${BIG.toLocaleString('en')} entries stream while /healthz keeps answering`, async () => {
    const probes: number[] = [];
    let streaming = true;
    const probing = (async () => {
      while (streaming) {
        const t = performance.now();
        const res = await fetch(`${base}/healthz`);
        expect(res.status).toBe(200);
        await res.text();
        probes.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const rowsBefore = await metric('paygate_statement_rows_total');
    const started = performance.now();
    const res = await fetch(`${base}${statementPath(big, '2025-12-01', '2026-01-15')}`, { headers: jsonHeaders });
    const doc = JSON.parse(await res.text());
    const took = performance.now() - started;
    streaming = false;
    await probing;
    expect(res.status).toBe(200);
    expect(doc.result.entries).toHaveLength(BIG);
    expect(doc.result.openingBalance).toBe('0.00000000');
    expect(doc.result.closingBalance).toBe(dec('0.01000001').mul(BIG).toFixed(8));
    expect(doc.result.entries[BIG - 1].balanceUsd).toBe(doc.result.closingBalance);
    expect(doc.result.entries[0]).toEqual({ at: '2025-12-20T00:00:10Z', type: 'credit', orderId: 'ord_gen_1', withdrawalId: null, amountUsd: '0.01000001', balanceUsd: '0.01000001' });
    expect((await metric('paygate_statement_rows_total')) - rowsBefore).toBe(BIG);
    // The probes ran all along: many of them, none held up behind the statement for long.
    expect(probes.length, `statement took ${Math.round(took)} ms`).toBeGreaterThanOrEqual(5);
    expect(Math.max(...probes), `probes ${probes.map(Math.round).join(', ')}`).toBeLessThan(1_000);
  }, 120_000);

  it('the CSV of a month of it, the opening balance carrying the days before, is the ledger line by line', async () => {
    const csv = await (await open('/cabinet/statement.csv?from=2026-01-01&to=2026-01-31', { cookie: cookieOf(bigBrowser) })).body();
    expect(csv).toBe(csvOf(await expected(big, '2026-01-01', '2026-01-31')));
    const lines = csv.trimEnd().split('\r\n');
    // One entry every ten seconds from 2025-12-20: the 103,680th falls exactly at midnight of January 1.
    expect(lines[1]).toBe(`2026-01-01T00:00:00Z,opening,,,,${dec('0.01000001').mul(103_679).toFixed(8)}`);
    expect(lines[2]).toBe(`2026-01-01T00:00:00Z,credit,ord_gen_103680,,0.01000001,${dec('0.01000001').mul(103_680).toFixed(8)}`);
    expect(lines).toHaveLength(3 + BIG - 103_679);
  }, 60_000);
});

describe('limits, clients that stop reading or leave, failures on the way', () => {
  it(`2 statements of a merchant and 3 in the process at once: one more answers 429 with Retry-After; leaving frees everything`, async () => {
    const aborted = await metric('paygate_statements_total{outcome="aborted"}');
    const rowsAtStart = await metric('paygate_statement_rows_total');
    const a1 = await open(statementPath(big, '2025-12-01', '2026-01-15'), jsonHeaders);
    const a2 = await open(statementPath(big, '2025-12-01', '2026-01-15'), jsonHeaders);
    expect([a1.res.statusCode, a2.res.statusCode]).toEqual([200, 200]);
    const a3 = await fetch(`${base}${statementPath(big, '2025-12-01', '2026-01-15')}`, { headers: jsonHeaders });
    expect(a3.status).toBe(429);
    expect(a3.headers.get('retry-after')).toBe('5');
    expect(await a3.text()).toBe('');
    // Another merchant still gets a slot of the process's three.
    const b1 = await open(`/admin/v1/merchants/${other}/statement?from=2025-12-01&to=2026-01-15`, jsonHeaders);
    expect(b1.res.statusCode).toBe(200);
    const c1 = await fetch(`${base}${statementPath(third, '2026-01-15', '2026-01-15')}`, { headers: jsonHeaders });
    expect(c1.status).toBe(429);
    // The cabinet's download is refused alike, with a page.
    const page = await fetch(`${base}/cabinet/statement.csv`, { headers: { cookie: cabinetCookie() } });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe('5');
    expect(await page.text()).toContain('Try again in 5 seconds');
    expect(await metric('paygate_statements_open')).toBe(3);
    expect(await statementConnections()).toBe(h.ctx.db.kind === 'pg' ? 3 : 0);

    // Paused clients hold the server back: it reads no further than what their sockets take.
    const rows = await settled('paygate_statement_rows_total');
    expect(rows - rowsAtStart).toBeLessThan(2 * BIG + OTHER);

    for (const c of [a1, a2, b1]) c.drop();
    await eventually('the statements of the clients that left are closed', async () => (await metric('paygate_statements_open')) === 0);
    await eventually('their database reads are closed', async () => (await statementConnections()) === 0);
    expect(await metric('paygate_statements_total{outcome="aborted"}')).toBe(aborted + 3);
    // Nothing reads on behalf of the clients that left.
    const stopped = await metric('paygate_statement_rows_total');
    await new Promise((r) => setTimeout(r, 300));
    expect(await metric('paygate_statement_rows_total')).toBe(stopped);
    expect(stopped).toBe(rows);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const again = await fetch(`${base}${statementPath(third, '2026-01-15', '2026-01-15')}`, { headers: jsonHeaders });
    expect(again.status).toBe(200);
    expect((await again.json()).result).toMatchObject({ merchantId: third, openingBalance: '0.00000000', closingBalance: '0.00000000', entries: [] });
  }, 60_000);

  it('a client that takes nothing for 60 s loses its statement (on the injected clock): the slot is free, the answer incomplete', async () => {
    const stalled = await open(statementPath(big, '2025-12-01', '2026-01-15'), jsonHeaders);
    await eventually('the statement is open', async () => (await metric('paygate_statements_open')) === 1);
    // Once the client's socket takes no more, the server reads no more.
    await settled('paygate_statement_rows_total');
    h.clock.advance(59_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await metric('paygate_statements_open')).toBe(1);
    h.clock.advance(1_000);
    await eventually('the stalled statement is closed', async () => (await metric('paygate_statements_open')) === 0);
    await eventually('its database read is closed', async () => (await statementConnections()) === 0);
    await expect(stalled.body()).rejects.toThrow();
    expect(() => JSON.parse(stalled.received())).toThrow();
  }, 60_000);

  it('a statement reads one moment: money written while it streams is in the next one, and each adds up', async () => {
    const path = `/admin/v1/merchants/${other}/statement?from=2025-12-01&to=2026-01-15`;
    const reading = await open(path, jsonHeaders);
    expect(reading.res.statusCode).toBe(200);
    // Written while the statement is still being read (its client has taken nothing yet).
    expect((await admin(h.app, 'POST', `/merchants/${other}/withdrawals`, { amountUsd: '1', reference: 'while streaming' })).statusCode).toBe(201);
    const before = JSON.parse(await reading.body()).result;
    expect(before.entries).toHaveLength(OTHER);
    expect(before.closingBalance).toBe(dec('0.01000001').mul(OTHER).toFixed(8));
    expect(before.entries[OTHER - 1].balanceUsd).toBe(before.closingBalance);
    const after = JSON.parse(await (await open(path, jsonHeaders)).body()).result;
    expect(after.entries).toHaveLength(OTHER + 1);
    expect(after.entries[OTHER]).toMatchObject({ type: 'withdrawal', amountUsd: '-1.00000000' });
    expect(after).toEqual(await expected(other, '2025-12-01', '2026-01-15'));
  }, 60_000);

  it('a failure after the first byte cuts the answer short: the JSON does not parse, the CSV has no closing row', async () => {
    // A rollup that disagrees with the ledger: caught when the entries end, after the document began.
    const day = await h.ctx.db.query("UPDATE ledger_daily SET net = net + 1 WHERE merchant_id = $1 AND day = '2026-01-12' AND NOT sandbox", [small]);
    expect(day.rowCount).toBe(1);
    try {
      const api = await open(statementPath(small, '2026-01-11', '2026-01-13'), jsonHeaders);
      expect(api.res.statusCode).toBe(200);
      await expect(api.body()).rejects.toThrow();
      expect(api.received().startsWith('{"status":"ok","result":{')).toBe(true);
      expect(() => JSON.parse(api.received())).toThrow();
      const csv = await open('/cabinet/statement.csv?from=2026-01-11&to=2026-01-13', { cookie: cabinetCookie() });
      await expect(csv.body()).rejects.toThrow();
      expect(csv.received()).toContain('opening');
      expect(csv.received()).not.toContain('closing');
      // fetch, as most clients read, fails too rather than handing over a short body.
      const res = await fetch(`${base}${statementPath(small, '2026-01-11', '2026-01-13')}`, { headers: jsonHeaders });
      await expect(res.text()).rejects.toThrow();
    } finally {
      await h.ctx.db.query("UPDATE ledger_daily SET net = net - 1 WHERE merchant_id = $1 AND day = '2026-01-12' AND NOT sandbox", [small]);
    }
    await eventually('nothing is left open', async () => (await metric('paygate_statements_open')) === 0 && (await statementConnections()) === 0);
    expect(JSON.parse(await (await open(statementPath(small, '2026-01-11', '2026-01-13'), jsonHeaders)).body()).result).toEqual(await expected(small, '2026-01-11', '2026-01-13'));
  }, 60_000);
});
