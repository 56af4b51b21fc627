import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiryWorker } from '../../src/workers/index.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * Every row of the spec's order transition table, driven through the merchant API and the operator
 * order actions, with what the merchant sees afterwards: the order, the balance and the callback
 * written to the outbox (exact body bytes and the URL captured at creation).
 */

let h: Harness;
let live: DeskCreds;
let sandbox: DeskCreds;
let tariffId: string;

const POOL_PAYMENT = { phone: '+79001112233', holder: 'Ivan P.', bank: 'Bank A' };
const DESK_URL = 'https://merchant.example/callbacks';
const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/**
 * A completed order's callback body also says what it was paid (reconciliation contract, forced
 * matches); every body ends with whether the order is a sandbox order.
 */
const COMPLETED_BODY_KEYS = ['event', 'id', 'orderRef', 'status', 'amount', 'settled', 'paidAmount', 'method', 'rail', 'occurredAt', 'sandbox'];

beforeAll(async () => {
  h = await createHarness();
  const t = json(await admin(h.app, 'POST', '/tariffs', { name: 'Three percent', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }] }));
  tariffId = t.result.id;
  live = await provisionDesk(h.app, { merchant: { name: 'Live Shop', approve: true }, desk: { rails: ['Sbp'], tariffId } });
  sandbox = await provisionDesk(h.app, { merchant: { name: 'Sandbox Shop' }, desk: { tariffId } });
  const p = await admin(h.app, 'POST', '/providers', {
    name: 'Pool A',
    kind: 'pool',
    priority: 10,
    capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
    requisites: [POOL_PAYMENT],
  });
  expect(p.statusCode, p.body).toBe(201);
});
afterAll(() => h.close());

const create = async (d: DeskCreds, body: Record<string, unknown>) => {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
};
const getOrder = async (d: DeskCreds, id: string) => {
  const res = await signed(h, d, `/gw/v1/orders/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result;
};
const cancel = (d: DeskCreds, id: string, body?: Record<string, unknown>) =>
  signed(h, d, `/gw/v1/orders/${id}/cancel`, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
const act = (id: string, action: string, body?: unknown) => admin(h.app, 'POST', `/orders/${id}/${action}`, body);
const balance = async (d: DeskCreds) => json(await signed(h, d, '/gw/v1/balance')).result.available as string;
const events = async (orderId: string) =>
  (await h.ctx.db.query<{ event: string; body: string; url: string }>('SELECT event, body, url FROM outbox_events WHERE order_id = $1 ORDER BY seq', [orderId])).rows;

/** Moves the clock forward to a moment with a non-zero millisecond part, so occurredAt shows its precision. */
function tick(ms = 61_234): string {
  h.clock.advance(ms);
  return new Date(h.clock.now()).toISOString();
}

/** The callback body the spec prescribes, field by field in the spec's order. */
function expectedBody(o: any, event: string, status: string, occurredAt: string): string {
  return JSON.stringify({
    event,
    id: o.id,
    orderRef: o.orderRef,
    status,
    amount: { value: o.amount, currency: o.currency },
    settled: { value: o.settled.amount, currency: 'USD', rate: o.settled.rate },
    ...(status === 'Completed' ? { paidAmount: { value: o.amount, currency: o.currency } } : {}),
    method: o.method,
    rail: o.rail,
    occurredAt,
    sandbox: o.sandbox,
  });
}

describe('(none) → Created', () => {
  it('POST /gw/v1/orders answers 201, status Created, subStatus WaitingForPayment, nothing in the outbox', async () => {
    const o = await create(sandbox, { amount: 1500.5, rail: 'Sbp', orderRef: 'tr-created' });
    expect(o.status).toBe('Created');
    const got = await getOrder(sandbox, o.id);
    expect(got).toMatchObject({ status: 'Created', subStatus: 'WaitingForPayment', cancelReason: null, finishedAt: null });
    expect(got.credited).toEqual({ amount: '0.00000000', currency: 'USD' });
    expect(got.commission).toEqual({ rate: '0.0000', amount: '0.00000000', currency: 'USD' });
    expect(await events(o.id)).toEqual([]);
  });
});

describe('live orders: Created → Payed → Completed', () => {
  it('report-payment moves to Payed / WaitingAdminConfirmation without a callback or a credit; confirm completes and credits', async () => {
    const before = await balance(live);
    const o = await create(live, { amount: 1500.5, orderRef: 'tr-live-1' });
    expect(o.rail).toBe('Sbp');
    expect(o.payment).toEqual({ url: null, card: null, phone: POOL_PAYMENT.phone, account: null, iban: null, upiId: null, holder: POOL_PAYMENT.holder, bank: POOL_PAYMENT.bank });

    const rep = await act(o.id, 'report-payment', { payerReference: 'UTR123456' });
    expect(rep.statusCode, rep.body).toBe(200);
    const payed = await getOrder(live, o.id);
    expect(payed).toMatchObject({ status: 'Payed', subStatus: 'WaitingAdminConfirmation', payerReference: 'UTR123456', finishedAt: null });
    expect(payed.credited.amount).toBe('0.00000000');
    expect(await events(o.id)).toEqual([]);
    expect(await balance(live)).toBe(before);

    const at = tick();
    const conf = await act(o.id, 'confirm');
    expect(conf.statusCode, conf.body).toBe(200);
    const done = await getOrder(live, o.id);
    // 1500.50 / 91.8 = 16.34531590; 3 % of it = 0.49035948 (0.490359477 rounded half-up)
    expect(done).toMatchObject({
      status: 'Completed',
      subStatus: 'SuccessfullyPaid',
      commission: { rate: '3.0000', amount: '0.49035948', currency: 'USD' },
      credited: { amount: '15.85495642', currency: 'USD' },
      finishedAt: at.replace(/\.\d{3}Z$/, 'Z'),
    });
    const evs = await events(o.id);
    expect(evs.map((e) => e.event)).toEqual(['order.completed']);
    expect(evs[0].body).toBe(expectedBody({ ...o, orderRef: 'tr-live-1' }, 'order.completed', 'Completed', at));
    expect(Object.keys(JSON.parse(evs[0].body))).toEqual(COMPLETED_BODY_KEYS);
    expect(JSON.parse(evs[0].body).occurredAt).toMatch(MILLIS);
    expect(evs[0].url).toBe(DESK_URL);
    // the callback carries no fee and no credited amount
    expect(evs[0].body).not.toMatch(/commission|credited/);
    expect(await balance(live)).toBe(addUsd(before, '15.85495642'));
  });

  it('a repeated report-payment changes nothing; confirm of a Completed order and simulate-payment of a live order are refused', async () => {
    const o = await create(live, { amount: 918 });
    expect((await act(o.id, 'report-payment')).statusCode).toBe(200);
    expect((await act(o.id, 'report-payment')).statusCode).toBe(200);
    expect((await getOrder(live, o.id)).status).toBe('Payed');
    expect(json(await act(o.id, 'simulate-payment')).fault.code).toBe('INVALID_TRANSITION');
    expect((await act(o.id, 'confirm')).statusCode).toBe(200);
    const again = await act(o.id, 'confirm');
    expect(again.statusCode).toBe(409);
    expect(json(again).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    expect((await events(o.id)).map((e) => e.event)).toEqual(['order.completed']);
  });
});

describe('sandbox orders: Created → Completed at once', () => {
  it('simulate-payment completes, credits at once and writes order.completed; report-payment is refused for sandbox orders', async () => {
    const before = await balance(sandbox);
    const o = await create(sandbox, { amount: 918, rail: 'C2c', orderRef: 'tr-sbx' });
    expect(json(await act(o.id, 'report-payment')).fault.code).toBe('INVALID_TRANSITION');
    const at = tick();
    const res = await act(o.id, 'simulate-payment');
    expect(res.statusCode, res.body).toBe(200);
    const done = await getOrder(sandbox, o.id);
    // 918 / 91.8 = 10 USD; 3 % = 0.3
    expect(done).toMatchObject({ status: 'Completed', subStatus: 'SuccessfullyPaid', credited: { amount: '9.70000000' }, commission: { amount: '0.30000000' } });
    expect(await balance(sandbox)).toBe(addUsd(before, '9.70000000'));
    const evs = await events(o.id);
    expect(evs).toHaveLength(1);
    expect(evs[0].body).toBe(expectedBody({ ...o, orderRef: 'tr-sbx' }, 'order.completed', 'Completed', at));
    expect(json(await act(o.id, 'simulate-payment')).fault.code).toBe('ORDER_ALREADY_COMPLETED');
  });
});

describe('Created → Canceled', () => {
  it('expiry: the worker closes the order as Canceled / Expired with cancelReason "expired" and writes order.cancelled', async () => {
    const o = await create(sandbox, { amount: 100, rail: 'Sbp', lifetimeMinutes: 5, orderRef: 'tr-exp' });
    h.clock.advance(5 * 60_000 - 1);
    await expiryWorker(h.ctx).runOnce();
    expect((await getOrder(sandbox, o.id)).status).toBe('Created');
    const at = tick(1);
    await expiryWorker(h.ctx).runOnce();
    const got = await getOrder(sandbox, o.id);
    expect(got).toMatchObject({ status: 'Canceled', subStatus: 'Expired', cancelReason: 'expired', finishedAt: at.replace(/\.\d{3}Z$/, 'Z') });
    const evs = await events(o.id);
    expect(evs.map((e) => e.event)).toEqual(['order.cancelled']);
    expect(evs[0].body).toBe(expectedBody({ ...o, orderRef: 'tr-exp' }, 'order.cancelled', 'Canceled', at));
  });

  it('merchant cancel: 200 with the get fields, the reason stored, order.cancelled; a repeat is a no-op 200', async () => {
    const o = await create(sandbox, { amount: 250.75, rail: 'Sbp', orderRef: 'tr-cancel' });
    const at = tick();
    const res = await cancel(sandbox, o.id, { reason: 'customer left' });
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(res.headers['x-trace-id']);
    expect(body.result).toEqual(await getOrder(sandbox, o.id));
    expect(body.result).toMatchObject({ id: o.id, orderRef: 'tr-cancel', status: 'Canceled', subStatus: 'Cancelled', cancelReason: 'customer left' });
    const added = ['sandbox', 'payPageUrl'];
    expect(Object.keys(o).slice(-2)).toEqual(added);
    expect(Object.keys(body.result)).toEqual([...Object.keys(o).slice(0, -2), 'subStatus', 'payerReference', 'commission', 'credited', 'cancelReason', 'finishedAt', 'description', 'paidAmount', ...added]);

    tick();
    const again = await cancel(sandbox, o.id, { reason: 'changed my mind' });
    expect(again.statusCode).toBe(200);
    expect(json(again).result).toEqual(body.result);
    const evs = await events(o.id);
    expect(evs.map((e) => e.event)).toEqual(['order.cancelled']);
    expect(evs[0].body).toBe(expectedBody({ ...o, orderRef: 'tr-cancel' }, 'order.cancelled', 'Canceled', at));
  });

  it('merchant cancel without a body or reason still cancels, by orderRef too', async () => {
    const o = await create(sandbox, { amount: 10, rail: 'Sbp', orderRef: 'tr-cancel-ref' });
    const res = await cancel(sandbox, 'tr-cancel-ref');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ id: o.id, status: 'Canceled', subStatus: 'Cancelled' });
    expect(json(res).result.cancelReason).toEqual(expect.any(String));
  });

  it('provider reject: a live Created order becomes Canceled and order.cancelled is written', async () => {
    const o = await create(live, { amount: 500, orderRef: 'tr-reject' });
    const at = tick();
    const res = await act(o.id, 'reject');
    expect(res.statusCode, res.body).toBe(200);
    expect(await getOrder(live, o.id)).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled' });
    const evs = await events(o.id);
    expect(evs.map((e) => e.event)).toEqual(['order.cancelled']);
    expect(evs[0].body).toBe(expectedBody({ ...o, orderRef: 'tr-reject' }, 'order.cancelled', 'Canceled', at));
  });
});

describe('Canceled → Completed (reconciliation)', () => {
  it('a confirmation after expiry completes the order at the rate captured at creation and writes order.completed', async () => {
    const before = await balance(live);
    const o = await create(live, { amount: 1500.5, lifetimeMinutes: 1 });
    h.clock.advance(60_000);
    expect(await expiryWorker(h.ctx).runOnce()).toBeGreaterThanOrEqual(1);
    expect((await getOrder(live, o.id)).status).toBe('Canceled');
    // the market moves a lot before support reconciles the payment
    expect((await admin(h.app, 'PUT', '/rates/RUB', { rate: '120' })).statusCode).toBe(200);
    try {
      const at = tick();
      const res = await act(o.id, 'confirm');
      expect(res.statusCode, res.body).toBe(200);
      const done = await getOrder(live, o.id);
      expect(done).toMatchObject({ status: 'Completed', subStatus: 'SuccessfullyPaid', settled: { amount: '16.34531590', currency: 'USD', rate: '91.80000000' } });
      expect(done.credited.amount).toBe('15.85495642');
      expect(await balance(live)).toBe(addUsd(before, '15.85495642'));
      const evs = await events(o.id);
      expect(evs.map((e) => e.event)).toEqual(['order.cancelled', 'order.completed']);
      expect(evs[1].body).toBe(expectedBody(o, 'order.completed', 'Completed', at));
    } finally {
      await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
    }
  });
});

describe('refusals on closed and paid orders', () => {
  it('cancel of a Completed order is 409 ORDER_ALREADY_COMPLETED and changes nothing', async () => {
    const o = await create(sandbox, { amount: 918, rail: 'Sbp' });
    await act(o.id, 'simulate-payment');
    const res = await cancel(sandbox, o.id, { reason: 'too late' });
    expect(res.statusCode).toBe(409);
    expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'ORDER_ALREADY_COMPLETED' } });
    const got = await getOrder(sandbox, o.id);
    expect(got).toMatchObject({ status: 'Completed', cancelReason: null });
    expect((await events(o.id)).map((e) => e.event)).toEqual(['order.completed']);
  });

  it('cancel of a Payed order is refused with 409 and the order stays Payed', async () => {
    const o = await create(live, { amount: 918 });
    await act(o.id, 'report-payment');
    const res = await cancel(live, o.id);
    expect(res.statusCode).toBe(409);
    expect(json(res).fault.code).toBe('ORDER_ALREADY_PAID');
    expect((await getOrder(live, o.id)).status).toBe('Payed');
    expect(await events(o.id)).toEqual([]);
  });

  it('cancel, reject and simulate of an unknown order are 404 ORDER_NOT_FOUND', async () => {
    expect(json(await cancel(sandbox, 'ord_00000000000000000000000000')).fault.code).toBe('ORDER_NOT_FOUND');
    for (const a of ['reject', 'confirm', 'simulate-payment', 'report-payment']) {
      const res = await act('ord_00000000000000000000000000', a);
      expect(res.statusCode).toBe(404);
      expect(json(res).fault.code).toBe('ORDER_NOT_FOUND');
    }
  });
});

describe('reversal of a credit', () => {
  it('posts a reversal linked to the order, lowers the balance by the credit, and refuses a second reversal', async () => {
    const o = await create(live, { amount: 1500.5 });
    await act(o.id, 'report-payment');
    await act(o.id, 'confirm');
    const credited = '15.85495642';
    const before = await balance(live);

    const res = await act(o.id, 'reverse', { reason: 'provider revoked the confirmation' });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result.reversal).toEqual({ amount: credited, currency: 'USD', reason: 'provider revoked the confirmation' });
    expect(await balance(live)).toBe(addUsd(before, `-${credited}`));
    const { rows } = await h.ctx.db.query<{ kind: string; amount: string; reason: string }>(
      'SELECT kind, amount, reason FROM ledger_entries WHERE order_id = $1 ORDER BY id',
      [o.id],
    );
    expect(rows.map((r) => [r.kind, r.amount])).toEqual([
      ['credit', credited],
      ['reversal', `-${credited}`],
    ]);
    expect(rows[1].reason).toBe('provider revoked the confirmation');

    const again = await act(o.id, 'reverse', { reason: 'twice' });
    expect(again.statusCode).toBe(409);
    expect(json(again).fault.code).toBe('NOTHING_TO_REVERSE');
    expect(await balance(live)).toBe(addUsd(before, `-${credited}`));
    // the order itself stays Completed
    expect((await getOrder(live, o.id)).status).toBe('Completed');
  });

  it('an order that was never credited has nothing to reverse', async () => {
    const o = await create(live, { amount: 100 });
    const res = await act(o.id, 'reverse', { reason: 'nothing there' });
    expect(res.statusCode).toBe(409);
    expect(json(res).fault.code).toBe('NOTHING_TO_REVERSE');
  });
});

describe('the callback URL is captured at creation', () => {
  it('notifyUrl overrides the desk URL; changing the desk URL later changes neither open order', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Url Shop' } });
    const a = await create(d, { amount: 100, rail: 'Sbp' });
    const b = await create(d, { amount: 100, rail: 'Sbp', notifyUrl: 'https://hooks.example.net/orders?x=1' });
    const patched = await admin(h.app, 'PATCH', `/desks/${d.id}`, { callbackUrl: 'https://new.example.org/cb' });
    expect(patched.statusCode, patched.body).toBe(200);
    const c = await create(d, { amount: 100, rail: 'Sbp' });
    for (const o of [a, b, c]) expect((await cancel(d, o.id)).statusCode).toBe(200);
    expect((await events(a.id))[0].url).toBe(DESK_URL);
    expect((await events(b.id))[0].url).toBe('https://hooks.example.net/orders?x=1');
    expect((await events(c.id))[0].url).toBe('https://new.example.org/cb');
  });

  it('the captured notifyUrl is the parsed form that passed the URL rules', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Url Shop 2' } });
    const o = await create(d, { amount: 100, rail: 'Sbp', notifyUrl: 'https://Hooks.Example.NET:443/a/../cb' });
    await cancel(d, o.id);
    expect((await events(o.id))[0].url).toBe('https://hooks.example.net/cb');
  });
});

describe('rail-less methods (D11)', () => {
  it('a BankApp order carries rail null in the create and get answers and in the callback body', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Rail-less' }, desk: { method: 'BankApp', rails: [] } });
    const o = await create(d, { amount: 300 });
    expect(o).toMatchObject({ method: 'BankApp', rail: null });
    expect((await getOrder(d, o.id)).rail).toBeNull();
    const at = tick();
    await act(o.id, 'simulate-payment');
    const evs = await events(o.id);
    expect(evs[0].body).toBe(expectedBody(o, 'order.completed', 'Completed', at));
    expect(JSON.parse(evs[0].body).rail).toBeNull();
  });
});

/** Exact decimal addition of two 8-place USD strings, independent of the code under test. */
function addUsd(a: string, b: string): string {
  const toUnits = (s: string) => {
    const neg = s.startsWith('-');
    const [i, f = ''] = s.replace('-', '').split('.');
    const v = BigInt(i) * 100_000_000n + BigInt((f + '00000000').slice(0, 8));
    return neg ? -v : v;
  };
  const sum = toUnits(a) + toUnits(b);
  const neg = sum < 0n;
  const abs = neg ? -sum : sum;
  return `${neg ? '-' : ''}${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, '0')}`;
}
