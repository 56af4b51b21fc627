import { createHmac, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Paygate, PaygateError } from '@paygate/sdk';

const KEY = 'shp_0123456789abcdefghijklmnop';
const SECRET = 'sk_unit';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

type Answer = Response | Error;

/** A fake transport: records every request, answers from a script. */
function transport(...answers: Array<Answer | ((s: Sent) => Answer)>) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    const s: Sent = {
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(Object.entries(init.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: init.body ? Buffer.from(init.body as Uint8Array) : Buffer.alloc(0),
    };
    sent.push(s);
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    const a = typeof next === 'function' ? next(s) : next;
    if (a instanceof Error) throw a;
    return a;
  }) as unknown as typeof fetch;
  const client = (o: Partial<ConstructorParameters<typeof Paygate>[0]> = {}) =>
    new Paygate({ baseUrl: 'http://gw.test/', key: KEY, secret: SECRET, fetch: fetchFn, now: () => NOW, random: () => 0.5, sleep: async (ms) => void sleeps.push(ms), ...o });
  return { sent, sleeps, client };
}

const ok = (result: unknown, status = 200) => new Response(JSON.stringify({ status: 'ok', result, traceId: 'tr_1' }), { status, headers: { 'content-type': 'application/json' } });
const fault = (status: number, code: string, detail: string | null = null, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ status: 'error', fault: { code, detail }, traceId: 'tr_err' }), { status, headers: { 'content-type': 'application/json', ...headers } });
const networkError = () => new TypeError('fetch failed', { cause: new Error('ECONNRESET') });

function independentSign(s: Sent): string {
  const path = new URL(s.url).pathname;
  const hash = createHash('sha256').update(s.body).digest('hex');
  return createHmac('sha256', SECRET).update(`${s.headers['x-gate-ts']}.${s.headers['x-gate-nonce']}.${s.method}.${path}.${hash}`).digest('hex');
}

describe('Paygate client: requests', () => {
  it('signs the exact bytes it sends, with a fresh nonce each time, and resolves to the envelope result', async () => {
    const t = transport(ok({ id: 'ord_1' }, 201), ok({ id: 'ord_1' }), ok({ settlement: 'USD', rates: [] }));
    const c = t.client();
    expect(await c.orders.create({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'inv-1001' })).toEqual({ id: 'ord_1' });
    await c.orders.get('inv 1/2');
    await c.rates('RUB');
    const [create, get, rates] = t.sent;
    expect(create.url).toBe('http://gw.test/gw/v1/orders');
    expect(create.body.toString()).toBe('{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}');
    expect(create.headers['content-type']).toBe('application/json');
    expect(get.url).toBe('http://gw.test/gw/v1/orders/inv%201%2F2');
    expect(rates.url).toBe('http://gw.test/gw/v1/rates?currency=RUB');
    for (const s of t.sent) {
      expect(s.headers['x-gate-key']).toBe(KEY);
      expect(s.headers['x-gate-ts']).toBe(String(NOW / 1000));
      expect(s.headers['x-gate-nonce']).toMatch(/^[0-9a-f]{48}$/);
      expect(s.headers['x-gate-sign']).toBe(independentSign(s));
    }
    expect(new Set(t.sent.map((s) => s.headers['x-gate-nonce'])).size).toBe(3);
  });

  it('cancel sends the reason (or an empty object); events() follows next while hasMore', async () => {
    const e = (id: string) => ({ id, event: 'order.completed', orderId: 'ord_1', createdAt: '', body: '{}', delivery: {} });
    const t = transport(
      ok({ status: 'Canceled' }),
      ok({ status: 'Canceled' }),
      ok({ events: [e('evt_1'), e('evt_2')], hasMore: true, next: 'evt_2' }),
      ok({ events: [e('evt_3')], hasMore: false, next: 'evt_3' }),
    );
    const c = t.client();
    await c.orders.cancel('ord_1', 'клиент ушёл');
    await c.orders.cancel('ord_1');
    const ids: string[] = [];
    for await (const ev of c.events({ after: 'evt_0', orderId: 'ord_1' })) ids.push(ev.id);
    expect(ids).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(t.sent[0].body.toString()).toBe('{"reason":"клиент ушёл"}');
    expect(t.sent[1].body.toString()).toBe('{}');
    expect(t.sent[2].url).toBe('http://gw.test/gw/v1/events?after=evt_0&orderId=ord_1');
    expect(t.sent[3].url).toBe('http://gw.test/gw/v1/events?after=evt_2&orderId=ord_1');
    for (const s of t.sent) expect(s.headers['x-gate-sign']).toBe(independentSign(s));
  });
});

describe('Paygate client: errors', () => {
  it('one PaygateError with status, code, detail and traceId from the envelope', async () => {
    const t = transport(fault(404, 'ORDER_NOT_FOUND', 'no order ord_x'));
    const err = await t.client().orders.get('ord_x').catch((e) => e);
    expect(err).toBeInstanceOf(PaygateError);
    expect(err).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND', detail: 'no order ord_x', traceId: 'tr_err', retryAfter: null });
    expect(err.message).toContain('ORDER_NOT_FOUND');
  });

  it('429 with an empty body carries retryAfter from Retry-After and the X-Trace-Id', async () => {
    const t = transport(new Response('', { status: 429, headers: { 'retry-after': '7', 'x-trace-id': 'tr_429' } }));
    const err = await t.client().orders.create({ amount: 1, orderRef: 'r' }).catch((e) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 7, traceId: 'tr_429' });
    expect(t.sent).toHaveLength(1);
  });

  it('a non-JSON error answer still becomes a PaygateError', async () => {
    const t = transport(new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(t.client().balance()).rejects.toMatchObject({ status: 502, code: 'HTTP_502', detail: '<html>Bad gateway</html>' });
  });

  it('learns the gateway clock from Date after AUTH_TIMESTAMP_SKEW and signs again once', async () => {
    const serverNow = NOW + 3600_000;
    const t = transport(fault(401, 'AUTH_TIMESTAMP_SKEW', null, { date: new Date(serverNow).toUTCString() }), ok({ currency: 'USD', available: '0.00000000' }), ok({}));
    const c = t.client();
    expect(await c.balance()).toEqual({ currency: 'USD', available: '0.00000000' });
    expect(t.sent.map((s) => s.headers['x-gate-ts'])).toEqual([String(NOW / 1000), String(serverNow / 1000)]);
    expect(t.sent[0].headers['x-gate-nonce']).not.toBe(t.sent[1].headers['x-gate-nonce']);
    await c.methods();
    expect(t.sent[2].headers['x-gate-ts']).toBe(String(serverNow / 1000));
  });

  it('a second skew refusal in a row is reported, not retried forever', async () => {
    const skew = () => fault(401, 'AUTH_TIMESTAMP_SKEW', null, { date: new Date(NOW + 3600_000).toUTCString() });
    const t = transport(skew(), skew());
    await expect(t.client().balance()).rejects.toMatchObject({ status: 401, code: 'AUTH_TIMESTAMP_SKEW' });
    expect(t.sent).toHaveLength(2);
  });
});

describe('Paygate client: safe retries', () => {
  it('order creation with an orderRef is retried on network errors and 503, with growing jittered back-off, same bytes, new nonce', async () => {
    const t = transport(networkError(), fault(503, 'NO_AVAILABLE_METHOD'), ok({ id: 'ord_1' }, 201));
    expect(await t.client().orders.create({ amount: 10, orderRef: 'inv-1' })).toEqual({ id: 'ord_1' });
    expect(t.sent).toHaveLength(3);
    expect(new Set(t.sent.map((s) => s.body.toString())).size).toBe(1);
    expect(new Set(t.sent.map((s) => s.headers['x-gate-nonce'])).size).toBe(3);
    expect(t.sleeps).toEqual([375, 750]); // 500·2^(n−1) scaled by 0.5 + random/2 = 0.75
  });

  it('gives up after maxAttempts with the last error', async () => {
    const t = transport(fault(503, 'NO_AVAILABLE_METHOD'), fault(503, 'NO_AVAILABLE_METHOD'), fault(503, 'NO_AVAILABLE_METHOD'));
    await expect(t.client().orders.create({ amount: 10, orderRef: 'inv-1' })).rejects.toMatchObject({ status: 503, code: 'NO_AVAILABLE_METHOD' });
    expect(t.sent).toHaveLength(3);
    const t2 = transport(networkError(), networkError());
    await expect(t2.client({ maxAttempts: 2 }).orders.create({ amount: 10, orderRef: 'inv-1' })).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
    expect(t2.sent).toHaveLength(2);
  });

  it('a connection lost while the answer streams in counts as a network error', async () => {
    const broken = () =>
      new Response(new ReadableStream({ pull: (c) => c.error(new Error('socket hang up')) }), { status: 201, headers: { 'content-type': 'application/json' } });
    const t = transport(broken(), ok({ id: 'ord_1' }, 201));
    expect(await t.client().orders.create({ amount: 10, orderRef: 'inv-1' })).toEqual({ id: 'ord_1' });
    const t2 = transport(broken());
    await expect(t2.client().orders.create({ amount: 10 })).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
    expect(t2.sent).toHaveLength(1);
  });

  it('order creation without an orderRef is never retried', async () => {
    const t = transport(networkError());
    await expect(t.client().orders.create({ amount: 10 })).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
    const t2 = transport(fault(503, 'NO_AVAILABLE_METHOD'));
    await expect(t2.client().orders.create({ amount: 10 })).rejects.toMatchObject({ status: 503 });
    expect(t.sent).toHaveLength(1);
    expect(t2.sent).toHaveLength(1);
    expect([...t.sleeps, ...t2.sleeps]).toEqual([]);
  });

  it('reads retry network errors but not error answers; cancel and appeals are not retried', async () => {
    const t = transport(networkError(), ok({ currency: 'USD', available: '1.00000000' }));
    expect(await t.client().balance()).toMatchObject({ available: '1.00000000' });
    const t2 = transport(fault(503, 'HTTP_503'));
    await expect(t2.client().methods()).rejects.toMatchObject({ status: 503 });
    expect(t2.sent).toHaveLength(1);
    const t3 = transport(networkError());
    await expect(t3.client().orders.cancel('ord_1')).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    const t4 = transport(networkError());
    await expect(t4.client().appeals.create({ orderId: 'ord_1' })).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(t3.sent.length + t4.sent.length).toBe(2);
  });
});
