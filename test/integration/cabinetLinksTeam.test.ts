import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { cabinetKit, DESK_FORM, PASSWORD, type CabinetBrowser } from '../helpers/cabinet.js';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';

/*
 * The cabinet's payment links and team, over HTTP as a browser uses them: a link's Pay button
 * creates a fresh order each time (opening the link creates nothing, see paymentLinks.test.ts) and
 * the link answers 410 once off or expired; an owner invites members by a single-use link and
 * their role decides what they may post.
 */

let h: Harness;
const { Browser, signUp, createDesk } = cabinetKit(() => h);

beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' }, unlimitedOrders: true });
  for (const [code, rate] of [['RUB', '91.8'], ['INR', '84.2']]) {
    await admin(h.app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', `/rates/${code}`, { rate });
  }
}, 600_000);
afterAll(() => h?.close());

async function merchantIdOf(name: string): Promise<string> {
  const list = json(await admin(h.app, 'GET', '/merchants?limit=500')).result.items as { id: string; name: string }[];
  return list.find((m) => m.name === name)!.id;
}

const linkFields = (deskId: string, over: Record<string, string> = {}): [string, string][] =>
  Object.entries({ amount: '1500.50', currency: 'RUB', deskId, description: 'Blue teapot, 1 l', expiresAt: '', ...over });

/** Opens a link as a customer's browser does (no cookies). */
const open = (path: string, method: 'GET' | 'HEAD' = 'GET') => h.app.inject({ method, url: path, remoteAddress: '192.0.2.77' });
/** Presses the link's Pay button: its form posts nothing but itself. */
const pay = (path: string) =>
  h.app.inject({ method: 'POST', url: path, remoteAddress: '192.0.2.77', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });

describe('payment links', () => {
  let b: CabinetBrowser;
  let desk: DeskCreds;
  beforeAll(async () => {
    ({ b } = await signUp('Link Shop'));
    desk = await createDesk(b);
  });

  it('creates /l/{lnk_…}; each press of Pay is a new order with a fresh orderRef and the description, 303 to its payment page', async () => {
    await b.get('/cabinet/links');
    const res = await b.post('/cabinet/links', linkFields(desk.id));
    expect(res.statusCode, res.body).toBe(201);
    const path = /https:\/\/pay\.example\.test(\/l\/lnk_[0-9a-z]{26})/.exec(res.body)![1]!;
    const linkId = path.slice(3);

    const shown = await open(path);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain(`<form method="post" action="${path}"`);
    const first = await pay(path);
    expect(first.statusCode).toBe(303);
    const o1 = /^\/pay\/(ord_[0-9a-z]{26})$/.exec(String(first.headers.location))![1]!;
    const second = await pay(path);
    const o2 = /^\/pay\/(ord_[0-9a-z]{26})$/.exec(String(second.headers.location))![1]!;
    expect(o2).not.toBe(o1);

    const read = json(await signed(h, desk, `/gw/v1/orders/${o1}`)).result;
    expect(read).toMatchObject({ orderRef: `${linkId}-1`, amount: '1500.50', currency: 'RUB', rail: 'Sbp', status: 'Created' });
    expect(json(await signed(h, desk, `/gw/v1/orders/${o2}`)).result.orderRef).toBe(`${linkId}-2`);
    // the description is the order's: in the API's reads and in the payment page's data
    expect(read.description).toBe('Blue teapot, 1 l');
    expect(json(await h.app.inject({ method: 'GET', url: `/api/pay/${o1}` })).result.description).toBe('Blue teapot, 1 l');
    const payPage = await h.app.inject({ method: 'GET', url: `/pay/${o1}` });
    expect(payPage.statusCode).toBe(200);
    expect(payPage.body).toContain('<span id="description" dir="auto">Blue teapot, 1 l</span>');
    expect((await h.app.inject({ method: 'GET', url: `/pay/${o1}?lang=ru` })).body).toContain('Назначение платежа');
    expect(json(await admin(h.app, 'GET', `/orders/${o1}`)).result.description).toBe('Blue teapot, 1 l');
    const apiOrder = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) })).result;
    expect(json(await signed(h, desk, `/gw/v1/orders/${apiOrder.id}`)).result.description).toBeNull();

    // the cabinet lists the link with its orders, and the order page shows the description
    const list = (await b.get('/cabinet/links')).body;
    expect(list).toContain(linkId);
    expect(list).toContain(o1);
    expect(list).toContain(o2);
    expect(list).toContain('1,500.50 RUB');
    const page = await b.get(`/cabinet/links/${linkId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/cabinet/orders/${o1}"`);
    expect((await b.get(`/cabinet/orders/${o1}`)).body).toContain('Blue teapot, 1 l');

    // a link preview (HEAD) creates nothing
    expect((await open(path, 'HEAD')).statusCode).toBe(200);
    const count = await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_link_orders WHERE link_id = $1', [linkId]);
    expect(count.rows[0]!.n).toBe(2);

    // switched off: 410, and nothing is created; on again: orders again
    await b.get('/cabinet/links');
    const off = await b.post(`/cabinet/links/${linkId}/enabled`, [['enabled', 'false']]);
    expect(off.statusCode).toBe(303);
    const gone = await open(path);
    expect(gone.statusCode).toBe(410);
    expect((await pay(path)).statusCode).toBe(410);
    expect(gone.headers['content-type']).toContain('text/html');
    expect((await b.get('/cabinet/links')).body).toContain('>Off<');
    await b.post(`/cabinet/links/${linkId}/enabled`, [['enabled', 'true']]);
    expect((await pay(path)).statusCode).toBe(303);
  });

  it('works on a desk without a callback URL: the order is placed, read and paid, its events kept in the feed', async () => {
    const noCallback = await createDesk(b, DESK_FORM.filter(([k]) => k !== 'callbackUrl'));
    // the desk cannot take API orders without a notifyUrl, but its links work
    expect(json(await signed(h, noCallback, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) })).fault.code).toBe('CALLBACK_URL_REQUIRED');
    await b.get('/cabinet/links');
    const res = await b.post('/cabinet/links', linkFields(noCallback.id, { description: 'Gift card, 50 €' }));
    expect(res.statusCode, res.body).toBe(201);
    const path = /(\/l\/lnk_[0-9a-z]{26})/.exec(res.body)![1]!;
    const opened = await pay(path);
    expect(opened.statusCode).toBe(303);
    const orderId = /^\/pay\/(ord_[0-9a-z]{26})$/.exec(String(opened.headers.location))![1]!;
    expect(json(await signed(h, noCallback, `/gw/v1/orders/${orderId}`)).result).toMatchObject({ status: 'Created', description: 'Gift card, 50 €' });
    expect((await h.app.inject({ method: 'GET', url: `/pay/${orderId}` })).body).toContain('Gift card, 50 €');
    // the merchant sees it in the cabinet and can complete the sandbox order there
    expect((await b.get('/cabinet/orders')).body).toContain(orderId);
    await b.get(`/cabinet/orders/${orderId}`);
    expect((await b.post(`/cabinet/orders/${orderId}/simulate-payment`)).statusCode).toBe(303);
    expect(json(await signed(h, noCallback, `/gw/v1/orders/${orderId}`)).result.status).toBe('Completed');
    // nothing is sent anywhere, but the events are there for the feed
    const events = json(await signed(h, noCallback, '/gw/v1/events', { query: `orderId=${orderId}` })).result.events as { event: string }[];
    expect(events.map((e) => e.event)).toContain('order.completed');
    const urls = await h.ctx.db.query<{ url: string | null }>('SELECT url FROM outbox_events WHERE order_id = $1', [orderId]);
    expect(urls.rows.map((r) => r.url)).toEqual(urls.rows.map(() => null));
    // delivery records them as not sent (suppressed), so the callbacks page lists no failure
    const worker = new DeliveryWorker(h.ctx, { timeoutMs: 300 });
    try {
      while ((await worker.runOnce()) > 0);
    } finally {
      await worker.close();
    }
    const states = await h.ctx.db.query<{ state: string }>('SELECT state FROM outbox_events WHERE order_id = $1', [orderId]);
    expect(states.rows.map((r) => r.state)).toEqual(states.rows.map(() => 'suppressed'));
    const orderPage = (await b.get(`/cabinet/orders/${orderId}`)).body;
    expect(orderPage).toContain('no callback URL');
    expect(orderPage).toContain('made without a callback URL');
    expect(orderPage).not.toContain(`action="/cabinet/orders/${orderId}/resend"`);
    expect((await b.get('/cabinet/callbacks')).body).not.toContain(orderId);
  });

  it('answers 410 past its expiry and 404 to an unknown link', async () => {
    await b.get('/cabinet/links');
    const res = await b.post('/cabinet/links', linkFields(desk.id, { expiresAt: '2026-01-15T13:00' }));
    expect(res.statusCode, res.body).toBe(201);
    const path = /(\/l\/lnk_[0-9a-z]{26})/.exec(res.body)![1]!;
    expect((await pay(path)).statusCode).toBe(303);
    h.clock.advance(3_600_000);
    expect((await open(path)).statusCode).toBe(410);
    h.clock.advance(-3_600_000);
    // a time already past is taken, and said: the link answers 410 from the start
    const late = await b.post('/cabinet/links', linkFields(desk.id, { expiresAt: '2026-01-01T00:00:00Z' }));
    expect(late.statusCode).toBe(201);
    expect(late.body).toContain('already passed');
    expect((await open(/(\/l\/lnk_[0-9a-z]{26})/.exec(late.body)![1]!)).statusCode).toBe(410);
    // a date alone runs to the end of that UTC day
    const day = await b.post('/cabinet/links', linkFields(desk.id, { expiresAt: '2026-01-15' }));
    expect(day.body).toContain('2026-01-16 00:00:00 UTC');
    expect((await open('/l/lnk_00000000000000000000000000')).statusCode).toBe(404);
    expect((await open('/l/nonsense')).statusCode).toBe(404);
  });

  it('refuses an impossible link beside the form with the values kept, and creates nothing', async () => {
    const before = await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
    await b.get('/cabinet/links');
    const inr = await b.post('/cabinet/links', linkFields(desk.id, { currency: 'INR', description: 'Tea <b>set</b>' }));
    expect(inr.statusCode).toBe(400);
    expect(inr.body).toContain('No link was created');
    expect(inr.body).toContain('the desk takes RUB');
    expect(inr.body).toContain('value="Tea &lt;b&gt;set&lt;/b&gt;"');
    for (const amount of ['0', '-5', '1.234', '1e3', 'abc']) {
      const bad = await b.post('/cabinet/links', linkFields(desk.id, { amount }));
      expect(bad.statusCode, amount).toBe(400);
      expect(bad.body).toContain(`value="${amount}"`);
    }
    expect((await b.post('/cabinet/links', linkFields(desk.id, { expiresAt: 'next week' }))).statusCode).toBe(400);
    expect((await b.post('/cabinet/links', linkFields(desk.id, { description: '' }))).statusCode).toBe(400);
    // another merchant's desk is not found
    const theirs = await provisionDesk(h.app, { merchant: { name: 'Their Link Shop' } });
    expect((await b.post('/cabinet/links', linkFields(theirs.id))).statusCode).toBe(404);
    const after = await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('hides another merchant’s links: 404 on the page and the switch', async () => {
    await b.get('/cabinet/links');
    const path = /(\/l\/lnk_[0-9a-z]{26})/.exec((await b.post('/cabinet/links', linkFields(desk.id))).body)![1]!;
    const linkId = path.slice(3);
    const { b: other } = await signUp('Other Link Shop');
    expect((await other.get(`/cabinet/links/${linkId}`)).statusCode).toBe(404);
    await other.get('/cabinet/links');
    expect((await other.post(`/cabinet/links/${linkId}/enabled`, [['enabled', 'false']])).statusCode).toBe(404);
    expect((await other.get('/cabinet/links')).body).not.toContain(linkId);
    expect((await pay(path)).statusCode).toBe(303);
  });
});

describe('team', () => {
  const invite = async (owner: CabinetBrowser, email: string, role: string) => {
    await owner.get('/cabinet/team');
    const res = await owner.post('/cabinet/team', [['email', email], ['role', role]]);
    expect(res.statusCode, res.body).toBe(201);
    return /\/cabinet\/invite\/(inv_[A-Za-z0-9_-]{43})/.exec(res.body)![1]!;
  };
  const accept = async (token: string) => {
    const b = new Browser();
    const page = await b.get(`/cabinet/invite/${token}`);
    expect(page.statusCode, page.body).toBe(200);
    const res = await b.post(`/cabinet/invite/${token}`, [['password', PASSWORD]]);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/cabinet');
    await b.get('/cabinet');
    return b;
  };

  it('invites by a single-use link kept only as a hash; the invitee sets a password and is signed in with the role', async () => {
    const { b: owner } = await signUp('Team Shop');
    const token = await invite(owner, 'dev@teamshop.example', 'developer');
    const stored = await h.ctx.db.query<{ token_hash: string }>('SELECT token_hash FROM user_invitations WHERE email = $1', ['dev@teamshop.example']);
    expect(stored.rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify((await h.ctx.db.query('SELECT * FROM user_invitations')).rows)).not.toContain(token);
    // the link is shown once: the team page lists the invitation, never its link
    const team = (await owner.get('/cabinet/team')).body;
    expect(team).toContain('dev@teamshop.example');
    expect(team).not.toContain(token);

    const weak = new Browser();
    await weak.get(`/cabinet/invite/${token}`);
    expect((await weak.post(`/cabinet/invite/${token}`, [['password', 'password123']])).statusCode).toBe(400);
    const dev = await accept(token);
    const home = (await dev.get('/cabinet')).body;
    expect(home).toContain('dev@teamshop.example');
    expect(home).toContain('>developer<');
    // used: the link answers 410 from now on
    expect((await new Browser().get(`/cabinet/invite/${token}`)).statusCode).toBe(410);
    // the owner sees the member with the role
    expect((await owner.get('/cabinet/team')).body).toMatch(/dev@teamshop\.example[^]*?developer/);
  });

  it('lapses after 7 days', async () => {
    const { b: owner } = await signUp('Slow Team Shop');
    const token = await invite(owner, 'late@slowteam.example', 'viewer');
    h.clock.advance(7 * 86_400_000 + 1000);
    try {
      expect((await new Browser().get(`/cabinet/invite/${token}`)).statusCode).toBe(410);
    } finally {
      h.clock.advance(-(7 * 86_400_000 + 1000));
    }
  });

  it('a developer works with desks and links but not the team; a viewer posts nothing but sign-out, their password and two-factor (403)', async () => {
    const { b: owner } = await signUp('Roles Shop');
    const desk = await createDesk(owner);
    const dev = await accept(await invite(owner, 'dev@roles.example', 'developer'));
    const viewer = await accept(await invite(owner, 'viewer@roles.example', 'viewer'));

    await dev.get('/cabinet/desks');
    expect((await dev.post('/cabinet/desks', DESK_FORM)).statusCode).toBe(201);
    await dev.get('/cabinet/links');
    expect((await dev.post('/cabinet/links', linkFields(desk.id))).statusCode).toBe(201);
    await dev.get('/cabinet/team');
    const refused = await dev.post('/cabinet/team', [['email', 'x@roles.example'], ['role', 'owner']]);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.body).toContain('Only an owner');

    const before = await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM desks');
    const viewerPosts: [string, [string, string][]][] = [
      ['/cabinet/desks', DESK_FORM],
      [`/cabinet/desks/${desk.id}/enabled`, [['enabled', 'false']]],
      [`/cabinet/desks/${desk.id}/secret`, []],
      [`/cabinet/desks/${desk.id}/settings`, DESK_FORM],
      ['/cabinet/links', linkFields(desk.id)],
      ['/cabinet/team', [['email', 'y@roles.example'], ['role', 'viewer']]],
      ['/cabinet/callbacks/redeliver', [['since', '2026-01-15T00:00']]],
    ];
    for (const [url, fields] of viewerPosts) {
      await viewer.get('/cabinet');
      const res = await viewer.post(url, fields);
      expect(res.statusCode, url).toBe(403);
      expect(res.headers['content-type'], url).toContain('text/html');
    }
    await viewer.get('/cabinet/appeals');
    expect((await viewer.upload('/cabinet/appeals', [{ name: 'orderId', value: 'ord_x' }, { name: 'reason', value: 'paid' }])).statusCode).toBe(403);
    expect((await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM desks')).rows[0]!.n).toBe(before.rows[0]!.n);
    expect((await signed(h, desk, '/gw/v1/methods')).statusCode).toBe(200);
    // a viewer reads every page, without the forms it may not use
    const deskPage = await viewer.get(`/cabinet/desks/${desk.id}`);
    expect(deskPage.statusCode).toBe(200);
    expect(deskPage.body).not.toContain('Issue a new secret');
    // its own sign-in: two-factor, password, sign-out
    await viewer.get('/cabinet/account');
    expect((await viewer.post('/cabinet/account/two-factor')).statusCode).toBe(303);
    await viewer.get('/cabinet/account');
    expect((await viewer.post('/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'a viewer passphrase 2026']])).statusCode).toBe(303);
    await viewer.get('/cabinet');
    expect((await viewer.post('/cabinet/sign-out')).statusCode).toBe(303);
  });

  it('an owner changes roles and removes members, never the last owner; a removed member’s sessions end at once', async () => {
    const { b: owner } = await signUp('Owners Shop');
    const member = await accept(await invite(owner, 'second@owners.example', 'viewer'));
    const merchantId = await merchantIdOf('Owners Shop');
    const users = async () => (await h.ctx.db.query<{ id: string; email: string; role: string }>('SELECT id, email, role FROM users WHERE merchant_id = $1', [merchantId])).rows;
    const ownerId = (await users()).find((u) => u.role === 'owner')!.id;
    const memberId = (await users()).find((u) => u.email === 'second@owners.example')!.id;

    // The page offers the last owner no role change and no way out; the other member has both.
    const page = (await owner.get('/cabinet/team')).body;
    expect(page).not.toContain(`action="/cabinet/team/${ownerId}/role"`);
    expect(page).not.toContain(`action="/cabinet/team/${ownerId}/remove"`);
    expect(page).toContain('The last owner');
    expect(page).toContain(`action="/cabinet/team/${memberId}/role"`);
    const last = await owner.post(`/cabinet/team/${ownerId}/role`, [['role', 'developer']]);
    expect(last.statusCode).toBe(409);
    expect(last.body).toContain('at least one owner');
    expect((await owner.post(`/cabinet/team/${ownerId}/remove`)).statusCode).toBe(409);
    expect((await owner.post(`/cabinet/team/${memberId}/role`, [['role', 'owner']])).statusCode).toBe(303);
    expect((await users()).find((u) => u.id === memberId)!.role).toBe('owner');
    // With two owners, each may step down or leave.
    expect((await owner.get('/cabinet/team')).body).toContain(`action="/cabinet/team/${ownerId}/remove"`);
    // with two owners, either may step down
    expect((await owner.post(`/cabinet/team/${memberId}/role`, [['role', 'viewer']])).statusCode).toBe(303);
    expect((await owner.post(`/cabinet/team/${memberId}/role`, [['role', 'boss']])).statusCode).toBe(400);
    expect((await member.get('/cabinet')).statusCode).toBe(200);
    expect((await owner.post(`/cabinet/team/${memberId}/remove`)).statusCode).toBe(303);
    expect((await member.get('/cabinet')).statusCode).toBe(303);
    expect((await users()).map((u) => u.id)).toEqual([ownerId]);
    // another merchant's member is not found
    const other = await signUp('Not Owners Shop');
    await other.b.get('/cabinet/team');
    expect((await other.b.post(`/cabinet/team/${ownerId}/remove`)).statusCode).toBe(404);
  });

  it('refuses an invitation for an email that has an account, keeping what was typed', async () => {
    const { b: owner, email } = await signUp('Taken Team Shop');
    await owner.get('/cabinet/team');
    const res = await owner.post('/cabinet/team', [['email', email], ['role', 'viewer']]);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain(`value="${email}"`);
    const bad = await owner.post('/cabinet/team', [['email', 'not an email'], ['role', 'viewer']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="not an email"');
  });

  it('POST /admin/v1/merchants/{id}/users takes a role (default owner) and returns it', async () => {
    const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Admin Roles', sandbox: true })).result;
    const owner = await admin(h.app, 'POST', `/merchants/${m.id}/users`, { email: 'first@adminroles.example', password: PASSWORD });
    expect(owner.statusCode, owner.body).toBe(201);
    expect(json(owner).result).toMatchObject({ email: 'first@adminroles.example', merchantId: m.id, role: 'owner' });
    const viewer = await admin(h.app, 'POST', `/merchants/${m.id}/users`, { email: 'viewer@adminroles.example', password: PASSWORD, role: 'viewer' });
    expect(json(viewer).result.role).toBe('viewer');
    const bad = await admin(h.app, 'POST', `/merchants/${m.id}/users`, { email: 'x@adminroles.example', password: PASSWORD, role: 'admin' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).fault.code).toBe('VALIDATION_ERROR');
  });
});

describe('banner of desks no live provider serves', () => {
  it('shows, once the merchant is approved, the desks that cannot take live orders, by name', async () => {
    const { b } = await signUp('Banner Shop');
    await createDesk(b, [
      ['name', 'Rupee desk'],
      ['method', 'CrossBorder'],
      ['rails', 'Upi'],
      ['currencies', 'INR'],
      ['callbackUrl', 'https://merchant.example/callbacks'],
      ['callbacksEnabled', 'true'],
    ]);
    expect((await b.get('/cabinet')).body).not.toContain('cannot take live orders');
    // The desk was made while no default tariff existed: approval gives it the default, which must exist (TARIFF_REQUIRED).
    expect((await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true })).statusCode).toBe(201);
    const approved = await admin(h.app, 'POST', `/merchants/${await merchantIdOf('Banner Shop')}/approve`);
    expect(json(approved).result.warnings.length).toBe(1);
    for (const url of ['/cabinet', '/cabinet/desks']) {
      const body = (await b.get(url)).body;
      expect(body).toContain('cannot take live orders');
      expect(body).toContain('Rupee desk (dsk_');
    }
  });
});
