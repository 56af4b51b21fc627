import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { dashboard } from '../../src/services/office.js';
import { cabinetKit } from '../helpers/cabinet.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { admin, CLASSIC_DESK, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/*
 * Test desks after going live, and where to send the customer (web.md, "A money-right first day"):
 * any merchant can create a desk with `sandbox: true`; its orders always go to the sandbox
 * provider, are paid by simulation, move sandbox money only and carry `sandbox: true` in reads and
 * callbacks, while the merchant's live desks go on unchanged. Every order read and the create
 * answer carry `payPageUrl`, the absolute address of the order's payment page under PUBLIC_URL.
 * Run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

const PUBLIC_URL = 'https://pay.example.test';
/** The one card of the platform's pool: what a live order of the merchant is given. */
const POOL_CARD = '2200 1500 0000 0042';

let h: Harness;
let rx: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  // A trailing slash in the variable is dropped: the addresses have none doubled.
  h = await createHarness({ env: { PUBLIC_URL: `${PUBLIC_URL}/`, CALLBACK_ALLOWLIST: '127.0.0.1', OFFICE_REQUIRE_2FA: 'false' }, unlimitedOrders: true });
  rx = await startReceiver();
  worker = new DeliveryWorker(h.ctx, { timeoutMs: 300 });
}, 600_000);
afterAll(async () => {
  await worker?.close();
  await rx?.close();
  await h?.close();
});

const create = (d: DeskCreds, body: Record<string, unknown>) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
const read = async (d: DeskCreds, id: string) => {
  const res = await signed(h, d, `/gw/v1/orders/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result;
};
const gatewayBalance = async (d: DeskCreds) => json(await signed(h, d, '/gw/v1/balance')).result;
const operatorBalance = async (merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance;
const count = async (sql: string, params: unknown[]) => (await h.ctx.db.query<{ n: number }>(sql, params)).rows[0]!.n;

/** Runs the delivery worker until nothing is due, and answers the callback bodies its receiver got for the order. */
async function callbacksOf(orderId: string): Promise<Record<string, unknown>[]> {
  while ((await worker.runOnce()) > 0);
  return rx.hits.map((hit) => JSON.parse(hit.body.toString('utf8'))).filter((b) => b.id === orderId);
}

/** The merchant's turnover counters of the day, per scope (completed USD), as caps read them. */
async function dayCounters(scope: 'desk' | 'merchant' | 'platform', scopeId: string): Promise<string> {
  const { rows } = await h.ctx.db.query<{ usd: string }>(
    `SELECT coalesce(sum(completed_usd), 0)::numeric(24, 8)::text AS usd FROM turnover_counters WHERE scope = $1 AND scope_id = $2 AND win = 'day'`,
    [scope, scopeId],
  );
  return rows[0]!.usd;
}

describe('an approved merchant with a live desk and a test desk', () => {
  let live: DeskCreds;
  let test: DeskCreds;
  let poolId: string;

  beforeAll(async () => {
    live = await provisionDesk(h.app, { merchant: { name: 'Going Live Shop', approve: true }, desk: { name: 'Shop', rails: ['C2c'], callbackUrl: `${rx.url}/live` } });
    // The test desk offers a rail no live provider serves (Sbp) beside the pool's (C2c).
    const res = await admin(h.app, 'POST', `/merchants/${live.merchantId}/desks`, { ...CLASSIC_DESK, name: 'Staging', rails: ['Sbp', 'C2c'], callbackUrl: `${rx.url}/test`, sandbox: true });
    expect(res.statusCode, res.body).toBe(201);
    const d = json(res).result;
    test = { id: d.id, key: d.key, secret: d.secret, merchantId: live.merchantId };
    const pool = await admin(h.app, 'POST', '/providers', {
      name: 'Pool',
      kind: 'pool',
      priority: 1,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: POOL_CARD, holder: 'Platform' }],
    });
    expect(pool.statusCode, pool.body).toBe(201);
    poolId = json(pool).result.id;
  });

  it('desk reads and lists say which desk is a test desk; a desk keeps its mode for life', async () => {
    expect(json(await admin(h.app, 'GET', `/desks/${test.id}`)).result).toMatchObject({ id: test.id, name: 'Staging', sandbox: true });
    expect(json(await admin(h.app, 'GET', `/desks/${live.id}`)).result).toMatchObject({ id: live.id, name: 'Shop', sandbox: false });
    const list = json(await admin(h.app, 'GET', `/desks?merchantId=${live.merchantId}`)).result.items;
    expect(list.map((d: { name: string; sandbox: boolean }) => [d.name, d.sandbox]).sort()).toEqual([['Shop', false], ['Staging', true]]);

    for (const [id, sandbox] of [[test.id, false], [live.id, true]] as const) {
      const res = await admin(h.app, 'PATCH', `/desks/${id}`, { sandbox });
      expect(res.statusCode, res.body).toBe(400);
      expect(json(res).fault).toEqual({ code: 'VALIDATION_ERROR', detail: expect.stringContaining('sandbox') });
    }
    expect(json(await admin(h.app, 'GET', `/desks/${test.id}`)).result.sandbox).toBe(true);
    expect(json(await admin(h.app, 'GET', `/desks/${live.id}`)).result.sandbox).toBe(false);

    const bad = await admin(h.app, 'POST', `/merchants/${live.merchantId}/desks`, { ...CLASSIC_DESK, sandbox: 'yes' });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(json(bad).fault).toEqual({ code: 'VALIDATION_ERROR', detail: expect.stringContaining('sandbox') });
  });

  it('GET /gw/v1/methods of the test desk is the sandbox picture; the live desk sees the live providers', async () => {
    const rails = async (d: DeskCreds) => (json(await signed(h, d, '/gw/v1/methods')).result.rails as { rail: string }[]).map((r) => r.rail).sort();
    expect(await rails(test)).toEqual(['C2c', 'Sbp']);
    expect(await rails(live)).toEqual(['C2c']);
  });

  it("the test desk's order goes to the sandbox provider, never the pool; reads say sandbox: true and where its payment page is", async () => {
    const res = await create(test, { amount: 918, rail: 'C2c', orderRef: 'staging-1' });
    expect(res.statusCode, res.body).toBe(201);
    const o = json(res).result;
    expect(o).toMatchObject({ status: 'Created', sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });
    expect(o.payment.card).not.toBe(POOL_CARD);
    const op = json(await admin(h.app, 'GET', `/orders/${o.id}`)).result;
    expect(op).toMatchObject({ providerId: 'prv_sandbox', sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });
    expect(await count('SELECT count(*)::int AS n FROM requisite_assignments WHERE provider_id = $1', [poolId])).toBe(0);

    expect(await read(test, o.id)).toMatchObject({ id: o.id, orderRef: 'staging-1', sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });
    // The repeat within the hour is the same order, with the same address.
    expect(json(await create(test, { amount: 918, rail: 'C2c', orderRef: 'staging-1' })).result).toMatchObject({ id: o.id, sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });
    // The address is the page the customer pays on.
    const page = await h.app.inject({ method: 'GET', url: new URL(o.payPageUrl).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(o.id);

    // A sandbox order is never confirmed as live money is.
    const reported = await admin(h.app, 'POST', `/orders/${o.id}/report-payment`, {});
    expect(reported.statusCode, reported.body).toBe(409);
    expect(json(reported).fault.code).toBe('INVALID_TRANSITION');
  });

  it('a simulated payment completes it and credits the sandbox balance only; its callback says sandbox: true', async () => {
    const o = json(await create(test, { amount: 918, rail: 'Sbp' })).result;
    const before = { balance: await operatorBalance(live.merchantId), live: await dashboard(h.ctx, false), sandbox: await dashboard(h.ctx, true) };
    const counters = { merchant: await dayCounters('merchant', live.merchantId), platform: await dayCounters('platform', '') };

    const sim = await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    expect(sim.statusCode, sim.body).toBe(200);
    const done = json(sim).result;
    expect(done).toMatchObject({ status: 'Completed', sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}`, settled: { amount: '10.00000000' } });
    const credited = done.credited.amount as string;
    expect(credited).toBe('10.00000000');

    // Sandbox money only: the live balance, the live dashboard and the live caps' counters do not move.
    const after = await operatorBalance(live.merchantId);
    expect(after).toMatchObject({ mode: 'live', live: before.balance.live, sandbox: (Number(before.balance.sandbox) + 10).toFixed(8) });
    expect((await dashboard(h.ctx, false)).turnover).toEqual(before.live.turnover);
    expect((await dashboard(h.ctx, true)).turnover.todayUsd).toBe((Number(before.sandbox.turnover.todayUsd) + 10).toFixed(8));
    expect(await dayCounters('merchant', live.merchantId)).toBe(counters.merchant);
    expect(await dayCounters('platform', '')).toBe(counters.platform);
    const { rows } = await h.ctx.db.query<{ sandbox: boolean; amount: string }>('SELECT sandbox, amount::text FROM ledger_entries WHERE order_id = $1', [o.id]);
    expect(rows).toEqual([{ sandbox: true, amount: credited }]);

    // The test desk's key reads the money its orders move; the live desk's key the live money.
    expect(await gatewayBalance(test)).toEqual({ currency: 'USD', available: after.sandbox, mode: 'sandbox' });
    expect(await gatewayBalance(live)).toEqual({ currency: 'USD', available: after.live, mode: 'live' });

    expect(await read(test, o.id)).toMatchObject({ status: 'Completed', sandbox: true });
    const bodies = await callbacksOf(o.id);
    expect(bodies).toEqual([expect.objectContaining({ event: 'order.completed', id: o.id, status: 'Completed', sandbox: true })]);
    expect(Object.keys(bodies[0]!).at(-1)).toBe('sandbox');
    expect(rx.hits.find((hit) => JSON.parse(hit.body.toString()).id === o.id)!.path).toBe('/test');
  });

  it("the live desk's orders are unchanged: the pool serves them, an operator confirms them, live money; sandbox: false everywhere", async () => {
    const res = await create(live, { amount: 918, currency: 'RUB', rail: 'C2c' });
    expect(res.statusCode, res.body).toBe(201);
    const o = json(res).result;
    expect(o).toMatchObject({ sandbox: false, payPageUrl: `${PUBLIC_URL}/pay/${o.id}`, payment: { card: POOL_CARD, holder: 'Platform' } });
    expect(json(await admin(h.app, 'GET', `/orders/${o.id}`)).result).toMatchObject({ providerId: poolId, sandbox: false });
    expect(await read(live, o.id)).toMatchObject({ sandbox: false, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });

    const sim = await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    expect(sim.statusCode).toBe(409);
    const before = await operatorBalance(live.merchantId);
    const done = await admin(h.app, 'POST', `/orders/${o.id}/confirm`);
    expect(done.statusCode, done.body).toBe(200);
    const credited = json(done).result.credited.amount as string;
    const after = await operatorBalance(live.merchantId);
    expect(after).toMatchObject({ live: (Number(before.live) + Number(credited)).toFixed(8), sandbox: before.sandbox });
    expect(await gatewayBalance(live)).toEqual({ currency: 'USD', available: after.live, mode: 'live' });

    const bodies = await callbacksOf(o.id);
    expect(bodies).toEqual([expect.objectContaining({ event: 'order.completed', id: o.id, sandbox: false })]);
  });

  it("the merchant's and the platform's caps neither stop nor count the test desk's orders; the test desk's own cap does", async () => {
    const cap = async (scope: string, scopeId: string | null, capUsd: string) => {
      const res = await admin(h.app, 'POST', '/turnover-limits', { scope, scopeId, window: 'day', capUsd, notifyOnly: false });
      expect(res.statusCode, res.body).toBe(201);
      return json(res).result.id as string;
    };
    const caps = [await cap('merchant', live.merchantId, '1'), await cap('platform', null, '1')];
    try {
      const refused = await create(live, { amount: 918, rail: 'C2c' });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(json(refused).fault.code).toBe('TRAFFIC_LIMIT_REACHED');

      const o = await create(test, { amount: 918, rail: 'Sbp' });
      expect(o.statusCode, o.body).toBe(201);
      expect((await admin(h.app, 'POST', `/orders/${json(o).result.id}/simulate-payment`)).statusCode).toBe(200);

      // A cap on the test desk itself is the tester's: it applies to the desk's own sandbox turnover.
      caps.push(await cap('desk', test.id, await dayCounters('desk', test.id)));
      const over = await create(test, { amount: 918, rail: 'Sbp' });
      expect(over.statusCode, over.body).toBe(400);
      expect(json(over).fault.code).toBe('TRAFFIC_LIMIT_REACHED');
    } finally {
      for (const id of caps) await admin(h.app, 'DELETE', `/turnover-limits/${id}`);
    }
  });

  it('approval warnings name live desks only: a test desk never takes live orders', async () => {
    // No live provider serves Sbp here: the live desk is named, its test twin is not.
    const m = await provisionDesk(h.app, { merchant: { name: 'Warned Shop' }, desk: { name: 'Sbp desk', rails: ['Sbp'] } });
    await admin(h.app, 'POST', `/merchants/${m.merchantId}/desks`, { ...CLASSIC_DESK, name: 'Sbp test desk', rails: ['Sbp'], sandbox: true });
    const res = await admin(h.app, 'POST', `/merchants/${m.merchantId}/approve`);
    expect(res.statusCode, res.body).toBe(200);
    const warnings = json(res).result.warnings as string[];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Sbp desk (${m.id})`);
  });
});

describe('a merchant under review', () => {
  it('its test desk works like its other desks: sandbox orders; with its sandbox switched off, nobody serves either until approval', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Reviewed Shop' }, desk: { sandbox: true } });
    expect(d.raw.sandbox).toBe(true);
    const o = json(await create(d, { amount: 918, rail: 'Sbp' })).result;
    expect(o).toMatchObject({ sandbox: true, payPageUrl: `${PUBLIC_URL}/pay/${o.id}` });

    expect((await admin(h.app, 'PATCH', `/merchants/${d.merchantId}`, { sandbox: false })).statusCode).toBe(200);
    const refused = await create(d, { amount: 918, rail: 'Sbp' });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(json(refused).fault.code).toBe('MERCHANT_NOT_APPROVED');

    // Approved, the switch is no longer used: the test desk's orders go to the sandbox again.
    expect((await admin(h.app, 'POST', `/merchants/${d.merchantId}/approve`)).statusCode).toBe(200);
    const again = await create(d, { amount: 918, rail: 'Sbp' });
    expect(again.statusCode, again.body).toBe(201);
    expect(json(again).result.sandbox).toBe(true);
  });
});

describe('the cabinet', () => {
  const { signUp, createDesk } = cabinetKit(() => h);

  it('creates a test desk from the desk form, shows its mode, and keeps it', async () => {
    const { b } = await signUp('Cabinet Test Shop');
    const merchants = json(await admin(h.app, 'GET', '/merchants?limit=500')).result.items as { id: string; name: string }[];
    const merchantId = merchants.find((m) => m.name === 'Cabinet Test Shop')!.id;
    expect((await admin(h.app, 'POST', `/merchants/${merchantId}/approve`)).statusCode).toBe(200);
    // Desks an approved merchant makes in the cabinet get the default tariff.
    const tariff = await admin(h.app, 'POST', '/tariffs', { name: 'Cabinet default', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '0' }], default: true });
    expect(tariff.statusCode, tariff.body).toBe(201);

    const form = await b.get('/cabinet/desks');
    expect(form.body).toContain('<input type="radio" name="sandbox" value="false" checked> Live');
    expect(form.body).toContain('<input type="radio" name="sandbox" value="true"> Test');

    const desk = await createDesk(b, [['name', 'QA'], ['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['callbackUrl', 'https://merchant.example/callbacks'], ['callbacksEnabled', 'true'], ['sandbox', 'true']]);
    expect(json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result).toMatchObject({ name: 'QA', sandbox: true, merchantId });
    const plain = await createDesk(b, [['name', 'Shop'], ['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB']]);
    expect(json(await admin(h.app, 'GET', `/desks/${plain.id}`)).result.sandbox).toBe(false);

    const list = await b.get('/cabinet/desks');
    expect(list.body).toMatch(/>QA<\/a>[\s\S]*?<span class="badge warn">Test desk<\/span>/);
    const page = await b.get(`/cabinet/desks/${desk.id}`);
    expect(page.body).toContain('<span class="badge warn">Test desk</span>');
    expect(page.body).toContain('id="test-desk-notice"');
    expect(page.body).toContain('Test desk: sandbox orders only (fixed for life)');
    // The settings form has no mode to change; a posted one that differs is refused, nothing saved.
    expect(page.body).not.toMatch(/id="edit-desk"[\s\S]*name="sandbox"/);
    const changed = await b.post(`/cabinet/desks/${desk.id}/settings`, [['name', 'QA 2'], ['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['sandbox', 'false']]);
    expect(changed.statusCode).toBe(400);
    expect(changed.body).toContain('keeps its test mode for life');
    expect(json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result).toMatchObject({ name: 'QA', sandbox: true });
    const saved = await b.post(`/cabinet/desks/${desk.id}/settings`, [['name', 'QA 2'], ['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['callbackUrl', 'https://merchant.example/callbacks']]);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result).toMatchObject({ name: 'QA 2', sandbox: true });

    // Its orders are test orders the cabinet pays by simulation, into the sandbox balance.
    const made = await create(desk, { amount: 918, rail: 'Sbp' });
    expect(made.statusCode, made.body).toBe(201);
    const o = json(made).result;
    expect(o.sandbox).toBe(true);
    expect((await b.get(`/cabinet/orders/${o.id}`)).body).toContain('Simulate');
    const sim = await b.post(`/cabinet/orders/${o.id}/simulate-payment`);
    expect(sim.statusCode, sim.body).toBe(303);
    expect(await operatorBalance(merchantId)).toMatchObject({ live: '0.00000000', sandbox: '10.00000000' });
  });
});

describe('the back office', () => {
  it("creates a test desk from a merchant's page and shows the test mode on the desk's page and in the merchant's desk table", async () => {
    const password = 'operator passphrase 2026';
    const email = 'desks-admin@paygate.example';
    expect((await admin(h.app, 'POST', '/operators', { email, password, role: 'admin' })).statusCode).toBe(201);
    const o = new FormBrowser(h.app);
    await o.get('/office/sign-in');
    expect((await o.post('/office/sign-in', [['email', email], ['password', password]])).statusCode).toBe(303);

    const live = await provisionDesk(h.app, { merchant: { name: 'Office Shop', approve: true }, desk: { name: 'Front' } });
    const page = await o.get(`/office/merchants/${live.merchantId}`);
    expect(page.body).toContain('<input type="radio" name="sandbox" value="false" checked> Live');
    const made = await o.post(`/office/merchants/${live.merchantId}/desks`, [
      ['name', 'Office QA'], ['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['minUsd', '0'], ['maxUsd', '0'],
      ['callbackUrl', ''], ['callbacksEnabled', 'true'], ['tariffId', 'none'], ['sandbox', 'true'],
    ]);
    expect(made.statusCode, made.body).toBe(201);
    const id = /id="desk-id"[^>]*>(dsk_[0-9a-z]+)</.exec(made.body)![1]!;
    expect(json(await admin(h.app, 'GET', `/desks/${id}`)).result).toMatchObject({ name: 'Office QA', sandbox: true });

    const deskPage = await o.get(`/office/desks/${id}`);
    expect(deskPage.body).toContain('<span class="badge warn">Test desk</span></h1>');
    expect(deskPage.body).toMatch(/<dt>Mode<\/dt><dd id="desk-mode">Test desk: its orders are sandbox orders whatever the merchant(&#39;|&#x27;|')s status \(fixed for life\)<\/dd>/);
    const livePage = await o.get(`/office/desks/${live.id}`);
    expect(livePage.body).not.toContain('Test desk</span>');
    const merchant = await o.get(`/office/merchants/${live.merchantId}`);
    expect(merchant.body).toMatch(/>Office QA<\/a> <span class="badge warn">Test desk<\/span>/);
    expect(merchant.body).toMatch(/>Front<\/a><br>/);
  });
});

describe('payPageUrl under the older name PUBLIC_BASE_URL', () => {
  let old: Harness;
  beforeAll(async () => {
    old = await createHarness({ env: { PUBLIC_BASE_URL: 'https://old.example.test/gate' } });
  }, 600_000);
  afterAll(() => old?.close());

  it('is built from PUBLIC_BASE_URL when PUBLIC_URL is not set: create answer, reads, cancel, operator list', async () => {
    const d = await provisionDesk(old.app);
    const res = await signed(old, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp' }) });
    expect(res.statusCode, res.body).toBe(201);
    const o = json(res).result;
    const url = `https://old.example.test/gate/pay/${o.id}`;
    expect(o.payPageUrl).toBe(url);
    expect(json(await signed(old, d, `/gw/v1/orders/${o.id}`)).result.payPageUrl).toBe(url);
    expect(json(await admin(old.app, 'GET', `/orders?deskId=${d.id}`)).result.items.map((i: { payPageUrl: string }) => i.payPageUrl)).toEqual([url]);
    const cancelled = await signed(old, d, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' });
    expect(json(cancelled).result).toMatchObject({ status: 'Canceled', payPageUrl: url, sandbox: true });
  });
});
