/**
 * Each rate source against a local HTTP server serving recorded feed answers: the happy path,
 * error statuses, bodies that are not the feed, timeouts, aborts, size caps and refused
 * connections. No test reaches the internet.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Decimal } from 'decimal.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DailyXmlFeedSource, FEED_USER_AGENT, RateSourceError, type RateSource, type RateSourceFailure } from '../../src/fx/source.js';
import { CBR_DAILY_PATH, CBR_FEED } from '../../src/fx/sources/cbr.js';
import { ECB_DAILY_PATH, ECB_FEED } from '../../src/fx/sources/ecb.js';
import { EXCHANGE_TICKER_PATH, ExchangeTickerRateSource } from '../../src/fx/sources/exchangeTicker.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/fx/${name}`, import.meta.url));
const CBR_BODY = fixture('cbr-daily.xml');
const ECB_BODY = fixture('ecb-daily.xml');
const TICKER_BODY = fixture('ticker-price.json');

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers like the real feeds do, by path. */
const serveRecorded: Handler = (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path.endsWith(CBR_DAILY_PATH)) {
    res.writeHead(200, { 'content-type': 'application/xml; charset=windows-1251' }).end(CBR_BODY);
  } else if (path.endsWith(ECB_DAILY_PATH)) {
    res.writeHead(200, { 'content-type': 'text/xml' }).end(ECB_BODY);
  } else if (path.endsWith(EXCHANGE_TICKER_PATH)) {
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' }).end(TICKER_BODY);
  } else {
    res.writeHead(404).end('not found');
  }
};

let server: Server;
let baseUrl: string;
let handler: Handler = serveRecorded;
let requests: Array<{ url: string; userAgent: string | undefined; connection: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', userAgent: req.headers['user-agent'], connection: req.headers.connection });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  handler = serveRecorded;
  requests = [];
});

afterEach(() => {
  // Drop connections a test left hanging on purpose.
  server.closeAllConnections();
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const at8 = (rates: Map<string, Decimal>) =>
  Object.fromEntries([...rates].map(([code, rate]) => [code, rate.toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8)]));

async function failureOf(promise: Promise<unknown>): Promise<RateSourceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RateSourceError);
    return err as RateSourceError;
  }
  throw new Error('expected the fetch to fail');
}

/** One source of each kind, each asked for a code its feed prices. */
const adapters: Array<{ kind: string; make: (base: string, timeoutMs?: number, maxBytes?: number) => RateSource; codes: string[] }> = [
  { kind: 'cbr', make: (b, timeoutMs, maxBytes) => new DailyXmlFeedSource(CBR_FEED, { baseUrl: b, timeoutMs, maxBytes }), codes: ['RUB'] },
  { kind: 'ecb', make: (b, timeoutMs, maxBytes) => new DailyXmlFeedSource(ECB_FEED, { baseUrl: b, timeoutMs, maxBytes }), codes: ['TRY'] },
  {
    kind: 'binance',
    make: (b, timeoutMs, maxBytes) => new ExchangeTickerRateSource({ baseUrl: b, timeoutMs, maxBytes }),
    codes: ['TRY'],
  },
];

describe('recorded answers', () => {
  it('CBR: RUB directly and cross rates through RUB, from the windows-1251 feed', async () => {
    const source = new DailyXmlFeedSource(CBR_FEED, { baseUrl });
    const rates = await source.fetchRates(['RUB', 'INR', 'KRW', 'TRY', 'AZN', 'KZT', 'UZS', 'XYZ']);
    expect(at8(rates)).toEqual({
      RUB: '80.97350000',
      INR: '88.65918766',
      KRW: '1466.06930440',
      TRY: '42.35680285',
      AZN: '1.69999895',
      KZT: '520.38186679',
      UZS: '12031.72362556',
    });
    // One connection per poll: no idle socket for the server to close under the next request.
    expect(requests).toEqual([{ url: CBR_DAILY_PATH, userAgent: FEED_USER_AGENT, connection: 'close' }]);
  });

  it('ECB: per-USD rates for what it publishes', async () => {
    const rates = await new DailyXmlFeedSource(ECB_FEED, { baseUrl }).fetchRates(['RUB', 'INR', 'KRW', 'TRY']);
    expect(at8(rates)).toEqual({ INR: '88.66704309', KRW: '1473.35823489', TRY: '42.41096247' });
    expect(requests.map((r) => r.url)).toEqual([ECB_DAILY_PATH]);
  });

  it('exchange ticker: asks for the mapped symbols only and takes USDT as USD', async () => {
    const source = new ExchangeTickerRateSource({ baseUrl, symbols: { TRY: 'USDTTRY', RUB: 'USDTRUB' } });
    const rates = await source.fetchRates(['RUB', 'KZT', 'TRY', 'USD']);
    expect(at8(rates)).toEqual({ RUB: '81.05000000', TRY: '42.41000000', USD: '1.00000000' });
    expect(requests).toHaveLength(1);
    const asked = new URL(requests[0].url, baseUrl);
    expect(asked.pathname).toBe(EXCHANGE_TICKER_PATH);
    expect(asked.searchParams.get('symbols')).toBe('["USDTRUB","USDTTRY"]');
  });

  it('exchange ticker: makes no request when no asked code has a symbol', async () => {
    const rates = await new ExchangeTickerRateSource({ baseUrl }).fetchRates(['KZT', 'USD']);
    expect(at8(rates)).toEqual({ USD: '1.00000000' });
    expect(requests).toEqual([]);
  });

  it('honours a base URL with a path prefix and a trailing slash', async () => {
    const rates = await new DailyXmlFeedSource(CBR_FEED, { baseUrl: `${baseUrl}/mirror/` }).fetchRates(['RUB']);
    expect(at8(rates)).toEqual({ RUB: '80.97350000' });
    expect(requests.map((r) => r.url)).toEqual([`/mirror${CBR_DAILY_PATH}`]);
  });
});

describe.each(adapters)('$kind fails clearly', ({ kind, make, codes }) => {
  const expectFailure = (err: RateSourceError, failure: RateSourceFailure, message: RegExp) => {
    expect(err.source).toBe(kind);
    expect(err.failure, err.message).toBe(failure);
    expect(err.message).toMatch(message);
  };

  it('on a 500, quoting the start of the body', async () => {
    handler = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n');
    expectFailure(await failureOf(make(baseUrl).fetchRates(codes)), 'http-status', /HTTP 500: Internal Server Error$/);
  });

  it('on a redirect, which is not followed', async () => {
    handler = (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    expectFailure(await failureOf(make(baseUrl).fetchRates(codes)), 'http-status', /HTTP 302/);
    expect(requests).toHaveLength(1);
  });

  it('on a 200 whose body is not the feed', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Please enable JavaScript</body></html>');
    expectFailure(await failureOf(make(baseUrl).fetchRates(codes)), 'malformed', new RegExp(`^${kind}: `));
  });

  it('on a server that never answers, within the timeout', async () => {
    handler = () => {}; // holds the request open
    const started = Date.now();
    const err = await failureOf(make(baseUrl, 150).fetchRates(codes));
    expectFailure(err, 'timeout', /timed out after 150 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('on a body that stalls after the headers, within the timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('<?xml version="1.0"?><Val');
    };
    const started = Date.now();
    expectFailure(await failureOf(make(baseUrl, 150).fetchRates(codes)), 'timeout', /timed out/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when the caller aborts', async () => {
    // A server of its own that holds every request open, so nothing but the caller ends the exchange.
    const held: ServerResponse[] = [];
    const silent = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const controller = new AbortController();
      const pending = make(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, 10_000).fetchRates(codes, controller.signal);
      setTimeout(() => controller.abort(), 50);
      expectFailure(await failureOf(pending), 'aborted', /aborted/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('on a body over the size cap, declared or streamed', async () => {
    handler = serveRecorded;
    expectFailure(await failureOf(make(baseUrl, 5_000, 64).fetchRates(codes)), 'too-large', /exceeds 64/);
    handler = (_req, res) => {
      res.writeHead(200); // chunked: no length announced
      res.write('x'.repeat(50));
      res.end('x'.repeat(50));
    };
    expectFailure(await failureOf(make(baseUrl, 5_000, 64).fetchRates(codes)), 'too-large', /exceeds 64 bytes/);
  });

  it('when nothing listens', async () => {
    // Port 1 on the loopback refuses connections.
    expectFailure(await failureOf(make('http://127.0.0.1:1', 2_000).fetchRates(codes)), 'network', /ECONNREFUSED/);
  });
});

describe('exchange ticker error answers', () => {
  it('quotes the exchange’s own explanation of a 400', async () => {
    handler = (_req, res) =>
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":-1121,"msg":"Invalid symbol."}');
    const err = await failureOf(new ExchangeTickerRateSource({ baseUrl, symbols: { KZT: 'USDTKZT' } }).fetchRates(['KZT']));
    expect(err.failure).toBe('http-status');
    expect(err.message).toContain('HTTP 400: {"code":-1121,"msg":"Invalid symbol."}');
  });
});
