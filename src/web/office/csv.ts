import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { csvCell } from '../cabinet/csv.js';

/**
 * The back office's CSV exports: the rows of a list with the page's own filters, written as they
 * are read. The service reads them in keyset batches and this stream pulls the next batch only
 * when the client has taken the last one, so an export of a year of orders holds one batch in
 * memory, never the list. UTF-8, a header row, RFC 4180 quoting, CRLF, and cells a spreadsheet
 * would read as a formula made inert (the cabinet's `csvCell`).
 */

export interface CsvColumn<T> {
  name: string;
  value: (row: T) => string | number | boolean | null | undefined;
}

const cell = (v: string | number | boolean | null | undefined) => csvCell(v === null || v === undefined ? null : String(v));

async function* lines<T>(columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): AsyncGenerator<string> {
  yield columns.map((c) => c.name).join(',') + '\r\n';
  for await (const r of rows) yield columns.map((c) => cell(c.value(r))).join(',') + '\r\n';
}

/** Sends `rows` as `filename` (an attachment, never cached), streamed. */
export function sendCsv<T>(reply: FastifyReply, filename: string, columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): FastifyReply {
  return reply
    .code(200)
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
    .send(Readable.from(lines(columns, rows), { objectMode: false }));
}

/** Rows already in memory (a short list: tariffs, providers, operators) as the iterable `sendCsv` takes. */
export async function* listed<T>(rows: readonly T[]): AsyncGenerator<T> {
  yield* rows;
}
