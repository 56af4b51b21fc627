import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { createLink, setMerchantLinkEnabled } from '../../src/services/links.js';
import { forgetOldLinkClients, LINK_CLIENTS_KEPT_DAYS } from '../../src/workers/maintenance.js';

/*
 * Payment links cannot be drained by strangers: opening `/l/{id}` shows the amount, the description
 * and a Pay button and creates nothing; only the button's POST creates an order (303 to its payment
 * page), at most 3 open per link and client address; a link whose desk nothing can serve says so
 * and creates nothing. Run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' }, unlimitedOrders: true });
}, 600_000);
afterAll(() => h?.close());

const AMOUNT = '1500.00';
/** Six requisites of the platform's pool: each open order of one amount takes one of its own. */
const REQUISITES = Array.from({ length: 6 }, (_, i) => ({ phone: `+7900000010${i}`, holder: `Holder ${i}`, bank: 'Bank' }));

const get = (path: string, ip: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url: path, remoteAddress: ip, headers });
/** The Pay button as a browser sends it: an empty form. */
const pay = (path: string, ip: string, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'POST', url: path, remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: '' });

async function count(sql: string, params: unknown[]): Promise<number> {
  return (await h.ctx.db.query<{ n: number }>(sql, params)).rows[0]!.n;
}
const ordersOf = (deskId: string) => count('SELECT count(*)::int AS n FROM orders WHERE desk_id = $1', [deskId]);
const assignments = (providerId: string) =>
  count("SELECT count(*)::int AS n FROM requisite_assignments WHERE provider_id = $1 AND (order_status IS NULL OR order_status IN ('Created', 'Payed'))", [providerId]);
const openingsOf = (linkId: string) => count('SELECT count(*)::int AS n FROM payment_link_openings WHERE link_id = $1', [linkId]);
const openedOf = (linkId: string) => count('SELECT opened AS n FROM payment_links WHERE id = $1', [linkId]);
const orderIn = (location: unknown) => /^\/pay\/(ord_[0-9a-z]{26})$/.exec(String(location))?.[1] ?? null;

async function linkOn(desk: DeskCreds, over: Partial<Parameters<typeof createLink>[2]> = {}) {
  return createLink(h.ctx, desk.merchantId, { amount: AMOUNT, currency: 'RUB', deskId: desk.id, description: 'Blue teapot, 1 l', expiresAt: null, rail: null, ...over });
}

describe('a live link on a pool of six requisites', () => {
  let shop: DeskCreds;
  let other: DeskCreds;
  let poolId: string;
  let path: string;
  let linkId: string;

  beforeAll(async () => {
    shop = await provisionDesk(h.app, { merchant: { name: 'Teapot Shop', approve: true }, desk: { rails: ['C2c'] } });
    other = await provisionDesk(h.app, { merchant: { name: 'Neighbour Shop', approve: true }, desk: { rails: ['C2c'] } });
    const pool = await admin(h.app, 'POST', '/providers', {
      name: 'Pool',
      kind: 'pool',
      priority: 1,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: REQUISITES,
    });
    expect(pool.statusCode, pool.body).toBe(201);
    poolId = json(pool).result.id;
    const link = await linkOn(shop);
    linkId = link.id;
    path = link.path;
  });

  it('a stranger opening it 100 times takes no requisite and creates no order; the page shows name, amount, description and the Pay button', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await get(path, '203.0.113.66');
      expect(res.statusCode, res.body).toBe(200);
      if (i === 0) {
        expect(res.headers['content-type']).toContain('text/html');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body).toContain('<html lang="en">');
        expect(res.body).toContain('Payment to Teapot Shop');
        expect(res.body).toContain('<span id="description" dir="auto">Blue teapot, 1 l</span>');
        expect(res.body).toMatch(/<p class="amount" id="amount">[^<]*1,500[^<]*<\/p>/);
        expect(res.body).toContain(`${AMOUNT} RUB`);
        expect(res.body).toContain(`<form method="post" action="${path}" class="cta" id="pay-form"><button type="submit" class="button" id="pay">Continue to payment</button></form>`);
        // live money: no sandbox banner
        expect(res.body).not.toContain('class="sandbox"');
      }
    }
    expect(await ordersOf(shop.id)).toBe(0);
    expect(await assignments(poolId)).toBe(0);
    expect(await openingsOf(linkId)).toBe(0);
    expect(await openedOf(linkId)).toBe(0);
    // the neighbour's order of the very same amount still gets a requisite
    const theirs = await signed(h, other, '/gw/v1/orders', { body: JSON.stringify({ amount: Number(AMOUNT), rail: 'C2c' }) });
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(json(theirs).result.payment.phone).toMatch(/^\+7900000010\d$/);
    expect(await assignments(poolId)).toBe(1);
  });

  it('POST creates one order (a requisite taken) and answers 303 to its payment page; the 4th from one address with 3 open creates nothing; another address still pays', async () => {
    const A = '198.51.100.10';
    const B = '198.51.100.11';
    const made: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await pay(path, A);
      expect(res.statusCode, res.body).toBe(303);
      const id = orderIn(res.headers.location);
      expect(id, String(res.headers.location)).not.toBeNull();
      made.push(id!);
      expect(await ordersOf(shop.id)).toBe(i);
      expect(await assignments(poolId)).toBe(1 + i);
    }
    const read = json(await signed(h, shop, `/gw/v1/orders/${made[0]}`)).result;
    expect(read).toMatchObject({ orderRef: `${linkId}-1`, amount: AMOUNT, currency: 'RUB', rail: 'C2c', status: 'Created', description: 'Blue teapot, 1 l' });
    expect((await h.app.inject({ method: 'GET', url: `/pay/${made[0]}` })).body).toContain('Blue teapot, 1 l');
    // who started which order is recorded
    const starts = await h.ctx.db.query<{ client: string; order_id: string }>('SELECT client, order_id FROM payment_link_openings WHERE link_id = $1 ORDER BY opening', [linkId]);
    expect(starts.rows).toEqual(made.map((order_id) => ({ client: A, order_id })));

    // the 4th: the page again, saying so, with the three linked, newest first; nothing created
    const fourth = await pay(path, A);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers['content-type']).toContain('text/html');
    expect(fourth.body).toContain('You already have payments open for this link');
    expect(fourth.body).not.toContain('id="pay-form"');
    const linked = [...fourth.body.matchAll(/href="\/pay\/(ord_[0-9a-z]{26})"/g)].map((m) => m[1]);
    expect(linked).toEqual([...made].reverse());
    expect(await ordersOf(shop.id)).toBe(3);
    expect(await assignments(poolId)).toBe(4);
    expect(await openedOf(linkId)).toBe(3);
    expect(await openingsOf(linkId)).toBe(3);
    // opening the link from there shows the same, without the button (200: the page is what it is)
    const again = await get(path, A);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('You already have payments open for this link');
    expect(again.body).not.toContain('id="pay-form"');

    // another address pays
    const theirs = await pay(path, B);
    expect(theirs.statusCode, theirs.body).toBe(303);
    expect(orderIn(theirs.headers.location)).not.toBeNull();
    expect(await ordersOf(shop.id)).toBe(4);
    expect(await assignments(poolId)).toBe(5);
    expect((await get(path, B)).body).toContain('id="pay-form"');
  });
});

describe('a link whose desk nothing can serve', () => {
  it('shows no Pay button, says so in the customer’s language, and a POST creates nothing', async () => {
    // approved, so only live providers serve it, and none is set up for Sbp
    const desk = await provisionDesk(h.app, { merchant: { name: 'Sbp Only Shop', approve: true }, desk: { rails: ['Sbp'] } });
    const link = await linkOn(desk, { description: 'Green tea, 100 g' });
    const page = await get(link.path, '203.0.113.70');
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('Payment through this link is not possible right now');
    expect(page.body).toContain('Green tea, 100 g');
    expect(page.body).not.toContain('<form');
    const ru = await get(link.path, '203.0.113.70', { 'accept-language': 'ru-RU,ru;q=0.9' });
    expect(ru.body).toContain('<html lang="ru">');
    expect(ru.body).toContain('Оплата по этой ссылке сейчас невозможна');
    for (let i = 0; i < 3; i++) {
      const res = await pay(link.path, '203.0.113.70');
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('Payment through this link is not possible right now');
      expect(res.body).not.toContain('<form');
    }
    expect(await ordersOf(desk.id)).toBe(0);
    expect(await openingsOf(link.id)).toBe(0);
    expect(await openedOf(link.id)).toBe(0);
  });

  it('a desk switched off shows no button either', async () => {
    const desk = await provisionDesk(h.app, { merchant: { name: 'Switched Shop' }, desk: { rails: ['Sbp'] } });
    const link = await linkOn(desk);
    expect((await get(link.path, '203.0.113.71')).body).toContain('id="pay-form"');
    const off = await admin(h.app, 'PATCH', `/desks/${desk.id}`, { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    const page = await get(link.path, '203.0.113.71');
    expect(page.statusCode).toBe(503);
    expect(page.body).not.toContain('id="pay-form"');
    expect((await pay(link.path, '203.0.113.71')).statusCode).toBe(503);
    expect(await ordersOf(desk.id)).toBe(0);
    expect(await openingsOf(link.id)).toBe(0);
  });
});

describe('a sandbox link', () => {
  let desk: DeskCreds;
  beforeAll(async () => {
    desk = await provisionDesk(h.app, { merchant: { name: 'Sandbox Tea' } });
  });

  it('speaks ?lang= (kept on the form and on the way to the payment page), then Accept-Language, and shows the sandbox banner', async () => {
    const link = await linkOn(desk);
    const tr = await get(`${link.path}?lang=tr`, '203.0.113.80', { 'accept-language': 'ru' });
    expect(tr.body).toContain('<html lang="tr">');
    expect(tr.body).toContain(`action="${link.path}?lang=tr"`);
    expect(tr.body).toContain('Ödemeye devam et');
    expect(tr.body).toContain('class="sandbox"');
    expect(tr.body).toContain(`href="${link.path}?lang=ko"`);
    const ru = await get(link.path, '203.0.113.80', { 'accept-language': 'ru' });
    expect(ru.body).toContain('<html lang="ru">');
    expect(ru.body).toContain(`action="${link.path}"`);
    expect(ru.body).toContain('Перейти к оплате');
    const paid = await pay(`${link.path}?lang=tr`, '203.0.113.80');
    expect(paid.statusCode).toBe(303);
    expect(String(paid.headers.location)).toMatch(/^\/pay\/ord_[0-9a-z]{26}\?lang=tr$/);
  });

  it('counts only open orders: 6 presses at once from one address make exactly 3; once they expire, that address pays again', async () => {
    const link = await linkOn(desk);
    const C = '203.0.113.90';
    const answers = await Promise.all(Array.from({ length: 6 }, () => pay(link.path, C)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([303, 303, 303, 429, 429, 429]);
    expect(await count('SELECT count(*)::int AS n FROM payment_link_orders WHERE link_id = $1', [link.id])).toBe(3);
    expect(await openingsOf(link.id)).toBe(3);
    // a completed order holds no place: one more, then the limit again
    const first = orderIn(answers.find((r) => r.statusCode === 303)!.headers.location)!;
    expect((await admin(h.app, 'POST', `/orders/${first}/simulate-payment`)).statusCode).toBe(200);
    const fourth = await pay(link.path, C);
    expect(fourth.statusCode).toBe(303);
    expect((await pay(link.path, C)).statusCode).toBe(429);
    // the link orders' 15 minutes pass: expired orders hold no place, before the worker closes them too
    h.clock.advance(16 * 60_000);
    try {
      const later = await pay(link.path, C);
      expect(later.statusCode, later.body).toBe(303);
    } finally {
      h.clock.advance(-16 * 60_000);
    }
  });

  it('off: 410, expired: 410, unknown: 404 (GET and POST alike, nothing created); HEAD creates nothing', async () => {
    const link = await linkOn(desk);
    const ip = '203.0.113.95';
    expect((await h.app.inject({ method: 'HEAD', url: link.path, remoteAddress: ip })).statusCode).toBe(200);
    await setMerchantLinkEnabled(h.ctx, desk.merchantId, link.id, false);
    for (const send of [get, pay]) {
      const res = await send(link.path, ip);
      expect(res.statusCode).toBe(410);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('This payment link is no longer active');
      expect(res.body).toContain('switched it off');
    }
    expect((await get(link.path, ip, { 'accept-language': 'kk' })).body).toContain('Бұл төлем сілтемесі енді жарамсыз');
    await setMerchantLinkEnabled(h.ctx, desk.merchantId, link.id, true);
    expect((await get(link.path, ip)).statusCode).toBe(200);

    const lapsed = await linkOn(desk, { expiresAt: new Date(h.clock.now() - 1000) });
    for (const send of [get, pay]) {
      const res = await send(lapsed.path, ip);
      expect(res.statusCode).toBe(410);
      expect(res.body).toContain('It has expired');
    }
    for (const url of ['/l/lnk_00000000000000000000000000', '/l/nonsense']) {
      for (const send of [get, pay]) {
        const res = await send(url, ip);
        expect(res.statusCode, url).toBe(404);
        expect(res.body).toContain('Payment not found');
      }
    }
    expect(await openedOf(link.id)).toBe(0);
    expect(await openedOf(lapsed.id)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM payment_link_orders WHERE link_id = ANY($1::text[])', [[link.id, lapsed.id]])).toBe(0);
  });

  it('refuses a POST with fields the button does not send, creating nothing', async () => {
    const link = await linkOn(desk);
    const res = await h.app.inject({ method: 'POST', url: link.path, remoteAddress: '203.0.113.96', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'amount=1' });
    expect(res.statusCode).toBe(400);
    expect(await openedOf(link.id)).toBe(0);
  });

  it('refuses a press a browser says was made on another site, creating nothing; the page it answers has the button to press here', async () => {
    const link = await linkOn(desk);
    const res = await h.app.inject({ method: 'POST', url: link.path, remoteAddress: '203.0.113.97', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' }, payload: '' });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain(`action="${link.path}"`);
    expect(await openedOf(link.id)).toBe(0);
    const here = await h.app.inject({ method: 'POST', url: link.path, remoteAddress: '203.0.113.97', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, payload: '' });
    expect(here.statusCode, here.body).toBe(303);
  });

  it('forgets the addresses behind a link\'s orders after 30 days', async () => {
    const link = await linkOn(desk);
    const res = await h.app.inject({ method: 'POST', url: link.path, remoteAddress: '203.0.113.98', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(res.statusCode, res.body).toBe(303);
    const kept = () => h.ctx.db.query('SELECT client FROM payment_link_openings WHERE link_id = $1', [link.id]).then((r) => r.rows.length);
    expect(await kept()).toBe(1);
    expect(await forgetOldLinkClients(h.ctx.db, h.clock)).toBe(0);
    const day = 86_400_000;
    h.clock.advance(LINK_CLIENTS_KEPT_DAYS * day + 1000);
    try {
      expect(await forgetOldLinkClients(h.ctx.db, h.clock)).toBeGreaterThanOrEqual(1);
      expect(await kept()).toBe(0);
    } finally {
      h.clock.advance(-(LINK_CLIENTS_KEPT_DAYS * day + 1000));
    }
  });
});
