import { describe, expect, it } from 'vitest';
import { openStatement, readStatement, statementKindOf, StatementInvalidError } from '../../../src/reconciliation/statements/index.js';
import { body, brief, fixture, read, refusal } from './helpers.js';

const ns = (message: '053' | '054', version: number) => `urn:iso:std:iso:20022:tech:xsd:camt.${message}.001.0${version}`;
const ACCOUNT = '<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>';

/** A camt.053 of one statement holding `entries`, for the cases no bank file shows. */
function statement(entries: string, options: { namespace?: string; account?: string } = {}): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="${options.namespace ?? ns('053', 2)}"><BkToCstmrStmt>` +
    `<GrpHdr><MsgId>T-1</MsgId><CreDtTm>2026-03-02T10:00:00Z</CreDtTm></GrpHdr>` +
    `<Stmt><Id>T-1-1</Id>${options.account ?? ACCOUNT}${entries}</Stmt></BkToCstmrStmt></Document>\n`
  );
}

function entry(parts: { amount?: string; direction?: string; status?: string; booking?: string; ref?: string; details?: string } = {}): string {
  return (
    `<Ntry>${parts.ref ?? '<AcctSvcrRef>REF-1</AcctSvcrRef>'}${parts.amount ?? '<Amt Ccy="EUR">10.00</Amt>'}` +
    `<CdtDbtInd>${parts.direction ?? 'CRDT'}</CdtDbtInd>${parts.status ?? '<Sts>BOOK</Sts>'}` +
    `${parts.booking ?? '<BookgDt><Dt>2026-03-02</Dt></BookgDt>'}${parts.details ?? ''}</Ntry>`
  );
}

describe('camt statements of every version', () => {
  it.each([
    ['camt053-v02-sparkasse.xml', 'camt.053', 2, { entries: 3, credits: 2, skipped: 1 }],
    ['camt053-v03-nordic.xml', 'camt.053', 3, { entries: 2, credits: 2, skipped: 0 }],
    ['camt053-v04-swiss.xml', 'camt.053', 4, { entries: 3, credits: 3, skipped: 2 }],
    ['camt053-v05-two-accounts.xml', 'camt.053', 5, { entries: 4, credits: 3, skipped: 1 }],
    ['camt053-v06-no-references.xml', 'camt.053', 6, { entries: 3, credits: 3, skipped: 0 }],
    ['camt053-v07-batches.xml', 'camt.053', 7, { entries: 2, credits: 5, skipped: 0 }],
    ['camt053-v08-status-choice.xml', 'camt.053', 8, { entries: 6, credits: 2, skipped: 4 }],
    ['camt054-v02-notification.xml', 'camt.054', 2, { entries: 2, credits: 1, skipped: 1 }],
    ['camt054-v04-notification.xml', 'camt.054', 4, { entries: 1, credits: 1, skipped: 0 }],
    ['camt054-v08-batch.xml', 'camt.054', 8, { entries: 2, credits: 3, skipped: 0 }],
  ] as const)('%s is a %s in namespace 001.0%i with its counts, whatever the chunking', async (name, format, version, counts) => {
    const bytes = fixture(name);
    expect(bytes.toString('utf8')).toContain(`xmlns="${ns(format === 'camt.053' ? '053' : '054', version)}"`);
    const whole = await read(bytes, 'camt');
    expect(whole.totals).toEqual({ format, ...counts });
    expect(whole.credits).toHaveLength(counts.credits);
    // Pieces of 3 bytes split tags, entities and multi-byte characters (ü, Å) between chunks.
    expect(await read(bytes, 'camt', 3)).toEqual(whole);
  });

  it('v02: booked credits with date-only booking, a debit skipped, AmtDtls amounts, EndToEndId NOTPROVIDED falls to TxId', async () => {
    const { credits } = await read(fixture('camt053-v02-sparkasse.xml'), 'camt');
    expect(credits).toEqual([
      {
        sourceId: '2026030212345678901', // the entry's AcctSvcrRef comes before the transaction's EndToEndId
        account: 'DE89370400440532013000',
        amount: '918.00',
        currency: 'EUR',
        receivedAt: '2026-03-02T00:00:00.000Z',
        dateOnly: true,
        payer: 'Jürgen Müller',
        reference: 'ORD-7Q2M-118',
        entry: 1,
      },
      {
        sourceId: 'TX20260302000555',
        account: 'DE89370400440532013000',
        amount: '25.00', // written "25"
        currency: 'EUR',
        receivedAt: '2026-03-02T00:00:00.000Z',
        dateOnly: true,
        payer: 'Anna Schmidt & Co. KG',
        reference: 'Rechnung 2026-0042 Kundennr. 77', // two Ustrd lines joined
        entry: 3,
      },
    ]);
  });

  it('v03: Othr/Id account, NtryRef names the entry, booking time in UTC, Strd creditor reference', async () => {
    const { credits } = await read(fixture('camt053-v03-nordic.xml'), 'camt');
    expect(credits.map((c) => [c.sourceId, c.account, c.amount, c.currency, c.receivedAt, c.dateOnly, c.payer, c.reference])).toEqual([
      ['0001', '5001-4512 33', '4500.50', 'SEK', '2026-03-02T13:45:07.000Z', false, 'ÅSA LINDQVIST', 'RF18539007547034'],
      ['0002', '5001-4512 33', '120.00', 'SEK', '2026-03-02T16:01:00.000Z', false, null, null],
    ]);
  });

  it('v04: a batch entry is one credit per TxDtls with its own amount; pending and reversed entries are skipped', async () => {
    const { credits } = await read(fixture('camt053-v04-swiss.xml'), 'camt');
    expect(credits.map(brief)).toEqual([
      { sourceId: 'CH-TX-1000021-1', amount: '1000.00', currency: 'CHF', payer: 'Muster AG', reference: '210000000003139471430009017' },
      { sourceId: 'E2E-BRAVO', amount: '2000.00', currency: 'CHF', payer: 'Beispiel GmbH', reference: 'ORD-2000' },
      { sourceId: 'CH-TXID-3', amount: '600.00', currency: 'CHF', payer: null, reference: null },
    ]);
    expect(new Set(credits.map((c) => c.entry))).toEqual(new Set([1]));
  });

  it('v05: several statements in one file each credit their own account', async () => {
    const { credits } = await read(fixture('camt053-v05-two-accounts.xml'), 'camt');
    expect(credits.map((c) => [c.account, c.sourceId, c.amount, c.currency, c.receivedAt])).toEqual([
      ['NL91ABNA0417164300', 'NL-0302-000001', '150.00', 'EUR', '2026-03-02T08:30:00.000Z'],
      ['1234567890', 'USD-1', '2500.00', 'USD', '2026-03-02T15:20:00.000Z'],
      ['1234567890', 'USD-2', '10.00', 'USD', '2026-03-02T18:00:00.000Z'],
    ]);
  });

  it('v06: entries without any reference are named by a digest that is the same on every read, identical ones apart', async () => {
    const first = await read(fixture('camt053-v06-no-references.xml'), 'camt');
    const again = await read(fixture('camt053-v06-no-references.xml'), 'camt', 17);
    // Pinned: a changed digest would record a second credit when last month's file is uploaded again.
    const digest = 'sha256:35ce7f3a0ba758ba0897f3cd6b9f39eff22ddf5181b54bf1e44a7b7a26236217';
    expect(first.credits.map((c) => c.sourceId)).toEqual([digest, `${digest}:2`, expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
    expect(again.credits.map((c) => c.sourceId)).toEqual(first.credits.map((c) => c.sourceId));
    expect(first.credits[0]).toMatchObject({
      receivedAt: '2026-03-02T09:15:30.000Z', // 10:15:30+01:00
      dateOnly: false,
      payer: 'Maria Huber',
      reference: 'Bestellung ORD-AT-49',
    });
    expect(first.credits[2]).toMatchObject({ amount: '5.00', payer: null, reference: null, dateOnly: true });
  });

  it('the digest follows the entry: another amount, day or payer is another name', async () => {
    const base = entry({ ref: '', details: '<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>A</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>' });
    const name = async (e: string) => (await read(statement(e), 'camt')).credits[0].sourceId;
    const original = await name(base);
    expect(await name(base)).toBe(original);
    expect(await name(base.replace('10.00', '10.01'))).not.toBe(original);
    expect(await name(base.replace('2026-03-02', '2026-03-03'))).not.toBe(original);
    expect(await name(base.replace('<Nm>A</Nm>', '<Nm>B</Nm>'))).not.toBe(original);
  });

  it('v07: batch transactions without their own reference are the entry reference and their position', async () => {
    const { credits } = await read(fixture('camt053-v07-batches.xml'), 'camt');
    const ids = credits.map((c) => c.sourceId);
    expect(ids.slice(0, 3)).toEqual(['B-7001#1', 'FI-TX-2', 'B-7001#3']); // #1: EndToEndId NOTPROVIDED
    expect(ids[3]).toMatch(/^sha256:[0-9a-f]{64}#1$/); // an entry without a reference: its digest
    expect(ids[4]).toBe(ids[3].replace('#1', '#2'));
    expect(credits.map((c) => c.amount)).toEqual(['100.00', '120.00', '80.00', '30.00', '40.00']);
    expect(credits.map((c) => c.reference)).toEqual(['RF712348231', null, 'ORD-FI-80', null, null]);
  });

  it('v08: <Sts><Cd>BOOK</Cd></Sts> is booked, PDNG, INFO and proprietary statuses are not; Dbtr/Pty/Nm is the payer', async () => {
    const { credits } = await read(fixture('camt053-v08-status-choice.xml'), 'camt');
    expect(credits).toEqual([
      expect.objectContaining({
        sourceId: 'DB0302A0000000001',
        amount: '1999.00',
        receivedAt: '2026-03-02T10:04:59.123Z',
        dateOnly: false,
        payer: 'Global Trading Ltd',
        reference: 'ORD-DB-1999',
      }),
      // A time without a zone cannot be placed on the UTC line: its day stands for it. The
      // debtor's bank (Dbtr/Agt) is not the payer.
      expect.objectContaining({ sourceId: 'DB0302A0000000003', receivedAt: '2026-03-02T00:00:00.000Z', dateOnly: true, payer: null }),
    ]);
  });

  it('camt.054: notifications, Sts absent counts as booked, CDATA text, AmtDtls/TxAmt/Amt over InstdAmt, several accounts', async () => {
    const v02 = await read(fixture('camt054-v02-notification.xml'), 'camt');
    expect(v02.credits).toEqual([
      {
        sourceId: 'ING-54-000981',
        account: 'DE44500105175407324931',
        amount: '59.00',
        currency: 'EUR',
        receivedAt: '2026-03-02T14:44:58.000Z',
        dateOnly: false,
        payer: 'Peter Neumann',
        reference: 'ORD-54-59 <thanks>',
        entry: 1,
      },
    ]);
    const v04 = await read(fixture('camt054-v04-notification.xml'), 'camt');
    expect(v04.credits.map(brief)).toEqual([{ sourceId: 'PF-88-80', amount: '88.80', currency: 'CHF', payer: 'Hans Meier', reference: 'ORD-CH-8880' }]);
    const v08 = await read(fixture('camt054-v08-batch.xml'), 'camt');
    expect(v08.credits.map((c) => [c.account, c.sourceId, c.amount, c.currency, c.payer])).toEqual([
      ['BE68539007547034', 'BE-E2E-1', '100.25', 'EUR', 'Lotte Peeters'],
      ['BE68539007547034', 'BE-E2E-2', '75.00', 'EUR', 'Jan Janssens'],
      ['KZ86125KZT5004100100', 'KZ-1-000001', '45000.00', 'KZT', null],
    ]);
  });
});

describe('camt rules on entries', () => {
  it('RvslInd true or 1 is a reversal, false is not', async () => {
    const file = statement(
      entry({ ref: '<AcctSvcrRef>A</AcctSvcrRef>', details: '' }).replace('</CdtDbtInd>', '</CdtDbtInd><RvslInd>true</RvslInd>') +
        entry({ ref: '<AcctSvcrRef>B</AcctSvcrRef>' }).replace('</CdtDbtInd>', '</CdtDbtInd><RvslInd>1</RvslInd>') +
        entry({ ref: '<AcctSvcrRef>C</AcctSvcrRef>' }).replace('</CdtDbtInd>', '</CdtDbtInd><RvslInd>false</RvslInd>'),
    );
    const { totals, credits } = await read(file, 'camt');
    expect(totals).toMatchObject({ entries: 3, credits: 1, skipped: 2 });
    expect(credits.map((c) => c.sourceId)).toEqual(['C']);
  });

  it('a single transaction names the entry by Refs/AcctSvcrRef, then EndToEndId, then TxId when the entry has no reference', async () => {
    const tx = (refs: string) => entry({ ref: '', details: `<NtryDtls><TxDtls><Refs>${refs}</Refs></TxDtls></NtryDtls>` });
    const file = statement(
      tx('<AcctSvcrRef>BANK-1</AcctSvcrRef><EndToEndId>E2E-1</EndToEndId><TxId>TX-1</TxId>') +
        tx('<EndToEndId>E2E-2</EndToEndId><TxId>TX-2</TxId>') +
        tx('<EndToEndId>NOTPROVIDED</EndToEndId><TxId>TX-3</TxId>') +
        tx('<InstrId>I-4</InstrId>').replace('<Ntry>', '<Ntry><NtryRef>NTRY-4</NtryRef>'),
    );
    expect((await read(file, 'camt')).credits.map((c) => c.sourceId)).toEqual(['BANK-1', 'E2E-2', 'TX-3', 'NTRY-4']);
  });

  it('an amount with zeros past the 2nd place is exact; the entry amount wins for a single transaction', async () => {
    const file = statement(
      entry({ amount: '<Amt Ccy="EUR">1234.50000</Amt>', details: '<NtryDtls><TxDtls><Amt Ccy="EUR">1.00</Amt></TxDtls></NtryDtls>' }),
    );
    expect((await read(file, 'camt')).credits[0].amount).toBe('1234.50');
  });

  it('elements of other namespaces (supplementary data) are not read as the statement', async () => {
    const file = statement(
      entry({ details: '<NtryDtls><TxDtls><RltdPties><Dbtr><x:Nm xmlns:x="urn:other">Not me</x:Nm><Nm>Payer</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>' }),
    );
    expect((await read(file, 'camt')).credits[0].payer).toBe('Payer');
  });

  it('a statement without entries is a statement with nothing in it', async () => {
    expect((await read(statement(''), 'camt')).totals).toEqual({ format: 'camt.053', entries: 0, credits: 0, skipped: 0 });
  });
});

describe('files that are not statements are refused, naming what and where', () => {
  it.each([
    ['text', 'date,amount\n2026-03-02,10.00\n', /not well-formed XML/],
    ['JSON', '{"credits": []}', /not well-formed XML/],
    ['an empty body', '', /^the file is empty/],
    ['whitespace alone', ' \n\t\n', /^the file is empty/],
    ['an HTML page', '<html><body>Login</body></html>', /root element is <html> without a namespace/],
    ['a camt.052 account report', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"><BkToCstmrAcctRpt/></Document>', /camt\.052\.001\.08/],
    ['a pain.001 payment order', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>', /pain\.001\.001\.03/],
    ['camt.053 version 001.09', statement('', { namespace: ns('053', 9) }), /camt\.053\.001\.09/],
    ['camt.053 version 001.01', statement('', { namespace: ns('053', 1) }), /camt\.053\.001\.01/],
    ['a Document without a namespace', '<Document><BkToCstmrStmt/></Document>', /<Document> without a namespace/],
    ['a camt.053 namespace around a notification', statement('').replaceAll('BkToCstmrStmt', 'BkToCstmrDbtCdtNtfctn'), /expected <BkToCstmrStmt>/],
    ['a truncated file', statement(entry()).slice(0, -60), /not well-formed XML: unclosed tag/],
    ['two root elements', `${statement('')}<Document/>`, /not well-formed XML/],
  ])('%s', async (_what, file, message) => {
    const problem = await refusal(file, 'camt');
    expect(problem.kind).toBe('invalid');
    expect(problem.message).toMatch(message);
  });

  it('a statement without an account, naming the statement and its first entry', async () => {
    const problem = await refusal(statement(entry(), { account: '<Acct><Ccy>EUR</Ccy></Acct>' }), 'camt');
    expect(problem).toMatchObject({ entry: 1, element: 'Stmt/Acct' });
    expect(problem.message).toMatch(/^Stmt 1 has no account \(Acct\/Id\/IBAN or Acct\/Id\/Othr\/Id\)/);
    const second = await refusal(statement('').replace('</Stmt>', `</Stmt><Stmt><Id>2</Id></Stmt>`), 'camt');
    expect(second.message).toMatch(/^Stmt 2 has no account/);
  });

  it.each([
    ['an amount with a decimal comma', { amount: '<Amt Ccy="EUR">12,50</Amt>' }, 'Ntry/Amt', /entry 3: Ntry\/Amt "12,50" is not a decimal number \(line 2, column \d+\)/],
    ['a negative amount', { amount: '<Amt Ccy="EUR">-12.50</Amt>' }, 'Ntry/Amt', /"-12.50" is not a decimal number/],
    ['a debit with a non-decimal amount', { amount: '<Amt Ccy="EUR">ten</Amt>', direction: 'DBIT' }, 'Ntry/Amt', /entry 3: Ntry\/Amt "ten" is not a decimal/],
    ['an amount in thousandths', { amount: '<Amt Ccy="EUR">10.005</Amt>' }, 'Ntry/Amt', /"10.005" has more than 2 decimal places/],
    ['a zero credit', { amount: '<Amt Ccy="EUR">0.00</Amt>' }, 'Ntry/Amt', /"0.00" is not positive/],
    ['a credit without currency', { amount: '<Amt>10.00</Amt>' }, 'Ntry/Amt', /entry 3: Ntry\/Amt has no Ccy attribute/],
    ['a lower-case currency', { amount: '<Amt Ccy="eur">10.00</Amt>' }, 'Ntry/Amt', /Ccy "eur" is not an ISO 4217 code/],
    ['no amount', { amount: '' }, 'Ntry/Amt', /entry 3 has no Amt/],
    ['no CdtDbtInd', { direction: '' }, 'Ntry/CdtDbtInd', /entry 3: CdtDbtInd "" is neither CRDT nor DBIT/],
    ['a booked credit without a booking date', { booking: '' }, 'Ntry/BookgDt', /entry 3 is a booked credit without a booking date/],
    ['an impossible booking date', { booking: '<BookgDt><Dt>2026-02-30</Dt></BookgDt>' }, 'Ntry/BookgDt/Dt', /"2026-02-30" is not a date/],
    ['a booking time that is no time', { booking: '<BookgDt><DtTm>yesterday</DtTm></BookgDt>' }, 'Ntry/BookgDt/DtTm', /"yesterday" is not an ISO 8601 date-time/],
  ])('%s', async (_what, parts, element, message) => {
    const good = entry({ ref: '<AcctSvcrRef>OK</AcctSvcrRef>' });
    const problem = await refusal(statement(good + good + entry(parts)), 'camt');
    expect(problem).toMatchObject({ kind: 'invalid', entry: 3, element });
    expect(problem.message).toMatch(message);
  });

  it('a batch transaction without an amount, naming it', async () => {
    const details = '<NtryDtls><TxDtls><Amt Ccy="EUR">4.00</Amt></TxDtls><TxDtls><Refs><TxId>T2</TxId></Refs></TxDtls></NtryDtls>';
    const problem = await refusal(statement(entry({ details })), 'camt');
    expect(problem).toMatchObject({ entry: 1, element: 'Ntry/NtryDtls/TxDtls[2]' });
    expect(problem.message).toMatch(/entry 1: transaction 2 of 2 has no amount \(Amt or AmtDtls\/TxAmt\/Amt\)/);
  });

  it('a batch transaction with a bad amount, naming its element', async () => {
    const details = '<NtryDtls><TxDtls><Amt Ccy="EUR">4.00</Amt></TxDtls><TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">4.0.0</Amt></TxAmt></AmtDtls></TxDtls></NtryDtls>';
    const problem = await refusal(statement(entry({ details })), 'camt');
    expect(problem.element).toBe('Ntry/NtryDtls/TxDtls[2]/AmtDtls/TxAmt/Amt');
  });

  it('bytes that are not UTF-8', async () => {
    const latin1 = Buffer.from(statement(entry({ details: '<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Müller</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>' })), 'latin1');
    expect((await refusal(latin1, 'camt')).message).toMatch(/not UTF-8/);
  });

  it('a file over the size limit is too large, not invalid', async () => {
    const problem = await refusal(fixture('camt053-v02-sparkasse.xml'), 'camt', { maxBytes: 1024 });
    expect(problem).toMatchObject({ kind: 'too-large' });
    expect(problem.message).toMatch(/larger than 1024 bytes/);
  });
});

describe('DTDs and entities', () => {
  const withDoctype = (doctype: string, payer: string) =>
    statement(entry({ details: `<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>` })).replace(
      '<Document',
      `${doctype}\n<Document`,
    );

  it.each([
    ['an external entity (XXE)', '<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', '&xxe;'],
    ['an external DTD', '<!DOCTYPE Document SYSTEM "http://127.0.0.1:1/camt.dtd">', 'x'],
    ['nested internal entities (billion laughs)', '<!DOCTYPE Document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>', '&b;'],
    ['a bare DOCTYPE', '<!DOCTYPE Document>', 'x'],
  ])('a DOCTYPE is refused: %s', async (_what, doctype, payer) => {
    const problem = await refusal(withDoctype(doctype, payer), 'camt');
    expect(problem.message).toMatch(/^a DOCTYPE is not accepted in a statement/);
  });

  it('an undeclared entity is refused and the predefined ones and character references are text', async () => {
    expect((await refusal(withDoctype('', '&xxe;'), 'camt')).message).toMatch(/not well-formed XML: undefined entity/);
    const { credits } = await read(withDoctype('', 'O&apos;Brien &amp; S&#246;hne &#x263A;'), 'camt');
    expect(credits[0].payer).toBe("O'Brien & Söhne ☺");
  });
});

describe('recording a file whole or not at all', () => {
  const faultAfterTwoCredits = statement(entry({ ref: '<AcctSvcrRef>A</AcctSvcrRef>' }) + entry({ ref: '<AcctSvcrRef>B</AcctSvcrRef>' }) + entry({ amount: '<Amt Ccy="EUR">x</Amt>' }));

  it('readStatement answers the problem and no credits', async () => {
    const result = await readStatement(body(faultAfterTwoCredits), 'camt');
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('credits');
    if (!result.ok) expect(result.problem).toMatchObject({ kind: 'invalid', entry: 3, element: 'Ntry/Amt' });
  });

  it('openStatement yields as it reads and throws before it ends, so a caller in a transaction rolls back', async () => {
    const stream = openStatement(body(faultAfterTwoCredits, 40), 'camt');
    const recorded: string[] = [];
    const failure = await (async () => {
      for await (const credit of stream) recorded.push(credit.sourceId);
    })().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StatementInvalidError);
    expect((failure as StatementInvalidError).problem.entry).toBe(3);
    expect(recorded).toEqual(['A', 'B']);
    expect(stream.totals).toBeNull();
  });

  it('leaves the body open after a fault, for the caller to answer on its connection and drain', async () => {
    const source = body(faultAfterTwoCredits + '\n'.repeat(4096), 64);
    const result = await readStatement(source, 'camt');
    expect(result.ok).toBe(false);
    expect(source.destroyed).toBe(false);
    let rest = 0;
    for await (const chunk of source) rest += (chunk as Buffer).length;
    expect(rest).toBeGreaterThan(1024); // what the reader had not read
  });

  it('totals are there once the stream has ended, and a stream reads once', async () => {
    const stream = openStatement(body(fixture('camt053-v05-two-accounts.xml')), 'camt');
    let n = 0;
    for await (const _credit of stream) n += 1;
    expect(n).toBe(3);
    expect(stream.totals).toEqual({ format: 'camt.053', entries: 4, credits: 3, skipped: 1 });
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/once/);
  });
});

describe('statementKindOf', () => {
  it.each([
    ['application/xml', 'camt'],
    ['text/xml; charset=utf-8', 'camt'],
    ['Application/XML', 'camt'],
    ['text/csv', 'csv'],
    ['text/csv; charset=UTF-8; header=present', 'csv'],
    ['application/json', null],
    ['application/octet-stream', null],
    [undefined, null],
  ] as const)('%s → %s', (type, kind) => {
    expect(statementKindOf(type)).toBe(kind);
  });
});
