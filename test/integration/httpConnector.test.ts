import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueViaHttp, type IssueRequest } from '../../src/providers/httpConnector.js';
import { signProviderRequestHeaders, verifyProviderMessage } from '../../src/providers/providerMessages.js';
import { startMockProvider, type MockProvider } from '../../tools/mock-provider.js';

const KEY = 'prv_key_connector';
const SECRET = 'prv_secret_connector_5e4d';
const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
const NOW_SEC = Math.floor(clock.now() / 1000);

const ORDER: IssueRequest = {
  orderId: 'ord_01J0CONNECTOR',
  method: 'Classic',
  rail: 'C2c',
  amount: '1500.50',
  currency: 'RUB',
  operator: null,
  expiresAt: '2026-01-15T12:15:00Z',
};

const ALL_NULL = { url: null, card: null, phone: null, account: null, iban: null, upiId: null, holder: null, bank: null };

let mock: MockProvider;
let cfg: { baseUrl: string; key: string; secret: string };

beforeAll(async () => {
  mock = await startMockProvider({ key: KEY, secret: SECRET, clock });
  cfg = { baseUrl: mock.url, key: KEY, secret: SECRET };
});

afterAll(async () => {
  await mock.close();
});

beforeEach(() => {
  mock.behave({ kind: 'issue' });
  mock.received.length = 0;
});

/** A plain local server, for redirect targets and for capturing what reportEvent sends. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe('issueViaHttp against the mock provider', () => {
  it('returns issued with the payment normalised to all 8 keys', async () => {
    mock.behave({ kind: 'issue', payment: { card: '2200150012345678', holder: 'IVAN P.', bank: 'Mock Bank' } });
    const outcome = await issueViaHttp(cfg, ORDER, { clock });
    expect(outcome).toEqual({
      kind: 'issued',
      payment: { ...ALL_NULL, card: '2200150012345678', holder: 'IVAN P.', bank: 'Mock Bank' },
    });
  });

  it('sends exactly the documented body fields, signed over the exact bytes', async () => {
    await issueViaHttp(cfg, { ...ORDER, method: 'MobileCommerce', rail: 'Phone', operator: 'OperatorA' }, { clock });
    expect(mock.received).toHaveLength(1);
    const req = mock.received[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/payments');
    expect(req.signatureOk).toBe(true);
    expect(Object.keys(req.body as object)).toEqual(['orderId', 'method', 'rail', 'amount', 'currency', 'operator', 'expiresAt']);
    expect(req.body).toEqual({
      orderId: 'ord_01J0CONNECTOR',
      method: 'MobileCommerce',
      rail: 'Phone',
      amount: '1500.50',
      currency: 'RUB',
      operator: 'OperatorA',
      expiresAt: '2026-01-15T12:15:00Z',
    });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-gate-key']).toBe(KEY);
    expect(req.headers['x-gate-ts']).toBe(String(NOW_SEC));
    const eventId = req.headers['x-gate-event-id'] as string;
    expect(eventId).toMatch(/^msg_[0-9a-f]{32}$/);
    // Recomputed here from the received bytes, independently of the mock's own check.
    expect(req.headers['x-gate-sign']).toBe(signProviderRequestHeaders(KEY, SECRET, eventId, NOW_SEC, req.rawBody)['X-Gate-Sign']);
  });

  it('sends null rail and operator as JSON null, not omitted', async () => {
    await issueViaHttp(cfg, { ...ORDER, method: 'BankApp', rail: null }, { clock });
    expect(mock.received[0].rawBody.toString('utf8')).toContain('"rail":null');
    expect(mock.received[0].body).toMatchObject({ rail: null, operator: null });
  });

  it('uses a fresh event id for every message', async () => {
    await issueViaHttp(cfg, ORDER, { clock });
    await issueViaHttp(cfg, ORDER, { clock });
    expect(mock.received).toHaveLength(2);
    expect(mock.received[0].headers['x-gate-event-id']).not.toBe(mock.received[1].headers['x-gate-event-id']);
  });

  it('takes X-Gate-Ts from the injected clock', async () => {
    const later = new ManualClock(clock.now() + 120_000);
    await issueViaHttp(cfg, ORDER, { clock: later });
    expect(mock.received[0].headers['x-gate-ts']).toBe(String(NOW_SEC + 120));
    expect(mock.received[0].signatureOk).toBe(true);
  });

  it('keeps a path prefix of baseUrl and tolerates a trailing slash', async () => {
    const outcome = await issueViaHttp({ ...cfg, baseUrl: `${mock.url}/` }, ORDER, { clock });
    expect(outcome.kind).toBe('issued');
    expect(mock.received[0].path).toBe('/payments');
    const prefixed = await issueViaHttp({ ...cfg, baseUrl: `${mock.url}/api` }, ORDER, { clock });
    expect(mock.received[1].path).toBe('/api/payments');
    // The mock serves only /payments, so the prefixed call reached a 404: a scored failure.
    expect(prefixed).toEqual({ kind: 'failed', scored: true, reason: 'provider answered HTTP 404' });
  });

  it('is refused by the mock when signed with the wrong secret, and that is not scored', async () => {
    const outcome = await issueViaHttp({ ...cfg, secret: 'not-the-secret' }, ORDER, { clock });
    expect(outcome).toMatchObject({ kind: 'failed', scored: false });
    expect(mock.received[0].signatureOk).toBe(false);
  });

  it('returns declined with the provider reason', async () => {
    mock.behave({ kind: 'decline', reason: 'limit for this card reached' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({ kind: 'declined', reason: 'limit for this card reached' });
  });

  it('treats a provider that hangs past timeoutMs as a scored failure, on time', async () => {
    mock.behave({ kind: 'hang' });
    const started = Date.now();
    const outcome = await issueViaHttp(cfg, ORDER, { clock, timeoutMs: 300 });
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({ kind: 'failed', scored: true, reason: 'provider did not answer within 300 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('treats HTTP 500 as a scored failure', async () => {
    mock.behave({ kind: 'fail', status: 500 });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({ kind: 'failed', scored: true, reason: 'provider answered HTTP 500' });
  });

  it('treats a 2xx other than 200 as a scored failure', async () => {
    mock.behave({ kind: 'fail', status: 201, body: '{"status":"issued","payment":{"card":"2200150012345678"}}' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: true });
  });

  it('treats malformed JSON in a 200 as a scored failure', async () => {
    mock.behave({ kind: 'fail', status: 200, body: '{"status":"issued",' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({ kind: 'failed', scored: true, reason: 'provider answer is not valid JSON' });
  });

  it('treats an unknown status as a scored failure', async () => {
    mock.behave({ kind: 'fail', status: 200, body: '{"status":"pending"}' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: true });
  });

  it.each([
    ['no payable detail at all', { holder: 'IVAN P.', bank: 'Mock Bank' }],
    ['an empty payment', {}],
    ['only blank strings', { card: '  ', holder: '' }],
    ['an unknown key', { card: '2200150012345678', cvv: '123' }],
    ['a number value', { card: 2200150012345678 }],
    ['a javascript: url', { url: 'javascript:alert(1)' }],
  ])('treats an issued answer with %s as a scored failure', async (_label, payment) => {
    mock.behave({ kind: 'fail', status: 200, body: JSON.stringify({ status: 'issued', payment }) });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: true });
  });

  it('treats an issued answer without a payment object as a scored failure', async () => {
    for (const body of ['{"status":"issued"}', '{"status":"issued","payment":["2200150012345678"]}', '{"status":"issued","payment":null}']) {
      mock.behave({ kind: 'fail', status: 200, body });
      expect(await issueViaHttp(cfg, ORDER, { clock }), body).toMatchObject({ kind: 'failed', scored: true });
    }
  });

  it('keeps explicit nulls and turns blank strings into null', async () => {
    mock.behave({ kind: 'fail', status: 200, body: '{"status":"issued","payment":{"url":"https://pay.example/x","holder":"","bank":null}}' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({ kind: 'issued', payment: { ...ALL_NULL, url: 'https://pay.example/x' } });
  });

  it('treats an answer over 64 KiB as a scored failure', async () => {
    const huge = JSON.stringify({ status: 'declined', reason: 'x'.repeat(70 * 1024) });
    mock.behave({ kind: 'fail', status: 200, body: huge });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: true });
  });

  it('stops reading a chunked answer without Content-Length once it passes 64 KiB', async () => {
    let chunksWritten = 0;
    const streaming = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"status":"declined","reason":"');
      // Keeps streaming 8 KiB chunks until the reader hangs up, at most 1 MiB.
      const timer = setInterval(() => {
        if (res.destroyed || chunksWritten >= 128) {
          clearInterval(timer);
          res.end('"}');
          return;
        }
        chunksWritten += 1;
        res.write('y'.repeat(8 * 1024));
      }, 1);
    });
    try {
      const outcome = await issueViaHttp({ ...cfg, baseUrl: streaming.url }, ORDER, { clock });
      expect(outcome).toMatchObject({ kind: 'failed', scored: true });
      if (outcome.kind === 'failed') expect(outcome.reason).toContain('larger than 65536 bytes');
    } finally {
      await stop(streaming.server);
    }
  });

  it('bounds a long decline reason', async () => {
    mock.behave({ kind: 'decline', reason: 'r'.repeat(2_000) });
    const outcome = await issueViaHttp(cfg, ORDER, { clock });
    expect(outcome.kind).toBe('declined');
    if (outcome.kind === 'declined') expect(outcome.reason.length).toBe(500);
  });

  it('treats 401 from the provider as our own problem, not scored', async () => {
    mock.behave({ kind: 'auth-error' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({
      kind: 'failed',
      scored: false,
      reason: 'provider refused our credentials (HTTP 401)',
    });
  });

  it('treats 403 from the provider as our own problem, not scored', async () => {
    mock.behave({ kind: 'fail', status: 403, body: '{"error":"forbidden"}' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({
      kind: 'failed',
      scored: false,
      reason: 'provider refused our credentials (HTTP 403)',
    });
  });

  it('does not follow a 302 and scores it as a failure', async () => {
    let redirectHits = 0;
    const target = await listen((_req, res) => {
      redirectHits += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"issued","payment":{"card":"2200150012345678"}}');
    });
    try {
      mock.behave({ kind: 'fail', status: 302, body: '', headers: { Location: `${target.url}/payments` } });
      const outcome = await issueViaHttp(cfg, ORDER, { clock });
      expect(outcome).toEqual({ kind: 'failed', scored: true, reason: 'provider answered HTTP 302' });
      expect(redirectHits).toBe(0);
    } finally {
      await stop(target.server);
    }
  });

  it('treats a refused connection as a scored failure', async () => {
    const closed = await listen(() => undefined);
    await stop(closed.server);
    const outcome = await issueViaHttp({ ...cfg, baseUrl: closed.url }, ORDER, { clock });
    expect(outcome).toMatchObject({ kind: 'failed', scored: true });
    if (outcome.kind === 'failed') expect(outcome.reason).toContain('ECONNREFUSED');
  });

  it('treats an unusable baseUrl as our own configuration problem, not scored', async () => {
    for (const baseUrl of ['not a url', 'ftp://127.0.0.1/']) {
      expect(await issueViaHttp({ ...cfg, baseUrl }, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: false });
    }
  });

  it('stops at once when the caller aborts, without scoring the provider', async () => {
    mock.behave({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const outcome = await issueViaHttp(cfg, ORDER, { clock, timeoutMs: 10_000, signal: controller.signal });
    expect(outcome).toEqual({ kind: 'failed', scored: false, reason: 'aborted by caller' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('sends nothing when the caller has already aborted', async () => {
    const outcome = await issueViaHttp(cfg, ORDER, { clock, signal: AbortSignal.abort() });
    expect(outcome).toMatchObject({ kind: 'failed', scored: false });
    expect(mock.received).toHaveLength(0);
  });

  it('goes through the dispatcher it is given', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://provider.example')
      .intercept({ path: '/payments', method: 'POST' })
      .reply(200, { status: 'issued', payment: { upiId: 'shop@upi', holder: 'SHOP' } });
    try {
      const outcome = await issueViaHttp({ ...cfg, baseUrl: 'https://provider.example' }, ORDER, { clock, dispatcher: agent });
      expect(outcome).toEqual({ kind: 'issued', payment: { ...ALL_NULL, upiId: 'shop@upi', holder: 'SHOP' } });
      expect(mock.received).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });
});

describe('mock provider behaviour', () => {
  it('consumes queued modes one per request before the standing behaviour', async () => {
    mock.queue({ kind: 'decline', reason: 'first' }, { kind: 'fail', status: 503 });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toEqual({ kind: 'declined', reason: 'first' });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'failed', scored: true });
    expect(await issueViaHttp(cfg, ORDER, { clock })).toMatchObject({ kind: 'issued' });
  });

  it('issues details shaped for the rail by default', async () => {
    const sbp = await issueViaHttp(cfg, { ...ORDER, rail: 'Sbp' }, { clock });
    expect(sbp.kind === 'issued' && sbp.payment.phone).toBeTruthy();
    const upi = await issueViaHttp(cfg, { ...ORDER, method: 'CrossBorder', rail: 'Upi', currency: 'INR' }, { clock });
    expect(upi.kind === 'issued' && upi.payment.upiId).toBeTruthy();
  });

  it('refuses a message whose timestamp is outside 300 s of its clock', async () => {
    const stale = new ManualClock(clock.now() - 301_000);
    expect(await issueViaHttp(cfg, ORDER, { clock: stale })).toMatchObject({ kind: 'failed', scored: false });
    expect(mock.received[0].signatureOk).toBe(false);
  });
});

describe('reportEvent', () => {
  interface Captured {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    rawBody: Buffer;
  }
  let gateway: { server: Server; url: string };
  let captured: Captured[];
  let answer: { status: number; body: string };

  beforeAll(async () => {
    gateway = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        captured.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'Content-Type': 'application/json' });
        res.end(answer.body);
      });
    });
  });

  afterAll(async () => {
    await stop(gateway.server);
  });

  beforeEach(() => {
    captured = [];
    answer = { status: 200, body: '{"status":"ok"}' };
  });

  afterEach(() => {
    expect(captured.length).toBeLessThanOrEqual(1);
  });

  function verifyCaptured(c: Captured) {
    return verifyProviderMessage({ headers: c.headers, rawBody: c.rawBody, expectedKey: KEY, secret: SECRET, nowMs: clock.now() });
  }

  it('posts a signed event that verifyProviderMessage accepts', async () => {
    const result = await mock.reportEvent(gateway.url, 'prv_01ABC', { orderId: 'ord_42', type: 'paid', payerReference: '412345678901' });
    expect(result).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(captured).toHaveLength(1);
    const [c] = captured;
    expect(c.method).toBe('POST');
    expect(c.url).toBe('/providers/v1/prv_01ABC/events');
    expect(c.headers['content-type']).toBe('application/json');
    expect(c.headers['x-gate-ts']).toBe(String(NOW_SEC));
    const verdict = verifyCaptured(c);
    expect(verdict).toEqual({
      ok: true,
      eventId: c.headers['x-gate-event-id'],
      event: { orderId: 'ord_42', type: 'paid', payerReference: '412345678901' },
    });
  });

  it('uses the given event id and timestamp, and omits an absent payerReference', async () => {
    await mock.reportEvent(gateway.url, 'prv_01ABC', { orderId: 'ord_42', type: 'confirmed' }, { eventId: 'evt_fixed_1', tsSec: NOW_SEC - 10 });
    const [c] = captured;
    expect(c.headers['x-gate-event-id']).toBe('evt_fixed_1');
    expect(c.headers['x-gate-ts']).toBe(String(NOW_SEC - 10));
    expect(JSON.parse(c.rawBody.toString('utf8'))).toEqual({ orderId: 'ord_42', type: 'confirmed' });
    expect(verifyCaptured(c)).toEqual({
      ok: true,
      eventId: 'evt_fixed_1',
      event: { orderId: 'ord_42', type: 'confirmed', payerReference: null },
    });
  });

  it('sends a message that fails verification when asked for a bad signature', async () => {
    await mock.reportEvent(gateway.url, 'prv_01ABC', { orderId: 'ord_42', type: 'rejected' }, { badSignature: true });
    const verdict = verifyCaptured(captured[0]);
    expect(verdict).toMatchObject({ ok: false, status: 401 });
    expect(captured[0].headers['x-gate-sign']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sends a stale timestamp that verification refuses', async () => {
    await mock.reportEvent(gateway.url, 'prv_01ABC', { orderId: 'ord_42', type: 'revoked' }, { tsSec: NOW_SEC - 301 });
    expect(verifyCaptured(captured[0])).toMatchObject({ ok: false, status: 401 });
  });

  it("returns the gateway's status and body as they are", async () => {
    answer = { status: 409, body: '{"status":"error","fault":{"code":"TRANSITION_NOT_ALLOWED"}}' };
    const result = await mock.reportEvent(`${gateway.url}/`, 'prv_01ABC', { orderId: 'ord_42', type: 'paid' });
    expect(result).toEqual(answer);
    expect(captured[0].url).toBe('/providers/v1/prv_01ABC/events');
  });
});
