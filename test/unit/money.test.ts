import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { amountFromJson, computeFee, customerRate, dec, fmt2, fmt4, fmt8, fromUnits8, isDecimalString, pickBand, settle, units8, type FeeBand } from '../../src/domain/money.js';

/*
 * Money rules D8, D13, D14 checked against an independent model: integers in BigInt, scaled to the
 * number of decimal places, rounded half-up by hand. The code under test uses a decimal library;
 * the two must agree digit for digit.
 */

// ---- the model

/** Decimal string with `places` places from an integer count of 10^-places units. */
function str(units: bigint, places: number): string {
  const neg = units < 0n;
  const a = neg ? -units : units;
  const scale = 10n ** BigInt(places);
  const frac = places === 0 ? '' : `.${(a % scale).toString().padStart(places, '0')}`;
  return `${neg ? '-' : ''}${a / scale}${frac}`;
}
/** Integer units of a non-negative decimal string at `places` places (the string has at most that many). */
function units(s: string, places: number): bigint {
  const [i, f = ''] = s.split('.');
  return BigInt(i) * 10n ** BigInt(places) + BigInt((f + '0'.repeat(places)).slice(0, places) || '0');
}
/** round_half_up(n / d) for n ≥ 0, d > 0. */
const divHalfUp = (n: bigint, d: bigint): bigint => (2n * n + d) / (2n * d);

// ---- generators

/** Customer amounts in cents: 0.01 to 10^13. */
const cents = fc.bigInt({ min: 1n, max: 10n ** 15n });
/** Rates at 8 places: 0.00000001 to 10^6 units per USD. */
const rate8 = fc.bigInt({ min: 1n, max: 10n ** 14n });
/** Settled USD at 8 places: 0 to 10^10 USD. */
const usd8 = fc.bigInt({ min: 0n, max: 10n ** 18n });
/** Fee rates at 4 places, 0 to 100 %. */
const percent4 = fc.bigInt({ min: 0n, max: 1_000_000n });

describe('fixed-point formatting of stored values', () => {
  it('any decimal string formats exactly as its half-up rounding, whether already in that form or not', () => {
    const digits = fc.bigInt({ min: 0n, max: 10n ** 20n });
    fc.assert(
      fc.property(digits, fc.integer({ min: 0, max: 10 }), fc.constantFrom('', '-', '0', '00'), (n, scale, prefix) => {
        const s = n.toString().padStart(scale + 1, '0');
        const text = `${prefix}${scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s}`;
        for (const [fmt, places] of [[fmt2, 2], [fmt4, 4], [fmt8, 8]] as const) {
          expect(fmt(text)).toBe(new Decimal(text).toFixed(places, Decimal.ROUND_HALF_UP));
        }
      }),
    );
    expect(fmt8('16.34531590')).toBe('16.34531590');
    expect(fmt2('0.50')).toBe('0.50');
    expect(fmt2('007.50')).toBe('7.50');
    expect(fmt8('-0.00000001')).toBe('-0.00000001');
  });
});

describe('D8: the request amount, rounded half-up to 2 places', () => {
  it('fixed cases', () => {
    expect(fmt2(amountFromJson(1.005)!)).toBe('1.01');
    expect(fmt2(amountFromJson(2.675)!)).toBe('2.68'); // binary floating point would give 2.67
    expect(fmt2(amountFromJson(1.004)!)).toBe('1.00');
    expect(fmt2(amountFromJson(0.005)!)).toBe('0.01');
    expect(fmt2(amountFromJson(1500.5)!)).toBe('1500.50');
    expect(amountFromJson(0.004)).toBeNull();
    expect(amountFromJson(0)).toBeNull();
    expect(amountFromJson(-1)).toBeNull();
    expect(amountFromJson(Number.NaN)).toBeNull();
    expect(amountFromJson(Number.POSITIVE_INFINITY)).toBeNull();
    expect(amountFromJson(1e-7)).toBeNull();
  });

  it('any literal of up to 15 significant digits rounds as its decimal text says', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n - 1n }), fc.integer({ min: 0, max: 999_999 }), (int, frac) => {
        const literal = `${int}.${String(frac).padStart(6, '0')}`;
        const micro = units(literal, 6);
        const expectedCents = divHalfUp(micro, 10_000n);
        const got = amountFromJson(JSON.parse(literal) as number);
        if (expectedCents === 0n) expect(got).toBeNull();
        else expect(fmt2(got!)).toBe(str(expectedCents, 2));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('D13: settlement', () => {
  it('the spec vector: 1500.50 RUB at 91.8 settles at 16.34531590 USD', () => {
    expect(fmt8(settle(dec('1500.50'), dec('91.8')))).toBe('16.34531590');
  });

  it('settled.amount = round_half_up(amount / rate, 8), exactly', () => {
    fc.assert(
      fc.property(cents, rate8, (a, r) => {
        // amount / rate = (a / 10^2) / (r / 10^8); in 10^-8 units that is a · 10^14 / r
        const expected = divHalfUp(a * 10n ** 14n, r);
        expect(fmt8(settle(dec(str(a, 2)), dec(str(r, 8))))).toBe(str(expected, 8));
      }),
      { numRuns: 3000 },
    );
  });

  it('fixed cases: exact quotients keep their digits, repeating ones round half-up, a tie rounds up', () => {
    expect(fmt8(settle(dec('0.01'), dec('0.16')))).toBe('0.06250000');
    expect(fmt8(settle(dec('0.01'), dec('0.00000016')))).toBe('62500.00000000');
    expect(fmt8(settle(dec('1'), dec('3')))).toBe('0.33333333');
    expect(fmt8(settle(dec('2'), dec('3')))).toBe('0.66666667');
    // 0.000000005 exactly: 0.01 / 2000000 → half-up to 0.00000001
    expect(fmt8(settle(dec('0.01'), dec('2000000')))).toBe('0.00000001');
  });

  it('the customer rate is market × (1 + spread%), rounded half-up to 8 places', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 18n }), fc.bigInt({ min: 0n, max: 500_000n }), (m12, s4) => {
        // market at 12 places, spread at 4 places: m/10^12 · (10^6 + s)/10^6, in 10^-8 units
        const expected = divHalfUp(m12 * (1_000_000n + s4), 10n ** 10n);
        expect(fmt8(customerRate(str(m12, 12), str(s4, 4)))).toBe(str(expected, 8));
      }),
      { numRuns: 2000 },
    );
    expect(fmt8(customerRate('91.8', '1.5'))).toBe('93.17700000');
  });
});

describe('D14: fees and credits', () => {
  const flat = (p: bigint): FeeBand[] => [{ fromUsd: '0', toUsd: null, ratePercent: str(p, 4) }];

  it('commission = round_half_up(settled × rate% / 100, 8); credited + commission = settled exactly', () => {
    fc.assert(
      fc.property(usd8, percent4, (s, p) => {
        const fee = computeFee(flat(p), dec(str(s, 8)));
        // s/10^8 · p/10^4 / 100, in 10^-8 units: s · p / 10^6
        const commission = divHalfUp(s * p, 1_000_000n);
        expect(fmt8(fee.commission)).toBe(str(commission, 8));
        expect(fmt8(fee.credited)).toBe(str(s - commission, 8));
        expect(units(fmt8(fee.credited), 8) + units(fmt8(fee.commission), 8)).toBe(s);
        expect(fee.credited.gte(0)).toBe(true);
        expect(fmt4(fee.ratePercent)).toBe(str(p, 4));
      }),
      { numRuns: 3000 },
    );
  });

  it('fixed cases: 3 % of 16.34531590 is 0.49035948 (0.490359477 half-up); 2.5 % of 0.00000020 is 0.00000001 (0.000000005 half-up)', () => {
    expect(fmt8(computeFee(flat(30_000n), dec('16.34531590')).commission)).toBe('0.49035948');
    expect(fmt8(computeFee(flat(25_000n), dec('0.00000020')).commission)).toBe('0.00000001');
    expect(fmt8(computeFee(flat(25_000n), dec('0.00000019')).commission)).toBe('0.00000000');
  });

  it('no tariff, or no band covering the amount, means no fee', () => {
    expect(fmt8(computeFee([], dec('10')).credited)).toBe('10.00000000');
    const gap: FeeBand[] = [{ fromUsd: '100', toUsd: null, ratePercent: '5' }];
    expect(fmt8(computeFee(gap, dec('99.99999999')).commission)).toBe('0.00000000');
    expect(fmt8(computeFee(gap, dec('100')).commission)).toBe('5.00000000');
  });

  /** Contiguous bands from 0 with random boundaries and rates; the last band is unbounded. */
  const bandsArb = fc
    .uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 14n }), { minLength: 1, maxLength: 6 })
    .chain((bounds) => {
      const sorted = [0n, ...bounds.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))];
      return fc.tuple(fc.constant(sorted), fc.array(percent4, { minLength: sorted.length, maxLength: sorted.length }));
    })
    .map(([bounds, rates]) => ({
      bounds,
      bands: bounds.map((from, i): FeeBand => ({ fromUsd: str(from, 8), toUsd: i + 1 < bounds.length ? str(bounds[i + 1], 8) : null, ratePercent: str(rates[i], 4) })),
    }));

  it('a band covers [fromUsd, toUsd): a boundary belongs to the band above, one unit below it to the band below', () => {
    fc.assert(
      fc.property(bandsArb, ({ bounds, bands }) => {
        for (let i = 1; i < bounds.length; i++) {
          expect(pickBand(bands, dec(str(bounds[i], 8)))).toBe(bands[i]);
          expect(pickBand(bands, dec(str(bounds[i] - 1n, 8)))).toBe(bands[i - 1]);
        }
        expect(pickBand(bands, dec('0'))).toBe(bands[0]);
      }),
      { numRuns: 500 },
    );
  });

  it('any amount falls in the last band whose fromUsd it reaches, and is charged that band\'s rate', () => {
    fc.assert(
      fc.property(bandsArb, usd8, ({ bounds, bands }, s) => {
        let expected = 0;
        for (let i = 0; i < bounds.length; i++) if (s >= bounds[i]) expected = i;
        expect(pickBand(bands, dec(str(s, 8)))).toBe(bands[expected]);
        const p = units(bands[expected].ratePercent, 4);
        expect(fmt8(computeFee(bands, dec(str(s, 8))).commission)).toBe(str(divHalfUp(s * p, 1_000_000n), 8));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('formatting and operator decimals', () => {
  it('fmt2/fmt4/fmt8 pad and round half-up', () => {
    expect(fmt2('1')).toBe('1.00');
    expect(fmt2('0.125')).toBe('0.13');
    expect(fmt4('2.5')).toBe('2.5000');
    expect(fmt8('0.000000005')).toBe('0.00000001');
    expect(fmt8('123456789012.1')).toBe('123456789012.10000000');
  });

  it('isDecimalString accepts plain decimals only, up to the given places', () => {
    for (const ok of ['0', '10', '10.5', '0.00000001', '9999999999999999']) expect(isDecimalString(ok)).toBe(true);
    for (const bad of ['', '-1', '1e3', '1.', '.5', ' 1', '1.000000001', '0x10', 10]) expect(isDecimalString(bad)).toBe(false);
    expect(isDecimalString('1.12345', 4)).toBe(false);
  });
});

describe('units8 / fromUnits8: exact running sums of 8-place amounts', () => {
  it('reads and writes amounts as PostgreSQL writes numeric(24, 8), signs and short fractions included', () => {
    expect(units8('123.45000000')).toBe(12_345_000_000n);
    expect(units8('-0.00000001')).toBe(-1n);
    expect(units8('7')).toBe(700_000_000n);
    expect(units8('7.5')).toBe(750_000_000n);
    expect(fromUnits8(12_345_000_000n)).toBe('123.45000000');
    expect(fromUnits8(-1n)).toBe('-0.00000001');
    expect(fromUnits8(0n)).toBe('0.00000000');
    expect(fromUnits8(units8('9999999999999999.99999999'))).toBe('9999999999999999.99999999');
  });

  it('adds a thousand amounts of both signs to exactly what a decimal adds them to', () => {
    let sum = 0n;
    let d = dec(0);
    for (let i = 0; i < 1000; i++) {
      const a = `${i % 7 === 0 ? '-' : ''}${(i * 7919) % 100000}.${String((i * 104729) % 100000000).padStart(8, '0')}`;
      sum += units8(a);
      d = d.plus(a);
    }
    expect(fromUnits8(sum)).toBe(d.toFixed(8));
  });

  it('refuses what is not an amount of at most 8 places', () => {
    for (const bad of ['', '1.123456789', '1e5', '+1', '1.', '.5', 'NaN']) expect(() => units8(bad), bad).toThrow(RangeError);
  });
});
