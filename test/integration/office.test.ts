import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../../src/domain/totp.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { earnLiveMoney } from '../helpers/liveMoney.js';
import { FormBrowser } from '../helpers/formBrowser.js';

/*
 * The back office over HTTP, as a browser uses it: sign-in (with and without the required second
 * factor), the sign-in limit, CSRF and roles on the fixed paths of the web spec, every action in the
 * audit trail with its actor, and the pages of queues and objects.
 */

const PASSWORD = 'operator passphrase 2026';
let emailCounter = 0;

async function operator(h: Harness, role: 'admin' | 'support') {
  const email = `${role}${++emailCounter}@paygate.example`;
  const res = await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role });
  expect(res.statusCode, res.body).toBe(201);
  return { email, id: json(res).result.id as string };
}

async function signIn(h: Harness, email: string, b = new FormBrowser(h.app)) {
  expect((await b.get('/office/sign-in')).statusCode).toBe(200);
  const res = await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]]);
  expect(res.statusCode, res.body).toBe(303);
  expect(res.headers.location).toBe('/office');
  expect((await b.get('/office')).statusCode).toBe(200);
  return b;
}

async function auditOf(h: Harness, objectId: string): Promise<{ actor: string; action: string; outcome: string }[]> {
  return json(await admin(h.app, 'GET', `/audit?objectId=${objectId}`)).result.items;
}

async function order(h: Harness, d: DeskCreds, body: Record<string, unknown> = {}) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 1000, rail: 'Sbp', ...body }) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}

async function appealed(h: Harness, d: DeskCreds) {
  const o = await order(h, d);
  expect(json(await signed(h, d, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' })).result.status).toBe('Canceled');
  const res = await signed(h, d, '/gw/v1/appeals', { body: JSON.stringify({ orderId: o.id, reason: 'paid at 12:03', evidenceUrl: 'https://files.example/r.png' }) });
  expect(res.statusCode, res.body).toBe(201);
  return { order: o, appeal: json(res).result };
}

const balance = async (h: Harness, merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available as string;

describe('back office (OFFICE_REQUIRE_2FA=false)', () => {
  let h: Harness;
  let adm: { email: string; id: string };
  let sup: { email: string; id: string };
  let a: FormBrowser;
  let s: FormBrowser;
  let desk: DeskCreds;

  beforeAll(async () => {
    h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false' } });
    adm = await operator(h, 'admin');
    sup = await operator(h, 'support');
    desk = await provisionDesk(h.app, { merchant: { name: 'Sandbox Shop' } });
    a = await signIn(h, adm.email);
    s = await signIn(h, sup.email);
  });
  afterAll(() => h.close());

  describe('sign-in and sign-out', () => {
    it('sets an HttpOnly SameSite=Lax session cookie of its own and lands on /office', async () => {
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      const res = await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]]);
      expect(res.statusCode).toBe(303);
      const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('pg_office='))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      // The cabinet's cookie name is not the office's: the surfaces never share a session.
      expect(b.cookies.has('pg_cabinet')).toBe(false);
    });

    it('answers one generic message for a wrong password and an unknown email', async () => {
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      const wrong = await b.post('/office/sign-in', [['email', adm.email], ['password', 'not the password at all']]);
      const unknown = await b.post('/office/sign-in', [['email', 'nobody@paygate.example'], ['password', PASSWORD]]);
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.body).toContain('Wrong email or password.');
      expect(unknown.body).toContain('Wrong email or password.');
      expect((await b.get('/office')).headers.location).toBe('/office/sign-in');
    });

    it('a cabinet user is no operator', async () => {
      const m = json(await admin(h.app, 'GET', '/merchants')).result.items[0];
      await admin(h.app, 'POST', `/merchants/${m.id}/users`, { email: 'merchant.user@shop.example', password: PASSWORD });
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      expect((await b.post('/office/sign-in', [['email', 'merchant.user@shop.example'], ['password', PASSWORD]])).statusCode).toBe(401);
    });

    it('signs out: the session is revoked on the server', async () => {
      const b = await signIn(h, sup.email);
      const session = b.cookies.get('pg_office')!;
      const out = await b.post('/office/sign-out');
      expect(out.statusCode).toBe(303);
      expect(out.headers.location).toBe('/office/sign-in');
      b.cookies.set('pg_office', session);
      expect((await b.get('/office')).headers.location).toBe('/office/sign-in');
    });

    it('the 11th sign-in attempt within a minute from one address answers 429', async () => {
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      // A different account each time: the per-account limit (its own suite) stays out of the way.
      for (let i = 0; i < 10; i++) expect((await b.post('/office/sign-in', [['email', `guess${i}@paygate.example`], ['password', 'wrong password here']])).statusCode).toBe(401);
      const eleventh = await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]]);
      expect(eleventh.statusCode).toBe(429);
      expect(eleventh.headers['retry-after']).toBeDefined();
    });
  });

  describe('CSRF and roles on the fixed paths', () => {
    it('refuses a POST without a valid _csrf with 403, and nothing happens', async () => {
      const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Csrf Co', sandbox: true })).result;
      expect((await a.post(`/office/merchants/${m.id}/approve`, [], { csrf: null })).statusCode).toBe(403);
      expect((await a.post(`/office/merchants/${m.id}/approve`, [], { csrf: 'forged' })).statusCode).toBe(403);
      // Another operator's token is not this session's.
      expect((await a.post(`/office/merchants/${m.id}/approve`, [], { csrf: s.csrf })).statusCode).toBe(403);
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      expect((await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]], { csrf: null })).statusCode).toBe(403);
      expect(json(await admin(h.app, 'GET', `/merchants/${m.id}`)).result.status).toBe('UnderReview');
      expect((await auditOf(h, m.id)).map((e) => e.action)).toEqual(['merchant.create']);
    });

    it('a support operator posting approve gets 403, the merchant stays UnderReview, and the form is not shown', async () => {
      const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Support Co', sandbox: true })).result;
      const queue = await s.get('/office/queues/review');
      expect(queue.statusCode).toBe(200);
      expect(queue.body).toContain('Support Co');
      expect(queue.body).not.toContain(`/office/merchants/${m.id}/approve`);
      expect((await s.post(`/office/merchants/${m.id}/approve`)).statusCode).toBe(403);
      expect(json(await admin(h.app, 'GET', `/merchants/${m.id}`)).result.status).toBe('UnderReview');
      for (const path of [`/office/merchants/${m.id}/block`, `/office/merchants/${m.id}/withdrawals`, `/office/desks/${desk.id}/stop`, '/office/rates/RUB', '/office/caps', `/office/orders/ord_x/confirm`, `/office/orders/ord_x/reverse`]) {
        expect((await s.post(path, [['reason', 'x'], ['rate', '90'], ['amountUsd', '1'], ['reference', 'r']])).statusCode, path).toBe(403);
      }
      expect((await admin(h.app, 'GET', `/desks/${desk.id}`)).body).not.toContain('"stopReason":"x"');
    });

    it('an admin approves through the fixed path: 303, Active, one audit entry with the operator as actor', async () => {
      const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Approve Co', sandbox: true })).result;
      await a.get('/office/queues/review');
      const res = await a.post(`/office/merchants/${m.id}/approve`);
      expect(res.statusCode).toBe(303);
      expect(json(await admin(h.app, 'GET', `/merchants/${m.id}`)).result.status).toBe('Active');
      expect(await auditOf(h, m.id)).toMatchObject([{ actor: adm.id, action: 'merchant.approve', outcome: 'ok' }, { actor: 'token', action: 'merchant.create' }]);
      // The same action with the bearer token is recorded as `token`.
      const other = json(await admin(h.app, 'POST', '/merchants', { name: 'Token Co', sandbox: true })).result;
      await admin(h.app, 'POST', `/merchants/${other.id}/approve`);
      expect(await auditOf(h, other.id)).toMatchObject([{ actor: 'token', action: 'merchant.approve' }, { actor: 'token', action: 'merchant.create' }]);
    });
  });

  describe('appeals', () => {
    it('support accepts an appeal from the queue: order Completed, merchant credited, audited with its id', async () => {
      const { order: o, appeal } = await appealed(h, desk);
      const before = await balance(h, desk.merchantId);
      // An appeal of a sandbox order: the live queue (the default) counts it, the sandbox queue shows it.
      expect((await s.get('/office/queues/appeals')).body).toMatch(/\d+ open appeals? of sandbox orders/);
      const queue = await s.get('/office/queues/appeals?mode=sandbox');
      expect(queue.body).toContain(appeal.id);
      expect(queue.body).toContain('https://files.example/r.png');
      const res = await s.post(`/office/appeals/${appeal.id}/accept`, [['comment', 'bank statement matches']]);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/office/queues/appeals?done=accepted');
      const after = json(await admin(h.app, 'GET', `/orders/${o.id}`)).result;
      expect(after.status).toBe('Completed');
      expect(Number(await balance(h, desk.merchantId))).toBeGreaterThan(Number(before));
      expect(await auditOf(h, appeal.id)).toMatchObject([{ actor: sup.id, action: 'appeal.accept', outcome: 'ok' }]);
      // A second decision is refused with a page, recorded as refused.
      const again = await s.post(`/office/appeals/${appeal.id}/reject`, [['comment', 'late']]);
      expect(again.statusCode).toBe(409);
      expect(again.body).not.toMatch(/at .*\.ts:\d+/);
    });

    it('rejects with a comment; the receipt file is served as an attachment', async () => {
      const { order: o, appeal } = await appealed(h, desk);
      const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
      await h.ctx.db.query(
        `INSERT INTO appeal_receipts (appeal_id, content_type, file_name, size_bytes, sha256, content, created_at) VALUES ($1, 'image/png', 'scan "1".png', $2, $3, $4, now())`,
        [appeal.id, png.length, createHash('sha256').update(png).digest('hex'), png],
      );
      expect((await a.get('/office/queues/appeals?mode=sandbox')).body).toContain(`/office/appeals/${appeal.id}/receipt`);
      const file = await a.get(`/office/appeals/${appeal.id}/receipt`);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/png');
      // named by the appeal and the stored type; the uploaded name never reaches a header
      expect(file.headers['content-disposition']).toBe(`attachment; filename="receipt-${appeal.id}.png"`);
      expect(file.headers['x-content-type-options']).toBe('nosniff');
      expect(file.rawPayload.equals(png)).toBe(true);
      expect((await a.get(`/office/appeals/apl_unknown/receipt`)).statusCode).toBe(404);

      const res = await a.post(`/office/appeals/${appeal.id}/reject`, [['comment', 'no payment found']]);
      expect(res.statusCode).toBe(303);
      const after = json(await admin(h.app, 'GET', `/orders/${o.id}`)).result;
      expect(after.status).toBe('Canceled');
      expect(json(await admin(h.app, 'GET', `/appeals/${appeal.id}`)).result.comment).toBe('no payment found');
      expect((await a.get(`/office/appeals/${appeal.id}`)).body).toContain('appeal.reject');
    });
  });

  describe('merchant money', () => {
    it('records a withdrawal of live money within the balance and refuses one beyond it (409, balance unchanged, refusal audited)', async () => {
      // Sandbox money is never withdrawable.
      const o = await order(h, desk);
      await a.get(`/office/orders/${o.id}`);
      expect((await a.post(`/office/orders/${o.id}/simulate-payment`)).statusCode).toBe(303);
      await a.get(`/office/merchants/${desk.merchantId}`);
      const play = await a.post(`/office/merchants/${desk.merchantId}/withdrawals`, [['amountUsd', '0.01'], ['reference', 'sandbox wire']]);
      expect(play.statusCode).toBe(409);
      expect(play.body).toContain('available balance does not cover');

      const live = await earnLiveMoney(h, { merchant: 'Live Shop' });
      const merchantId = live.desk.merchantId;
      const available = await balance(h, merchantId);
      expect(available).toBe(live.credited);
      await a.get(`/office/merchants/${merchantId}`);
      const ok = await a.post(`/office/merchants/${merchantId}/withdrawals`, [['amountUsd', '1.5'], ['reference', 'wire 1']]);
      expect(ok.statusCode, ok.body).toBe(303);
      const left = await balance(h, merchantId);
      expect(Number(left)).toBeCloseTo(Number(available) - 1.5, 8);
      const beyond = await a.post(`/office/merchants/${merchantId}/withdrawals`, [['amountUsd', '1000000'], ['reference', 'wire 2']]);
      expect(beyond.statusCode).toBe(409);
      expect(beyond.body).toContain('available balance does not cover');
      expect(await balance(h, merchantId)).toBe(left);
      const bad = await a.post(`/office/merchants/${merchantId}/withdrawals`, [['amountUsd', '-3'], ['reference', 'x']]);
      expect(bad.statusCode).toBe(400);
      const page = await a.get(`/office/merchants/${merchantId}`);
      expect(page.body).toContain('wire 1');
      // Two withdrawals at once that the balance covers only one at a time: one is recorded, one refused.
      const half = (Number(left) * 0.6).toFixed(8);
      const both = await Promise.all([1, 2].map((n) => a.post(`/office/merchants/${merchantId}/withdrawals`, [['amountUsd', half], ['reference', `race ${n}`]])));
      expect(both.map((r) => r.statusCode).sort()).toEqual([303, 409]);
      expect(Number(await balance(h, merchantId))).toBeGreaterThanOrEqual(0);
      const entries = await auditOf(h, merchantId);
      expect(entries.filter((e) => e.action === 'merchant.withdraw').map((e) => [e.actor, e.outcome]).slice(-2)).toEqual([
        [adm.id, 'INSUFFICIENT_BALANCE'],
        [adm.id, 'ok'],
      ]);
    });
  });

  describe('every action lands in the audit with its actor', () => {
    it('block, unblock, desk stop and resume, provider pause and resume, rates, caps, order actions', async () => {
      const d = await provisionDesk(h.app, { merchant: { name: 'Audit Co' } });
      const provider = json(await admin(h.app, 'GET', '/providers')).result[0].id as string;
      await a.get('/office');
      const steps: [string, [string, string][]][] = [
        [`/office/merchants/${d.merchantId}/block`, [['reason', 'chargebacks']]],
        [`/office/merchants/${d.merchantId}/unblock`, []],
        [`/office/desks/${d.id}/stop`, [['reason', 'suspicious traffic']]],
        [`/office/desks/${d.id}/resume`, []],
        [`/office/providers/${provider}/pause`, []],
        [`/office/providers/${provider}/resume`, []],
        ['/office/rates/KZT', [['rate', '0.0021']]],
        ['/office/rates/KZT/remove', []],
        ['/office/currencies/KZT', [['enabled', 'true'], ['spreadPercent', '1.25']]],
        [`/office/merchants/${d.merchantId}/sandbox`, [['sandbox', 'false']]],
        [`/office/merchants/${d.merchantId}/sandbox`, [['sandbox', 'true']]],
        ['/office/caps', [['scope', 'merchant'], ['scopeId', d.merchantId], ['window', 'day'], ['capUsd', '1000']]],
      ];
      for (const [path, fields] of steps) {
        const res = await a.post(path, fields);
        expect(res.statusCode, `${path}: ${res.body}`).toBe(303);
      }
      const caps = json(await admin(h.app, 'GET', '/turnover-limits')).result;
      const cap = caps.find((c: any) => c.scopeId === d.merchantId);
      expect((await a.get('/office/caps')).body).toContain(d.merchantId);
      expect((await a.post(`/office/caps/${cap.id}/remove`)).statusCode).toBe(303);

      const o = await order(h, d);
      expect((await a.post(`/office/orders/${o.id}/reject`)).statusCode).toBe(303);
      expect((await s.post(`/office/orders/${o.id}/resend`)).statusCode).toBe(303);
      expect((await a.post(`/office/orders/${o.id}/confirm`)).statusCode).toBe(303);
      await a.get(`/office/orders/${o.id}`);
      expect((await a.post(`/office/orders/${o.id}/reverse`, [['reason', 'chargeback']])).statusCode).toBe(303);

      const all = json(await admin(h.app, 'GET', '/audit?limit=100')).result.items as { actor: string; action: string; objectId: string; outcome: string }[];
      const mine = (id: string) => all.filter((e) => e.objectId === id && e.actor !== 'token').map((e) => `${e.actor} ${e.action} ${e.outcome}`).reverse();
      expect(mine(d.merchantId)).toEqual([`${adm.id} merchant.block ok`, `${adm.id} merchant.unblock ok`, `${adm.id} merchant.update ok`, `${adm.id} merchant.update ok`]);
      expect(mine(d.id)).toEqual([`${adm.id} desk.stop ok`, `${adm.id} desk.resume ok`]);
      expect(mine(provider)).toEqual([`${adm.id} provider.pause ok`, `${adm.id} provider.resume ok`]);
      expect(mine('KZT')).toEqual([`${adm.id} rate.set ok`, `${adm.id} rate.remove ok`, `${adm.id} currency.update ok`]);
      expect(json(await admin(h.app, 'GET', '/currencies')).result.find((c: any) => c.code === 'KZT')).toMatchObject({ enabled: true, spreadPercent: '1.2500' });
      expect(mine(cap.id)).toEqual([`${adm.id} turnoverLimit.create ok`, `${adm.id} turnoverLimit.remove ok`]);
      expect(mine(o.id)).toEqual([`${adm.id} order.reject ok`, `${sup.id} order.resend ok`, `${adm.id} order.confirm ok`, `${adm.id} order.reverse ok`]);
      expect((await a.get(`/office/audit?objectId=${o.id}`)).body).toContain('order.reverse');
    });
  });

  describe('queues', () => {
    it('pool payments to confirm, cancelled orders to reconcile and failing endpoints, each worked from its page', async () => {
      const pool = json(await admin(h.app, 'POST', '/providers', {
        name: 'Pool',
        kind: 'pool',
        priority: 10,
        capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
        requisites: [{ phone: '+79990000001', holder: 'Ivan P.', bank: 'Bank' }],
      })).result;
      const live = await provisionDesk(h.app, { merchant: { name: 'Live Co', sandbox: false, approve: true }, desk: { rails: ['Sbp'] } });
      const payed = await order(h, live);
      expect(payed.status).toBe('Created');
      await admin(h.app, 'POST', `/orders/${payed.id}/report-payment`, { payerReference: 'UTR1234567890' });
      // Another amount: a pool requisite takes one open order per amount, so a credit names one order.
      const late = await order(h, live, { amount: 1200 });
      await admin(h.app, 'POST', `/orders/${late.id}/reject`);
      await h.ctx.db.query(`UPDATE orders SET payer_reference = 'UTR5550001' WHERE id = $1`, [late.id]);

      const queue = await a.get('/office/queues/payed');
      expect(queue.body).toContain(payed.id);
      expect(queue.body).toMatch(/Payments to confirm <span class="count">1/);
      const confirmed = await a.post(`/office/orders/${payed.id}/confirm`, [['from', 'payed']]);
      expect(confirmed.headers.location).toBe('/office/queues/payed?done=confirmed');
      expect((await a.get('/office/queues/payed')).body).not.toContain(payed.id);

      const reconcile = await a.get('/office/queues/reconcile');
      expect(reconcile.body).toContain(late.id);
      expect((await a.post(`/office/orders/${late.id}/confirm`, [['from', 'reconcile']])).headers.location).toBe('/office/queues/reconcile?done=confirmed');
      expect(json(await admin(h.app, 'GET', `/orders/${late.id}`)).result.status).toBe('Completed');
      expect((await a.get('/office/providers')).body).toContain('Live methods picture');
      expect((await a.get(`/office/providers/${pool.id}`)).statusCode).toBe(200);

      const now = new Date(h.clock.now());
      await h.ctx.db.query(
        `INSERT INTO outbox_events (id, order_id, desk_id, event, body, url, state, attempts, created_at, finished_at) VALUES ('evt_failing1', $1, $2, 'order.completed', '{}', 'https://down.example/hook', 'failed', 8, $3, $3)`,
        [payed.id, live.id, now],
      );
      const callbacks = await a.get('/office/queues/callbacks');
      expect(callbacks.body).toContain('https://down.example/hook');
      expect(callbacks.body).toMatch(/Failing callbacks <span class="count">1/);
    });
  });

  describe('pages', () => {
    it('renders every main page for both roles, with the queue counts in the navigation', async () => {
      const { appeal } = await appealed(h, desk);
      const o = await order(h, desk);
      const provider = json(await admin(h.app, 'GET', '/providers')).result[0].id as string;
      await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: '100', ratePercent: '3' }, { fromUsd: '100', toUsd: null, ratePercent: '2' }] });
      const pages = [
        '/office',
        '/office/queues/review',
        '/office/queues/appeals',
        '/office/queues/payed',
        '/office/queues/reconcile',
        '/office/queues/callbacks',
        '/office/merchants',
        `/office/merchants/${desk.merchantId}`,
        `/office/desks/${desk.id}`,
        '/office/orders',
        `/office/orders?q=${o.id}`,
        `/office/orders/${o.id}`,
        `/office/appeals/${appeal.id}`,
        '/office/providers',
        `/office/providers/${provider}`,
        '/office/rates',
        '/office/tariffs',
        '/office/caps',
        '/office/audit',
        '/office/two-factor',
      ];
      for (const b of [a, s]) {
        for (const p of pages) {
          const res = await b.get(p);
          expect(res.statusCode, p).toBe(200);
          expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
        }
      }
      const home = await a.get('/office');
      expect(home.body).toMatch(/Open appeals <span class="count[^"]*">\d+/);
      expect(home.body).toContain('<svg');
      expect((await a.get('/office/tariffs')).body).toContain('3.0000 %');
    });

    it('finds an order by its payer reference', async () => {
      const o = await order(h, desk);
      await h.ctx.db.query(`UPDATE orders SET payer_reference = 'UTR998877665544' WHERE id = $1`, [o.id]);
      // A sandbox order: the live list (the default) says where it is, the sandbox list shows it.
      const live = await a.get('/office/orders?q=UTR998877665544');
      expect(live.statusCode).toBe(200);
      expect(live.body).not.toContain(o.id);
      expect(live.body).toContain('No live order matches, but a sandbox one does');
      const res = await a.get('/office/orders?q=UTR998877665544&mode=sandbox');
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(o.id);
    });

    it('an unknown id is 404 and bad input is a page with 400, never a 500', async () => {
      for (const p of ['/office/merchants/mer_nope', '/office/orders/ord_nope', '/office/desks/dsk_nope', '/office/appeals/apl_nope', '/office/providers/prv_nope']) {
        const res = await a.get(p);
        expect(res.statusCode, p).toBe(404);
        expect(res.headers['content-type']).toContain('text/html');
      }
      for (const p of ['/office/orders?status=Bogus', '/office/audit?before=x', '/office/merchants?status=x', '/office/merchants?before=mer_nope']) {
        expect((await a.get(p)).statusCode, p).toBe(400);
      }
      expect((await a.post('/office/rates/XXX', [['rate', '1']])).statusCode).toBe(400);
      expect((await a.post('/office/rates/RUB', [['rate', 'abc']])).statusCode).toBe(400);
      expect((await a.post('/office/caps', [['scope', 'galaxy'], ['window', 'day'], ['capUsd', '1']])).statusCode).toBe(400);
      expect((await a.post('/office/merchants/mer_nope/approve')).statusCode).toBe(404);
      expect((await a.post(`/office/desks/${desk.id}/stop`, [['reason', '']])).statusCode).toBe(400);
    });

    it('escapes every value: a merchant name with markup is text', async () => {
      const m = json(await admin(h.app, 'POST', '/merchants', { name: '<script>alert(1)</script>', sandbox: true })).result;
      const page = await a.get(`/office/merchants/${m.id}`);
      expect(page.body).not.toContain('<script>alert(1)');
      expect(page.body).toContain('&lt;script&gt;alert(1)');
    });
  });
});

describe('back office with OFFICE_REQUIRE_2FA (default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('an admin enrols TOTP at the first sign-in, cannot act before, then signs in with a code or a recovery code', async () => {
    const adm = await operator(h, 'admin');
    const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Gate Co', sandbox: true })).result;
    const b = new FormBrowser(h.app);
    await b.get('/office/sign-in');
    expect((await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]])).statusCode).toBe(303);
    // Before enrolment: every page leads to the enrolment page, every action is refused.
    expect((await b.get('/office')).headers.location).toBe('/office/two-factor');
    expect((await b.get('/office/queues/review')).headers.location).toBe('/office/two-factor');
    const enrol = await b.get('/office/two-factor');
    expect(enrol.statusCode).toBe(200);
    expect(enrol.body).toContain('<svg');
    expect((await b.post(`/office/merchants/${m.id}/approve`)).statusCode).toBe(403);
    expect(json(await admin(h.app, 'GET', `/merchants/${m.id}`)).result.status).toBe('UnderReview');

    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    const key = base32Decode(secret)!;
    const wrong = await b.post('/office/two-factor', [['code', '000000' === totp(key, h.clock.now()) ? '111111' : '000000']]);
    expect(wrong.statusCode).toBe(400);
    const done = await b.post('/office/two-factor', [['code', totp(key, h.clock.now())]]);
    expect(done.statusCode).toBe(200);
    const codes = [...done.body.matchAll(/<li><code>([0-9a-f]{5}-[0-9a-f]{5})<\/code><\/li>/g)].map((x) => x[1]!);
    expect(codes).toHaveLength(10);
    expect((await b.get('/office')).statusCode).toBe(200);
    expect((await b.post(`/office/merchants/${m.id}/approve`)).statusCode).toBe(303);
    // A stray enrolment form once two-factor is on changes nothing (the sign-in below still asks for the code).
    expect((await b.post('/office/two-factor', [['code', '000000']])).statusCode).toBe(303);

    // The next sign-in asks for the code after the password.
    await b.post('/office/sign-out');
    await b.get('/office/sign-in');
    const step = await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]]);
    expect(step.statusCode).toBe(200);
    expect(b.cookies.has('pg_office')).toBe(false);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)![1]!;
    h.clock.advance(30_000);
    expect((await b.post('/office/sign-in/code', [['challenge', challenge], ['code', '123456' === totp(key, h.clock.now()) ? '654321' : '123456']])).statusCode).toBe(401);
    const ok = await b.post('/office/sign-in/code', [['challenge', challenge], ['code', totp(key, h.clock.now())]]);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/office');
    expect((await b.get('/office')).statusCode).toBe(200);

    // A recovery code works once.
    await b.post('/office/sign-out');
    await b.get('/office/sign-in');
    const again = await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]]);
    const c2 = /name="challenge" value="([^"]+)"/.exec(again.body)![1]!;
    expect((await b.post('/office/sign-in/code', [['challenge', c2], ['code', codes[0]!]])).statusCode).toBe(303);
    await b.post('/office/sign-out');
    await b.get('/office/sign-in');
    const third = await b.post('/office/sign-in', [['email', adm.email], ['password', PASSWORD]]);
    const c3 = /name="challenge" value="([^"]+)"/.exec(third.body)![1]!;
    expect((await b.post('/office/sign-in/code', [['challenge', c3], ['code', codes[0]!]])).statusCode).toBe(401);
    // A forged challenge is refused.
    expect((await b.post('/office/sign-in/code', [['challenge', `${adm.id}.9999999999999.forged`], ['code', totp(key, h.clock.now())]])).statusCode).toBe(401);
  });

  it('a support operator must enrol too (they accept appeals, which credits merchants), then signs in with a code', async () => {
    const sup = await operator(h, 'support');
    const { appeal } = await appealed(h, await provisionDesk(h.app, { merchant: { name: 'Support Gate Co' } }));
    const b = new FormBrowser(h.app);
    await b.get('/office/sign-in');
    expect((await b.post('/office/sign-in', [['email', sup.email], ['password', PASSWORD]])).statusCode).toBe(303);
    expect((await b.get('/office')).headers.location).toBe('/office/two-factor');
    expect((await b.get('/office/queues/appeals')).headers.location).toBe('/office/two-factor');
    const enrol = await b.get('/office/two-factor');
    expect(enrol.statusCode).toBe(200);
    expect(enrol.body).toContain('Operators sign in with a second factor');
    expect((await b.post(`/office/appeals/${appeal.id}/accept`, [['comment', 'paid']])).statusCode).toBe(403);
    expect(json(await admin(h.app, 'GET', `/appeals/${appeal.id}`)).result.status).toBe('Open');

    const key = base32Decode(/id="totp-secret">([A-Z2-7]+)</.exec(enrol.body)![1]!)!;
    expect((await b.post('/office/two-factor', [['code', totp(key, h.clock.now())]])).statusCode).toBe(200);
    expect((await b.post(`/office/appeals/${appeal.id}/accept`, [['comment', 'paid']])).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', `/appeals/${appeal.id}`)).result.status).toBe('Accepted');

    await b.post('/office/sign-out');
    await b.get('/office/sign-in');
    const step = await b.post('/office/sign-in', [['email', sup.email], ['password', PASSWORD]]);
    expect(step.statusCode).toBe(200);
    expect(b.cookies.has('pg_office')).toBe(false);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)![1]!;
    h.clock.advance(30_000);
    expect((await b.post('/office/sign-in/code', [['challenge', challenge], ['code', totp(key, h.clock.now())]])).statusCode).toBe(303);
    expect((await b.get('/office')).statusCode).toBe(200);
  });
});
