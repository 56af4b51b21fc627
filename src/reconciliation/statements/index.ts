/**
 * Bank statement readers for `POST /admin/v1/providers/{id}/statements`: ISO 20022 camt.053 and
 * camt.054 (001.02–001.08) and the CSV of the reconciliation contract, read from the request
 * body as a stream.
 *
 * A file is recorded whole or not at all, so a caller either
 *  - calls `readStatement` and records `credits` only when it answers `ok` (the credits of a
 *    file are small next to the file: a 50 MiB camt.053 has some 50 000 entries), or
 *  - iterates `openStatement(…)` inside its database transaction, recording as it goes, and
 *    commits only after the loop has ended: the iterator throws `StatementInvalidError` at the
 *    first fault, which may come after credits were yielded, and the caller then rolls back.
 *
 * On a fault the reader stops reading and leaves the body open (see `utf8Chunks`): the caller
 * answers `400 STATEMENT_INVALID` (or `413` for `too-large`) and then drains it (`for await` over
 * it reads the rest) or closes it.
 */
import { CamtReader } from './camt.js';
import { csvCredits } from './csv.js';
import { utf8Chunks } from './fields.js';
import {
  STATEMENT_MAX_BYTES,
  StatementInvalidError,
  type StatementCredit,
  type StatementKind,
  type StatementProblem,
  type StatementTotals,
} from './types.js';

export * from './types.js';
export { CSV_COLUMNS } from './csv.js';

export interface StatementOptions {
  /** Bytes read at most before the file is refused as `too-large`; the contract's 50 MiB by default. */
  readonly maxBytes?: number;
}

/** The body of an HTTP request or any other source of bytes (a Node `Readable` is one). */
export type StatementBody = AsyncIterable<Uint8Array | string>;

/**
 * Which reader a `Content-Type` calls for: `application/xml` (or `text/xml`) is camt,
 * `text/csv` is CSV, anything else none (the caller answers 415). Parameters such as
 * `charset=utf-8` are allowed; both formats are UTF-8.
 */
export function statementKindOf(contentType: string | undefined): StatementKind | null {
  const type = (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
  if (type === 'application/xml' || type === 'text/xml') return 'camt';
  if (type === 'text/csv') return 'csv';
  return null;
}

/** Credits as they are read, and the counts once the file has been read to its end. */
export interface StatementStream extends AsyncIterable<StatementCredit> {
  /** Null until the iteration has ended without a fault. */
  readonly totals: StatementTotals | null;
}

/**
 * Reads `body` as a statement of `kind`, yielding its credits in file order. Can be iterated
 * once. Throws `StatementInvalidError` (its `problem` says what and where) at the first fault;
 * see the module comment for recording safely.
 */
export function openStatement(body: StatementBody, kind: StatementKind, options: StatementOptions = {}): StatementStream {
  const maxBytes = options.maxBytes ?? STATEMENT_MAX_BYTES;
  let totals: StatementTotals | null = null;
  let started = false;
  async function* camt(): AsyncGenerator<StatementCredit> {
    const reader = new CamtReader();
    for await (const text of utf8Chunks(body, maxBytes)) {
      reader.write(text);
      yield* reader.take();
    }
    reader.close();
    yield* reader.take();
    const counts = reader.counts();
    totals = { format: counts.format!, entries: counts.entries, credits: counts.credits, skipped: counts.skipped };
  }
  async function* csv(): AsyncGenerator<StatementCredit> {
    const counts = { entries: 0 };
    yield* csvCredits(utf8Chunks(body, maxBytes), counts);
    totals = { format: 'csv', entries: counts.entries, credits: counts.entries, skipped: 0 };
  }
  return {
    get totals() {
      return totals;
    },
    [Symbol.asyncIterator]() {
      if (started) throw new Error('a statement stream can be read once');
      started = true;
      return kind === 'camt' ? camt() : csv();
    },
  };
}

export type StatementReadResult =
  | { readonly ok: true; readonly totals: StatementTotals; readonly credits: readonly StatementCredit[] }
  | { readonly ok: false; readonly problem: StatementProblem };

/**
 * Reads the whole statement and answers its credits and counts, or the problem that makes it
 * no statement (nothing to record then). Only faults of the file are answered as `ok: false`;
 * a failing body stream (the client went away) still rejects.
 */
export async function readStatement(body: StatementBody, kind: StatementKind, options: StatementOptions = {}): Promise<StatementReadResult> {
  const stream = openStatement(body, kind, options);
  const credits: StatementCredit[] = [];
  try {
    for await (const credit of stream) credits.push(credit);
  } catch (err) {
    if (err instanceof StatementInvalidError) return { ok: false, problem: err.problem };
    throw err;
  }
  return { ok: true, totals: stream.totals!, credits };
}

