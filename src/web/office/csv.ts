import type { FastifyReply } from 'fastify';
import type { Ctx } from '../../context.js';
import { openExport } from '../../services/exports.js';
import { pulledBody } from '../../server/pulledBody.js';
import { csvCell } from '../cabinet/csv.js';
import { sendPage } from '../layout.js';
import { shell } from './kit.js';
import { off } from './session.js';
import { messagePage } from './ui.js';

/**
 * The back office's CSV exports: the rows of a list with the page's own filters, written as they
 * are read. The service reads them in keyset batches and the body pulls the next chunk only when
 * the client has taken the last one, with a turn of the event loop between chunks, so an export of
 * a year of orders holds one batch in memory, never the list, and never holds up other requests.
 * Each export takes one of the process's export slots (`EXPORTS_PER_OWNER` per operator,
 * `EXPORTS_PER_PROCESS` in all); one more is answered with a `429` page. UTF-8, a header row,
 * RFC 4180 quoting, CRLF, and cells a spreadsheet would read as a formula made inert (the
 * cabinet's `csvCell`).
 */

export interface CsvColumn<T> {
  name: string;
  value: (row: T) => string | number | boolean | null | undefined;
}

const cell = (v: string | number | boolean | null | undefined) => csvCell(v === null || v === undefined ? null : String(v));

async function* lines<T>(columns: readonly CsvColumn<T>[], chunks: AsyncIterable<T[]>): AsyncGenerator<string> {
  yield columns.map((c) => c.name).join(',') + '\r\n';
  for await (const rows of chunks) {
    let text = '';
    for (const r of rows) text += columns.map((c) => cell(c.value(r))).join(',') + '\r\n';
    yield text;
  }
}

/**
 * Sends `rows` (not yet read) as `filename` (an attachment, never cached), streamed, as an export
 * of the signed-in operator; or the `429` page when the operator's or the process's exports are
 * at their limit, and then `rows` is never read. A client that leaves frees the slot and the reads.
 */
export async function sendCsv<T>(ctx: Ctx, reply: FastifyReply, filename: string, columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): Promise<FastifyReply> {
  const req = reply.request;
  const opened = openExport(ctx, filename.replace(/\.csv$/, ''), off(req).operator.id, rows);
  if (!opened.ok) {
    const seconds = Math.ceil(opened.retryAfterMs / 1000);
    reply.header('Retry-After', String(seconds));
    return sendPage(reply, 429, messagePage(await shell(ctx, req), 'Exports are being prepared', `Your other exports are being downloaded right now, or the server is writing as many as it takes at once. Try again in ${seconds} seconds.`));
  }
  const e = opened.export;
  reply
    .code(200)
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    await e.close();
    return reply.send();
  }
  return reply.send(pulledBody(lines(columns, e.rows), e.close, e.ended));
}

/**
 * A short list (tariffs, providers, operators; a queue's first `QUEUE_ROWS`, 100) as the iterable
 * `sendCsv` takes, read only once the export has its slot.
 */
export async function* listed<T>(read: () => Promise<readonly T[]>): AsyncGenerator<T> {
  yield* await read();
}
