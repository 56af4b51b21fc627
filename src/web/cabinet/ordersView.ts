import { html, type Html, type Interpolation } from '../html.js';
import { cabinetPage, csrfInput, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Order pages: the filtered list and one order with its actions and callback attempts. */

export const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute'] as const;

export interface OrderFilters {
  status: string;
  desk: string;
  from: string;
  to: string;
  q: string;
}

/** A line of the orders list: the order page's shape. */
export type OrderLine = OrderDetail;

/** The filters as a query string (no CSRF token: links to lists and exports carry none). */
export function filterQuery(f: OrderFilters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

function statusBadge(status: string): Html {
  const cls = status === 'Completed' ? 'ok' : status === 'Canceled' ? '' : status === 'Dispute' ? 'bad' : 'warn';
  return html`<span class="badge ${cls}">${status}</span>`;
}

export function ordersPage(c: CabinetRequest, o: { filters: OrderFilters; lines: readonly OrderLine[]; next: string | null; desks: readonly string[]; error: string | null }): Html {
  const f = o.filters;
  return cabinetPage(
    c,
    'Orders',
    'orders',
    html`<h1>Orders</h1>
<form class="card filters" method="get" action="/cabinet/orders" role="search">${csrfInput(c.csrf)}
<label>Status <select name="status"><option value="">Any</option>${ORDER_STATUSES.map((s) => html`<option value="${s}"${s === f.status ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>Desk <select name="desk"><option value="">Any</option>${o.desks.map((d) => html`<option value="${d}"${d === f.desk ? html` selected` : ''}>${d}</option>`)}</select></label>
<label>From (UTC) <input type="date" name="from" value="${f.from}"></label>
<label>To (UTC, before) <input type="date" name="to" value="${f.to}"></label>
<label>Order id or orderRef <input type="text" name="q" value="${f.q}" maxlength="100"></label>
<button type="submit">Filter</button>
<a class="button secondary" href="/cabinet/orders.csv${filterQuery(f)}" download>Export CSV</a>
</form>
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${o.lines.length === 0
  ? html`<p class="card">No order matches.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><caption class="skip">Orders, newest first</caption><thead><tr><th scope="col">Order</th><th scope="col">orderRef</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Settled, USD</th><th scope="col">Credited, USD</th><th scope="col">Method</th><th scope="col">Desk</th><th scope="col">Created (UTC)</th></tr></thead><tbody>
${o.lines.map((l) => html`<tr><td><a class="mono" href="/cabinet/orders/${l.id}">${l.id}</a>${l.sandbox ? html` <span class="badge">test</span>` : ''}</td><td class="mono">${l.orderRef ?? '—'}</td><td>${statusBadge(l.status)}</td><td class="num">${l.amount} ${l.currency}</td><td class="num">${l.settled.amount}</td><td class="num">${l.credited.amount}</td><td>${l.method}${l.rail ? ` / ${l.rail}` : ''}</td><td class="mono">${l.deskId}</td><td>${utc(l.createdAt)}</td></tr>`)}
</tbody></table></div>`}
<nav class="pager" aria-label="Pages">${f.status || f.desk || f.from || f.to || f.q ? html`<a href="/cabinet/orders">Clear filters</a>` : ''}${o.next ? html`<a href="/cabinet/orders${filterQuery(f, { before: o.next })}" rel="next">Older orders →</a>` : ''}</nav>`,
  );
}

export interface OrderDetail {
  id: string;
  orderRef: string | null;
  status: string;
  subStatus: string | null;
  amount: string;
  currency: string;
  settled: { amount: string; rate: string };
  commission: { rate: string; amount: string };
  credited: { amount: string };
  method: string;
  rail: string | null;
  payerReference: string | null;
  cancelReason: string | null;
  createdAt: string;
  expiresAt: string;
  finishedAt: string | null;
  deskId: string;
  sandbox: boolean;
}

export interface Attempt {
  eventId: string;
  event: string;
  attempt: number;
  outcome: string;
  httpCode: number | null;
  response: string | null;
  error: string | null;
  at: string;
}

export function orderPage(c: CabinetRequest, o: OrderDetail, attempts: readonly Attempt[], notice: { kind: 'ok' | 'bad'; text: string } | null, more: Interpolation = null): Html {
  const canSimulate = o.sandbox && (o.status === 'Created' || o.status === 'Payed' || o.status === 'Dispute');
  return cabinetPage(
    c,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order <span class="mono">${o.id}</span> ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">test</span>` : ''}</h1>
${notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'bad' ? 'alert' : 'status'}">${notice.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="ord-h"><h2 id="ord-h">Order</h2><dl class="fields">
<dt>orderRef</dt><dd class="mono">${o.orderRef ?? '—'}</dd>
<dt>Status</dt><dd>${o.status}${o.subStatus ? ` (${o.subStatus})` : ''}</dd>
<dt>Amount</dt><dd>${o.amount} ${o.currency}</dd>
<dt>Method</dt><dd>${o.method}${o.rail ? ` / ${o.rail}` : ''}</dd>
<dt>Desk</dt><dd><a class="mono" href="/cabinet/desks/${o.deskId}">${o.deskId}</a></dd>
<dt>Payer reference</dt><dd class="mono">${o.payerReference ?? '—'}</dd>
${o.cancelReason ? html`<dt>Cancel reason</dt><dd>${o.cancelReason}</dd>` : ''}
<dt>Created</dt><dd>${utc(o.createdAt)}</dd>
<dt>Expires</dt><dd>${utc(o.expiresAt)}</dd>
<dt>Finished</dt><dd>${utc(o.finishedAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="money-h"><h2 id="money-h">Settlement, fee and credit</h2><dl class="fields">
<dt>Rate</dt><dd>${o.settled.rate} ${o.currency} per USD</dd>
<dt>Settled</dt><dd>${o.settled.amount} USD</dd>
<dt>Fee</dt><dd>${o.commission.amount} USD (${o.commission.rate} %)</dd>
<dt>Credited</dt><dd>${o.credited.amount} USD</dd>
</dl><p class="hint">The fee and credit are set when the order completes.</p></section></div>
<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2><div class="actions">
${canSimulate ? html`<form class="inline" method="post" action="/cabinet/orders/${o.id}/simulate-payment">${csrfInput(c.csrf)}<button type="submit">Simulate payment</button></form>` : ''}
<form class="inline" method="post" action="/cabinet/orders/${o.id}/resend">${csrfInput(c.csrf)}<button type="submit" class="secondary">Resend callback</button></form>
</div><p class="hint">Resend posts the order's current state to your callback URL as a new event with a new event id.${o.sandbox ? '' : ' Live orders are completed by the payment itself.'}</p></section>
${more}
<section class="card" aria-labelledby="cb-h"><h2 id="cb-h">Callback attempts</h2>
${attempts.length === 0
  ? html`<p class="muted">No delivery attempt yet.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">HTTP code</th><th scope="col">Answer (first 300 characters)</th></tr></thead><tbody>
${attempts.map((a) => html`<tr><td>${utc(a.at)}</td><td><span class="mono">${a.eventId}</span><br>${a.event}</td><td class="num">${a.attempt}</td><td>${a.outcome}</td><td class="num">${a.httpCode ?? '—'}</td><td class="wrap mono">${(a.response ?? a.error ?? '').slice(0, 300)}</td></tr>`)}
</tbody></table></div>`}
</section>`,
  );
}

