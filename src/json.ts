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
  const problem = keyProblem(text);
  return problem ? { ok: false, detail: problem } : { ok: true, value };
}

function keyProblem(text: string): string | null {
  const open: Set<string>[] = [];
  const path: string[] = [];
  let depth = 0;
  let problem: string | null = null;
  visit(
    text,
    {
      onObjectBegin: () => {
        if (++depth > MAX_JSON_DEPTH) problem ??= `body is nested more than ${MAX_JSON_DEPTH} levels deep`;
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
        depth--;
        open.pop();
        path.length = open.length;
      },
      onArrayBegin: () => {
        if (++depth > MAX_JSON_DEPTH) problem ??= `body is nested more than ${MAX_JSON_DEPTH} levels deep`;
        return problem === null;
      },
      onArrayEnd: () => {
        depth--;
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return problem;
}
