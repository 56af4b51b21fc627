import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { openMerchantStatement, type OpenStatement } from '../../services/merchantStatements.js';
import { pulledBody } from '../../server/pulledBody.js';
import { html, type Html } from '../html.js';
import { sendPage } from '../layout.js';
import { cab, query, str } from './common.js';
import { csvCell } from './csv.js';
import { messagePage } from './layout.js';

/**
 * The merchant's statement of live money as CSV (reconciliation contract, "Reports"):
 * `GET /cabinet/statement.csv?from=YYYY-MM-DD&to=YYYY-MM-DD`, the same figures as
 * `GET /admin/v1/merchants/{id}/statement`, from the same service, written as it is read. Sandbox
 * money is never in it.
 */

export const STATEMENT_CSV_COLUMNS = ['at', 'type', 'orderId', 'withdrawalId', 'amountUsd', 'balanceUsd'] as const;

/**
 * One line of the file. The time, the type and both amounts are the service's own text, in a form
 * no cell needs to quote or guard (a time, a word, plain decimals whose sign a spreadsheet reads as
 * a number, never a formula): written as they are. Only the ids go through `csvCell`.
 */
const row = (at: string, type: string, orderId: string | null, withdrawalId: string | null, amountUsd: string | null, balanceUsd: string) =>
  `${at},${type},${csvCell(orderId)},${csvCell(withdrawalId)},${amountUsd ?? ''},${balanceUsd}\r\n`;

/**
 * UTF-8, a header row, CRLF line ends, RFC 4180 quoting. The first row is the `opening` balance at
 * the start of `from` (00:00:00 UTC), the last the `closing` balance at the end of `to`; their
 * `amountUsd` is empty, as they move no money. Opening plus the entries' amounts is closing. A file
 * that broke off on the way has no `closing` row (and its download ends in an error).
 */
export async function* statementCsvChunks(s: OpenStatement): AsyncGenerator<string> {
  yield STATEMENT_CSV_COLUMNS.join(',') + '\r\n' + row(`${s.head.from}T00:00:00Z`, 'opening', null, null, null, s.head.openingBalance);
  for await (const batch of s.entries) {
    let chunk = '';
    for (const e of batch) chunk += row(e.at, e.type, e.orderId, e.withdrawalId, e.amountUsd, e.balanceUsd);
    yield chunk;
  }
  yield row(`${s.head.to}T23:59:59Z`, 'closing', null, null, null, s.head.closingBalance);
}

export function statementRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/statement.csv', async (req, reply) => {
    const q = query(req);
    const opened = await openMerchantStatement(ctx, cab(req).merchant.id, { from: str(q.from, 10) || undefined, to: str(q.to, 10) || undefined });
    if (!opened.ok) {
      reply.header('Retry-After', String(Math.ceil(opened.retryAfterMs / 1000)));
      return sendPage(reply, 429, messagePage(cab(req), 'Statements are being prepared', `Other statements of this account are being downloaded right now. Try again in ${Math.ceil(opened.retryAfterMs / 1000)} seconds.`));
    }
    const s = opened.statement;
    reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="statement-${s.head.from}-${s.head.to}.csv"`)
      .header('Cache-Control', 'no-store');
    if (req.method === 'HEAD') {
      void s.close();
      return reply.send();
    }
    return reply.send(pulledBody(statementCsvChunks(s), s.close, s.ended));
  });
}

/**
 * The balance page's way to the statement: two UTC days (this month so far by default, `today`
 * being the UTC day the page is read) and the download. A plain GET form: no script needed.
 */
export function statementForm(today: string | undefined): Html {
  const from = today ? `${today.slice(0, 8)}01` : '';
  return html`<section class="card" aria-labelledby="statement-h"><h2 id="statement-h">Statement</h2>
<p class="hint">Live money only: the balance at the start of the first day, every credit, reversal and withdrawal, and the balance at the end of the last day (UTC days, both included, up to 366).</p>
<form class="filters" method="get" action="/cabinet/statement.csv" id="statement-form">
<label>From (UTC) <input type="date" name="from" value="${from}" max="${today ?? ''}" required></label>
<label>To (UTC) <input type="date" name="to" value="${today ?? ''}" max="${today ?? ''}" required></label>
<button type="submit">Download statement (CSV)</button>
</form></section>`;
}
