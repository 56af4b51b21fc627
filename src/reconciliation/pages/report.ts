/**
 * A pool's day report in the back office (`/office/pools/{id}/report?date=`): the rows of
 * `GET /admin/v1/reconciliation` for that UTC day, on a page and as a CSV with the same figures,
 * and the statements uploaded that day with their balance check and continuity.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readSmallExport } from '../../services/exports.js';
import { html, type Html } from '../../web/html.js';
import { param, query, str, type Kit } from '../../web/office/kit.js';
import { off } from '../../web/office/session.js';
import { messagePage, officePage, utc, type Shell } from '../../web/office/ui.js';
import { poolProvider, type PoolProvider } from '../queue.js';
import { reconciliationReport } from '../reports.js';
import type { RequisiteView } from '../requisites.js';
import { poolCurrency, RECONCILIATION_PATH } from './poolsView.js';
import { balanceBadge, continuityBadge, formatLabel, period, statementLink, STATEMENTS_PATH } from './statementsView.js';
import { amount, list, withQuery } from './ui.js';

type Report = Awaited<ReturnType<typeof reconciliationReport>>;
type Row = Report['totals'];

/** The CSV's columns: the day and provider, the requisite (its label for people), then the API's figures in the API's order. */
export const REPORT_CSV_COLUMNS = [
  'date',
  'providerId',
  'requisiteId',
  'label',
  'ordersIssued',
  'ordersCompleted',
  'completedAmount',
  'credits',
  'creditsAmount',
  'matched',
  'unmatched',
  'ignored',
  'completedWithoutCredit',
] as const;

/** `=`, `+`, `-`, `@`, tab and carriage return start a formula in a spreadsheet: a label starting so is made inert with `'`. */
function cell(v: string | number | null): string {
  let s = v === null ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** UTF-8, a header row, CRLF line ends, RFC 4180 quoting; one row per requisite, then the totals (`requisiteId` empty, `label` Total). */
export function reportCsv(r: Report, labels: ReadonlyMap<string, string | null>): string {
  const line = (row: Row, label: string | null) =>
    [
      r.date,
      r.providerId,
      row.requisiteId,
      label,
      row.ordersIssued,
      row.ordersCompleted,
      row.completedAmount,
      row.credits,
      row.creditsAmount,
      row.matched,
      row.unmatched,
      row.ignored,
      row.completedWithoutCredit,
    ]
      .map(cell)
      .join(',');
  const lines = [REPORT_CSV_COLUMNS.join(','), ...r.requisites.map((row) => line(row, labels.get(row.requisiteId!) ?? null)), line(r.totals, 'Total')];
  return lines.join('\r\n') + '\r\n';
}

const DAY_MS = 86_400_000;
const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

function reportPage(s: Shell, p: PoolProvider, requisites: readonly RequisiteView[], r: Report, today: string): Html {
  const byId = new Map(requisites.map((q) => [q.id, q]));
  const base = `/office/pools/${p.id}/report`;
  const cur = (id: string | null) => (id ? (byId.get(id)?.currency ?? poolCurrency(p)) : poolCurrency(p));
  const cells = (row: Row, name: Html) => [
    name,
    row.ordersIssued,
    row.ordersCompleted,
    amount(row.completedAmount, cur(row.requisiteId)),
    row.credits,
    amount(row.creditsAmount, cur(row.requisiteId)),
    row.matched,
    row.unmatched,
    row.ignored,
    row.completedWithoutCredit,
  ];
  const rows = [
    ...r.requisites.map((row) => {
      const q = byId.get(row.requisiteId!);
      return cells(row, html`<a href="/office/requisites/${row.requisiteId}">${q?.label ?? 'Unlabelled'}</a><br><span class="mono muted">${row.requisiteId}</span>`);
    }),
    cells(r.totals, html`<strong>Total</strong>${r.totals.credits > r.requisites.reduce((n, x) => n + x.credits, 0) ? html`<br><span class="muted">with credits on unknown accounts</span>` : ''}`),
  ];
  return officePage(
    s,
    `${p.name}: ${r.date}`,
    RECONCILIATION_PATH,
    html`<p><a href="/office/pools/${p.id}">← ${p.name}</a></p>
<h1>${p.name}: day report</h1>
<form class="filters" method="get" action="${base}" aria-label="Day">
<div><label for="report-date">UTC day</label><input type="date" id="report-date" name="date" value="${r.date}" max="${today}" required></div>
<div class="rc-buttons"><button type="submit" class="secondary">Show</button></div>
</form>
<p class="rc-links"><a href="${withQuery(base, { date: shift(r.date, -1) })}" rel="prev">← ${shift(r.date, -1)}</a>${r.date < today ? html` · <a href="${withQuery(base, { date: shift(r.date, 1) })}" rel="next">${shift(r.date, 1)} →</a>` : ''} · <a class="button secondary" href="${withQuery(`${base}.csv`, { date: r.date })}" download>Download CSV</a></p>
<section class="card" aria-labelledby="day-h"><h2 id="day-h">${r.date} (UTC)</h2>
<p class="muted">Orders issued and completed on each requisite that day against the money that arrived on it. Completed amounts of orders a credit completed equal the sum of their credits.</p>
${list(
  `Day report of ${p.name}, ${r.date}`,
  [
    { label: 'Requisite' },
    { label: 'Orders issued', num: true },
    { label: 'Orders completed', num: true },
    { label: 'Completed amount', num: true },
    { label: 'Credits', num: true },
    { label: 'Credits amount', num: true },
    { label: 'Matched', num: true },
    { label: 'Unmatched', num: true },
    { label: 'Ignored', num: true },
    { label: 'Completed without credit', num: true },
  ],
  rows,
  { fit: 'l', id: 'report' },
)}</section>
${statementsOfDay(p, r)}
${silencesOfDay(p, r)}`,
  );
}

/** The pool's devices that were silent that day: their requisites took no new order meanwhile. */
function silencesOfDay(p: PoolProvider, r: Report): Html {
  return html`<section class="card" aria-labelledby="day-silences-h"><h2 id="day-silences-h">Devices silent that day</h2>
${r.deviceSilences.length === 0
  ? html`<p class="muted empty" id="day-silences-empty">No device of ${p.name} was silent on ${r.date}. <a href="/office/pools/${p.id}/devices">The pool's devices</a></p>`
  : list(
      `Devices of ${p.name} silent on ${r.date}`,
      [{ label: 'Device' }, { label: 'Silent from' }, { label: 'Heard again' }, { label: 'Minutes that day', num: true }],
      r.deviceSilences.map((x) => [
        html`${x.name}<br><span class="mono muted">${x.deviceId}</span>`,
        utc(x.from),
        x.to ? utc(x.to) : html`<strong class="bad">still silent</strong>`,
        String(x.minutes),
      ]),
      { fit: 'm', id: 'day-silences' },
    )}</section>`;
}

/** The statements uploaded that day, with what their checks found. */
function statementsOfDay(p: PoolProvider, r: Report): Html {
  return html`<section class="card" aria-labelledby="day-statements-h"><h2 id="day-statements-h">Statements uploaded that day</h2>
${r.statements.length === 0
  ? html`<p class="muted empty" id="day-statements-empty">No statement of ${p.name} was uploaded on ${r.date}. <a href="${withQuery(STATEMENTS_PATH, { providerId: p.id })}">Every statement of the pool</a></p>`
  : list(
      `Statements of ${p.name} uploaded on ${r.date}`,
      [{ label: 'Statement' }, { label: 'Account' }, { label: 'Period' }, { label: 'Balances' }, { label: 'Continuity' }],
      r.statements.map((x) => [
        html`${statementLink(x)}<br><span class="muted">${formatLabel(x.format, null)}</span>`,
        html`${x.accounts.map((a, i) => html`${i ? html`<br>` : ''}<span class="mono">${a}</span>`)}`,
        period(x.periodFrom, x.periodTo),
        balanceBadge(x.balanceCheck, x.balanceDifference, poolCurrency(p)),
        continuityBadge(x.continuity, x.gap),
      ]),
      { fit: 'm', id: 'day-statements' },
    )}</section>`;
}

export function reportPages(app: FastifyInstance, { ctx, page }: Kit): void {
  const today = () => new Date(ctx.clock.now()).toISOString().slice(0, 10);

  // The day's figures are one aggregate per requisite (a few rows, whatever the day's volume), read
  // holding one of the operator's export slots: many at once wait their turn with a 429 page.
  const report = (req: FastifyRequest, id: string) => readSmallExport(ctx, 'reconciliation-report', off(req).operator.id, () => reconciliationReport(ctx, id, str(query(req).date, 10) || undefined));
  const busy = (req: FastifyRequest, reply: FastifyReply, retryAfterMs: number) => {
    const seconds = Math.ceil(retryAfterMs / 1000);
    reply.header('Retry-After', String(seconds));
    return page(req, reply, (s) => messagePage(s, 'Reports are being prepared', `Your other exports and reports are being prepared right now, or the server is writing as many as it takes at once. Try again in ${seconds} seconds.`), 429);
  };

  app.get('/office/pools/:id/report', async (req, reply) => {
    const id = param(req, 'id');
    const { provider, requisites } = await poolProvider(ctx, id);
    const read = await report(req, id);
    if (!read.ok) return busy(req, reply, read.retryAfterMs);
    const r = read.value;
    return page(req, reply, (s) => reportPage(s, provider, requisites, r, today()));
  });

  app.get('/office/pools/:id/report.csv', async (req, reply) => {
    const id = param(req, 'id');
    const { requisites } = await poolProvider(ctx, id);
    const read = await report(req, id);
    if (!read.ok) return busy(req, reply, read.retryAfterMs);
    const r = read.value;
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="reconciliation-${id}-${r.date}.csv"`)
      .header('Cache-Control', 'no-store')
      .send(reportCsv(r, new Map(requisites.map((q) => [q.id, q.label]))));
  });
}
