import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateSourceError } from '../../../src/fx/source.js';
import { DailyXmlFeedSource } from '../../../src/fx/source.js';
import { CBR_FEED, cbrRatesPerUsd, parseCbrDaily } from '../../../src/fx/sources/cbr.js';

const fixture = new Uint8Array(readFileSync(new URL('../../fixtures/fx/cbr-daily.xml', import.meta.url)));

/** A CBR document in the feed's encoding; ASCII names keep windows-1251 and ASCII bytes equal. */
function cbrDoc(valutes: Array<{ code: string; nominal: string; value: string }>, date = '22.11.2025'): Uint8Array {
  const body = valutes
    .map(
      (v, i) =>
        `<Valute ID="R0${i}"><NumCode>000</NumCode><CharCode>${v.code}</CharCode>` +
        `<Nominal>${v.nominal}</Nominal><Name>n</Name><Value>${v.value}</Value></Valute>`,
    )
    .join('');
  return new Uint8Array(
    Buffer.from(`<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="${date}" name="Foreign Currency Market">${body}</ValCurs>`, 'latin1'),
  );
}

const at8 = (d: Decimal | undefined) => d?.toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8);

function expectMalformed(fn: () => unknown, message: RegExp) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RateSourceError);
    expect((err as RateSourceError).source).toBe('cbr');
    expect((err as RateSourceError).failure).toBe('malformed');
    expect((err as RateSourceError).message).toMatch(message);
    return;
  }
  throw new Error('expected the document to be refused');
}

describe('parseCbrDaily on the recorded windows-1251 feed', () => {
  it('is a fixture in the real encoding, not UTF-8', () => {
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(fixture)).toThrow();
  });

  const daily = parseCbrDaily(fixture);

  it('reads the date and every currency', () => {
    expect(daily.date).toBe('2025-11-22');
    expect([...daily.quotes.keys()]).toEqual([
      'AUD', 'AZN', 'GBP', 'AMD', 'USD', 'EUR', 'INR', 'KZT', 'CNY', 'XDR', 'TRY', 'UZS', 'KRW',
    ]);
  });

  it('decodes the Cyrillic names from windows-1251', () => {
    expect(daily.quotes.get('USD')?.name).toBe('Доллар США');
    expect(daily.quotes.get('KZT')?.name).toBe('Казахстанских тенге');
    expect(daily.quotes.get('XDR')?.name).toBe('СДР (специальные права заимствования)');
  });

  it('reads nominals and comma decimals exactly', () => {
    const kzt = daily.quotes.get('KZT')!;
    expect(kzt.nominal.toString()).toBe('100');
    expect(kzt.value.toString()).toBe('15.5604');
    const uzs = daily.quotes.get('UZS')!;
    expect(uzs.nominal.toString()).toBe('10000');
    expect(uzs.value.toFixed(4)).toBe('67.3000');
    expect(daily.quotes.get('USD')!.value.toString()).toBe('80.9735');
  });

  it('gives RUB per USD directly and cross rates per USD for the product currencies', () => {
    const rates = cbrRatesPerUsd(daily, ['RUB', 'INR', 'KRW', 'TRY', 'AZN', 'KZT', 'UZS']);
    // Expected values computed independently with exact fractions, rounded half-up to 8 places.
    expect(Object.fromEntries([...rates].map(([c, r]) => [c, at8(r)]))).toEqual({
      RUB: '80.97350000',
      INR: '88.65918766', // 80.9735 × 100 / 91.3312
      KRW: '1466.06930440', // 80.9735 × 1000 / 55.2317
      TRY: '42.35680285', // 80.9735 × 10 / 19.1170
      AZN: '1.69999895', // 80.9735 / 47.6315
      KZT: '520.38186679', // 80.9735 × 100 / 15.5604
      UZS: '12031.72362556', // 80.9735 × 10000 / 67.3000
    });
  });

  it('carries 40 significant digits, unrounded', () => {
    const kzt = cbrRatesPerUsd(daily, ['KZT']).get('KZT')!;
    // 809735 / 1556.04 = 520.38186679005681087889771471170406930413099…
    expect(kzt.toString()).toBe('520.3818667900568108788977147117040693041');
    expect(cbrRatesPerUsd(daily, ['RUB']).get('RUB')!.toString()).toBe('80.9735');
  });

  it('returns only requested codes it knows, in the order asked, with USD as exactly 1', () => {
    const rates = cbrRatesPerUsd(daily, ['UZS', 'XYZ', 'USD', 'RUB', 'UZS']);
    expect([...rates.keys()]).toEqual(['UZS', 'USD', 'RUB']);
    expect(rates.get('USD')!.toString()).toBe('1');
  });
});

describe('CBR cross-rate exactness', () => {
  it('91.8 RUB per USD and 17.68 RUB per 100 KZT give 519.23076923 KZT per USD', () => {
    const daily = parseCbrDaily(
      cbrDoc([
        { code: 'USD', nominal: '1', value: '91,8000' },
        { code: 'KZT', nominal: '100', value: '17,6800' },
      ]),
    );
    const rates = cbrRatesPerUsd(daily, ['RUB', 'KZT']);
    expect(at8(rates.get('RUB'))).toBe('91.80000000');
    // 9180 / 17.68 = 519.230769230769…; a nominal ignored would give 5.19230769.
    expect(at8(rates.get('KZT'))).toBe('519.23076923');
  });

  it('rounds to the same 8 places as exact rational arithmetic for any feed values', () => {
    // X per USD = (U/10^4 × N) / (V/10^4) = U × N / V, rounded half-up at 8 places with BigInt.
    const exact = (u: bigint, n: bigint, v: bigint): string => {
      const scaled = u * n * 10n ** 8n;
      let q = scaled / v;
      if (2n * (scaled % v) >= v) q += 1n;
      const s = q.toString().padStart(9, '0');
      return `${s.slice(0, -8)}.${s.slice(-8)}`;
    };
    const fourPlaces = (i: bigint) => {
      const s = i.toString().padStart(5, '0');
      return `${s.slice(0, -4)},${s.slice(-4)}`;
    };
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 9_999_999n }),
        fc.constantFrom(1n, 10n, 100n, 1000n, 10000n),
        fc.bigInt({ min: 1n, max: 99_999_999n }),
        (u, n, v) => {
          const daily = parseCbrDaily(
            cbrDoc([
              { code: 'USD', nominal: '1', value: fourPlaces(u) },
              { code: 'KZT', nominal: n.toString(), value: fourPlaces(v) },
            ]),
          );
          expect(at8(cbrRatesPerUsd(daily, ['KZT']).get('KZT'))).toBe(exact(u, n, v));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('parseCbrDaily refuses documents it cannot trust', () => {
  const usd = { code: 'USD', nominal: '1', value: '80,9735' };
  it.each([
    ['a dot decimal', [usd, { code: 'KZT', nominal: '100', value: '15.5604' }], /Value "15.5604"/],
    ['grouping', [usd, { code: 'UZS', nominal: '1', value: '1 234,5' }], /Value/],
    ['a zero value', [usd, { code: 'KZT', nominal: '100', value: '0,0000' }], /zero/],
    ['a zero nominal', [usd, { code: 'KZT', nominal: '0', value: '15,5604' }], /Nominal/],
    ['a fractional nominal', [usd, { code: 'KZT', nominal: '1,5', value: '15,5604' }], /Nominal/],
    ['a bad code', [usd, { code: 'kzt', nominal: '100', value: '15,5604' }], /CharCode/],
    ['a repeated currency', [usd, { code: 'KZT', nominal: '100', value: '15,5604' }, { code: 'KZT', nominal: '1', value: '0,1556' }], /twice/],
    ['no USD', [{ code: 'KZT', nominal: '100', value: '15,5604' }], /no USD/],
  ])('with %s', (_what, valutes, message) => {
    expectMalformed(() => parseCbrDaily(cbrDoc(valutes)), message);
  });

  it('with a bad date', () => {
    expectMalformed(() => parseCbrDaily(cbrDoc([usd], '2025-11-22')), /Date/);
  });

  it('with another root element, an HTML page or a truncated body', () => {
    expectMalformed(() => parseCbrDaily(new Uint8Array(Buffer.from('<?xml version="1.0"?><Error>busy</Error>'))), /ValCurs/);
    expectMalformed(() => parseCbrDaily(new Uint8Array(Buffer.from('<!DOCTYPE html><html><body>Access denied</body></html>'))), /DOCTYPE/);
    expectMalformed(() => parseCbrDaily(fixture.subarray(0, fixture.length - 40)), /not closed|unterminated|expected/);
  });

  it('with a missing Value', () => {
    const doc = '<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="22.11.2025"><Valute ID="R01235"><CharCode>USD</CharCode><Nominal>1</Nominal></Valute></ValCurs>';
    expectMalformed(() => parseCbrDaily(new Uint8Array(Buffer.from(doc, 'latin1'))), /USD: Value/);
  });
});

describe('the CBR feed source', () => {
  it('answers USD alone without a request', async () => {
    // An unroutable base URL would make any request fail, so success proves none was made.
    const source = new DailyXmlFeedSource(CBR_FEED, { baseUrl: 'http://127.0.0.1:1', timeoutMs: 50 });
    const rates = await source.fetchRates(['USD']);
    expect([...rates].map(([c, r]) => [c, r.toString()])).toEqual([['USD', '1']]);
    expect((await source.fetchRates([])).size).toBe(0);
  });
});
