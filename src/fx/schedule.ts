/**
 * When each currency's market rate is asked for again. Pure: the rates worker passes its clock's
 * time and its record of attempts. RUB, the main currency, refreshes every minute; the others
 * every ten minutes (gateway spec, GET /gw/v1/rates).
 */

export interface Cadence {
  /** Interval between attempts for RUB, ms. */
  readonly rubMs: number;
  /** Interval between attempts for every other currency, ms. */
  readonly otherMs: number;
}

export const DEFAULT_CADENCE: Cadence = Object.freeze({ rubMs: 60_000, otherMs: 600_000 });

export function intervalFor(code: string, cadence: Cadence = DEFAULT_CADENCE): number {
  return code === 'RUB' ? cadence.rubMs : cadence.otherMs;
}

/**
 * The codes to fetch now, in the order given, without repeats. A code is due when it has never
 * been attempted or its interval has passed since the last attempt (`now − last ≥ interval`).
 * Attempts, not successes, are what count, so a failing feed is retried at the cadence rather than
 * on every tick. A last attempt later than `nowMs` (the clock stepped back) makes the code due:
 * one early refresh is better than waiting out however far the clock jumped.
 */
export function dueCodes(
  lastAttemptAt: ReadonlyMap<string, number>,
  codes: readonly string[],
  nowMs: number,
  cadence: Cadence = DEFAULT_CADENCE,
): string[] {
  if (!(cadence.rubMs > 0) || !(cadence.otherMs > 0)) {
    throw new RangeError(`dueCodes: cadence intervals must be positive, got ${cadence.rubMs} and ${cadence.otherMs}`);
  }
  const due: string[] = [];
  for (const code of new Set(codes)) {
    const last = lastAttemptAt.get(code);
    if (last === undefined || last > nowMs || nowMs - last >= intervalFor(code, cadence)) due.push(code);
  }
  return due;
}

/**
 * True when a rate fetched at `fetchedAtMs` is too old to price an order at `nowMs`: more than
 * `maxAgeMs` old (exactly `maxAgeMs` is still fresh). A fetch time more than `maxAgeMs` in the
 * future counts as stale too: clocks of instances differ by far less, so such a time is not to be
 * trusted. Non-finite times are stale: when in doubt, a currency is not priceable.
 */
export function isStale(fetchedAtMs: number, nowMs: number, maxAgeMs: number): boolean {
  if (!(maxAgeMs >= 0)) throw new RangeError(`isStale: maxAgeMs must be non-negative, got ${maxAgeMs}`);
  if (!Number.isFinite(fetchedAtMs) || !Number.isFinite(nowMs)) return true;
  return Math.abs(nowMs - fetchedAtMs) > maxAgeMs;
}
