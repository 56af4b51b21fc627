import type { StatementEntry, StatementReader, StatementSummaryOfFile } from '../../../src/reconciliation/statements/types.js';

/**
 * Pushes `text` through a reader in pieces of `chunk` characters (splitting tags, fields and
 * lines as a socket would) and answers every entry with the file's summary.
 */
export function readAll(reader: StatementReader, text: string, chunk = 64 * 1024): { entries: StatementEntry[]; summary: StatementSummaryOfFile } {
  const entries: StatementEntry[] = [];
  for (let i = 0; i < text.length; i += chunk) {
    reader.write(text.slice(i, i + chunk));
    entries.push(...reader.take());
  }
  reader.close();
  entries.push(...reader.take());
  return { entries, summary: reader.summary() };
}

/** Counts by what a person checks a file for. */
export function countsOf(entries: readonly StatementEntry[]) {
  return {
    entries: entries.length,
    credits: entries.filter((e) => e.kind === 'credit' && e.problem === null).length,
    debits: entries.filter((e) => e.kind === 'debit' && e.problem === null).length,
    other: entries.filter((e) => e.kind === 'other' && e.problem === null).length,
    unreadable: entries.filter((e) => e.problem !== null).length,
  };
}
