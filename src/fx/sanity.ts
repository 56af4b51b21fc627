/**
 * The guard between a market feed and the stored rate: a new rate that moved more than the
 * allowed percentage from the last good one is refused, so a feed glitch (a misplaced decimal
 * comma, a wrong nominal, a de-pegged stablecoin) never prices orders. A refused rate leaves the
 * last good one in place until it goes stale or an operator sets a manual rate.
 */
import { Decimal } from 'decimal.js';

export type JumpCheck = { ok: true } | { ok: false; changePercent: Decimal };

/**
 * Enough digits that |next − previous| × 100 and maxJumpPercent × previous are exact for any
 * rate a feed publishes (≤ 40 digits after `RATE_PRECISION` divisions), so the comparison at the
 * threshold is exact, not subject to rounding.
 */
const Exact = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN });
/** Digits of the reported change; it is for logs and operators, the decision does not use it. */
const Report = Decimal.clone({ precision: 20, rounding: Decimal.ROUND_HALF_EVEN });

/**
 * `{ ok: true }` when `next` may replace `previous`: it is a positive finite number and, when
 * there is a previous rate, |next − previous| / previous × 100 ≤ maxJumpPercent (a move exactly
 * at the threshold passes). A first rate (`previous` null) passes when positive.
 *
 * When refused, `changePercent` is the signed move in percent of `previous` (20 significant
 * digits), e.g. 25 for 80 → 100 and −50 for 100 → 50; it is NaN when there is no previous rate
 * or `next` is not a finite number, since no move can be stated then.
 *
 * Throws `RangeError` for a non-positive `previous` (it could never have passed this check) or a
 * negative or non-finite threshold: those are bugs, not market data.
 */
export function checkJump(previous: Decimal | null, next: Decimal, maxJumpPercent: Decimal): JumpCheck {
  if (!maxJumpPercent.isFinite() || maxJumpPercent.isNegative()) {
    throw new RangeError(`checkJump: maxJumpPercent must be a finite non-negative number, got ${maxJumpPercent.toString()}`);
  }
  if (previous !== null && !(previous.isFinite() && previous.gt(0))) {
    throw new RangeError(`checkJump: previous rate must be positive, got ${previous.toString()}`);
  }
  if (!next.isFinite()) return { ok: false, changePercent: new Decimal(NaN) };
  const changePercent = (): Decimal =>
    previous === null
      ? new Decimal(NaN)
      : new Decimal(new Report(next).minus(previous).mul(100).div(previous));
  if (!next.gt(0)) return { ok: false, changePercent: changePercent() };
  if (previous === null) return { ok: true };
  const moved = new Exact(next).minus(previous).abs().mul(100);
  const allowed = new Exact(maxJumpPercent).mul(previous);
  return moved.lte(allowed) ? { ok: true } : { ok: false, changePercent: changePercent() };
}
