import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import iconv from 'iconv-lite';
import type { CsvProfile } from '../../../src/reconciliation/statements/csvProfile.js';
import type { StatementEntry, StatementReader, StatementSection, StatementSummaryOfFile } from '../../../src/reconciliation/statements/types.js';

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

/** Consistent when every section stating both balances has opening + credits − debits = closing (and no unreadable amount). */
export function balanceCheckOf(sections: readonly StatementSection[]): 'consistent' | 'inconsistent' | 'not stated' {
  const stated = sections.filter((s) => s.opening !== null && s.closing !== null);
  if (stated.length === 0) return 'not stated';
  const closes = (s: StatementSection) => s.unreadable === 0 && new Decimal(s.opening!.amount).plus(s.credits).minus(s.debits).eq(s.closing!.amount);
  return stated.every(closes) ? 'consistent' : 'inconsistent';
}

/** One real bank file as its folder's manifest.json describes it (see the folder's SOURCES.md). */
export interface RealFile {
  file: string;
  format: string;
  version: string | null;
  country: string;
  bank: string;
  source: string;
  licence: string;
  encoding: string;
  profile?: CsvProfile;
  expected: {
    entries: number;
    credits: number;
    debits: number;
    other: number;
    unreadable: number;
    sections: number;
    balanceCheck: 'consistent' | 'inconsistent' | 'not stated';
    firstCredit: { amount: string; currency: string; receivedAt: string; bankReference: string | null; payer: string | null } | null;
  };
}

/** The real files of one folder under test/fixtures/statements/real, with their bytes and their text as a reader is given it. */
export function realFiles(folder: 'camt' | 'mt940' | 'onec' | 'csv') {
  const dir = new URL(`../../fixtures/statements/real/${folder}/`, import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', dir), 'utf8')) as RealFile[];
  const bytes = (m: RealFile) => readFileSync(new URL(m.file, dir));
  /** Decoded from its encoding, without a byte order mark. */
  const text = (m: RealFile) => iconv.decode(bytes(m), m.encoding).replace(/^\uFEFF/, '');
  return { manifest, bytes, text, find: (file: string) => manifest.find((m) => m.file === file)! };
}
