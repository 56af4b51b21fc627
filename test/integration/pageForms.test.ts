import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { cabinetKit, DESK_FORM, type CabinetBrowser } from '../helpers/cabinet.js';
import { FormBrowser } from '../helpers/formBrowser.js';

/*
 * Every form of the pages is declared as a schema and checked against it before its route acts:
 * a field the form does not declare answers 400 with a page naming it, in the reader's language,
 * and changes nothing. The list of forms is the app's own list of page POST routes, so a new form
 * is covered the day it is added.
 */

const OPERATOR_PASSWORD = 'operator passphrase 2026';

let h: Harness;
const { signUp, createDesk, order } = cabinetKit(() => h);
let cab: CabinetBrowser;
let off: FormBrowser;
let desk: DeskCreds;
let ids: Record<string, string>;

/** Everything the database holds but sessions (each request of a signed-in page touches its own). */
async function databaseDigest(): Promise<string> {
  const { rows } = await h.ctx.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'sessions' ORDER BY table_name`,
  );
  const hash = createHash('sha256');
  for (const { table_name } of rows) {
    const data = await h.ctx.db.query(`SELECT * FROM ${table_name}`);
    hash.update(table_name).update(JSON.stringify(data.rows.map((r) => JSON.stringify(r)).sort()));
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false', PUBLIC_BASE_URL: 'https://pay.example.test' }, unlimitedOrders: true });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  ({ b: cab } = await signUp('Forms Shop'));
  desk = await createDesk(cab);
  const o = await order(desk);
  const closed = await order(desk);
  expect((await signed(h, desk, `/gw/v1/orders/${closed.id}/cancel`, { body: '{}' })).statusCode).toBeLessThan(300);
  const appeal = json(await signed(h, desk, '/gw/v1/appeals', { body: JSON.stringify({ orderId: closed.id, reason: 'paid' }) })).result;
  const email = 'forms-admin@paygate.example';
  expect((await admin(h.app, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role: 'admin' })).statusCode).toBe(201);
  off = new FormBrowser(h.app);
  await off.get('/office/sign-in');
  expect((await off.post('/office/sign-in', [['email', email], ['password', OPERATOR_PASSWORD]])).statusCode).toBe(303);
  const other = await provisionDesk(h.app, { merchant: { name: 'Other Co' } });
  const provider = json(await admin(h.app, 'GET', '/providers')).result[0].id as string;
  const cap = json(await admin(h.app, 'POST', '/turnover-limits', { scope: 'platform', window: 'day', capUsd: '100000' })).result.id as string;
  const account = await cab.get('/cabinet/account');
  const handle = /\/cabinet\/account\/sessions\/([^/]+)\/revoke/.exec(account.body)?.[1] ?? 'none';
  ids = { deskId: desk.id, orderId: o.id, handle, merchant: other.merchantId, desk: other.id, order: o.id, appeal: appeal.id, provider, cap, code: 'RUB' };
});
afterAll(() => h.close());

/** A page POST route's path with real ids in place of its parameters. */
function pathOf(route: string): string {
  return route.replace(/:(\w+)/g, (_m, name: string) => {
    if (name !== 'id') return ids[name]!;
    const kind = /^\/office\/(\w+)\//.exec(route)?.[1];
    const byKind: Record<string, string> = { merchants: ids.merchant!, desks: ids.desk!, orders: ids.order!, appeals: ids.appeal!, providers: ids.provider!, caps: ids.cap! };
    return kind ? byKind[kind]! : ids.orderId!;
  });
}

function pagePosts(): string[] {
  const urls = h.app.paygateRoutes.filter((r) => r.method === 'POST' && /^\/(cabinet|office|pay|sandbox)\b/.test(r.url)).map((r) => r.url);
  return [...new Set(urls)].sort();
}

/** The back office's forms that carry a file: the statement upload and a CSV profile with its sample. */
const MULTIPART_OFFICE = new Set(['/office/pools/:id/statements', '/office/pools/:id/profiles/new', '/office/pools/:id/profiles/:profileId']);

/** Posts a form with one extra field as its page would (multipart for the appeal, statement and profile uploads), in Russian. */
async function postWithExtra(route: string, name: string) {
  const url = `${pathOf(route)}?lang=ru`;
  const b = route.startsWith('/office') ? off : cab;
  if (route.startsWith('/office')) await off.get('/office');
  else if (route.startsWith('/cabinet')) await cab.get('/cabinet');
  if (route === '/cabinet/appeals') return b.upload(url, [{ name: 'orderId', value: ids.orderId! }, { name, value: 'x' }]);
  if (MULTIPART_OFFICE.has(route)) return b.upload(url, [{ name, value: 'x' }]);
  const fields: [string, string][] = route === '/cabinet/desks' ? [...DESK_FORM] : [];
  // The payment page and the sandbox bank have no session, and their forms no CSRF field.
  return b.post(url, [...fields, [name, 'x']], /^\/(pay|sandbox)\//.test(route) ? { csrf: null } : {});
}

describe('a field a form does not declare', () => {
  it('every page POST route declares its form', () => {
    // The pages refuse to start with a POST route that declares none (formGuard.ts); these are the ones there are.
    expect(pagePosts().length).toBeGreaterThanOrEqual(40);
  });

  it.each(['secretEnc', 'constructor', '__proto__'])('%s answers 400 naming it, in the reader’s language, on every form, and changes nothing', async (name) => {
    const before = await databaseDigest();
    const answers: string[] = [];
    for (const route of pagePosts()) {
      const res = await postWithExtra(route, name);
      answers.push(`${route} ${res.statusCode}`);
      expect(res.statusCode, `${route}: ${res.body.slice(0, 300)}`).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<html lang="ru">');
      expect(res.body).toContain(`В форме есть поле, которого она не ожидает: ${name}.`);
    }
    expect(await databaseDigest()).toBe(before);
    // The session is still good: nothing signed it out.
    expect((await cab.get('/cabinet')).statusCode).toBe(200);
  });

  it('names every undeclared field, in English by default', async () => {
    await cab.get('/cabinet/desks');
    const res = await cab.post('/cabinet/desks', [...DESK_FORM, ['secretEnc', 'x'], ['merchantId', 'mer_other']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('This form has fields it does not expect: secretEnc, merchantId.');
  });

  it('a stranger without a session or token is refused as before (403), not told about the form', async () => {
    const stranger = new FormBrowser(h.app);
    expect((await stranger.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'false'], ['secretEnc', 'x']], { csrf: null })).statusCode).toBe(403);
  });
});

describe('a declared field with a value its form cannot take', () => {
  it('a field given twice where the form takes one answers 400 and changes nothing', async () => {
    await cab.get(`/cabinet/desks/${desk.id}`);
    const res = await cab.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'false'], ['enabled', 'true']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Enabled: must be true or false');
    expect(json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result.enabled).toBe(true);
  });

  it('before a session, answers a page in the reader’s language naming the field', async () => {
    const b = new FormBrowser(h.app);
    await b.get('/cabinet/sign-in');
    const res = await b.post('/cabinet/sign-in?lang=tr', [['email', 'a@b.example'], ['password', 'x'.repeat(201)]]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<html lang="tr">');
    expect(res.body).toContain('Formun password alanında kabul edilemeyen bir değer var.');
  });

  it('the desk form takes the operator API’s rules and words, and shows the form again with what was typed', async () => {
    await cab.get('/cabinet/desks');
    const res = await cab.post('/cabinet/desks', [['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['minUsd', '1e3'], ['callbackUrl', 'https://shop.example/typed']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('MinUsd: must be a decimal string with at most 8 places');
    expect(res.body).toContain('value="https://shop.example/typed"');
    expect(res.body).toContain('value="1e3"');
  });
});
