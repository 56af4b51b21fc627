import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/callbacks/attempts.js';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { DEFAULT_CALLBACK_TIMEOUT_MS } from '../../src/callbacks/send.js';
import { openPg } from '../../src/store/db.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let h: Harness;
let rx: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' } });
  rx = await startReceiver();
  worker = new DeliveryWorker(h.ctx, { timeoutMs: 300 });
});
afterAll(async () => {
  await worker.close();
  await rx.close();
  await h.close();
});
afterEach(() => {
  rx.hits.length = 0;
  rx.respond(() => ({ status: 200, body: 'ok' }));
});

async function deskWith(extra: Record<string, unknown> = {}): Promise<DeskCreds> {
  return provisionDesk(h.app, { desk: { callbackUrl: `${rx.url}/desk`, ...extra } });
}

async function completedOrder(d: DeskCreds, body: Record<string, unknown> = {}): Promise<string> {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp', ...body }) });
  expect(res.statusCode).toBe(201);
  const id = json(res).result.id;
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  return id;
}

const attempts = async (orderId: string) => json(await admin(h.app, 'GET', `/orders/${orderId}/callbacks`)).result;

/** Runs the worker until nothing is due at the current fake time. */
async function deliverDue(w = worker) {
  while ((await w.runOnce()) > 0);
}

describe('callback delivery', () => {
  it('sends the spec headers and the exact body bytes, signed over {ts}.{eventId}.{raw body}', async () => {
    const d = await deskWith();
    const id = await completedOrder(d, { orderRef: 'inv-77' });
    await deliverDue();
    expect(rx.hits).toHaveLength(1);
    const hit = rx.hits[0];
    expect(hit.path).toBe('/desk');
    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.headers['user-agent']).toBe('Paygate/1.0 Callback');
    const ts = hit.headers['x-gate-ts'] as string;
    const eventId = hit.headers['x-gate-event-id'] as string;
    expect(ts).toBe(String(Math.floor(h.clock.now() / 1000)));
    expect(eventId).toMatch(/^evt_[0-9a-z]{26}$/);
    // An independent verifier, over the raw bytes as received.
    const expected = createHmac('sha256', d.secret).update(Buffer.concat([Buffer.from(`${ts}.${eventId}.`), hit.body])).digest('hex');
    expect(hit.headers['x-gate-sign']).toBe(expected);
    const body = JSON.parse(hit.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['event', 'id', 'orderRef', 'status', 'amount', 'settled', 'paidAmount', 'method', 'rail', 'occurredAt', 'sandbox']);
    expect(body).toMatchObject({
      event: 'order.completed',
      id,
      orderRef: 'inv-77',
      status: 'Completed',
      amount: { value: '918.00', currency: 'RUB' },
      settled: { value: '10.00000000', currency: 'USD', rate: '91.80000000' },
      method: 'Classic',
      rail: 'Sbp',
      sandbox: true,
    });
    expect(body.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await attempts(id)).toEqual([
      { eventId, event: 'order.completed', attempt: 1, outcome: 'delivered', httpCode: 200, response: 'ok', error: null, at: expect.any(String) },
    ]);
  });

  it.each([
    [500, 'retry'],
    [503, 'retry'],
    [429, 'retry'],
    [400, 'rejected'],
    [404, 'rejected'],
    [201, 'rejected'],
    [204, 'rejected'],
    [301, 'rejected'],
    [302, 'rejected'],
  ])('HTTP %i is %s', async (status, outcome) => {
    const d = await deskWith();
    const other = await startReceiver();
    rx.respond(() => ({ status, body: status === 204 ? '' : `answer ${status} ` + 'x'.repeat(400), headers: { location: `${other.url}/elsewhere` } }));
    const id = await completedOrder(d);
    await deliverDue();
    const log = await attempts(id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ attempt: 1, outcome, httpCode: status });
    if (status !== 204) expect(log[0].response).toHaveLength(300);
    expect(other.hits).toHaveLength(0); // redirects are never followed
    await other.close();
  });

  it('a connection error and no answer in time are retried', async () => {
    const dead = await startReceiver();
    const deadUrl = dead.url;
    await dead.close();
    const d = await deskWith({ callbackUrl: `${deadUrl}/gone` });
    const id = await completedOrder(d);
    await deliverDue();
    expect((await attempts(id))[0]).toMatchObject({ outcome: 'retry', httpCode: null });

    const d2 = await deskWith();
    rx.respond(() => 'hang');
    const id2 = await completedOrder(d2);
    await deliverDue();
    const log = await attempts(id2);
    expect(log[0]).toMatchObject({ outcome: 'retry', httpCode: null });
    expect(log[0].error).toMatch(/no answer within 300 ms/);
    expect(DEFAULT_CALLBACK_TIMEOUT_MS).toBe(15_000);
  });

  it('follows the full schedule: 8 attempts 10, 20, … 640 s apart, then failed', async () => {
    const d = await deskWith();
    rx.respond(() => ({ status: 503, body: 'down' }));
    const id = await completedOrder(d);
    const start = h.clock.now();
    await deliverDue();
    const delays = [10, 20, 40, 80, 160, 320, 640];
    for (const [i, s] of delays.entries()) {
      expect(retryDelayMs(i + 1)).toBe(s * 1000);
      h.clock.advance(s * 1000 - 1);
      await deliverDue();
      expect(await attempts(id)).toHaveLength(i + 1); // not yet due
      h.clock.advance(1);
      await deliverDue();
      expect(await attempts(id)).toHaveLength(i + 2);
    }
    const log = await attempts(id);
    expect(log.map((a: any) => a.outcome)).toEqual([...Array(7).fill('retry'), 'failed']);
    expect(log.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const mine = rx.hits.filter((r) => JSON.parse(r.body.toString()).id === id);
    expect(mine).toHaveLength(8);
    expect(new Set(mine.map((r) => r.headers['x-gate-event-id'])).size).toBe(1);
    expect(new Set(mine.map((r) => r.body.toString())).size).toBe(1);
    expect(h.clock.now() - start).toBe(1270_000);
    h.clock.advance(3600_000);
    await deliverDue();
    expect(await attempts(id)).toHaveLength(MAX_ATTEMPTS);
  });

  it('a desk with callbacks off gets a suppressed record and nothing is sent', async () => {
    const d = await deskWith({ callbacksEnabled: false });
    const id = await completedOrder(d);
    await deliverDue();
    expect(rx.hits).toHaveLength(0);
    expect(await attempts(id)).toMatchObject([{ outcome: 'suppressed', httpCode: null }]);
  });

  it('an event written while the callbacks are off is recorded suppressed at once; one already waiting when they are switched off is suppressed when due', async () => {
    const off = await deskWith({ callbacksEnabled: false });
    const early = await completedOrder(off);
    // No delivery pass has run: the attempt is in the log already, and nothing is left for a worker.
    expect(await attempts(early)).toMatchObject([{ attempt: 1, outcome: 'suppressed', httpCode: null }]);
    const on = await deskWith();
    const waiting = await completedOrder(on);
    expect(await attempts(waiting)).toEqual([]);
    await admin(h.app, 'PATCH', `/desks/${on.id}`, { callbacksEnabled: false });
    await deliverDue();
    expect(rx.hits).toHaveLength(0);
    expect(await attempts(waiting)).toMatchObject([{ attempt: 1, outcome: 'suppressed', httpCode: null }]);
    expect(await attempts(early)).toHaveLength(1);
  });

  it('the URL is captured at creation: notifyUrl wins, a later desk URL change affects only new orders', async () => {
    const d = await deskWith();
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) });
    const first = json(res).result.id;
    await admin(h.app, 'PATCH', `/desks/${d.id}`, { callbackUrl: `${rx.url}/changed` });
    const second = await completedOrder(d);
    const third = await completedOrder(d, { notifyUrl: `${rx.url}/per-order` });
    await admin(h.app, 'POST', `/orders/${first}/simulate-payment`);
    await deliverDue();
    const byOrder = new Map(rx.hits.map((r) => [JSON.parse(r.body.toString()).id, r.path]));
    expect(byOrder.get(first)).toBe('/desk');
    expect(byOrder.get(second)).toBe('/changed');
    expect(byOrder.get(third)).toBe('/per-order');
  });

  it('signs each attempt with the current secret, so a rotation applies to the next attempt', async () => {
    const d = await deskWith();
    rx.respond(() => ({ status: 500 }));
    await completedOrder(d);
    await deliverDue();
    const rot = json(await admin(h.app, 'POST', `/desks/${d.id}/secret`)).result.secret;
    rx.respond(() => ({ status: 200 }));
    h.clock.advance(10_000);
    await deliverDue();
    const id = JSON.parse(rx.hits[0].body.toString()).id;
    const [a, b] = rx.hits.filter((r) => JSON.parse(r.body.toString()).id === id);
    const sig = (secret: string, r: typeof a) =>
      createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${r.headers['x-gate-ts']}.${r.headers['x-gate-event-id']}.`), r.body])).digest('hex');
    expect(a.headers['x-gate-sign']).toBe(sig(d.secret, a));
    expect(b.headers['x-gate-sign']).toBe(sig(rot, b));
  });

  it('the URL rules apply again at connect time: a host that is not allowlisted is refused', async () => {
    const d = await deskWith();
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp', notifyUrl: 'https://merchant.example/cb' }) });
    const id = json(res).result.id;
    await admin(h.app, 'POST', `/orders/${id}/simulate-payment`);
    // merchant.example resolves (in tests) to a public address, but at delivery time it resolves to loopback.
    const w = new DeliveryWorker({ ...h.ctx, resolve: async () => ['127.0.0.2'] }, { timeoutMs: 300 });
    while ((await w.runOnce()) > 0);
    await w.close();
    expect((await attempts(id))[0]).toMatchObject({ outcome: 'rejected', error: 'blocked address' });
  });

  it('resend sends the current state as a new event with a new id; an open order gets order.updated', async () => {
    const d = await deskWith();
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) });
    const id = json(res).result.id;
    const sent = await admin(h.app, 'POST', `/orders/${id}/resend`);
    expect(sent.statusCode).toBe(200);
    const r1 = json(sent).result;
    expect(r1).toMatchObject({ event: 'order.updated', orderId: id, status: 'Created' });
    await admin(h.app, 'POST', `/orders/${id}/simulate-payment`);
    const r2 = json(await admin(h.app, 'POST', `/orders/${id}/resend`)).result;
    expect(r2.event).toBe('order.completed');
    await deliverDue();
    const ids = rx.hits.map((r) => r.headers['x-gate-event-id']);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(r1.eventId);
    expect(ids).toContain(r2.eventId);
    expect(JSON.parse(rx.hits.find((r) => r.headers['x-gate-event-id'] === r1.eventId)!.body.toString()).status).toBe('Created');
  });
});

describe('GET /gw/v1/events', () => {
  it('lists the desk events oldest first with their signed body and delivery state, paged by after', async () => {
    const d = await deskWith();
    const other = await deskWith();
    rx.respond(() => ({ status: 500 }));
    const ids = [await completedOrder(d), await completedOrder(d), await completedOrder(d)];
    await completedOrder(other);
    await deliverDue();
    const page1 = json(await signed(h, d, '/gw/v1/events', { query: 'limit=2' })).result;
    expect(page1.events.map((e: any) => e.orderId)).toEqual(ids.slice(0, 2));
    expect(page1.hasMore).toBe(true);
    expect(page1.events[0].delivery).toMatchObject({ state: 'pending', attempts: 1 });
    expect(JSON.parse(page1.events[0].body)).toMatchObject({ event: 'order.completed', id: ids[0] });
    const page2 = json(await signed(h, d, '/gw/v1/events', { query: `after=${page1.next}` })).result;
    expect(page2.events.map((e: any) => e.orderId)).toEqual([ids[2]]);
    expect(page2.hasMore).toBe(false);
    const one = json(await signed(h, d, '/gw/v1/events', { query: `orderId=${ids[1]}` })).result;
    expect(one.events.map((e: any) => e.orderId)).toEqual([ids[1]]);

    rx.respond(() => ({ status: 200 }));
    h.clock.advance(10_000);
    await deliverDue();
    const undelivered = json(await signed(h, d, '/gw/v1/events', { query: 'delivered=false' })).result;
    expect(undelivered.events).toHaveLength(0);
    const all = json(await signed(h, d, '/gw/v1/events')).result;
    expect(all.events.every((e: any) => e.delivery.state === 'delivered')).toBe(true);
    const bad = await signed(h, d, '/gw/v1/events', { query: 'after=evt_nope' });
    expect(json(bad).fault.code).toBe('VALIDATION_ERROR');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('two delivery workers on one PostgreSQL', () => {
  it('send each attempt exactly once', async () => {
    const d = await deskWith();
    for (let i = 0; i < 40; i++) {
      // The desk may create 30 orders per 10 s window of the (manual) clock: move to the next window.
      if (i === 25) h.clock.advance(10_000);
      await completedOrder(d);
    }
    const db2 = openPg(h.testDb.url!, { max: 8 });
    const a = new DeliveryWorker(h.ctx, { concurrency: 8, workerId: 'a' });
    const b = new DeliveryWorker({ ...h.ctx, db: db2 }, { concurrency: 8, workerId: 'b' });
    let progress = 1;
    while (progress > 0) {
      const [x, y] = await Promise.all([a.runOnce(), b.runOnce()]);
      progress = x + y;
    }
    await Promise.all([a.close(), b.close()]);
    await db2.close();
    const counts = new Map<string, number>();
    for (const r of rx.hits) counts.set(r.headers['x-gate-event-id'] as string, (counts.get(r.headers['x-gate-event-id'] as string) ?? 0) + 1);
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });
});
