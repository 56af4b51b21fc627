/**
 * What a bank statement reader gives its caller: credits in the shape the credit store takes,
 * the counts the upload's answer reports, and one failure type that names what is wrong and
 * where. Pure data: no database, no HTTP, no clock.
 */

/** The file formats the statement upload reads. camt.053 and camt.054 are told apart by namespace. */
export type StatementFormat = 'camt.053' | 'camt.054' | 'csv';

/** What the caller chose by `Content-Type`; the reader finds the exact format in the file. */
export type StatementKind = 'camt' | 'csv';

/** One incoming transfer found in a statement. */
export interface StatementCredit {
  /** The sender's transaction id: the `(providerId, sourceId)` pair makes recording idempotent. */
  readonly sourceId: string;
  /** The account the money arrived on, as the bank writes it (the caller compares it without spaces, dashes and case). */
  readonly account: string;
  /** Exact decimal string with 2 places (`"918.00"`); never a JS number. */
  readonly amount: string;
  /** ISO 4217 code, three capital letters. */
  readonly currency: string;
  /** ISO 8601 UTC with milliseconds (`2026-03-02T09:15:00.000Z`). */
  readonly receivedAt: string;
  /**
   * True when the file gives a date alone (or a time without a zone, which cannot be placed on
   * the UTC line): `receivedAt` is then that day 00:00Z and stands for the whole UTC day.
   */
  readonly dateOnly: boolean;
  readonly payer: string | null;
  readonly reference: string | null;
  /** The 1-based `Ntry` (camt) or data row (CSV) this credit came from, for messages and logs. */
  readonly entry: number;
}

/** The counts the upload's answer needs, known once the whole file is read. */
export interface StatementTotals {
  readonly format: StatementFormat;
  /** camt: every `Ntry` element; CSV: every data row. */
  readonly entries: number;
  /** Credits the file yields (an entry with several `TxDtls` yields several). */
  readonly credits: number;
  /** Entries that are not credits: debits, entries not booked (pending, information), reversals. */
  readonly skipped: number;
}

export interface StatementProblem {
  /** `too-large`: the body passed the size limit; `invalid`: it is not a statement the reader accepts. */
  readonly kind: 'too-large' | 'invalid';
  /** One sentence naming what is wrong and where, fit for the `400 STATEMENT_INVALID` detail. */
  readonly message: string;
  /** The 1-based `Ntry` (camt) or data row (CSV) at fault, when the fault is in one. */
  readonly entry: number | null;
  /** The element path (`Ntry/Amt`) or CSV column at fault, when there is one. */
  readonly element: string | null;
  /** Position in the file (1-based), when known. */
  readonly line: number | null;
  readonly column: number | null;
}

/** Thrown by the streaming readers; `readStatement` turns it into a returned refusal. */
export class StatementInvalidError extends Error {
  override readonly name = 'StatementInvalidError';
  constructor(readonly problem: StatementProblem) {
    super(problem.message);
  }
}

export function statementProblem(
  message: string,
  where: { entry?: number | null; element?: string | null; line?: number | null; column?: number | null } = {},
  kind: StatementProblem['kind'] = 'invalid',
): StatementInvalidError {
  return new StatementInvalidError({
    kind,
    message,
    entry: where.entry ?? null,
    element: where.element ?? null,
    line: where.line ?? null,
    column: where.column ?? null,
  });
}

/** The upload limit of the contract: files up to 50 MiB. */
export const STATEMENT_MAX_BYTES = 50 * 1024 * 1024;
