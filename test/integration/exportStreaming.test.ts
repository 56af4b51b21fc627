import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/services/audit.js';
import * as office from '../../src/services/office.js';
import { csvCell } from '../../src/web/cabinet/csv.js';
import type { CsvColumn } from '../../src/web/office/csv.js';
import { MERCHANT_COLUMNS } from '../../src/web/office/routes/merchants.js';
import { ORDER_COLUMNS } from '../../src/web/office/routes/orders.js';
import { eventually } from '../helpers/eventually.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { metric as metricOf, settled as settledOf } from '../helpers/metrics.js';
import { pools } from './reconciliation/helpers.js';

/*
 * Exports other than the statement at any size (issue "Reports and exports at any size", point 2):
 * the back office's CSV lists, the day reconciliation report and the cabinet's orders CSV, over
 * real sockets, on the embedded database and on PostgreSQL alike. Each streamed export is the list
 * the service computes in one read, row for row; each takes a slot of its operator (or merchant)
 * and of the process, one more answering 429 with Retry-After; a client that stops reading holds
 * the server's reads back, one that leaves frees its slot and stops them; health probes answer
 * while a 20,000-order export streams.
 */

const MANY = 20_000;
const PASSWORD = 'operator passphrase 2026';

let h: Harness;
let base: string;
let desk: DeskCreds;
let adminOne: FormBrowser;
let adminTwo: FormBrowser;
let cabinet: FormBrowser;
let poolId: string;

async function operator(email: string): Promise<FormBrowser> {
  expect((await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role: 'admin' })).statusCode).toBe(201);
  const b = new FormBrowser(h.app);
  await b.get('/office/sign-in');
  expect((await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(303);
  return b;
}

const cookieOf = (b: FormBrowser) => [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

interface Opened {
  res: http.IncomingMessage;
  /** Resolves with the whole body once it ended properly; rejects when the connection broke first. */
  body(): Promise<string>;
  drop(): void;
}

/** A GET over a socket of its own that reads nothing until told to (`body()`), as a slow client would. */
function open(path: string, b: FormBrowser): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: false });
    const req = http.get(`${base}${path}`, { agent, headers: { cookie: cookieOf(b) } }, (res) => {
      res.pause();
      res.setEncoding('utf8');
      let text = '';
      const done = new Promise<string>((ok, fail) => {
        res.on('data', (c: string) => (text += c));
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
        drop: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

const get = (path: string, b: FormBrowser) => fetch(`${base}${path}`, { headers: { cookie: cookieOf(b) } });

const metric = (name: string) => metricOf(h, name);
const settled = (name: string) => settledOf(h, name);

/** The CSV as the export wrote it before it streamed: every row in memory, then the text. */
function csvOf<T>(columns: readonly CsvColumn<T>[], rows: readonly T[]): string {
  const cell = (v: string | number | boolean | null | undefined) => csvCell(v === null || v === undefined ? null : String(v));
  return [columns.map((c) => c.name).join(','), ...rows.map((r) => columns.map((c) => cell(c.value(r))).join(','))].join('\r\n') + '\r\n';
}

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false', EXPORTS_PER_PROCESS: '3', EXPORTS_PER_OWNER: '2' }, unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Export Shop', sandbox: true } });
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1000, rail: 'Sbp', orderRef: 'ref "quoted", =formula' }) });
  expect(res.statusCode, res.body).toBe(201);
  // MANY copies of it a second apart, every third cancelled, written as the volume tool writes orders.
  await h.ctx.db.query(
    `INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, direction, status, sub_status, placement,
       payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, cancel_reason, created_at, expires_at, updated_at)
     SELECT 'ord_exp' || lpad(g::text, 22, '0'), desk_id, merchant_id, CASE WHEN g % 7 = 0 THEN '-ref ' || g END, amount + g, currency, rate, settled_amount, method, rail, direction,
       CASE WHEN g % 3 = 0 THEN 'Canceled' ELSE status END, CASE WHEN g % 3 = 0 THEN 'Cancelled' ELSE sub_status END, placement,
       payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, CASE WHEN g % 3 = 0 THEN 'cancelled by merchant' END,
       created_at - g * interval '1 second', expires_at, updated_at
     FROM orders, generate_series(1, $2::int) g WHERE id = $1`,
    [json(res).result.id, MANY],
  );
  for (let i = 0; i < 3; i++) await admin(h.app, 'POST', '/merchants', { name: `Other, "${i}"`, sandbox: i % 2 === 0 });
  adminOne = await operator('one@paygate.example');
  adminTwo = await operator('two@paygate.example');
  expect((await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email: 'owner@export.example', password: PASSWORD })).statusCode).toBe(201);
  cabinet = new FormBrowser(h.app);
  await cabinet.get('/cabinet/sign-in');
  expect((await cabinet.post('/cabinet/sign-in', [['email', 'owner@export.example'], ['password', PASSWORD]])).statusCode).toBe(303);
  poolId = (await pools(h)([{ card: '2200 1500 0000 0001', holder: 'A' }])).id;
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(() => h.close());

describe('exports written as they are read', () => {
  it(`the orders CSV of ${(MANY + 1).toLocaleString('en')} orders is the list read in one go, row for row, sent in chunks`, async () => {
    const e = await open('/office/orders.csv?mode=sandbox', adminOne);
    expect(e.res.statusCode).toBe(200);
    expect(e.res.headers['transfer-encoding']).toBe('chunked');
    expect(e.res.headers['content-disposition']).toBe('attachment; filename="orders-sandbox.csv"');
    const body = await e.body();
    const all = await office.searchOrders(h.ctx, {}, { sandbox: true, limit: MANY + 10 });
    expect(all.items).toHaveLength(MANY + 1);
    expect(body).toBe(csvOf(ORDER_COLUMNS, all.items));
  }, 60_000);

  it('with the page\'s filters: the cancelled orders of the merchant, and a search that finds one', async () => {
    const filters = { status: 'Canceled', merchantId: desk.merchantId };
    const body = await (await get(`/office/orders.csv?mode=sandbox&status=Canceled&merchantId=${desk.merchantId}`, adminOne)).text();
    const want = await office.searchOrders(h.ctx, filters, { sandbox: true, limit: MANY });
    expect(want.items.length).toBe(Math.floor(MANY / 3));
    expect(body).toBe(csvOf(ORDER_COLUMNS, want.items));
    const one = await (await get('/office/orders.csv?mode=sandbox&q=ord_exp0000000000000000000021', adminOne)).text();
    expect(one.trimEnd().split('\r\n')).toHaveLength(2);
    expect(one).toContain(',\'-ref 21,');
  });

  it('the merchants and the audit trail are their lists read in one go', async () => {
    const merchants = await (await get('/office/merchants.csv', adminOne)).text();
    const wantMerchants = await office.listMerchants(h.ctx, {}, { limit: 1000 });
    expect(merchants).toBe(csvOf(MERCHANT_COLUMNS(false), wantMerchants.items));
    expect(wantMerchants.items.length).toBeGreaterThanOrEqual(4);
    const audit = await (await get('/office/audit.csv', adminOne)).text();
    const wantAudit = await listAudit(h.ctx, { limit: 1000 });
    expect(audit.trimEnd().split('\r\n')).toHaveLength(wantAudit.items.length + 1);
    for (const a of wantAudit.items) expect(audit).toContain(a.id);
  });

  it('short lists and the day report are answered as before', async () => {
    for (const path of ['/office/operators.csv', '/office/providers.csv', '/office/rates.csv', '/office/tariffs.csv', '/office/caps.csv', '/office/queues/payed.csv', '/office/queues/review.csv']) {
      const res = await get(path, adminOne);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('text/csv; charset=utf-8');
      expect((await res.text()).split('\r\n')[0], path).toMatch(/^[a-zA-Z]+(,[a-zA-Z]+)*$/);
    }
    expect((await (await get('/office/operators.csv', adminOne)).text())).toContain('two@paygate.example');
    const report = await get(`/office/pools/${poolId}/report.csv?date=2026-01-15`, adminOne);
    expect(report.status).toBe(200);
    expect(await report.text()).toMatch(/^date,/);
    const page = await get(`/office/pools/${poolId}/report?date=2026-01-15`, adminOne);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Download CSV');
    const cabinetCsv = await get('/cabinet/orders.csv', cabinet);
    expect(cabinetCsv.status).toBe(200);
    // 200 rows at most (web spec), newest first.
    const lines = (await cabinetCsv.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(201);
  });

  it(`health answers all along while ${(MANY + 1).toLocaleString('en')} orders stream out`, async () => {
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
    const rowsBefore = await metric('paygate_export_rows_total');
    const started = performance.now();
    const res = await get('/office/orders.csv?mode=sandbox', adminOne);
    const text = await res.text();
    const took = performance.now() - started;
    streaming = false;
    await probing;
    expect(res.status).toBe(200);
    expect(text.trimEnd().split('\r\n')).toHaveLength(MANY + 2);
    expect((await metric('paygate_export_rows_total')) - rowsBefore).toBe(MANY + 1);
    expect(probes.length, `export took ${Math.round(took)} ms`).toBeGreaterThanOrEqual(3);
    expect(Math.max(...probes), `probes ${probes.map(Math.round).join(', ')}`).toBeLessThan(1_000);
  }, 60_000);
});

describe('limits, clients that stop reading or leave', () => {
  it('2 exports of an operator and 3 in the process at once: one more answers 429 with Retry-After; leaving frees the slots and stops the reads', async () => {
    const aborted = await metric('paygate_exports_total{export="orders-sandbox",outcome="aborted"}');
    const rowsAtStart = await metric('paygate_export_rows_total');
    const a1 = await open('/office/orders.csv?mode=sandbox', adminOne);
    const a2 = await open('/office/orders.csv?mode=sandbox', adminOne);
    expect([a1.res.statusCode, a2.res.statusCode]).toEqual([200, 200]);
    const a3 = await get('/office/merchants.csv', adminOne);
    expect(a3.status).toBe(429);
    expect(a3.headers.get('retry-after')).toBe('5');
    expect(await a3.text()).toContain('Try again in 5 seconds');
    // The other operator still gets a slot of the process's three, then no more.
    const b1 = await open('/office/orders.csv?mode=sandbox', adminTwo);
    expect(b1.res.statusCode).toBe(200);
    const b2 = await get('/office/audit.csv', adminTwo);
    expect(b2.status).toBe(429);
    // The day report and the cabinet's CSV wait their turn alike.
    const report = await get(`/office/pools/${poolId}/report.csv`, adminTwo);
    expect(report.status).toBe(429);
    expect(await report.text()).toContain('Try again in 5 seconds');
    const cab = await get('/cabinet/orders.csv', cabinet);
    expect(cab.status).toBe(429);
    expect(cab.headers.get('retry-after')).toBe('5');
    expect(await cab.text()).toContain('Try again in 5 seconds');
    const api = await admin(h.app, 'GET', `/reconciliation?providerId=${poolId}`);
    expect(api.statusCode).toBe(429);
    expect(api.headers['retry-after']).toBe('5');
    expect(api.body).toBe('');
    expect(await metric('paygate_exports_open')).toBe(3);

    // Paused clients hold the server back: it reads no further than what their sockets take.
    const rows = await settled('paygate_export_rows_total');
    expect(rows - rowsAtStart).toBeLessThan(3 * (MANY + 1));

    for (const c of [a1, a2, b1]) c.drop();
    await eventually('the exports of the clients that left are closed', async () => (await metric('paygate_exports_open')) === 0);
    expect(await metric('paygate_exports_total{export="orders-sandbox",outcome="aborted"}')).toBe(aborted + 3);
    // Nothing reads on behalf of the clients that left.
    const stopped = await metric('paygate_export_rows_total');
    await new Promise((r) => setTimeout(r, 300));
    expect(await metric('paygate_export_rows_total')).toBe(stopped);
    expect(stopped).toBe(rows);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    for (const [path, b] of [['/office/merchants.csv', adminOne], ['/cabinet/orders.csv', cabinet]] as const) {
      const res = await get(path, b);
      expect(res.status, path).toBe(200);
      await res.text();
    }
    expect((await admin(h.app, 'GET', `/reconciliation?providerId=${poolId}`)).statusCode).toBe(200);
  }, 60_000);

  it('a client that takes nothing for 60 s loses its export (on the injected clock): the slot is free, the answer incomplete', async () => {
    const stalled = await open('/office/orders.csv?mode=sandbox', adminOne);
    expect(stalled.res.statusCode).toBe(200);
    await settled('paygate_export_rows_total');
    expect(await metric('paygate_exports_open')).toBe(1);
    h.clock.advance(60_000);
    await eventually('the stalled export is ended', async () => (await metric('paygate_exports_open')) === 0);
    await expect(stalled.body()).rejects.toThrow();
  }, 60_000);
});
