import { METHODS } from '../../../domain/catalogue.js';
import { allowedFrom, ORDER_STATUSES, reversibleIn, type OrderAction } from '../../../domain/orders.js';
import type { orderCallbackLog } from '../../../services/events.js';
import { ALL_RAILS, type OrderSearchInput } from '../../../services/office.js';
import { html, type Html, type Interpolation } from '../../html.js';
import {
  action,
  auditSection,
  csrfInput,
  href,
  ident,
  idLink,
  isAdmin,
  modeInput,
  modeSwitch,
  money,
  officePage,
  reasonAction,
  statusBadge,
  table,
  usd,
  utc,
  type Fn,
  type Shell,
} from '../ui.js';

/** The order search with every filter an operator uses, one order with its timeline and callbacks, and the orders table the queues share. */

export type OrderItem = Fn<'payedQueue'>[number];

export function ordersTable(s: Shell, caption: string, rows: readonly OrderItem[], empty: string, act?: (o: OrderItem) => Interpolation): Html {
  return table(
    caption,
    ['Order', 'Created', 'Status', { label: 'Amount, USD', kind: 'num' }, 'Method', 'Merchant, desk', 'Provider', 'Payer reference', ...(act ? [{ label: '', kind: 'action' as const }] : [])],
    rows.map((o) => [
      html`${idLink(`/office/orders/${o.id}`, o.id, 'order id')}${o.orderRef ? html`<br><span class="muted wrap-any">${o.orderRef}</span>` : ''}`,
      utc(o.createdAt),
      html`${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}`,
      html`${money(o.amount, o.currency)}<br><span class="muted">${money(o.settled.amount, 'USD')}</span>`,
      html`${o.method}${o.rail ? html` · ${o.rail}` : ''}`,
      html`<a class="mono" href="/office/merchants/${o.merchantId}">${o.merchantId}</a><br><a class="mono muted" href="/office/desks/${o.deskId}">${o.deskId}</a>`,
      o.providerId ? html`<a class="mono" href="/office/providers/${o.providerId}">${o.providerId}</a>` : html`<span class="muted">—</span>`,
      o.payerReference ? html`<span class="mono">${o.payerReference}</span>` : '',
      ...(act ? [act(o)] : []),
    ]),
    empty,
  );
}

export type OrderFilters = Required<{ [K in keyof OrderSearchInput]: string }>;

/** The orders page's filters as the links of the page keep them (empty ones left out). */
const params = (f: OrderFilters): Record<string, string> => ({ ...f });

function select(id: string, label: string, value: string, options: readonly string[], any = 'Any'): Html {
  return html`<div><label for="${id}">${label}</label><select id="${id}" name="${id}">${['', ...options].map((v) => html`<option value="${v}"${v === value ? html` selected` : ''}>${v || any}</option>`)}</select></div>`;
}

function input(id: string, label: string, value: string, o: { type?: string; size?: number; inputmode?: string; max?: number; hint?: string } = {}): Html {
  return html`<div><label for="${id}">${label}</label><input type="${o.type ?? 'text'}" id="${id}" name="${id}" value="${value}" maxlength="${o.max ?? 64}"${o.size ? html` size="${o.size}"` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.hint ? html` placeholder="${o.hint}"` : ''}></div>`;
}

export function ordersPage(s: Shell, f: OrderFilters, page: { items: OrderItem[]; hasMore: boolean; next: string | null; elsewhere?: boolean }, error: string | null): Html {
  const more = ['merchantId', 'deskId', 'providerId', 'rail', 'currency', 'amountMin', 'amountMax'].some((k) => f[k as keyof OrderFilters]);
  const other = s.mode === 'live' ? 'sandbox' : 'live';
  return officePage(
    s,
    s.mode === 'sandbox' ? 'Sandbox orders' : 'Orders',
    'orders',
    html`<div class="page-head"><h1>${s.mode === 'sandbox' ? 'Sandbox orders' : 'Live orders'}</h1>${modeSwitch('/office/orders', s.mode, params(f))}</div>
<form class="filters" method="get" action="/office/orders" role="search" aria-label="Orders">${modeInput(s.mode)}
${input('q', 'Order id, orderRef or payer reference', f.q, { max: 255 })}
${select('status', 'Status', f.status, ORDER_STATUSES)}
${select('method', 'Method', f.method, METHODS)}
${input('from', 'Created from (UTC day)', f.from, { type: 'date', max: 40 })}
${input('to', 'Created to (UTC day, inclusive)', f.to, { type: 'date', max: 40 })}
<details class="more"${more ? html` open` : ''}><summary>More filters</summary><div class="filters">
${input('merchantId', 'Merchant id', f.merchantId, { hint: 'mer_…' })}
${input('deskId', 'Desk id', f.deskId, { hint: 'dsk_…' })}
${input('providerId', 'Provider id', f.providerId, { hint: 'prv_…' })}
${select('rail', 'Rail', f.rail, ALL_RAILS)}
${input('currency', 'Currency', f.currency, { size: 5, max: 3, hint: 'INR' })}
${input('amountMin', 'Amount from', f.amountMin, { size: 10, inputmode: 'decimal', max: 30 })}
${input('amountMax', 'Amount to', f.amountMax, { size: 10, inputmode: 'decimal', max: 30 })}
</div></details>
<div class="filter-actions"><button type="submit" class="secondary">Search</button> <a href="${href('/office/orders', {}, s.mode)}">Clear</a></div></form>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<p class="list-tools"><a class="button secondary" href="${href('/office/orders.csv', params(f), s.mode)}" download>Export CSV</a> <span class="muted">every ${s.mode} order these filters match, not only this page</span></p>
${page.elsewhere ? html`<p class="notice warn" role="status">No ${s.mode} order matches, but a ${other} one does: <a href="${href('/office/orders', params(f), other)}">show ${other} orders</a>.</p>` : ''}
${ordersTable(s, `${s.mode === 'sandbox' ? 'Sandbox' : 'Live'} orders`, page.items, 'No orders match.')}
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/orders', { ...params(f), before: page.next }, s.mode)}">Older orders</a></p>` : ''}`,
  );
}

export type CallbackLine = Awaited<ReturnType<typeof orderCallbackLog>>[number];

export function orderPage(s: Shell, o: OrderItem, timeline: Fn<'orderTimeline'>, callbacks: readonly CallbackLine[], note: { kind: 'ok' | 'bad'; text: string } | null): Html {
  const admin = isAdmin(s.o);
  const can = (action: OrderAction) => allowedFrom(action, o.status);
  return officePage(
    s,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order ${ident(o.id, 'order id')} ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}</h1>
${note ? html`<p class="notice ${note.kind}" role="${note.kind === 'ok' ? 'status' : 'alert'}">${note.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="order-h"><h2 id="order-h">Order</h2>
<dl class="fields"><dt>orderRef</dt><dd>${o.orderRef ? ident(o.orderRef, 'orderRef') : '—'}</dd>${o.description ? html`<dt>Description</dt><dd class="wrap-any" id="order-description">${o.description}</dd>` : ''}<dt>Amount</dt><dd>${money(o.amount, o.currency)}</dd>
<dt>Settled</dt><dd>${usd(o.settled.amount)} at ${o.settled.rate}</dd><dt>Commission</dt><dd>${usd(o.commission.amount)} (${o.commission.rate} %)</dd>
<dt>Credited</dt><dd>${usd(o.credited.amount)}</dd><dt>Method</dt><dd>${o.method}${o.rail ? html` · ${o.rail}` : ''}</dd>
<dt>Sub-status</dt><dd>${o.subStatus}</dd><dt>Cancel reason</dt><dd>${o.cancelReason ?? '—'}</dd><dt>Payer reference</dt><dd>${ident(o.payerReference, 'payer reference')}</dd>
<dt>Merchant</dt><dd>${idLink(`/office/merchants/${o.merchantId}`, o.merchantId, 'merchant id')}</dd><dt>Desk</dt><dd>${idLink(`/office/desks/${o.deskId}`, o.deskId, 'desk id')}</dd>
<dt>Provider</dt><dd>${o.providerId ? idLink(`/office/providers/${o.providerId}`, o.providerId, 'provider id') : '—'}</dd>
<dt>Created</dt><dd>${utc(o.createdAt)}</dd><dt>Expires</dt><dd>${utc(o.expiresAt)}</dd><dt>Finished</dt><dd>${utc(o.finishedAt)}</dd></dl></section>
<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">Actions</h2>
<div class="actions">${action(s.o, `/office/orders/${o.id}/resend`, 'Resend callback', { kind: 'secondary' })}
${admin && o.sandbox && can('simulate') ? action(s.o, `/office/orders/${o.id}/simulate-payment`, 'Simulate payment', { kind: 'secondary' }) : ''}
${admin && !o.sandbox && can('report')
  ? html`<form class="reason-form" method="post" action="/office/orders/${o.id}/report-payment">${csrfInput(s.o.csrf)}<label for="payer-reference">Payer reference (UTR), if the provider gave one</label>
<input type="text" id="payer-reference" name="payerReference" maxlength="255"><button type="submit" class="secondary">Mark paid (Payed)</button></form>`
  : ''}
${admin && can('confirm') ? action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm payment') : ''}
${admin && can('reject') ? action(s.o, `/office/orders/${o.id}/reject`, 'Reject', { kind: 'danger' }) : ''}</div>
${admin && reversibleIn(o.status) ? reasonAction(s.o, `/office/orders/${o.id}/reverse`, 'Reverse', 'reason', 'Reason for the reversal', 'reverse-reason') : ''}
${admin ? '' : html`<p class="muted">Confirming, rejecting and reversing are for administrators.</p>`}
</section></div>
<section class="card" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
<ol class="timeline">${timeline.lines.map((l) => html`<li>${utc(l.at)} <strong>${l.what}</strong>${l.detail ? html` <span class="muted">${l.detail}</span>` : ''}</li>`)}</ol></section>
<section class="card" aria-labelledby="callbacks-h"><h2 id="callbacks-h">Callback attempts</h2>
${table(
  'Callback attempts',
  ['When', 'Event', { label: 'Attempt', kind: 'num' }, 'Outcome', { label: 'HTTP', kind: 'num' }, { label: 'Response or error', kind: 'wrap' }],
  callbacks.map((c) => [
    utc(c.at),
    html`${c.event}<br><span class="mono muted">${c.eventId}</span>`,
    c.attempt,
    statusBadge(c.outcome),
    c.httpCode ?? '',
    html`<span class="mono">${c.error ?? c.response ?? ''}</span>`,
  ]),
  'No callback attempt yet.',
)}</section>
${auditSection(timeline.audit, o.id)}`,
  );
}
