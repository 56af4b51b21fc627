/**
 * What a bank statement reader gives its caller: every entry of the file in file order (credits,
 * debits and the rest, readable or not), the file's sections with the balances they state, and
 * one failure type for a file that is no statement at all. Pure data: no database, no HTTP, no
 * clock.
 *
 * A reader is pushed text as it arrives (`write`), hands over the entries read so far (`take`)
 * and is told the end (`close`). It throws `StatementInvalidError` only for what makes the whole
 * file no statement (no known format, not well-formed, no account); an entry it cannot read is an
 * entry with a `problem`, and the reader goes on with the next one.
 */

/** The formats read. camt messages are told apart by namespace, MT940 and MT942 by their fields. */
export type StatementFormat = 'camt.052' | 'camt.053' | 'camt.054' | 'mt940' | 'mt942' | '1c' | 'csv' | 'csv-profile';

/** What an entry is: money in, money out, or a booking that is neither (pending, information, a reversal of a credit). */
export type EntryKind = 'credit' | 'debit' | 'other';

/**
 * One entry of the file. A camt entry with several transactions (`TxDtls`) that is a credit gives
 * one entry per transaction, each of its own amount; any other entry is one.
 */
export interface StatementEntry {
  /** 1-based position among the entries the reader gives, in file order. */
  readonly index: number;
  readonly kind: EntryKind;
  /** The account the entry is booked on, as the bank writes it (the caller normalises it). */
  readonly account: string | null;
  /** Exact positive decimal string with 2 places (`"918.00"`); null when unreadable. */
  readonly amount: string | null;
  /** ISO 4217 code, three capital letters; null when unreadable. */
  readonly currency: string | null;
  /** ISO 8601 UTC with milliseconds (`2026-03-02T09:15:00.000Z`); null when unreadable. */
  readonly receivedAt: string | null;
  /**
   * True when the file gives a date alone (or a local time that cannot be placed on the UTC line):
   * `receivedAt` is then that day 00:00Z and stands for the whole UTC day.
   */
  readonly dateOnly: boolean;
  readonly payer: string | null;
  /** Remittance information: what the payer wrote (`Ustrd`, `:86:` purpose, `НазначениеПлатежа`). */
  readonly reference: string | null;
  /**
   * The bank's own reference of the booking, which names the money (camt `AcctSvcrRef` of the
   * transaction, else of the entry; MT940 `:61:` bank reference; 1C `Номер` with `Дата`); null
   * when the file gives none. References the payer's side chooses never go here.
   */
  readonly bankReference: string | null;
  /**
   * How the file itself names the entry, kept for people (`NtryRef`, `EndToEndId`, a CSV's
   * transaction id, a row number): never used to tell two entries apart.
   */
  readonly sourceId: string | null;
  /** Why the entry cannot be read (it is then `unreadable`), or null. */
  readonly problem: string | null;
}

/** A balance the file states: signed (negative for an overdraft), 2 places. */
export interface StatementBalance {
  readonly amount: string;
  readonly currency: string | null;
  /** The day it is stated for (`YYYY-MM-DD`), when the file says. */
  readonly date: string | null;
}

/**
 * One section of the file about one account (camt `Stmt`/`Rpt`/`Ntfctn`, an MT940 message, a 1C
 * `СекцияРасчСчет`): its period and the balances it states, with the sums of its booked entries
 * that the balance check needs.
 */
export interface StatementSection {
  readonly account: string;
  /** First and last day the section covers (`YYYY-MM-DD`), when stated or known from its entries. */
  readonly from: string | null;
  readonly to: string | null;
  readonly opening: StatementBalance | null;
  readonly closing: StatementBalance | null;
  /** Sums of the section's booked credits and debits that could be read, 2 places. */
  readonly credits: string;
  readonly debits: string;
  /** Booked entries of the section whose amount could not be read: the balance check cannot close then. */
  readonly unreadable: number;
}

/** What the reader knows once the file has been read to its end. */
export interface StatementSummaryOfFile {
  readonly format: StatementFormat;
  /** The message version (`001.08`, `camt.053.001.08` → `001.08`), the 1C `ВерсияФормата`, or null. */
  readonly version: string | null;
  readonly sections: readonly StatementSection[];
}

/** A push reader of one format. */
export interface StatementReader {
  /** More of the file's text, in order. */
  write(text: string): void;
  /** The entries completed since the last call, in file order. */
  take(): StatementEntry[];
  /** The end of the file: throws when what was read is no statement; afterwards `take` gives the rest. */
  close(): void;
  /** After `close`. */
  summary(): StatementSummaryOfFile;
}

export interface StatementProblem {
  /** `too-large`: the body passed the size limit; `invalid`: it is not a statement the reader accepts. */
  readonly kind: 'too-large' | 'invalid';
  /** One sentence naming what is wrong and where, fit for the `400 STATEMENT_INVALID` detail. */
  readonly message: string;
  /** The 1-based entry at fault, when the fault is in one. */
  readonly entry: number | null;
  /** The element path (`Ntry/Amt`), field (`:61:`) or CSV column at fault, when there is one. */
  readonly element: string | null;
  /** Position in the file (1-based), when known. */
  readonly line: number | null;
  readonly column: number | null;
}

/** Thrown by the readers for a file that is no statement. */
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
