import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { discard, entryBatches, readSpooled, spoolBody, spoolFolder, STATEMENT_MAX_BYTES } from '../../../src/reconciliation/statements/index.js';

const ENTRIES = 50_000;

/** One booked entry as a bank writes it, about 950 bytes; every 10th is a debit. */
function entry(i: number): string {
  const direction = i % 10 === 9 ? 'DBIT' : 'CRDT';
  const cents = String(1000 + (i % 90_000)).padStart(3, '0');
  return `
<Ntry>
<Amt Ccy="EUR">${cents.slice(0, -2)}.${cents.slice(-2)}</Amt>
<CdtDbtInd>${direction}</CdtDbtInd>
<Sts>BOOK</Sts>
<BookgDt><DtTm>2026-03-02T${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}+01:00</DtTm></BookgDt>
<ValDt><Dt>2026-03-02</Dt></ValDt>
<AcctSvcrRef>BANK-${String(i).padStart(10, '0')}</AcctSvcrRef>
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls>
<TxDtls>
<Refs><EndToEndId>E2E-${i}</EndToEndId><TxId>TX-${i}</TxId></Refs>
<Amt Ccy="EUR">${cents.slice(0, -2)}.${cents.slice(-2)}</Amt>
<CdtDbtInd>${direction}</CdtDbtInd>
<RltdPties>
<Dbtr><Nm>Payer number ${i}</Nm><PstlAdr><Ctry>DE</Ctry><AdrLine>Hauptstrasse ${i % 200}</AdrLine></PstlAdr></Dbtr>
<DbtrAcct><Id><IBAN>DE02120300000000${String(i).padStart(6, '0')}</IBAN></Id></DbtrAcct>
</RltdPties>
<RltdAgts><DbtrAgt><FinInstnId><BIC>BYLADEM1001</BIC></FinInstnId></DbtrAgt></RltdAgts>
<RmtInf><Ustrd>ORD-${i} payment for order ${i}, thank you</Ustrd></RmtInf>
</TxDtls>
</NtryDtls>
<AddtlNtryInf>SEPA-GUTSCHRIFT</AddtlNtryInf>
</Ntry>`;
}

/** The file made as it is sent, a few entries per chunk: it never exists whole in memory. */
function* generatedStatement(): Generator<Buffer> {
  yield Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>BIG-1</MsgId><CreDtTm>2026-03-03T06:00:00+01:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>BIG-1-1</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>`,
  );
  let batch = '';
  for (let i = 0; i < ENTRIES; i++) {
    batch += entry(i);
    if (i % 16 === 15) {
      yield Buffer.from(batch);
      batch = '';
    }
  }
  yield Buffer.from(`${batch}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`);
}

describe('a 50 000-entry camt.053', () => {
  it('is spooled and read as a stream: every entry in order, the credits and debits counted, no temporary file left', async () => {
    const dir = await spoolFolder();
    try {
      const file = await spoolBody(Readable.from(generatedStatement()), dir);
      expect(file.bytes).toBeGreaterThan(40 * 1024 * 1024); // a file of the size the upload takes…
      expect(file.bytes).toBeLessThan(STATEMENT_MAX_BYTES); // …within its limit
      expect(file.utf8).toBe(true);
      const read = await readSpooled(file, null);
      expect(read.summary).toMatchObject({ format: 'camt.053', version: '001.08' });
      expect(read.entries).toBe(ENTRIES);
      let credits = 0;
      let debits = 0;
      let last = 0;
      const outOfOrder: number[] = [];
      let lastCredit = '';
      for await (const batch of entryBatches(read.entriesPath, 500)) {
        for (const e of batch) {
          if (e.index !== last + 1) outOfOrder.push(e.index);
          last = e.index;
          if (e.kind === 'credit') {
            credits += 1;
            lastCredit = e.bankReference!;
          } else if (e.kind === 'debit') debits += 1;
        }
      }
      expect(outOfOrder).toEqual([]);
      expect({ credits, debits }).toEqual({ credits: 45_000, debits: 5_000 });
      expect(lastCredit).toBe(`BANK-${String(ENTRIES - 2).padStart(10, '0')}`);
    } finally {
      await discard(dir);
    }
    expect(existsSync(dir)).toBe(false);
    // Some 40 MB of XML read in full: 10 s on a busy two-core machine, more when other suites share it.
  }, 120_000);

  it('stops reading past the limit', async () => {
    const dir = await spoolFolder();
    try {
      await expect(spoolBody(Readable.from(generatedStatement()), dir, 1024 * 1024)).rejects.toMatchObject({ problem: { kind: 'too-large' } });
    } finally {
      await discard(dir);
    }
  });
});
