import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { FormBrowser } from '../helpers/formBrowser.js';

/*
 * Everything the operator API sets, set from the back office as an admin, each action audited with
 * the operator as actor: tariffs (bands, the default), providers of every kind (capabilities, a
 * pool's requisite, a new secret), operators (role, disabling), a merchant's desks and their tariffs;
 * the approval's warnings on the merchant's page; support refused on every one of them.
 */

const PASSWORD = 'operator passphrase 2026';
let h: Harness;
let n = 0;

async function operator(role: 'admin' | 'support') {
  const email = `${role}-${++n}@admin-test.example`;
  const res = await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role });
  expect(res.statusCode, res.body).toBe(201);
  return { email, id: json(res).result.id as string };
}

async function signIn(email: string, b = new FormBrowser(h.app)) {
  await b.get('/office/sign-in');
  const res = await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]]);
  expect(res.statusCode, res.body.slice(0, 400)).toBe(303);
  await b.get('/office');
  return b;
}

const audit = async (objectId: string) =>
  (json(await admin(h.app, 'GET', `/audit?objectId=${objectId}`)).result.items as { actor: string; action: string; outcome: string }[]).map((e) => `${e.actor} ${e.action} ${e.outcome}`);

let adm: { email: string; id: string };
let sup: { email: string; id: string };
let a: FormBrowser;
let s: FormBrowser;

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false' } });
  adm = await operator('admin');
  sup = await operator('support');
  a = await signIn(adm.email);
  s = await signIn(sup.email);
});
afterAll(() => h.close());

/** The first band under the API's names, the next ones numbered (`fromUsd2`, …), as the page's form. */
const bands = (rows: [string, string, string][]) => rows.flatMap(([from, to, rate], i) => {
  const n = i === 0 ? '' : String(i + 1);
  return [[`fromUsd${n}`, from], [`toUsd${n}`, to], [`ratePercent${n}`, rate]] as [string, string][];
});

describe('tariffs', () => {
  it('an admin creates a tariff with bands, edits them, and makes it the default, each audited', async () => {
    await a.get('/office/tariffs');
    const created = await a.post('/office/tariffs', [['name', 'Retail'], ...bands([['0', '500', '3.5'], ['500', '', '2']]), ['default', 'true']]);
    expect(created.statusCode, created.body.slice(0, 500)).toBe(303);
    const id = /\/office\/tariffs\/(trf_\w+)/.exec(created.headers.location as string)![1]!;
    const t = json(await admin(h.app, 'GET', `/tariffs/${id}`)).result;
    expect(t).toMatchObject({ name: 'Retail', default: true, bands: [{ fromUsd: '0.00000000', toUsd: '500.00000000', ratePercent: '3.5000' }, { fromUsd: '500.00000000', toUsd: null, ratePercent: '2.0000' }] });

    await a.get(`/office/tariffs/${id}`);
    expect((await a.post(`/office/tariffs/${id}`, [['name', 'Retail 2026'], ...bands([['0', '', '1.25']])])).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', `/tariffs/${id}`)).result).toMatchObject({ name: 'Retail 2026', default: true, bands: [{ fromUsd: '0.00000000', toUsd: null, ratePercent: '1.2500' }] });

    expect((await a.post(`/office/tariffs/${id}/default`, [['default', 'false']])).headers.location).toBe(`/office/tariffs/${id}?done=tariff-undefault`);
    expect(json(await admin(h.app, 'GET', `/tariffs/${id}`)).result.default).toBe(false);
    expect((await a.post(`/office/tariffs/${id}/default`, [['default', 'true']])).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', `/tariffs/${id}`)).result.default).toBe(true);
    expect(await audit(id)).toEqual([`${adm.id} tariff.update ok`, `${adm.id} tariff.update ok`, `${adm.id} tariff.update ok`, `${adm.id} tariff.create ok`]);

    const page = await a.get('/office/tariffs');
    expect(page.body).toContain('Retail 2026');
    expect(page.body).toMatch(/badge ok">default/);
  });

  it('refuses overlapping or malformed bands with the form shown again and nothing created', async () => {
    const before = json(await admin(h.app, 'GET', '/tariffs')).result.items.length;
    await a.get('/office/tariffs');
    const overlap = await a.post('/office/tariffs', [['name', 'Broken'], ...bands([['0', '100', '3'], ['50', '', '2']])]);
    expect(overlap.statusCode).toBe(400);
    expect(overlap.body).toContain('bands must not overlap');
    expect(overlap.body).toContain('value="Broken"');
    const malformed = await a.post('/office/tariffs', [['name', 'Broken'], ...bands([['0', '', 'abc']])]);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('Band 1, fee');
    const tooHigh = await a.post('/office/tariffs', [['name', 'Broken'], ...bands([['0', '', '101']])]);
    expect(tooHigh.statusCode).toBe(400);
    expect(tooHigh.body).toContain('at most 100');
    expect(json(await admin(h.app, 'GET', '/tariffs')).result.items.length).toBe(before);
  });

  it('a support operator sees no tariff form and posting one answers 403', async () => {
    const page = await s.get('/office/tariffs');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('action="/office/tariffs"');
    expect((await s.post('/office/tariffs', [['name', 'Sneaky'], ...bands([['0', '', '0']])])).statusCode).toBe(403);
  });
});

describe('providers', () => {
  it('an admin adds a pool provider with capabilities and a requisite: the generated secret is shown once', async () => {
    await a.get('/office/providers');
    const res = await a.post('/office/providers', [
      ['name', 'Office pool'],
      ['kind', 'pool'],
      ['priority', '20'],
      ['method', 'Classic'],
      ['rail', 'Sbp'],
      ['currency', 'RUB'],
      ['method2', 'CrossBorder'],
      ['rail2', 'Upi'],
      ['currency2', 'inr'],
      ['min2', '100'],
      ['max2', '50000'],
      ['requisite_phone', '+79990000077'],
      ['requisite_holder', 'Ivan P.'],
    ]);
    expect(res.statusCode, res.body.slice(0, 600)).toBe(201);
    const id = /id="provider-id"[^>]*>(prv_\w+)</.exec(res.body)![1]!;
    const secret = /id="provider-secret"[^>]*>([^<]+)</.exec(res.body)![1]!;
    expect(secret.length).toBeGreaterThan(20);
    const p = json(await admin(h.app, 'GET', '/providers')).result.find((x: { id: string }) => x.id === id);
    expect(p).toMatchObject({ name: 'Office pool', kind: 'pool', priority: 20 });
    expect(p.capabilities).toEqual([
      { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
      { method: 'CrossBorder', rail: 'Upi', currency: 'INR', min: '100', max: '50000' },
    ]);
    const reqs = json(await admin(h.app, 'GET', `/providers/${id}/requisites`)).result;
    expect(reqs).toHaveLength(1);
    expect(await audit(id)).toEqual([`${adm.id} provider.create ok`]);
    // The secret is never shown again.
    expect((await a.get(`/office/providers/${id}`)).body).not.toContain(secret);

    const rotated = await a.post(`/office/providers/${id}/secret`);
    expect(rotated.statusCode).toBe(200);
    const fresh = /id="provider-secret"[^>]*>([^<]+)</.exec(rotated.body)![1]!;
    expect(fresh).not.toBe(secret);
    expect((await a.post(`/office/providers/${id}/pause`)).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', '/providers')).result.find((x: { id: string }) => x.id === id).paused).toBe(true);
    expect((await a.post(`/office/providers/${id}/resume`)).statusCode).toBe(303);
    expect(await audit(id)).toEqual([`${adm.id} provider.resume ok`, `${adm.id} provider.pause ok`, `${adm.id} provider.rotateSecret ok`, `${adm.id} provider.create ok`]);
  });

  it('an http provider needs its base URL, key and secret; a refusal shows the form again', async () => {
    await a.get('/office/providers');
    const missing = await a.post('/office/providers', [['name', 'Acquirer'], ['kind', 'http'], ['method', 'Classic'], ['rail', 'C2c'], ['currency', 'RUB']]);
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('baseUrl');
    expect(missing.body).toContain('value="Acquirer"');
    const badRail = await a.post('/office/providers', [['name', 'Acquirer'], ['kind', 'http'], ['method', 'Classic'], ['rail', 'Upi'], ['currency', 'RUB']]);
    expect(badRail.statusCode).toBe(400);
    expect(badRail.body).toContain('Capability 1, rail');
    const ok = await a.post('/office/providers', [
      ['name', 'Acquirer'],
      ['kind', 'http'],
      ['priority', '50'],
      ['method', 'Classic'],
      ['rail', 'C2c'],
      ['currency', 'RUB'],
      ['baseUrl', 'https://acquirer.example/api'],
      ['key', 'acq-key-1'],
      ['secret', 'acq-secret-0123456789'],
    ]);
    expect(ok.statusCode, ok.body.slice(0, 600)).toBe(201);
    expect(ok.body).not.toContain('acq-secret-0123456789');
    const p = json(await admin(h.app, 'GET', '/providers')).result.find((x: { name: string }) => x.name === 'Acquirer');
    expect(p).toMatchObject({ kind: 'http', baseUrl: 'https://acquirer.example/api', key: 'acq-key-1', priority: 50 });
  });

  it('support reads providers but cannot add, pause or rotate one', async () => {
    const page = await s.get('/office/providers');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('action="/office/providers"');
    const provider = json(await admin(h.app, 'GET', '/providers')).result[0].id as string;
    expect((await s.post('/office/providers', [['name', 'X'], ['kind', 'pool'], ['method', 'Classic'], ['rail', 'Sbp'], ['currency', 'RUB']])).statusCode).toBe(403);
    expect((await s.post(`/office/providers/${provider}/secret`)).statusCode).toBe(403);
  });
});

describe('operators', () => {
  it('an admin creates an operator, changes the role and disables them: their session ends and they cannot sign in; enabling lets them back', async () => {
    await a.get('/office/operators');
    const email = `new-${++n}@admin-test.example`;
    const created = await a.post('/office/operators', [['email', email], ['password', PASSWORD], ['role', 'support']]);
    expect(created.headers.location).toBe('/office/operators?done=operator-created');
    const list = json(await admin(h.app, 'GET', '/operators')).result.items as { id: string; email: string; role: string; disabled: boolean }[];
    const op = list.find((o) => o.email === email)!;
    expect(op).toMatchObject({ role: 'support', disabled: false });

    const theirs = await signIn(email);
    expect((await a.post(`/office/operators/${op.id}/role`, [['role', 'admin']])).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', '/operators')).result.items.find((o: { id: string }) => o.id === op.id).role).toBe('admin');

    expect((await a.post(`/office/operators/${op.id}/access`, [['disabled', 'true']])).headers.location).toBe('/office/operators?done=operator-disabled');
    expect((await theirs.get('/office')).statusCode).toBe(303);
    const again = new FormBrowser(h.app);
    await again.get('/office/sign-in');
    const refused = await again.post('/office/sign-in', [['email', email], ['password', PASSWORD]]);
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('Wrong email or password.');

    expect((await a.post(`/office/operators/${op.id}/access`, [['disabled', 'false']])).statusCode).toBe(303);
    await signIn(email);
    expect(await audit(op.id)).toEqual([`${adm.id} operator.update ok`, `${adm.id} operator.update ok`, `${adm.id} operator.update ok`, `${adm.id} operator.create ok`]);
  });

  it('nobody changes their own role or access here, and the last active admin stays', async () => {
    await a.get('/office/operators');
    expect((await a.post(`/office/operators/${adm.id}/role`, [['role', 'support']])).statusCode).toBe(400);
    expect((await a.post(`/office/operators/${adm.id}/access`, [['disabled', 'true']])).statusCode).toBe(400);
    // Through the API, whose token is no operator: every other admin disabled, the last one is refused.
    const admins = (json(await admin(h.app, 'GET', '/operators?limit=500')).result.items as { id: string; role: string; disabled: boolean }[]).filter((o) => o.role === 'admin' && !o.disabled);
    for (const o of admins.filter((x) => x.id !== adm.id)) expect((await admin(h.app, 'PATCH', `/operators/${o.id}`, { disabled: true })).statusCode).toBe(200);
    const last = await admin(h.app, 'PATCH', `/operators/${adm.id}`, { role: 'support' });
    expect(last.statusCode).toBe(403);
    expect(json(last).fault.code).toBe('FORBIDDEN');
    for (const o of admins.filter((x) => x.id !== adm.id)) await admin(h.app, 'PATCH', `/operators/${o.id}`, { disabled: false });
    expect((await admin(h.app, 'PATCH', '/operators/opr_nope', { disabled: true })).statusCode).toBe(404);
  });

  it('support reads the list, and cannot create or change an operator', async () => {
    expect((await s.get('/office/operators')).statusCode).toBe(200);
    expect((await s.post('/office/operators', [['email', 'x@y.example'], ['password', PASSWORD], ['role', 'admin']])).statusCode).toBe(403);
    expect((await s.post(`/office/operators/${adm.id}/access`, [['disabled', 'true']])).statusCode).toBe(403);
  });
});

describe("a merchant's desks and tariffs", () => {
  it('an admin creates a desk for a merchant with a tariff (the secret shown once) and changes a desk’s tariff', async () => {
    const m = await provisionDesk(h.app, { merchant: { name: 'Desk Co' } });
    const tariff = json(await admin(h.app, 'POST', '/tariffs', { name: 'Wholesale', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '1' }] })).result;
    await a.get(`/office/merchants/${m.merchantId}`);
    const res = await a.post(`/office/merchants/${m.merchantId}/desks`, [
      ['name', 'Web shop'],
      ['method', 'Classic'],
      ['rails', 'Sbp'],
      ['rails', 'C2c'],
      ['rails', 'Upi'],
      ['currencies', 'RUB'],
      ['minUsd', '5'],
      ['maxUsd', '0'],
      ['callbackUrl', ''],
      ['callbacksEnabled', 'true'],
      ['tariffId', tariff.id],
    ]);
    expect(res.statusCode, res.body.slice(0, 600)).toBe(201);
    const id = /id="desk-id"[^>]*>(dsk_\w+)</.exec(res.body)![1]!;
    expect(res.body).toMatch(/id="desk-secret"/);
    const desk = json(await admin(h.app, 'GET', `/desks/${id}`)).result;
    // Rails of another method on the page's boxes are not the desk's.
    expect(desk).toMatchObject({ name: 'Web shop', method: 'Classic', rails: ['Sbp', 'C2c'], currencies: ['RUB'], minUsd: '5.00000000', tariffId: tariff.id });
    expect(await audit(id)).toEqual([`${adm.id} desk.create ok`]);

    expect((await a.post(`/office/desks/${id}/tariff`, [['tariffId', 'none'], ['back', 'merchant']])).headers.location).toBe(`/office/merchants/${m.merchantId}?done=tariff`);
    expect(json(await admin(h.app, 'GET', `/desks/${id}`)).result.tariffId).toBe(null);
    expect((await a.post(`/office/desks/${id}/tariff`, [['tariffId', tariff.id], ['back', 'desk']])).headers.location).toBe(`/office/desks/${id}?done=tariff`);
    expect(json(await admin(h.app, 'GET', `/desks/${id}`)).result.tariffId).toBe(tariff.id);
    expect((await a.post(`/office/desks/${id}/tariff`, [['tariffId', 'trf_nope']])).statusCode).toBe(400);
  });

  it('a desk the catalogue refuses shows the form again with the reason, and no desk is made', async () => {
    const m = await provisionDesk(h.app, { merchant: { name: 'Misfit Co' } });
    await a.get(`/office/merchants/${m.merchantId}`);
    const res = await a.post(`/office/merchants/${m.merchantId}/desks`, [['method', 'CrossBorder'], ['rails', 'Upi'], ['currencies', 'KZT'], ['name', 'Wrong fit']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Upi serves INR only');
    expect(res.body).toContain('value="Wrong fit"');
    expect(json(await admin(h.app, 'GET', `/desks?merchantId=${m.merchantId}`)).result.items).toHaveLength(1);
    expect((await s.post(`/office/merchants/${m.merchantId}/desks`, [['method', 'Classic']])).statusCode).toBe(403);
  });

  it("approval shows on the merchant's page the desks no live provider serves", async () => {
    const m = await provisionDesk(h.app, { merchant: { name: 'Korean Shop' }, desk: { method: 'CrossBorder', rails: ['Account'], currencies: ['KRW'] }, currencies: { KRW: '1350' } });
    await a.get(`/office/merchants/${m.merchantId}`);
    expect((await a.post(`/office/merchants/${m.merchantId}/approve`)).statusCode).toBe(303);
    const page = await a.get(`/office/merchants/${m.merchantId}?done=approved`);
    expect(page.body).toContain('Merchant approved');
    expect(page.body).toContain('id="live-warnings"');
    const warnings = json(await admin(h.app, 'POST', `/merchants/${m.merchantId}/approve`)).result.warnings as string[];
    expect(warnings.length).toBe(1);
    for (const w of warnings) expect(page.body).toContain(w.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'));
  });
});

describe('merchants, their users and desks', () => {
  it('an admin creates a merchant, renames it, adds a cabinet user, changes a desk and issues its new secret', async () => {
    await a.get('/office/merchants');
    const created = await a.post('/office/merchants', [['name', 'Fresh Co'], ['sandbox', 'true']]);
    const id = /\/office\/merchants\/(mer_\w+)\?done=merchant-created/.exec(created.headers.location as string)![1]!;
    expect(json(await admin(h.app, 'GET', `/merchants/${id}`)).result).toMatchObject({ name: 'Fresh Co', status: 'UnderReview', sandbox: true });
    await a.get(`/office/merchants/${id}`);
    expect((await a.post(`/office/merchants/${id}/name`, [['name', 'Fresh Company']])).headers.location).toBe(`/office/merchants/${id}?done=renamed`);
    expect(json(await admin(h.app, 'GET', `/merchants/${id}`)).result.name).toBe('Fresh Company');

    const user = await a.post(`/office/merchants/${id}/users`, [['email', 'dev@fresh.example'], ['password', PASSWORD], ['role', 'developer']]);
    expect(user.headers.location).toBe(`/office/merchants/${id}?done=user-created`);
    const page = await a.get(`/office/merchants/${id}`);
    expect(page.body).toContain('dev@fresh.example');
    expect(page.body).toContain('<div class="cv">developer</div>');
    const taken = await a.post(`/office/merchants/${id}/users`, [['email', 'dev@fresh.example'], ['password', PASSWORD]]);
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain('That email already has an account.');
    const weak = await a.post(`/office/merchants/${id}/users`, [['email', 'two@fresh.example'], ['password', 'short']]);
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toContain('value="two@fresh.example"');

    const d = await provisionDesk(h.app, { merchant: { name: 'Settings Co' } });
    await a.get(`/office/desks/${d.id}`);
    const saved = await a.post(`/office/desks/${d.id}/settings`, [
      ['name', 'Checkout'],
      ['enabled', 'false'],
      ['rails', 'C2c'],
      ['currencies', 'RUB'],
      ['minUsd', '10'],
      ['maxUsd', '900'],
      ['callbackUrl', ''],
      ['callbacksEnabled', 'false'],
    ]);
    expect(saved.headers.location).toBe(`/office/desks/${d.id}?done=desk-saved`);
    expect(json(await admin(h.app, 'GET', `/desks/${d.id}`)).result).toMatchObject({ name: 'Checkout', enabled: false, rails: ['C2c'], minUsd: '10.00000000', maxUsd: '900.00000000', callbackUrl: null, callbacksEnabled: false });
    const refused = await a.post(`/office/desks/${d.id}/settings`, [['name', 'Checkout'], ['minUsd', '900'], ['maxUsd', '10'], ['currencies', 'RUB']]);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('minUsd: must not exceed maxUsd');

    const rotated = await a.post(`/office/desks/${d.id}/secret`);
    expect(rotated.statusCode).toBe(200);
    const secret = /id="desk-secret"[^>]*>([^<]+)</.exec(rotated.body)![1]!;
    expect(secret).not.toBe(d.secret);
    // The old secret fails at once.
    expect((await signed(h, d, '/gw/v1/balance')).statusCode).toBe(401);
    expect((await audit(d.id)).filter((e) => e.startsWith(adm.id))).toEqual([`${adm.id} desk.rotateSecret ok`, `${adm.id} desk.update VALIDATION_ERROR`, `${adm.id} desk.update ok`]);
    expect((await s.post(`/office/desks/${d.id}/secret`)).statusCode).toBe(403);
    expect((await s.post('/office/merchants', [['name', 'Nope']])).statusCode).toBe(403);
  });
});

describe('sandbox and live apart', () => {
  let sandboxDesk: DeskCreds;
  let liveDesk: DeskCreds;
  let sandboxOrder: string;
  let liveOrder: string;

  beforeAll(async () => {
    await admin(h.app, 'POST', '/providers', {
      name: 'Mode pool',
      kind: 'pool',
      priority: 5,
      capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ phone: '+79990000088', holder: 'Olga S.', bank: 'Bank' }],
    });
    sandboxDesk = await provisionDesk(h.app, { merchant: { name: 'Sandbox Only' } });
    liveDesk = await provisionDesk(h.app, { merchant: { name: 'Live Only', sandbox: false, approve: true }, desk: { rails: ['Sbp'] } });
    const sb = json(await signed(h, sandboxDesk, '/gw/v1/orders', { body: JSON.stringify({ amount: 4321, rail: 'Sbp' }) })).result;
    await admin(h.app, 'POST', `/orders/${sb.id}/simulate-payment`);
    const lv = json(await signed(h, liveDesk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1234, rail: 'Sbp', orderRef: 'live-1' }) })).result;
    await admin(h.app, 'POST', `/orders/${lv.id}/confirm`);
    sandboxOrder = sb.id;
    liveOrder = lv.id;
  });

  it('the dashboard is live by default and sandbox on the switch, never both', async () => {
    const live = await a.get('/office');
    expect(live.body).toContain('Live dashboard');
    expect(live.body).toMatch(/aria-current="true" class="mode-live"/);
    const sandbox = await a.get('/office?mode=sandbox');
    expect(sandbox.body).toContain('Sandbox dashboard');
    const settled = (id: string) => admin(h.app, 'GET', `/orders/${id}`).then((r) => json(r).result.settled.amount as string);
    const [liveUsd, sandboxUsd] = await Promise.all([settled(liveOrder), settled(sandboxOrder)]);
    const today = (body: string) => /id="turnover-today"><data class="money" value="([^"]+)"/.exec(body)![1];
    expect(today(live.body)).toBe(liveUsd);
    expect(today(sandbox.body)).toBe(sandboxUsd);
    // The navigation keeps the mode.
    expect(sandbox.body).toContain('href="/office/orders?mode=sandbox"');
  });

  it('the orders and merchants lists show one mode, and their links keep it', async () => {
    const live = await a.get('/office/orders');
    expect(live.body).toContain(liveOrder);
    expect(live.body).not.toContain(sandboxOrder);
    const sandbox = await a.get('/office/orders?mode=sandbox');
    expect(sandbox.body).toContain(sandboxOrder);
    expect(sandbox.body).not.toContain(liveOrder);
    expect(sandbox.body).toContain('href="/office/orders.csv?mode=sandbox"');
    expect(sandbox.body).toContain('<input type="hidden" name="mode" value="sandbox">');

    const merchants = await a.get('/office/merchants?q=Only');
    expect(merchants.body).toContain('Live balance (USD)');
    expect((await a.get('/office/merchants?q=Only&mode=sandbox')).body).toContain('Sandbox money (USD)');
    const page = await a.get(`/office/merchants/${sandboxDesk.merchantId}`);
    expect(page.body).toMatch(/id="balance"><data class="money" value="0\.00000000"/);
    expect(page.body).not.toMatch(/id="sandbox-money"><data class="money" value="0\.00000000"/);
  });

  it('the open-appeals queue shows one mode, counts the other, and a decision goes back to the same mode', async () => {
    const o = json(await signed(h, liveDesk, '/gw/v1/orders', { body: JSON.stringify({ amount: 3333, rail: 'Sbp' }) })).result;
    await signed(h, liveDesk, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' });
    const appeal = json(await signed(h, liveDesk, '/gw/v1/appeals', { body: JSON.stringify({ orderId: o.id, reason: 'paid' }) })).result;
    const live = await a.get('/office/queues/appeals');
    expect(live.body).toContain(appeal.id);
    const sandbox = await a.get('/office/queues/appeals?mode=sandbox');
    expect(sandbox.body).not.toContain(appeal.id);
    expect(sandbox.body).toMatch(/1 open appeal of live orders/);
    const sandboxAppeal = json(await signed(h, sandboxDesk, '/gw/v1/appeals', { body: JSON.stringify({ orderId: (await (async () => {
      const x = json(await signed(h, sandboxDesk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1111, rail: 'Sbp' }) })).result;
      await signed(h, sandboxDesk, `/gw/v1/orders/${x.id}/cancel`, { body: '{}' });
      return x.id as string;
    })()), reason: 'paid' }) })).result;
    expect((await a.get('/office/queues/appeals?mode=sandbox')).body).toContain(`action="/office/appeals/${sandboxAppeal.id}/accept?mode=sandbox"`);
    const decided = await a.post(`/office/appeals/${sandboxAppeal.id}/reject?mode=sandbox`, [['comment', 'no payment seen']]);
    expect(decided.headers.location).toBe('/office/queues/appeals?done=rejected&mode=sandbox');
  });

  it('marks a live order paid with the payer reference the provider gave', async () => {
    const o = json(await signed(h, liveDesk, '/gw/v1/orders', { body: JSON.stringify({ amount: 2222, rail: 'Sbp' }) })).result;
    await a.get(`/office/orders/${o.id}`);
    expect((await a.post(`/office/orders/${o.id}/report-payment`, [['payerReference', 'UTR555000111']])).headers.location).toBe(`/office/orders/${o.id}?done=reported`);
    expect(json(await admin(h.app, 'GET', `/orders/${o.id}`)).result).toMatchObject({ status: 'Payed', payerReference: 'UTR555000111' });
    expect((await a.get('/office/orders?q=UTR555000111')).body).toContain(o.id);
  });

  it('orders are found by every field an operator searches by', async () => {
    const o = json(await admin(h.app, 'GET', `/orders/${liveOrder}`)).result;
    const finds = async (qs: string) => (await a.get(`/office/orders?${qs}`)).body.includes(liveOrder);
    const day = o.createdAt.slice(0, 10);
    for (const qs of [
      `q=${liveOrder}`,
      'q=live-1',
      `merchantId=${liveDesk.merchantId}`,
      `deskId=${liveDesk.id}`,
      `providerId=${o.providerId}`,
      'status=Completed',
      'method=Classic',
      'rail=Sbp',
      'currency=RUB',
      'amountMin=1234&amountMax=1234',
      `from=${day}&to=${day}`,
    ]) {
      expect(await finds(qs), qs).toBe(true);
    }
    for (const qs of ['status=Created', 'method=BankApp', 'rail=C2c', 'currency=INR', 'amountMin=1235', 'amountMax=1000', `to=2020-01-01`, 'q=nothing-like-it']) {
      expect(await finds(qs), qs).toBe(false);
    }
    for (const qs of ['status=Bogus', 'method=Cash', 'amountMin=abc', 'from=yesterday', 'amountMin=10&amountMax=5']) {
      const res = await a.get(`/office/orders?${qs}`);
      expect(res.statusCode, qs).toBe(400);
    }
  });
});

describe('CSV exports', () => {
  it('exports the orders the page filters, every batch of a long list, as exact strings', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Many Orders' } });
    const first = json(await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500.5, rail: 'Sbp' }) })).result;
    // More rows than one export batch (500): copies of the order, written as the store would.
    await h.ctx.db.query(
      `INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, direction, status, sub_status, placement,
         payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, created_at, expires_at, updated_at)
       SELECT 'ord_copy' || lpad(g::text, 22, '0'), desk_id, merchant_id, NULL, amount, currency, rate, settled_amount, method, rail, direction, status, sub_status, placement,
         payment, provider_id, sandbox, lifetime_minutes, commission_rate, commission_amount, credited_amount, created_at, expires_at, updated_at
       FROM orders, generate_series(1, 620) g WHERE id = $1`,
      [first.id],
    );
    const res = await a.get(`/office/orders.csv?mode=sandbox&merchantId=${d.merchantId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="orders-sandbox.csv"');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,orderRef,createdAt,status,subStatus,sandbox,merchantId,deskId,providerId,method,rail,amount,currency,rate,settledUsd,commissionRate,commissionUsd,creditedUsd,payerReference,cancelReason,expiresAt,finishedAt');
    expect(lines).toHaveLength(1 + 621);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(621);
    expect(lines.at(-1)).toContain(',1500.50,RUB,');
    // The same filters as the page: the live export has none of these sandbox orders.
    expect((await a.get(`/office/orders.csv?merchantId=${d.merchantId}`)).body.trimEnd().split('\r\n')).toHaveLength(1);
    expect((await a.get('/office/orders.csv?status=Bogus')).statusCode).toBe(400);
  });

  it('exports merchants, appeals, the audit trail, operators, tariffs and providers', async () => {
    const m = await provisionDesk(h.app, { merchant: { name: '=HYPERLINK("x"), Ltd' } });
    const merchants = await a.get(`/office/merchants.csv?q=HYPERLINK`);
    expect(merchants.body.split('\r\n')[0]).toBe('id,name,status,sandbox,blockReason,desks,liveBalanceUsd,createdAt');
    // A formula is made inert and a comma quoted.
    expect(merchants.body).toContain(`${m.merchantId},"'=HYPERLINK(""x""), Ltd",UnderReview,true,,1,0.00000000,`);
    expect((await a.get('/office/merchants.csv?mode=sandbox&q=HYPERLINK')).body.split('\r\n')[0]).toContain('sandboxMoneyUsd');

    const o = json(await signed(h, m, '/gw/v1/orders', { body: JSON.stringify({ amount: 777, rail: 'Sbp' }) })).result;
    await signed(h, m, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' });
    const appeal = json(await signed(h, m, '/gw/v1/appeals', { body: JSON.stringify({ orderId: o.id, reason: 'paid, see statement' }) })).result;
    const appeals = await a.get(`/office/appeals.csv?mode=sandbox&merchantId=${m.merchantId}`);
    expect(appeals.body.split('\r\n')[1]).toContain(`${appeal.id},Open,false,`);
    expect((await a.get(`/office/appeals.csv?merchantId=${m.merchantId}`)).body.trimEnd().split('\r\n')).toHaveLength(1);
    expect((await a.get(`/office/appeals?mode=sandbox&merchantId=${m.merchantId}`)).body).toContain(appeal.id);

    const auditCsv = await a.get(`/office/audit.csv?objectId=${adm.id}`);
    expect(auditCsv.body.split('\r\n')[0]).toBe('id,at,actor,action,objectId,outcome,detail');
    expect((await a.get('/office/operators.csv')).body).toContain(`${adm.id},${adm.email},admin,false,`);
    expect((await a.get('/office/tariffs.csv')).body.split('\r\n')[0]).toBe('id,name,default,fromUsd,toUsd,ratePercent,createdAt');
    expect((await a.get('/office/providers.csv')).body).toContain(',sandbox,');
    for (const path of ['/office/caps.csv', '/office/rates.csv', '/office/queues/review.csv', '/office/queues/payed.csv', '/office/queues/reconcile.csv', '/office/queues/callbacks.csv']) {
      const res = await a.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type'], path).toBe('text/csv; charset=utf-8');
    }
    expect((await a.get('/office/queues/review.csv')).body).toContain(m.merchantId);
    // Support reads lists, so support exports them too.
    expect((await s.get('/office/orders.csv')).statusCode).toBe(200);
  });
});
