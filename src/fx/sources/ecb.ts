/**
 * European Central Bank euro reference rates (`/stats/eurofxref/eurofxref-daily.xml`).
 *
 * UTF-8 XML whose `<Cube time="YYYY-MM-DD">` holds `<Cube currency="USD" rate="1.1512"/>` entries:
 * units of the currency per 1 EUR. X per USD = (X per EUR) / (USD per EUR); EUR per USD is
 * 1 / (USD per EUR). The ECB publishes INR, KRW and TRY among ours, not RUB, AZN, KZT or UZS.
 */
import { Decimal } from 'decimal.js';
import {
  type DailyXmlFeed,
  malformedFeed,
  SETTLEMENT_CURRENCY,
  childrenNamed,
  decodeXml,
  localName,
  parsePlainDecimal,
  parseXml,
  ratioOfProducts,
  ratesPerUsd,
  type XmlElement,
} from '../source.js';

export const ECB_SOURCE_NAME = 'ecb';
export const ECB_DEFAULT_BASE_URL = 'https://www.ecb.europa.eu';
export const ECB_DAILY_PATH = '/stats/eurofxref/eurofxref-daily.xml';

export interface EcbDaily {
  /** The reference date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Units of each currency per 1 EUR, exactly as published. */
  readonly perEur: ReadonlyMap<string, Decimal>;
}

const CODE = /^[A-Z]{3}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parses the feed's bytes. When several dated cubes are present (the ECB's 90-day file has the
 * same shape) the latest date is used. The document is refused (`RateSourceError`, `malformed`)
 * when an entry is malformed or repeated, or when USD is missing, since every rate needs it.
 */
export function parseEcbDaily(body: Uint8Array): EcbDaily {
  let root: XmlElement;
  try {
    root = parseXml(decodeXml(body));
  } catch (err) {
    throw malformed(err instanceof Error ? err.message : String(err), err);
  }
  if (localName(root.name) !== 'Envelope') throw malformed(`root element is <${root.name}>, expected <gesmes:Envelope>`);
  const dated = childrenNamed(root, 'Cube').flatMap((outer) => childrenNamed(outer, 'Cube'));
  if (dated.length === 0) throw malformed('no dated <Cube time="…"> element');
  let latest: { date: string; cube: XmlElement } | null = null;
  for (const cube of dated) {
    const date = cube.attributes.get('time') ?? '';
    if (!ISO_DATE.test(date)) throw malformed(`Cube time "${date}" is not YYYY-MM-DD`);
    if (latest !== null && date === latest.date) throw malformed(`two cubes for ${date}`);
    if (latest === null || date > latest.date) latest = { date, cube };
  }
  // `dated` is non-empty, so `latest` is set.
  const { date, cube } = latest!;

  const perEur = new Map<string, Decimal>();
  for (const entry of childrenNamed(cube, 'Cube')) {
    const code = entry.attributes.get('currency') ?? '';
    const rateText = entry.attributes.get('rate') ?? '';
    if (!CODE.test(code)) throw malformed(`currency "${code}" is not three letters`);
    const rate = parsePlainDecimal(rateText);
    if (rate === null || rate.isZero()) throw malformed(`${code}: rate "${rateText}" is not a positive decimal`);
    if (perEur.has(code)) throw malformed(`${code} appears twice`);
    perEur.set(code, rate);
  }
  if (!perEur.has(SETTLEMENT_CURRENCY)) throw malformed(`no USD rate for ${date}`);
  return { date, perEur };
}

/**
 * Units per USD for the requested codes the feed knows, each one exact ratio to
 * `RATE_PRECISION` significant digits (not rounded to 8 places).
 */
export function ecbRatesPerUsd(daily: EcbDaily, codes: readonly string[]): Map<string, Decimal> {
  const usdPerEur = daily.perEur.get(SETTLEMENT_CURRENCY);
  if (!usdPerEur) throw malformed('no USD rate');
  return ratesPerUsd(codes, (code) => {
    if (code === 'EUR') return ratioOfProducts([], [usdPerEur]);
    const perEur = daily.perEur.get(code);
    return perEur && ratioOfProducts([perEur], [usdPerEur]);
  });
}

export const ECB_FEED: DailyXmlFeed = {
  name: ECB_SOURCE_NAME,
  defaultBaseUrl: ECB_DEFAULT_BASE_URL,
  path: ECB_DAILY_PATH,
  ratesFrom: (body, codes) => ecbRatesPerUsd(parseEcbDaily(body), codes),
};


const malformed = malformedFeed(ECB_SOURCE_NAME);
