import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paygate, PaygateError, type FeedEvent, signCallback, signRequest, signWebhook, verifyCallback, verifyWebhook } from '@paygate/sdk';
import { createHarness, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';
import { killChildren, STARTUP_MS } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startLiveGateway, type LiveGateway } from './liveGateway.js';

// The shared SDK scenarios (packages/scenarios/scenarios.json) with the TypeScript SDK: each test's
// name starts with its scenario id. Live ones run against the gateway on a real socket (the
// harness app listening on loopback, its clock set to real time); offline ones against fakes.

afterAll(killChildren);

const SECRET = 'sk_test_9f8e7d6c5b4a';
const TS = '1763700000';
const TS_MS = Number(TS) * 1000;
const C1_BODY =
  '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed","amount":{"value":"1500.50","currency":"RUB"},' +
  '"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}';
const C1_HEADERS = { 'x-gate-ts': TS, 'x-gate-event-id': 'evt_01', 'x-gate-sign': 'd8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b' };

async function refusal(fn: () => unknown): Promise<PaygateError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof PaygateError) return err;
    throw err;
  }
  throw new Error('expected a PaygateError');
}

// ---- offline --------------------------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
type Step = { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'drop';

/** A fake gateway on a real socket answering from a script (the last step repeats). */
async function fakeGateway(script: Step[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const step = script[Math.min(seen.length, script.length) - 1];
      if (step === 'hang') return;
      if (step === 'drop') return void req.socket.destroy();
      res.writeHead(step.status, step.headers ?? {});
      res.end(step.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
const envelope = (result: unknown, status = 200) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'ok', result, traceId: 't' }) });
const noSleep = async () => {};

describe('shared scenarios offline (TypeScript SDK)', () => {
  it('vector-request-signature: signatures reproduce the published vectors byte for byte', async () => {
    expect(signRequest(SECRET, TS, 'n0nce-0001', 'POST', '/gw/v1/orders', '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}')).toBe(
      '80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda',
    );
    expect(signRequest(SECRET, TS, 'n0nce-0002', 'GET', '/gw/v1/rates?currency=RUB', '')).toBe('1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3');
    expect(signRequest('секрет-ключ', TS, 'n0nce-0003', 'POST', '/gw/v1/orders/ord_abc/cancel', '{"reason":"клиент ушёл"}')).toBe(
      '6f79f9b2b9cbe142e0ecddb13d0ba7be4dde331345626e2c7da42ab3fde4dbda',
    );
    // The client sends the V1 bytes for the V1 order and signs them.
    const fake = await fakeGateway([envelope({ id: 'ord_1' }, 201)]);
    try {
      await new Paygate({ baseUrl: fake.url, key: 'shp_x', secret: SECRET }).orders.create({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'inv-1001' });
      const [s] = fake.seen;
      expect(s.body.toString()).toBe('{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}');
      expect(s.headers['x-gate-sign']).toBe(signRequest(SECRET, String(s.headers['x-gate-ts']), String(s.headers['x-gate-nonce']), 'POST', '/gw/v1/orders', s.body));
    } finally {
      await fake.close();
    }
  });

  it('vector-callback-signature: the C1 callback verifies; one byte changed does not', () => {
    expect(signCallback(SECRET, TS, 'evt_01', C1_BODY)).toBe(C1_HEADERS['x-gate-sign']);
    expect(verifyCallback(C1_BODY, C1_HEADERS, SECRET, { now: () => TS_MS })).toMatchObject({ id: 'ord_abc', status: 'Completed' });
    expect(() => verifyCallback(C1_BODY.replace('1500.50', '1500.60'), C1_HEADERS, SECRET, { now: () => TS_MS })).toThrow(
      expect.objectContaining({ code: 'CALLBACK_SIGNATURE_MISMATCH', status: 400 }),
    );
  });

  it('callback-replayed-later: an hour old, or 10 minutes ahead, is stale', () => {
    for (const delta of [3600_000, -600_000]) {
      expect(() => verifyCallback(C1_BODY, C1_HEADERS, SECRET, { now: () => TS_MS + delta })).toThrow(expect.objectContaining({ code: 'CALLBACK_TIMESTAMP_STALE' }));
    }
    expect(verifyCallback(C1_BODY, C1_HEADERS, SECRET, { now: () => TS_MS + 300_000 }).id).toBe('ord_abc');
  });

  it('standard-webhook-verify: a delivery verifies; tampered, wrong secret and an hour old do not; during a rotation either secret does', () => {
    const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64')}`;
    const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const body = JSON.stringify({ type: 'order.completed', timestamp: '2025-11-21T04:00:00.123Z', data: JSON.parse(C1_BODY) });
    // Written from the Standard Webhooks specification alone.
    const sig = (s: string) => `v1,${createHmac('sha256', Buffer.from(s.slice(6), 'base64')).update(`evt_01.${TS}.${body}`).digest('base64')}`;
    expect(signWebhook(secret, 'evt_01', TS, body)).toBe(sig(secret));
    const headers = { 'webhook-id': 'evt_01', 'webhook-timestamp': TS, 'webhook-signature': sig(secret) };
    expect(verifyWebhook(body, headers, secret, { now: () => TS_MS }).data.id).toBe('ord_abc');
    const code = (b: string, h: Record<string, string>, s: string, now = TS_MS) => {
      try {
        verifyWebhook(b, h, s, { now: () => now });
        return 'verified';
      } catch (err) {
        return (err as PaygateError).code;
      }
    };
    expect(code(body.replace('16.34531590', '16.34531591'), headers, secret)).toBe('CALLBACK_SIGNATURE_MISMATCH');
    expect(code(body, headers, other)).toBe('CALLBACK_SIGNATURE_MISMATCH');
    expect(code(body, headers, secret, TS_MS + 3600_000)).toBe('CALLBACK_TIMESTAMP_STALE');
    const both = { ...headers, 'webhook-signature': `${sig(other)} ${sig(secret)}` };
    expect(code(body, both, secret)).toBe('verified');
    expect(code(body, both, other)).toBe('verified');
  });

  it('non-json-answer: a proxy 502 HTML page is HTTP_502 with the start of the page', async () => {
    const page = `<html><body><h1>502 Bad Gateway</h1>${'x'.repeat(1000)}</body></html>`;
    const fake = await fakeGateway([{ status: 502, headers: { 'content-type': 'text/html' }, body: page }]);
    try {
      const err = await refusal(() => new Paygate({ baseUrl: fake.url, key: 'shp_x', secret: SECRET }).orders.create({ amount: 10 }));
      expect(err).toMatchObject({ status: 502, code: 'HTTP_502', detail: page.slice(0, 300) });
      expect(fake.seen).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('timeout: a server that never answers is NETWORK_ERROR after the timeout; a create without orderRef is sent once', async () => {
    const fake = await fakeGateway(['hang']);
    try {
      const started = Date.now();
      const err = await refusal(() => new Paygate({ baseUrl: fake.url, key: 'shp_x', secret: SECRET, timeoutMs: 300, sleep: noSleep }).orders.create({ amount: 10 }));
      expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(fake.seen).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('retry-503: an idempotent create is retried after 503 with a fresh nonce; without orderRef it is not; a GET after a dropped connection is', async () => {
    const fake = await fakeGateway([{ status: 503, body: JSON.stringify({ status: 'error', fault: { code: 'NO_AVAILABLE_METHOD', detail: null }, traceId: 't' }) }, envelope({ id: 'ord_1' }, 201)]);
    try {
      const pg = new Paygate({ baseUrl: fake.url, key: 'shp_x', secret: SECRET, sleep: noSleep });
      expect((await pg.orders.create({ amount: 10, orderRef: 'r-503' })).id).toBe('ord_1');
      expect(fake.seen).toHaveLength(2);
      expect(fake.seen[0].headers['x-gate-nonce']).not.toBe(fake.seen[1].headers['x-gate-nonce']);
      expect(fake.seen[0].body.equals(fake.seen[1].body)).toBe(true);
    } finally {
      await fake.close();
    }
    const once = await fakeGateway([{ status: 503, body: JSON.stringify({ status: 'error', fault: { code: 'NO_AVAILABLE_METHOD', detail: null }, traceId: 't' }) }]);
    try {
      const err = await refusal(() => new Paygate({ baseUrl: once.url, key: 'shp_x', secret: SECRET, sleep: noSleep }).orders.create({ amount: 10 }));
      expect(err).toMatchObject({ status: 503, code: 'NO_AVAILABLE_METHOD' });
      expect(once.seen).toHaveLength(1);
    } finally {
      await once.close();
    }
    const dropping = await fakeGateway(['drop', envelope({ currency: 'USD', available: '1.00000000', mode: 'live' })]);
    try {
      expect((await new Paygate({ baseUrl: dropping.url, key: 'shp_x', secret: SECRET, sleep: noSleep }).balance()).available).toBe('1.00000000');
      expect(dropping.seen).toHaveLength(2);
    } finally {
      await dropping.close();
    }
  });
});

// ---- live -----------------------------------------------------------------------------------

describe('shared scenarios against a gateway (TypeScript SDK)', () => {
  let h: Harness;
  let desk: DeskCreds;
  let baseUrl: string;
  let pg: Paygate;
  let rx: Receiver;
  let ref = 0;
  const nextRef = (p: string) => `ts-${p}-${++ref}-${Date.now().toString(36)}`;
  /** A fetch that counts requests and may change a body after it was signed, as a proxy between SDK and gateway would. */
  const counting = (change?: (body: string) => string) => {
    const calls = { n: 0 };
    const f: typeof fetch = (url, init) => {
      calls.n++;
      const body = change && init?.body ? change(Buffer.from(init.body as Uint8Array).toString('utf8')) : init?.body;
      return fetch(url, { ...init, body });
    };
    return { calls, fetch: f };
  };

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

  it('create-read-cancel-order: create with an orderRef, read by id and by orderRef, cancel, read Canceled', async () => {
    const orderRef = nextRef('crc');
    const created = await pg.orders.create({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef });
    expect(created).toMatchObject({ orderRef: null, amount: '1500.50', status: 'Created' });
    const byId = await pg.orders.get(created.id);
    expect(await pg.orders.get(orderRef)).toEqual(byId);
    expect(byId).toMatchObject({ id: created.id, orderRef, subStatus: 'WaitingForPayment', settled: created.settled, payment: created.payment });
    expect((await pg.orders.cancel(created.id, 'customer left')).status).toBe('Canceled');
    expect(await pg.orders.get(created.id)).toMatchObject({ status: 'Canceled', cancelReason: 'customer left' });
  });

  it('create-is-idempotent: the same orderRef and body is the same order; a different body is ORDER_REF_CONFLICT with detail and traceId', async () => {
    const orderRef = nextRef('idem');
    const first = await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef });
    expect((await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef })).id).toBe(first.id);
    const err = await refusal(() => pg.orders.create({ amount: 919, rail: 'Sbp', orderRef }));
    expect(err).toMatchObject({ status: 409, code: 'ORDER_REF_CONFLICT', detail: expect.any(String), traceId: expect.any(String) });
  });

  it('reads: methods, rates for a currency and balance answer with the contract fields', async () => {
    expect(await pg.methods()).toMatchObject({ method: 'Classic', available: true, reason: null, rails: expect.arrayContaining([expect.objectContaining({ rail: 'Sbp' })]) });
    expect(await pg.rates('RUB')).toEqual({ settlement: 'USD', rates: [{ code: 'RUB', rate: '91.80000000', priceable: true }] });
    expect(await pg.balance()).toMatchObject({ currency: 'USD', available: expect.stringMatching(/^\d+\.\d{8}$/), mode: 'sandbox' });
  });

  it('events-feed: pages from the start to the end with its cursor, the created orders included', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await pg.orders.create({ amount: 100, rail: 'Sbp', orderRef: nextRef('feed') });
      await pg.orders.cancel(o.id);
      ids.push(o.id);
    }
    const first = await pg.eventsPage({ limit: 2 });
    expect(first).toMatchObject({ hasMore: true, next: first.events[1].id });
    const all: FeedEvent[] = [];
    for await (const e of pg.events({ limit: 2 })) all.push(e);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(ids.every((id) => all.some((e) => e.orderId === id && e.event === 'order.cancelled'))).toBe(true);
  });

  it('appeals: an appeal on a closed order reads back; on an unknown order ORDER_NOT_FOUND', async () => {
    const o = await pg.orders.create({ amount: 250, rail: 'Sbp', orderRef: nextRef('apl') });
    await pg.orders.cancel(o.id);
    const appeal = await pg.appeals.create({ orderId: o.id, reason: 'customer paid' });
    expect(appeal).toMatchObject({ id: expect.stringMatching(/^apl_/), orderId: o.id, status: 'Open', amount: { value: o.settled.amount, currency: 'USD' }, reason: 'customer paid', resolvedAt: null });
    expect(await pg.appeals.get(appeal.id)).toEqual(appeal);
    expect(await refusal(() => pg.appeals.create({ orderId: 'ord_doesnotexist0000000000000' }))).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
  });

  it('wrong-secret: AUTH_FAILED with traceId after exactly one request', async () => {
    const c = counting();
    const err = await refusal(() => new Paygate({ baseUrl, key: desk.key, secret: `${desk.secret}x`, fetch: c.fetch }).balance());
    expect(err).toMatchObject({ status: 401, code: 'AUTH_FAILED', traceId: expect.any(String) });
    expect(c.calls.n).toBe(1);
  });

  it('clock-off: 10 minutes off is answered AUTH_TIMESTAMP_SKEW once, then signed with the gateway clock: two requests, then one', async () => {
    const c = counting();
    const skewed = new Paygate({ baseUrl, key: desk.key, secret: desk.secret, now: () => Date.now() - 600_000, fetch: c.fetch });
    expect((await skewed.balance()).currency).toBe('USD');
    expect(c.calls.n).toBe(2);
    await skewed.methods();
    expect(c.calls.n).toBe(3);
  });

  it('body-modified-after-signing: a body changed between the SDK and the gateway is AUTH_FAILED', async () => {
    const c = counting((b) => b.replace('"amount":100', '"amount":1'));
    const err = await refusal(() => new Paygate({ baseUrl, key: desk.key, secret: desk.secret, fetch: c.fetch }).orders.create({ amount: 100, rail: 'Sbp', orderRef: nextRef('mod') }));
    expect(err).toMatchObject({ status: 401, code: 'AUTH_FAILED' });
    expect(c.calls.n).toBe(1);
  });
});

describe('webhook endpoints against a Paygate process (TypeScript SDK)', () => {
  let gw: LiveGateway | null = null;
  beforeAll(async () => {
    gw = await startLiveGateway('ts-webhooks');
  }, STARTUP_MS * 2);
  afterAll(async () => {
    await gw?.close();
  });

  it('webhook-endpoints: create (secret once), list, read, update, rotate, recover, attempts; a delivery verifies with verifyWebhook', async () => {
    const g = gw!;
    const rx = await startReceiver();
    try {
      const pg = new Paygate({ baseUrl: g.url, key: g.key, secret: g.secret });
      const url = `${rx.url}/hooks`;
      const created = await pg.webhookEndpoints.create({ url, events: ['*'], description: 'ts tests' });
      expect(created).toMatchObject({ id: expect.stringMatching(/^whe_/), url, events: ['*'], enabled: true, secret: expect.stringMatching(/^whsec_/) });
      const listed = await pg.webhookEndpoints.list();
      expect(listed.find((e) => e.id === created.id)).not.toHaveProperty('secret');
      expect(await pg.webhookEndpoints.get(created.id)).toMatchObject({ url, description: 'ts tests' });
      expect(await pg.webhookEndpoints.update(created.id, { description: 'renamed' })).toMatchObject({ description: 'renamed' });
      const rotated = await pg.webhookEndpoints.rotateSecret(created.id);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect((await pg.webhookEndpoints.recover(created.id, new Date(Date.now() - 3600_000).toISOString())).requeued).toBeGreaterThanOrEqual(0);
      const o = await pg.orders.create({ amount: 300, rail: 'Sbp', orderRef: `ts-whe-${Date.now()}` });
      await pg.orders.cancel(o.id);
      const deadline = Date.now() + 90_000;
      let hit;
      while (!(hit = rx.hits.find((r) => r.path === '/hooks' && JSON.parse(r.body.toString()).data?.id === o.id))) {
        if (Date.now() > deadline) throw new Error('no webhook delivery within 90 s');
        await new Promise((r) => setTimeout(r, 250));
      }
      for (const secret of [rotated.secret, created.secret]) {
        expect(verifyWebhook(hit.body, hit.headers, secret)).toMatchObject({ type: 'order.cancelled', data: { id: o.id, status: 'Canceled' } });
      }
      expect((await pg.webhookEndpoints.attempts(created.id, { limit: 50 })).attempts.length).toBeGreaterThan(0);
    } finally {
      await rx.close();
    }
  }, 180_000);
});
