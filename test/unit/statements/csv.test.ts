import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../../src/reconciliation/statements/index.js';
import { fixture, read, refusal } from './helpers.js';

const HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference';
const csv = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';
const GOOD_ROW = 'T-1,40817810099910004312,918.00,RUB,2026-03-02T09:15:00+03:00,Ivan,ORD-1';

describe('CSV statements', () => {
  it('the header is the contract’s', () => {
    expect(CSV_COLUMNS.join(',')).toBe(HEADER);
  });

  it('reads a good file: quoted fields with commas, doubled quotes and line breaks, empty payer and reference as null', async () => {
    const whole = await read(fixture('credits.csv'), 'csv');
    expect(whole.totals).toEqual({ format: 'csv', entries: 4, credits: 4, skipped: 0 });
    expect(whole.credits).toEqual([
      {
        sourceId: 'UTR-401928374651',
        account: '40817810099910004312',
        amount: '918.00',
        currency: 'RUB',
        receivedAt: '2026-03-02T06:15:00.000Z',
        dateOnly: false,
        payer: 'Ivan Petrov',
        reference: 'ORD-7Q2M-118',
        entry: 1,
      },
      {
        sourceId: 'UTR-401928374652',
        account: '4081 7810 0999 1000 4312',
        amount: '1500.00',
        currency: 'RUB',
        receivedAt: '2026-03-02T06:20:00.000Z',
        dateOnly: false,
        payer: null,
        reference: null,
        entry: 2,
      },
      {
        sourceId: 'UTR-401928374653',
        account: '40817810099910004312',
        amount: '12.50',
        currency: 'RUB',
        receivedAt: '2026-03-02T00:00:00.000Z',
        dateOnly: true,
        payer: 'Sidorov, Pavel',
        reference: 'Order "ORD-55", thanks',
        entry: 3,
      },
      {
        sourceId: 'UTR-401928374654',
        account: '40817810099910004312',
        amount: '77.70',
        currency: 'RUB',
        receivedAt: '2026-03-02T10:00:00.250Z',
        dateOnly: false,
        payer: 'Multi\nLine Payer',
        reference: null,
        entry: 4,
      },
    ]);
    // Pieces of 2 bytes split quoted fields, line ends and multi-byte characters.
    expect(await read(fixture('credits.csv'), 'csv', 2)).toEqual(whole);
  });

  it('tolerates a byte order mark and CRLF line ends', async () => {
    const bytes = fixture('credits-bom-crlf.csv');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const { credits } = await read(bytes, 'csv', 1);
    expect(credits).toEqual([
      expect.objectContaining({ sourceId: 'BOM-1', amount: '499.00', currency: 'INR', receivedAt: '2026-03-02T06:30:00.000Z', reference: 'UTR 612345' }),
    ]);
  });

  it('a header alone is an empty statement; blank lines are not rows', async () => {
    expect((await read(`${HEADER}\n`, 'csv')).totals).toEqual({ format: 'csv', entries: 0, credits: 0, skipped: 0 });
    expect((await read(`${HEADER}\n\n${GOOD_ROW}\n\n`, 'csv')).totals.entries).toBe(1);
  });

  it('keeps non-ASCII text and trims spaces around values', async () => {
    const { credits } = await read(csv('T-1 , 4081 ,  918 ,RUB,2026-03-02, Пётр Иванов ," Заказ 7 "'), 'csv');
    expect(credits[0]).toMatchObject({ sourceId: 'T-1', account: '4081', amount: '918.00', payer: 'Пётр Иванов', reference: 'Заказ 7' });
  });
});

describe('CSV files that are refused', () => {
  it.each([
    ['an empty file', '', /^the CSV file is empty/],
    ['another column order', 'account,transactionId,amount,currency,receivedAt,payer,reference\n', /header must be exactly transactionId,account,amount,currency,receivedAt,payer,reference; line 1 is account,transactionId/],
    ['a missing column', 'transactionId,account,amount,currency,receivedAt,payer\n', /header must be exactly/],
    ['an extra column', `${HEADER},note\n`, /header must be exactly/],
    ['other letter case', `${HEADER.toLowerCase()}\n`, /header must be exactly/],
    ['a semicolon file', `${HEADER.replaceAll(',', ';')}\n`, /header must be exactly/],
  ])('%s', async (_what, file, message) => {
    expect((await refusal(file, 'csv')).message).toMatch(message);
  });

  it.each([
    ['amount', '1.234', /row 2 \(line 3\): amount "1.234" has more than 2 decimal places/],
    ['amount', '-5.00', /amount "-5.00" is not a decimal number/],
    ['amount', '0.00', /amount "0.00" is not positive/],
    ['amount', '1,50', null], // a decimal comma makes 8 fields: the row is malformed
    ['amount', '1e3', /amount "1e3" is not a decimal number/],
    ['amount', '', /amount "" is not a decimal number/],
    ['currency', 'rub', /row 2 \(line 3\): currency "rub" is not an ISO 4217 code/],
    ['currency', 'RUBL', /currency "RUBL"/],
    ['receivedAt', '2026-03-02T09:15:00', /receivedAt "2026-03-02T09:15:00" has no time zone/],
    ['receivedAt', '02.03.2026', /receivedAt "02.03.2026" is not an ISO 8601 date-time/],
    ['receivedAt', '2026-02-30', /receivedAt "2026-02-30" is not a date/],
    ['receivedAt', '2026-03-02T25:00:00Z', /receivedAt .* is not an ISO 8601 date-time/],
    ['transactionId', '', /row 2 \(line 3\): transactionId is empty/],
    ['account', '', /account is empty/],
  ])('a bad %s (%j) names its row and line', async (column, value, message) => {
    const row = GOOD_ROW.split(',');
    row[CSV_COLUMNS.indexOf(column as (typeof CSV_COLUMNS)[number])] = value;
    const problem = await refusal(csv(GOOD_ROW, row.join(',')), 'csv');
    if (message === null) {
      expect(problem).toMatchObject({ entry: 2, line: 3 });
      expect(problem.message).toMatch(/^the CSV is malformed at row 2 \(line 3\)/);
      return;
    }
    expect(problem).toMatchObject({ kind: 'invalid', entry: 2, element: column, line: 3 });
    expect(problem.message).toMatch(message);
  });

  it('a row with too few or too many fields', async () => {
    const short = await refusal(csv(GOOD_ROW, GOOD_ROW, 'T-3,4081,1.00,RUB'), 'csv');
    expect(short).toMatchObject({ entry: 3, line: 4 });
    expect(short.message).toMatch(/^the CSV is malformed at row 3 \(line 4\): it has 4 fields where the header has 7/);
    expect((await refusal(csv(`${GOOD_ROW},extra`), 'csv')).message).toMatch(/malformed at row 1 \(line 2\)/);
  });

  it('a header that is not CSV', async () => {
    const problem = await refusal('"transactionId,account\n', 'csv');
    expect(problem).toMatchObject({ entry: null });
    expect(problem.message).toMatch(/^the CSV is malformed at the header/);
  });

  it('a quote that is never closed', async () => {
    const problem = await refusal(csv(GOOD_ROW, 'T-2,4081,1.00,RUB,2026-03-02,"Unclosed,ref'), 'csv');
    expect(problem.message).toMatch(/^the CSV is malformed at row 2 \(line 3\): a quoted value is never closed/);
  });

  it('a row after a quoted line break is numbered by its line', async () => {
    const row = 'T-2,4081,1.00,RUB,2026-03-02,"two\nlines",ref';
    const problem = await refusal(csv(row, 'T-3,4081,1.00,rub,2026-03-02,,'), 'csv');
    expect(problem).toMatchObject({ entry: 2, line: 4 });
  });

  it('bytes that are not UTF-8 and NUL characters', async () => {
    expect((await refusal(Buffer.from(csv('T-1,4081,1.00,RUB,2026-03-02,Müller,'), 'latin1'), 'csv')).message).toMatch(/not UTF-8/);
    expect((await refusal(csv('T-1,4081,1.00,RUB,2026-03-02,A\u0000B,'), 'csv')).message).toMatch(/row 1 \(line 2\): payer contains a NUL character/);
  });

  it('a file over the size limit', async () => {
    const problem = await refusal(csv(...Array.from({ length: 100 }, (_, i) => GOOD_ROW.replace('T-1', `T-${i}`))), 'csv', { maxBytes: 2048 });
    expect(problem.kind).toBe('too-large');
  });
});
