import { html, type Html, type Interpolation } from '../html.js';
import { allowedFrom, ORDER_STATUSES, type OrderStatus } from '../../domain/orders.js';
import { deskLabel } from './desksView.js';
import { cabinetPage, copyable, csrfInput, listTable, mayChange, money, utc, type Column } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Order pages: the filtered list and one order with its actions and callback attempts. */

export { ORDER_STATUSES };

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

export function statusBadge(status: string): Html {
  const cls = status === 'Completed' ? 'ok' : status === 'Canceled' ? '' : status === 'Dispute' ? 'bad' : 'warn';
  return html`<span class="badge ${cls}">${status}</span>`;
}

export interface DeskName {
  id: string;
  name: string;
}

/** The columns of an order in a list (the orders page, a payment link's orders). */
export function orderColumns(desks: readonly DeskName[]): Column<OrderLine>[] {
  const byId = new Map(desks.map((d) => [d.id, d]));
  return [
    { label: 'Order', cell: (l) => html`<a class="mono id" href="/cabinet/orders/${l.id}">${l.id}</a>${l.sandbox ? html` <span class="badge">test</span>` : ''}` },
    { label: 'orderRef', cell: (l) => html`<span class="mono">${l.orderRef ?? '—'}</span>` },
    { label: 'Status', cell: (l) => statusBadge(l.status) },
    { label: 'Amount', cell: (l) => money(l.amount, l.currency), num: true },
    { label: 'Settled, USD', cell: (l) => money(l.settled.amount, 'USD'), num: true },
    { label: 'Credited, USD', cell: (l) => money(l.credited.amount, 'USD'), num: true },
    { label: 'Method', cell: (l) => `${l.method}${l.rail ? ` / ${l.rail}` : ''}` },
    { label: 'Desk', cell: (l) => deskLabel(byId.get(l.deskId), l.deskId) },
    { label: 'Created (UTC)', cell: (l) => utc(l.createdAt) },
  ];
}

export function ordersPage(c: CabinetRequest, o: { filters: OrderFilters; lines: readonly OrderLine[]; next: string | null; desks: readonly DeskName[]; error: string | null }): Html {
  const f = o.filters;
  return cabinetPage(
    c,
    'Orders',
    'orders',
    html`<h1>Orders</h1>
<form class="card filters" method="get" action="/cabinet/orders" role="search">${csrfInput(c.csrf)}
<label>Status <select name="status"><option value="">Any</option>${ORDER_STATUSES.map((s) => html`<option value="${s}"${s === f.status ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>Desk <select name="desk"><option value="">Any</option>${o.desks.map((d) => html`<option value="${d.id}"${d.id === f.desk ? html` selected` : ''}>${d.name} (${d.id})</option>`)}</select></label>
<label>From (UTC) <input type="date" name="from" value="${f.from}"></label>
<label>To (UTC, before) <input type="date" name="to" value="${f.to}"></label>
<label>Order id, orderRef or payer reference <input type="text" name="q" value="${f.q}" maxlength="100"></label>
<button type="submit">Filter</button>
<a class="button secondary" href="/cabinet/orders.csv${filterQuery(f)}" download>Export CSV</a>
</form>
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${o.lines.length === 0 ? html`<p class="card">No order matches.</p>` : listTable('Orders, newest first', orderColumns(o.desks), o.lines, { wide: true, id: 'orders' })}
<nav class="pager" aria-label="Pages">${f.status || f.desk || f.from || f.to || f.q ? html`<a href="/cabinet/orders">Clear filters</a>` : ''}${o.next ? html`<a href="/cabinet/orders${filterQuery(f, { before: o.next })}" rel="next">Older orders →</a>` : ''}</nav>`,
  );
}

export interface OrderDetail {
  id: string;
  orderRef: string | null;
  status: OrderStatus;
  subStatus: string | null;
  amount: string;
  currency: string;
  settled: { amount: string; rate: string };
  commission: { rate: string; amount: string };
  credited: { amount: string };
  method: string;
  rail: string | null;
  /** The details the customer was given to pay to: every key, unused ones null. */
  payment: Record<string, string | null>;
  payerReference: string | null;
  description: string | null;
  cancelReason: string | null;
  createdAt: string;
  expiresAt: string;
  finishedAt: string | null;
  /** What a completed order was paid; differs from `amount` when support matched money of another amount to it. */
  paidAmount: string | null;
  deskId: string;
  sandbox: boolean;
  /** False for an order made without one (a payment link on a desk without a callback URL): no callback is sent. */
  hasCallbackUrl: boolean;
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

/** The payment details as the customer saw them, in the payment page's order, each copyable. */
const DETAIL_LABELS: [key: string, label: string][] = [
  ['card', 'Card number'],
  ['phone', 'Phone'],
  ['account', 'Account'],
  ['iban', 'IBAN'],
  ['upiId', 'UPI id'],
  ['holder', 'Recipient'],
  ['bank', 'Bank'],
  ['url', 'Payment address'],
];

function paymentDetails(o: OrderDetail): Html {
  const given = DETAIL_LABELS.filter(([k]) => o.payment[k]);
  const shown = (k: string, v: string) => (k === 'card' || k === 'iban' ? v.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ') : v);
  return html`<section class="card" aria-labelledby="pay-h"><h2 id="pay-h">What the customer was given</h2>
<p><a href="/pay/${o.id}">Open the payment page</a> <span class="mono small">/pay/${o.id}</span></p>
${given.length === 0 ? html`<p class="muted">No payment details: the order was not placed with a provider.</p>` : ''}
<dl class="fields">${given.map(([k, label]) => html`<dt>${label}</dt><dd>${copyable(shown(k, o.payment[k]!), label.toLowerCase())}</dd>`)}
<dt>Reported reference</dt><dd>${o.payerReference ? copyable(o.payerReference, 'reported reference') : html`<span class="muted">none reported</span>`}</dd>
</dl>
<p class="hint">The reference the customer reported on the payment page (the UTR of a UPI payment, the bank's reference of a transfer).</p>
</section>`;
}

export function orderPage(c: CabinetRequest, o: OrderDetail, desk: DeskName | undefined, attempts: readonly Attempt[], notice: { kind: 'ok' | 'bad'; text: string } | null, more: Interpolation = null): Html {
  const canSimulate = o.sandbox && allowedFrom('simulate', o.status);
  return cabinetPage(
    c,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order <span class="mono id">${o.id}</span> ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">test</span>` : ''}</h1>
${notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'bad' ? 'alert' : 'status'}">${notice.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="ord-h"><h2 id="ord-h">Order</h2><dl class="fields">
<dt>Order id</dt><dd>${copyable(o.id, 'order id')}</dd>
<dt>orderRef</dt><dd class="mono">${o.orderRef ?? '—'}</dd>
${o.description ? html`<dt>Description</dt><dd>${o.description}</dd>` : ''}
<dt>Status</dt><dd>${o.status}${o.subStatus ? ` (${o.subStatus})` : ''}</dd>
<dt>Amount</dt><dd>${money(o.amount, o.currency)}</dd>${o.paidAmount !== null && o.paidAmount !== o.amount ? html`
<dt>Paid</dt><dd data-field="paid-amount">${money(o.paidAmount, o.currency)} <span class="hint">the money that arrived; settled, fee and credit follow it</span></dd>` : ''}
<dt>Method</dt><dd>${o.method}${o.rail ? ` / ${o.rail}` : ''}</dd>
<dt>Desk</dt><dd>${deskLabel(desk, o.deskId)}</dd>
${o.cancelReason ? html`<dt>Cancel reason</dt><dd>${o.cancelReason}</dd>` : ''}
<dt>Created</dt><dd>${utc(o.createdAt)}</dd>
<dt>Expires</dt><dd>${utc(o.expiresAt)}</dd>
<dt>Finished</dt><dd>${utc(o.finishedAt)}</dd>
</dl></section>
${paymentDetails(o)}
</div>
<section class="card" aria-labelledby="money-h"><h2 id="money-h">Settlement, fee and credit</h2><dl class="fields">
<dt>Rate</dt><dd>${o.settled.rate} ${o.currency} per USD</dd>
<dt>Settled</dt><dd>${money(o.settled.amount, 'USD')} <span class="hint">exactly ${o.settled.amount}</span></dd>
<dt>Fee</dt><dd>${money(o.commission.amount, 'USD')} (${o.commission.rate} %) <span class="hint">exactly ${o.commission.amount}</span></dd>
<dt>Credited</dt><dd>${money(o.credited.amount, 'USD')} <span class="hint">exactly ${o.credited.amount}</span></dd>
</dl><p class="hint">The fee and credit are set when the order completes.</p></section>
${mayChange(c)
  ? html`<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2><div class="actions">
${canSimulate ? html`<form class="inline" method="post" action="/cabinet/orders/${o.id}/simulate-payment">${csrfInput(c.csrf)}<button type="submit">Simulate payment</button></form>` : ''}
${o.hasCallbackUrl ? html`<form class="inline" method="post" action="/cabinet/orders/${o.id}/resend">${csrfInput(c.csrf)}<button type="submit" class="secondary">Resend callback</button></form>` : ''}
</div><p class="hint">${o.hasCallbackUrl
  ? 'Resend posts the order\'s current state to your callback URL as a new event with a new event id.'
  : 'This order was made without a callback URL (its desk has none): no callback is sent, and its events are kept in the events feed.'}${o.sandbox ? '' : ' Live orders are completed by the payment itself.'}</p></section>`
  : ''}
${more}
<section class="card" aria-labelledby="cb-h"><h2 id="cb-h">Callback attempts</h2>
${attempts.length === 0
  ? html`<p class="muted">No delivery attempt yet.</p>`
  : listTable<Attempt>('Callback attempts, newest first', [
      { label: 'Time (UTC)', cell: (a) => utc(a.at) },
      { label: 'Event', cell: (a) => html`<span class="mono">${a.eventId}</span><br>${a.event}` },
      { label: 'Attempt', cell: (a) => a.attempt, num: true },
      { label: 'Outcome', cell: (a) => a.outcome },
      { label: 'HTTP code', cell: (a) => a.httpCode ?? '—', num: true },
      { label: 'Answer (first 300 characters)', cell: (a) => (a.response ?? a.error ?? '').slice(0, 300), className: 'mono' },
    ], attempts)}
</section>`,
  );
}
