import { describe, expect, it } from 'vitest';
import { MAX_RECORD_CHARS } from '../../../src/reconciliation/statements/csv.js';
import { checkCsvProfile, CsvProfileReader, previewCsvProfile, type CsvProfile } from '../../../src/reconciliation/statements/csvProfile.js';
import { StatementInvalidError, type StatementProblem } from '../../../src/reconciliation/statements/types.js';
import { balanceCheckOf, countsOf, readAll, realFiles } from './readAll.js';

/** A German bank's export: a preamble, `;`, decimal comma, thousands point, `DD.MM.YYYY`. */
const GERMAN: CsvProfile = {
  name: 'Musterbank',
  delimiter: ';',
  quote: '"',
  encoding: 'iso-8859-1',
  skipRows: 3,
  decimalSeparator: ',',
  thousandsSeparator: '.',
  dateFormat: 'DD.MM.YYYY',
  timeZone: 'Europe/Berlin',
  columns: { account: 'Konto', receivedAt: 'Buchungstag', amount: 'Betrag', currency: 'Währung', payer: 'Auftraggeber', reference: 'Verwendungszweck', bankReference: 'Bankreferenz' },
  fixedAccount: null,
  fixedCurrency: null,
};

const GERMAN_TEXT = [
  'Umsatzanzeige;Datei erstellt am: 07.03.2026 13:18',
  'Kunde;"Max Mustermann',
  '',
  'Buchungstag;Konto;Auftraggeber;Verwendungszweck;Betrag;Währung;Bankreferenz',
  '02.03.2026;DE89370400440532013000;Ivan Petrov;"Rechnung 7; danke";1.234,56;EUR;B-1',
  '02.03.2026;DE89370400440532013000;Stadtwerke;Abschlag;-45,20;EUR;B-2',
  '03.03.2026;DE89370400440532013000;;Gebühr;(12,00);EUR;',
  '03.03.2026;DE89370400440532013000;;Storno;12,00-;EUR;',
  '04.03.2026;DE89370400440532013000;Anna;Miete;+850,00;EUR;B-5',
  '04.03.2026;DE89370400440532013000;;Info;0,00;EUR;',
  '05.03.2026;DE89370400440532013000;Otto;"Zeile 1',
  'Zeile 2";1.000.000,01;eur;B-7',
].join('\r\n');

const read = (profile: CsvProfile, text: string, chunk?: number) => readAll(new CsvProfileReader(profile), text, chunk);

function refusal(profile: CsvProfile, text: string): StatementProblem {
  try {
    read(profile, text);
  } catch (err) {
    if (err instanceof StatementInvalidError) return err.problem;
    throw err;
  }
  throw new Error('the file was not refused');
}

const simple = (over: Partial<CsvProfile> & { columns?: CsvProfile['columns'] } = {}): CsvProfile => ({
  name: 'simple',
  delimiter: ',',
  quote: '"',
  encoding: 'utf-8',
  skipRows: 0,
  decimalSeparator: '.',
  thousandsSeparator: null,
  dateFormat: 'YYYY-MM-DD',
  timeZone: 'UTC',
  columns: { receivedAt: 'date', amount: 'amount' },
  fixedAccount: 'ACC-1',
  fixedCurrency: 'EUR',
  ...over,
});

describe('checkCsvProfile', () => {
  it('fills in the defaults', () => {
    expect(checkCsvProfile({ name: 'x', dateFormat: 'DD.MM.YYYY', columns: { receivedAt: 1, amount: 2 }, fixedAccount: 'A', fixedCurrency: 'RUB' })).toEqual({
      ok: true,
      value: {
        name: 'x',
        delimiter: ',',
        quote: '"',
        encoding: 'utf-8',
        skipRows: 0,
        decimalSeparator: '.',
        thousandsSeparator: null,
        dateFormat: 'DD.MM.YYYY',
        timeZone: 'UTC',
        columns: { receivedAt: 1, amount: 2 },
        fixedAccount: 'A',
        fixedCurrency: 'RUB',
      },
    });
    expect(checkCsvProfile(GERMAN)).toEqual({ ok: true, value: GERMAN });
    // Columns left null are left out.
    const checked = checkCsvProfile({ ...GERMAN, columns: { ...GERMAN.columns, payer: null } });
    expect(checked.ok && Object.keys(checked.value.columns)).toEqual(['account', 'amount', 'currency', 'receivedAt', 'reference', 'bankReference']);
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', 'profile', /^a CSV profile must be an object$/],
    ['an array', [], /^a CSV profile must be an object$/],
    ['an unknown field', { ...GERMAN, delimeter: ';' }, /^unknown field "delimeter"; a profile has name, delimiter/],
    ['no name', { ...GERMAN, name: ' ' }, /^name must be a non-empty text/],
    ['a long name', { ...GERMAN, name: 'x'.repeat(101) }, /^name must be/],
    ['a colon delimiter', { ...GERMAN, delimiter: ':' }, /^delimiter must be ",", ";", "\|" or a tab; got ":"$/],
    ['a two-character delimiter', { ...GERMAN, delimiter: ';;' }, /^delimiter must be/],
    ['a letter as quote', { ...GERMAN, quote: 'q' }, /^quote must be one character that is not the delimiter/],
    ['the delimiter as quote', { ...GERMAN, quote: ';' }, /^quote must be one character that is not the delimiter/],
    ['an unknown encoding', { ...GERMAN, encoding: 'klingon-8' }, /^encoding "klingon-8" is not a character set name iconv-lite knows/],
    ['a negative skipRows', { ...GERMAN, skipRows: -1 }, /^skipRows must be a whole number from 0 to 1000$/],
    ['a fractional skipRows', { ...GERMAN, skipRows: 1.5 }, /^skipRows must be a whole number/],
    ['a decimal separator that is neither', { ...GERMAN, decimalSeparator: '/' }, /^decimalSeparator must be "\." or ","$/],
    ['an odd thousands separator', { ...GERMAN, thousandsSeparator: '_' }, /^thousandsSeparator must be a space/],
    ['thousands and decimal alike', { ...GERMAN, thousandsSeparator: ',' }, /^thousandsSeparator and decimalSeparator are both ","$/],
    ['a decimal comma as delimiter without quotes', { ...GERMAN, delimiter: ',', quote: null }, /^decimalSeparator "," is also the delimiter, which needs quoted amounts: quote cannot be null$/],
    ['a thousands comma as delimiter without quotes', { ...GERMAN, delimiter: ',', decimalSeparator: '.', thousandsSeparator: ',', quote: null }, /^thousandsSeparator "," is also the delimiter/],
    ['no dateFormat', { ...GERMAN, dateFormat: '' }, /^dateFormat must be a text of 1 to 40 characters/],
    ['a dateFormat without a year', { ...GERMAN, dateFormat: 'DD.MM' }, /^dateFormat "DD.MM" has no year \(YYYY or YY\)$/],
    ['a dateFormat without a month', { ...GERMAN, dateFormat: 'DD.YYYY' }, /has no month \(MM\)$/],
    ['a dateFormat without a day', { ...GERMAN, dateFormat: 'MM/YYYY' }, /has no day \(DD\)$/],
    ['a dateFormat with a single D', { ...GERMAN, dateFormat: 'D.MM.YYYY' }, /^dateFormat "D.MM.YYYY" has "D" at position 1, which is no token: use DD, MM, YYYY, YY, HH, mm, ss$/],
    ['a dateFormat with two years', { ...GERMAN, dateFormat: 'DD.MM.YYYY YY' }, /has a year twice$/],
    ['a dateFormat with minutes and no hours', { ...GERMAN, dateFormat: 'DD.MM.YYYY mm' }, /has minutes \(mm\) without hours \(HH\)$/],
    ['a dateFormat with seconds and no minutes', { ...GERMAN, dateFormat: 'DD.MM.YYYY HH ss' }, /has seconds \(ss\) without minutes \(mm\)$/],
    ['an unknown time zone', { ...GERMAN, timeZone: 'Europe/Atlantis' }, /^timeZone "Europe\/Atlantis" is not an IANA time zone/],
    ['an offset for a zone', { ...GERMAN, timeZone: '+03:00x' }, /^timeZone "\+03:00x" is not an IANA time zone/],
    ['no columns', { ...GERMAN, columns: undefined }, /^columns must be an object/],
    ['an unknown column', { ...GERMAN, columns: { ...GERMAN.columns, memo: 'x' } }, /^unknown field "columns.memo"; columns may name account, amount/],
    ['an empty column name', { ...GERMAN, columns: { ...GERMAN.columns, payer: ' ' } }, /^columns.payer must be a header name of 1 to 200 characters or a column number$/],
    ['a column number 0', { ...GERMAN, columns: { ...GERMAN.columns, amount: 0 } }, /^columns.amount must be a header name or a column number from 1 to 1000$/],
    ['a fractional column number', { ...GERMAN, columns: { ...GERMAN.columns, amount: 2.5 } }, /^columns.amount must be a header name or a column number/],
    ['no receivedAt column', { ...GERMAN, columns: { account: 1, amount: 2, currency: 3 } }, /^columns.receivedAt is required/],
    ['no account', { ...GERMAN, columns: { ...GERMAN.columns, account: undefined } }, /^give exactly one of columns.account and fixedAccount/],
    ['two accounts', { ...GERMAN, fixedAccount: 'DE89' }, /^give exactly one of columns.account and fixedAccount/],
    ['an empty fixedAccount', { ...GERMAN, columns: { ...GERMAN.columns, account: undefined }, fixedAccount: '' }, /^fixedAccount must be a non-empty text/],
    ['no amount', { ...GERMAN, columns: { ...GERMAN.columns, amount: undefined } }, /^give columns.amount \(a signed amount\) or columns.credit with columns.debit$/],
    ['amount and credit', { ...GERMAN, columns: { ...GERMAN.columns, credit: 'Haben', debit: 'Soll' } }, /^give columns.amount or columns.credit with columns.debit, not both$/],
    ['credit without debit', { ...GERMAN, columns: { ...GERMAN.columns, amount: undefined, credit: 'Haben' } }, /^columns.credit needs columns.debit$/],
    ['debit without credit', { ...GERMAN, columns: { ...GERMAN.columns, amount: undefined, debit: 'Soll' } }, /^columns.debit needs columns.credit$/],
    ['credit and debit alike', { ...GERMAN, columns: { ...GERMAN.columns, amount: undefined, credit: 'Betrag', debit: ' betrag' } }, /^columns.credit and columns.debit name the same column$/],
    ['no currency', { ...GERMAN, columns: { ...GERMAN.columns, currency: undefined } }, /^give exactly one of columns.currency and fixedCurrency/],
    ['two currencies', { ...GERMAN, fixedCurrency: 'EUR' }, /^give exactly one of columns.currency and fixedCurrency/],
    ['a bad fixedCurrency', { ...GERMAN, columns: { ...GERMAN.columns, currency: undefined }, fixedCurrency: 'eur' }, /^fixedCurrency "eur" is not an ISO 4217 code/],
  ])('refuses %s', (_what, input, why) => {
    const checked = checkCsvProfile(input);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.why).toMatch(why);
  });

  it('allows the delimiter as a separator when amounts are quoted, as Dutch banks write', () => {
    expect(checkCsvProfile({ ...GERMAN, delimiter: ',' }).ok).toBe(true);
    expect(checkCsvProfile({ ...GERMAN, delimiter: ',', decimalSeparator: '.', thousandsSeparator: ',' }).ok).toBe(true);
  });

  it('the reader refuses a profile that is not valid', () => {
    expect(() => new CsvProfileReader({ ...GERMAN, dateFormat: 'MM.YYYY' })).toThrow(/the CSV profile is not valid: dateFormat "MM.YYYY" has no day/);
  });
});

describe('CsvProfileReader', () => {
  it('reads a semicolon, decimal-comma, DD.MM.YYYY export after its preamble', () => {
    const { entries, summary } = read(GERMAN, GERMAN_TEXT);
    expect(entries.map((e) => [e.index, e.kind, e.amount, e.currency, e.receivedAt, e.dateOnly, e.payer, e.reference, e.bankReference, e.sourceId, e.problem])).toEqual([
      [1, 'credit', '1234.56', 'EUR', '2026-03-02T00:00:00.000Z', true, 'Ivan Petrov', 'Rechnung 7; danke', 'B-1', 'line 5', null],
      [2, 'debit', '45.20', 'EUR', '2026-03-02T00:00:00.000Z', true, 'Stadtwerke', 'Abschlag', 'B-2', 'line 6', null],
      [3, 'debit', '12.00', 'EUR', '2026-03-03T00:00:00.000Z', true, null, 'Gebühr', null, 'line 7', null],
      [4, 'debit', '12.00', 'EUR', '2026-03-03T00:00:00.000Z', true, null, 'Storno', null, 'line 8', null],
      [5, 'credit', '850.00', 'EUR', '2026-03-04T00:00:00.000Z', true, 'Anna', 'Miete', 'B-5', 'line 9', null],
      // A zero is neither money in nor out.
      [6, 'other', null, 'EUR', '2026-03-04T00:00:00.000Z', true, null, 'Info', null, 'line 10', null],
      [7, 'credit', '1000000.01', 'EUR', '2026-03-05T00:00:00.000Z', true, 'Otto', 'Zeile 1\r\nZeile 2', 'B-7', 'line 11', null],
    ]);
    expect(entries.every((e) => e.account === 'DE89370400440532013000')).toBe(true);
    expect(summary).toEqual({
      format: 'csv-profile',
      version: null,
      sections: [
        { account: 'DE89370400440532013000', from: '2026-03-02', to: '2026-03-05', opening: null, closing: null, credits: '1002084.57', debits: '69.20', unreadable: 0 },
      ],
    });
  });

  it('gives the same entries whatever the chunks', () => {
    const whole = read(GERMAN, GERMAN_TEXT);
    expect(read(GERMAN, GERMAN_TEXT, 1)).toEqual(whole);
    expect(read(GERMAN, GERMAN_TEXT, 5)).toEqual(whole);
  });

  it.each([
    ['1,5', '1.50'],
    ['12.345,6', '12345.60'],
    ['- 3,00', '-3.00'],
    ['(1.000,00)', '-1000.00'],
    ['7,10-', '-7.10'],
    ['+0,01', '0.01'],
    ['1234,5600', '1234.56'],
  ])('reads the amount %j as %s', (text, signed) => {
    const { entries } = read(simple({ decimalSeparator: ',', thousandsSeparator: '.', delimiter: ';' }), `date;amount\n2026-03-02;${text}\n`);
    expect(entries[0].problem).toBeNull();
    expect([entries[0].kind, entries[0].amount]).toEqual([signed.startsWith('-') ? 'debit' : 'credit', signed.replace('-', '')]);
  });

  it.each([
    ['1.5', 'is not an amount written with the decimal separator "," and the thousands separator "."'],
    ['1.23,00', 'is not an amount written'],
    ['12.3456,00', 'is not an amount written'],
    ['1,234', 'has more than 2 decimal places'],
    ['-(5,00)', 'is not an amount written'],
    ['(5,00)-', 'is not an amount written'],
    ['5 EUR', 'is not an amount written'],
    ['1e3', 'is not an amount written'],
    ['12345678901234567,00', 'is too large'],
  ])('refuses the amount %j in its row', (text, why) => {
    const { entries } = read(simple({ decimalSeparator: ',', thousandsSeparator: '.', delimiter: ';' }), `date;amount\n2026-03-02;${text}\n2026-03-02;1,00\n`);
    expect(entries[0].problem?.startsWith(`row 1 (line 2): amount ("amount") "${text}" ${why}`)).toBe(true);
    expect(entries[1]).toMatchObject({ kind: 'credit', amount: '1.00', problem: null });
  });

  it('reads spaces, no-break spaces and apostrophes as thousands separators', () => {
    const spaced = read(simple({ decimalSeparator: ',', thousandsSeparator: ' ', delimiter: ';' }), 'date;amount\n2026-03-02;1 234 567,89\n2026-03-02;12\u00a0345,00\n2026-03-02;1\u202f000,00\n');
    expect(spaced.entries.map((e) => e.amount)).toEqual(['1234567.89', '12345.00', '1000.00']);
    const swiss = read(simple({ thousandsSeparator: "'" }), "date,amount\n2026-03-02,11'373.94\n2026-03-02,1\u2019000.00\n");
    expect(swiss.entries.map((e) => e.amount)).toEqual(['11373.94', '1000.00']);
    const quotedCommas = read(simple({ thousandsSeparator: ',' }), 'date,amount\n2026-03-02,"1,036.47"\n');
    expect(quotedCommas.entries[0].amount).toBe('1036.47');
  });

  it('reads credit and debit columns', () => {
    const profile = simple({ columns: { receivedAt: 'Date', credit: 'Credit', debit: 'Debit', payer: 'Details' } });
    const text = ['Date,Details,Debit,Credit', '2026-03-02,In,,428.03', '2026-03-02,Out,512.0,', '2026-03-02,Out signed,-3.5,', '2026-03-02,Both,1.00,2.00', '2026-03-02,Neither,,', '2026-03-02,Zero and in,0.00,5', '2026-03-02,Zero,0,'].join('\n');
    const { entries, summary } = read(profile, text);
    expect(entries.map((e) => [e.payer, e.kind, e.amount, e.problem])).toEqual([
      ['In', 'credit', '428.03', null],
      ['Out', 'debit', '512.00', null],
      ['Out signed', 'debit', '3.50', null],
      ['Both', 'credit', null, 'row 4 (line 5): credit ("Credit") "2.00" and debit ("Debit") "1.00" both hold an amount'],
      ['Neither', 'credit', null, 'row 5 (line 6): credit ("Credit") and debit ("Debit") are both empty'],
      ['Zero and in', 'credit', '5.00', null],
      ['Zero', 'other', null, null],
    ]);
    expect(summary.sections).toEqual([expect.objectContaining({ account: 'ACC-1', credits: '433.03', debits: '515.50', unreadable: 2 })]);
  });

  it('takes the account and currency from the profile when the file has none', () => {
    const { entries, summary } = read(simple(), 'date,amount\n2026-03-02,5\n');
    expect(entries[0]).toMatchObject({ account: 'ACC-1', currency: 'EUR', amount: '5.00' });
    expect(summary.sections.map((s) => s.account)).toEqual(['ACC-1']);
  });

  it('makes a section per account of an account column, and upper-cases a currency code', () => {
    const profile = simple({ columns: { receivedAt: 'date', amount: 'amount', account: 'iban', currency: 'ccy' }, fixedAccount: null, fixedCurrency: null });
    const { entries, summary } = read(profile, 'date,amount,iban,ccy\n2026-03-02,5,A,eur\n2026-03-03,-2,B,EUR\n2026-03-04,1,A,EURO\n2026-03-04,1,,EUR\n');
    expect(entries.map((e) => [e.account, e.currency, e.problem])).toEqual([
      ['A', 'EUR', null],
      ['B', 'EUR', null],
      ['A', null, 'row 3 (line 4): currency ("ccy") "EURO" is not an ISO 4217 code of three capital letters'],
      [null, 'EUR', 'row 4 (line 5): account ("iban") is empty'],
    ]);
    expect(summary.sections).toEqual([
      { account: 'A', from: '2026-03-02', to: '2026-03-04', opening: null, closing: null, credits: '6.00', debits: '0.00', unreadable: 0 },
      { account: 'B', from: '2026-03-03', to: '2026-03-03', opening: null, closing: null, credits: '0.00', debits: '2.00', unreadable: 0 },
    ]);
  });

  it('finds columns by name (trimmed, any case) or by position alike', () => {
    const text = ' Datum ;BETRAG;Text\n02.03.2026;1,00;a\n';
    const base = { delimiter: ';', decimalSeparator: ',' as const, dateFormat: 'DD.MM.YYYY' };
    const byName = read(simple({ ...base, columns: { receivedAt: 'datum', amount: ' Betrag', reference: 'text' } }), text);
    const byPosition = read(simple({ ...base, columns: { receivedAt: 1, amount: 2, reference: 3 } }), text);
    expect(byName).toEqual(byPosition);
    expect(byName.entries[0]).toMatchObject({ amount: '1.00', reference: 'a', receivedAt: '2026-03-02T00:00:00.000Z' });
  });

  it('refuses a header that lacks a named column, names one twice, or is shorter than a position', () => {
    expect(refusal(simple(), 'day,amount\n')).toMatchObject({
      line: 1,
      element: 'receivedAt',
      message: 'the header on line 1 has no column "date" (columns.receivedAt of profile "simple"); it has "day", "amount"',
    });
    expect(refusal(simple({ columns: { receivedAt: 'date', amount: 'Währung' } }), 'date;Saldo;Währung;Betrag;Währung\n'.replaceAll(';', ','))).toMatchObject({
      element: 'amount',
      message: 'the header on line 1 has the column "Währung" twice (columns 3 and 5); give columns.amount of profile "simple" as a number',
    });
    expect(refusal(simple({ columns: { receivedAt: 1, amount: 3 } }), 'date,amount\n').message).toBe('columns.amount of profile "simple" is column 3, but the header on line 1 has 2');
  });

  it('refuses a file with no header after the skipped lines, and an unreadable header', () => {
    expect(refusal(simple(), '').message).toBe('the file has no header row (profile "simple")');
    expect(refusal(simple({ skipRows: 2 }), 'a\nb\n\n,,\n').message).toBe('the file has no header row after the 2 lines the profile skips (profile "simple")');
    expect(refusal(simple(), '"date,amount\n').message).toMatch(/^the header on line 1 cannot be read \(profile "simple"\): a quoted value opened in it is never closed/);
  });

  it('a row too short for the profile, a broken row and an oversize row are entries with a problem, counted in a fixed account', () => {
    const text = `date,amount,text\n2026-03-02,1\n2026-03-02,2,"a"b\n2026-03-02,3,${'x'.repeat(MAX_RECORD_CHARS)}\n2026-03-02,4,ok\n`;
    const profile = simple({ columns: { receivedAt: 'date', amount: 'amount', reference: 'text' } });
    const { entries, summary } = read(profile, text);
    expect(countsOf(entries)).toEqual({ entries: 4, credits: 1, debits: 0, other: 0, unreadable: 3 });
    expect(entries.map((e) => e.problem)).toEqual([
      'row 1 (line 2): it has 2 fields, and the profile reads column 3',
      'row 2 (line 3): a quoted value is followed by other text before the delimiter',
      `row 3 (line 4): it is longer than ${MAX_RECORD_CHARS} characters (is a quote left open?)`,
      null,
    ]);
    expect(entries[0].account).toBe('ACC-1');
    expect(summary.sections).toEqual([expect.objectContaining({ credits: '4.00', unreadable: 3 })]);
  });

  it('reads files that never quote', () => {
    const { entries } = read(simple({ quote: null, delimiter: '\t', columns: { receivedAt: 1, amount: 2, payer: 3 } }), 'd\ta\tp\n2026-03-02\t5.00\tFirma "ABC" GmbH\n');
    expect(entries[0]).toMatchObject({ amount: '5.00', payer: 'Firma "ABC" GmbH', problem: null });
  });

  it('a bad row after a hundred good ones: a hundred credits and one unreadable entry', () => {
    const rows = Array.from({ length: 100 }, (_, i) => `2026-03-02,${i + 1}`);
    const { entries } = read(simple(), ['date,amount', ...rows, '2026-02-30,1'].join('\n'));
    expect(countsOf(entries)).toEqual({ entries: 101, credits: 100, debits: 0, other: 0, unreadable: 1 });
    expect(entries[100].problem).toBe('row 101 (line 102): receivedAt ("date") "2026-02-30" is not a day of the calendar (read as YYYY-MM-DD)');
  });
});

describe('CsvProfileReader dates and time zones', () => {
  const at = (dateFormat: string, timeZone: string, value: string) => {
    const { entries } = read(simple({ dateFormat, timeZone, delimiter: ';' }), `date;amount\n${value};1\n`);
    const e = entries[0];
    return e.problem ?? [e.receivedAt, e.dateOnly];
  };

  it('reads the tokens with any separators, one or two digits where a separator follows', () => {
    expect(at('DD.MM.YYYY', 'UTC', '02.03.2026')).toEqual(['2026-03-02T00:00:00.000Z', true]);
    expect(at('DD.MM.YYYY', 'UTC', '2.3.2026')).toEqual(['2026-03-02T00:00:00.000Z', true]);
    expect(at('MM/DD/YYYY', 'UTC', '03/02/2026')).toEqual(['2026-03-02T00:00:00.000Z', true]);
    expect(at('DD.MM.YY', 'UTC', '22.02.18')).toEqual(['2018-02-22T00:00:00.000Z', true]);
    expect(at('YYYY.MM.DD.', 'UTC', '2019.04.19.')).toEqual(['2019-04-19T00:00:00.000Z', true]);
    expect(at('YYYYMMDD', 'UTC', '20260302')).toEqual(['2026-03-02T00:00:00.000Z', true]);
    expect(at('YYYY-MM-DDTHH:mm:ss', 'UTC', '2026-03-02T09:15:07')).toEqual(['2026-03-02T09:15:07.000Z', false]);
    expect(at('DD.MM.YYYY HH:mm', 'UTC', '02.03.2026 9:05')).toEqual(['2026-03-02T09:05:00.000Z', false]);
    // A row that leaves the time out has a date alone.
    expect(at('DD.MM.YYYY HH:mm', 'Europe/Moscow', '02.03.2026')).toEqual(['2026-03-02T00:00:00.000Z', true]);
  });

  it.each([
    ['DD.MM.YYYY', '2026-03-02', 'is not a date written as DD.MM.YYYY'],
    ['DD.MM.YYYY', '02.03.26', 'is not a date written as DD.MM.YYYY'],
    ['DD.MM.YYYY', '02.03.2026 10:00', 'is not a date written as DD.MM.YYYY'],
    ['DD.MM.YYYY', '29.02.2026', 'is not a day of the calendar (read as DD.MM.YYYY)'],
    ['DD.MM.YYYY', '00.01.2026', 'is not a day of the calendar'],
    ['DD.MM.YYYY', '01.13.2026', 'is not a day of the calendar'],
    ['DD.MM.YYYY HH:mm', '01.01.2026 24:00', 'is not a time of day (read as DD.MM.YYYY HH:mm)'],
    ['DD.MM.YYYY HH:mm', '01.01.2026 10:', 'is not a date written as DD.MM.YYYY HH:mm'],
  ])('refuses with %s the date %j', (format, value, why) => {
    expect(at(format, 'UTC', value)).toMatch(`row 1 (line 2): receivedAt ("date") "${value}" ${why}`);
  });

  it('converts a time in Europe/Moscow (UTC+3, no daylight saving) to UTC', () => {
    expect(at('DD.MM.YYYY HH:mm:ss', 'Europe/Moscow', '13.10.2025 13:09:04')).toEqual(['2025-10-13T10:09:04.000Z', false]);
    expect(at('DD.MM.YYYY HH:mm:ss', 'Europe/Moscow', '01.01.2026 01:30:00')).toEqual(['2025-12-31T22:30:00.000Z', false]);
    expect(at('DD.MM.YYYY HH:mm', 'Asia/Kolkata', '02.03.2026 12:00')).toEqual(['2026-03-02T06:30:00.000Z', false]);
  });

  it('converts times in Europe/Berlin across the clock changes; a time the change skips or repeats is a date alone', () => {
    const berlin = (v: string) => at('DD.MM.YYYY HH:mm', 'Europe/Berlin', v);
    // 29 March 2026: clocks go from 02:00 CET to 03:00 CEST.
    expect(berlin('29.03.2026 01:30')).toEqual(['2026-03-29T00:30:00.000Z', false]);
    expect(berlin('29.03.2026 02:30')).toEqual(['2026-03-29T00:00:00.000Z', true]);
    expect(berlin('29.03.2026 03:30')).toEqual(['2026-03-29T01:30:00.000Z', false]);
    expect(berlin('28.03.2026 12:00')).toEqual(['2026-03-28T11:00:00.000Z', false]);
    expect(berlin('30.03.2026 12:00')).toEqual(['2026-03-30T10:00:00.000Z', false]);
    // 25 October 2026: clocks go back from 03:00 CEST to 02:00 CET, so 02:30 happens twice.
    expect(berlin('25.10.2026 01:30')).toEqual(['2026-10-24T23:30:00.000Z', false]);
    expect(berlin('25.10.2026 02:30')).toEqual(['2026-10-25T00:00:00.000Z', true]);
    expect(berlin('25.10.2026 03:30')).toEqual(['2026-10-25T02:30:00.000Z', false]);
    expect(berlin('15.07.2026 23:59')).toEqual(['2026-07-15T21:59:00.000Z', false]);
  });
});

describe('previewCsvProfile', () => {
  it('gives the header and the first rows as entries', () => {
    const preview = previewCsvProfile(GERMAN, GERMAN_TEXT, 2);
    expect(preview.header).toEqual(['Buchungstag', 'Konto', 'Auftraggeber', 'Verwendungszweck', 'Betrag', 'Währung', 'Bankreferenz']);
    expect(preview.entries.map((e) => [e.index, e.amount])).toEqual([
      [1, '1234.56'],
      [2, '45.20'],
    ]);
    expect(preview.problem).toBeNull();
    expect(previewCsvProfile(GERMAN, GERMAN_TEXT).entries).toHaveLength(7);
  });

  it('stops reading once it has the rows, so a large text costs what the rows cost', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => `2026-03-02,${i + 1}`).join('\n');
    const started = Date.now();
    const preview = previewCsvProfile(simple(), `date,amount\n${rows}`, 3);
    expect(preview.entries.map((e) => e.amount)).toEqual(['1.00', '2.00', '3.00']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives the file’s problem, or the profile’s, instead of throwing', () => {
    expect(previewCsvProfile(simple(), 'day,amount\n2026-03-02,1\n')).toMatchObject({ header: null, entries: [], problem: { kind: 'invalid', element: 'receivedAt' } });
    const bad = previewCsvProfile({ ...simple(), timeZone: 'Nowhere/Else' }, 'date,amount\n');
    expect(bad.problem?.message).toMatch(/^the profile is not valid: timeZone "Nowhere\/Else" is not an IANA time zone/);
  });
});

describe('real bank CSV exports (test/fixtures/statements/real/csv)', () => {
  const { manifest: files, text: realText } = realFiles('csv');
  const manifest = files.map((m) => ({ ...m, profile: m.profile! }));

  it('holds at least 4 files of at least 2 countries under permissive licences, each with a valid profile', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(4);
    expect(new Set(manifest.map((m) => m.country)).size).toBeGreaterThanOrEqual(2);
    for (const m of manifest) {
      expect(['MIT', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', 'ISC', 'MPL-2.0', 'CC0-1.0', 'CC-BY-4.0']).toContain(m.licence);
      expect(m.format).toBe('csv-profile');
      expect(checkCsvProfile(m.profile)).toEqual({ ok: true, value: m.profile });
      expect(m.profile.encoding).toBe(m.encoding);
    }
    // At least one with semicolons, decimal commas and DD.MM.YYYY, and one not in UTF-8.
    expect(manifest.some((m) => m.profile.delimiter === ';' && m.profile.decimalSeparator === ',' && m.profile.dateFormat.startsWith('DD.MM.YYYY'))).toBe(true);
    expect(manifest.some((m) => m.encoding !== 'utf-8')).toBe(true);
  });

  it.each(manifest.map((m) => [m.file, m] as const))('%s', (_file, m) => {
    const { entries, summary } = readAll(new CsvProfileReader(m.profile!), realText(m));
    expect(countsOf(entries)).toEqual({ entries: m.expected.entries, credits: m.expected.credits, debits: m.expected.debits, other: m.expected.other, unreadable: m.expected.unreadable });
    expect(summary.format).toBe('csv-profile');
    expect(summary.version).toBe(m.version);
    expect(summary.sections).toHaveLength(m.expected.sections);
    expect(balanceCheckOf(summary.sections)).toBe(m.expected.balanceCheck);
    const first = entries.find((e) => e.kind === 'credit' && e.problem === null);
    expect(first ? { amount: first.amount, currency: first.currency, receivedAt: first.receivedAt, bankReference: first.bankReference, payer: first.payer } : null).toEqual(m.expected.firstCredit);
    // Chunks of 3 characters give the same.
    expect(readAll(new CsvProfileReader(m.profile!), realText(m), 3)).toEqual({ entries, summary });
  });
});
