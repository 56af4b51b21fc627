import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { checkJump } from '../../../src/fx/sanity.js';

const d = (v: string | number) => new Decimal(v);
const TEN = d(10);

describe('checkJump', () => {
  it('accepts a first positive rate whatever its size', () => {
    expect(checkJump(null, d('91.8'), TEN)).toEqual({ ok: true });
    expect(checkJump(null, d('0.00000001'), TEN)).toEqual({ ok: true });
  });

  it('accepts moves up to the threshold in either direction, the threshold included', () => {
    expect(checkJump(d('91.8'), d('92.5'), TEN)).toEqual({ ok: true });
    expect(checkJump(d(100), d(110), TEN)).toEqual({ ok: true });
    expect(checkJump(d(100), d(90), TEN)).toEqual({ ok: true });
    expect(checkJump(d(100), d(100), d(0))).toEqual({ ok: true });
  });

  it('refuses a move beyond the threshold and reports the signed change', () => {
    const up = checkJump(d(80), d(100), TEN);
    expect(up.ok).toBe(false);
    if (!up.ok) expect(up.changePercent.toString()).toBe('25');
    const down = checkJump(d(100), d('89.99'), TEN);
    expect(down.ok).toBe(false);
    if (!down.ok) expect(down.changePercent.toString()).toBe('-10.01');
  });

  it('catches a misread nominal (a rate 100 times too large)', () => {
    const result = checkJump(d('520.38186679'), d('52038.186679'), d(20));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.changePercent.toString()).toBe('9900');
  });

  it('decides at the threshold exactly, beyond what the reported change can show', () => {
    // 3 → 3.3 is exactly 10 %; one unit in the 28th decimal more is beyond it.
    expect(checkJump(d(3), d('3.3'), TEN)).toEqual({ ok: true });
    const beyond = checkJump(d(3), d('3.3000000000000000000000000001'), TEN);
    expect(beyond.ok).toBe(false);
    // The report keeps 20 digits and reads as 10, yet the move was refused.
    if (!beyond.ok) expect(beyond.changePercent.toString()).toBe('10');
    // A 40-digit quotient just under the limit passes.
    expect(checkJump(d(3), d('3.299999999999999999999999999999999999999'), TEN)).toEqual({ ok: true });
  });

  it('always refuses zero and negative rates', () => {
    expect(checkJump(null, d(0), TEN).ok).toBe(false);
    expect(checkJump(null, d('-91.8'), TEN).ok).toBe(false);
    const zero = checkJump(d('91.8'), d(0), d(1000));
    expect(zero.ok).toBe(false);
    if (!zero.ok) expect(zero.changePercent.toString()).toBe('-100');
  });

  it('refuses a non-finite rate, with a NaN change since none can be stated', () => {
    for (const next of [d(NaN), d(Infinity)]) {
      const result = checkJump(d('91.8'), next, TEN);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.changePercent.isNaN()).toBe(true);
    }
    const first = checkJump(null, d(0), TEN);
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.changePercent.isNaN()).toBe(true);
  });

  it('throws on arguments that can only come from a bug', () => {
    expect(() => checkJump(d(0), d(1), TEN)).toThrow(RangeError);
    expect(() => checkJump(d(-1), d(1), TEN)).toThrow(RangeError);
    expect(() => checkJump(d(1), d(1), d(-1))).toThrow(RangeError);
    expect(() => checkJump(d(1), d(1), d(NaN))).toThrow(RangeError);
  });
});
