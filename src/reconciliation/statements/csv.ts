/**
 * The CSV statement: UTF-8, RFC 4180 (fields with commas, quotes or line breaks are quoted, a
 * quote inside is doubled), a byte order mark allowed, and exactly this header:
 *
 *   transactionId,account,amount,currency,receivedAt,payer,reference
 *
 * Read as a stream with csv-parse; every data row is one credit, checked as the feed checks its
 * items (amount at most 2 places and positive, currency of three capital letters, receivedAt
 * ISO 8601 with a zone or a date alone), with errors naming the row and its line.
 */
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { bookingDate, bookingDateTime, clip, currencyCode, positiveAmount, type Checked } from './fields.js';
import { statementProblem, type StatementCredit } from './types.js';

export const CSV_COLUMNS = ['transactionId', 'account', 'amount', 'currency', 'receivedAt', 'payer', 'reference'] as const;

/** A row longer than this is not a credit; the bound keeps an unclosed quote from holding the file. */
const MAX_ROW_BYTES = 64 * 1024;

export interface CsvCounts {
  readonly entries: number;
}

/**
 * Credits of the CSV text chunks in `text`, in file order. Throws `StatementInvalidError` at the
 * first fault (header, quoting, column count or a bad value); `counts` is complete after the end.
 */
export async function* csvCredits(text: AsyncIterable<string>, counts: { entries: number }): AsyncGenerator<StatementCredit> {
  const source = Readable.from(text, { objectMode: false });
  const parser = parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_BYTES,
  });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let sawHeader = false;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number; records: number } }>) {
      if (!sawHeader) {
        checkHeader(record, info.lines);
        sawHeader = true;
        continue;
      }
      counts.entries += 1;
      yield creditOfRow(record, counts.entries, info.lines);
    }
  } catch (err) {
    if (err instanceof CsvError) throw csvSyntaxProblem(err, sawHeader ? counts.entries + 1 : null);
    throw err;
  } finally {
    source.destroy();
    parser.destroy();
  }
  if (!sawHeader) throw statementProblem(`the CSV file is empty; its first line must be the header ${CSV_COLUMNS.join(',')}`, { line: 1 });
}

function checkHeader(record: string[], line: number): void {
  const found = record.join(',');
  if (found !== CSV_COLUMNS.join(',')) {
    throw statementProblem(`the CSV header must be exactly ${CSV_COLUMNS.join(',')}; line ${line} is ${clip(found, 120)}`, { line, element: 'header' });
  }
}

function creditOfRow(record: string[], row: number, line: number): StatementCredit {
  const [transactionId, account, amount, currency, receivedAt, payer, reference] = record.map((v) => v.trim());
  const where = (column: string) => ({ entry: row, element: column, line });
  const fail = (column: string, why: string) =>
    statementProblem(`row ${row} (line ${line}): ${column} ${why}`, where(column));
  const need = <T>(column: string, checked: Checked<T>): T => {
    if (!checked.ok) throw fail(column, checked.why);
    return checked.value;
  };
  record.forEach((value, i) => {
    if (value.includes('\u0000')) throw fail(CSV_COLUMNS[i], 'contains a NUL character');
  });
  if (!transactionId) throw fail('transactionId', 'is empty');
  if (!account) throw fail('account', 'is empty');
  const time = /^\d{4}-\d{2}-\d{2}$/.test(receivedAt) ? bookingDate(receivedAt) : bookingDateTime(receivedAt, 'refuse');
  return {
    sourceId: transactionId,
    account,
    amount: need('amount', positiveAmount(amount, 2)),
    currency: need('currency', currencyCode(currency)),
    ...need('receivedAt', time),
    payer: payer || null,
    reference: reference || null,
    entry: row,
  };
}

/** csv-parse's own faults (unclosed quote, wrong column count, oversized row) with the row they hit. */
function csvSyntaxProblem(err: CsvError, row: number | null) {
  const line = typeof err.lines === 'number' ? err.lines : null;
  const fields = Array.isArray(err.record) ? err.record.length : null;
  const what =
    err.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && fields !== null
      ? `it has ${fields} fields where the header has ${CSV_COLUMNS.length} (quote a value that holds a comma)`
      : err.code === 'CSV_QUOTE_NOT_CLOSED'
        ? 'a quoted value is never closed'
        : err.code === 'CSV_MAX_RECORD_SIZE'
          ? `a row is longer than ${MAX_ROW_BYTES} bytes (is a quote left open?)`
          : err.message.replace(/^[A-Za-z ]+:\s*/, '');
  const at = `${row === null ? 'the header' : `row ${row}`}${line === null ? '' : ` (line ${line})`}`;
  return statementProblem(`the CSV is malformed at ${at}: ${what}`, { entry: row, line });
}
