import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormBrowser, multipartBody } from '../helpers/formBrowser.js';
import { admin, ADMIN_TOKEN, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let d: DeskCreds;
beforeAll(async () => {
  h = await createHarness();
  d = await provisionDesk(h.app);
});
afterAll(() => h.close());

const deskRow = async (id: string) => (await h.ctx.db.query<Record<string, unknown>>('SELECT * FROM desks WHERE id = $1', [id])).rows[0]!;
const merchantRow = async (id: string) => (await h.ctx.db.query<Record<string, unknown>>('SELECT * FROM merchants WHERE id = $1', [id])).rows[0]!;

describe('PATCH bodies: unknown and read-only properties are refused, never used', () => {
  const paths = [
    { name: 'desk', url: () => `/desks/${d.id}`, row: () => deskRow(d.id), good: { enabled: true } },
    { name: 'merchant', url: () => `/merchants/${d.merchantId}`, row: () => merchantRow(d.merchantId), good: { name: 'Renamed shop' } },
  ];
  const bad: [string, string, string][] = [
    ['constructor', '{"constructor":"x"}', 'constructor'],
    ['__proto__', '{"__proto__":{"enabled":false}}', '__proto__'],
    ['an unknown key beside a good one', '{"enabled":true,"colour":"red"}', 'colour'],
    ['an internal column', '{"secretEnc":"x"}', 'secretEnc'],
    ['the read-only id', '{"id":"dsk_other"}', 'id'],
  ];
  for (const p of paths) {
    for (const [what, body, named] of bad) {
      it(`${p.name}: ${what} answers 400 naming it, and changes nothing`, async () => {
        const before = await p.row();
        const res = await h.app.inject({ method: 'PATCH', url: `/admin/v1${p.url()}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: body });
        expect(res.statusCode, res.body).toBe(400);
        expect(json(res).fault.code).toBe('VALIDATION_ERROR');
        expect(json(res).fault.detail).toContain(named);
        expect(json(res).fault.detail).toMatch(/unknown propert/);
        expect(await p.row()).toEqual(before);
      });
    }
    it(`${p.name}: every unknown property is named`, async () => {
      const res = await admin(h.app, 'PATCH', p.url(), { ...p.good, a1: 1, b2: 2 });
      expect(res.statusCode).toBe(400);
      expect(json(res).fault.detail).toBe('unknown properties: a1, b2');
    });
    it(`${p.name}: a good patch still applies`, async () => {
      expect((await admin(h.app, 'PATCH', p.url(), p.good)).statusCode).toBe(200);
    });
  }

  it('nested objects are closed too (a tariff band with an extra key)', async () => {
    const res = await admin(h.app, 'POST', '/tariffs', { name: 'T', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '1', sneaky: true }] });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault.detail).toBe('bands[0]: unknown property: sneaky');
  });

  it('an order with an unknown field is refused before anything is written', async () => {
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 10, rail: 'Sbp', orderRef: 'strict-1', amountUsd: '0.01' }) });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault).toEqual({ code: 'VALIDATION_ERROR', detail: 'unknown property: amountUsd' });
    expect((await h.ctx.db.query(`SELECT 1 FROM orders WHERE order_ref = 'strict-1'`)).rows).toHaveLength(0);
  });
});

describe('content types', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON look-alike', 'application/jsonp'],
  ])('%s on a JSON endpoint answers 415 in the envelope and creates nothing', async (_n, type) => {
    const body = JSON.stringify({ name: `typed-${type}` });
    const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, payload: body });
    expect(res.statusCode).toBe(415);
    expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect((await h.ctx.db.query('SELECT 1 FROM merchants WHERE name = $1', [`typed-${type}`])).rows).toHaveLength(0);
  });

  it('a body without a content type answers 415; so does a signed order sent as text', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: '{"name":"untyped"}' });
    expect(res.statusCode).toBe(415);
    const order = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 10, rail: 'Sbp' }), headers: { 'content-type': 'text/plain' } });
    expect(order.statusCode).toBe(415);
    expect(json(order).fault.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('application/json with a charset, in any letter case, is accepted', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, payload: '{"name":"typed ok"}' });
      expect(res.statusCode, type).toBe(201);
    }
  });

  it('a POST without a body needs no content type', async () => {
    const m = json(await admin(h.app, 'POST', '/merchants', { name: 'approve me' })).result;
    const res = await h.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/approve`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    // An empty body passes whatever type a client library labels it with.
    const labelled = await h.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/block`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' } });
    expect(labelled.statusCode).toBe(200);
  });

  it('a path whose body is required answers 400 for a missing body', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault).toEqual({ code: 'VALIDATION_ERROR', detail: 'name: is required' });
    const order = await signed(h, d, '/gw/v1/orders', { method: 'POST' });
    expect(order.statusCode).toBe(400);
    expect(json(order).fault.code).toBe('VALIDATION_ERROR');
  });
});

describe('a signed body means one thing', () => {
  it('a key given twice answers 400 and creates no order', async () => {
    const res = await signed(h, d, '/gw/v1/orders', { body: '{"amount":1,"rail":"Sbp","orderRef":"dup-1","amount":100000}' });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault).toEqual({ code: 'VALIDATION_ERROR', detail: 'amount: the property is given more than once' });
    expect((await h.ctx.db.query(`SELECT 1 FROM orders WHERE order_ref = 'dup-1'`)).rows).toHaveLength(0);
  });

  it('a nested key given twice is named with its path', async () => {
    const res = await admin(h.app, 'POST', '/tariffs', undefined);
    expect(res.statusCode).toBe(400);
    const nested = await h.app.inject({
      method: 'POST',
      url: '/admin/v1/tariffs',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{"name":"T","bands":[{"fromUsd":"0","toUsd":null,"ratePercent":"1","ratePercent":"0"}]}',
    });
    expect(nested.statusCode).toBe(400);
    expect(json(nested).fault.detail).toBe('bands.ratePercent: the property is given more than once');
  });

  it('invalid UTF-8 and deep nesting are refused', async () => {
    const bad = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: bad });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault.detail).toMatch(/UTF-8/);
    const deep = `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const nested = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: deep });
    expect(nested.statusCode).toBe(400);
    expect(json(nested).fault.detail).toMatch(/nested/);
  });
});

describe('every response says nosniff', () => {
  it.each([
    ['a signed read', () => signed(h, d, '/gw/v1/balance')],
    ['an error', () => signed(h, d, '/gw/v1/orders/ord_missing')],
    ['an unknown route', () => h.app.inject({ method: 'GET', url: '/nowhere' })],
    ['a page', () => h.app.inject({ method: 'GET', url: '/cabinet/sign-in' })],
    ['the health check', () => h.app.inject({ method: 'GET', url: '/healthz' })],
    ['a router error', () => h.app.inject({ method: 'GET', url: '/gw/v1/orders/%E0%A4%A' })],
  ])('%s', async (_n, call) => {
    expect((await call()).headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('forms that cannot be read answer a page in the user’s language', () => {
  const post = (url: string, payload: string | Buffer, type: string, lang = 'ru') =>
    h.app.inject({ method: 'POST', url, headers: { 'content-type': type, 'accept-language': lang }, payload });

  it('an oversized form answers 413 as a page, not "this form has expired"', async () => {
    const b = new FormBrowser(h.app);
    await b.get('/cabinet/sign-in');
    const res = await h.app.inject({
      method: 'POST',
      url: '/cabinet/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'ru-RU,ru;q=0.9' },
      payload: `email=a%40b.example&password=${'x'.repeat(80 * 1024)}`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<html lang="ru">');
    expect(res.body).toContain('Форма больше допустимого (64 KiB)');
    expect(res.body).not.toMatch(/expired/i);
  });

  it('a form far over the limit still answers the page', async () => {
    const res = await post('/office/sign-in', `a=${'x'.repeat(1100 * 1024)}`, 'application/x-www-form-urlencoded', 'tr');
    expect(res.statusCode).toBe(413);
    expect(res.body).toContain('Bu form gönderilemedi');
  });

  it('a form with too many fields answers 400', async () => {
    const fields = Array.from({ length: 500 }, (_, i) => `f${i}=1`).join('&');
    const res = await post('/cabinet/sign-in', fields, 'application/x-www-form-urlencoded', 'en');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('more fields than any of our forms');
  });

  it('a multipart form with too many parts answers 400 as a page', async () => {
    const b = new FormBrowser(h.app);
    const parts = Array.from({ length: 40 }, (_, i) => ({ name: `p${i}`, value: 'v' }));
    const { body, type } = multipartBody(parts);
    const res = await h.app.inject({ method: 'POST', url: '/cabinet/appeals', headers: { 'content-type': type, cookie: '', 'accept-language': 'kk' }, payload: body, remoteAddress: b.ip });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<html lang="kk">');
  });

  it('a NUL byte in a form answers a page, not JSON', async () => {
    for (const payload of ['email=a%00b&password=x', Buffer.from('email=a\0b&password=x')]) {
      const res = await post('/cabinet/sign-in', payload, 'application/x-www-form-urlencoded', 'hi');
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('NUL');
      expect(res.body).toContain('<html lang="hi">');
    }
    const pay = await post('/pay/ord_x', 'payerReference=12%0034', 'application/x-www-form-urlencoded', 'en');
    expect(pay.statusCode).toBe(400);
    expect(pay.headers['content-type']).toContain('text/html');
  });

  it('a JSON body sent to a page answers 415 as a page', async () => {
    const res = await post('/cabinet/sign-in', '{"email":"a"}', 'application/json', 'az');
    expect(res.statusCode).toBe(415);
    expect(res.body).toContain('<html lang="az">');
  });
});

describe('slow clients', () => {
  it('a request whose body never finishes is answered 408 and closed after REQUEST_TIMEOUT_SECONDS', async () => {
    const slow = await createHarness({ env: { REQUEST_TIMEOUT_SECONDS: '1' } });
    try {
      await slow.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = slow.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (c) => (received += c.toString()));
      // Without the timeout the server holds this socket for ever and the test runs out of time.
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write('POST /admin/v1/merchants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408/);
      const envelope = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
      expect(envelope).toMatchObject({ status: 'error', fault: { code: 'REQUEST_TIMEOUT' } });
      expect(received).toContain(`X-Trace-Id: ${envelope.traceId}`);
    } finally {
      await slow.close();
    }
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Sends raw bytes and reads until the server closes or has answered in full. */
  async function exchange(text: string): Promise<{ status: number; headers: string; body: string }> {
    await h.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    const { port } = h.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const done = new Promise<void>((resolve) => {
      socket.on('data', (c) => {
        received += c.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(received)?.[1];
        if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) resolve();
      });
      socket.on('close', () => resolve());
    });
    socket.write(text);
    await done;
    socket.destroy();
    const end = received.indexOf('\r\n\r\n');
    return { status: Number(received.slice(9, 12)), headers: received.slice(0, end), body: received.slice(end + 4) };
  }

  it.each([
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'VALIDATION_ERROR'],
    ['headers larger than the server takes', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n', 400, 'VALIDATION_ERROR'],
    ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n', 400, 'VALIDATION_ERROR'],
  ])('%s answers %i in the envelope with a trace id', async (_name, text, status, code) => {
    const res = await exchange(text);
    expect(res.status).toBe(status);
    const envelope = JSON.parse(res.body);
    expect(envelope).toMatchObject({ status: 'error', fault: { code } });
    expect(envelope.traceId).toMatch(/^[0-9a-f]{24}$/);
    expect(res.headers).toMatch(new RegExp(`X-Trace-Id: ${envelope.traceId}`, 'i'));
    expect(res.headers).toMatch(/X-Content-Type-Options: nosniff/i);
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    const res = await exchange('GET /healthz HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
  });
});

describe('a database that cannot be reached', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a server shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
  ])('%s answers 503 SERVICE_UNAVAILABLE, not a 500', async (_n, failure) => {
    const down = { ...h.ctx.db, query: async () => Promise.reject(failure), tx: async () => Promise.reject(failure) };
    const { buildApp } = await import('../../src/app/buildApp.js');
    const app = buildApp({ ...h.ctx, db: down as never });
    try {
      const res = await app.inject({ method: 'GET', url: '/admin/v1/merchants/mer_x', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.statusCode).toBe(503);
      expect(json(res).fault.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.body).not.toMatch(/5432|administrator/);
    } finally {
      await app.close();
    }
  });
});
