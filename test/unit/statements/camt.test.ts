import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CamtReader } from '../../../src/reconciliation/statements/camt.js';
import { StatementInvalidError, type StatementEntry, type StatementProblem, type StatementSummaryOfFile } from '../../../src/reconciliation/statements/types.js';
import { balanceCheckOf, countsOf, readAll, realFiles } from './readAll.js';

type Message = '052' | '053' | '054';
const ROOTS = { '052': ['BkToCstmrAcctRpt', 'Rpt'], '053': ['BkToCstmrStmt', 'Stmt'], '054': ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'] } as const;
const FORMATS = { '052': 'camt.052', '053': 'camt.053', '054': 'camt.054' } as const;
const VERSIONS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

const ns = (message: Message, version: number) => `urn:iso:std:iso:20022:tech:xsd:camt.${message}.001.${String(version).padStart(2, '0')}`;
const ACCOUNT = '<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>';

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/statements/${name}`, import.meta.url), 'utf8');
}

function read(text: string, chunk?: number): { entries: StatementEntry[]; summary: StatementSummaryOfFile } {
  return readAll(new CamtReader(), text, chunk);
}

/** The problem a file is refused with; the same whatever the chunking. */
function refusal(text: string): StatementProblem {
  const attempt = (chunk?: number): StatementProblem => {
    try {
      read(text, chunk);
    } catch (err) {
      if (err instanceof StatementInvalidError) return err.problem;
      throw err;
    }
    throw new Error('expected the file to be refused');
  };
  const whole = attempt();
  const pieces = attempt(5);
  expect({ element: pieces.element, kind: pieces.kind }).toEqual({ element: whole.element, kind: whole.kind });
  return whole;
}

/** A message holding `sections`, for the cases no bank file shows. */
function doc(sections: string, o: { message?: Message; version?: number; namespace?: string } = {}): string {
  const message = o.message ?? '053';
  const root = ROOTS[message][0];
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="${o.namespace ?? ns(message, o.version ?? 2)}"><${root}>` +
    `<GrpHdr><MsgId>T-1</MsgId><CreDtTm>2026-03-02T10:00:00Z</CreDtTm></GrpHdr>${sections}</${root}></Document>\n`
  );
}

function section(body: string, o: { message?: Message; account?: string } = {}): string {
  const name = ROOTS[o.message ?? '053'][1];
  return `<${name}><Id>S-1</Id>${o.account ?? ACCOUNT}${body}</${name}>`;
}

const statement = (entries: string, o: { message?: Message; version?: number; namespace?: string; account?: string } = {}) =>
  doc(section(entries, o), o);

interface EntryParts {
  ref?: string;
  amount?: string;
  direction?: string;
  reversal?: string;
  status?: string;
  booking?: string;
  value?: string;
  details?: string;
}

function entry(p: EntryParts = {}): string {
  return (
    `<Ntry>${p.ref ?? '<AcctSvcrRef>REF-1</AcctSvcrRef>'}${p.amount ?? '<Amt Ccy="EUR">10.00</Amt>'}` +
    `${p.direction ?? '<CdtDbtInd>CRDT</CdtDbtInd>'}${p.reversal ?? ''}${p.status ?? '<Sts>BOOK</Sts>'}` +
    `${p.booking ?? '<BookgDt><Dt>2026-03-02</Dt></BookgDt>'}${p.value ?? ''}${p.details ?? ''}</Ntry>`
  );
}

const details = (...txs: string[]) => `<NtryDtls>${txs.join('')}</NtryDtls>`;
const tx = (inner: string) => `<TxDtls>${inner}</TxDtls>`;

const balance = (code: string, amount: string, direction = 'CRDT', date = '<Dt><Dt>2026-03-02</Dt></Dt>') =>
  `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>${date}</Bal>`;

const firstCredit = (entries: StatementEntry[]) => entries.find((e) => e.kind === 'credit' && e.problem === null) ?? null;

// ---------------------------------------------------------------------------------------------

describe('every message and version from 001.02 to 001.13', () => {
  // Each version in its own shapes: Sts a code up to 001.07 and a choice from 001.08, the debtor
  // Dbtr/Nm up to 001.07 and Dbtr/Pty/Nm from 001.08, TxDtls/Amt from 001.03 (AmtDtls before).
  const status = (v: number, code: string) => (v < 8 ? `<Sts>${code}</Sts>` : `<Sts><Cd>${code}</Cd></Sts>`);
  const debtor = (v: number, name: string) => (v < 8 ? `<Dbtr><Nm>${name}</Nm></Dbtr>` : `<Dbtr><Pty><Nm>${name}</Nm></Pty></Dbtr>`);
  const txAmount = (v: number, amount: string) =>
    v < 3 ? `<AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls>` : `<Amt Ccy="EUR">${amount}</Amt>`;
  const file = (message: Message, v: number) =>
    statement(
      entry({
        amount: '<Amt Ccy="EUR">30.00</Amt>',
        status: status(v, 'BOOK'),
        details: details(
          tx(`<Refs><EndToEndId>E-1</EndToEndId></Refs>${txAmount(v, '10.00')}<RltdPties>${debtor(v, 'Anna')}</RltdPties>`),
          tx(`<Refs><EndToEndId>E-2</EndToEndId></Refs>${txAmount(v, '20.00')}<RltdPties>${debtor(v, 'Ben')}</RltdPties>`),
        ),
      }) +
        entry({ status: status(v, 'PDNG'), ref: '<AcctSvcrRef>P-1</AcctSvcrRef>' }) +
        entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>', status: status(v, 'BOOK'), ref: '<AcctSvcrRef>D-1</AcctSvcrRef>' }),
      { message, version: v },
    );

  const cases = (['052', '053', '054'] as const).flatMap((m) => VERSIONS.map((v) => [m, v] as const));
  it.each(cases)('camt.%s.001.%i is recognised and read in its own shapes', (message, v) => {
    const { entries, summary } = read(file(message, v));
    expect(summary.format).toBe(FORMATS[message]);
    expect(summary.version).toBe(`001.${String(v).padStart(2, '0')}`);
    expect(entries.map((e) => [e.kind, e.amount, e.payer, e.sourceId])).toEqual([
      ['credit', '10.00', 'Anna', 'E-1'],
      ['credit', '20.00', 'Ben', 'E-2'],
      ['other', '10.00', null, null],
      ['debit', '10.00', null, null],
    ]);
    expect(summary.sections).toHaveLength(1);
    expect(summary.sections[0]).toMatchObject({ account: 'DE89370400440532013000', credits: '30.00', debits: '10.00', unreadable: 0 });
  });

  it.each([
    ['camt.053.001.01', ns('053', 1)],
    ['camt.053.001.14', ns('053', 14)],
    ['camt.052.001.1', 'urn:iso:std:iso:20022:tech:xsd:camt.052.001.1'],
    ['camt.055.001.08', 'urn:iso:std:iso:20022:tech:xsd:camt.055.001.08'],
    ['pain.001.001.03', 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03'],
  ])('%s is refused', (name, namespace) => {
    expect(refusal(statement('', { namespace })).message).toContain(name);
  });
});

describe('the bank files of the test suite (synthetic, one per bank habit)', () => {
  it.each([
    ['camt053-v02-sparkasse.xml', 'camt.053', '001.02', { entries: 3, credits: 2, debits: 1, other: 0, unreadable: 0 }],
    ['camt053-v03-nordic.xml', 'camt.053', '001.03', { entries: 2, credits: 2, debits: 0, other: 0, unreadable: 0 }],
    ['camt053-v04-swiss.xml', 'camt.053', '001.04', { entries: 5, credits: 3, debits: 0, other: 2, unreadable: 0 }],
    ['camt053-v05-two-accounts.xml', 'camt.053', '001.05', { entries: 4, credits: 3, debits: 1, other: 0, unreadable: 0 }],
    ['camt053-v06-no-references.xml', 'camt.053', '001.06', { entries: 3, credits: 3, debits: 0, other: 0, unreadable: 0 }],
    ['camt053-v07-batches.xml', 'camt.053', '001.07', { entries: 5, credits: 5, debits: 0, other: 0, unreadable: 0 }],
    ['camt053-v08-status-choice.xml', 'camt.053', '001.08', { entries: 6, credits: 2, debits: 1, other: 3, unreadable: 0 }],
    ['camt054-v02-notification.xml', 'camt.054', '001.02', { entries: 2, credits: 1, debits: 1, other: 0, unreadable: 0 }],
    ['camt054-v04-notification.xml', 'camt.054', '001.04', { entries: 1, credits: 1, debits: 0, other: 0, unreadable: 0 }],
    ['camt054-v08-batch.xml', 'camt.054', '001.08', { entries: 3, credits: 3, debits: 0, other: 0, unreadable: 0 }],
  ] as const)('%s is a %s %s with its counts, the same in 1-character chunks', (name, format, version, counts) => {
    const text = fixture(name);
    const whole = read(text);
    expect(whole.summary).toMatchObject({ format, version });
    expect(countsOf(whole.entries)).toEqual(counts);
    // One character at a time splits every tag, attribute, entity and ü.
    expect(read(text, 1)).toEqual(whole);
  });

  it('v02: date-only bookings, the entry AcctSvcrRef as bank reference, EndToEndId NOTPROVIDED falls to TxId, stated balances and period', () => {
    const { entries, summary } = read(fixture('camt053-v02-sparkasse.xml'));
    expect(entries).toEqual([
      {
        index: 1,
        kind: 'credit',
        account: 'DE89370400440532013000',
        amount: '918.00',
        currency: 'EUR',
        receivedAt: '2026-03-02T00:00:00.000Z',
        dateOnly: true,
        payer: 'Jürgen Müller',
        reference: 'ORD-7Q2M-118',
        bankReference: '2026030212345678901',
        sourceId: 'ORD-7Q2M-118',
        problem: null,
      },
      expect.objectContaining({ index: 2, kind: 'debit', amount: '12.90', bankReference: '2026030212345678902', problem: null }),
      expect.objectContaining({
        index: 3,
        kind: 'credit',
        amount: '25.00', // written "25"
        payer: 'Anna Schmidt & Co. KG',
        reference: 'Rechnung 2026-0042 Kundennr. 77', // two Ustrd lines joined
        bankReference: null,
        sourceId: 'TX20260302000555',
      }),
    ]);
    expect(summary.sections).toEqual([
      {
        account: 'DE89370400440532013000',
        from: '2026-03-02',
        to: '2026-03-02',
        opening: { amount: '10234.50', currency: 'EUR', date: '2026-03-01' }, // PRCD, there being no OPBD
        closing: { amount: '11058.25', currency: 'EUR', date: '2026-03-02' },
        credits: '943.00',
        debits: '12.90',
        unreadable: 0,
      },
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
  });

  it('v03: Othr/Id account, NtryRef for people, the transaction AcctSvcrRef for the bank, booking time in UTC, Strd creditor reference', () => {
    const { entries } = read(fixture('camt053-v03-nordic.xml'));
    expect(entries.map((e) => [e.sourceId, e.bankReference, e.account, e.amount, e.currency, e.receivedAt, e.dateOnly, e.payer, e.reference])).toEqual([
      ['0001', 'SE-TX-88121', '5001-4512 33', '4500.50', 'SEK', '2026-03-02T13:45:07.000Z', false, 'ÅSA LINDQVIST', 'RF18539007547034'],
      ['0002', null, '5001-4512 33', '120.00', 'SEK', '2026-03-02T16:01:00.000Z', false, null, null],
    ]);
  });

  it('v04: a batch entry is one credit per TxDtls with its own amount and bank reference; pending and reversed entries are other', () => {
    const { entries, summary } = read(fixture('camt053-v04-swiss.xml'));
    expect(entries.map((e) => [e.kind, e.amount, e.payer, e.reference, e.bankReference, e.sourceId])).toEqual([
      ['credit', '1000.00', 'Muster AG', '210000000003139471430009017', 'CH-TX-1000021-1', 'E2E-ALPHA'],
      ['credit', '2000.00', 'Beispiel GmbH', 'ORD-2000', 'CH-BATCH-1000021', 'E2E-BRAVO'],
      ['credit', '600.00', null, null, 'CH-BATCH-1000021', 'CH-TXID-3'],
      ['other', '75.00', null, null, 'CH-PDNG-77', null],
      ['other', '450.00', null, null, 'CH-RVSL-9', null],
    ]);
    // The booked reversal counts in the sums by its direction; the pending entry does not.
    expect(summary.sections[0]).toMatchObject({ credits: '4050.00', debits: '0.00', from: '2026-03-02', to: '2026-03-02' });
  });

  it('v05: several statements in one file, each entry on its own account, one section each', () => {
    const { entries, summary } = read(fixture('camt053-v05-two-accounts.xml'));
    expect(entries.map((e) => [e.kind, e.account, e.sourceId, e.bankReference, e.amount, e.currency, e.receivedAt])).toEqual([
      ['credit', 'NL91ABNA0417164300', 'EUR-1', 'NL-0302-000001', '150.00', 'EUR', '2026-03-02T08:30:00.000Z'],
      ['debit', 'NL91ABNA0417164300', 'EUR-2', 'NL-0302-000002', '99.99', 'EUR', '2026-03-02T09:00:00.000Z'],
      ['credit', '1234567890', 'USD-1', null, '2500.00', 'USD', '2026-03-02T15:20:00.000Z'],
      ['credit', '1234567890', 'USD-2', null, '10.00', 'USD', '2026-03-02T18:00:00.000Z'],
    ]);
    expect(summary.sections.map((s) => [s.account, s.credits, s.debits, s.from, s.to])).toEqual([
      ['NL91ABNA0417164300', '150.00', '99.99', '2026-03-02', '2026-03-02'],
      ['1234567890', '2510.00', '0.00', '2026-03-02', '2026-03-02'],
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('not stated');
  });

  it('v06: entries without any reference have neither bank reference nor source id (the caller decides identity)', () => {
    const { entries } = read(fixture('camt053-v06-no-references.xml'));
    expect(entries.map((e) => [e.bankReference, e.sourceId, e.amount])).toEqual([
      [null, null, '49.90'],
      [null, null, '49.90'],
      [null, null, '5.00'],
    ]);
    expect(entries[0]).toMatchObject({ receivedAt: '2026-03-02T09:15:30.000Z', dateOnly: false, payer: 'Maria Huber', reference: 'Bestellung ORD-AT-49' });
    expect(entries[2]).toMatchObject({ payer: null, reference: null, dateOnly: true });
  });

  it('v07: batch transactions carry the entry NtryRef for people and their own amounts', () => {
    const { entries } = read(fixture('camt053-v07-batches.xml'));
    expect(entries.map((e) => [e.sourceId, e.amount, e.reference])).toEqual([
      ['B-7001', '100.00', 'RF712348231'],
      ['B-7001', '120.00', null],
      ['B-7001', '80.00', 'ORD-FI-80'],
      [null, '30.00', null],
      [null, '40.00', null],
    ]);
  });

  it('v08: <Sts><Cd>BOOK</Cd></Sts> is booked; PDNG, INFO and proprietary statuses are other; Dbtr/Pty/Nm is the payer, Dbtr/Agt is not', () => {
    const { entries, summary } = read(fixture('camt053-v08-status-choice.xml'));
    expect(entries.map((e) => [e.kind, e.bankReference, e.receivedAt, e.dateOnly, e.payer])).toEqual([
      ['credit', 'DB0302A0000000001', '2026-03-02T10:04:59.123Z', false, 'Global Trading Ltd'],
      ['other', 'DB0302A0000000002', '2026-03-03T00:00:00.000Z', true, null], // pending: its value date
      // A time without a zone cannot be placed on the UTC line: its day stands for it.
      ['credit', 'DB0302A0000000003', '2026-03-02T00:00:00.000Z', true, null],
      ['debit', 'DB0302A0000000004', '2026-03-02T00:00:00.000Z', true, null],
      ['other', 'DB0302A0000000005', '2026-03-02T00:00:00.000Z', true, null],
      ['other', 'DB0302A0000000006', null, false, null],
    ]);
    expect(summary.sections[0]).toMatchObject({ credits: '2041.00', debits: '7.50', unreadable: 0 });
  });

  it('camt.054: Sts absent is booked, CDATA text, AmtDtls/TxAmt/Amt over InstdAmt, several accounts', () => {
    const v02 = read(fixture('camt054-v02-notification.xml'));
    expect(v02.entries[0]).toEqual({
      index: 1,
      kind: 'credit',
      account: 'DE44500105175407324931',
      amount: '59.00',
      currency: 'EUR',
      receivedAt: '2026-03-02T14:44:58.000Z',
      dateOnly: false,
      payer: 'Peter Neumann',
      reference: 'ORD-54-59 <thanks>',
      bankReference: 'ING-54-000981',
      sourceId: 'ORD-54-59',
      problem: null,
    });
    const v04 = read(fixture('camt054-v04-notification.xml'));
    expect(v04.entries.map((e) => [e.bankReference, e.amount, e.payer, e.reference])).toEqual([['PF-TX-88-80', '88.80', 'Hans Meier', 'ORD-CH-8880']]);
    const v08 = read(fixture('camt054-v08-batch.xml'));
    expect(v08.entries.map((e) => [e.account, e.sourceId, e.bankReference, e.amount, e.currency, e.payer])).toEqual([
      ['BE68539007547034', 'BE-BATCH-1', null, '100.25', 'EUR', 'Lotte Peeters'],
      ['BE68539007547034', 'BE-BATCH-1', null, '75.00', 'EUR', 'Jan Janssens'],
      ['KZ86125KZT5004100100', null, 'KZ-1-000001', '45000.00', 'KZT', null],
    ]);
    expect(v08.summary.sections.map((s) => s.account)).toEqual(['BE68539007547034', 'KZ86125KZT5004100100']);
  });
});

describe('rules on entries', () => {
  it('kinds: booked CRDT is a credit, booked DBIT a debit, reversals, pending, information and future entries are other', () => {
    const cases = [
      entry(), // BOOK CRDT
      entry({ status: '' }), // no Sts: booked
      entry({ reversal: '<RvslInd>true</RvslInd>' }),
      entry({ reversal: '<RvslInd>1</RvslInd>' }),
      entry({ reversal: '<RvslInd>false</RvslInd>' }),
      entry({ status: '<Sts>PDNG</Sts>' }),
      entry({ status: '<Sts>INFO</Sts>' }),
      entry({ status: '<Sts>FUTR</Sts>' }),
      entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>' }),
      entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>', reversal: '<RvslInd>true</RvslInd>' }),
      entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>', status: '<Sts>PDNG</Sts>' }),
    ];
    const { entries, summary } = read(statement(cases.join('')));
    expect(entries.map((e) => e.kind)).toEqual(['credit', 'credit', 'other', 'other', 'credit', 'other', 'other', 'other', 'debit', 'other', 'other']);
    expect(entries.every((e) => e.problem === null)).toBe(true);
    // Booked entries count by direction, reversal or not: 5 CRDT and 2 DBIT of 10.00.
    expect(summary.sections[0]).toMatchObject({ credits: '50.00', debits: '20.00', unreadable: 0 });
  });

  it('Sts/Prtry is never booked', () => {
    const { entries } = read(statement(entry({ status: '<Sts><Prtry>BOOK</Prtry></Sts>' }), { version: 8 }));
    expect(entries[0].kind).toBe('other');
  });

  it('one entry per TxDtls only for a credit of several; a single transaction gives the entry amount; a debit batch is one debit', () => {
    const two = details(tx('<Amt Ccy="EUR">4.00</Amt>'), tx('<AmtDtls><TxAmt><Amt Ccy="EUR">6.00</Amt></TxAmt></AmtDtls>'));
    const { entries } = read(
      statement(
        entry({ details: two }) +
          entry({ amount: '<Amt Ccy="EUR">1234.50000</Amt>', details: details(tx('<Amt Ccy="EUR">1.00</Amt>')) }) +
          entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>', details: two }) +
          entry({ status: '<Sts>PDNG</Sts>', details: two }),
      ),
    );
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['credit', '4.00'],
      ['credit', '6.00'],
      ['credit', '1234.50'],
      ['debit', '10.00'],
      ['other', '10.00'],
    ]);
  });

  it('the account is the section IBAN or Othr/Id', () => {
    const iban = read(statement(entry()));
    const other = read(statement(entry(), { account: '<Acct><Id><Othr><Id>40817810099910004312</Id></Othr></Id></Acct>' }));
    expect([iban.entries[0].account, other.entries[0].account]).toEqual(['DE89370400440532013000', '40817810099910004312']);
    expect(other.summary.sections[0].account).toBe('40817810099910004312');
  });

  it('reference: Ustrd lines joined by a space, else the structured creditor references', () => {
    const rmt = (inner: string) => entry({ details: details(tx(`<RmtInf>${inner}</RmtInf>`)) });
    const { entries } = read(
      statement(
        rmt('<Ustrd>Invoice 7</Ustrd><Ustrd>order ORD-1</Ustrd><Strd><CdtrRefInf><Ref>RF18</Ref></CdtrRefInf></Strd>') +
          rmt('<Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd><Strd><CdtrRefInf><Ref>RF99</Ref></CdtrRefInf></Strd>') +
          rmt(''),
      ),
    );
    expect(entries.map((e) => e.reference)).toEqual(['Invoice 7 order ORD-1', 'RF18539007547034 RF99', null]);
  });

  it("payer: the debtor's name, in either shape; the debtor's bank and the ultimate debtor are not the payer", () => {
    const parties = (inner: string) => entry({ details: details(tx(`<RltdPties>${inner}</RltdPties>`)) });
    const { entries } = read(
      statement(
        parties('<UltmtDbtr><Nm>Ultimate</Nm></UltmtDbtr><Dbtr><Nm>Plain</Nm></Dbtr>') +
          parties('<Dbtr><Pty><Nm>Party</Nm></Pty></Dbtr>') +
          parties('<Dbtr><Agt><FinInstnId><Nm>Bank</Nm></FinInstnId></Agt></Dbtr>') +
          parties('<Cdtr><Nm>Us</Nm></Cdtr>'),
      ),
    );
    expect(entries.map((e) => e.payer)).toEqual(['Plain', 'Party', null, null]);
  });

  it('receivedAt: booking date-time, booking date, else the value date; a zoneless time is its date alone', () => {
    const { entries } = read(
      statement(
        entry({ booking: '<BookgDt><DtTm>2026-03-02T10:15:30+01:00</DtTm></BookgDt>' }) +
          entry({ booking: '<BookgDt><DtTm>2026-03-02T23:30:00</DtTm></BookgDt>' }) +
          entry({ booking: '<BookgDt><Dt>2026-03-02</Dt></BookgDt>', value: '<ValDt><Dt>2026-03-04</Dt></ValDt>' }) +
          entry({ booking: '', value: '<ValDt><Dt>2026-03-04</Dt></ValDt>' }) +
          entry({ booking: '', value: '<ValDt><DtTm>2026-03-04T08:00:00Z</DtTm></ValDt>' }),
      ),
    );
    expect(entries.map((e) => [e.receivedAt, e.dateOnly])).toEqual([
      ['2026-03-02T09:15:30.000Z', false],
      ['2026-03-02T00:00:00.000Z', true],
      ['2026-03-02T00:00:00.000Z', true],
      ['2026-03-04T00:00:00.000Z', true],
      ['2026-03-04T08:00:00.000Z', false],
    ]);
  });

  it('bankReference: the transaction AcctSvcrRef, else the entry one, else null; other references never', () => {
    const refs = (entryRef: string, txRefs: string) => entry({ ref: entryRef, details: details(tx(`<Refs>${txRefs}</Refs>`)) });
    const { entries } = read(
      statement(
        refs('<AcctSvcrRef>ENTRY</AcctSvcrRef>', '<AcctSvcrRef>TX</AcctSvcrRef><EndToEndId>E2E</EndToEndId>') +
          refs('<AcctSvcrRef>ENTRY</AcctSvcrRef>', '<EndToEndId>E2E</EndToEndId>') +
          refs('<NtryRef>N-1</NtryRef>', '<EndToEndId>E2E</EndToEndId><TxId>T</TxId><InstrId>I</InstrId>'),
      ),
    );
    expect(entries.map((e) => e.bankReference)).toEqual(['TX', 'ENTRY', null]);
  });

  it('sourceId: NtryRef, else EndToEndId unless NOTPROVIDED, else TxId, else null', () => {
    const refs = (entryRef: string, txRefs: string) => entry({ ref: entryRef, details: details(tx(`<Refs>${txRefs}</Refs>`)) });
    const { entries } = read(
      statement(
        refs('<NtryRef>N-1</NtryRef><AcctSvcrRef>A</AcctSvcrRef>', '<EndToEndId>E2E-1</EndToEndId>') +
          refs('', '<EndToEndId>E2E-2</EndToEndId><TxId>TX-2</TxId>') +
          refs('', '<EndToEndId>NOTPROVIDED</EndToEndId><TxId>TX-3</TxId>') +
          refs('', '<EndToEndId>notprovided</EndToEndId>') +
          refs('<AcctSvcrRef>A</AcctSvcrRef>', '<InstrId>I</InstrId>'),
      ),
    );
    expect(entries.map((e) => e.sourceId)).toEqual(['N-1', 'E2E-2', 'TX-3', null, null]);
  });

  it('elements of other namespaces (supplementary data) are not read as the message', () => {
    const payer = '<RltdPties><Dbtr><x:Nm xmlns:x="urn:other">Not me</x:Nm><Nm>Payer</Nm></Dbtr></RltdPties>';
    const { entries } = read(statement(entry({ details: details(tx(payer)) })));
    expect(entries[0].payer).toBe('Payer');
  });

  it('a prefixed namespace reads the same as the default one', () => {
    const plain = statement(entry());
    const prefixed = plain.replace(/<(\/?)([A-Z])/g, '<$1c:$2').replace('xmlns=', 'xmlns:c=');
    expect(read(prefixed)).toEqual(read(plain));
  });

  it('a section without entries is a section with nothing in it', () => {
    const { entries, summary } = read(statement(''));
    expect(entries).toEqual([]);
    expect(summary.sections).toEqual([
      { account: 'DE89370400440532013000', from: null, to: null, opening: null, closing: null, credits: '0.00', debits: '0.00', unreadable: 0 },
    ]);
  });
});

describe('partial files: an entry that cannot be read is an entry with a problem, and reading goes on', () => {
  const good = (ref: string) => entry({ ref: `<AcctSvcrRef>${ref}</AcctSvcrRef>` });

  it('a booked credit without any date among good ones', () => {
    const { entries, summary } = read(statement(good('A') + entry({ ref: '<AcctSvcrRef>B</AcctSvcrRef>', booking: '' }) + good('C')));
    expect(countsOf(entries)).toEqual({ entries: 3, credits: 2, debits: 0, other: 0, unreadable: 1 });
    expect(entries[1]).toMatchObject({ kind: 'credit', amount: '10.00', bankReference: 'B', receivedAt: null });
    expect(entries[1].problem).toMatch(/^Ntry 2 is a booked credit without a booking date or value date \(BookgDt, ValDt\) \(line 2, column \d+\)$/);
    // Its amount could be read: the sums still close.
    expect(summary.sections[0]).toMatchObject({ credits: '30.00', unreadable: 0 });
  });

  it.each([
    ['an amount with a decimal comma', { amount: '<Amt Ccy="EUR">12,50</Amt>' }, /^Ntry 3: Amt "12,50" is not a decimal number \(line 2, column \d+\)$/],
    ['a negative amount', { amount: '<Amt Ccy="EUR">-12.50</Amt>' }, /Amt "-12.50" is not a decimal number/],
    ['an amount in thousandths', { amount: '<Amt Ccy="EUR">10.005</Amt>' }, /"10.005" has more than 2 decimal places/],
    ['no amount', { amount: '' }, /^Ntry 3 has no Amt/],
    ['an amount without currency', { amount: '<Amt>10.00</Amt>' }, /^Ntry 3: Amt has no Ccy attribute/],
    ['a lower-case currency', { amount: '<Amt Ccy="eur">10.00</Amt>' }, /Amt Ccy "eur" is not an ISO 4217 code/],
    ['no CdtDbtInd', { direction: '' }, /^Ntry 3 has no CdtDbtInd/],
    ['a CdtDbtInd that is neither', { direction: '<CdtDbtInd>CRED</CdtDbtInd>' }, /^Ntry 3: CdtDbtInd "CRED" is neither CRDT nor DBIT/],
  ])('%s: unreadable, counted as such in the sums', (_what, parts, message) => {
    const { entries, summary } = read(statement(good('A') + good('B') + entry(parts) + good('D')));
    expect(countsOf(entries)).toEqual({ entries: 4, credits: 3, debits: 0, other: 0, unreadable: 1 });
    expect(entries[2].problem).toMatch(message);
    expect(entries[3]).toMatchObject({ index: 4, bankReference: 'D', problem: null });
    expect(summary.sections[0]).toMatchObject({ credits: '30.00', unreadable: 1 });
  });

  it.each([
    ['an impossible booking date', { booking: '<BookgDt><Dt>2026-02-30</Dt></BookgDt>' }, /^Ntry 1: BookgDt\/Dt "2026-02-30" is not a date/],
    ['a booking time that is no time', { booking: '<BookgDt><DtTm>yesterday</DtTm></BookgDt>' }, /^Ntry 1: BookgDt\/DtTm "yesterday" is not an ISO 8601 date-time/],
    ['a bad value date when it is the only one', { booking: '', value: '<ValDt><Dt>02.03.2026</Dt></ValDt>' }, /^Ntry 1: ValDt\/Dt "02.03.2026" is not a date/],
  ])('%s: unreadable, though its amount still adds up', (_what, parts, message) => {
    const { entries, summary } = read(statement(entry(parts) + good('B')));
    expect(entries[0].problem).toMatch(message);
    expect(entries[0].receivedAt).toBeNull();
    expect(entries[1].problem).toBeNull();
    expect(summary.sections[0]).toMatchObject({ credits: '20.00', unreadable: 0 });
  });

  it('a zero amount is no entry amount, but adds nothing rather than making the sums unknown', () => {
    const { entries, summary } = read(statement(entry({ amount: '<Amt Ccy="EUR">0.00</Amt>' }) + good('B')));
    expect(entries[0].problem).toMatch(/^Ntry 1: Amt "0.00" is not positive/);
    expect(summary.sections[0]).toMatchObject({ credits: '10.00', unreadable: 0 });
  });

  it('a booked debit with a bad amount is unreadable; a pending entry with one is unreadable but not in the sums', () => {
    const { entries, summary } = read(
      statement(
        entry({ direction: '<CdtDbtInd>DBIT</CdtDbtInd>', amount: '<Amt Ccy="EUR">ten</Amt>' }) +
          entry({ status: '<Sts>PDNG</Sts>', amount: '<Amt Ccy="EUR">ten</Amt>' }),
      ),
    );
    expect(entries.map((e) => [e.kind, e.problem !== null])).toEqual([
      ['debit', true],
      ['other', true],
    ]);
    expect(summary.sections[0]).toMatchObject({ debits: '0.00', unreadable: 1 });
  });

  it('a batch transaction without an amount, or with a bad one, is that credit only', () => {
    const { entries, summary } = read(
      statement(
        entry({
          amount: '<Amt Ccy="EUR">12.00</Amt>',
          details: details(
            tx('<Amt Ccy="EUR">4.00</Amt>'),
            tx('<Refs><TxId>T2</TxId></Refs>'),
            tx('<AmtDtls><TxAmt><Amt Ccy="EUR">4.0.0</Amt></TxAmt></AmtDtls>'),
          ),
        }),
      ),
    );
    expect(entries.map((e) => [e.amount, e.sourceId, e.problem])).toEqual([
      ['4.00', null, null],
      [null, 'T2', expect.stringMatching(/^Ntry 1, TxDtls 2 has no amount \(Amt or AmtDtls\/TxAmt\/Amt\) \(line 2, column \d+\)$/)],
      [null, null, expect.stringMatching(/^Ntry 1, TxDtls 3: AmtDtls\/TxAmt\/Amt "4.0.0" is not a decimal number/)],
    ]);
    expect(summary.sections[0]).toMatchObject({ credits: '12.00', unreadable: 0 });
  });

  it('a text over 4096 characters in an entry makes that entry unreadable; in the account it refuses the file', () => {
    const long = 'x'.repeat(5000);
    const { entries } = read(statement(entry({ details: details(tx(`<RmtInf><Ustrd>${long}</Ustrd></RmtInf>`)) }) + good('B')));
    expect(entries[0].problem).toMatch(/^Ntry 1: <Ustrd> holds more than 4096 characters \(line 2, column \d+\)$/);
    expect(entries[0].reference).toBeNull();
    expect(entries[1].problem).toBeNull();
    const problem = refusal(statement('', { account: `<Acct><Id><IBAN>${long}</IBAN></Id></Acct>` }));
    expect(problem.message).toMatch(/^<IBAN> holds more than 4096 characters/);
  });
});

describe('balances and period', () => {
  const body = (balances: string, entries: string) => statement(balances + entries);
  const credit = (amount: string) => entry({ amount: `<Amt Ccy="EUR">${amount}</Amt>` });
  const debit = (amount: string) => entry({ amount: `<Amt Ccy="EUR">${amount}</Amt>`, direction: '<CdtDbtInd>DBIT</CdtDbtInd>' });

  it('consistent: OPBD + credits − debits = CLBD', () => {
    const { summary } = read(body(balance('OPBD', '100.00') + balance('CLBD', '125.50'), credit('30.00') + debit('4.50')));
    expect(summary.sections[0]).toMatchObject({
      opening: { amount: '100.00', currency: 'EUR', date: '2026-03-02' },
      closing: { amount: '125.50', currency: 'EUR', date: '2026-03-02' },
      credits: '30.00',
      debits: '4.50',
    });
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('inconsistent: a missing entry shows', () => {
    const { summary } = read(body(balance('OPBD', '100.00') + balance('CLBD', '125.50'), credit('30.00')));
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
  });

  it('an unreadable booked amount keeps the check from closing', () => {
    const { summary } = read(body(balance('OPBD', '100.00') + balance('CLBD', '130.00'), credit('30.00') + credit('x')));
    expect(summary.sections[0]).toMatchObject({ credits: '30.00', unreadable: 1 });
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
  });

  it('DBIT balances are negative; PRCD opens when there is no OPBD; OPBD wins over PRCD; other types are ignored', () => {
    const overdraft = read(body(balance('PRCD', '50.00', 'DBIT') + balance('CLBD', '20.00', 'DBIT') + balance('CLAV', '999.00'), credit('30.00')));
    expect(overdraft.summary.sections[0].opening?.amount).toBe('-50.00');
    expect(overdraft.summary.sections[0].closing?.amount).toBe('-20.00');
    expect(balanceCheckOf(overdraft.summary.sections)).toBe('consistent');
    const both = read(body(balance('PRCD', '1.00') + balance('OPBD', '2.00'), ''));
    expect(both.summary.sections[0].opening?.amount).toBe('2.00');
  });

  it('a balance dated by DtTm has that date; one without CdtDbtInd is positive; one with an unreadable amount is not stated', () => {
    const { summary } = read(
      body(
        balance('OPBD', '10', 'CRDT', '<Dt><DtTm>2026-03-01T23:59:59+01:00</DtTm></Dt>') +
          '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">20.00</Amt><Dt><Dt>2026-03-02</Dt></Dt></Bal>',
        credit('10.00'),
      ),
    );
    expect(summary.sections[0].opening).toEqual({ amount: '10.00', currency: 'EUR', date: '2026-03-01' });
    expect(summary.sections[0].closing).toEqual({ amount: '20.00', currency: 'EUR', date: '2026-03-02' });
    const broken = read(body(balance('OPBD', '1,00') + balance('CLBD', '2.00'), ''));
    expect(broken.summary.sections[0].opening).toBeNull();
    expect(balanceCheckOf(broken.summary.sections)).toBe('not stated');
  });

  it('the period is FrToDt as stated, else the first and last booking days', () => {
    const stated = read(
      statement(
        '<FrToDt><FrDtTm>2026-03-01T00:00:00+01:00</FrDtTm><ToDtTm>2026-03-31T23:59:59+01:00</ToDtTm></FrToDt>' + ACCOUNT + entry(),
        { account: '' },
      ),
    );
    expect(stated.summary.sections[0]).toMatchObject({ from: '2026-03-01', to: '2026-03-31' });
    const days = read(
      statement(
        entry({ booking: '<BookgDt><Dt>2026-03-05</Dt></BookgDt>' }) +
          entry({ booking: '<BookgDt><DtTm>2026-03-09T23:30:00-05:00</DtTm></BookgDt>' }) +
          entry({ booking: '<BookgDt><Dt>2026-03-03</Dt></BookgDt>', status: '<Sts>PDNG</Sts>' }) +
          entry({ booking: '<BookgDt><Dt>2026-03-04</Dt></BookgDt>', direction: '<CdtDbtInd>DBIT</CdtDbtInd>' }),
      ),
    );
    // The bank's own day of a time with a zone; the pending entry's day is not the period's.
    expect(days.summary.sections[0]).toMatchObject({ from: '2026-03-04', to: '2026-03-09' });
  });
});

describe('files that are no statement are refused, naming what and where', () => {
  it.each([
    ['text', 'date,amount\n2026-03-02,10.00\n', /not well-formed XML/],
    ['JSON', '{"credits": []}', /not well-formed XML/],
    ['an empty body', '', /^the file is empty/],
    ['whitespace alone', ' \n\t\n', /^the file is empty/],
    ['an HTML page', '<html><body>Login</body></html>', /root element is <html> without a namespace/],
    ['a Document without a namespace', '<Document><BkToCstmrStmt/></Document>', /<Document> without a namespace/],
    ['a camt.053 namespace around a notification', statement('').replaceAll('BkToCstmrStmt', 'BkToCstmrDbtCdtNtfctn'), /expected <BkToCstmrStmt>/],
    ['a camt.052 namespace around a statement', statement('', { message: '052' }).replaceAll('BkToCstmrAcctRpt', 'BkToCstmrStmt'), /expected <BkToCstmrAcctRpt>/],
    ['a Document with no message', `<Document xmlns="${ns('053', 8)}"/>`, /has no <BkToCstmrStmt>/],
    ['a truncated file', statement(entry()).slice(0, -60), /not well-formed XML: unclosed tag/],
    ['two root elements', `${statement('')}<Document/>`, /not well-formed XML/],
  ])('%s', (_what, file, message) => {
    const problem = refusal(file);
    expect(problem.kind).toBe('invalid');
    expect(problem.message).toMatch(message);
  });

  it('a section with entries but no account, naming the section', () => {
    const problem = refusal(statement(entry(), { account: '<Acct><Ccy>EUR</Ccy></Acct>' }));
    expect(problem).toMatchObject({ element: 'Stmt/Acct' });
    expect(problem.message).toMatch(/^Stmt 1 has no account \(Acct\/Id\/IBAN or Acct\/Id\/Othr\/Id\) before its entries/);
    const report = refusal(statement(entry(), { message: '052', account: '' }));
    expect(report.message).toMatch(/^Rpt 1 has no account/);
  });

  it('a section without account and without entries says nothing and is left out', () => {
    const { summary } = read(doc(section('', { account: '' }) + section(entry())));
    expect(summary.sections.map((s) => s.account)).toEqual(['DE89370400440532013000']);
  });

  it('elements nested past the depth bound', () => {
    const deep = '<x:a xmlns:x="urn:other">'.repeat(120) + '</x:a>'.repeat(120);
    expect(refusal(statement(deep)).message).toMatch(/^elements are nested deeper than 100 levels/);
  });

  it('summary() before close() is a programming error, not a statement problem', () => {
    const reader = new CamtReader();
    reader.write(statement(entry()));
    expect(() => reader.summary()).toThrow(/only after close/);
  });
});

describe('DTDs and entities', () => {
  const withDoctype = (doctype: string, payer: string) =>
    statement(entry({ details: details(tx(`<RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties>`)) })).replace('<Document', `${doctype}\n<Document`);

  it.each([
    ['an external entity (XXE)', '<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', '&xxe;'],
    ['an external DTD', '<!DOCTYPE Document SYSTEM "http://127.0.0.1:1/camt.dtd">', 'x'],
    ['nested internal entities (billion laughs)', '<!DOCTYPE Document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>', '&b;'],
    ['a bare DOCTYPE', '<!DOCTYPE Document>', 'x'],
  ])('a DOCTYPE is refused: %s', (_what, doctype, payer) => {
    expect(refusal(withDoctype(doctype, payer)).message).toMatch(/^a DOCTYPE is not accepted in a statement/);
  });

  it('an undeclared entity is refused; the predefined ones and character references are text', () => {
    expect(refusal(withDoctype('', '&xxe;')).message).toMatch(/not well-formed XML: undefined entity/);
    const { entries } = read(withDoctype('', 'O&apos;Brien &amp; S&#246;hne &#x263A;'));
    expect(entries[0].payer).toBe("O'Brien & Söhne ☺");
  });
});

describe('chunking', () => {
  it('1-character chunks give the same entries and summary as the whole text, for every synthetic shape', () => {
    const file = statement(
      balance('OPBD', '100.00') +
        balance('CLBD', '110.00') +
        entry({ details: details(tx('<RmtInf><Ustrd><![CDATA[a <b> & ü]]></Ustrd></RmtInf>'), tx('<Amt Ccy="EUR">1.00</Amt>')) }) +
        entry({ booking: '' }) +
        entry({ amount: '<Amt Ccy="EUR">1&#48;.00</Amt>' }),
    );
    const whole = read(file);
    expect(read(file, 1)).toEqual(whole);
    expect(read(file, 7)).toEqual(whole);
  });
});

// ---------------------------------------------------------------------------------------------

const { manifest, text: realText } = realFiles('camt');

describe('real bank files (test/fixtures/statements/real/camt)', () => {
  it('cover at least 12 files of 4 countries and all three messages', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(12);
    expect(new Set(manifest.map((m) => m.country)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(manifest.map((m) => m.format))).toEqual(new Set(['camt.052', 'camt.053', 'camt.054']));
    expect(manifest.some((m) => m.encoding === 'iso-8859-1')).toBe(true);
  });

  it.each(manifest.map((m) => [m.file, m] as const))('%s', (_file, m) => {
    const text = realText(m);
    const { entries, summary } = read(text);
    const { entries: count, credits, debits, other, unreadable } = m.expected;
    expect(summary.format).toBe(m.format);
    expect(summary.version).toBe(m.version);
    expect(countsOf(entries)).toEqual({ entries: count, credits, debits, other, unreadable });
    expect(summary.sections).toHaveLength(m.expected.sections);
    expect(balanceCheckOf(summary.sections)).toBe(m.expected.balanceCheck);
    const first = firstCredit(entries);
    expect(first && { amount: first.amount, currency: first.currency, receivedAt: first.receivedAt, bankReference: first.bankReference, payer: first.payer }).toEqual(
      m.expected.firstCredit,
    );
    expect(entries.map((e) => e.index)).toEqual(entries.map((_e, i) => i + 1));
    // Any chunking gives the same result.
    expect(read(text, 13)).toEqual({ entries, summary });
  });

  it('the ISO-8859-1 file keeps its umlauts once decoded', () => {
    const m = manifest.find((x) => x.encoding === 'iso-8859-1')!;
    expect(read(realText(m)).entries[0].reference).toBe('M-Überschusssparen');
  });

  it('1-character chunks on real files (a batch-heavy and a one-line file)', () => {
    for (const name of ['ch-postfinance-camt053-v04.xml', 'lt-camt053-v08-no-dates.xml']) {
      const text = realText(manifest.find((m) => m.file === name)!);
      expect(read(text, 1)).toEqual(read(text));
    }
  });
});
