/**
 * What every market rate source shares: the `RateSource` interface, one error type, an HTTP GET
 * with a hard timeout and a size cap, the exact division the cross rates need, and the XML
 * reading of the two central-bank feeds (through saxes, the parser the bank statements use too).
 */
import { Decimal } from 'decimal.js';
import { SaxesParser } from 'saxes';
import { Agent, request } from 'undici';

/** A market feed. Rates are units of the currency per 1 USD (e.g. RUB → 91.8). */
export interface RateSource {
  readonly name: string;
  /**
   * Resolves with the requested codes the feed can price, in the order asked; codes the feed does
   * not know are left out. Values are unrounded (see `RATE_PRECISION`); the caller rounds.
   * USD, when asked for, is exactly 1. Rejects with `RateSourceError` when the feed cannot be
   * read or trusted.
   */
  fetchRates(codes: readonly string[], signal?: AbortSignal): Promise<Map<string, Decimal>>;
}

export type RateSourceFailure =
  | 'http-status' // answered, but not 200
  | 'timeout' // no full answer within the timeout
  | 'aborted' // the caller's signal fired
  | 'network' // connection refused, reset, DNS…
  | 'too-large' // body over the size cap
  | 'malformed'; // body is not the feed's format

export class RateSourceError extends Error {
  override readonly name = 'RateSourceError';
  constructor(
    readonly source: string,
    readonly failure: RateSourceFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${source}: ${message}`, options);
  }
}

/** The settlement currency; every source prices it as exactly 1 without asking its feed. */
export const SETTLEMENT_CURRENCY = 'USD';

/** True when a request for `codes` needs the feed at all (USD never does). */
export function needsFeed(codes: readonly string[]): boolean {
  return codes.some((c) => c !== SETTLEMENT_CURRENCY);
}

/** The answer to a request that needs no feed: USD as 1 if it was asked for, else nothing. */
export function ratesWithoutFeed(codes: readonly string[]): Map<string, Decimal> {
  return new Map(codes.includes(SETTLEMENT_CURRENCY) ? [[SETTLEMENT_CURRENCY, new Decimal(1)]] : []);
}

/**
 * Significant digits kept by the divisions that turn feed quotes into per-USD rates. The largest
 * rate in use (UZS, ~12 000 per USD) rounded to 8 places needs 13 digits; 40 leaves the error
 * of the single rounding below 1e-35 relative. Such a quotient is then correctly rounded to 8
 * places by the caller: a rounding mistake would need a run of ~27 nines or zeros right after the
 * 8th place, which a fraction whose denominator is below 1e27 cannot produce, and feed
 * denominators are below 1e15.
 */
export const RATE_PRECISION = 40;

const Exact = Decimal.clone({ precision: RATE_PRECISION, rounding: Decimal.ROUND_HALF_EVEN });

/**
 * (n1 × n2 × …) / (d1 × d2 × …), products exact (feed numbers are short) and the quotient to
 * `RATE_PRECISION` significant digits. Not rounded to any number of decimal places.
 * The result is an ordinary `Decimal`, so later arithmetic follows the application's settings.
 */
export function ratioOfProducts(numerators: readonly Decimal[], denominators: readonly Decimal[]): Decimal {
  let num = new Exact(1);
  for (const n of numerators) num = num.mul(n);
  let den = new Exact(1);
  for (const d of denominators) den = den.mul(d);
  if (den.isZero()) throw new RangeError('ratioOfProducts: zero denominator');
  return new Decimal(num.div(den));
}

/**
 * Units per USD of each requested code a feed knows: USD is 1, any other code is what `rateOf`
 * computes from the feed (undefined where the feed does not quote it, and the code is left out).
 */
export function ratesPerUsd(codes: readonly string[], rateOf: (code: string) => Decimal | undefined): Map<string, Decimal> {
  const rates = new Map<string, Decimal>();
  for (const code of codes) {
    if (rates.has(code)) continue;
    const rate = code === SETTLEMENT_CURRENCY ? new Decimal(1) : rateOf(code);
    if (rate) rates.set(code, rate);
  }
  return rates;
}

/** The error of a feed whose document is not what the feed publishes, named after the source. */
export function malformedFeed(source: string): (message: string, cause?: unknown) => RateSourceError {
  return (message, cause) => new RateSourceError(source, 'malformed', message, cause === undefined ? undefined : { cause });
}

// ---------------------------------------------------------------------------------------------
// HTTP

export const DEFAULT_FEED_TIMEOUT_MS = 10_000;
/** The largest feed (CBR daily) is ~10 KiB; 1 MiB stops a misbehaving server from filling memory. */
export const DEFAULT_FEED_MAX_BYTES = 1024 * 1024;
export const FEED_USER_AGENT = 'Paygate/1.0 Rates';

export interface HttpGetOptions {
  /** Names the feed in errors. */
  source: string;
  /** Covers the whole exchange: connect, headers and body. */
  timeoutMs: number;
  signal?: AbortSignal;
  maxBytes?: number;
  accept?: string;
}

/**
 * GET `url` and return the body bytes of a 200 answer. Anything else rejects with a
 * `RateSourceError`: another status (with the start of the body, where feeds explain
 * themselves), a timeout, the caller's abort, a network failure or a body over `maxBytes`.
 * Redirects are not followed (undici's default): a feed that moves is a configuration change.
 */
export async function httpGet(url: string, options: HttpGetOptions): Promise<Uint8Array> {
  const { source, timeoutMs } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_FEED_MAX_BYTES;
  if (!(timeoutMs > 0)) throw new RangeError(`httpGet: timeoutMs must be positive, got ${timeoutMs}`);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  // Feeds are polled once a minute at most, longer than servers keep idle connections open;
  // reusing one would risk a request on a socket the server is closing (or one left from an
  // exchange that was cut short). One connection of its own for each request, closed after it.
  const dispatcher = new Agent({ connections: 1 });
  try {
    const res = await request(url, {
      method: 'GET',
      signal,
      dispatcher,
      reset: true,
      headers: { 'user-agent': FEED_USER_AGENT, accept: options.accept ?? '*/*' },
    });
    if (res.statusCode !== 200) {
      const start = await readUpTo(res.body, 2048).catch(() => null);
      const text = start ? Buffer.from(start.bytes).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200) : '';
      throw new RateSourceError(
        source,
        'http-status',
        `GET ${url} answered HTTP ${res.statusCode}${text ? `: ${text}` : ''}`,
      );
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.body.destroy();
      throw new RateSourceError(source, 'too-large', `GET ${url} body of ${declared} bytes exceeds ${maxBytes}`);
    }
    const body = await readUpTo(res.body, maxBytes);
    if (body.truncated) {
      throw new RateSourceError(source, 'too-large', `GET ${url} body exceeds ${maxBytes} bytes`);
    }
    return body.bytes;
  } catch (err) {
    if (err instanceof RateSourceError) throw err;
    if (timeout.aborted) {
      throw new RateSourceError(source, 'timeout', `GET ${url} timed out after ${timeoutMs} ms`, { cause: err });
    }
    if (options.signal?.aborted) {
      throw new RateSourceError(source, 'aborted', `GET ${url} aborted`, { cause: err });
    }
    const detail = err instanceof Error ? describeNetworkError(err) : String(err);
    throw new RateSourceError(source, 'network', `GET ${url} failed: ${detail}`, { cause: err });
  } finally {
    void dispatcher.destroy().catch(() => {});
  }
}

/** Reads at most `limit` bytes; past that it drops the rest of the stream and says so. */
async function readUpTo(
  stream: AsyncIterable<Uint8Array> & { destroy(): unknown },
  limit: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    total += chunk.byteLength;
    if (total > limit) {
      stream.destroy();
      return { bytes: Buffer.concat(chunks, total).subarray(0, limit), truncated: true };
    }
  }
  return { bytes: Buffer.concat(chunks, total), truncated: false };
}

function describeNetworkError(err: Error): string {
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`;
}

/** Joins a configured base URL (scheme, host, optional path prefix) with a feed path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

// ---------------------------------------------------------------------------------------------
// Decimal parsing

const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * Parses an unsigned plain decimal ("91.8000"; no sign, exponent or grouping) into a Decimal.
 * Returns null for anything else, so a feed's odd value is refused, never guessed at.
 */
export function parsePlainDecimal(text: string): Decimal | null {
  return PLAIN_DECIMAL.test(text) ? new Decimal(text) : null;
}

// ---------------------------------------------------------------------------------------------
// XML

export interface XmlElement {
  /** Qualified name as written, prefix included (`gesmes:Envelope`). */
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** Character data directly inside this element (not its children's), entities resolved. */
  readonly text: string;
}

/** `gesmes:Envelope` → `Envelope`. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/**
 * Decodes XML bytes by their own declaration (`encoding="windows-1251"`), UTF-8 when none, as the
 * XML spec says. A byte invalid in that encoding or an encoding Node does not know is refused.
 */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(3));
  }
  const label = declaredEncoding(bytes) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new SyntaxError(`unsupported XML encoding "${label}"`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new SyntaxError(`bytes are not valid ${label}`);
  }
}

/**
 * The `encoding` of the document's XML declaration, read by the XML parser itself. The
 * declaration is ASCII in every ASCII-compatible encoding, so its bytes read as latin1 are the
 * declaration; a document without one (or a broken one, which the real parse reports) has none.
 */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 256)).toString('latin1');
  const end = head.indexOf('?>');
  if (!head.startsWith('<?xml') || end < 0) return undefined;
  const probe = new SaxesParser();
  let encoding: string | undefined;
  probe.on('xmldecl', (decl) => {
    encoding = decl.encoding;
  });
  try {
    probe.write(head.slice(0, end + 2));
  } catch {
    return undefined;
  }
  return encoding;
}

/** Deeper than any feed goes (the ECB's nests 4 levels); a bound keeps a hostile document small. */
const MAX_DEPTH = 64;

interface OpenElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses a well-formed XML document into its root element with saxes, a conforming XML parser:
 * declaration, elements, attributes, the predefined entities, character references, comments,
 * CDATA and processing instructions. A DOCTYPE is refused (no DTD means no entity expansion
 * tricks), as is anything not well-formed. Throws `SyntaxError` naming the line and column.
 */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ position: true });
  const fail = (what: string): never => {
    throw new SyntaxError(`XML: ${what} at line ${parser.line}, column ${parser.column}`);
  };
  const stack: OpenElement[] = [];
  let root: XmlElement | null = null;
  parser.on('error', (err) => fail(err.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')));
  parser.on('doctype', () => fail('DOCTYPE and other declarations are not accepted'));
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) fail('elements nested too deeply');
    stack.push({ name: tag.name, attributes: new Map(Object.entries(tag.attributes)), children: [], text: '' });
  });
  const addText = (data: string) => {
    const open = stack.at(-1);
    if (open) open.text += data;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const done = stack.pop()!;
    const parent = stack.at(-1);
    if (parent) parent.children.push(done);
    else root = done;
  });
  parser.write(text);
  // saxes would say "unclosed tag"; naming the element says where a cut-off body stopped.
  if (stack.length > 0) fail(`element ${stack.at(-1)!.name} is not closed`);
  parser.close();
  if (root === null) return fail('no root element');
  return root;
}

/** Children of `el` whose local name is `name`. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => localName(c.name) === name);
}

/**
 * The text of the one child named `name`, trimmed; null when it is missing or repeated, so feed
 * parsers can refuse an entry they would otherwise have to guess about.
 */
export function singleChildText(el: XmlElement, name: string): string | null {
  const found = childrenNamed(el, name);
  if (found.length !== 1 || found[0].children.length > 0) return null;
  return found[0].text.trim();
}

export interface DailyXmlFeedOptions {
  /** Scheme and host (optionally a path prefix) serving the feed's fixed path. */
  baseUrl?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/** What makes a central bank's daily XML feed: its name, where it is served, how its document reads. */
export interface DailyXmlFeed {
  name: string;
  defaultBaseUrl: string;
  path: string;
  /** Rates per USD for the requested codes the document quotes. */
  ratesFrom(body: Uint8Array, codes: readonly string[]): Map<string, Decimal>;
}

/** A central bank's daily XML feed: one GET of a fixed path, parsed into rates per USD. */
export class DailyXmlFeedSource implements RateSource {
  readonly name: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(
    private readonly feed: DailyXmlFeed,
    options: DailyXmlFeedOptions = {},
  ) {
    this.name = feed.name;
    this.url = joinUrl(options.baseUrl ?? feed.defaultBaseUrl, feed.path);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FEED_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_FEED_MAX_BYTES;
  }

  async fetchRates(codes: readonly string[], signal?: AbortSignal): Promise<Map<string, Decimal>> {
    // USD needs no feed; asking the bank for nothing else would be a wasted request.
    if (!needsFeed(codes)) return ratesWithoutFeed(codes);
    const body = await httpGet(this.url, {
      source: this.name,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
      signal,
      accept: 'application/xml, text/xml',
    });
    return this.feed.ratesFrom(body, codes);
  }
}
