import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.js';
import { capExceeded, windowStart, type Cap, type Window } from '../../src/domain/turnover.js';

/* Calendar-aligned UTC windows for turnover caps (spec Limits) and the D22 refusal text. */

const iso = (w: Window, at: string) => windowStart(w, Date.parse(at)).toISOString();

describe('windowStart', () => {
  it('hour, day and month start at the calendar boundary in UTC', () => {
    expect(iso('hour', '2026-01-15T12:59:59.999Z')).toBe('2026-01-15T12:00:00.000Z');
    expect(iso('hour', '2026-01-15T13:00:00.000Z')).toBe('2026-01-15T13:00:00.000Z');
    expect(iso('day', '2026-01-15T23:59:59.999Z')).toBe('2026-01-15T00:00:00.000Z');
    expect(iso('day', '2026-01-16T00:00:00.000Z')).toBe('2026-01-16T00:00:00.000Z');
    expect(iso('month', '2026-01-31T23:59:59.999Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(iso('month', '2026-02-01T00:00:00.000Z')).toBe('2026-02-01T00:00:00.000Z');
    expect(iso('month', '2028-02-29T12:00:00.000Z')).toBe('2028-02-01T00:00:00.000Z');
    expect(iso('month', '2026-12-31T23:59:59.999Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(iso('day', '2027-01-01T00:00:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('counts the UTC day, whatever offset the instant was written with', () => {
    expect(iso('day', '2026-03-31T20:00:00-04:00')).toBe('2026-04-01T00:00:00.000Z');
    expect(iso('day', '2026-04-01T09:00:00+14:00')).toBe('2026-03-31T00:00:00.000Z');
  });

  const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) });
  const windowArb = fc.constantFrom<Window>('hour', 'day', 'month');

  it('the start is at or before the instant, on the boundary, and the same for every instant of the window', () => {
    fc.assert(
      fc.property(instant, windowArb, (t, w) => {
        const start = windowStart(w, t);
        expect(start.getTime()).toBeLessThanOrEqual(t);
        expect(start.getUTCMinutes() + start.getUTCSeconds() + start.getUTCMilliseconds()).toBe(0);
        if (w !== 'hour') expect(start.getUTCHours()).toBe(0);
        if (w === 'month') expect(start.getUTCDate()).toBe(1);
        expect(windowStart(w, start.getTime()).getTime()).toBe(start.getTime());
        // the next window starts strictly later and after t
        const next = w === 'hour' ? start.getTime() + 3_600_000 : w === 'day' ? start.getTime() + 86_400_000 : Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
        expect(t).toBeLessThan(next);
        expect(windowStart(w, next - 1).getTime()).toBe(start.getTime());
        expect(windowStart(w, next).getTime()).toBe(next);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('capExceeded (D22)', () => {
  const cap = (c: Partial<Cap> = {}): Cap => ({ id: 'lim_1', scope: 'merchant', scopeId: 'mer_1', window: 'day', capUsd: '10000', notifyOnly: false, ...c });

  it('the spec example text', () => {
    expect(capExceeded(cap(), '9950', dec('60'))).toBe('merchant day cap 10000.00000000 USD: completed 9950.00000000 + order 60.00000000');
  });

  it('reaching the cap exactly is allowed; one unit over is refused', () => {
    expect(capExceeded(cap(), '9950', dec('50'))).toBeNull();
    expect(capExceeded(cap(), '9950', dec('50.00000001'))).toMatch(/^merchant day cap/);
    expect(capExceeded(cap({ scope: 'desk', window: 'hour', capUsd: '0.5' }), '0', dec('0.50000001'))).toBe('desk hour cap 0.50000000 USD: completed 0.00000000 + order 0.50000001');
  });

  it('is exact for any amounts at 8 places', () => {
    const u = fc.bigInt({ min: 0n, max: 10n ** 16n });
    const s = (x: bigint) => `${x / 100_000_000n}.${(x % 100_000_000n).toString().padStart(8, '0')}`;
    fc.assert(
      fc.property(u, u, u, (c, done, order) => {
        const r = capExceeded(cap({ capUsd: s(c) }), s(done), dec(s(order)));
        if (done + order <= c) expect(r).toBeNull();
        else expect(r).toBe(`merchant day cap ${s(c)} USD: completed ${s(done)} + order ${s(order)}`);
      }),
      { numRuns: 2000 },
    );
  });
});
