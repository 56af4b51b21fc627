import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { timeOrderedId26 } from '../../src/ids.js';

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

const create = (body: Record<string, unknown>, d: DeskCreds = desk) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
const get = (id: string, d: DeskCreds = desk) => signed(h, d, `/gw/v1/orders/${id}`);

describe('POST /gw/v1/orders', () => {
  it('creates a sandbox order with exactly the create fields', async () => {
    const res = await create({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'inv-1' });
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(res.headers['x-trace-id']);
    const o = body.result;
    expect(Object.keys(o).sort()).toEqual(['amount', 'createdAt', 'currency', 'direction', 'expiresAt', 'id', 'method', 'orderRef', 'payment', 'rail', 'settled', 'status', 'sandbox', 'payPageUrl'].sort());
    expect(o.id).toMatch(/^ord_[0-9a-z]{26}$/);
    // Its first ten characters are the moment it was made (the clock stands at a whole second).
    expect(o.id.slice(4, 14)).toBe(timeOrderedId26(Date.parse(o.createdAt)).slice(0, 10));
    expect(o.orderRef).toBeNull();
    expect(o).toMatchObject({ amount: '1500.50', currency: 'RUB', method: 'Classic', rail: 'Sbp', direction: 'In', status: 'Created', sandbox: true });
    // PUBLIC_URL not set: the payment page is on the server's own address.
    expect(o.payPageUrl).toBe(`http://127.0.0.1:8080/pay/${o.id}`);
    expect(o.settled).toEqual({ amount: '16.34531590', currency: 'USD', rate: '91.80000000' });
    expect(Object.keys(o.payment).sort()).toEqual(['account', 'bank', 'card', 'holder', 'iban', 'phone', 'upiId', 'url']);
    expect(o.payment.phone).toMatch(/^\+79\d{9}$/);
    expect(o.createdAt).toBe('2026-01-15T12:00:00Z');
    expect(o.expiresAt).toBe('2026-01-15T12:15:00Z');
  });
});

const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** The spec's create fields, in its order. */
const SPEC_CREATE_KEYS = ['id', 'orderRef', 'amount', 'currency', 'settled', 'method', 'rail', 'direction', 'status', 'payment', 'createdAt', 'expiresAt'];
/** Fields added after the spec's own (D24): whether it is a sandbox order, and the address of its payment page. */
const ADDED_KEYS = ['sandbox', 'payPageUrl'];
const CREATE_KEYS = [...SPEC_CREATE_KEYS, ...ADDED_KEYS];
const GET_KEYS = [...SPEC_CREATE_KEYS, 'subStatus', 'payerReference', 'commission', 'credited', 'cancelReason', 'finishedAt', 'description', 'paidAmount', ...ADDED_KEYS];

describe('POST /gw/v1/orders: create answer', () => {
  it('lists the create fields in the spec order; the create answer never echoes orderRef', async () => {
    const res = await create({ amount: 99.9, rail: 'C2c', orderRef: 'inv-order-keys' });
    expect(res.statusCode).toBe(201);
    const o = json(res).result;
    expect(Object.keys(o)).toEqual(CREATE_KEYS);
    expect(o.orderRef).toBeNull();
    expect(o.currency).toBe('RUB');
    expect(o.rail).toBe('C2c');
    expect(o.payment.card).toMatch(/^\d{16}$/);
  });

  it('lifetimeMinutes sets expiresAt; createdAt is the server clock to the second', async () => {
    h.clock.set(Date.UTC(2026, 0, 15, 13, 0, 0, 789));
    const o = json(await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1440 })).result;
    expect(o.createdAt).toBe('2026-01-15T13:00:00Z');
    expect(o.expiresAt).toBe('2026-01-16T13:00:00Z');
    const one = json(await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 })).result;
    expect(one.expiresAt).toBe('2026-01-15T13:01:00Z');
  });
});

describe('GET /gw/v1/orders/{id}', () => {
  it('returns every get field, in order, by id and by orderRef', async () => {
    const created = json(await create({ amount: 1500.5, rail: 'Sbp', orderRef: 'inv-get-1' })).result;
    const byId = await get(created.id);
    expect(byId.statusCode).toBe(200);
    const body = json(byId);
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(byId.headers['x-trace-id']);
    const o = body.result;
    expect(Object.keys(o)).toEqual(GET_KEYS);
    expect(o).toEqual({
      ...created,
      orderRef: 'inv-get-1',
      subStatus: 'WaitingForPayment',
      payerReference: null,
      commission: { rate: '0.0000', amount: '0.00000000', currency: 'USD' },
      credited: { amount: '0.00000000', currency: 'USD' },
      cancelReason: null,
      finishedAt: null,
      description: null,
      paidAmount: null,
    });
    expect(o.createdAt).toMatch(SECONDS);
    const byRef = await get('inv-get-1');
    expect(byRef.statusCode).toBe(200);
    expect(json(byRef).result).toEqual(o);
  });

  it('after completion shows the fee from the desk tariff and the credited amount, finishedAt set', async () => {
    const t = json(await admin(h.app, 'POST', '/tariffs', { name: 'Bands', bands: [{ fromUsd: '0', toUsd: '10', ratePercent: '5' }, { fromUsd: '10', toUsd: null, ratePercent: '2.5' }] }));
    const d = await provisionDesk(h.app, { desk: { tariffId: t.result.id } });
    const o = json(await create({ amount: 918, rail: 'Sbp' }, d)).result; // exactly 10 USD: the second band
    h.clock.advance(30_000);
    expect((await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`)).statusCode).toBe(200);
    const got = json(await get(o.id, d)).result;
    expect(got).toMatchObject({
      status: 'Completed',
      subStatus: 'SuccessfullyPaid',
      settled: { amount: '10.00000000', currency: 'USD', rate: '91.80000000' },
      commission: { rate: '2.5000', amount: '0.25000000', currency: 'USD' },
      credited: { amount: '9.75000000', currency: 'USD' },
      cancelReason: null,
    });
    expect(got.finishedAt).toBe(new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  });

  it("another desk's order is 404 ORDER_NOT_FOUND by id and by orderRef (D4), like an unknown one", async () => {
    const other = await provisionDesk(h.app, { merchant: { name: 'Other' } });
    const mine = json(await create({ amount: 10, rail: 'Sbp', orderRef: 'inv-private' })).result;
    const answers: string[] = [];
    for (const id of [mine.id, 'inv-private', 'ord_00000000000000000000000000', 'nothing-here']) {
      const res = await get(id, other);
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'ORDER_NOT_FOUND' } });
      // indistinguishable from an id that exists nowhere: same answer but for the echoed id
      answers.push(json(res).fault.detail.replace(id, '{id}'));
    }
    expect(new Set(answers).size).toBe(1);
    // nor can the other desk cancel it
    const c = await signed(h, other, `/gw/v1/orders/${mine.id}/cancel`, { method: 'POST' });
    expect(c.statusCode).toBe(404);
    expect(json(await get(mine.id)).result.status).toBe('Created');
  });

  it('an orderRef that looks like an order id still finds the order by reference', async () => {
    const o = json(await create({ amount: 10, rail: 'Sbp', orderRef: 'ord_my-own-reference' })).result;
    expect(json(await get('ord_my-own-reference')).result.id).toBe(o.id);
  });
});
