import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../../src/domain/totp.js';
import { seedDemo } from '../../src/seed.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { createTestDb } from '../helpers/db.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { adminCall, listen, signedCall, SocketBrowser } from '../helpers/sockets.js';

/*
 * A money-right first day (web spec): no live desk trades at a zero fee nobody chose
 * (TARIFF_REQUIRED), demo rates say they are the demo's, the back office's home shows what is
 * left to set up, and the production walk-through of docs/configuration.md, followed through the
 * operator API on a database without demo data, ends with a live order. Every request over real
 * HTTP; run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

const PASSWORD = 'correct horse battery staple';
const OPERATOR_PASSWORD = 'operator passphrase 2026';
let n = 0;

const DESK_FORM: [string, string][] = [['method', 'Classic'], ['rails', 'C2c'], ['currencies', 'RUB'], ['minUsd', '0'], ['maxUsd', '0'], ['callbacksEnabled', 'false']];

async function signUp(h: Harness, origin: string, company: string): Promise<{ b: SocketBrowser; merchantId: string }> {
  h.clock.advance(61_000);
  const b = new SocketBrowser(origin);
  await b.get('/cabinet/sign-up');
  const res = await b.post('/cabinet/sign-up', [['company', company], ['email', `owner${++n}@firstday.example`], ['password', PASSWORD]]);
  expect(res.status, res.body.slice(0, 300)).toBe(303);
  const merchants = (await adminCall(origin, 'GET', '/merchants?status=UnderReview')).json.result.items as { id: string; name: string }[];
  return { b, merchantId: merchants.find((m) => m.name === company)!.id };
}

/** A desk made in the cabinet's form: its id, key and secret from the answer page. */
async function cabinetDeskWithSecret(b: SocketBrowser): Promise<{ id: string; key: string; secret: string }> {
  await b.get('/cabinet/desks');
  const res = await b.post('/cabinet/desks', DESK_FORM);
  expect(res.status, res.body.slice(0, 300)).toBe(201);
  const pick = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]+)<`).exec(res.body)![1]!;
  return { id: pick('desk-id'), key: pick('desk-key'), secret: pick('desk-secret') };
}
const cabinetDesk = async (b: SocketBrowser) => (await cabinetDeskWithSecret(b)).id;

async function officeAdmin(h: Harness, origin: string): Promise<SocketBrowser> {
  h.clock.advance(61_000);
  const email = `admin${++n}@firstday.example`;
  expect((await adminCall(origin, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role: 'admin' })).status).toBe(201);
  const b = new SocketBrowser(origin);
  await b.get('/office/sign-in');
  expect((await b.post('/office/sign-in', [['email', email], ['password', OPERATOR_PASSWORD]])).status).toBe(303);
  return b;
}

/** The steps of the home page's set-up checklist, each with its state: `rates todo`, `tariff done`, … */
function checklistOf(body: string): string[] {
  const at = body.indexOf('id="setup"');
  if (at < 0) return [];
  const list = body.slice(at, body.indexOf('</ol>', at));
  return [...list.matchAll(/<li class="(done|todo)">.*?<a href="\/office\/([\w-]+)">/g)].map((m) => `${m[2]} ${m[1]}`);
}

describe('a database without demo data', () => {
  let h: Harness;
  let origin: string;

  beforeAll(async () => {
    // The production defaults: two-factor codes required in the back office.
    h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' } });
    origin = await listen(h);
  }, 600_000);
  afterAll(() => h?.close());

  it('has no tariff; a desk made in the cabinet has no tariff yet (not a chosen zero fee), and approving its merchant is refused naming it', async () => {
    expect((await adminCall(origin, 'GET', '/tariffs')).json.result.items).toEqual([]);
    const { b, merchantId } = await signUp(h, origin, 'No Price Yet');
    const deskId = await cabinetDesk(b);
    expect((await adminCall(origin, 'GET', `/desks/${deskId}`)).json.result).toMatchObject({ tariffId: null, noFee: false, name: 'Desk 1' });

    const res = await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`);
    expect(res.status).toBe(409);
    expect(res.json.fault.code).toBe('TARIFF_REQUIRED');
    expect(res.json.fault.detail).toContain(`Desk 1 (${deskId})`);
    // Nothing changed, and the refusal is in the audit trail with its code.
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}`)).json.result.status).toBe('UnderReview');
    expect((await adminCall(origin, 'GET', `/desks/${deskId}`)).json.result.tariffId).toBeNull();
    expect((await adminCall(origin, 'GET', `/audit?objectId=${merchantId}`)).json.result.items[0]).toMatchObject({ action: 'merchant.approve', outcome: 'TARIFF_REQUIRED' });

    // A tariff that is not the default does not price it either.
    const retail = (await adminCall(origin, 'POST', '/tariffs', { name: 'Retail', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '2' }] })).json.result;
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`)).json.fault.code).toBe('TARIFF_REQUIRED');
    // An operator's choice does: this desk gets Retail, a second one no fee, chosen.
    expect((await adminCall(origin, 'PATCH', `/desks/${deskId}`, { tariffId: retail.id })).json.result).toMatchObject({ tariffId: retail.id, noFee: false });
    const free = (await adminCall(origin, 'POST', `/merchants/${merchantId}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'], tariffId: null })).json.result;
    expect(free).toMatchObject({ tariffId: null, noFee: true });
    const approved = await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`);
    expect(approved.status, approved.body).toBe(200);
    expect((await adminCall(origin, 'GET', `/desks/${free.id}`)).json.result).toMatchObject({ tariffId: null, noFee: true });
  });

  it('the back office\'s approve button says the same, naming the desk', async () => {
    const { b, merchantId } = await signUp(h, origin, 'Button Shop');
    const deskId = await cabinetDesk(b);
    const office = await officeAdmin(h, origin);
    // Two-factor codes first (OFFICE_REQUIRE_2FA): the page gives the secret, the code from it opens the office.
    const enrol = await office.get('/office/two-factor');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    expect((await office.post('/office/two-factor', [['code', totp(base32Decode(secret)!, h.clock.now())]])).status).toBe(200);
    const page = await office.get(`/office/merchants/${merchantId}`);
    expect(page.body).toContain('None yet: the default when approved');
    const res = await office.post(`/office/merchants/${merchantId}/approve`);
    expect(res.status).toBe(409);
    expect(res.body).toContain(`Desk 1 (${deskId})`);
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}`)).json.result.status).toBe('UnderReview');
  });

  it('an approved merchant\'s new live desk needs a tariff while no default exists: 409 in the API and on the cabinet\'s form; null is a chosen zero fee', async () => {
    const { b, merchantId } = await signUp(h, origin, 'Approved Early');
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`)).status).toBe(200);
    const api = await adminCall(origin, 'POST', `/merchants/${merchantId}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'] });
    expect(api.status).toBe(409);
    expect(api.json.fault.code).toBe('TARIFF_REQUIRED');
    await b.get('/cabinet/desks');
    const form = await b.post('/cabinet/desks', DESK_FORM);
    expect(form.status).toBe(409);
    expect(form.body).toContain('no default tariff exists');
    expect((await adminCall(origin, 'GET', `/desks?merchantId=${merchantId}`)).json.result.items).toEqual([]);
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'], tariffId: null })).json.result).toMatchObject({ tariffId: null, noFee: true });
  });

  it('with a default, approval gives the desks without a tariff the default, kept when the default changes later', async () => {
    const standard = (await adminCall(origin, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true })).json.result;
    try {
      const { b, merchantId } = await signUp(h, origin, 'Priced Shop');
      // Made while the default exists: it gets it at once.
      const deskId = await cabinetDesk(b);
      expect((await adminCall(origin, 'GET', `/desks/${deskId}`)).json.result.tariffId).toBe(standard.id);
      // Made while none exists: it waits, and approval gives it the default of that moment.
      expect((await adminCall(origin, 'PATCH', `/tariffs/${standard.id}`, { default: false })).status).toBe(200);
      const waiting = await cabinetDesk(b);
      expect((await adminCall(origin, 'GET', `/desks/${waiting}`)).json.result.tariffId).toBeNull();
      expect((await adminCall(origin, 'PATCH', `/tariffs/${standard.id}`, { default: true })).status).toBe(200);
      expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`)).status).toBe(200);
      expect((await adminCall(origin, 'GET', `/desks/${waiting}`)).json.result).toMatchObject({ tariffId: standard.id, noFee: false });
      const later = (await adminCall(origin, 'POST', '/tariffs', { name: 'Later', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '9' }], default: true })).json.result;
      expect((await adminCall(origin, 'GET', `/desks/${waiting}`)).json.result.tariffId).toBe(standard.id);
      expect((await adminCall(origin, 'PATCH', `/tariffs/${later.id}`, { default: false })).status).toBe(200);
    } finally {
      // The walk-through below starts from a platform without a default tariff.
      await adminCall(origin, 'PATCH', `/tariffs/${standard.id}`, { default: false });
    }
  });

  it('follows the production walk-through of the configuration guide to a live order, the checklist on the home page until the end', async () => {
    // 1. The first operator, with two-factor codes (the back office asks for them before anything else).
    const office = await officeAdmin(h, origin);
    expect((await office.get('/office')).location).toBe('/office/two-factor');
    const enrol = await office.get('/office/two-factor');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    expect((await office.post('/office/two-factor', [['code', totp(base32Decode(secret)!, h.clock.now())]])).status).toBe(200);
    const home = await office.get('/office');
    expect(home.body).toContain('Set up the platform for live payments');
    expect(checklistOf(home.body)).toEqual(['rates todo', 'tariffs todo', 'providers todo', 'two-factor done']);
    expect(home.body).toContain('No currency is enabled');

    // A currency enabled without a rate is not done either.
    expect((await adminCall(origin, 'PUT', '/currencies/TRY', { enabled: true, spreadPercent: '0' })).status).toBe(200);
    const withTry = await office.get('/office');
    expect(checklistOf(withTry.body)[0]).toBe('rates todo');
    expect(withTry.body).toContain('TRY: no rate orders could use now.');
    expect((await adminCall(origin, 'PUT', '/currencies/TRY', { enabled: false })).status).toBe(200);

    // 2. Currencies and their rates.
    expect((await adminCall(origin, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' })).status).toBe(200);
    expect((await adminCall(origin, 'PUT', '/rates/RUB', { rate: '91.80' })).json.result).toMatchObject({ code: 'RUB', rate: '91.80000000', source: 'manual' });
    // 3. The default tariff.
    const tariff = (await adminCall(origin, 'POST', '/tariffs', { name: 'Standard 3 %', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true })).json.result;
    expect(tariff.default).toBe(true);
    expect(checklistOf((await office.get('/office')).body)).toEqual(['rates done', 'tariffs done', 'providers todo', 'two-factor done']);
    // 4. A live provider: the platform's pool of payment details.
    const pool = await adminCall(origin, 'POST', '/providers', {
      name: 'Own pool',
      kind: 'pool',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ phone: '+79000000101', holder: 'Ivan Petrov', bank: 'Bank' }],
    });
    expect(pool.status, pool.body).toBe(201);
    const done = await office.get('/office');
    expect(done.body).not.toContain('id="setup"');

    // 5. A merchant with an owner and a desk, approved without warnings.
    const merchant = (await adminCall(origin, 'POST', '/merchants', { name: 'First Live Shop', sandbox: true })).json.result;
    expect((await adminCall(origin, 'POST', `/merchants/${merchant.id}/users`, { email: `first${++n}@firstday.example`, password: PASSWORD })).status).toBe(201);
    const desk = (await adminCall(origin, 'POST', `/merchants/${merchant.id}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'], callbackUrl: 'https://shop.example/paygate' })).json.result;
    expect(desk.tariffId).toBe(tariff.id);
    const approval = await adminCall(origin, 'POST', `/merchants/${merchant.id}/approve`);
    expect(approval.json.result).toMatchObject({ status: 'Active', warnings: [] });

    // 6. The first live order: the pool's details, live money, priced by the default tariff once paid.
    const order = await signedCall(origin, h, desk, '/gw/v1/orders', { amount: 1500, rail: 'C2c', orderRef: 'first-live-order' });
    expect(order.status, order.body).toBe(201);
    expect(order.json.result).toMatchObject({ status: 'Created', amount: '1500.00', currency: 'RUB', payment: { phone: '+79000000101' } });
    const read = (await adminCall(origin, 'GET', `/orders/${order.json.result.id}`)).json.result;
    expect(read).toMatchObject({ sandbox: false, providerId: pool.json.result.id });
    const paid = await adminCall(origin, 'POST', `/orders/${order.json.result.id}/confirm`);
    expect(paid.json.result).toMatchObject({
      status: 'Completed',
      settled: { amount: '16.33986928', currency: 'USD' },
      commission: { rate: '3.0000', amount: '0.49019608', currency: 'USD' },
      credited: { amount: '15.84967320', currency: 'USD' },
    });
  });
});

describe('a database with the demo data', () => {
  let h: Harness;
  let origin: string;

  beforeAll(async () => {
    h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false' } });
    origin = await listen(h);
    expect(await seedDemo(h.ctx)).not.toBeNull();
  }, 600_000);
  afterAll(() => h?.close());

  it('its tariff is the default: a desk made in the cabinet pays its fee (no more zero fee by accident)', async () => {
    const tariffs = (await adminCall(origin, 'GET', '/tariffs')).json.result.items;
    expect(tariffs).toEqual([expect.objectContaining({ name: 'Demo tariff', default: true })]);
    const { b } = await signUp(h, origin, 'Cabinet Shop');
    const desk = await cabinetDeskWithSecret(b);
    expect((await adminCall(origin, 'GET', `/desks/${desk.id}`)).json.result).toMatchObject({ tariffId: tariffs[0].id, noFee: false });
    // A sandbox order paid by simulation: 3.5 % of its USD amount is the fee, the rest credited.
    const order = await signedCall(origin, h, desk, '/gw/v1/orders', { amount: 1500, rail: 'C2c', notifyUrl: 'https://cabinet-shop.example/paygate' });
    expect(order.status, order.body).toBe(201);
    const paid = await adminCall(origin, 'POST', `/orders/${order.json.result.id}/simulate-payment`);
    expect(paid.json.result).toMatchObject({
      status: 'Completed',
      settled: { amount: '16.33986928' },
      commission: { rate: '3.5000', amount: '0.57189542' },
      credited: { amount: '15.76797386' },
    });
  });

  it('its rates say they are the demo\'s in the API and the back office, until an operator sets one by hand', async () => {
    const rates = (await adminCall(origin, 'GET', '/rates')).json.result as { code: string; source: string; manualRate: string }[];
    expect(rates.map((r) => [r.code, r.source, r.manualRate])).toEqual([['INR', 'demo', '84.20000000'], ['KZT', 'demo', '478.50000000'], ['RUB', 'demo', '91.80000000']]);
    h.clock.advance(61_000);
    const email = `admin${++n}@firstday.example`;
    expect((await adminCall(origin, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role: 'admin' })).status).toBe(201);
    const office = new SocketBrowser(origin);
    await office.get('/office/sign-in');
    expect((await office.post('/office/sign-in', [['email', email], ['password', OPERATOR_PASSWORD]])).status).toBe(303);
    const page = await office.get('/office/rates');
    expect(page.body.match(/title="set by the demo data">demo</g)).toHaveLength(3);
    expect((await office.get('/office/rates.csv')).body).toContain('RUB,true,0.0000,91.80000000,demo,');
    // The home page's checklist names them.
    const home = await office.get('/office');
    expect(home.body).toContain('INR, KZT and RUB: priced by the demo data&#39;s rates; set real ones.');

    await office.post('/office/rates/RUB', [['rate', '92.10']]);
    const after = (await adminCall(origin, 'GET', '/rates')).json.result as { code: string; source: string; rate: string }[];
    expect(after.find((r) => r.code === 'RUB')).toMatchObject({ source: 'manual', rate: '92.10000000' });
    expect(after.find((r) => r.code === 'KZT')).toMatchObject({ source: 'demo' });
    // Back to the market: no market source here, so no rate at all (and no demo mark left).
    expect((await adminCall(origin, 'DELETE', '/rates/INR')).json.result).toMatchObject({ code: 'INR', rate: null, source: null, manualRate: null });
  });

  it('approval warns of each currency of the merchant\'s desks priced by a demo rate', async () => {
    const m = (await adminCall(origin, 'POST', '/merchants', { name: 'Steppe Shop', sandbox: true })).json.result;
    await adminCall(origin, 'POST', `/merchants/${m.id}/desks`, { method: 'CrossBorder', rails: ['C2c'], currencies: ['KZT'] });
    await adminCall(origin, 'POST', `/merchants/${m.id}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'] });
    const page = await adminCall(origin, 'POST', `/merchants/${m.id}/approve`);
    expect(page.status).toBe(200);
    const warnings = page.json.result.warnings as string[];
    expect(warnings.filter((w) => w.includes('demo rate'))).toEqual([
      'KZT is priced by the demo rate (478.50000000 KZT per USD) that came with the demo data: set a real rate (PUT /admin/v1/rates/KZT) before live orders in KZT',
    ]);
    // RUB has an operator's rate since the test above: no warning for it.
    expect(warnings.some((w) => w.startsWith('RUB'))).toBe(false);
    // The demo merchant's RUB desk, approved now RUB is real, is not warned of either.
    const demo = (await adminCall(origin, 'GET', '/merchants')).json.result.items.find((x: { name: string }) => x.name === 'Demo merchant');
    expect((await adminCall(origin, 'POST', `/merchants/${demo.id}/approve`)).json.result.warnings.filter((w: string) => w.includes('demo rate'))).toEqual([]);
  });
});

describe('upgrading a database that existed before', () => {
  it('keeps the zero fee of approved merchants as a choice, marks the demo data\'s rates, and makes its tariff the default', async () => {
    const t = await createTestDb({ migrated: false });
    try {
      await migrate(t.db, loadMigrations().filter((m) => m.version < 26));
      const at = '2026-01-01T00:00:00Z';
      await t.db.exec(`
        INSERT INTO merchants (id, name, status, sandbox, created_at) VALUES
          ('mer_demo', 'Demo merchant', 'UnderReview', true, '${at}'), ('mer_live', 'Live Co', 'Active', false, '${at}'), ('mer_new', 'New Co', 'UnderReview', true, '${at}');
        INSERT INTO tariffs (id, name, bands, created_at) VALUES ('trf_demo', 'Demo tariff', '[]', '${at}');
        INSERT INTO desks (id, merchant_id, name, key, secret_enc, method, rails, currencies, tariff_id, created_at) VALUES
          ('dsk_live', 'mer_live', 'Desk 1', 'shp_live', 'x', 'Classic', '["C2c"]', '["RUB"]', NULL, '${at}'),
          ('dsk_new', 'mer_new', 'Desk 1', 'shp_new', 'x', 'Classic', '["C2c"]', '["RUB"]', NULL, '${at}'),
          ('dsk_demo', 'mer_demo', 'Desk 1', 'shp_demo', 'x', 'Classic', '["C2c"]', '["RUB"]', 'trf_demo', '${at}');
        INSERT INTO rates (code, manual_rate, manual_set_at, updated_at) VALUES ('RUB', 91.8, '${at}', '${at}'), ('KZT', 478.5, '${at}', '${at}'), ('INR', 83, '${at}', '${at}');
        INSERT INTO audit_entries (at, actor, action, object_id, outcome) VALUES ('${at}', 'token', 'rate.set', 'KZT', 'ok');
      `);
      await migrate(t.db);
      const desks = (await t.db.query<{ id: string; no_fee: boolean }>('SELECT id, no_fee FROM desks ORDER BY id')).rows;
      expect(desks).toEqual([{ id: 'dsk_demo', no_fee: false }, { id: 'dsk_live', no_fee: true }, { id: 'dsk_new', no_fee: false }]);
      const rates = (await t.db.query<{ code: string; manual_demo: boolean }>('SELECT code, manual_demo FROM rates ORDER BY code')).rows;
      // RUB still at the demo's value and never set by an operator; KZT set by one; INR not the demo's value.
      expect(rates).toEqual([{ code: 'INR', manual_demo: false }, { code: 'KZT', manual_demo: false }, { code: 'RUB', manual_demo: true }]);
      expect((await t.db.query<{ is_default: boolean }>(`SELECT is_default FROM tariffs WHERE id = 'trf_demo'`)).rows[0]!.is_default).toBe(true);
    } finally {
      await t.drop();
    }
  });
});
