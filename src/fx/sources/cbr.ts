/**
 * Central Bank of Russia daily rates (`/scripts/XML_daily.asp`).
 *
 * The feed is windows-1251 XML: `<ValCurs Date="21.11.2025">` holding one `<Valute>` per
 * currency with `<CharCode>`, `<Nominal>` and `<Value>`, where Value is the RUB price of Nominal
 * units written with a decimal comma (`<Nominal>100</Nominal><Value>15,5604</Value>` for KZT).
 * RUB per USD comes straight from the USD entry; any other X per USD is a cross rate through
 * RUB: (RUB per USD) / (RUB per 1 X).
 */
import { Decimal } from 'decimal.js';
import {
  type DailyXmlFeed,
  malformedFeed,
  SETTLEMENT_CURRENCY,
  childrenNamed,
  decodeXml,
  localName,
  parseXml,
  ratioOfProducts,
  ratesPerUsd,
  singleChildText,
  type XmlElement,
} from '../source.js';

export const CBR_SOURCE_NAME = 'cbr';
export const CBR_DEFAULT_BASE_URL = 'https://www.cbr.ru';
export const CBR_DAILY_PATH = '/scripts/XML_daily.asp';

export interface CbrQuote {
  /** How many units of the currency `value` buys (1, 10, 100, 1000, 10000). */
  readonly nominal: Decimal;
  /** RUB for `nominal` units, exactly as published. */
  readonly value: Decimal;
  /** The feed's Russian name, decoded from windows-1251. */
  readonly name: string;
}

export interface CbrDaily {
  /** The date the rates are set for, `YYYY-MM-DD`. */
  readonly date: string;
  readonly quotes: ReadonlyMap<string, CbrQuote>;
}

const CODE = /^[A-Z]{3}$/;
const NOMINAL = /^[1-9]\d{0,8}$/;
/** The feed writes "91,8000"; a dot or grouping would mean the format changed, so it is refused. */
const COMMA_DECIMAL = /^\d{1,12}(?:,\d{1,12})?$/;
const FEED_DATE = /^(\d{2})\.(\d{2})\.(\d{4})$/;

/**
 * Parses the feed's bytes. The whole document is refused (`RateSourceError`, `malformed`) when any
 * entry is malformed, a currency appears twice, or it has no USD entry: such a document is not one
 * the bank published intact, and the cross rates depend on USD.
 */
export function parseCbrDaily(body: Uint8Array): CbrDaily {
  let root: XmlElement;
  try {
    root = parseXml(decodeXml(body));
  } catch (err) {
    throw malformed(err instanceof Error ? err.message : String(err), err);
  }
  if (localName(root.name) !== 'ValCurs') throw malformed(`root element is <${root.name}>, expected <ValCurs>`);
  const dateMatch = FEED_DATE.exec(root.attributes.get('Date') ?? '');
  if (!dateMatch) throw malformed(`ValCurs Date "${root.attributes.get('Date') ?? ''}" is not DD.MM.YYYY`);
  const date = `${dateMatch[3]}-${dateMatch[2]}-${dateMatch[1]}`;

  const quotes = new Map<string, CbrQuote>();
  for (const valute of childrenNamed(root, 'Valute')) {
    const id = valute.attributes.get('ID') ?? '?';
    const code = singleChildText(valute, 'CharCode');
    const nominal = singleChildText(valute, 'Nominal');
    const value = singleChildText(valute, 'Value');
    if (code === null || !CODE.test(code)) throw malformed(`Valute ${id}: CharCode missing or not three letters`);
    if (nominal === null || !NOMINAL.test(nominal)) throw malformed(`${code}: Nominal "${nominal ?? ''}" is not a positive integer`);
    if (value === null || !COMMA_DECIMAL.test(value)) throw malformed(`${code}: Value "${value ?? ''}" is not a comma decimal`);
    const parsedValue = new Decimal(value.replace(',', '.'));
    if (parsedValue.isZero()) throw malformed(`${code}: Value is zero`);
    if (quotes.has(code)) throw malformed(`${code} appears twice`);
    quotes.set(code, {
      nominal: new Decimal(nominal),
      value: parsedValue,
      name: singleChildText(valute, 'Name') ?? '',
    });
  }
  if (!quotes.has(SETTLEMENT_CURRENCY)) throw malformed('no USD entry');
  return { date, quotes };
}

/**
 * Units per USD for the requested codes the feed knows: RUB = USD value / USD nominal, and
 * X = (USD value × X nominal) / (USD nominal × X value), computed as one exact ratio to
 * `RATE_PRECISION` significant digits (not rounded to 8 places).
 */
export function cbrRatesPerUsd(daily: CbrDaily, codes: readonly string[]): Map<string, Decimal> {
  const usd = daily.quotes.get(SETTLEMENT_CURRENCY);
  if (!usd) throw malformed('no USD entry');
  return ratesPerUsd(codes, (code) => {
    if (code === 'RUB') return ratioOfProducts([usd.value], [usd.nominal]);
    const quote = daily.quotes.get(code);
    return quote && ratioOfProducts([usd.value, quote.nominal], [usd.nominal, quote.value]);
  });
}

export const CBR_FEED: DailyXmlFeed = {
  name: CBR_SOURCE_NAME,
  defaultBaseUrl: CBR_DEFAULT_BASE_URL,
  path: CBR_DAILY_PATH,
  ratesFrom: (body, codes) => cbrRatesPerUsd(parseCbrDaily(body), codes),
};


const malformed = malformedFeed(CBR_SOURCE_NAME);
