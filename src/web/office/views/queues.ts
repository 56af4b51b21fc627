import { html, type Html } from '../../html.js';
import { action, href, idLink, isAdmin, modeSwitch, money, notice, officePage, statusBadge, table, usd, utc, type Fn, type Shell } from '../ui.js';
import { decideForms, evidence } from './appeals.js';
import { ordersTable } from './orders.js';

/** The work queues, the most urgent first: open appeals, payments to confirm, orders to reconcile, failing callbacks (applications to review: applications.ts). */

export function appealQueuePage(s: Shell, page: Fn<'appealQueue'>, done: string | null): Html {
  return officePage(
    s,
    'Open appeals',
    'appeals',
    html`<div class="page-head"><h1>${s.mode === 'sandbox' ? 'Open appeals of sandbox orders' : 'Open appeals'}</h1>${modeSwitch('/office/queues/appeals', s.mode)}</div>${notice(done)}
${page.elsewhere > 0 ? html`<p class="notice warn" role="status">${page.elsewhere} open ${page.elsewhere === 1 ? 'appeal' : 'appeals'} of ${s.mode === 'live' ? 'sandbox' : 'live'} orders: <a href="${href('/office/queues/appeals', {}, s.mode === 'live' ? 'sandbox' : 'live')}">show ${page.elsewhere === 1 ? 'it' : 'them'}</a>.</p>` : ''}
<p class="muted">The nearest decision deadline first. Accepting completes the order and credits the merchant; rejecting cancels it.</p>
${page.items.length === 0 ? html`<p class="muted empty">No open appeals.</p>` : ''}
<ul class="queue">${page.items.map(
      (a) => html`<li class="card${a.overdue ? ' overdue' : ''}" id="appeal-${a.id}">
<h2>${idLink(`/office/appeals/${a.id}`, a.id, 'appeal id')} ${a.overdue ? html`<span class="badge bad">Overdue</span>` : html`<span class="badge warn">Open</span>`}</h2>
<dl class="fields">
<dt>Decide by</dt><dd>${utc(a.slaDueAt)}</dd>
<dt>Order</dt><dd>${idLink(`/office/orders/${a.orderId}`, a.orderId, 'order id')}${a.orderRef ? html` (${a.orderRef})` : ''} · ${statusBadge(a.order.status)}</dd>
<dt>Amount</dt><dd>${money(a.order.amount, a.order.currency)} · ${usd(a.amount.value)}</dd>
<dt>Merchant</dt><dd>${idLink(`/office/merchants/${a.merchantId}`, a.merchantId, 'merchant id')}</dd>
<dt>Reason</dt><dd>${a.reason ?? html`<span class="muted">none given</span>`}</dd>
<dt>Evidence</dt><dd>${evidence(a)}</dd>
</dl>
${decideForms(s.o, a.id, s.mode)}
</li>`,
    )}</ul>
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/queues/appeals', { after: page.next }, s.mode)}">Next appeals</a></p>` : ''}`,
  );
}

export function payedQueuePage(s: Shell, rows: Fn<'payedQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Payments to confirm',
    'payed',
    html`<h1>Payments to confirm</h1>${notice(done)}
<p class="muted">Pool orders marked paid (<code>Payed</code>), the oldest first. Confirm once the money is on the platform's account; a payer's reported reference alone does not put an order here.</p>
<p class="list-tools"><a class="button secondary" href="/office/queues/payed.csv" download>Export CSV</a></p>
${ordersTable(s, 'Pool orders awaiting confirmation', rows, 'No payment waits for confirmation.', admin ? (o) => action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm', { fields: html`<input type="hidden" name="from" value="payed">` }) : undefined)}`,
  );
}

export function reconcileQueuePage(s: Shell, rows: Fn<'reconcileQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'To reconcile',
    'reconcile',
    html`<h1>Cancelled orders to reconcile</h1>${notice(done)}
<p class="muted">Live orders that were cancelled although a payment reference came for them, the oldest first. Confirm when the money did arrive: the order completes and the merchant is credited.</p>
<p class="list-tools"><a class="button secondary" href="/office/queues/reconcile.csv" download>Export CSV</a></p>
${ordersTable(s, 'Cancelled orders with a payment reference', rows, 'Nothing to reconcile.', admin ? (o) => action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm', { fields: html`<input type="hidden" name="from" value="reconcile">` }) : undefined)}`,
  );
}

export function callbackQueuePage(s: Shell, rows: Fn<'callbackQueue'>): Html {
  return officePage(
    s,
    'Failing callbacks',
    'callbacks',
    html`<h1>Failing callback endpoints</h1>
<p class="muted">Endpoints with failed or retrying events in the last 7 days, the most failing first.</p>
<p class="list-tools"><a class="button secondary" href="/office/queues/callbacks.csv" download>Export CSV</a></p>
${table(
  'Failing callback endpoints',
  ['Desk, merchant', { label: 'Endpoint', kind: 'wrap' }, { label: 'Failed', kind: 'num' }, { label: 'Retrying', kind: 'num' }, 'Last event', { label: 'Last error', kind: 'wrap' }],
  rows.map((r) => [
    html`<a class="mono" href="/office/desks/${r.deskId}">${r.deskId}</a><br><a class="mono muted" href="/office/merchants/${r.merchantId}">${r.merchantId}</a>`,
    html`<span class="mono">${r.url ?? '—'}</span>`,
    r.failed,
    r.retrying,
    utc(r.lastEventAt),
    r.lastError ?? '',
  ]),
  'Every endpoint is answering.',
)}`,
  );
}

