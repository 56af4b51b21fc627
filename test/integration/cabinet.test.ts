import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { base32Decode, hotp, totpStep } from '../../src/domain/totp.js';
import { signMessage } from '../../src/signing.js';
import { cabinetKit, DESK_FORM, PASSWORD, type CabinetBrowser } from '../helpers/cabinet.js';

/*
 * The merchant cabinet over HTTP, as a browser uses it: cookies, forms with their CSRF token,
 * redirects. Sign-up to a first simulated payment, the fixed actions of the web spec, the CSV
 * export, the sign-in limit, and isolation between two merchants.
 */

let h: Harness;
const { Browser, signUp, createDesk, order } = cabinetKit(() => h);

beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test', CALLBACK_ALLOWLIST: '127.0.0.1' }, unlimitedOrders: true });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
});
afterAll(() => h.close());

describe('sign-up to a first simulated payment', () => {
  it('creates a sandbox merchant under review, a desk whose key and secret sign API calls, and completes an order', async () => {
    const b = new Browser();
    const form = await b.get('/cabinet/sign-up');
    expect(form.headers['content-security-policy']).toContain("script-src 'self'");
    const res = await b.post('/cabinet/sign-up', [['company', 'Tea & <Cakes>'], ['email', 'owner@teacakes.example'], ['password', PASSWORD]]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/cabinet');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('pg_cabinet='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Secure/);

    const home = await b.get('/cabinet');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('Tea &amp; &lt;Cakes&gt;');
    expect(home.body).toContain('Under review');
    expect(home.body).toContain('Create a cash desk');

    const desk = await createDesk(b);
    expect(desk.id).toMatch(/^dsk_/);
    expect(desk.key).toMatch(/^shp_/);
    // the secret is shown once: the desk page never carries it
    const deskPage = await b.get(`/cabinet/desks/${desk.id}`);
    expect(deskPage.statusCode).toBe(200);
    expect(deskPage.body).not.toContain(desk.secret);
    expect(deskPage.body).toContain('Taking orders');

    const methods = await signed(h, desk, '/gw/v1/methods');
    expect(methods.statusCode, methods.body).toBe(200);
    const o = await order(desk);

    const list = await b.get('/cabinet/orders');
    expect(list.body).toContain(o.id);
    const page = await b.get(`/cabinet/orders/${o.id}`);
    expect(page.body).toContain('Simulate payment');
    const sim = await b.post(`/cabinet/orders/${o.id}/simulate-payment`);
    expect(sim.statusCode).toBe(303);
    const after = json(await signed(h, desk, `/gw/v1/orders/${o.id}`)).result;
    expect(after.status).toBe('Completed');
    expect((await b.get(`/cabinet/orders/${o.id}?done=simulated`)).body).toContain('Payment simulated');
    // a second simulation is refused on the page, not with an error envelope
    const again = await b.post(`/cabinet/orders/${o.id}/simulate-payment`);
    expect(again.statusCode).toBe(409);
    expect(again.headers['content-type']).toContain('text/html');

    // resend of the closed order: a new event id each time
    const r1 = await b.post(`/cabinet/orders/${o.id}/resend`);
    const r2 = await b.post(`/cabinet/orders/${o.id}/resend`);
    expect(r1.statusCode).toBe(303);
    const ev = (r: LightMyRequestResponse) => /event=(evt_[A-Za-z0-9]+)/.exec(String(r.headers.location))![1];
    expect(ev(r1)).not.toBe(ev(r2));
    const feed = json(await signed(h, desk, '/gw/v1/events', { query: `orderId=${o.id}` })).result.events.map((e: { id: string }) => e.id);
    expect(feed).toEqual(expect.arrayContaining([ev(r1), ev(r2)]));

    const done = await b.get('/cabinet');
    expect(done.body).toMatch(/Simulate a payment[^]*?badge ok/);
  });

  it('shows a form error for a bad desk and keeps what was typed', async () => {
    const { b } = await signUp('Form Shop');
    await b.get('/cabinet/desks');
    const res = await b.post('/cabinet/desks', [['method', 'Classic'], ['rails', 'Upi'], ['currencies', 'RUB'], ['callbackUrl', 'https://shop.example/cb?x="y"']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Upi is not a rail of Classic');
    expect(res.body).toContain('value="https://shop.example/cb?x=&quot;y&quot;"');
  });

  it('refuses a taken email and a common password on the sign-up form, leaving no merchant behind', async () => {
    const { email } = await signUp('First Shop');
    const b = new Browser();
    await b.get('/cabinet/sign-up');
    const taken = await b.post('/cabinet/sign-up', [['company', 'Second Shop'], ['email', email.toUpperCase()], ['password', PASSWORD]]);
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain('already has an account');
    const weak = await b.post('/cabinet/sign-up', [['company', 'Second Shop'], ['email', 'x@second.example'], ['password', 'password123']]);
    expect(weak.statusCode).toBe(400);
    const merchants = json(await admin(h.app, 'GET', '/merchants?limit=500')).result.items.map((m: { name: string }) => m.name);
    expect(merchants).not.toContain('Second Shop');
  });
});

describe('names, refusals and what each page shows', () => {
  it('names desks ("Desk N" unless given) and lists names before ids; a rename keeps the rest', async () => {
    const { b } = await signUp('Names Shop');
    const unnamed = await createDesk(b);
    const named = await createDesk(b, [['name', 'Front <counter>'], ...DESK_FORM]);
    const list = (await b.get('/cabinet/desks')).body;
    const row = (id: string) => list.split('<tr>').find((r) => r.includes(id))!;
    expect(row(unnamed.id)).toContain('>Desk 1</a>');
    expect(row(named.id).indexOf('>Front &lt;counter&gt;<')).toBeLessThan(row(named.id).indexOf(`>${named.id}<`));
    const o = await order(named);
    const orders = (await b.get('/cabinet/orders')).body;
    const line = orders.split('<tr>').find((r) => r.includes(o.id))!;
    expect(line.indexOf('>Front &lt;counter&gt;<')).toBeLessThan(line.indexOf(`>${named.id}<`));
    expect(orders).toContain(`<option value="${named.id}">Front &lt;counter&gt; (${named.id})</option>`);
    expect((await b.get(`/cabinet/orders/${o.id}`)).body).toContain(`<a href="/cabinet/desks/${named.id}">Front &lt;counter&gt;</a>`);

    await b.get(`/cabinet/desks/${named.id}`);
    const saved = await b.post(`/cabinet/desks/${named.id}/settings`, [['name', 'Back counter'], ...DESK_FORM]);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(json(await admin(h.app, 'GET', `/desks/${named.id}`)).result).toMatchObject({ name: 'Back counter', rails: ['Sbp', 'C2c'], currencies: ['RUB'] });
    const long = await b.post(`/cabinet/desks/${named.id}/settings`, [['name', 'x'.repeat(101)], ...DESK_FORM]);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain(`value="${'x'.repeat(101)}"`);
  });

  it('refuses an impossible desk beside the form with everything typed kept, and creates nothing', async () => {
    const { b } = await signUp('Impossible Shop');
    await b.get('/cabinet/desks');
    const res = await b.post('/cabinet/desks', [
      ['name', 'Rupees'], ['method', 'CrossBorder'], ['rails', 'Upi'], ['currencies', 'RUB'], ['minUsd', '5'], ['maxUsd', '900'],
      ['callbackUrl', 'https://shop.example/cb'], ['callbacksEnabled', 'false'],
    ]);
    expect(res.statusCode).toBe(400);
    const form = /<form[^>]*id="new-desk"[^]*?<\/form>/.exec(res.body)![0];
    expect(form).toMatch(/id="new-desk-error"[^>]*><strong>Nothing was created\.<\/strong> Rails: Upi serves INR only/);
    expect(form).toContain('value="Rupees"');
    expect(form).toContain('<option value="CrossBorder" selected>');
    expect(form).toContain('value="Upi" checked');
    expect(form).toContain('value="RUB" checked');
    expect(form).toContain('name="minUsd" inputmode="decimal" value="5"');
    expect(form).toContain('value="false" checked');
    expect(json(await admin(h.app, 'GET', `/desks?merchantId=${await merchantIdOf('Impossible Shop')}`)).result.items).toEqual([]);
  });

  it('shows on an order’s page the details the customer was given, the reference they reported and a link to the payment page; money for people, the exact string kept', async () => {
    const { b } = await signUp('Details Shop');
    const desk = await createDesk(b);
    const o = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1234567.5, rail: 'Sbp' }) })).result;
    const reported = await h.app.inject({ method: 'POST', url: `/api/pay/${o.id}/payer-reference`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ payerReference: 'SBP-7731/22' }) });
    expect(reported.statusCode, reported.body).toBe(200);
    const page = (await b.get(`/cabinet/orders/${o.id}`)).body;
    expect(page).toContain('What the customer was given');
    expect(page).toContain(`href="/pay/${o.id}"`);
    expect(page).toContain(`data-copy="phone">${o.payment.phone}</code>`);
    expect(page).toContain(`>${o.payment.holder}</code>`);
    expect(page).toContain('data-copy="reported reference">SBP-7731/22</code>');
    expect(page).toContain(`title="Exact: 1234567.50 RUB" data-exact="1234567.50 RUB">1,234,567.50 RUB</span>`);
    expect(page).toContain(`title="Exact: ${o.settled.amount} USD"`);
    expect(page).toMatch(/>13,448\.45 USD<\/span>/);
    expect((await b.get('/cabinet/orders')).body).toContain('>1,234,567.50 RUB</span>');
  });

  it('answers a refused appeal with the form as typed (the file aside) and the reason beside it', async () => {
    const { b } = await signUp('Appeal Form Shop');
    const desk = await createDesk(b);
    const o = await order(desk);
    await b.get('/cabinet/appeals');
    const res = await b.upload('/cabinet/appeals', [
      { name: 'orderId', value: o.id },
      { name: 'reason', value: 'Paid at 12:05 <from> Sberbank' },
      { name: 'evidenceUrl', value: 'https://bank.example/s/1\nhttps://bank.example/s/2' },
    ]);
    expect(res.statusCode).toBe(409);
    const form = /<form[^>]*id="appeal-form"[^]*?<\/form>/.exec(res.body)![0];
    expect(form).toContain('ORDER_STILL_OPEN');
    expect(form).toContain(`name="orderId" required maxlength="255" autocomplete="off" value="${o.id}"`);
    expect(form).toContain('>Paid at 12:05 &lt;from&gt; Sberbank</textarea>');
    expect(form).toContain('>https://bank.example/s/1\nhttps://bank.example/s/2</textarea>');
    const unknown = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: 'no-such-ref' }, { name: 'reason', value: 'kept' }]);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('>kept</textarea>');
  });
});

describe('callback attempts', () => {
  it('lists each attempt with its code, the first 300 characters of the answer, time and outcome; a delivery ticks the checklist', async () => {
    const rx = await startReceiver();
    const worker = new DeliveryWorker(h.ctx, { timeoutMs: 5_000 });
    try {
      const { b } = await signUp('Callback Shop');
      const desk = await createDesk(b, DESK_FORM.map(([k, v]) => [k, k === 'callbackUrl' ? `${rx.url}/cb` : v] as [string, string]));
      const o = await order(desk);
      await b.get(`/cabinet/orders/${o.id}`);
      rx.respond(() => ({ status: 500, body: `${'x'.repeat(299)}<b>tail beyond 300` }));
      await b.post(`/cabinet/orders/${o.id}/simulate-payment`);
      while ((await worker.runOnce()) > 0);
      expect(rx.hits.length).toBe(1);
      const failed = (await b.get(`/cabinet/orders/${o.id}`)).body;
      expect(failed).toContain('>retry<');
      expect(failed).toContain('>500<');
      expect(failed).toContain(`${'x'.repeat(299)}&lt;</td>`);
      expect(failed).not.toContain('tail beyond');
      expect((await b.get('/cabinet')).body).toMatch(/Receive a callback[^<]*<\/span><\/li>/);

      rx.respond(() => ({ status: 200, body: 'ok' }));
      await b.post(`/cabinet/orders/${o.id}/resend`);
      while ((await worker.runOnce()) > 0);
      const page = (await b.get(`/cabinet/orders/${o.id}`)).body;
      expect(page).toContain('>delivered<');
      expect((await b.get('/cabinet')).body).toMatch(/Receive a callback[^<]*<\/span> <span class="badge ok">done/);
    } finally {
      await worker.close();
      await rx.close();
    }
  });
});

describe('desk settings and test callback', () => {
  it('edits rails, currencies, limits and the callback URL through the operator patch rules, and sends a signed test callback that is no order event', async () => {
    const rx = await startReceiver();
    try {
      const { b } = await signUp('Settings Shop');
      const desk = await createDesk(b);
      const page = await b.get(`/cabinet/desks/${desk.id}`);
      expect(page.body).toContain(`action="/cabinet/desks/${desk.id}/settings"`);
      const settings = (over: Record<string, string>): [string, string][] => [
        ['method', 'Upi'],
        ['rails', 'Sbp'],
        ['currencies', 'RUB'],
        ['minUsd', over.minUsd ?? '5'],
        ['maxUsd', over.maxUsd ?? '900.50'],
        ['callbackUrl', over.callbackUrl ?? `${rx.url}/hook`],
        ['callbacksEnabled', 'true'],
      ];
      // the same URL rules as the API: a private address is refused, the form keeps what was typed
      const bad = await b.post(`/cabinet/desks/${desk.id}/settings`, settings({ callbackUrl: 'http://10.0.0.1/cb' }));
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('INVALID_CALLBACK_URL');
      expect(bad.body).toContain('value="http://10.0.0.1/cb"');
      expect((await b.post(`/cabinet/desks/${desk.id}/settings`, settings({ minUsd: '10', maxUsd: '5' }))).statusCode).toBe(400);
      expect((await b.post(`/cabinet/desks/${desk.id}/settings`, settings({ minUsd: '1e3' }))).statusCode).toBe(400);
      const saved = await b.post(`/cabinet/desks/${desk.id}/settings`, settings({}));
      expect(saved.statusCode, saved.body).toBe(303);
      const view = json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result;
      // the method stays the desk's for life whatever the form said
      expect(view).toMatchObject({ method: 'Classic', rails: ['Sbp'], minUsd: '5.00000000', maxUsd: '900.50000000', callbackUrl: `${rx.url}/hook` });

      await b.get(`/cabinet/desks/${desk.id}`);
      rx.respond(() => ({ status: 418, body: `teapot <${'y'.repeat(400)}` }));
      const tested = await b.post(`/cabinet/desks/${desk.id}/test-callback`);
      expect(tested.statusCode).toBe(200);
      expect(rx.hits).toHaveLength(1);
      const hit = rx.hits[0]!;
      expect(JSON.parse(hit.body.toString())).toMatchObject({ event: 'test.callback', test: true, deskId: desk.id });
      const eventId = String(hit.headers['x-gate-event-id']);
      expect(hit.headers['x-gate-sign']).toBe(signMessage(desk.secret, String(hit.headers['x-gate-ts']), eventId, hit.body));
      expect(tested.body).toContain('>418<');
      expect(tested.body).toContain(`teapot &lt;${'y'.repeat(292)}<`);
      expect(tested.body).toMatch(/answered in \d+ ms/);
      // never an order event: not in the events feed
      const feed = json(await signed(h, desk, '/gw/v1/events')).result.events as { id: string }[];
      expect(feed.map((e) => e.id)).not.toContain(eventId);
    } finally {
      await rx.close();
    }
  });
});

describe('failing callbacks and redelivery', () => {
  it('lists failing deliveries across desks and redelivers every failed event since a time under the same event ids, recording new attempts', async () => {
    const rx = await startReceiver();
    const worker = new DeliveryWorker(h.ctx, { timeoutMs: 300 });
    try {
      const { b } = await signUp('Redeliver Shop');
      const desk = await createDesk(b, DESK_FORM.map(([k, v]) => [k, k === 'callbackUrl' ? `${rx.url}/cb` : v] as [string, string]));
      const before = new Date(h.clock.now()).toISOString().slice(0, 16);
      const o1 = await order(desk);
      const o2 = await order(desk);
      rx.respond(() => ({ status: 400, body: 'bad signature?' }));
      for (const o of [o1, o2]) {
        await b.get(`/cabinet/orders/${o.id}`);
        await b.post(`/cabinet/orders/${o.id}/simulate-payment`);
      }
      while ((await worker.runOnce()) > 0);
      const failing = await b.get('/cabinet/callbacks');
      expect(failing.body).toContain(o1.id);
      expect(failing.body).toContain(o2.id);
      expect(failing.body).toContain('bad signature?');
      const ids = [...failing.body.matchAll(/<span class="mono">(evt_[A-Za-z0-9]+)<\/span>/g)].map((m) => m[1]!).sort();
      expect(ids).toHaveLength(2);

      // another merchant sees none of it, and its redelivery touches none of it
      const { b: other } = await signUp('Other Redeliver Shop');
      expect((await other.get('/cabinet/callbacks')).body).not.toContain(o1.id);
      await other.get('/cabinet/callbacks');
      expect((await other.post('/cabinet/callbacks/redeliver', [['since', before]])).headers.location).toBe('/cabinet/callbacks?redelivered=0');

      expect((await b.post('/cabinet/callbacks/redeliver', [['since', 'yesterday']])).statusCode).toBe(400);
      rx.respond(() => ({ status: 200, body: 'ok' }));
      const hitsBefore = rx.hits.length;
      const r = await b.post('/cabinet/callbacks/redeliver', [['since', before]]);
      expect(r.headers.location).toBe('/cabinet/callbacks?redelivered=2');
      while ((await worker.runOnce()) > 0);
      const again = rx.hits.slice(hitsBefore).map((x) => String(x.headers['x-gate-event-id'])).sort();
      expect(again).toEqual(ids);
      const log = (await b.get(`/cabinet/orders/${o1.id}`)).body;
      expect(log).toContain('>rejected<');
      expect(log).toContain('>delivered<');
      expect((await b.get('/cabinet/callbacks')).body).toContain('Nothing is failing');
    } finally {
      await worker.close();
      await rx.close();
    }
  });
});

describe('desk actions', () => {
  it('turns a desk off (SHOP_INACTIVE on the API) and on again', async () => {
    const { b } = await signUp('Toggle Shop');
    const desk = await createDesk(b);
    await b.get(`/cabinet/desks/${desk.id}`);
    const off = await b.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'false']]);
    expect(off.statusCode).toBe(303);
    const refused = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) });
    expect(refused.statusCode).toBe(400);
    expect(json(refused).fault.code).toBe('SHOP_INACTIVE');
    expect((await b.get(`/cabinet/desks/${desk.id}`)).body).toContain('Not taking orders');
    expect((await b.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'maybe']])).statusCode).toBe(400);
    await b.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'true']]);
    await order(desk, { amount: 100, rail: 'Sbp' });
  });

  it('issues a new secret shown once; the old one fails at once', async () => {
    const { b } = await signUp('Rotate Shop');
    const desk = await createDesk(b);
    await b.get(`/cabinet/desks/${desk.id}`);
    const res = await b.post(`/cabinet/desks/${desk.id}/secret`);
    expect(res.statusCode).toBe(200);
    const secret = /id="desk-secret"[^>]*>([^<]+)</.exec(res.body)![1]!;
    expect(secret).not.toBe(desk.secret);
    const old = await signed(h, desk, '/gw/v1/methods');
    expect(old.statusCode).toBe(401);
    expect((await signed(h, { ...desk, secret }, '/gw/v1/methods')).statusCode).toBe(200);
  });
});

describe('CSRF', () => {
  it('refuses every action without a valid token with 403 and changes nothing', async () => {
    const { b } = await signUp('Csrf Shop');
    const desk = await createDesk(b);
    const o = await order(desk);
    const actions: [string, [string, string][]][] = [
      ['/cabinet/desks', DESK_FORM],
      [`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'false']]],
      [`/cabinet/desks/${desk.id}/secret`, []],
      [`/cabinet/orders/${o.id}/resend`, []],
      [`/cabinet/orders/${o.id}/simulate-payment`, []],
      ['/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'another long passphrase']]],
      ['/cabinet/sign-out', []],
    ];
    const other = await signUp('Other Csrf Shop');
    for (const [url, fields] of actions) {
      expect((await b.post(url, fields, { csrf: null })).statusCode, url).toBe(403);
      expect((await b.post(url, fields, { csrf: 'forged' })).statusCode, url).toBe(403);
      // another session's token is no good either
      expect((await b.post(url, fields, { csrf: other.b.csrf })).statusCode, url).toBe(403);
    }
    expect((await signed(h, desk, '/gw/v1/methods')).statusCode).toBe(200);
    expect(json(await signed(h, desk, `/gw/v1/orders/${o.id}`)).result.status).toBe('Created');
    // the header works in place of the field
    await b.get('/cabinet');
    expect((await b.post(`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'true']], { header: b.csrf! })).statusCode).toBe(303);
  });

  it('binds the sign-in and sign-up forms to a pre-session cookie', async () => {
    const b = new Browser();
    expect((await b.post('/cabinet/sign-in', [['email', 'a@b.example'], ['password', PASSWORD]], { csrf: null })).statusCode).toBe(403);
    expect((await b.post('/cabinet/sign-up', [['company', 'Nope'], ['email', 'nope@b.example'], ['password', PASSWORD]], { csrf: null })).statusCode).toBe(403);
    const stranger = new Browser();
    await stranger.get('/cabinet/sign-in');
    // a token read by another browser does not fit this browser's cookie
    await b.get('/cabinet/sign-up');
    expect((await b.post('/cabinet/sign-up', [['company', 'Nope'], ['email', 'nope@b.example'], ['password', PASSWORD]], { csrf: stranger.csrf })).statusCode).toBe(403);
  });

  it('puts the hidden _csrf input in every form of every page', async () => {
    const { b } = await signUp('Forms Shop');
    const desk = await createDesk(b);
    const o = await order(desk);
    for (const url of ['/cabinet', '/cabinet/desks', `/cabinet/desks/${desk.id}`, '/cabinet/orders', `/cabinet/orders/${o.id}`, '/cabinet/account']) {
      const body = (await b.get(url)).body;
      const forms = body.match(/<form[^]*?<\/form>/g) ?? [];
      expect(forms.length, url).toBeGreaterThan(0);
      for (const f of forms) expect(f, url).toContain('name="_csrf"');
      expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(body).not.toMatch(/\sstyle=|<style/);
    }
  });
});

describe('sign-in', () => {
  it('signs in with 303 and a cookie, signs out, and a signed-out page leads to sign-in', async () => {
    const { b, email } = await signUp('Session Shop');
    await b.get('/cabinet');
    expect((await b.post('/cabinet/sign-out')).statusCode).toBe(303);
    const out = await b.get('/cabinet/orders');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/cabinet/sign-in');
    await b.get('/cabinet/sign-in');
    const res = await b.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/cabinet');
    expect((await b.get('/cabinet/orders')).statusCode).toBe(200);
    const garbled = await h.app.inject({ method: 'GET', url: '/cabinet', headers: { cookie: 'pg_cabinet=%E0%A4%A' } });
    expect(garbled.statusCode).toBe(303);
  });

  it('answers an unknown email and a wrong password with the same generic message', async () => {
    const { email } = await signUp('Generic Shop');
    const b = new Browser();
    await b.get('/cabinet/sign-in');
    const wrong = await b.post('/cabinet/sign-in', [['email', email], ['password', 'not the password at all']]);
    const unknown = await b.post('/cabinet/sign-in', [['email', 'nobody@nowhere.example'], ['password', 'not the password at all']]);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const message = (r: LightMyRequestResponse) => /role="alert"[^>]*>([^<]+)</.exec(r.body)![1];
    expect(message(wrong)).toBe('Wrong email or password.');
    expect(message(unknown)).toBe(message(wrong));
    expect(wrong.headers['set-cookie'] ?? '').not.toContain('pg_cabinet=');
  });

  it('answers 429 to the 11th attempt in a minute from one address', async () => {
    const b = new Browser();
    await b.get('/cabinet/sign-in');
    // A different account each time: the per-account limit (test/integration/signInLimits.test.ts) stays out of the way.
    for (let i = 1; i <= 10; i++) {
      expect((await b.post('/cabinet/sign-in', [['email', `guess${i}@x.example`], ['password', `guess number ${i}`]])).statusCode, `attempt ${i}`).toBe(401);
    }
    const eleventh = await b.post('/cabinet/sign-in', [['email', 'guess11@x.example'], ['password', 'guess number 11']]);
    expect(eleventh.statusCode).toBe(429);
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
    // another address is not held back
    const c = new Browser();
    await c.get('/cabinet/sign-in');
    expect((await c.post('/cabinet/sign-in', [['email', 'guess@x.example'], ['password', 'guess number 12']])).statusCode).toBe(401);
  });
});

describe('account', () => {
  it('changes the password given the current one and signs out every other session', async () => {
    const { b, email } = await signUp('Password Shop');
    const second = new Browser();
    await second.get('/cabinet/sign-in');
    expect((await second.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(303);
    await b.get('/cabinet/account');
    const wrong = await b.post('/cabinet/account/password', [['currentPassword', 'not it at all'], ['newPassword', 'a brand new passphrase']]);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('The current password is not right.');
    const weak = await b.post('/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'password123']]);
    expect(weak.statusCode).toBe(400);
    const ok = await b.post('/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'a brand new passphrase']]);
    expect(ok.statusCode).toBe(303);
    expect((await second.get('/cabinet')).statusCode).toBe(303);
    expect((await b.get('/cabinet/account')).statusCode).toBe(200);
    const again = new Browser();
    await again.get('/cabinet/sign-in');
    expect((await again.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(401);
    expect((await again.post('/cabinet/sign-in', [['email', email], ['password', 'a brand new passphrase']])).statusCode).toBe(303);
  });

  it('lists the sessions and signs one out; another account’s session handle is 404', async () => {
    const { b, email } = await signUp('Sessions Shop');
    const second = new Browser();
    await second.get('/cabinet/sign-in');
    await second.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]]);
    const page = await b.get('/cabinet/account');
    const handles = [...page.body.matchAll(/action="\/cabinet\/account\/sessions\/([0-9a-f]{16})\/revoke"/g)].map((m) => m[1]!);
    expect(handles.length).toBe(1);
    expect(page.body).toContain('this browser');
    const other = await signUp('Other Sessions Shop');
    await other.b.get('/cabinet/account');
    expect((await other.b.post(`/cabinet/account/sessions/${handles[0]}/revoke`)).statusCode).toBe(404);
    expect((await second.get('/cabinet')).statusCode).toBe(200);
    expect((await b.post(`/cabinet/account/sessions/${handles[0]}/revoke`, [], { csrf: null })).statusCode).toBe(403);
    expect((await b.post(`/cabinet/account/sessions/${handles[0]}/revoke`)).statusCode).toBe(303);
    expect((await second.get('/cabinet')).statusCode).toBe(303);
  });
});

describe('orders list and CSV', () => {
  let b: CabinetBrowser;
  let desk: DeskCreds;
  beforeAll(async () => {
    ({ b } = await signUp('Csv Shop'));
    desk = await createDesk(b);
  });

  const parseCsv = (text: string) => {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
        else if (ch === '"') quoted = false;
        else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') row.push(cell), (cell = '');
      else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
      else cell += ch;
    }
    return rows;
  };

  it('exports the spec columns with RFC 4180 quoting and inert formulas', async () => {
    const refs = ['=HYPERLINK("http://evil.example")', '+1', '-2', '@SUM(A1)', 'plain, with comma', 'say "hi"', 'ok-ref'];
    for (const ref of refs) await order(desk, { amount: 100, rail: 'Sbp', orderRef: ref });
    const res = await b.get('/cabinet/orders.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toContain('attachment');
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual(['id', 'orderRef', 'createdAt', 'status', 'amount', 'currency', 'rate', 'settledUsd', 'commissionUsd', 'creditedUsd', 'deskId', 'method', 'rail', 'payerReference', 'finishedAt', 'paidAmount']);
    const byRef = rows.slice(1).map((r) => r[1]);
    // newest first
    expect(byRef.slice(0, refs.length)).toEqual(
      ['ok-ref', 'say "hi"', 'plain, with comma', "'@SUM(A1)", "'-2", "'+1", `'=HYPERLINK("http://evil.example")`],
    );
    expect(res.body).toContain('"\'=HYPERLINK(""http://evil.example"")"');
    const first = rows[1]!;
    expect(first[3]).toBe('Created');
    expect(first[4]).toBe('100.00');
    expect(first[5]).toBe('RUB');
    expect(first[10]).toBe(desk.id);
    expect(first[14]).toBe('');
  });

  it('filters like the list page and caps the export at 200 rows', async () => {
    for (let i = 0; i < 200; i++) await order(desk, { amount: 10 + i, rail: 'C2c' });
    const all = parseCsv((await b.get('/cabinet/orders.csv')).body);
    expect(all.length).toBe(201);
    const one = parseCsv((await b.get('/cabinet/orders.csv?q=ok-ref')).body);
    expect(one.length).toBe(2);
    expect(one[1]![1]).toBe('ok-ref');
    expect(parseCsv((await b.get('/cabinet/orders.csv?status=Completed')).body).length).toBe(1);
    // the list pages by key: following "older" links reaches every order exactly once
    const seen = new Set<string>();
    let url: string | null = '/cabinet/orders?desk=' + desk.id;
    while (url) {
      const page = await b.get(url);
      for (const m of page.body.matchAll(/href="\/cabinet\/orders\/(ord_[A-Za-z0-9]+)"/g)) seen.add(m[1]!);
      const next = /href="(\/cabinet\/orders\?[^"]*before=[^"]+)" rel="next"/.exec(page.body);
      url = next ? next[1]!.replace(/&amp;/g, '&') : null;
    }
    expect(seen.size).toBe(207);
    const bad = await b.get('/cabinet/orders?from=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('From: must be an ISO 8601 date');
  });
});

/** The merchant id of a cabinet merchant, as an operator finds it. */
async function merchantIdOf(name: string): Promise<string> {
  const list = json(await admin(h.app, 'GET', '/merchants?limit=500')).result.items as { id: string; name: string }[];
  return list.find((m) => m.name === name)!.id;
}

describe('two-factor sign-in', () => {
  it('enrols with the secret, then asks for a code after the password; a recovery code works once; turning off needs the password', async () => {
    const { b, email } = await signUp('Totp Shop');
    const account = await b.get('/cabinet/account');
    expect(account.body).toContain('Turn on two-factor sign-in');
    expect((await b.post('/cabinet/account/two-factor')).headers.location).toBe('/cabinet/account/two-factor');
    const enrol = await b.get('/cabinet/account/two-factor');
    expect(enrol.body).toContain('<svg');
    const secret = base32Decode(/data-copy="two-factor key">([A-Z2-7 ]+)</.exec(enrol.body)![1]!.replace(/ /g, ''))!;
    const code = (at = h.clock.now()) => hotp(secret, totpStep(at));

    expect((await b.post('/cabinet/account/two-factor/confirm', [['code', '000000' === code() ? '111111' : '000000']])).statusCode).toBe(400);
    const on = await b.post('/cabinet/account/two-factor/confirm', [['code', code()]]);
    expect(on.statusCode).toBe(200);
    const recovery = [...on.body.matchAll(/<li>([0-9a-f]{5}-[0-9a-f]{5})<\/li>/g)].map((m) => m[1]!);
    expect(recovery).toHaveLength(10);
    expect((await b.get('/cabinet/account')).body).toContain('10 of 10 recovery codes left');

    // sign-in: the password alone gives no session, only the code form
    const fresh = new Browser();
    await fresh.get('/cabinet/sign-in');
    const step1 = await fresh.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]]);
    expect(step1.statusCode).toBe(200);
    expect(fresh.cookies.has('pg_cabinet')).toBe(false);
    expect(step1.body).toContain('name="challenge"');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step1.body)![1]!;
    h.clock.advance(31_000);
    const wrong = await fresh.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', '12345x']]);
    expect(wrong.statusCode).toBe(401);
    expect(fresh.cookies.has('pg_cabinet')).toBe(false);
    const good = await fresh.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', code()]]);
    expect(good.statusCode).toBe(303);
    expect(good.headers.location).toBe('/cabinet');
    expect(fresh.cookies.has('pg_cabinet')).toBe(true);

    // a recovery code signs in once; a forged or stale challenge leads back to the password
    const viaRecovery = new Browser();
    await viaRecovery.get('/cabinet/sign-in');
    const c2 = /name="challenge" value="([^"]+)"/.exec((await viaRecovery.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]])).body)![1]!;
    expect((await viaRecovery.post('/cabinet/sign-in/code', [['challenge', c2], ['code', recovery[0]!]])).statusCode).toBe(303);
    const again = new Browser();
    await again.get('/cabinet/sign-in');
    const c3 = /name="challenge" value="([^"]+)"/.exec((await again.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]])).body)![1]!;
    expect((await again.post('/cabinet/sign-in/code', [['challenge', c3], ['code', recovery[0]!]])).statusCode).toBe(401);
    expect((await again.post('/cabinet/sign-in/code', [['challenge', `${c3}x`], ['code', recovery[1]!]])).headers.location).toBe('/cabinet/sign-in?expired=1');
    h.clock.advance(6 * 60_000);
    expect((await again.post('/cabinet/sign-in/code', [['challenge', c3], ['code', recovery[1]!]])).statusCode).toBe(303);
    expect(again.cookies.has('pg_cabinet')).toBe(false);

    // new recovery codes and turning off both want the password
    await b.get('/cabinet/account');
    expect((await b.post('/cabinet/account/two-factor/disable', [['password', 'not the password']])).statusCode).toBe(400);
    const regenerated = await b.post('/cabinet/account/two-factor/recovery-codes', [['password', PASSWORD]]);
    expect(regenerated.statusCode).toBe(200);
    expect(regenerated.body).not.toContain(recovery[1]!);
    await b.get('/cabinet/account');
    expect((await b.post('/cabinet/account/two-factor/disable', [['password', PASSWORD]])).headers.location).toBe('/cabinet/account?done=two-factor-off');
    const plain = new Browser();
    await plain.get('/cabinet/sign-in');
    expect((await plain.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(303);
  });

  it('counts code guesses against the sign-in limit of 10 a minute per address', async () => {
    const guesser = new Browser();
    await guesser.get('/cabinet/sign-in');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await guesser.post('/cabinet/sign-in/code', [['challenge', 'usr_x.1.y'], ['code', '123456']])).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 303)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('balance', () => {
  it('shows the sandbox money apart from the live money, credits linked to their orders, totals per day and the 30-day chart; sandbox money is not withdrawable', async () => {
    const { b } = await signUp('Balance Shop');
    const desk = await createDesk(b);
    const o = await order(desk);
    await b.get(`/cabinet/orders/${o.id}`);
    expect((await b.post(`/cabinet/orders/${o.id}/simulate-payment`)).statusCode).toBe(303);
    const balance = json(await signed(h, desk, '/gw/v1/balance')).result;
    expect(balance.mode).toBe('sandbox');
    expect(Number(balance.available)).toBeGreaterThan(1);

    const merchantId = await merchantIdOf('Balance Shop');
    const w = await admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd: '1.25', reference: 'payout <#1>' });
    expect(w.statusCode, w.body).toBe(409);
    expect(json(w).fault.code).toBe('INSUFFICIENT_BALANCE');

    const orderPage = (await b.get(`/cabinet/orders/${o.id}`)).body;
    expect(orderPage).toContain('<strong>Created → Completed</strong>');
    expect(orderPage).toMatch(/<strong>Credited<\/strong> <span class="muted"><span class="money" title="Exact: \d+\.\d{8} USD"[^>]*>\d+\.\d{2} USD/);

    const page = await b.get('/cabinet/balance');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<h2 id="live-h">Live balance<\/h2>\s*<p class="figure" id="live-balance"><span class="money" title="Exact: 0\.00000000 USD"/);
    expect(page.body).toMatch(new RegExp(`<h2 id="sandbox-h">Sandbox balance <span class="badge ok">API balance</span></h2>\\s*<p class="figure" id="sandbox-balance"><span class="money" title="Exact: ${balance.available.replace('.', '\\.')} USD"`));
    expect(page.body).toContain('<span class="badge">Sandbox</span>');
    // The refused withdrawal left nothing on the page: not its reference, escaped or not.
    expect(page.body).not.toContain('payout &lt;#1&gt;');
    expect(page.body).not.toContain('payout <#1>');
    expect(page.body).toContain(`href="/cabinet/orders/${o.id}"`);
    expect(page.body).toContain('<svg viewBox');
    expect(page.body).toContain('role="img"');
    expect(page.body).toContain('<th scope="row">2026-01-15</th>');

    // another merchant sees none of it
    const { b: other } = await signUp('Other Balance Shop');
    const theirs = await other.get('/cabinet/balance');
    expect(theirs.body).not.toContain(o.id);
    expect((await b.get('/cabinet/balance?before=x')).statusCode).toBe(400);
  });
});

describe('isolation between merchants', () => {
  it('answers 404 to another merchant’s desk and order on every page and action, and lists none of them', async () => {
    const mine = await signUp('Mine Shop');
    const theirs = await provisionDesk(h.app, { merchant: { name: 'Their Shop' } });
    const theirOrder = await order(theirs);
    const b = mine.b;
    await b.get('/cabinet');
    for (const url of [`/cabinet/desks/${theirs.id}`, `/cabinet/orders/${theirOrder.id}`]) {
      const res = await b.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain(theirs.key);
    }
    const actions: [string, [string, string][]][] = [
      [`/cabinet/desks/${theirs.id}/enabled`, [['enabled', 'false']]],
      [`/cabinet/desks/${theirs.id}/secret`, []],
      [`/cabinet/orders/${theirOrder.id}/resend`, []],
      [`/cabinet/orders/${theirOrder.id}/simulate-payment`, []],
    ];
    for (const [url, fields] of actions) expect((await b.post(url, fields)).statusCode, url).toBe(404);
    expect((await signed(h, theirs, '/gw/v1/methods')).statusCode).toBe(200);
    expect(json(await signed(h, theirs, `/gw/v1/orders/${theirOrder.id}`)).result.status).toBe('Created');
    expect((await b.get(`/cabinet/orders?desk=${theirs.id}`)).body).not.toContain(theirOrder.id);
    expect((await b.get(`/cabinet/orders?q=${theirOrder.id}`)).body).not.toContain(`/cabinet/orders/${theirOrder.id}`);
    expect((await b.get(`/cabinet/orders.csv?q=${theirOrder.id}`)).body.trim().split('\r\n').length).toBe(1);
    expect((await b.get('/cabinet/desks')).body).not.toContain(theirs.id);
  });
});

describe('self sign-up turned off', () => {
  it('answers 404 on both sign-up routes with CABINET_SIGNUP=closed; operator-created users still sign in', async () => {
    const closed = await createHarness({ env: { CABINET_SIGNUP: 'closed' } });
    try {
      expect((await closed.app.inject({ method: 'GET', url: '/cabinet/sign-up' })).statusCode).toBe(404);
      expect((await closed.app.inject({ method: 'POST', url: '/cabinet/sign-up', payload: 'company=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(404);
      const page = await closed.app.inject({ method: 'GET', url: '/cabinet/sign-in' });
      expect(page.body).not.toContain('/cabinet/sign-up');
      const m = json(await admin(closed.app, 'POST', '/merchants', { name: 'Invited', sandbox: true })).result;
      expect((await admin(closed.app, 'POST', `/merchants/${m.id}/users`, { email: 'staff@invited.example', password: PASSWORD })).statusCode).toBe(201);
      const pre = String(([] as string[]).concat(page.headers['set-cookie'] ?? [])[0]).split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
      const res = await closed.app.inject({
        method: 'POST',
        url: '/cabinet/sign-in',
        headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: 'staff@invited.example', password: PASSWORD, _csrf: csrf }).toString(),
      });
      expect(res.statusCode).toBe(303);
    } finally {
      await closed.close();
    }
  });
});
