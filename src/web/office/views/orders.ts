import type { orderCallbackLog } from '../../../services/events.js';
import { html, type Html, type Interpolation } from '../../html.js';
import { action, auditSection, isAdmin, officePage, reasonAction, statusBadge, table, usd, utc, type Fn, type Shell } from '../ui.js';

/** The order search, one order with its timeline and callbacks, and the orders table the queues share. */

export type OrderItem = Fn<'payedQueue'>[number];

export function ordersTable(s: Shell, caption: string, rows: readonly OrderItem[], empty: string, act?: (o: OrderItem) => Interpolation): Html {
  return table(
    caption,
    ['Order', 'Created', 'Status', 'Amount', 'USD', 'Method', 'Payer reference', ...(act ? [''] : [])],
    rows.map(
      (o) => html`<tr><td><a href="/office/orders/${o.id}">${o.id}</a>${o.orderRef ? html`<br><span class="muted">${o.orderRef}</span>` : ''}</td><td>${utc(o.createdAt)}</td>
<td>${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td class="num">${o.amount} ${o.currency}</td><td class="num">${o.settled.amount}</td>
<td>${o.method}${o.rail ? html` · ${o.rail}` : ''}</td><td class="mono">${o.payerReference ?? ''}</td>${act ? html`<td>${act(o)}</td>` : ''}</tr>`,
    ),
    empty,
  );
}

// ---- orders

export function ordersPage(s: Shell, f: { q: string; status: string; merchantId: string; deskId: string }, page: { items: OrderItem[]; hasMore: boolean; next: string | null }, error: string | null): Html {
  const qs = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== '')).toString();
  return officePage(
    s,
    'Orders',
    'orders',
    html`<h1>Orders</h1>
<form class="filters" method="get" action="/office/orders" role="search">
<div><label for="q">Order id, orderRef or payer reference</label><input type="text" id="q" name="q" value="${f.q}" maxlength="100"></div>
<div><label for="status">Status</label><select id="status" name="status">${['', 'Created', 'Payed', 'Completed', 'Canceled', 'Dispute'].map((v) => html`<option value="${v}"${v === f.status ? html` selected` : ''}>${v || 'Any'}</option>`)}</select></div>
${f.merchantId ? html`<input type="hidden" name="merchantId" value="${f.merchantId}">` : ''}${f.deskId ? html`<input type="hidden" name="deskId" value="${f.deskId}">` : ''}
<button type="submit" class="secondary">Search</button></form>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
${ordersTable(s, 'Orders', page.items, 'No orders match.')}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/orders?${qs}${qs ? '&' : ''}before=${page.next}">Older orders</a></p>` : ''}`,
  );
}

export type CallbackLine = Awaited<ReturnType<typeof orderCallbackLog>>[number];

export function orderPage(s: Shell, o: OrderItem, timeline: Fn<'orderTimeline'>, callbacks: readonly CallbackLine[], note: { kind: 'ok' | 'bad'; text: string } | null): Html {
  const admin = isAdmin(s.o);
  const can = (statuses: string[]) => statuses.includes(o.status);
  return officePage(
    s,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order <span class="mono">${o.id}</span> ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}</h1>
${note ? html`<p class="notice ${note.kind}" role="${note.kind === 'ok' ? 'status' : 'alert'}">${note.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="order-h"><h2 id="order-h">Order</h2>
<dl class="fields"><dt>orderRef</dt><dd>${o.orderRef ?? '—'}</dd><dt>Amount</dt><dd>${o.amount} ${o.currency}</dd>
<dt>Settled</dt><dd>${usd(o.settled.amount)} at ${o.settled.rate}</dd><dt>Commission</dt><dd>${usd(o.commission.amount)} (${o.commission.rate} %)</dd>
<dt>Credited</dt><dd>${usd(o.credited.amount)}</dd><dt>Method</dt><dd>${o.method}${o.rail ? html` · ${o.rail}` : ''}</dd>
<dt>Sub-status</dt><dd>${o.subStatus}</dd><dt>Cancel reason</dt><dd>${o.cancelReason ?? '—'}</dd><dt>Payer reference</dt><dd class="mono">${o.payerReference ?? '—'}</dd>
<dt>Merchant</dt><dd><a href="/office/merchants/${o.merchantId}">${o.merchantId}</a></dd><dt>Desk</dt><dd><a href="/office/desks/${o.deskId}">${o.deskId}</a></dd>
<dt>Provider</dt><dd>${o.providerId ? html`<a href="/office/providers/${o.providerId}">${o.providerId}</a>` : '—'}</dd>
<dt>Created</dt><dd>${utc(o.createdAt)}</dd><dt>Expires</dt><dd>${utc(o.expiresAt)}</dd><dt>Finished</dt><dd>${utc(o.finishedAt)}</dd></dl></section>
<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">Actions</h2>
<div class="actions">${action(s.o, `/office/orders/${o.id}/resend`, 'Resend callback', { kind: 'secondary' })}
${admin && o.sandbox && can(['Created']) ? action(s.o, `/office/orders/${o.id}/simulate-payment`, 'Simulate payment', { kind: 'secondary' }) : ''}
${admin && !o.sandbox && can(['Created']) ? action(s.o, `/office/orders/${o.id}/report-payment`, 'Mark paid (Payed)', { kind: 'secondary' }) : ''}
${admin && can(['Created', 'Payed', 'Canceled', 'Dispute']) ? action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm payment') : ''}
${admin && can(['Created', 'Payed']) ? action(s.o, `/office/orders/${o.id}/reject`, 'Reject', { kind: 'danger' }) : ''}</div>
${admin && o.status === 'Completed' ? reasonAction(s.o, `/office/orders/${o.id}/reverse`, 'Reverse', 'reason', 'Reason for the reversal', 'reverse-reason') : ''}
${admin ? '' : html`<p class="muted">Confirming, rejecting and reversing are for administrators.</p>`}
</section></div>
<section class="card" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
<ol class="timeline">${timeline.lines.map((l) => html`<li>${utc(l.at)} <strong>${l.what}</strong>${l.detail ? html` <span class="muted">${l.detail}</span>` : ''}</li>`)}</ol></section>
<section class="card" aria-labelledby="callbacks-h"><h2 id="callbacks-h">Callback attempts</h2>
${table(
  'Callback attempts',
  ['When', 'Event', 'Attempt', 'Outcome', 'HTTP', 'Response or error'],
  callbacks.map(
    (c) => html`<tr><td>${utc(c.at)}</td><td>${c.event}<br><span class="mono muted">${c.eventId}</span></td><td class="num">${c.attempt}</td><td>${statusBadge(c.outcome)}</td><td class="num">${c.httpCode ?? ''}</td><td class="wrap mono">${c.error ?? c.response ?? ''}</td></tr>`,
  ),
  'No callback attempt yet.',
)}</section>
${auditSection(timeline.audit, o.id)}`,
  );
}

