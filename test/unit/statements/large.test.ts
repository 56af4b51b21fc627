import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openStatement, STATEMENT_MAX_BYTES } from '../../../src/reconciliation/statements/index.js';

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
  it('is read as a stream, every entry counted and every credit yielded in order', async () => {
    let bytes = 0;
    const source = Readable.from(
      (function* () {
        for (const chunk of generatedStatement()) {
          bytes += chunk.length;
          yield chunk;
        }
      })(),
    );
    const stream = openStatement(source, 'camt');
    let credits = 0;
    let lastEntry = 0;
    let last = '';
    // Checked for every credit and asserted once: 45 000 expect() calls cost a second or more.
    const outOfOrder: { entry: number; after: number }[] = [];
    for await (const credit of stream) {
      credits += 1;
      if (!(credit.entry > lastEntry)) outOfOrder.push({ entry: credit.entry, after: lastEntry });
      lastEntry = credit.entry;
      last = credit.sourceId;
    }
    expect(outOfOrder).toEqual([]);
    expect(bytes).toBeGreaterThan(40 * 1024 * 1024); // a file of the size the upload takes…
    expect(bytes).toBeLessThan(STATEMENT_MAX_BYTES); // …within its limit
    expect(credits).toBe(45_000);
    expect(stream.totals).toEqual({ format: 'camt.053', entries: ENTRIES, credits: 45_000, skipped: 5_000 });
    expect(last).toBe(`BANK-${String(ENTRIES - 2).padStart(10, '0')}`);
  });
});
