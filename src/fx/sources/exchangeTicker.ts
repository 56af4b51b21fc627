/**
 * Last trade prices of USDT pairs from an exchange ticker shaped like Binance's
 * `GET /api/v3/ticker/price?symbols=["USDTTRY",…]`, which answers
 * `[{"symbol":"USDTTRY","price":"42.38000000"}, …]`: units of the quote currency per 1 USDT.
 * USDT is taken as USD; a de-peg shows up as a jump, which the sanity check refuses when large.
 */
import { Decimal } from 'decimal.js';
import {
  DEFAULT_FEED_MAX_BYTES,
  DEFAULT_FEED_TIMEOUT_MS,
  RateSourceError,
  SETTLEMENT_CURRENCY,
  httpGet,
  joinUrl,
  parsePlainDecimal,
  ratesWithoutFeed,
  type RateSource,
} from '../source.js';

export const EXCHANGE_TICKER_DEFAULT_NAME = 'binance';
export const EXCHANGE_TICKER_DEFAULT_BASE_URL = 'https://api.binance.com';
export const EXCHANGE_TICKER_PATH = '/api/v3/ticker/price';

/**
 * Currency → symbol whose price is units of that currency per 1 USDT (base USDT, quote the
 * currency). Only pairs the exchange is known to list belong here; others are configuration.
 */
export const DEFAULT_USDT_SYMBOLS: Readonly<Record<string, string>> = Object.freeze({ TRY: 'USDTTRY' });

const CODE = /^[A-Z]{3}$/;
/** Binance's own symbol rule. */
const SYMBOL = /^[A-Z0-9_.-]{1,20}$/;

/**
 * Parses the ticker JSON into symbol → price. Prices must be JSON strings of plain decimals
 * (a JSON number would already have lost exactness). A zero price is the exchange saying it has
 * no price (a halted pair), so that symbol is left out rather than refusing the whole answer.
 * Anything else unexpected refuses the answer (`RateSourceError`, `malformed`).
 */
export function parseTickerPrices(body: Uint8Array, source: string = EXCHANGE_TICKER_DEFAULT_NAME): Map<string, Decimal> {
  const malformed = (message: string, cause?: unknown) =>
    new RateSourceError(source, 'malformed', message, cause === undefined ? undefined : { cause });
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (err) {
    throw malformed(`body is not JSON: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  if (!Array.isArray(data)) throw malformed('body is not an array of {symbol, price}');
  const prices = new Map<string, Decimal>();
  for (const item of data as unknown[]) {
    if (typeof item !== 'object' || item === null) throw malformed('an entry is not an object');
    const { symbol, price } = item as { symbol?: unknown; price?: unknown };
    if (typeof symbol !== 'string' || !SYMBOL.test(symbol)) throw malformed(`symbol ${JSON.stringify(symbol)} is not a symbol`);
    if (typeof price !== 'string') throw malformed(`${symbol}: price is not a string`);
    const parsed = parsePlainDecimal(price);
    if (parsed === null) throw malformed(`${symbol}: price "${price}" is not a plain decimal`);
    if (prices.has(symbol)) throw malformed(`${symbol} appears twice`);
    if (!parsed.isZero()) prices.set(symbol, parsed);
  }
  return prices;
}

export interface ExchangeTickerSourceOptions {
  /** Names the source in logs and errors. */
  name?: string;
  /** Scheme and host (optionally a path prefix) serving `/api/v3/ticker/price`. */
  baseUrl?: string;
  /** Currency → USDT-based symbol; see `DEFAULT_USDT_SYMBOLS`. */
  symbols?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  maxBytes?: number;
}

export class ExchangeTickerRateSource implements RateSource {
  readonly name: string;
  private readonly baseUrl: string;
  private readonly symbols: ReadonlyMap<string, string>;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  /** Throws `RangeError` on a symbol map that could never work (configuration is checked once). */
  constructor(options: ExchangeTickerSourceOptions = {}) {
    this.name = options.name ?? EXCHANGE_TICKER_DEFAULT_NAME;
    this.baseUrl = options.baseUrl ?? EXCHANGE_TICKER_DEFAULT_BASE_URL;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FEED_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_FEED_MAX_BYTES;
    const symbols = new Map<string, string>();
    for (const [code, symbol] of Object.entries(options.symbols ?? DEFAULT_USDT_SYMBOLS)) {
      if (!CODE.test(code)) throw new RangeError(`${this.name}: "${code}" is not a currency code`);
      if (code === SETTLEMENT_CURRENCY) throw new RangeError(`${this.name}: USD is 1 by definition, not a ticker`);
      if (!SYMBOL.test(symbol)) throw new RangeError(`${this.name}: "${symbol}" is not a ticker symbol`);
      symbols.set(code, symbol);
    }
    this.symbols = symbols;
  }

  async fetchRates(codes: readonly string[], signal?: AbortSignal): Promise<Map<string, Decimal>> {
    const symbols = [...new Set(codes.flatMap((c) => this.symbols.get(c) ?? []))];
    // Nothing the exchange can price was asked for: no request.
    if (symbols.length === 0) return ratesWithoutFeed(codes);
    const url = `${joinUrl(this.baseUrl, EXCHANGE_TICKER_PATH)}?symbols=${encodeURIComponent(JSON.stringify(symbols))}`;
    const body = await httpGet(url, {
      source: this.name,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
      signal,
      accept: 'application/json',
    });
    const prices = parseTickerPrices(body, this.name);
    const rates = new Map<string, Decimal>();
    for (const code of codes) {
      if (rates.has(code)) continue;
      if (code === SETTLEMENT_CURRENCY) {
        rates.set(code, new Decimal(1));
        continue;
      }
      const symbol = this.symbols.get(code);
      const price = symbol === undefined ? undefined : prices.get(symbol);
      if (price !== undefined) rates.set(code, price);
    }
    return rates;
  }
}
