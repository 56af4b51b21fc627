import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { DEFAULT_CADENCE, dueCodes, intervalFor, isStale } from '../../../src/fx/schedule.js';

const CODES = ['RUB', 'INR', 'KRW', 'TRY', 'AZN', 'KZT', 'UZS'];

describe('dueCodes', () => {
  it('refreshes RUB every 60 s and the others every 600 s', () => {
    const clock = new ManualClock();
    const attempts = new Map<string, number>();
    const tick = () => {
      const due = dueCodes(attempts, CODES, clock.now());
      for (const code of due) attempts.set(code, clock.now());
      return due;
    };

    expect(tick()).toEqual(CODES); // nothing attempted yet
    clock.advance(59_999);
    expect(tick()).toEqual([]);
    clock.advance(1);
    expect(tick()).toEqual(['RUB']);
    for (let minute = 2; minute <= 9; minute++) {
      clock.advance(60_000);
      expect(tick()).toEqual(['RUB']);
    }
    clock.advance(60_000); // 600 s after the first tick
    expect(tick()).toEqual(CODES);
  });

  it('counts from each code’s own last attempt', () => {
    const now = 1_000_000;
    const attempts = new Map([
      ['RUB', now - 30_000],
      ['INR', now - 600_000],
      ['KRW', now - 599_999],
    ]);
    expect(dueCodes(attempts, ['RUB', 'INR', 'KRW', 'TRY'], now)).toEqual(['INR', 'TRY']);
  });

  it('takes a custom cadence', () => {
    const now = 1_000_000;
    const attempts = new Map([
      ['RUB', now - 10_000],
      ['TRY', now - 10_000],
    ]);
    expect(dueCodes(attempts, ['RUB', 'TRY'], now, { rubMs: 10_000, otherMs: 20_000 })).toEqual(['RUB']);
    expect(intervalFor('RUB')).toBe(DEFAULT_CADENCE.rubMs);
    expect(intervalFor('UZS')).toBe(600_000);
  });

  it('makes a code due when the clock stepped back past its last attempt', () => {
    const attempts = new Map([['TRY', 2_000_000]]);
    expect(dueCodes(attempts, ['TRY'], 1_000_000)).toEqual(['TRY']);
  });

  it('keeps the order given and drops repeats', () => {
    expect(dueCodes(new Map(), ['UZS', 'RUB', 'UZS'], 0)).toEqual(['UZS', 'RUB']);
  });

  it('refuses a cadence that would refresh continuously', () => {
    expect(() => dueCodes(new Map(), CODES, 0, { rubMs: 0, otherMs: 600_000 })).toThrow(RangeError);
    expect(() => dueCodes(new Map(), CODES, 0, { rubMs: 60_000, otherMs: NaN })).toThrow(RangeError);
  });
});

describe('isStale', () => {
  const clock = new ManualClock();
  const fetchedAt = clock.now();

  it('is fresh up to and including maxAge, stale after', () => {
    expect(isStale(fetchedAt, fetchedAt, 300_000)).toBe(false);
    expect(isStale(fetchedAt, fetchedAt + 300_000, 300_000)).toBe(false);
    expect(isStale(fetchedAt, fetchedAt + 300_001, 300_000)).toBe(true);
  });

  it('tolerates a fetch time slightly ahead (instance clocks differ) but not far ahead', () => {
    expect(isStale(fetchedAt + 2_000, fetchedAt, 300_000)).toBe(false);
    expect(isStale(fetchedAt + 300_001, fetchedAt, 300_000)).toBe(true);
  });

  it('treats non-finite times as stale and refuses a negative max age', () => {
    expect(isStale(NaN, fetchedAt, 300_000)).toBe(true);
    expect(isStale(fetchedAt, Infinity, 300_000)).toBe(true);
    expect(() => isStale(fetchedAt, fetchedAt, -1)).toThrow(RangeError);
  });
});
