import { Decimal } from 'decimal.js';

// Settlement and fee arithmetic (decisions D12–D14). Every rounding is half-up and happens here.
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

export function dec(v: string | number | Decimal): Decimal {
  return new D(v);
}

export const round2 = (v: Decimal): Decimal => new D(v).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
export const round8 = (v: Decimal): Decimal => new D(v).toDecimalPlaces(8, Decimal.ROUND_HALF_UP);
export const round4 = (v: Decimal): Decimal => new D(v).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);

/**
 * A fixed-point formatter. A string already in that exact form (as PostgreSQL writes a `numeric`
 * of that scale: no sign, no leading zero, exactly `places` decimals) is its own answer; anything
 * else is rounded half-up through a decimal.
 */
function fixed(places: number) {
  const canonical = new RegExp(`^(?:0|[1-9]\\d*)\\.\\d{${places}}$`);
  return (v: Decimal | string): string => (typeof v === 'string' && canonical.test(v) ? v : new D(v).toFixed(places, Decimal.ROUND_HALF_UP));
}

export const fmt2 = fixed(2);
export const fmt4 = fixed(4);
export const fmt8 = fixed(8);

/**
 * Exact sums of many amounts of 8 places (a statement's running balance over hundreds of
 * thousands of entries): each amount as a whole number of 10⁻⁸ units, so adding is integer
 * arithmetic with nothing to round and no object per step. `units8` takes a decimal of at most 8
 * places (as PostgreSQL writes a numeric of scale 8); `fromUnits8` writes one back with exactly 8.
 */
export function units8(v: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(v);
  if (!m) throw new RangeError(`not a decimal of at most 8 places: ${v}`);
  const n = BigInt(m[2]! + (m[3] ?? '').padEnd(8, '0'));
  return m[1] ? -n : n;
}

export function fromUnits8(u: bigint): string {
  const digits = (u < 0n ? -u : u).toString().padStart(9, '0');
  return `${u < 0n ? '-' : ''}${digits.slice(0, -8)}.${digits.slice(-8)}`;
}

/**
 * A JSON number as sent, rounded half-up to 2 places (D8). The number is read through its shortest
 * round-trip decimal form, which is the literal the merchant wrote for anything up to 15 significant digits.
 */
export function amountFromJson(n: number): Decimal | null {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return null;
  const a = round2(new D(String(n)));
  return a.gt(0) ? a : null;
}

/** D13: market rate × (1 + spread%), rounded half-up to 8 places. */
export function customerRate(marketRate: Decimal | string, spreadPercent: Decimal | string): Decimal {
  return round8(new D(marketRate).mul(new D(1).plus(new D(spreadPercent).div(100))));
}

/** D13: settled.amount = round_half_up(amount / rate, 8). */
export function settle(amount: Decimal, rate: Decimal): Decimal {
  return round8(new D(amount).div(rate));
}

export interface FeeBand {
  fromUsd: string;
  toUsd: string | null;
  ratePercent: string;
}

/** D14: the band whose [fromUsd, toUsd) covers the settled amount; no band, no fee. */
export function pickBand(bands: readonly FeeBand[], settledUsd: Decimal): FeeBand | null {
  for (const b of bands) {
    if (settledUsd.gte(b.fromUsd) && (b.toUsd === null || settledUsd.lt(b.toUsd))) return b;
  }
  return null;
}

export interface Fee {
  ratePercent: Decimal;
  commission: Decimal;
  credited: Decimal;
}

/** D14: commission = round_half_up(settled × rate% / 100, 8); credited = settled − commission. */
export function computeFee(bands: readonly FeeBand[], settledUsd: Decimal): Fee {
  const band = pickBand(bands, settledUsd);
  const ratePercent = new D(band?.ratePercent ?? 0);
  const commission = round8(new D(settledUsd).mul(ratePercent).div(100));
  return { ratePercent, commission, credited: new D(settledUsd).minus(commission) };
}

/** Decimal strings as operators send them: optional sign-free digits with an optional fraction. */
export function isDecimalString(v: unknown, maxPlaces = 8): v is string {
  return typeof v === 'string' && new RegExp(`^\\d{1,16}(\\.\\d{1,${maxPlaces}})?$`).test(v);
}
