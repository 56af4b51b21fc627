import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { RateSourceError } from '../../../src/fx/source.js';
import { ecbRatesPerUsd, parseEcbDaily } from '../../../src/fx/sources/ecb.js';

const fixture = new Uint8Array(readFileSync(new URL('../../fixtures/fx/ecb-daily.xml', import.meta.url)));
const at8 = (d: Decimal | undefined) => d?.toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8);

function ecbDoc(cubes: string): Uint8Array {
  return new Uint8Array(
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" ` +
        `xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject>` +
        `<Cube>${cubes}</Cube></gesmes:Envelope>`,
    ),
  );
}

function refusal(fn: () => unknown): RateSourceError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RateSourceError);
    expect((err as RateSourceError).failure).toBe('malformed');
    expect((err as RateSourceError).source).toBe('ecb');
    return err as RateSourceError;
  }
  throw new Error('expected the document to be refused');
}

describe('parseEcbDaily on the recorded feed', () => {
  const daily = parseEcbDaily(fixture);

  it('reads the reference date and every rate exactly as published', () => {
    expect(daily.date).toBe('2025-11-21');
    expect(daily.perEur.size).toBe(30);
    expect(daily.perEur.get('USD')!.toString()).toBe('1.1512');
    expect(daily.perEur.get('GBP')!.toFixed(5)).toBe('0.88040');
    expect(daily.perEur.get('IDR')!.toString()).toBe('19265.52');
  });

  it('converts EUR-based rates to per-USD rates', () => {
    const rates = ecbRatesPerUsd(daily, ['TRY', 'INR', 'KRW', 'EUR']);
    // Exact fractions rounded half-up to 8 places: X per EUR / 1.1512.
    expect(Object.fromEntries([...rates].map(([c, r]) => [c, at8(r)]))).toEqual({
      TRY: '42.41096247',
      INR: '88.66704309',
      KRW: '1473.35823489',
      EUR: '0.86865879',
    });
    // 1696.13 / 1.1512 = 1473.3582348853370396108408617095205003474635…
    expect(rates.get('KRW')!.toString()).toBe('1473.358234885337039610840861709520500347');
  });

  it('leaves out what the ECB does not publish and gives USD as 1', () => {
    const rates = ecbRatesPerUsd(daily, ['RUB', 'AZN', 'KZT', 'UZS', 'USD', 'TRY']);
    expect([...rates.keys()]).toEqual(['USD', 'TRY']);
    expect(rates.get('USD')!.toString()).toBe('1');
  });
});

describe('parseEcbDaily', () => {
  it('uses the latest day when several are present', () => {
    const daily = parseEcbDaily(
      ecbDoc(
        `<Cube time="2025-11-20"><Cube currency="USD" rate="1.1500"/><Cube currency="TRY" rate="48.70"/></Cube>` +
          `<Cube time="2025-11-21"><Cube currency="USD" rate="1.1512"/><Cube currency="TRY" rate="48.8235"/></Cube>`,
      ),
    );
    expect(daily.date).toBe('2025-11-21');
    expect(daily.perEur.get('TRY')!.toString()).toBe('48.8235');
  });

  it.each([
    ['no USD', `<Cube time="2025-11-21"><Cube currency="TRY" rate="48.8235"/></Cube>`, /no USD/],
    ['a comma rate', `<Cube time="2025-11-21"><Cube currency="USD" rate="1,1512"/></Cube>`, /rate "1,1512"/],
    ['a zero rate', `<Cube time="2025-11-21"><Cube currency="USD" rate="1.1512"/><Cube currency="TRY" rate="0"/></Cube>`, /TRY/],
    ['a repeated currency', `<Cube time="2025-11-21"><Cube currency="USD" rate="1.1512"/><Cube currency="USD" rate="1.2"/></Cube>`, /twice/],
    ['a bad date', `<Cube time="21.11.2025"><Cube currency="USD" rate="1.1512"/></Cube>`, /time/],
    ['no dated cube', ``, /no dated/],
  ])('refuses a document with %s', (_what, cubes, message) => {
    expect(refusal(() => parseEcbDaily(ecbDoc(cubes))).message).toMatch(message);
  });

  it('refuses another document and a truncated one', () => {
    expect(refusal(() => parseEcbDaily(new Uint8Array(Buffer.from('<html><body>Maintenance</body></html>')))).message).toMatch(/Envelope/);
    expect(refusal(() => parseEcbDaily(fixture.subarray(0, 500))).message).toMatch(/ecb: XML/);
  });
});
