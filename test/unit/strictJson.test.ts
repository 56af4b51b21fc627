import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseStrictJson } from '../../src/json.js';

describe('parseStrictJson', () => {
  it('refuses nesting past the limit, however deep, without overflowing the stack', () => {
    for (const n of [MAX_JSON_DEPTH + 1, 2_000, 20_000, 60_000]) {
      expect(parseStrictJson(`{"a":${'['.repeat(n)}${']'.repeat(n)}}`)).toEqual({ ok: false, detail: `body is nested more than ${MAX_JSON_DEPTH} levels deep` });
      expect(parseStrictJson(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`)).toEqual({ ok: false, detail: `body is nested more than ${MAX_JSON_DEPTH} levels deep` });
      // The deep value is dropped by JSON.parse (the later key wins) but is still in the text.
      expect(parseStrictJson(`{"a":${'['.repeat(n)}${']'.repeat(n)},"a":1}`)).toEqual({ ok: false, detail: `body is nested more than ${MAX_JSON_DEPTH} levels deep` });
    }
  });

  it('takes nesting up to the limit, and still names a key given twice', () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH - 1)}1${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    expect(parseStrictJson(`{"a":${deep}}`).ok).toBe(true);
    expect(parseStrictJson(`{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`).ok).toBe(false);
    expect(parseStrictJson('{"a":{"b":1,"b":2}}')).toEqual({ ok: false, detail: 'a.b: the property is given more than once' });
    // Brackets inside strings, escaped quotes included, are not nesting.
    expect(parseStrictJson(JSON.stringify({ a: '['.repeat(100), b: '\\"{{{{'.repeat(50) })).ok).toBe(true);
  });
});
