import { describe, expect, it } from 'vitest';
import { isoMillis, isoOrNull, isoSeconds } from '../../src/domain/time.js';

describe('wire timestamps', () => {
  it('are UTC to the second, the milliseconds cut off (never rounded up)', () => {
    expect(isoSeconds(Date.UTC(2026, 0, 15, 12, 0, 59, 999))).toBe('2026-01-15T12:00:59Z');
    expect(isoSeconds(new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 0)))).toBe('1999-12-31T23:59:59Z');
    expect(isoMillis(Date.UTC(2026, 0, 15, 12, 0, 59, 999))).toBe('2026-01-15T12:00:59.999Z');
    expect(isoOrNull(null)).toBeNull();
  });

  it('keep the extended year form outside 0000–9999', () => {
    expect(isoSeconds(Date.UTC(12026, 0, 1, 0, 0, 0, 500))).toBe('+012026-01-01T00:00:00Z');
  });
});
