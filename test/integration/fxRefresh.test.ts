/**
 * The rates worker end to end: recorded feed answers from a local HTTP server, the refresher
 * built from the configuration as in production, the `rates` table, and the signed
 * GET /gw/v1/rates a merchant reads. Time moves on the harness's ManualClock; the server counts
 * the requests it gets, so the cadence is observed, not inferred.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Decimal } from 'decimal.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import type { Ctx } from '../../src/context.js';
import { rateRefresher } from '../../src/fx/refresh.js';
import { CBR_DAILY_PATH } from '../../src/fx/sources/cbr.js';
import { ECB_DAILY_PATH } from '../../src/fx/sources/ecb.js';
import { DailyXmlFeedSource } from '../../src/fx/source.js';
import { EXCHANGE_TICKER_PATH, ExchangeTickerRateSource } from '../../src/fx/sources/exchangeTicker.js';
import { feedBaseUrl, sourcesFromConfig } from '../../src/fx/sources/index.js';
import { getRates, type RateRow } from '../../src/store/currencies.js';
import { admin, createHarness, json, provisionDesk, signed, type Harness } from '../helpers/harness.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/fx/${name}`, import.meta.url));
const CBR_BODY = fixture('cbr-daily.xml');
const ECB_BODY = fixture('ecb-daily.xml');
const TICKER_BODY = fixture('ticker-price.json');

/**
 * The CBR answer with another RUB price of one USD. The value is ASCII, the same bytes in
 * windows-1251, so the rest of the recorded document stays byte for byte as the bank sent it.
 */
function cbrWithUsd(value: string): Buffer {
  const recorded = '<CharCode>USD</CharCode><Nominal>1</Nominal>';
  const text = CBR_BODY.toString('latin1');
  const at = text.indexOf(recorded);
  if (at < 0) throw new Error('USD entry not found in the CBR fixture');
  const valueAt = text.indexOf('<Value>80,9735</Value>', at);
  if (valueAt < 0) throw new Error('USD value not found in the CBR fixture');
  return Buffer.concat([
    CBR_BODY.subarray(0, valueAt),
    Buffer.from(`<Value>${value}</Value>`, 'latin1'),
    CBR_BODY.subarray(valueAt + '<Value>80,9735</Value>'.length),
  ]);
}

// Exact expectations, computed from the fixtures' published numbers, not by the code under test.
const X = Decimal.clone({ precision: 60 });
const at12 = (v: Decimal) => v.toFixed(12, Decimal.ROUND_HALF_UP);
const RUB_CBR = at12(new X('80.9735')); // USD: Nominal 1, Value 80,9735
const KZT_CBR = at12(new X('80.9735').mul(100).div('15.5604')); // KZT: Nominal 100, Value 15,5604
const TRY_ECB = at12(new X('48.8235').div('1.1512')); // per EUR: TRY 48.8235, USD 1.1512
const TRY_TICKER = '42.410000000000'; // USDTTRY 42.41000000

type Answer = 'recorded' | 'fail' | Buffer;
const answers = { cbr: 'recorded' as Answer, ecb: 'recorded' as Answer, ticker: 'recorded' as Answer };
let hits: string[] = [];
let server: Server;
let feedBase: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(url.pathname);
    const [kind, recorded, type] =
      url.pathname === CBR_DAILY_PATH
        ? (['cbr', CBR_BODY, 'application/xml; charset=windows-1251'] as const)
        : url.pathname === ECB_DAILY_PATH
          ? (['ecb', ECB_BODY, 'text/xml'] as const)
          : url.pathname === EXCHANGE_TICKER_PATH
            ? (['ticker', TICKER_BODY, 'application/json'] as const)
            : ([null, null, null] as const);
    if (kind === null) {
      res.writeHead(404).end('not found');
      return;
    }
    const answer = answers[kind];
    if (answer === 'fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
    else res.writeHead(200, { 'content-type': type }).end(answer === 'recorded' ? recorded : answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feedBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const cbrUrl = () => `${feedBase}${CBR_DAILY_PATH}`;
const ecbUrl = () => `${feedBase}${ECB_DAILY_PATH}`;
const tickerUrl = () => `${feedBase}${EXCHANGE_TICKER_PATH}`;

let h: Harness | null = null;

beforeEach(() => {
  answers.cbr = 'recorded';
  answers.ecb = 'recorded';
  answers.ticker = 'recorded';
  hits = [];
});

afterEach(async () => {
  await h?.close();
  h = null;
});

async function harness(env: Record<string, string>): Promise<Harness> {
  h = await createHarness({ env: { FX_CBR_URL: cbrUrl(), FX_ECB_URL: ecbUrl(), FX_TICKER_URL: tickerUrl(), ...env } });
  return h;
}

/** Enables currencies on the platform without a manual rate, so only the market can price them. */
async function enable(hh: Harness, codes: Record<string, string>): Promise<void> {
  for (const [code, spreadPercent] of Object.entries(codes)) {
    const res = await admin(hh.app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent });
    expect(res.statusCode, res.body).toBe(200);
  }
}

async function rateRow(hh: Harness, code: string): Promise<RateRow | undefined> {
  return (await getRates(hh.ctx.db, [code])).get(code);
}

async function outcomes(ctx: Ctx): Promise<Record<string, number>> {
  const { values } = await ctx.metrics.rateRefreshes.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('cadence', () => {
  it('asks for RUB every 60 s and KZT every 600 s, counted from the last attempt', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0', KZT: '0' });
    const worker = rateRefresher(hh.ctx);
    expect(worker.name).toBe('rate-refresh');
    const t0 = hh.clock.now();

    // Both due at first: one request to the bank prices both.
    expect(await worker.runOnce()).toBe(2);
    expect(hits).toEqual([CBR_DAILY_PATH]);

    hh.clock.advance(59 * SECOND);
    expect(await worker.runOnce()).toBe(0);
    expect(hits).toHaveLength(1);

    hh.clock.advance(1 * SECOND);
    expect(await worker.runOnce()).toBe(1); // RUB only
    expect(hits).toHaveLength(2);
    expect((await rateRow(hh, 'RUB'))!.market_attempt_at!.getTime()).toBe(t0 + MINUTE);
    expect((await rateRow(hh, 'KZT'))!.market_attempt_at!.getTime()).toBe(t0);

    // Minutes 2 to 9: RUB each minute, KZT not yet.
    for (let minute = 2; minute <= 9; minute++) {
      hh.clock.set(t0 + minute * MINUTE);
      expect(await worker.runOnce(), `minute ${minute}`).toBe(1);
    }
    expect(hits).toHaveLength(10);
    hh.clock.set(t0 + 10 * MINUTE - 1);
    expect(await worker.runOnce()).toBe(0);

    hh.clock.set(t0 + 10 * MINUTE);
    expect(await worker.runOnce()).toBe(2);
    expect(hits).toHaveLength(11);
    expect((await rateRow(hh, 'KZT'))!.market_attempt_at!.getTime()).toBe(t0 + 10 * MINUTE);
    expect(await outcomes(hh.ctx)).toEqual({ stored: 13 });
  });

  it('keeps the schedule in the database: a new worker (another instance, a restart) does not ask again early', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0' });
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(1);
    hh.clock.advance(30 * SECOND);
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(0);
    expect(hits).toHaveLength(1);
    hh.clock.advance(30 * SECOND);
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(1);
    expect(hits).toHaveLength(2);
  });

  it('a failed attempt counts too: a failing feed is asked again at the cadence, not on every pass', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0' });
    answers.cbr = 'fail';
    const worker = rateRefresher(hh.ctx);
    expect(await worker.runOnce()).toBe(1);
    hh.clock.advance(10 * SECOND);
    expect(await worker.runOnce()).toBe(0);
    expect(hits).toHaveLength(1);
    expect(await outcomes(hh.ctx)).toEqual({ failed: 1 });
  });
});

describe('several instances', () => {
  it('two workers passing at the same moment fetch each due currency once', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0', KZT: '0' });
    const [a, b] = [rateRefresher(hh.ctx), rateRefresher(hh.ctx)];
    const attempted = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(attempted[0] + attempted[1]).toBe(2);
    expect(hits.length).toBeLessThanOrEqual(2);
    hh.clock.advance(MINUTE);
    const again = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(again[0] + again[1]).toBe(1); // only RUB is due, and only one worker takes it
  });
});

describe('what is asked for', () => {
  it('only enabled currencies, never USD', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0', USD: '0' });
    await admin(hh.app, 'PUT', '/currencies/KZT', { enabled: false, spreadPercent: '0' });
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(1);
    expect([...(await getRates(hh.ctx.db, ['RUB', 'USD', 'KZT'])).keys()]).toEqual(['RUB']);
  });

  it('with no sources configured a pass returns 0 and makes no request', async () => {
    const hh = await harness({});
    await enable(hh, { RUB: '0', KZT: '0' });
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(0);
    expect(await rateRefresher(hh.ctx, []).runOnce()).toBe(0);
    expect(hits).toEqual([]);
    expect((await getRates(hh.ctx.db, ['RUB', 'KZT'])).size).toBe(0);
  });
});

describe('stored rates and GET /gw/v1/rates', () => {
  it('stores the market rate at 12 places, and the gateway shows it with the spread (D13)', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0', KZT: '1.5' });
    const desk = await provisionDesk(hh.app, { currencies: {}, desk: { currencies: ['RUB', 'KZT'] } });

    // Before any refresh there is no rate: not priceable.
    const before = json(await signed(hh, desk, '/gw/v1/rates'));
    expect(before.result.rates).toEqual([
      { code: 'RUB', rate: null, priceable: false },
      { code: 'KZT', rate: null, priceable: false },
    ]);

    expect(await rateRefresher(hh.ctx).runOnce()).toBe(2);
    const rub = (await rateRow(hh, 'RUB'))!;
    expect(rub).toMatchObject({
      market_rate: RUB_CBR,
      market_source: 'cbr',
      market_flag: null,
      manual_rate: null,
    });
    expect(rub.market_fetched_at!.getTime()).toBe(hh.clock.now());
    expect((await rateRow(hh, 'KZT'))!.market_rate).toBe(KZT_CBR);
    expect(KZT_CBR).toBe('520.381866790057'); // 8097.35 / 15.5604 = 520.38186679005681…

    const res = await signed(hh, desk, '/gw/v1/rates');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toEqual({
      settlement: 'USD',
      rates: [
        { code: 'RUB', rate: '80.97350000', priceable: true },
        // 520.381866790057 × 1.015 = 528.187594791907855, half-up to 8 places.
        { code: 'KZT', rate: '528.18759479', priceable: true },
      ],
    });
    const kztOnly = json(await signed(hh, desk, '/gw/v1/rates', { query: 'currency=KZT' }));
    expect(kztOnly.result.rates).toEqual([{ code: 'KZT', rate: '528.18759479', priceable: true }]);
  });

  it('a manual rate takes precedence over the market; deleting it returns to the market rate', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' });
    await enable(hh, { RUB: '0' });
    const desk = await provisionDesk(hh.app, { currencies: {}, desk: { currencies: ['RUB'] } });
    await rateRefresher(hh.ctx).runOnce();

    expect((await admin(hh.app, 'PUT', '/rates/RUB', { rate: '95.5' })).statusCode).toBe(200);
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '95.50000000', priceable: true }]);

    // The market keeps being refreshed underneath, and does not override the operator.
    hh.clock.advance(MINUTE);
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(1);
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({ manual_rate: '95.50000000', market_rate: RUB_CBR });
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '95.50000000', priceable: true }]);

    expect((await admin(hh.app, 'DELETE', '/rates/RUB')).statusCode).toBe(200);
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '80.97350000', priceable: true }]);
  });
});

describe('sanity check', () => {
  it('refuses a jump beyond RATE_MAX_JUMP_PERCENT, keeps the last good rate and flags it', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr' }); // default threshold: 10 %
    await enable(hh, { RUB: '0' });
    const desk = await provisionDesk(hh.app, { currencies: {}, desk: { currencies: ['RUB'] } });
    const warnings: Array<Record<string, unknown>> = [];
    const ctx: Ctx = {
      ...hh.ctx,
      log: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) }),
    };
    const worker = rateRefresher(ctx);
    const t0 = hh.clock.now();
    expect(await worker.runOnce()).toBe(1);

    // 80.9735 → 101.2169 is +25.00005 %.
    answers.cbr = cbrWithUsd('101,2169');
    hh.clock.advance(MINUTE);
    expect(await worker.runOnce()).toBe(1);
    const refused = (await rateRow(hh, 'RUB'))!;
    expect(refused.market_rate).toBe(RUB_CBR);
    expect(refused.market_fetched_at!.getTime()).toBe(t0);
    expect(refused.market_attempt_at!.getTime()).toBe(t0 + MINUTE);
    expect(refused.market_flag).toBe('jump refused: +25.0% vs last good 80.973500000000 (cbr offered 101.216900000000)');
    expect(await outcomes(ctx)).toEqual({ stored: 1, refused: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, currency: 'RUB', source: 'cbr', lastGood: RUB_CBR, offered: '101.216900000000' });
    // Operators see the flag beside the rate in force.
    const listed = json(await admin(hh.app, 'GET', '/rates')).result.find((r: { code: string }) => r.code === 'RUB');
    expect(listed).toMatchObject({ code: 'RUB', rate: '80.97350000', marketSource: 'cbr', flag: refused.market_flag });
    // Orders keep pricing at the last good rate.
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '80.97350000', priceable: true }]);

    // A downward jump is refused the same way.
    answers.cbr = cbrWithUsd('40,0000');
    hh.clock.advance(MINUTE);
    await worker.runOnce();
    expect((await rateRow(hh, 'RUB'))!.market_flag).toMatch(/^jump refused: -50\.6% vs last good 80\.973500000000 /);

    // A move within the threshold (+9.9 %) is stored, measured against the last good rate, and clears the flag.
    answers.cbr = cbrWithUsd('88,9900');
    hh.clock.advance(MINUTE);
    await worker.runOnce();
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({ market_rate: '88.990000000000', market_flag: null });
    expect((await rateRow(hh, 'RUB'))!.market_fetched_at!.getTime()).toBe(t0 + 3 * MINUTE);
    expect(await outcomes(ctx)).toEqual({ stored: 2, refused: 2 });
  });

  it('honours a configured threshold', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr', RATE_MAX_JUMP_PERCENT: '30' });
    await enable(hh, { RUB: '0' });
    const worker = rateRefresher(hh.ctx);
    await worker.runOnce();
    answers.cbr = cbrWithUsd('101,2169');
    hh.clock.advance(MINUTE);
    await worker.runOnce();
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({ market_rate: '101.216900000000', market_flag: null });
  });
});

describe('staleness', () => {
  it('with the feed failing, the currency stops being priceable once RATE_MAX_AGE_SECONDS have passed', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr', RATE_MAX_AGE_SECONDS: '120' });
    await enable(hh, { RUB: '0' });
    const desk = await provisionDesk(hh.app, { currencies: {}, desk: { currencies: ['RUB'] } });
    const worker = rateRefresher(hh.ctx);
    const t0 = hh.clock.now();
    expect(await worker.runOnce()).toBe(1);

    answers.cbr = 'fail';
    for (const minute of [1, 2]) {
      hh.clock.set(t0 + minute * MINUTE);
      expect(await worker.runOnce()).toBe(1);
      // Exactly RATE_MAX_AGE_SECONDS old is still fresh.
      expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '80.97350000', priceable: true }]);
    }
    const failing = (await rateRow(hh, 'RUB'))!;
    expect(failing).toMatchObject({ market_rate: RUB_CBR, market_flag: 'fetch failed: cbr http-status' });
    expect(failing.market_fetched_at!.getTime()).toBe(t0);
    expect(failing.market_attempt_at!.getTime()).toBe(t0 + 2 * MINUTE);
    expect(hits).toHaveLength(3);

    hh.clock.set(t0 + 2 * MINUTE + SECOND);
    expect(await worker.runOnce()).toBe(0);
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: null, priceable: false }]);
    expect(await outcomes(hh.ctx)).toEqual({ stored: 1, failed: 2 });

    // The feed recovers: the next due pass prices RUB again and clears the flag.
    answers.cbr = 'recorded';
    hh.clock.set(t0 + 3 * MINUTE);
    expect(await worker.runOnce()).toBe(1);
    expect((await rateRow(hh, 'RUB'))!.market_flag).toBeNull();
    expect(json(await signed(hh, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '80.97350000', priceable: true }]);
  });

  it('after an outage past the staleness bound, a moved market is accepted instead of refused against the stale rate', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr', RATE_MAX_AGE_SECONDS: '120' });
    await enable(hh, { RUB: '0' });
    const worker = rateRefresher(hh.ctx);
    const t0 = hh.clock.now();
    expect(await worker.runOnce()).toBe(1);
    // While the last good rate is current, a +25 % move is refused.
    answers.cbr = cbrWithUsd('101,2169');
    hh.clock.set(t0 + MINUTE);
    await worker.runOnce();
    expect((await rateRow(hh, 'RUB'))!.market_rate).toBe(RUB_CBR);
    // Past the bound the stale rate is no reference any more: the same reading is taken.
    hh.clock.set(t0 + 3 * MINUTE);
    await worker.runOnce();
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({ market_rate: '101.216900000000', market_flag: null });
  });
});

describe('fallback between sources', () => {
  it('a failing first source falls back to the next for every code', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr,ecb' });
    await enable(hh, { RUB: '0', TRY: '0' });
    answers.cbr = 'fail';
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(2);
    expect(hits).toEqual([CBR_DAILY_PATH, ECB_DAILY_PATH]);
    expect((await rateRow(hh, 'TRY'))!).toMatchObject({ market_rate: TRY_ECB, market_source: 'ecb', market_flag: null });
    // The ECB does not publish RUB: nothing is left to fall back to.
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({
      market_rate: null,
      market_flag: 'fetch failed: cbr http-status, ecb does not quote it',
    });
    expect(await outcomes(hh.ctx)).toEqual({ stored: 1, failed: 1 });
  });

  it('a code the first source does not quote is asked of the next; the others stay with the first', async () => {
    const hh = await harness({ FX_SOURCES: 'ecb,cbr' });
    await enable(hh, { RUB: '0', TRY: '0' });
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(2);
    expect(hits).toEqual([ECB_DAILY_PATH, CBR_DAILY_PATH]);
    expect((await rateRow(hh, 'TRY'))!).toMatchObject({ market_rate: TRY_ECB, market_source: 'ecb' });
    expect((await rateRow(hh, 'RUB'))!).toMatchObject({ market_rate: RUB_CBR, market_source: 'cbr' });
  });

  it('a later source is not asked when the first priced everything', async () => {
    const hh = await harness({ FX_SOURCES: 'cbr,ecb' });
    await enable(hh, { RUB: '0', TRY: '0' });
    await rateRefresher(hh.ctx).runOnce();
    expect(hits).toEqual([CBR_DAILY_PATH]);
    expect((await rateRow(hh, 'TRY'))!.market_source).toBe('cbr');
  });

  it('the exchange ticker, configured by its full URL, prices TRY', async () => {
    const hh = await harness({ FX_SOURCES: 'ticker' });
    await enable(hh, { TRY: '0' });
    expect(await rateRefresher(hh.ctx).runOnce()).toBe(1);
    expect(hits).toEqual([EXCHANGE_TICKER_PATH]);
    expect((await rateRow(hh, 'TRY'))!).toMatchObject({ market_rate: TRY_TICKER, market_source: 'binance' });
  });
});

describe('sourcesFromConfig', () => {
  it('builds the configured sources in order of preference', () => {
    const config = parseConfig({ FX_SOURCES: 'ticker,cbr,ecb', SEED_DEMO: 'false' });
    const sources = sourcesFromConfig(config);
    expect(sources.map((s) => s.constructor)).toEqual([ExchangeTickerRateSource, DailyXmlFeedSource, DailyXmlFeedSource]);
    expect(sources.map((s) => s.name)).toEqual(['binance', 'cbr', 'ecb']);
    expect(sourcesFromConfig(parseConfig({ SEED_DEMO: 'false' }))).toEqual([]);
  });

  it('derives each base URL from the full feed URL, keeping a path prefix', () => {
    expect(feedBaseUrl('FX_CBR_URL', 'https://www.cbr.ru/scripts/XML_daily.asp', CBR_DAILY_PATH)).toBe('https://www.cbr.ru');
    expect(feedBaseUrl('FX_CBR_URL', 'http://127.0.0.1:8000/mirror/scripts/XML_daily.asp', CBR_DAILY_PATH)).toBe('http://127.0.0.1:8000/mirror');
    expect(feedBaseUrl('FX_TICKER_URL', 'https://api.binance.com/api/v3/ticker/price', EXCHANGE_TICKER_PATH)).toBe('https://api.binance.com');
  });

  it('refuses a feed URL the adapter could not fetch as written, naming the variable', () => {
    const bad = (env: Record<string, string>) => () => sourcesFromConfig(parseConfig({ SEED_DEMO: 'false', ...env }));
    expect(bad({ FX_SOURCES: 'cbr', FX_CBR_URL: 'https://www.cbr.ru/scripts/XML_dynamic.asp' })).toThrow(ConfigError);
    expect(bad({ FX_SOURCES: 'cbr', FX_CBR_URL: 'https://www.cbr.ru/scripts/XML_dynamic.asp' })).toThrow(/^FX_CBR_URL: /);
    expect(bad({ FX_SOURCES: 'ecb', FX_ECB_URL: 'https://www.ecb.europa.eu' })).toThrow(/^FX_ECB_URL: /);
    expect(bad({ FX_SOURCES: 'ticker', FX_TICKER_URL: 'https://api.binance.com/api/v3/ticker/price?symbols=x' })).toThrow(/^FX_TICKER_URL: /);
    // A source that is not configured is not built, so its URL is not checked.
    expect(bad({ FX_SOURCES: 'cbr', FX_ECB_URL: 'https://www.ecb.europa.eu' })).not.toThrow();
  });
});
