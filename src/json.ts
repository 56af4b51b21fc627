import { visit } from 'jsonc-parser';

/** Objects and arrays nested deeper than this are refused: no body of ours goes past a handful. */
export const MAX_JSON_DEPTH = 32;

export type StrictJson = { ok: true; value: unknown } | { ok: false; detail: string };

/**
 * Parses JSON as a signed request must mean it: exactly one meaning. `JSON.parse` keeps the last
 * of two equal keys, so `{"amount":1,"amount":100000}` would be read as 100000 by us and as 1 by a
 * checker that keeps the first; such a body is refused, naming the key. Nesting past
 * MAX_JSON_DEPTH is refused too. The duplicate scan is `jsonc-parser`'s visitor (comments and
 * trailing commas never reach it: `JSON.parse` has already refused them).
 */
export function parseStrictJson(text: string): StrictJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'body is not valid JSON' };
  }
  // A scalar or a flat value cannot repeat a key or nest.
  if (value === null || typeof value !== 'object') return { ok: true, value };
  // The depth is measured on the text first, in one loop: the visitor below recurses once per
  // level, and 20,000 levels (40 KB of brackets) would overflow the stack into a 500. The text, not
  // the parsed value: a key given twice may hide a deep first value that JSON.parse dropped.
  if (deeperThan(text, MAX_JSON_DEPTH)) return { ok: false, detail: `body is nested more than ${MAX_JSON_DEPTH} levels deep` };
  const problem = keyProblem(text);
  return problem ? { ok: false, detail: problem } : { ok: true, value };
}

/** Whether objects and arrays nest more than `max` levels (`{}` is one) in a text JSON.parse accepted. */
function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The first key given twice in one object, named with its path; the depth is already known to be bounded. */
function keyProblem(text: string): string | null {
  const open: Set<string>[] = [];
  const path: string[] = [];
  let problem: string | null = null;
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Set());
        return problem === null;
      },
      onObjectProperty: (name) => {
        const keys = open[open.length - 1]!;
        if (keys.has(name)) problem ??= `${[...path.slice(0, open.length - 1), name].join('.')}: the property is given more than once`;
        keys.add(name);
        path[open.length - 1] = name;
      },
      onObjectEnd: () => {
        open.pop();
        path.length = open.length;
      },
      onArrayBegin: () => problem === null,
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return problem;
}
