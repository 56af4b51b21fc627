import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RateSourceError } from '../../../src/fx/source.js';
import { ExchangeTickerRateSource, parseTickerPrices } from '../../../src/fx/sources/exchangeTicker.js';

const fixture = new Uint8Array(readFileSync(new URL('../../fixtures/fx/ticker-price.json', import.meta.url)));
const json = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value)));

function refusal(fn: () => unknown): RateSourceError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RateSourceError);
    expect((err as RateSourceError).failure).toBe('malformed');
    return err as RateSourceError;
  }
  throw new Error('expected the body to be refused');
}

describe('parseTickerPrices', () => {
  it('reads the recorded answer with prices as exact decimals', () => {
    const prices = parseTickerPrices(fixture);
    expect([...prices.keys()]).toEqual(['USDTTRY', 'USDTRUB']);
    expect(prices.get('USDTTRY')!.toFixed(8)).toBe('42.41000000');
    expect(prices.get('USDTRUB')!.toFixed(8)).toBe('81.05000000');
  });

  it('leaves out a zero price (a halted pair) but keeps the others', () => {
    const prices = parseTickerPrices(json([{ symbol: 'USDTTRY', price: '0.00000000' }, { symbol: 'USDTRUB', price: '81.05' }]));
    expect([...prices.keys()]).toEqual(['USDTRUB']);
  });

  it('names the configured source in its errors', () => {
    expect(refusal(() => parseTickerPrices(json({}), 'okx')).source).toBe('okx');
  });

  it.each([
    ['a JSON number price (already inexact)', [{ symbol: 'USDTTRY', price: 42.41 }], /not a string/],
    ['a negative price', [{ symbol: 'USDTTRY', price: '-42.41' }], /plain decimal/],
    ['an exponent', [{ symbol: 'USDTTRY', price: '4.241e1' }], /plain decimal/],
    ['a missing symbol', [{ price: '42.41' }], /symbol/],
    ['a repeated symbol', [{ symbol: 'USDTTRY', price: '42.41' }, { symbol: 'USDTTRY', price: '42.5' }], /twice/],
    ['an error object instead of an array', { code: -1121, msg: 'Invalid symbol.' }, /not an array/],
    ['a null entry', [null], /not an object/],
  ])('refuses %s', (_what, body, message) => {
    expect(refusal(() => parseTickerPrices(json(body))).message).toMatch(message);
  });

  it('refuses a body that is not JSON', () => {
    expect(refusal(() => parseTickerPrices(new Uint8Array(Buffer.from('<html>502 Bad Gateway</html>')))).message).toMatch(/not JSON/);
  });
});

describe('ExchangeTickerRateSource configuration', () => {
  it.each([
    ['a lower-case code', { try: 'USDTTRY' }],
    ['USD itself', { USD: 'USDTUSD' }],
    ['a symbol with spaces', { TRY: 'USDT TRY' }],
  ])('refuses %s in the symbol map', (_what, symbols) => {
    expect(() => new ExchangeTickerRateSource({ symbols })).toThrow(RangeError);
  });

  it('takes its name from the options', () => {
    expect(new ExchangeTickerRateSource().name).toBe('binance');
    expect(new ExchangeTickerRateSource({ name: 'mirror' }).name).toBe('mirror');
  });
});
