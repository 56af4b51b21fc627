import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders, type ProviderEventType } from '../../src/providers/providerMessages.js';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { listOrderEvents } from '../../src/store/outbox.js';
import { startMockProvider, type MockProvider, type ReportOptions } from '../../tools/mock-provider.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/**
 * Provider → gateway events (operator-api.md, "Provider connector") sent by the reference mock over
 * a real socket to the listening app, and the customer's payment reference on the payment page.
 */

interface Prov {
  id: string;
  key: string;
  secret: string;
  mock: MockProvider;
}

let h: Harness;
let gw: string;
let desk: DeskCreds;
let upiDesk: DeskCreds;
let A: Prov;
let B: Prov;
let poolId: string;

const CAPABILITIES = [
  { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
  { method: 'CrossBorder', rail: 'Upi', currency: 'INR', min: '0', max: '0' },
];

async function httpProvider(name: string, priority: number): Promise<Prov> {
  const key = `key_${name}_events`;
  const secret = `secret_${name}_events_0123456789abcdef`;
  const mock = await startMockProvider({ key, secret, clock: h.clock });
  const res = await admin(h.app, 'POST', '/providers', { name, kind: 'http', priority, capabilities: CAPABILITIES, baseUrl: mock.url, key, secret });
  expect(res.statusCode).toBe(201);
  return { id: json(res).result.id, key, secret, mock };
}

beforeAll(async () => {
  h = await createHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  gw = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  desk = await provisionDesk(h.app, { merchant: { name: 'Live shop', approve: true }, desk: { rails: ['Sbp'] } });
  upiDesk = await provisionDesk(h.app, {
    merchant: { name: 'India shop', approve: true },
    currencies: { INR: '88.5' },
    desk: { method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] },
  });
  A = await httpProvider('A', 1);
  B = await httpProvider('B', 2);
  const pool = await admin(h.app, 'POST', '/providers', {
    name: 'Pool',
    kind: 'pool',
    priority: 50,
    capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
    requisites: [{ card: '2200150099998888', holder: 'POOL', bank: 'Bank' }],
  });
  poolId = json(pool).result.id;
});

afterAll(async () => {
  await Promise.all([A.mock.close(), B.mock.close()]);
  await h.close();
});

let ref = 0;
/** A live order served by A (or by B while A is paused). */
async function liveOrder(d: DeskCreds = desk, servedBy: Prov = A): Promise<any> {
  if (servedBy === B) await admin(h.app, 'POST', `/providers/${A.id}/pause`);
  try {
    const body = d === upiDesk ? { amount: 5000, currency: 'INR', orderRef: `upi-${++ref}` } : { amount: 1500, currency: 'RUB', orderRef: `ev-${++ref}` };
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
    expect(res.statusCode, res.body).toBe(201);
    const o = json(res).result;
    expect(json(await admin(h.app, 'GET', `/orders/${o.id}`)).result.providerId).toBe(servedBy.id);
    return o;
  } finally {
    if (servedBy === B) await admin(h.app, 'POST', `/providers/${A.id}/resume`);
  }
}

const report = (p: Prov, orderId: string, type: ProviderEventType, opts: ReportOptions & { payerReference?: string; providerId?: string } = {}) =>
  p.mock.reportEvent(gw, opts.providerId ?? p.id, { orderId, type, ...(opts.payerReference !== undefined ? { payerReference: opts.payerReference } : {}) }, opts);

/** Any bytes, signed with the provider's credentials, for bodies the mock would not produce. */
async function sendSigned(p: Prov, rawBody: string, o: { eventId?: string; headers?: Record<string, string | undefined> } = {}) {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ...signProviderRequestHeaders(p.key, p.secret, o.eventId ?? newProviderMessageId(), Math.floor(h.clock.now() / 1000), rawBody),
  };
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  const res = await request(`${gw}/providers/v1/${p.id}/events`, { method: 'POST', headers, body: rawBody });
  return { status: res.statusCode, body: await res.body.text() };
}

const parse = (r: { body: string }) => JSON.parse(r.body);
const getOrder = async (id: string, d: DeskCreds = desk) => json(await signed(h, d, `/gw/v1/orders/${id}`)).result;
const eventsOf = async (orderId: string) => (await listOrderEvents(h.ctx.db, orderId)).map((e) => e.event);
const balanceOf = async (d: DeskCreds) => json(await admin(h.app, 'GET', `/merchants/${d.merchantId}`)).result.balance.available as string;
async function recorded(providerId: string, eventId: string): Promise<boolean> {
  const { rows } = await h.ctx.db.query('SELECT 1 FROM provider_messages WHERE provider_id = $1 AND event_id = $2', [providerId, eventId]);
  return rows.length === 1;
}
async function ledger(orderId: string): Promise<{ kind: string; amount: string; reason: string | null }[]> {
  const { rows } = await h.ctx.db.query<{ kind: string; amount: string; reason: string | null }>(
    'SELECT kind, amount::text AS amount, reason FROM ledger_entries WHERE order_id = $1 ORDER BY id',
    [orderId],
  );
  return rows;
}

describe('POST /providers/v1/{providerId}/events: effects', () => {
  it('paid: Created → Payed with the payer reference stored, no callback yet', async () => {
    const o = await liveOrder();
    const eventId = newProviderMessageId();
    const res = await report(A, o.id, 'paid', { payerReference: '412345678901', eventId });
    expect(res.status).toBe(200);
    const body = parse(res);
    expect(body).toMatchObject({ status: 'ok', result: { eventId, duplicate: false, orderStatus: 'Payed' } });
    expect(typeof body.traceId).toBe('string');
    const got = await getOrder(o.id);
    expect(got).toMatchObject({ status: 'Payed', subStatus: 'WaitingAdminConfirmation', payerReference: '412345678901' });
    expect(await eventsOf(o.id)).toEqual([]);
    expect(await recorded(A.id, eventId)).toBe(true);
  });

  it('confirmed: Payed → Completed, credited, order.completed queued', async () => {
    const o = await liveOrder();
    expect((await report(A, o.id, 'paid')).status).toBe(200);
    const before = await balanceOf(desk);
    expect((await report(A, o.id, 'confirmed')).status).toBe(200);
    const got = await getOrder(o.id);
    expect(got).toMatchObject({ status: 'Completed', subStatus: 'SuccessfullyPaid', credited: { amount: o.settled.amount, currency: 'USD' } });
    expect(await eventsOf(o.id)).toEqual(['order.completed']);
    expect(Number(await balanceOf(desk)) - Number(before)).toBeCloseTo(Number(o.settled.amount), 8);
  });

  it('rejected: Created → Canceled with cancelReason "rejected by provider"; a second reject changes nothing', async () => {
    const o = await liveOrder();
    expect((await report(A, o.id, 'rejected')).status).toBe(200);
    expect(await getOrder(o.id)).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled', cancelReason: 'rejected by provider' });
    const again = await report(A, o.id, 'rejected');
    expect(again.status).toBe(200);
    expect(parse(again).result).toMatchObject({ duplicate: false, orderStatus: 'Canceled' });
    expect(await eventsOf(o.id)).toEqual(['order.cancelled']);
  });

  it('revoked: the credit is reversed with reason "revoked by provider"; the order stays Completed', async () => {
    const o = await liveOrder();
    expect((await report(A, o.id, 'confirmed')).status).toBe(200);
    const credited = await balanceOf(desk);
    const res = await report(A, o.id, 'revoked');
    expect(res.status).toBe(200);
    expect(parse(res).result.orderStatus).toBe('Completed');
    expect(await ledger(o.id)).toEqual([
      { kind: 'credit', amount: o.settled.amount, reason: 'confirm' },
      { kind: 'reversal', amount: `-${o.settled.amount}`, reason: 'revoked by provider' },
    ]);
    expect(Number(credited) - Number(await balanceOf(desk))).toBeCloseTo(Number(o.settled.amount), 8);
    expect((await getOrder(o.id)).status).toBe('Completed');
    // Nothing is left to reverse: a new revoke is a transition that is not allowed.
    const second = await report(A, o.id, 'revoked');
    expect(second.status).toBe(409);
    expect(parse(second).fault.code).toBe('NOTHING_TO_REVERSE');
  });

  it('confirmed reconciles an expired order: Canceled → Completed', async () => {
    const o = await liveOrder();
    h.clock.advance(16 * 60_000);
    await expireDueOrders(h.ctx, 100);
    expect(await getOrder(o.id)).toMatchObject({ status: 'Canceled', cancelReason: 'expired' });
    expect((await report(A, o.id, 'confirmed')).status).toBe(200);
    expect((await getOrder(o.id)).status).toBe('Completed');
  });
});

describe('POST /providers/v1/{providerId}/events: idempotency by X-Gate-Event-Id', () => {
  it('the same event id twice answers 200 both times and applies once', async () => {
    const o = await liveOrder();
    const eventId = newProviderMessageId();
    const first = await report(A, o.id, 'confirmed', { eventId });
    const second = await report(A, o.id, 'confirmed', { eventId });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(parse(first).result.duplicate).toBe(false);
    expect(parse(second).result).toEqual({ eventId, duplicate: true });
    expect(await eventsOf(o.id)).toEqual(['order.completed']);
    expect((await ledger(o.id)).filter((e) => e.kind === 'credit')).toHaveLength(1);
    // A different event id asking the same is judged as new: the order is already completed.
    const fresh = await report(A, o.id, 'confirmed');
    expect(fresh.status).toBe(409);
    expect(parse(fresh).fault.code).toBe('ORDER_ALREADY_COMPLETED');
  });

  it('concurrent deliveries of one event apply it once', async () => {
    const o = await liveOrder();
    await report(A, o.id, 'confirmed');
    const eventId = newProviderMessageId();
    const all = await Promise.all(Array.from({ length: 4 }, () => report(A, o.id, 'revoked', { eventId })));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(all.filter((r) => parse(r).result.duplicate === false)).toHaveLength(1);
    expect((await ledger(o.id)).filter((e) => e.kind === 'reversal')).toHaveLength(1);
  });

  it('a refused event is not recorded: its retry is judged afresh once the order allows it', async () => {
    const o = await liveOrder();
    const eventId = newProviderMessageId();
    const early = await report(A, o.id, 'revoked', { eventId });
    expect(early.status).toBe(409);
    expect(parse(early).fault.code).toBe('NOTHING_TO_REVERSE');
    expect(await recorded(A.id, eventId)).toBe(false);
    await report(A, o.id, 'confirmed');
    const retry = await report(A, o.id, 'revoked', { eventId });
    expect(retry.status).toBe(200);
    expect(parse(retry).result.duplicate).toBe(false);
    expect(await recorded(A.id, eventId)).toBe(true);
  });

  it('event ids are per provider: the same id from another provider is its own message', async () => {
    const a = await liveOrder();
    const b = await liveOrder(desk, B);
    const eventId = newProviderMessageId();
    expect(parse(await report(A, a.id, 'paid', { eventId })).result.duplicate).toBe(false);
    expect(parse(await report(B, b.id, 'paid', { eventId })).result.duplicate).toBe(false);
    expect((await getOrder(b.id)).status).toBe('Payed');
  });
});

describe('POST /providers/v1/{providerId}/events: refusals', () => {
  it('a bad signature is 401 AUTH_FAILED and changes nothing', async () => {
    const o = await liveOrder();
    const eventId = newProviderMessageId();
    const res = await report(A, o.id, 'confirmed', { badSignature: true, eventId });
    expect(res.status).toBe(401);
    expect(parse(res)).toMatchObject({ status: 'error', fault: { code: 'AUTH_FAILED' } });
    expect((await getOrder(o.id)).status).toBe('Created');
    expect(await recorded(A.id, eventId)).toBe(false);
    // Signed with another provider's credentials: refused too.
    const foreign = await B.mock.reportEvent(gw, A.id, { orderId: o.id, type: 'confirmed' });
    expect(foreign.status).toBe(401);
    expect((await getOrder(o.id)).status).toBe('Created');
  });

  it('a stale or future timestamp (more than 300 s off) is 401; 299 s is accepted', async () => {
    const o = await liveOrder();
    const now = Math.floor(h.clock.now() / 1000);
    for (const tsSec of [now - 301, now + 301, now - 3600]) {
      const res = await report(A, o.id, 'paid', { tsSec });
      expect(res.status).toBe(401);
      expect(parse(res).fault).toEqual({ code: 'AUTH_FAILED', detail: 'X-Gate-Ts more than 300 s from the gateway clock' });
    }
    expect((await getOrder(o.id)).status).toBe('Created');
    expect((await report(A, o.id, 'paid', { tsSec: now - 299 })).status).toBe(200);
  });

  it('a recorded event replayed after the skew window is refused on its timestamp', async () => {
    const o = await liveOrder();
    const eventId = newProviderMessageId();
    const tsSec = Math.floor(h.clock.now() / 1000);
    expect((await report(A, o.id, 'paid', { eventId, tsSec })).status).toBe(200);
    h.clock.advance(301_000);
    expect((await report(A, o.id, 'paid', { eventId, tsSec })).status).toBe(401);
  });

  it('missing signing headers are 401', async () => {
    const o = await liveOrder();
    for (const drop of ['X-Gate-Sign', 'X-Gate-Ts', 'X-Gate-Event-Id', 'X-Gate-Key']) {
      const res = await sendSigned(A, JSON.stringify({ orderId: o.id, type: 'paid' }), { headers: { [drop]: undefined } });
      expect(res.status, drop).toBe(401);
      expect(parse(res).fault.code).toBe('AUTH_FAILED');
    }
  });

  it('an unknown provider, the sandbox and a pool provider answer exactly like a bad signature', async () => {
    const o = await liveOrder();
    const bad = await report(A, o.id, 'paid', { badSignature: true });
    for (const providerId of ['prv_doesnotexist0000000000000', 'prv_sandbox', poolId]) {
      const res = await report(A, o.id, 'paid', { providerId });
      expect(res.status, providerId).toBe(401);
      expect(parse(res).fault).toEqual(parse(bad).fault);
      // The timestamp reasons are the same for every id too, so they tell nothing either.
      const stale = await report(A, o.id, 'paid', { providerId, tsSec: Math.floor(h.clock.now() / 1000) - 400 });
      expect(parse(stale).fault.detail).toBe('X-Gate-Ts more than 300 s from the gateway clock');
    }
    expect((await getOrder(o.id)).status).toBe('Created');
  });

  it('a signed but malformed body is 400 VALIDATION_ERROR', async () => {
    const o = await liveOrder();
    const bodies = [
      'not json',
      '[]',
      JSON.stringify({ type: 'paid' }),
      JSON.stringify({ orderId: o.id, type: 'refunded' }),
      JSON.stringify({ orderId: o.id, type: 'paid', payerReference: 42 }),
    ];
    for (const raw of bodies) {
      const res = await sendSigned(A, raw);
      expect(res.status, raw).toBe(400);
      expect(parse(res)).toMatchObject({ status: 'error', fault: { code: 'VALIDATION_ERROR' } });
    }
    expect((await getOrder(o.id)).status).toBe('Created');
  });

  it('an unknown order and an order another provider served are 404 ORDER_NOT_FOUND', async () => {
    const unknown = await report(A, 'ord_00000000000000000000000000', 'paid');
    expect(unknown.status).toBe(404);
    expect(parse(unknown).fault.code).toBe('ORDER_NOT_FOUND');

    const ofB = await liveOrder(desk, B);
    const eventId = newProviderMessageId();
    const res = await report(A, ofB.id, 'confirmed', { eventId });
    expect(res.status).toBe(404);
    expect(parse(res).fault.code).toBe('ORDER_NOT_FOUND');
    expect((await getOrder(ofB.id)).status).toBe('Created');
    expect(await recorded(A.id, eventId)).toBe(false);
  });

  it('transitions that are not allowed are 409 and change nothing', async () => {
    const done = await liveOrder();
    await report(A, done.id, 'confirmed');
    const paidOnCompleted = await report(A, done.id, 'paid');
    expect(paidOnCompleted.status).toBe(409);
    expect(parse(paidOnCompleted).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    const rejectCompleted = await report(A, done.id, 'rejected');
    expect(rejectCompleted.status).toBe(409);
    expect(parse(rejectCompleted).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    expect((await getOrder(done.id)).status).toBe('Completed');

    const canceled = await liveOrder();
    await report(A, canceled.id, 'rejected');
    const paidOnCanceled = await report(A, canceled.id, 'paid');
    expect(paidOnCanceled.status).toBe(409);
    expect(parse(paidOnCanceled).fault.code).toBe('INVALID_TRANSITION');
    expect((await getOrder(canceled.id)).status).toBe('Canceled');
    expect(await eventsOf(canceled.id)).toEqual(['order.cancelled']);
  });

  it('an oversized body is 413', async () => {
    const res = await sendSigned(A, JSON.stringify({ orderId: 'ord_x', type: 'paid', pad: 'x'.repeat(70 * 1024) }));
    expect(res.status).toBe(413);
    expect(parse(res).fault.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('POST /api/pay/{id}/payer-reference', () => {
  let ip = 0;
  const nextIp = () => `198.51.100.${++ip}`;
  const submit = (id: string, body: unknown, remoteAddress = nextIp()) =>
    h.app.inject({
      method: 'POST',
      url: `/api/pay/${id}/payer-reference`,
      headers: { 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      remoteAddress,
    });

  it('stores the UTR on an open Upi order and answers with the payment page fields', async () => {
    const o = await liveOrder(upiDesk);
    expect(o.payment.upiId).toBe('mockmerchant@upi');
    const res = await submit(o.id, { payerReference: '412345678901' });
    expect(res.statusCode).toBe(200);
    const page = json(res).result;
    expect(page).toMatchObject({ id: o.id, status: 'Created', rail: 'Upi', currency: 'INR', amount: '5000.00', payerReference: '412345678901', sandbox: false });
    expect(page.payment.upiId).toBe('mockmerchant@upi');
    expect(page.merchant).toEqual({ displayName: 'India shop' });
    // The same fields as the page itself.
    const viaPage = json(await h.app.inject({ method: 'GET', url: `/api/pay/${o.id}`, remoteAddress: nextIp() })).result;
    expect(page).toEqual(viaPage);
    expect((await getOrder(o.id, upiDesk)).payerReference).toBe('412345678901');
  });

  it('trims surrounding whitespace; a Upi order takes a UTR of exactly 12 digits; a later report replaces an earlier one', async () => {
    const o = await liveOrder(upiDesk);
    expect(json(await submit(o.id, { payerReference: '  412345678902\n' })).result.payerReference).toBe('412345678902');
    expect(json(await submit(o.id, { payerReference: '512345678902' })).result.payerReference).toBe('512345678902');
    expect((await getOrder(o.id, upiDesk)).payerReference).toBe('512345678902');
  });

  it('refuses on a Upi order anything but 12 digits with 400 VALIDATION_ERROR, saying the rule', async () => {
    const o = await liveOrder(upiDesk);
    for (const body of [{}, { payerReference: '' }, { payerReference: '   ' }, { payerReference: '4123-4567-8901' }, { payerReference: 'x'.repeat(65) }, { payerReference: 412345678901 }, { payerReference: null }, 'not json',
      { payerReference: '41234567890' }, { payerReference: '4123456789012' }, { payerReference: 'A12345678901' }, { payerReference: `T${'9'.repeat(63)}` }, { payerReference: '4123 45678901' }, { payerReference: '٤١٢٣٤٥٦٧٨٩٠١' }]) {
      const res = await submit(o.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
    }
    expect(json(await submit(o.id, { payerReference: 'ABCD-1234' })).fault.detail).toBe('payerReference: a UPI UTR is exactly 12 digits');
    expect((await getOrder(o.id, upiDesk)).payerReference).toBeNull();
  });

  it('is refused once the order is paid (409 ORDER_ALREADY_PAID); the provider’s paid report carries its own reference', async () => {
    const o = await liveOrder(upiDesk);
    await submit(o.id, { payerReference: '412345678903' });
    expect((await report(A, o.id, 'paid', { payerReference: '512345678903' })).status).toBe(200);
    expect((await getOrder(o.id, upiDesk)).payerReference).toBe('512345678903');
    const res = await submit(o.id, { payerReference: '412345678904' });
    expect(res.statusCode).toBe(409);
    expect(json(res).fault.code).toBe('ORDER_ALREADY_PAID');
    expect((await getOrder(o.id, upiDesk)).payerReference).toBe('512345678903');
  });

  it('a completed order is 409 ORDER_ALREADY_COMPLETED; a cancelled order and other rails take one; an unknown order is 404', async () => {
    const completed = await liveOrder(upiDesk);
    await report(A, completed.id, 'confirmed');
    const res = await submit(completed.id, { payerReference: '412345678905' });
    expect(res.statusCode).toBe(409);
    expect(json(res).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    expect((await getOrder(completed.id, upiDesk)).payerReference).toBeNull();
    const canceled = await liveOrder(upiDesk);
    await report(A, canceled.id, 'rejected');
    expect(json(await submit(canceled.id, { payerReference: '412345678905' })).result).toMatchObject({ status: 'Canceled', payerReference: '412345678905' });
    const classic = await liveOrder(desk);
    expect(json(await submit(classic.id, { payerReference: 'A4123-0012/77' })).result).toMatchObject({ status: 'Created', rail: 'Sbp', payerReference: 'A4123-0012/77' });
    expect((await getOrder(classic.id)).payerReference).toBe('A4123-0012/77');
    for (const id of ['ord_00000000000000000000000000', 'upi-1']) {
      const res = await submit(id, { payerReference: '412345678905' });
      expect(res.statusCode).toBe(404);
      expect(json(res).fault.code).toBe('ORDER_NOT_FOUND');
    }
  });

  it('is rate limited per client IP: 429 with an empty body and Retry-After', async () => {
    const o = await liveOrder(upiDesk);
    const client = nextIp();
    for (let i = 0; i < 10; i++) expect((await submit(o.id, { payerReference: `41234567890${i}` }, client)).statusCode).toBe(200);
    const refused = await submit(o.id, { payerReference: '412345678999' }, client);
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toBe('');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The refused report was not stored, and other clients are not affected.
    expect((await getOrder(o.id, upiDesk)).payerReference).toBe('412345678909');
    expect((await submit(o.id, { payerReference: '412345678998' })).statusCode).toBe(200);
  });
});
