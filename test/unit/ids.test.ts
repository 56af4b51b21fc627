import { describe, expect, it } from 'vitest';
import { newHistoryId, newId, randomHex, randomId26 } from '../../src/ids.js';

describe('random ids', () => {
  it('mer_ ids are 26 Crockford base32 characters, all different across many pool refills', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('mer'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^mer_[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // every symbol is used, in roughly equal shares (130 random bits each)
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(4, 29)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = (ids.length * 25) / 32;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });

  it('trace ids are hex of the asked length and never repeat, interleaved with other draws', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const t = randomHex(12);
      expect(t).toMatch(/^[0-9a-f]{24}$/);
      seen.add(t);
      randomId26();
    }
    expect(seen.size).toBe(5_000);
  });

  describe('ids of history rows (orders, events, appeals, credits)', () => {
    const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
    const timeOf = (id: string) => [...id.slice(4, 14)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);

    it('are 26 Crockford base32 characters whose first ten are the time in milliseconds, as a ULID', () => {
      const at = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
      const id = newHistoryId('ord', at);
      expect(id).toMatch(/^ord_[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
      expect(timeOf(id)).toBe(at);
      // The ULID of the same moment, lower-cased, begins with the same ten characters.
      expect(newHistoryId('evt', 0).slice(4, 14)).toBe('0000000000');
      expect(newHistoryId('apl', 2 ** 48 - 1).slice(4, 14)).toBe('7zzzzzzzzz');
    });

    it('made one after another sort by time, and never repeat within one millisecond', () => {
      const start = Date.UTC(2026, 0, 1);
      const ids = Array.from({ length: 20_000 }, (_, i) => newHistoryId('ord', start + Math.floor(i / 100)));
      expect([...ids].sort()).toEqual([...new Set(ids)].sort());
      for (let i = 100; i < ids.length; i += 100) expect(ids[i - 1]! < ids[i]!).toBe(true);
      // 80 random bits after the time: every symbol, in roughly equal shares.
      const counts = new Map<string, number>();
      for (const id of ids) for (const c of id.slice(14, 29)) counts.set(c, (counts.get(c) ?? 0) + 1);
      expect(counts.size).toBe(32);
      const expected = (ids.length * 15) / 32;
      for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
    });
  });
});
