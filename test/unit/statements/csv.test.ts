import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, CsvReader, CsvRecords, MAX_RECORD_CHARS, MAX_SECTIONS } from '../../../src/reconciliation/statements/csv.js';
import { StatementInvalidError, type StatementEntry, type StatementProblem } from '../../../src/reconciliation/statements/types.js';
import { countsOf, readAll } from './readAll.js';

const HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference';
const csv = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';
const GOOD_ROW = 'T-1,40817810099910004312,918.00,RUB,2026-03-02T09:15:00+03:00,Ivan,ORD-1';
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/statements/${name}`, import.meta.url), 'utf8');

const read = (text: string, chunk?: number) => readAll(new CsvReader(), text, chunk);

function refusal(text: string, chunk?: number): StatementProblem {
  try {
    read(text, chunk);
  } catch (err) {
    if (err instanceof StatementInvalidError) return err.problem;
    throw err;
  }
  throw new Error('the file was not refused');
}

/** The rows of `GOOD_ROW` with one column replaced. */
function withValue(column: string, value: string): string {
  const row = GOOD_ROW.split(',');
  row[CSV_COLUMNS.indexOf(column as (typeof CSV_COLUMNS)[number])] = value;
  return row.join(',');
}

describe('the native CSV: reading', () => {
  it('the header is the contract’s', () => {
    expect(CSV_COLUMNS.join(',')).toBe(HEADER);
  });

  it('reads a good file: quoted fields with commas, doubled quotes and line breaks, empty payer and reference as null', () => {
    const whole = read(fixture('credits.csv'));
    expect(countsOf(whole.entries)).toEqual({ entries: 4, credits: 4, debits: 0, other: 0, unreadable: 0 });
    const common = { kind: 'credit', bankReference: null, problem: null };
    expect(whole.entries).toEqual([
      {
        ...common,
        index: 1,
        sourceId: 'UTR-401928374651',
        account: '40817810099910004312',
        amount: '918.00',
        currency: 'RUB',
        receivedAt: '2026-03-02T06:15:00.000Z',
        dateOnly: false,
        payer: 'Ivan Petrov',
        reference: 'ORD-7Q2M-118',
      },
      {
        ...common,
        index: 2,
        sourceId: 'UTR-401928374652',
        account: '4081 7810 0999 1000 4312',
        amount: '1500.00',
        currency: 'RUB',
        receivedAt: '2026-03-02T06:20:00.000Z',
        dateOnly: false,
        payer: null,
        reference: null,
      },
      {
        ...common,
        index: 3,
        sourceId: 'UTR-401928374653',
        account: '40817810099910004312',
        amount: '12.50',
        currency: 'RUB',
        receivedAt: '2026-03-02T00:00:00.000Z',
        dateOnly: true,
        payer: 'Sidorov, Pavel',
        reference: 'Order "ORD-55", thanks',
      },
      {
        ...common,
        index: 4,
        sourceId: 'UTR-401928374654',
        account: '40817810099910004312',
        amount: '77.70',
        currency: 'RUB',
        receivedAt: '2026-03-02T10:00:00.250Z',
        dateOnly: false,
        payer: 'Multi\nLine Payer',
        reference: null,
      },
    ]);
    // One section per account, in order of first appearance, without balances.
    expect(whole.summary).toEqual({
      format: 'csv',
      version: null,
      sections: [
        { account: '40817810099910004312', from: '2026-03-02', to: '2026-03-02', opening: null, closing: null, credits: '1008.20', debits: '0.00', unreadable: 0 },
        { account: '4081 7810 0999 1000 4312', from: '2026-03-02', to: '2026-03-02', opening: null, closing: null, credits: '1500.00', debits: '0.00', unreadable: 0 },
      ],
    });
  });

  it('gives the same entries and sections whatever the chunks (1 and 2 characters split quotes, CRLF and letters)', () => {
    const text = [
      fixture('credits.csv'),
      'T-5,4081,-3.10,RUB,2026-03-03,"Пётр ""Q""",ref\r\n',
      'T-6,4081,1.00,rub,2026-03-03,,\r\n',
      'T-7,4081,"1.00",RUB,2026-03-03,a"b,\r\n',
      'T-8,4081,2.00,RUB\r\n',
      'T-9,4081,5.00,RUB,2026-03-03T23:59:59.999Z,"x\r\ny",z',
    ].join('');
    const whole = read(text);
    expect(countsOf(whole.entries)).toEqual({ entries: 9, credits: 5, debits: 1, other: 0, unreadable: 3 });
    expect(read(text, 1)).toEqual(whole);
    expect(read(text, 2)).toEqual(whole);
    expect(read(text, 7)).toEqual(whole);
  });

  it('tolerates a byte order mark and CRLF line ends', () => {
    const text = fixture('credits-bom-crlf.csv');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const { entries } = read(text, 1);
    expect(entries).toEqual([
      expect.objectContaining({ sourceId: 'BOM-1', amount: '499.00', currency: 'INR', receivedAt: '2026-03-02T06:30:00.000Z', reference: 'UTR 612345', problem: null }),
    ]);
  });

  it('a header alone is an empty statement; blank lines and rows of empty values are not rows', () => {
    expect(read(`${HEADER}\n`)).toEqual({ entries: [], summary: { format: 'csv', version: null, sections: [] } });
    expect(read(`${HEADER}`).entries).toEqual([]);
    const { entries } = read(`\n\n${HEADER}\n\n${GOOD_ROW}\n\n,,,,,,\n  \n`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ index: 1, problem: null });
  });

  it('keeps non-ASCII text and trims spaces around values', () => {
    const { entries } = read(csv('T-1 , 4081 ,  918 ,RUB,2026-03-02, Пётр Иванов ," Заказ 7 "'));
    expect(entries[0]).toMatchObject({ sourceId: 'T-1', account: '4081', amount: '918.00', payer: 'Пётр Иванов', reference: 'Заказ 7', problem: null });
  });

  it('a negative amount is a debit, summed in its section apart from the credits', () => {
    const { entries, summary } = read(csv(GOOD_ROW, withValue('amount', '-12.00'), withValue('amount', '-0.5')));
    expect(entries.map((e) => [e.kind, e.amount, e.problem])).toEqual([
      ['credit', '918.00', null],
      ['debit', '12.00', null],
      ['debit', '0.50', null],
    ]);
    expect(summary.sections).toEqual([expect.objectContaining({ credits: '918.00', debits: '12.50', unreadable: 0 })]);
  });

  it('reads the eighth column bankReference', () => {
    const { entries, summary } = read(fixture('credits-bank-reference.csv'), 3);
    expect(entries.map((e) => [e.sourceId, e.kind, e.amount, e.bankReference, e.payer])).toEqual([
      ['UTR-1', 'credit', '918.00', 'BNK-0001', 'Ivan Petrov'],
      ['FEE-1', 'debit', '12.00', 'BNK-0002', null],
      ['UTR-2', 'credit', '1500.00', null, 'OOO "Romashka"'],
      ['UTR-3', 'credit', '0.50', 'BNK-0003', 'Pavel'],
    ]);
    expect(summary.sections).toEqual([
      { account: '40817810099910004312', from: '2026-03-02', to: '2026-03-04', opening: null, closing: null, credits: '918.50', debits: '12.00', unreadable: 0 },
      { account: '40702810500000000001', from: '2026-03-03', to: '2026-03-03', opening: null, closing: null, credits: '1500.00', debits: '0.00', unreadable: 0 },
    ]);
  });
});

describe('the native CSV: rows that cannot be read are entries with a problem', () => {
  it.each([
    ['amount', '1.234', /^row 2 \(line 3\): amount "1.234" has more than 2 decimal places$/],
    ['amount', '0.00', /^row 2 \(line 3\): amount "0.00" is zero/],
    ['amount', '-0', /amount "-0" is zero/],
    ['amount', '+5.00', /amount "\+5.00" is not a decimal number/],
    ['amount', '--5', /amount "--5" is not a decimal number/],
    ['amount', '1e3', /amount "1e3" is not a decimal number/],
    ['amount', '', /amount "" is not a decimal number/],
    ['amount', '12345678901234567', /amount "12345678901234567" is too large/],
    ['currency', 'rub', /^row 2 \(line 3\): currency "rub" is not an ISO 4217 code/],
    ['currency', 'RUBL', /currency "RUBL"/],
    ['receivedAt', '2026-03-02T09:15:00', /^row 2 \(line 3\): receivedAt "2026-03-02T09:15:00" has no time zone/],
    ['receivedAt', '02.03.2026', /receivedAt "02.03.2026" is not an ISO 8601 date-time/],
    ['receivedAt', '2026-02-30', /receivedAt "2026-02-30" is not a date/],
    ['receivedAt', '2026-03-02T25:00:00Z', /receivedAt .* is not an ISO 8601 date-time/],
    ['receivedAt', '', /receivedAt "" is not an ISO 8601 date-time/],
    ['transactionId', '', /^row 2 \(line 3\): transactionId is empty$/],
    ['account', '', /^row 2 \(line 3\): account is empty$/],
    ['payer', 'A\u0000B', /^row 2 \(line 3\): payer contains a NUL character$/],
  ])('a bad %s (%j) names its row, line and field, and the next row is read', (column, value, message) => {
    const { entries } = read(csv(GOOD_ROW, withValue(column, value), GOOD_ROW.replace('T-1', 'T-3')));
    expect(entries).toHaveLength(3);
    expect(entries[1].problem).toMatch(message);
    expect(entries[1].index).toBe(2);
    expect([entries[0].problem, entries[2].problem]).toEqual([null, null]);
    expect(entries[2]).toMatchObject({ index: 3, sourceId: 'T-3', amount: '918.00' });
  });

  it('fills what it could read of a bad row and counts it in its section', () => {
    const { entries, summary } = read(csv(withValue('currency', 'rub'), withValue('amount', '-1.234')));
    expect(entries[0]).toMatchObject({ kind: 'credit', sourceId: 'T-1', account: '40817810099910004312', amount: '918.00', currency: null, receivedAt: '2026-03-02T06:15:00.000Z', payer: 'Ivan' });
    expect(entries[1]).toMatchObject({ kind: 'debit', amount: null, currency: 'RUB', problem: 'row 2 (line 3): amount "-1.234" has more than 2 decimal places' });
    // The credit's amount is known, so it is summed; the debit's is not, so the section cannot close.
    expect(summary.sections).toEqual([expect.objectContaining({ credits: '918.00', debits: '0.00', unreadable: 1 })]);
  });

  it('names the first fault of a row with several', () => {
    const row = 'T-1,,abc,rub,soon,,';
    expect(read(csv(row)).entries[0].problem).toBe('row 1 (line 2): account is empty');
  });

  it('a bad row after a hundred good ones: a hundred credits and one unreadable entry', () => {
    const good = Array.from({ length: 100 }, (_, i) => GOOD_ROW.replace('T-1', `T-${i + 1}`));
    for (const bad of [withValue('amount', 'abc'), 'T-101,4081,1.00,RUB', `${GOOD_ROW},extra`, 'T-101,4081,1.00,RUB,2026-03-02,"open']) {
      const { entries } = read(csv(...good, bad));
      expect(countsOf(entries)).toEqual({ entries: 101, credits: 100, debits: 0, other: 0, unreadable: 1 });
      expect(entries[100].problem).toMatch(/^row 101 \(line 102\): /);
    }
  });

  it('a row with too few or too many fields', () => {
    const { entries } = read(csv(GOOD_ROW, 'T-2,4081,1.00,RUB', `${GOOD_ROW},extra`, GOOD_ROW));
    expect(entries.map((e) => e.problem)).toEqual([
      null,
      'row 2 (line 3): it has 4 fields where the header has 7 (quote a value that holds a comma)',
      'row 3 (line 4): it has 8 fields where the header has 7 (quote a value that holds a comma)',
      null,
    ]);
    expect(entries[1]).toMatchObject({ account: null, amount: null, sourceId: null });
    // With the eighth column, eight is right and seven is short.
    const eight = read(`${HEADER},bankReference\n${GOOD_ROW},BR-1\n${GOOD_ROW}\n`).entries;
    expect(eight.map((e) => [e.bankReference, e.problem])).toEqual([
      ['BR-1', null],
      [null, 'row 2 (line 3): it has 7 fields where the header has 8 (quote a value that holds a comma)'],
    ]);
  });

  it('quotes in the wrong place', () => {
    const { entries } = read(csv(withValue('payer', 'a"b'), withValue('payer', '"a"b'), GOOD_ROW));
    expect(entries.map((e) => e.problem)).toEqual([
      'row 1 (line 2): a quote stands inside a value that is not quoted (quote the whole value and double the quote)',
      'row 2 (line 3): a quoted value is followed by other text before the delimiter',
      null,
    ]);
  });

  it('a quote that is never closed takes the rest of the file, and says which lines', () => {
    const { entries } = read(csv(GOOD_ROW, 'T-2,4081,1.00,RUB,2026-03-02,"Unclosed,ref', GOOD_ROW, GOOD_ROW));
    expect(entries.map((e) => e.problem)).toEqual([null, 'row 2 (line 3): a quoted value opened in it is never closed, so the rest of the file (lines 3–5) is inside it']);
    expect(read(`${HEADER}\nT-2,4081,1.00,RUB,2026-03-02,"x`).entries[0].problem).toMatch(/\(line 2\) is inside it$/);
  });

  it('a row after a quoted line break is numbered by its line', () => {
    const { entries } = read(csv('T-2,4081,1.00,RUB,2026-03-02,"two\nlines",ref', 'T-3,4081,1.00,rub,2026-03-02,,'));
    expect(entries[1].problem).toBe('row 2 (line 4): currency "rub" is not an ISO 4217 code of three capital letters');
  });

  it(`a row over ${MAX_RECORD_CHARS} characters is unreadable; the rows after it are read`, () => {
    const long = withValue('reference', 'x'.repeat(MAX_RECORD_CHARS));
    for (const chunk of [64 * 1024, 1000]) {
      const { entries } = read(csv(GOOD_ROW, long, GOOD_ROW), chunk);
      expect(entries.map((e) => e.problem)).toEqual([null, `row 2 (line 3): it is longer than ${MAX_RECORD_CHARS} characters (is a quote left open?)`, null]);
    }
    // An open quote that swallows more than the bound is still one entry, and memory stays bounded.
    const swallowed = read(`${HEADER}\nT-2,4081,1.00,RUB,2026-03-02,"open\n${`${GOOD_ROW}\n`.repeat(2000)}`, 4096).entries;
    expect(swallowed).toHaveLength(1);
    expect(swallowed[0].problem).toBe('row 1 (line 2): a quoted value opened in it is never closed, so the rest of the file (lines 2–2002) is inside it');
  });
});

describe('the native CSV: files that are refused', () => {
  it.each([
    ['an empty file', '', /^the CSV file is empty; its first line must be the header transactionId,account/],
    ['blank lines only', '\n\r\n  \n', /^the CSV file is empty/],
    ['another column order', 'account,transactionId,amount,currency,receivedAt,payer,reference\n', /header must be exactly transactionId,account,amount,currency,receivedAt,payer,reference \(optionally with ,bankReference\); line 1 is account,transactionId/],
    ['a missing column', 'transactionId,account,amount,currency,receivedAt,payer\n', /header must be exactly/],
    ['an extra column', `${HEADER},note\n`, /header must be exactly/],
    ['other letter case', `${HEADER.toLowerCase()}\n`, /header must be exactly/],
    ['a semicolon file', `${HEADER.replaceAll(',', ';')}\n`, /header must be exactly/],
    ['a header that is not CSV', '"transactionId"x,account\n', /^the CSV header on line 1 cannot be read: a quoted value is followed by other text/],
    ['a header with a stray quote', 'transactionId,account"\n', /^the CSV header on line 1 cannot be read: a quote stands inside a value that is not quoted/],
    ['a header with a quote never closed', '"transactionId,account\n', /^the CSV header on line 1 cannot be read: a quoted value opened in it is never closed/],
    ['a first line over the bound', `${'x'.repeat(MAX_RECORD_CHARS + 1)}\n`, /^the CSV header on line 1 cannot be read: it is longer than/],
  ])('%s', (_what, file, message) => {
    const problem = refusal(file);
    expect(problem.kind).toBe('invalid');
    expect(problem.element).toBe('header');
    expect(problem.message).toMatch(message);
  });

  it('the header is refused as soon as it is read, from write', () => {
    const reader = new CsvReader();
    expect(() => reader.write('account,transactionId\n')).toThrow(StatementInvalidError);
  });

  it(`a file naming more than ${MAX_SECTIONS} accounts`, () => {
    const rows = Array.from({ length: MAX_SECTIONS + 1 }, (_, i) => `T-${i},acct-${i},1.00,RUB,2026-03-02,,`);
    expect(refusal(csv(...rows)).message).toMatch(new RegExp(`^the file names more than ${MAX_SECTIONS} accounts \\(line ${MAX_SECTIONS + 2} adds "acct-${MAX_SECTIONS}"\\)`));
  });
});

describe('CsvRecords, the record cutter both CSV readers share', () => {
  const cut = (text: string, dialect = { delimiter: ',', quote: '"' as string | null, skipLines: 0 }, chunk = text.length || 1) => {
    const records = new CsvRecords(dialect);
    const out = [];
    for (let i = 0; i < text.length; i += chunk) out.push(...records.write(text.slice(i, i + chunk)));
    out.push(...records.end());
    return out;
  };

  it('cuts at LF, CRLF and CR, keeps line breaks inside quotes, and numbers lines', () => {
    const text = 'a,b\r\n"c\r\nd",e\rf,"g""h"\n\ni,j';
    const expected = [
      { fields: ['a', 'b'], fault: null, line: 1, lastLine: 1 },
      { fields: ['c\r\nd', 'e'], fault: null, line: 2, lastLine: 3 },
      { fields: ['f', 'g"h'], fault: null, line: 4, lastLine: 4 },
      { fields: ['i', 'j'], fault: null, line: 6, lastLine: 6 },
    ];
    expect(cut(text)).toEqual(expected);
    expect(cut(text, undefined, 1)).toEqual(expected);
  });

  it('skips preamble lines whatever quotes they hold, and reads a delimiter that a quoted value holds', () => {
    const text = 'Konto "1234;\r\nZeitraum;x\r\nDatum;Betrag\r\n01.03.2026;"1,50"\r\n';
    const dialect = { delimiter: ';', quote: '"', skipLines: 2 };
    expect(cut(text, dialect, 1).map((r) => [r.fields, r.line])).toEqual([
      [['Datum', 'Betrag'], 3],
      [['01.03.2026', '1,50'], 4],
    ]);
  });

  it('without a quote character, quotes are text', () => {
    expect(cut('a|"b|c"\n', { delimiter: '|', quote: null, skipLines: 0 }).map((r) => r.fields)).toEqual([['a', '"b', 'c"']]);
  });

  it('allows blanks around a quoted value', () => {
    expect(cut(' "a" , "b"\t\n').map((r) => r.fields)).toEqual([['a', 'b']]);
  });

  it('drops a byte order mark at the start of the text; elsewhere it is a blank around a value', () => {
    expect(cut('\uFEFFa,b\n\uFEFFc,d\n', undefined, 1).map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(cut('\uFEFF"a",b\n', undefined, 1).map((r) => r.fields)).toEqual([['a', 'b']]);
  });

  it('a line of blanks is a blank line', () => {
    expect(cut('a,b\n  \t\n\u00a0\nc,d\n   ').map((r) => [r.fields, r.line])).toEqual([
      [['a', 'b'], 1],
      [['c', 'd'], 4],
    ]);
  });
});

describe('entries are plain data', () => {
  it('every entry has every field of the contract', () => {
    const { entries } = read(csv(GOOD_ROW, 'T-2'));
    const keys: (keyof StatementEntry)[] = ['index', 'kind', 'account', 'amount', 'currency', 'receivedAt', 'dateOnly', 'payer', 'reference', 'bankReference', 'sourceId', 'problem'];
    for (const e of entries) expect(Object.keys(e).sort()).toEqual([...keys].sort());
  });
});
