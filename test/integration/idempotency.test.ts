import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { expiryWorker, placementReaper, STALE_PLACEMENT_MS } from '../../src/workers/index.js';
import { claimRef } from '../../src/store/orderRefs.js';
import { writeOrders } from '../../src/store/orderWrites.js';

/*
 * Idempotency by orderRef (spec, POST /gw/v1/orders, rules 1–4) and the race it has to survive:
 * identical creates arriving together must end as one order. On PostgreSQL the concurrent requests
 * really run in parallel transactions; on PGlite they are serialised, which checks the same rules.
 */

let h: Harness;
let desk: DeskCreds;
let live: DeskCreds;

const REQ_A = { phone: '+79000000001', holder: 'Holder A', bank: 'Bank A' };
const REQ_B = { phone: '+79000000002', holder: 'Holder B', bank: 'Bank B' };

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
  live = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, desk: { rails: ['C2c'] }, currencies: {} });
  const p = await admin(h.app, 'POST', '/providers', {
    name: 'Pool',
    kind: 'pool',
    priority: 1,
    capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
    requisites: [REQ_A, REQ_B],
  });
  expect(p.statusCode, p.body).toBe(201);
});
afterAll(() => h.close());
// A fresh desk per test: the create limit (30 per 10 s per desk key) would otherwise queue this file's requests.
beforeEach(async () => {
  desk = await provisionDesk(h.app, { currencies: {} });
});

const post = (body: Record<string, unknown>, d: DeskCreds = desk) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
async function create(body: Record<string, unknown>, d: DeskCreds = desk) {
  const res = await post(body, d);
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
const getOrder = async (idOrRef: string, d: DeskCreds = desk) => json(await signed(h, d, `/gw/v1/orders/${idOrRef}`)).result;
const ordersWithRef = async (d: DeskCreds, ref: string) =>
  (await h.ctx.db.query<{ id: string; placement: string }>('SELECT id, placement FROM orders WHERE desk_id = $1 AND order_ref = $2 ORDER BY seq', [d.id, ref])).rows;

describe('the orderRef race', () => {
  it('8 identical creates at once: all 201 with the same order, and only one order exists', async () => {
    const body = { amount: 777.77, rail: 'Sbp', orderRef: 'race-1' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(body)));
    for (const r of answers) expect(r.statusCode, r.body).toBe(201);
    const ids = new Set(answers.map((r) => json(r).result.id));
    expect(ids.size).toBe(1);
    const rows = await ordersWithRef(desk, 'race-1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({ id: [...ids][0], placement: 'placed' });
    // every answer carries the same payment details too
    expect(new Set(answers.map((r) => JSON.stringify(json(r).result.payment))).size).toBe(1);
  });

  it('8 creates at once with different amounts: one order, the others 409 ORDER_REF_CONFLICT', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post({ amount: 100 + i, rail: 'Sbp', orderRef: 'race-2' })));
    const ok = answers.filter((r) => r.statusCode === 201);
    const conflicts = answers.filter((r) => r.statusCode === 409);
    expect(ok).toHaveLength(1);
    expect(conflicts).toHaveLength(7);
    for (const r of conflicts) expect(json(r).fault.code).toBe('ORDER_REF_CONFLICT');
    expect(await ordersWithRef(desk, 'race-2')).toHaveLength(1);
  });

  it('8 creates at once for a live desk (pool provider): one order, one requisite handed out', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => post({ amount: 5000, orderRef: 'race-live' }, live)));
    for (const r of answers) expect(r.statusCode, r.body).toBe(201);
    expect(new Set(answers.map((r) => json(r).result.id)).size).toBe(1);
    expect(await ordersWithRef(live, 'race-live')).toHaveLength(1);
  });
});

describe('rule 1: a repeat while the order is open or paid returns it with its current status', () => {
  it('a repeat while Created returns the same order and details, 201, without echoing orderRef', async () => {
    const first = await create({ amount: 1500.5, rail: 'Sbp', orderRef: 'open-1' });
    h.clock.advance(10 * 60_000);
    const again = await create({ amount: 1500.5, rail: 'Sbp', orderRef: 'open-1' });
    expect(again).toEqual(first);
  });

  it('the amount is compared after rounding: 1500.499 repeats 1500.50', async () => {
    const first = await create({ amount: 1500.5, rail: 'Sbp', orderRef: 'open-rounded' });
    expect((await create({ amount: 1500.499, rail: 'Sbp', orderRef: 'open-rounded' })).id).toBe(first.id);
  });

  it('a repeat while Payed returns the same order with status Payed', async () => {
    const first = await create({ amount: 2000, orderRef: 'paid-1' }, live);
    expect((await admin(h.app, 'POST', `/orders/${first.id}/report-payment`)).statusCode).toBe(200);
    const again = await create({ amount: 2000, orderRef: 'paid-1' }, live);
    expect(again).toEqual({ ...first, status: 'Payed' });
  });

  it('a repeat after completion within the hour returns the Completed order, no second order', async () => {
    const first = await create({ amount: 300, rail: 'Sbp', orderRef: 'done-1' });
    await admin(h.app, 'POST', `/orders/${first.id}/simulate-payment`);
    const again = await create({ amount: 300, rail: 'Sbp', orderRef: 'done-1' });
    expect(again).toMatchObject({ id: first.id, status: 'Completed' });
    expect(await ordersWithRef(desk, 'done-1')).toHaveLength(1);
  });
});

describe('rule 2: after the order is cancelled or expired, a repeat creates a new order', () => {
  it('after a merchant cancel: a new order with fresh payment details; GET by orderRef returns the newest', async () => {
    const first = await create({ amount: 4000, orderRef: 'reuse-cancel' }, live);
    expect((await signed(h, live, `/gw/v1/orders/${first.id}/cancel`, { method: 'POST' })).statusCode).toBe(200);
    const second = await create({ amount: 4000, orderRef: 'reuse-cancel' }, live);
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe('Created');
    expect(second.payment.phone).not.toBe(first.payment.phone);
    expect([first.payment.phone, second.payment.phone].sort()).toEqual([REQ_A.phone, REQ_B.phone].sort());
    expect((await getOrder('reuse-cancel', live)).id).toBe(second.id);
    expect((await getOrder(first.id, live)).status).toBe('Canceled');
    // and the new order is again the one a repeat returns
    expect((await create({ amount: 4000, orderRef: 'reuse-cancel' }, live)).id).toBe(second.id);
  });

  it('after expiry: a new order; a different amount is then allowed as well', async () => {
    const first = await create({ amount: 50, rail: 'Sbp', orderRef: 'reuse-expired', lifetimeMinutes: 1 });
    h.clock.advance(60_000);
    await expiryWorker(h.ctx).runOnce();
    expect((await getOrder(first.id)).subStatus).toBe('Expired');
    const second = await create({ amount: 60, rail: 'Sbp', orderRef: 'reuse-expired' });
    expect(second.id).not.toBe(first.id);
    expect(second.amount).toBe('60.00');
    expect((await getOrder('reuse-expired')).id).toBe(second.id);
  });

  it('after expiresAt, even before the expiry worker got to it: the old order is closed as expired and a new one made', async () => {
    const first = await create({ amount: 50, rail: 'Sbp', orderRef: 'reuse-overdue', lifetimeMinutes: 1 });
    h.clock.advance(60_000);
    const second = await create({ amount: 50, rail: 'Sbp', orderRef: 'reuse-overdue' });
    expect(second.id).not.toBe(first.id);
    expect(new Date(second.expiresAt).getTime()).toBeGreaterThan(h.clock.now());
    expect(await getOrder(first.id)).toMatchObject({ status: 'Canceled', subStatus: 'Expired', cancelReason: 'expired' });
    const { rows } = await h.ctx.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE order_id = $1', [first.id]);
    expect(rows.map((r) => r.event)).toEqual(['order.cancelled']);
    // the worker finds nothing left to do for it
    await expiryWorker(h.ctx).runOnce();
    expect((await h.ctx.db.query('SELECT 1 FROM outbox_events WHERE order_id = $1', [first.id])).rows).toHaveLength(1);
    expect((await getOrder('reuse-overdue')).id).toBe(second.id);
  });

  it('one second before expiresAt a repeat still returns the open order', async () => {
    const first = await create({ amount: 50, rail: 'Sbp', orderRef: 'not-yet-overdue', lifetimeMinutes: 1 });
    h.clock.advance(59_000);
    expect((await create({ amount: 50, rail: 'Sbp', orderRef: 'not-yet-overdue' })).id).toBe(first.id);
  });

  it('after a failed placement (no provider), the reference is free for the next attempt', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'No provider yet', approve: true }, desk: { method: 'WhiteTriangle', rails: ['Sbp'] }, currencies: {} });
    const res = await post({ amount: 10, orderRef: 'retry-after-503' }, d);
    expect(res.statusCode).toBe(503);
    const p = json(
      await admin(h.app, 'POST', '/providers', {
        name: 'Late pool',
        kind: 'pool',
        capabilities: [{ method: 'WhiteTriangle', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
        requisites: [{ phone: '+79000000009', holder: 'Late', bank: 'Bank L' }],
      }),
    );
    expect(p.status).toBe('ok');
    const o = await create({ amount: 10, orderRef: 'retry-after-503' }, d);
    expect(o.payment.phone).toBe('+79000000009');
    expect((await getOrder('retry-after-503', d)).id).toBe(o.id);
  });
});

describe('rule 3: a different amount or currency within the hour is 409 ORDER_REF_CONFLICT', () => {
  it('different amount, different currency: 409, and the original order is untouched', async () => {
    await admin(h.app, 'PUT', '/currencies/EUR', { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', '/rates/EUR', { rate: '0.92' });
    const d = await provisionDesk(h.app, { desk: { currencies: ['RUB', 'EUR'] }, currencies: {} });
    const first = await create({ amount: 100, rail: 'Sbp', orderRef: 'conflict-1' }, d);
    for (const body of [
      { amount: 100.01, rail: 'Sbp', orderRef: 'conflict-1' },
      { amount: 100, currency: 'EUR', rail: 'Sbp', orderRef: 'conflict-1' },
    ]) {
      const res = await post(body, d);
      expect(res.statusCode).toBe(409);
      expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'ORDER_REF_CONFLICT' } });
    }
    expect(await ordersWithRef(d, 'conflict-1')).toHaveLength(1);
    expect(await getOrder('conflict-1', d)).toMatchObject({ id: first.id, amount: '100.00', currency: 'RUB', status: 'Created' });
  });

  it('a different rail or other fields with the same amount and currency return the existing order', async () => {
    const first = await create({ amount: 42, rail: 'Sbp', orderRef: 'same-terms' });
    const again = await create({ amount: 42, rail: 'C2c', orderRef: 'same-terms', lifetimeMinutes: 90 });
    expect(again).toEqual(first);
  });
});

describe('rule 4: after the hour a repeat creates a new order', () => {
  it('59:59 after the first create it is the same order; at 60:00 a new one, which GET by orderRef then returns', async () => {
    const first = await create({ amount: 10, rail: 'Sbp', orderRef: 'hourly', lifetimeMinutes: 1440 });
    h.clock.advance(3_600_000 - 1_000);
    expect((await create({ amount: 10, rail: 'Sbp', orderRef: 'hourly' })).id).toBe(first.id);
    // a different amount is still a conflict just before the hour ends
    expect((await post({ amount: 11, rail: 'Sbp', orderRef: 'hourly' })).statusCode).toBe(409);
    h.clock.advance(1_000);
    const second = await create({ amount: 11, rail: 'Sbp', orderRef: 'hourly', lifetimeMinutes: 1440 });
    expect(second.id).not.toBe(first.id);
    expect(await getOrder('hourly')).toMatchObject({ id: second.id, amount: '11.00' });
    // the first order is still there and open, reachable by its id
    expect(await getOrder(first.id)).toMatchObject({ status: 'Created', orderRef: 'hourly' });
    // the new order starts a new hour
    h.clock.advance(30 * 60_000);
    expect((await create({ amount: 11, rail: 'Sbp', orderRef: 'hourly' })).id).toBe(second.id);
  });
});

describe('scope of a reference', () => {
  it('the same orderRef on two desks makes two independent orders', async () => {
    const other = await provisionDesk(h.app, { currencies: {} });
    const a = await create({ amount: 10, rail: 'Sbp', orderRef: 'shared-ref' });
    const b = await create({ amount: 20, rail: 'Sbp', orderRef: 'shared-ref' }, other);
    expect(a.id).not.toBe(b.id);
    expect((await getOrder('shared-ref')).id).toBe(a.id);
    expect((await getOrder('shared-ref', other)).id).toBe(b.id);
  });

  it('without orderRef every create is a new order', async () => {
    const a = await create({ amount: 10, rail: 'Sbp' });
    const b = await create({ amount: 10, rail: 'Sbp' });
    expect(a.id).not.toBe(b.id);
  });
});

describe('a create that died mid-cascade', () => {
  it('leaves a reservation the reaper gives up after the cascade budget, so the reference can be used again', async () => {
    const x = await createHarness();
    try {
      const d = await provisionDesk(x.app);
      const ref = 'crashed-create';
      const at = new Date(x.clock.now());
      // What a create leaves behind when its process dies while providers are being asked.
      await x.ctx.db.tx(async (q) => {
        await claimRef(q, { deskId: d.id, ref, orderId: 'ord_orphan', amount: '100.00', currency: 'RUB', at });
        const order = {
          id: 'ord_orphan', deskId: d.id, merchantId: d.merchantId, orderRef: ref, amount: '100.00', currency: 'RUB', rate: '91.80000000',
          settledAmount: '1.08932462', method: 'Classic', rail: 'Sbp', sandbox: true, notifyUrl: 'https://merchant.example/cb',
          successUrl: null, failUrl: null, backUrl: null, operator: null, lifetimeMinutes: 15, createdAt: at, expiresAt: new Date(at.getTime() + 900_000),
        };
        await writeOrders(q, [{ order, issued: null, claimRef: false, auth: null }]);
      });
      const reaper = placementReaper(x.ctx);
      x.clock.advance(STALE_PLACEMENT_MS - 1000);
      expect(await reaper.runOnce()).toBe(0);
      x.clock.advance(2000);
      expect(await reaper.runOnce()).toBe(1);
      const res = await signed(x, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp', orderRef: ref }) });
      expect(res.statusCode).toBe(201);
      expect(json(res).result.id).not.toBe('ord_orphan');
    } finally {
      await x.close();
    }
  });
});
