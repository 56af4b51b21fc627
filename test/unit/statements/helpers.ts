import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import {
  readStatement,
  type StatementCredit,
  type StatementKind,
  type StatementOptions,
  type StatementProblem,
  type StatementTotals,
} from '../../../src/reconciliation/statements/index.js';

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/statements/${name}`, import.meta.url));
}

/** A request body delivering `bytes` in pieces of `size` bytes, as a socket would (splitting tags and characters). */
export function body(bytes: Buffer | string, size = 64 * 1024): Readable {
  const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  function* pieces() {
    for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
  }
  return Readable.from(pieces());
}

export async function read(
  bytes: Buffer | string,
  kind: StatementKind,
  size?: number,
  options?: StatementOptions,
): Promise<{ totals: StatementTotals; credits: StatementCredit[] }> {
  const result = await readStatement(body(bytes, size), kind, options);
  if (!result.ok) throw new Error(`expected a statement, got: ${result.problem.message}`);
  return { totals: result.totals, credits: [...result.credits] };
}

export async function refusal(bytes: Buffer | string, kind: StatementKind, options?: StatementOptions): Promise<StatementProblem> {
  const result = await readStatement(body(bytes, 5), kind, options);
  if (result.ok) throw new Error(`expected the file to be refused; it gave ${result.totals.credits} credits`);
  // The same answer whatever the chunking.
  const whole = await readStatement(body(bytes), kind, options);
  expect(whole.ok).toBe(false);
  if (!whole.ok) {
    expect({ kind: whole.problem.kind, entry: whole.problem.entry, element: whole.problem.element }).toEqual({
      kind: result.problem.kind,
      entry: result.problem.entry,
      element: result.problem.element,
    });
  }
  return result.problem;
}

/** Credits without the fields most assertions do not look at. */
export function brief(c: StatementCredit) {
  return { sourceId: c.sourceId, amount: c.amount, currency: c.currency, payer: c.payer, reference: c.reference };
}
