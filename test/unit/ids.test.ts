import { describe, expect, it } from 'vitest';
import { newId, randomHex, randomId26 } from '../../src/ids.js';

describe('random ids', () => {
  it('ord_ ids are 26 Crockford base32 characters, all different across many pool refills', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('ord'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^ord_[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
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
});
