import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paygate, PaygateError, verifyCallback } from '@paygate/sdk';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { admin, createHarness, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The SDK against a real gateway on a real socket: the harness app listening on 127.0.0.1, its
// manual clock set to real time (the SDK signs with the real clock), callbacks to a loopback receiver.

let h: Harness;
let rx: Receiver;
let desk: DeskCreds;
let baseUrl: string;
let pg: Paygate;

beforeAll(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' } });
  h.clock.set(Date.now());
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  rx = await startReceiver();
  desk = await provisionDesk(h.app, { desk: { callbackUrl: `${rx.url}/callbacks` } });
  pg = new Paygate({ baseUrl, key: desk.key, secret: desk.secret });
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});

const simulatePayment = async (id: string) => expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);

describe('SDK against a running gateway', () => {
  it('reads methods, rates and balance', async () => {
    const methods = await pg.methods();
    expect(methods).toMatchObject({ method: 'Classic', available: true });
    expect(methods.rails.map((r) => r.rail).sort()).toEqual(['C2c', 'Sbp']);
    expect(await pg.rates('RUB')).toEqual({ settlement: 'USD', rates: [{ code: 'RUB', rate: '91.80000000', priceable: true }] });
    expect(await pg.rates()).toMatchObject({ rates: [{ code: 'RUB' }] });
    expect(await pg.balance()).toEqual({ currency: 'USD', available: '0.00000000', mode: 'sandbox' });
  });

  it('creates, reads (by id and by orderRef) and cancels an order', async () => {
    const created = await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef: 'sdk-inv-1' });
    expect(created).toMatchObject({ id: expect.stringMatching(/^ord_/), orderRef: null, amount: '918.00', currency: 'RUB', status: 'Created', direction: 'In' });
    expect(created.settled).toEqual({ amount: '10.00000000', currency: 'USD', rate: '91.80000000' });
    // The same orderRef within the hour is the same order: what makes retrying creation safe.
    expect((await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef: 'sdk-inv-1' })).id).toBe(created.id);

    const byId = await pg.orders.get(created.id);
    expect(byId).toMatchObject({ id: created.id, orderRef: 'sdk-inv-1', subStatus: 'WaitingForPayment' });
    expect((await pg.orders.get('sdk-inv-1')).id).toBe(created.id);

    const cancelled = await pg.orders.cancel(created.id, 'клиент ушёл');
    expect(cancelled).toMatchObject({ id: created.id, status: 'Canceled', cancelReason: 'клиент ушёл' });
    expect((await pg.orders.cancel(created.id)).status).toBe('Canceled');
  });

  it('answers the shapes the SDK types describe', async () => {
    const created = await pg.orders.create({ amount: 918, rail: 'Sbp' });
    const createKeys = ['id', 'orderRef', 'amount', 'currency', 'settled', 'method', 'rail', 'direction', 'status', 'payment', 'createdAt', 'expiresAt', 'sandbox', 'payPageUrl'];
    expect(Object.keys(created).sort()).toEqual([...createKeys].sort());
    expect(created.sandbox).toBe(true);
    expect(created.payPageUrl).toBe(`http://127.0.0.1:8080/pay/${created.id}`);
    expect(Object.keys(created.payment).sort()).toEqual(['account', 'bank', 'card', 'holder', 'iban', 'phone', 'upiId', 'url']);
    const order = await pg.orders.get(created.id);
    expect(Object.keys(order).sort()).toEqual([...createKeys, 'subStatus', 'payerReference', 'commission', 'credited', 'cancelReason', 'finishedAt', 'description', 'paidAmount'].sort());
    expect(order.commission).toEqual({ rate: '0.0000', amount: '0.00000000', currency: 'USD' });
    expect(order.credited).toEqual({ amount: '0.00000000', currency: 'USD' });
    const page = await pg.eventsPage({ orderId: created.id });
    expect(Object.keys(page).sort()).toEqual(['events', 'hasMore', 'next']);
  });

  it('opens and reads an appeal on a cancelled order', async () => {
    const o = await pg.orders.create({ amount: 100, rail: 'C2c' });
    await pg.orders.cancel(o.id);
    const appeal = await pg.appeals.create({ orderId: o.id, reason: 'paid, see receipt', evidenceUrl: 'https://files.example/r.pdf' });
    expect(appeal).toMatchObject({ id: expect.stringMatching(/^apl_/), orderId: o.id, status: 'Open', reason: 'paid, see receipt' });
    expect(Object.keys(appeal).sort()).toEqual(['amount', 'comment', 'createdAt', 'evidenceUrl', 'id', 'orderId', 'orderRef', 'reason', 'resolvedAt', 'slaDueAt', 'status']);
    expect(await pg.appeals.get(appeal.id)).toEqual(appeal);
    expect((await pg.orders.get(o.id)).status).toBe('Dispute');
  });

  it('reports gateway refusals as PaygateError with status, code, detail and traceId', async () => {
    const notFound = await pg.orders.get('ord_nope').catch((e) => e);
    expect(notFound).toBeInstanceOf(PaygateError);
    expect(notFound).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND', traceId: expect.any(String) });

    const o = await pg.orders.create({ amount: 918, rail: 'Sbp' });
    await simulatePayment(o.id);
    await expect(pg.orders.cancel(o.id)).rejects.toMatchObject({ status: 409, code: 'ORDER_ALREADY_COMPLETED' });

    await expect(pg.orders.create({ amount: 1, rail: 'Nope' })).rejects.toMatchObject({ status: 400, code: 'INVALID_RAIL' });
    await expect(pg.orders.create({ amount: -1, rail: 'Sbp' })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR', detail: expect.stringContaining('amount') });

    const wrong = new Paygate({ baseUrl, key: desk.key, secret: 'sk_wrong' });
    await expect(wrong.balance()).rejects.toMatchObject({ status: 401, code: 'AUTH_FAILED' });
  });

  it('recovers from a local clock an hour off by learning the gateway clock', async () => {
    const skewed = new Paygate({ baseUrl, key: desk.key, secret: desk.secret, now: () => Date.now() - 3600_000 });
    expect((await skewed.balance()).currency).toBe('USD');
    expect((await skewed.methods()).available).toBe(true);
  });

  it('pages through the events feed from a remembered id, and by order', async () => {
    const o = await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef: 'sdk-feed-1' });
    await simulatePayment(o.id);
    const all = [];
    for await (const e of pg.events({ limit: 1 })) all.push(e);
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const last = all[all.length - 1];
    expect(last).toMatchObject({ event: 'order.completed', orderId: o.id, delivery: { state: 'pending' } });
    expect(JSON.parse(last.body)).toMatchObject({ event: 'order.completed', id: o.id, orderRef: 'sdk-feed-1', status: 'Completed' });

    const after = [];
    for await (const e of pg.events({ after: all[all.length - 2].id })) after.push(e.id);
    expect(after).toEqual([last.id]);
    const nothing = [];
    for await (const e of pg.events({ after: last.id })) nothing.push(e);
    expect(nothing).toEqual([]);
    const byOrder = [];
    for await (const e of pg.events({ orderId: 'sdk-feed-1' })) byOrder.push(e.id);
    expect(byOrder).toEqual([last.id]);
    expect(Number((await pg.balance()).available)).toBeGreaterThan(0);
  });

  it('verifyCallback accepts a real callback from the delivery worker and refuses it altered, with a wrong secret, late or parsed', async () => {
    rx.hits.length = 0;
    const o = await pg.orders.create({ amount: 459, rail: 'Sbp', orderRef: 'sdk-cb-1', notifyUrl: `${rx.url}/order-cb` });
    await simulatePayment(o.id);
    const worker = new DeliveryWorker(h.ctx, { timeoutMs: 2000 });
    try {
      while ((await worker.runOnce()) > 0);
    } finally {
      await worker.close();
    }
    const hit = rx.hits.find((r) => r.path === '/order-cb');
    expect(hit).toBeDefined();
    const { body, headers } = hit!;

    const event = verifyCallback(body, headers, desk.secret);
    expect(event).toMatchObject({ event: 'order.completed', id: o.id, orderRef: 'sdk-cb-1', status: 'Completed', amount: { value: '459.00', currency: 'RUB' } });
    expect(verifyCallback(body.toString('utf8'), new Headers(headers as Record<string, string>), desk.secret).id).toBe(o.id);

    // The events feed carries the same event id and the same body bytes.
    const fed = [];
    for await (const e of pg.events({ orderId: o.id })) fed.push(e);
    expect(fed.map((e) => e.id)).toEqual([headers['x-gate-event-id']]);
    expect(Buffer.from(fed[0].body, 'utf8').equals(body)).toBe(true);
    expect(fed[0].delivery.state).toBe('delivered');

    const changed = Buffer.from(body);
    changed[10] ^= 0x01;
    expect(() => verifyCallback(changed, headers, desk.secret)).toThrow(/signature does not match/);
    expect(() => verifyCallback(body, headers, desk.secret + 'x')).toThrow(/signature does not match/);
    const later = Number(headers['x-gate-ts']) * 1000 + 301_000;
    expect(() => verifyCallback(body, headers, desk.secret, { now: () => later })).toThrow(/301 s old/);
    expect(() => verifyCallback(JSON.parse(body.toString('utf8')), headers, desk.secret)).toThrow(/parsed object/);

    // An independent check of the same bytes, for good measure.
    const expected = createHmac('sha256', desk.secret).update(Buffer.concat([Buffer.from(`${headers['x-gate-ts']}.${headers['x-gate-event-id']}.`), body])).digest('hex');
    expect(headers['x-gate-sign']).toBe(expected);
  });
});
