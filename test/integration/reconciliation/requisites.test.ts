import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolDeclines } from '../../../src/reconciliation/requisites.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, feed, credit, order, placed, pools, RUB_CAPABILITIES, type Pool } from './helpers.js';

/**
 * Requisites as objects (reconciliation contract, "Requisites"): the pool provider's credentials,
 * the requisite routes with every field and rule, and attributable assignment as orders see it.
 */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

const requisitesOf = async (p: { id: string }) => json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result;
const addRequisite = (p: { id: string }, body: Record<string, unknown>) => admin(h.app, 'POST', `/providers/${p.id}/requisites`, body);
const cardOf = (o: any) => o.payment.card as string;

describe('a pool provider', () => {
  it('without key and secret gets both generated; the secret is in the creation answer only', async () => {
    const res = await admin(h.app, 'POST', '/providers', { name: 'Gen', kind: 'pool', capabilities: RUB_CAPABILITIES });
    expect(res.statusCode, res.body).toBe(201);
    const p = json(res).result;
    expect(p.key).toMatch(/^pvk_[0-9a-z]{26}$/);
    expect(p.secret).toMatch(/^sk_/);
    const listed = json(await admin(h.app, 'GET', '/providers')).result.find((x: any) => x.id === p.id);
    expect(listed.key).toBe(p.key);
    expect(listed.secret).toBeUndefined();
    expect(await requisitesOf(p)).toEqual([]);
    await admin(h.app, 'POST', `/providers/${p.id}/pause`);
  });

  it('with key and secret given keeps them and does not echo the secret', async () => {
    const res = await admin(h.app, 'POST', '/providers', { name: 'Given', kind: 'pool', capabilities: RUB_CAPABILITIES, key: 'bank-poller-1', secret: 'a-long-shared-secret-0123456789' });
    const p = json(res).result;
    expect(p.key).toBe('bank-poller-1');
    expect(p.secret).toBeUndefined();
    const signedWithIt = await feed(h, { id: p.id, key: 'bank-poller-1', secret: 'a-long-shared-secret-0123456789' }, { credits: [credit(h, '1234', '1.00')] });
    expect(signedWithIt.statusCode, signedWithIt.body).toBe(200);
    await admin(h.app, 'POST', `/providers/${p.id}/pause`);
  });

  it('POST /providers/{id}/secret issues a new secret; the old one fails at once', async () => {
    const p = await pool();
    const res = await admin(h.app, 'POST', `/providers/${p.id}/secret`);
    expect(res.statusCode, res.body).toBe(200);
    const { key, secret } = json(res).result;
    expect(key).toBe(p.key);
    expect(secret).not.toBe(p.secret);
    expect((await feed(h, p, { credits: [credit(h, '1', '1.00')] })).statusCode).toBe(401);
    expect((await feed(h, { ...p, secret }, { credits: [credit(h, '1', '1.00')] })).statusCode).toBe(200);
    expect(json(await admin(h.app, 'POST', '/providers/prv_nope/secret')).fault.code).toBe('PROVIDER_NOT_FOUND');
    expect(json(await admin(h.app, 'POST', '/providers/prv_sandbox/secret')).fault.code).toBe('VALIDATION_ERROR');
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${p.id}`)).result.items;
    expect(audit.map((a: any) => a.action)).toContain('provider.rotateSecret');
  });

  it('the requisites array makes one requisite per entry: any currency and rail, unbounded, 10 open orders', async () => {
    const p = await pool([{ card: card(11), holder: 'A', bank: 'B1' }, { phone: '+7 900 000-00-12', holder: 'B' }]);
    expect(p.requisites).toHaveLength(2);
    expect(p.requisites[0]).toMatchObject({
      providerId: p.id,
      payment: { card: card(11), holder: 'A', bank: 'B1' },
      currency: null,
      rails: null,
      minAmount: '0.00',
      maxAmount: '0.00',
      dailyLimit: '0.00',
      maxOpenOrders: 10,
      label: null,
      state: 'active',
      openOrders: 0,
      receivedToday: '0.00',
    });
    expect(p.requisites[0].id).toMatch(/^rqs_[0-9a-z]{26}$/);
    expect(p.requisites[1].payment).toEqual({ phone: '+7 900 000-00-12', holder: 'B' });
    for (const bad of [[{ holder: 'no payable detail' }], [{ card: '1', color: 'red' }], [{ card: 5 }], [{ card: card(1) }, { card: card(1).replace(/ /g, '') }]]) {
      const res = await admin(h.app, 'POST', '/providers', { name: 'Bad', kind: 'pool', capabilities: RUB_CAPABILITIES, requisites: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(json(res).fault.detail).toMatch(/^requisites\[\d\]/);
    }
  });
});

describe('the requisite routes', () => {
  let p: Pool;
  beforeAll(async () => {
    p = await pool([]);
  });

  it('POST /providers/{id}/requisites: 201 with every field; GET lists them oldest first', async () => {
    const res = await addRequisite(p, {
      payment: { card: card(21), holder: 'IVAN', bank: 'Bank' },
      currency: 'RUB',
      rails: ['C2c'],
      minAmount: '100',
      maxAmount: '5000.5',
      dailyLimit: '20000',
      maxOpenOrders: 3,
      label: 'Ivan, card 21',
    });
    expect(res.statusCode, res.body).toBe(201);
    const r = json(res).result;
    expect(r).toMatchObject({
      providerId: p.id,
      currency: 'RUB',
      rails: ['C2c'],
      minAmount: '100.00',
      maxAmount: '5000.50',
      dailyLimit: '20000.00',
      maxOpenOrders: 3,
      label: 'Ivan, card 21',
      state: 'active',
      openOrders: 0,
      receivedToday: '0.00',
      createdAt: '2026-01-15T12:00:00Z',
    });
    const second = json(await addRequisite(p, { payment: { phone: '+79000000022' } })).result;
    expect(second).toMatchObject({ currency: null, rails: null, maxOpenOrders: 10, minAmount: '0.00' });
    expect((await requisitesOf(p)).map((x: any) => x.id)).toEqual([r.id, second.id]);
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${r.id}`)).result.items;
    expect(audit[0]).toMatchObject({ action: 'requisite.create', actor: 'token', outcome: 'ok' });
  });

  it('refuses what the provider cannot serve, bounds out of order, unknown fields and payment keys', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ payment: { card: card(31) }, currency: 'USD' }, /^currency: the provider serves RUB/],
      [{ payment: { card: card(31) }, currency: 'rub' }, /^currency/],
      [{ payment: { card: card(31) }, rails: ['Upi'] }, /^rails: the provider serves/],
      [{ payment: { card: card(31) }, minAmount: '500', maxAmount: '100' }, /^minAmount: must not exceed maxAmount/],
      [{ payment: { card: card(31) }, maxOpenOrders: 0 }, /maxOpenOrders/],
      [{ payment: { card: card(31) }, minAmount: '1.005' }, /minAmount/],
      [{ payment: { card: card(31) }, minAmount: 100 }, /minAmount/],
      [{ payment: { card: card(31) }, colour: 'red' }, /colour/],
      [{ payment: { holder: 'nobody' } }, /^payment: needs at least one payable detail/],
      [{ payment: { card: card(31), pin: '1234' } }, /^payment\.pin: not a payment key/],
      [{ payment: { card: card(21) } }, /already belongs to requisite rqs_/],
      [{}, /payment/],
    ];
    for (const [body, detail] of cases) {
      const res = await addRequisite(p, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
      expect(json(res).fault.detail, JSON.stringify(body)).toMatch(detail);
    }
    expect(json(await addRequisite({ id: 'prv_nope' }, { payment: { card: card(32) } })).fault.code).toBe('PROVIDER_NOT_FOUND');
    expect(json(await admin(h.app, 'GET', '/providers/prv_nope/requisites')).fault.code).toBe('PROVIDER_NOT_FOUND');
    const sandbox = await addRequisite({ id: 'prv_sandbox' }, { payment: { card: card(33) } });
    expect(sandbox.statusCode).toBe(400);
    expect(json(await admin(h.app, 'GET', '/providers/prv_sandbox/requisites')).result).toEqual([]);
  });

  it('PATCH /requisites/{id} changes limits, label and state; keeps what is not sent', async () => {
    const r = json(await addRequisite(p, { payment: { card: card(41) }, minAmount: '10', maxAmount: '100' })).result;
    const res = await admin(h.app, 'PATCH', `/requisites/${r.id}`, { maxAmount: '200', dailyLimit: '1000', maxOpenOrders: 2, label: 'spare', state: 'paused' });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ minAmount: '10.00', maxAmount: '200.00', dailyLimit: '1000.00', maxOpenOrders: 2, label: 'spare', state: 'paused' });
    expect(json(await admin(h.app, 'PATCH', `/requisites/${r.id}`, { label: null })).result).toMatchObject({ label: null, state: 'paused', maxOpenOrders: 2 });
    expect(json(await admin(h.app, 'PATCH', `/requisites/${r.id}`, { state: 'retired' })).result.state).toBe('retired');
    expect(json(await admin(h.app, 'PATCH', `/requisites/${r.id}`, { state: 'active' })).result.state).toBe('active');
    expect(json(await admin(h.app, 'PATCH', `/requisites/${r.id}`, { minAmount: '300' })).fault.detail).toMatch(/minAmount: must not exceed maxAmount/);
    for (const bad of [{ state: 'gone' }, { payment: { card: '1' } }, { currency: 'RUB' }, { maxOpenOrders: 0 }]) {
      const res = await admin(h.app, 'PATCH', `/requisites/${r.id}`, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    const missing = await admin(h.app, 'PATCH', '/requisites/rqs_nope', { label: 'x' });
    expect(missing.statusCode).toBe(404);
    expect(json(missing).fault.code).toBe('REQUISITE_NOT_FOUND');
  });

  it('answers 401 without the operator token', async () => {
    for (const [method, url] of [['GET', `/admin/v1/providers/${p.id}/requisites`], ['POST', `/admin/v1/providers/${p.id}/requisites`], ['PATCH', '/admin/v1/requisites/rqs_x']] as const) {
      const res = await h.app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' });
      expect(res.statusCode, url).toBe(401);
      expect(json(res).fault.code).toBe('ADMIN_AUTH_FAILED');
    }
  });
});

describe('attributable assignment', () => {
  it('never two open orders of one amount on one requisite: the next goes elsewhere, then the pool declines', async () => {
    const p = await pool([{ card: card(51) }, { card: card(52) }]);
    const a = await placed(h, desk, 918);
    const b = await placed(h, desk, 918);
    expect(new Set([cardOf(a), cardOf(b)])).toEqual(new Set([card(51), card(52)]));
    const c = await order(h, desk, 918);
    expect(c.statusCode).toBe(503);
    expect(json(c).fault.code).toBe('NO_AVAILABLE_METHOD');
    // Another amount is fine.
    expect((await order(h, desk, 918.01)).statusCode).toBe(201);
    const listed = await requisitesOf(p);
    expect(listed.map((r: any) => r.openOrders).sort()).toEqual([1, 2]);
  });

  it('the fewest open orders first, then the one used least recently', async () => {
    await pool([{ card: card(61) }, { card: card(62) }, { card: card(63) }]);
    const first = [await placed(h, desk, 100), await placed(h, desk, 101), await placed(h, desk, 102)].map(cardOf);
    expect(first).toEqual([card(61), card(62), card(63)]);
    // All have one open order now: the least recently used (61) is next, then 62.
    expect(cardOf(await placed(h, desk, 103))).toBe(card(61));
    expect(cardOf(await placed(h, desk, 104))).toBe(card(62));
  });

  it('only active requisites that serve the currency, the rail, the amount bounds and have room', async () => {
    const p = await pool([]);
    const paused = json(await addRequisite(p, { payment: { card: card(71) } })).result;
    await admin(h.app, 'PATCH', `/requisites/${paused.id}`, { state: 'paused' });
    const sbpOnly = json(await addRequisite(p, { payment: { phone: '+79000000072' }, rails: ['Sbp'] })).result;
    const bounded = json(await addRequisite(p, { payment: { card: card(73) }, minAmount: '500', maxAmount: '1000', maxOpenOrders: 1 })).result;
    expect((await order(h, desk, 400)).statusCode).toBe(503);
    expect((await order(h, desk, 1000.01)).statusCode).toBe(503);
    expect(cardOf(await placed(h, desk, 600))).toBe(card(73));
    // maxOpenOrders 1 reached
    expect((await order(h, desk, 700)).statusCode).toBe(503);
    expect((await placed(h, desk, 700, { rail: 'Sbp' })).payment.phone).toBe('+79000000072');
    const view = (await requisitesOf(p)).find((r: any) => r.id === bounded.id);
    expect(view.openOrders).toBe(1);
    expect((await requisitesOf(p)).find((r: any) => r.id === sbpOnly.id).openOrders).toBe(1);
  });

  it('the daily limit counts the open orders and today\'s matched money', async () => {
    const p = await pool([]);
    const r = json(await addRequisite(p, { payment: { card: card(81) }, dailyLimit: '1000' })).result;
    const a = await placed(h, desk, 600);
    expect((await order(h, desk, 401)).statusCode).toBe(503);
    expect((await placed(h, desk, 400, { lifetimeMinutes: 1440 })).payment.card).toBe(card(81));
    // 600 paid: it is today's money now, and the limit is still used up by 600 + 400.
    const paid = await feed(h, p, { credits: [credit(h, card(81), '600.00')] });
    expect(json(paid).result.credits[0]).toMatchObject({ status: 'matched', orderId: a.id });
    const view = (await requisitesOf(p)).find((x: any) => x.id === r.id);
    expect(view).toMatchObject({ receivedToday: '600.00', openOrders: 1 });
    expect((await order(h, desk, 1)).statusCode).toBe(503);
    // A new UTC day: today's money starts again; the 400 still open counts.
    h.clock.advance(12 * 3600_000);
    expect((await order(h, desk, 601)).statusCode).toBe(503);
    expect((await placed(h, desk, 599)).payment.card).toBe(card(81));
  });

  it('an amount closed unpaid stays in quarantine for REQUISITE_QUARANTINE_MINUTES', async () => {
    await pool([{ card: card(91) }]);
    const a = await placed(h, desk, 777, { lifetimeMinutes: 5 });
    h.clock.advance(5 * 60_000);
    // Expired (the worker has not come by yet) and just closed: 777 is in quarantine, 778 is not.
    expect((await order(h, desk, 777)).statusCode).toBe(503);
    expect(cardOf(await placed(h, desk, 778))).toBe(card(91));
    h.clock.advance(14 * 60_000);
    expect((await order(h, desk, 777)).statusCode).toBe(503);
    h.clock.advance(60_000 + 1000);
    expect(cardOf(await placed(h, desk, 777))).toBe(card(91));
    expect(a.id).toBeTruthy();
  });

  it('a cancelled order puts its amount in quarantine too', async () => {
    await pool([{ card: card(95) }]);
    const a = await placed(h, desk, 555);
    const cancel = await signed(h, desk, `/gw/v1/orders/${a.id}/cancel`, { body: '{}' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await order(h, desk, 555)).statusCode).toBe(503);
    h.clock.advance(15 * 60_000 + 1000);
    expect((await order(h, desk, 555)).statusCode).toBe(201);
  });

  it('the pool\'s decline says why, and the cascade moves on to the next provider', async () => {
    const p = await pool([{ card: card(97) }]);
    await placed(h, desk, 321);
    const lines: { o: any; msg?: string }[] = [];
    const log = h.ctx.log as unknown as Record<string, unknown>;
    const info = log.info;
    log.info = (o: any, msg?: string) => lines.push({ o, msg });
    try {
      expect((await order(h, desk, 321)).statusCode).toBe(503);
    } finally {
      log.info = info;
    }
    const line = lines.find((l) => l.msg === 'provider did not issue');
    expect(line?.o.reason).toMatch(/no requisite can take 321\.00 RUB: 1 same amount open/);
    // Recorded for the pool's page, with what became of the order.
    const { lastDay, latest } = await poolDeclines(h.ctx, p.id);
    expect(lastDay).toBe(1);
    expect(latest).toEqual([{ orderId: expect.stringMatching(/^ord_/), amount: '321.00', currency: 'RUB', rail: 'C2c', reason: line?.o.reason, at: new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'), outcome: 'refused', placedWith: null }]);
  });
  it('a decline the cascade moved past names the provider that placed the order', async () => {
    const first = await pool([{ card: card(96) }]);
    const res = await admin(h.app, 'POST', '/providers', { name: 'Backup pool', kind: 'pool', priority: 20, capabilities: RUB_CAPABILITIES, requisites: [{ card: card(95) }] });
    expect(res.statusCode, res.body).toBe(201);
    const backup = json(res).result;
    try {
      const a = await placed(h, desk, 654);
      const b = await placed(h, desk, 654);
      expect(cardOf(b)).not.toBe(cardOf(a));
      const { latest } = await poolDeclines(h.ctx, first.id);
      expect(latest[0]).toMatchObject({ orderId: b.id, amount: '654.00', outcome: 'placed', placedWith: 'Backup pool' });
      expect(latest[0].reason).toMatch(/no requisite can take 654\.00 RUB: 1 same amount open/);
    } finally {
      await admin(h.app, 'POST', `/providers/${backup.id}/pause`);
    }
  });
});

describe('with REQUISITE_QUARANTINE_MINUTES=0', () => {
  it('an expired amount is free at once', async () => {
    const q = await createHarness({ env: { REQUISITE_QUARANTINE_MINUTES: '0' }, unlimitedOrders: true });
    try {
      const d = await provisionDesk(q.app, { merchant: { name: 'Live', approve: true } });
      await pools(q)([{ card: card(99) }]);
      await placed(q, d, 444, { lifetimeMinutes: 1 });
      expect((await order(q, d, 444)).statusCode).toBe(503);
      q.clock.advance(60_000);
      expect((await order(q, d, 444)).statusCode).toBe(201);
    } finally {
      await q.close();
    }
  });
});
