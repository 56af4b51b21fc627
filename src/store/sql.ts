import type { Queryable } from './db.js';

/**
 * A statement, or a part of one, with its values kept beside its text. Parameters get their
 * numbers only when the whole statement is rendered, in the order they appear, so parts (a CTE, a
 * row source) compose into any statement without agreeing on numbers beforehand.
 *
 *   sql`SELECT * FROM orders WHERE id = ${id} AND ${inScope}`   // inScope: another Sql
 *
 * A value is always a parameter, never text; `raw` is for text written in the code (column lists,
 * fixed expressions), never for anything that came with a request.
 */
export class Sql {
  /** `parts.length === values.length + 1`; value i goes between parts i and i + 1. */
  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...args: unknown[]): Sql {
  const parts = [strings[0]!];
  const values: unknown[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a instanceof Sql) {
      parts[parts.length - 1] += a.parts[0]!;
      for (let j = 0; j < a.values.length; j++) {
        values.push(a.values[j]);
        parts.push(a.parts[j + 1]!);
      }
      parts[parts.length - 1] += strings[k + 1]!;
    } else {
      values.push(a);
      parts.push(strings[k + 1]!);
    }
  }
  return new Sql(parts, values);
}

/** Text of the code's own (an identifier list, a fixed expression) as a part without parameters. */
export const raw = (text: string): Sql => new Sql([text], []);

/** The statement's text with its parameters numbered $1, $2, … in order, and their values. */
export function render(s: Sql): { text: string; values: unknown[] } {
  let text = s.parts[0]!;
  for (let i = 0; i < s.values.length; i++) text += `$${i + 1}${s.parts[i + 1]}`;
  return { text, values: s.values as unknown[] };
}

/** Runs a statement built with `sql`. */
export function query<T = Record<string, any>>(q: Queryable, s: Sql): Promise<{ rows: T[]; rowCount: number }> {
  const { text, values } = render(s);
  return q.query<T>(text, values);
}
