import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { createPinnedDispatcher } from '../../src/callbacks/pinnedDispatcher.js';
import { DEFAULT_CALLBACK_TIMEOUT_MS, sendCallback, type SendCallbackInput } from '../../src/callbacks/send.js';
import { EMPTY_ALLOWLIST, checkCallbackUrl, parseAllowlist } from '../../src/callbacks/urlGuard.js';
import { signMessage } from '../../src/signing.js';
import { eventually } from '../helpers/eventually.js';

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface Receiver {
  url: string;
  port: number;
  hits: Received[];
  server: Server;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const servers: Array<Server | TlsServer> = [];

/** A real HTTP receiver on 127.0.0.1 with an ephemeral port, recording every request it gets. */
async function startReceiver(handler: Handler, host = '127.0.0.1'): Promise<Receiver> {
  const hits: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      hits.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${port}/callback`, port, hits, server };
}

function answer(status: number, body = '', headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** A port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const SECRET = 'sk_test_receiver_secret';
// Non-ASCII on purpose: the signature must cover the UTF-8 bytes exactly as sent.
const BODY = Buffer.from('{"event":"order.cancelled","id":"ord_1","orderRef":"счёт-7","status":"Canceled"}', 'utf8');

const localAllowlist = parseAllowlist('127.0.0.1');
let dispatcher: Dispatcher;
const extraDispatchers: Dispatcher[] = [];

function input(url: string, overrides: Partial<SendCallbackInput> = {}): SendCallbackInput {
  return { url, body: BODY, eventId: 'evt_test_1', secret: SECRET, ts: 1763700000, dispatcher, ...overrides };
}

function pinned(opts: Parameters<typeof createPinnedDispatcher>[0]): Dispatcher {
  const d = createPinnedDispatcher(opts);
  extraDispatchers.push(d);
  return d;
}

beforeAll(() => {
  dispatcher = createPinnedDispatcher({ allowlist: localAllowlist });
});

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

afterAll(async () => {
  await dispatcher.destroy();
  for (const d of extraDispatchers) await d.destroy();
});

describe('signature test vector', () => {
  it('reproduces callback vector C1 with signMessage', () => {
    const body =
      '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed","amount":{"value":"1500.50","currency":"RUB"},"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}';
    const expected = 'd8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b';
    expect(signMessage('sk_test_9f8e7d6c5b4a', '1763700000', 'evt_01', Buffer.from(body, 'utf8'))).toBe(expected);
    expect(signMessage('sk_test_9f8e7d6c5b4a', '1763700000', 'evt_01', body)).toBe(expected);
  });
});

describe('sendCallback request', () => {
  it('POSTs the exact body bytes with exactly the specified headers and a verifiable signature', async () => {
    const receiver = await startReceiver(answer(200, 'OK'));
    const result = await sendCallback(input(receiver.url));

    expect(result).toEqual({ outcome: 'delivered', httpCode: 200, response: 'OK', error: null });
    expect(receiver.hits).toHaveLength(1);
    const hit = receiver.hits[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/callback');
    expect(hit.body.equals(BODY)).toBe(true);

    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.headers['user-agent']).toBe('Paygate/1.0 Callback');
    expect(hit.headers['x-gate-ts']).toBe('1763700000');
    expect(hit.headers['x-gate-event-id']).toBe('evt_test_1');
    expect(hit.headers['content-length']).toBe(String(BODY.length));

    // Each specified header once, and nothing beyond them but HTTP framing.
    const names = hit.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => !['host', 'connection', 'content-length'].includes(n)).sort()).toEqual(
      ['content-type', 'user-agent', 'x-gate-event-id', 'x-gate-sign', 'x-gate-ts'],
    );

    // Verified independently of the project's signing module, over the bytes received.
    const expected = createHmac('sha256', SECRET)
      .update(Buffer.concat([Buffer.from(`${hit.headers['x-gate-ts']}.${hit.headers['x-gate-event-id']}.`), hit.body]))
      .digest('hex');
    expect(hit.headers['x-gate-sign']).toMatch(/^[0-9a-f]{64}$/);
    expect(hit.headers['x-gate-sign']).toBe(expected);
  });

  it('signs with the given timestamp and event id, so a different event gets a different signature', async () => {
    const receiver = await startReceiver(answer(200));
    await sendCallback(input(receiver.url, { eventId: 'evt_a', ts: 1 }));
    await sendCallback(input(receiver.url, { eventId: 'evt_b', ts: 2 }));
    const [a, b] = receiver.hits;
    expect(a!.headers['x-gate-event-id']).toBe('evt_a');
    expect(b!.headers['x-gate-ts']).toBe('2');
    expect(a!.headers['x-gate-sign']).not.toBe(b!.headers['x-gate-sign']);
  });

  it('uses a 15 second default timeout', () => {
    expect(DEFAULT_CALLBACK_TIMEOUT_MS).toBe(15_000);
  });
});

describe('sendCallback outcome classes', () => {
  it.each([
    [200, 'delivered'],
    [201, 'rejected'],
    [202, 'rejected'],
    [204, 'rejected'],
    [400, 'rejected'],
    [401, 'rejected'],
    [404, 'rejected'],
    [410, 'rejected'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
  ] as const)('HTTP %i is %s', async (status, outcome) => {
    const receiver = await startReceiver(answer(status, status === 204 ? '' : `status ${status}`));
    const result = await sendCallback(input(receiver.url));
    expect(result.outcome).toBe(outcome);
    expect(result.httpCode).toBe(status);
    expect(result.response).toBe(status === 204 ? '' : `status ${status}`);
    expect(result.error).toBeNull();
    expect(receiver.hits).toHaveLength(1);
  });

  it.each([301, 302, 303, 307, 308])('HTTP %i is rejected and its Location is not followed', async (status) => {
    const target = await startReceiver(answer(200, 'should not be reached'));
    const receiver = await startReceiver(answer(status, 'moved', { location: target.url }));
    const result = await sendCallback(input(receiver.url));
    expect(result).toMatchObject({ outcome: 'rejected', httpCode: status, error: null });
    expect(receiver.hits).toHaveLength(1);
    expect(target.hits).toHaveLength(0);
  });

  it('does not follow a redirect to an internal address', async () => {
    // The internal service is reachable by the dispatcher (127.0.0.1 is allowlisted here), so
    // only the absence of redirect handling keeps it from being hit.
    const internal = await startReceiver(answer(200, 'internal secrets'));
    const receiver = await startReceiver(answer(302, '', { location: `http://localhost:${internal.port}/admin` }));
    const result = await sendCallback(input(receiver.url));
    expect(result).toMatchObject({ outcome: 'rejected', httpCode: 302 });
    expect(internal.hits).toHaveLength(0);
  });

  it('retries when the connection is refused', async () => {
    const port = await closedPort();
    const result = await sendCallback(input(`http://127.0.0.1:${port}/callback`));
    expect(result.outcome).toBe('retry');
    expect(result.httpCode).toBeNull();
    expect(result.response).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('retries when the receiver never answers within timeoutMs', async () => {
    const receiver = await startReceiver(() => {
      /* holds the request open without answering */
    });
    const started = Date.now();
    const result = await sendCallback(input(receiver.url, { timeoutMs: 300 }));
    const elapsed = Date.now() - started;
    expect(result).toEqual({ outcome: 'retry', httpCode: null, response: null, error: 'no answer within 300 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
    expect(receiver.hits).toHaveLength(1);
  });

  it('classifies by status when the headers arrive but the body stalls past the deadline', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const result = await sendCallback(input(receiver.url, { timeoutMs: 300 }));
    expect(result).toEqual({ outcome: 'delivered', httpCode: 200, response: 'partial', error: null });
  });

  it('rejects a URL that is not http(s) without sending anything', async () => {
    expect(await sendCallback(input('ftp://127.0.0.1/x'))).toMatchObject({ outcome: 'rejected', httpCode: null });
    expect(await sendCallback(input('not a url'))).toMatchObject({ outcome: 'rejected', httpCode: null });
  });
});

describe('sendCallback response excerpt', () => {
  it('keeps the first 300 characters of the response', async () => {
    const text = `${'a'.repeat(299)}bc${'d'.repeat(700)}`;
    const receiver = await startReceiver(answer(400, text));
    const result = await sendCallback(input(receiver.url));
    expect(result.response).toBe(text.slice(0, 300));
  });

  it('counts characters, not bytes, for a multi-byte answer', async () => {
    const text = 'ж'.repeat(500);
    const receiver = await startReceiver(answer(200, text));
    const result = await sendCallback(input(receiver.url));
    expect(result.response).toBe('ж'.repeat(300));
  });

  it('reads only a bounded prefix of a huge response and still classifies it', async () => {
    let written = 0;
    let closed = false;
    let closedEarly = false;
    const total = 64 * 1024 * 1024;
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'content-length': String(total) });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      res.on('close', () => {
        closed = true;
        closedEarly = written < total;
      });
      const pump = (): void => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const result = await sendCallback(input(receiver.url));
    expect(result).toEqual({ outcome: 'retry', httpCode: 503, response: 'x'.repeat(300), error: null });
    await eventually('the receiver sees the connection closed', () => closed);
    // The sender hung up long before the 64 MiB were out.
    expect(closedEarly).toBe(true);
    expect(written).toBeLessThan(total);
  });
});

describe('pinned dispatcher', () => {
  it('refuses a host name that resolves to 127.0.0.1 when it is not allowlisted', async () => {
    const receiver = await startReceiver(answer(200));
    const guarded = pinned({ allowlist: EMPTY_ALLOWLIST, resolve: async () => ['127.0.0.1'] });
    const result = await sendCallback(input(`http://merchant.test:${receiver.port}/callback`, { dispatcher: guarded }));
    expect(result).toEqual({ outcome: 'rejected', httpCode: null, response: null, error: 'blocked address' });
    expect(receiver.hits).toHaveLength(0);
  });

  it('refuses an IP-literal URL pointing at a blocked address', async () => {
    const receiver = await startReceiver(answer(200));
    const guarded = pinned({ allowlist: EMPTY_ALLOWLIST, resolve: async () => ['93.184.215.14'] });
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433']) {
      const result = await sendCallback(input(`http://${host}:${receiver.port}/callback`, { dispatcher: guarded }));
      expect(result).toMatchObject({ outcome: 'rejected', error: 'blocked address' });
    }
    expect(receiver.hits).toHaveLength(0);
  });

  it('refuses a blocked host name without asking the resolver', async () => {
    const calls: string[] = [];
    const guarded = pinned({ allowlist: EMPTY_ALLOWLIST, resolve: async (h) => (calls.push(h), ['93.184.215.14']) });
    const result = await sendCallback(input('http://LOCALHOST.:9/callback', { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'rejected', error: 'blocked address' });
    expect(calls).toEqual([]);
  });

  it('refuses a host with one allowlisted and one private address', async () => {
    const receiver = await startReceiver(answer(200));
    const guarded = pinned({ allowlist: parseAllowlist('127.0.0.1'), resolve: async () => ['127.0.0.1', '10.0.0.1'] });
    const result = await sendCallback(input(`http://merchant.test:${receiver.port}/callback`, { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'rejected', error: 'blocked address' });
    expect(receiver.hits).toHaveLength(0);
  });

  it('connects to the address it resolved and checked, keeping the host name in the Host header', async () => {
    // merchant.test exists in no DNS: the request can only arrive if the socket went to the
    // address our resolver returned.
    const receiver = await startReceiver(answer(200, 'ok'));
    const calls: string[] = [];
    const guarded = pinned({ allowlist: parseAllowlist('127.0.0.0/8'), resolve: async (h) => (calls.push(h), ['127.0.0.1']) });
    const result = await sendCallback(input(`http://merchant.test:${receiver.port}/callback`, { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'delivered', httpCode: 200 });
    expect(calls).toEqual(['merchant.test']);
    expect(receiver.hits[0]!.headers.host).toBe(`merchant.test:${receiver.port}`);
  });

  it('closes the DNS-rebinding gap: a name that was public at check time and private at connect time is refused', async () => {
    const receiver = await startReceiver(answer(200));
    let lookups = 0;
    const rebinding = async (): Promise<string[]> => (lookups++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']);
    const url = `http://rebind.test:${receiver.port}/callback`;

    const check = await checkCallbackUrl(url, { allowlist: EMPTY_ALLOWLIST, resolve: rebinding });
    expect(check.ok).toBe(true);

    const guarded = pinned({ allowlist: EMPTY_ALLOWLIST, resolve: rebinding });
    const result = await sendCallback(input(url, { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'rejected', error: 'blocked address' });
    expect(lookups).toBe(2);
    expect(receiver.hits).toHaveLength(0);
  });

  it('sends the host name, not the dialled address, as TLS server name', async () => {
    // A TLS listener that records the SNI of each handshake and then aborts it: no certificate
    // is needed to see what the client asked for.
    const serverNames: string[] = [];
    const tlsServer = createTlsServer({
      SNICallback: (name, cb) => {
        serverNames.push(name);
        cb(new Error('no certificate for this test'), undefined as never);
      },
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    servers.push(tlsServer);
    const port = (tlsServer.address() as AddressInfo).port;
    const guarded = pinned({ allowlist: parseAllowlist('127.0.0.1'), resolve: async () => ['127.0.0.1'] });

    const result = await sendCallback(input(`https://Merchant.Test.:${port}/callback`, { dispatcher: guarded }));
    // A failed handshake is a connection error like any other.
    expect(result).toMatchObject({ outcome: 'retry', httpCode: null });
    expect(serverNames).toEqual(['merchant.test']);
  });

  it('moves on to the next checked address when the first cannot be reached', async () => {
    const receiver = await startReceiver(answer(200));
    const deadPort = await closedPort();
    // Nothing listens on ::1 at this port (the receiver is bound to 127.0.0.1 only), so the
    // first address fails and the second one is used.
    const guarded = pinned({ allowlist: parseAllowlist('127.0.0.1, ::1'), resolve: async () => ['::1', '127.0.0.1'] });
    const result = await sendCallback(input(`http://two.test:${receiver.port}/callback`, { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'delivered' });
    expect(receiver.hits).toHaveLength(1);

    const none = await sendCallback(input(`http://two.test:${deadPort}/callback`, { dispatcher: guarded }));
    expect(none).toMatchObject({ outcome: 'retry', httpCode: null });
  });

  it('treats a resolver failure at delivery time as a connection error to retry', async () => {
    const guarded = pinned({
      allowlist: EMPTY_ALLOWLIST,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo EAI_AGAIN flaky.test'), { code: 'EAI_AGAIN' });
      },
    });
    const result = await sendCallback(input('http://flaky.test/callback', { dispatcher: guarded }));
    expect(result).toMatchObject({ outcome: 'retry', httpCode: null });
    expect(result.error).toMatch(/EAI_AGAIN/);
  });
});
