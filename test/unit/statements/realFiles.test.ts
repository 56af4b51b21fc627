import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkCsvProfile } from '../../../src/reconciliation/statements/csvProfile.js';
import { discard, encodingOf, entryBatches, readSpooled, spoolBody, spoolFolder, type StatementEntry } from '../../../src/reconciliation/statements/index.js';
import { countsOf } from './readAll.js';

/**
 * Every real bank file under test/fixtures/statements/real, as the upload takes it: bytes in,
 * encoding and format recognised from the content (a profile named for bank CSVs), every entry
 * read. The expected figures were counted by hand from each file (see each folder's SOURCES.md).
 */

interface Manifest {
  file: string;
  format: string;
  country: string;
  encoding: string;
  profile?: unknown;
  expected: { entries: number; credits: number; debits: number; other: number; unreadable: number; sections: number; firstCredit: Record<string, unknown> | null };
}

const root = new URL('../../fixtures/statements/real/', import.meta.url);
const folders = ['camt', 'mt940', 'onec', 'csv'];
const files = folders.flatMap((f) => (JSON.parse(readFileSync(new URL(`${f}/manifest.json`, root), 'utf8')) as Manifest[]).map((m) => ({ folder: f, ...m })));

describe('real bank files', () => {
  it('are at least 25, from at least 5 countries, in every format', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(new Set(files.map((f) => f.country)).size).toBeGreaterThanOrEqual(5);
    const formats = new Set(files.map((f) => f.format));
    for (const format of ['camt.052', 'camt.053', 'camt.054', 'mt940', 'mt942', '1c', 'csv-profile']) expect(formats, format).toContain(format);
  });

  it.each(files.map((f) => [`${f.folder}/${f.file}`, f] as const))('%s is recognised and read whole', async (_name, m) => {
    const bytes = readFileSync(new URL(`${m.folder}/${m.file}`, root));
    const profile = m.profile === undefined ? null : checkCsvProfile(m.profile);
    if (profile && !profile.ok) throw new Error(profile.why);
    const dir = await spoolFolder();
    try {
      const file = await spoolBody(Readable.from([bytes]), dir);
      expect(encodingOf(bytes.subarray(0, 8192), file.utf8, profile?.value.encoding ?? null).replace('latin1', 'iso-8859-1')).toBe(m.encoding === 'utf-8' ? 'utf-8' : m.encoding);
      const read = await readSpooled(file, profile?.value ?? null);
      expect(read.summary.format).toBe(m.format);
      const entries: StatementEntry[] = [];
      for await (const batch of entryBatches(read.entriesPath, 500)) entries.push(...batch);
      const { entries: n, credits, debits, other, unreadable } = countsOf(entries);
      expect({ entries: n, credits, debits, other, unreadable, sections: read.summary.sections.length }).toEqual({
        entries: m.expected.entries, credits: m.expected.credits, debits: m.expected.debits, other: m.expected.other, unreadable: m.expected.unreadable, sections: m.expected.sections,
      });
      const first = entries.find((e) => e.kind === 'credit' && e.problem === null) ?? null;
      if (m.expected.firstCredit === null) expect(first).toBeNull();
      else expect(first).toMatchObject(m.expected.firstCredit);
    } finally {
      await discard(dir);
    }
  });
});
