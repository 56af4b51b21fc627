import { APPEAL_STATUSES } from '../../../domain/appealGuard.js';
import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
import { auditSection, csrfInput, href, ident, idLink, modeInput, modeSwitch, money, officePage, statusBadge, table, usd, utc, type AuditItem, type Fn, type Mode, type Shell } from '../ui.js';

/** Every appeal of one mode with its filters, one appeal, its decision form and its evidence (the open-appeals queue shows the same pieces). */

export type AppealItem = Fn<'appealQueue'>['items'][number];
type ListedAppeal = Fn<'listAppeals'>['items'][number];

const appealBadge = (a: { status: string; overdue: boolean }) =>
  a.status === 'Open' ? (a.overdue ? html`<span class="badge bad">Overdue</span>` : html`<span class="badge warn">Open</span>`) : statusBadge(a.status);

export function appealsListPage(s: Shell, page: { items: ListedAppeal[]; hasMore: boolean; next: string | null }, f: { status: string; merchantId: string }): Html {
  return officePage(
    s,
    'Appeals',
    'appeal-list',
    html`<div class="page-head"><h1>${s.mode === 'sandbox' ? 'Appeals of sandbox orders' : 'Appeals of live orders'}</h1>${modeSwitch('/office/appeals', s.mode, f)}</div>
<p class="muted">Every appeal, newest first. The <a href="/office/queues/appeals">open-appeals queue</a> lists those waiting for a decision, the nearest deadline first.</p>
<form class="filters" method="get" action="/office/appeals" role="search" aria-label="Appeals">${modeInput(s.mode)}
<div><label for="status">Status</label><select id="status" name="status">${['', ...APPEAL_STATUSES].map((v) => html`<option value="${v}"${v === f.status ? html` selected` : ''}>${v || 'Any'}</option>`)}</select></div>
<div><label for="merchantId">Merchant id</label><input type="text" id="merchantId" name="merchantId" value="${f.merchantId}" maxlength="64" placeholder="mer_…"></div>
<div class="filter-actions"><button type="submit" class="secondary">Show</button> <a href="${href('/office/appeals', {}, s.mode)}">Clear</a></div></form>
<p class="list-tools"><a class="button secondary" href="${href('/office/appeals.csv', f, s.mode)}" download>Export CSV</a> <span class="muted">every appeal these filters match</span></p>
${table(
  'Appeals',
  ['Appeal', 'Opened', 'Status', 'Order', { label: 'Amount', kind: 'num' }, 'Merchant', 'Decide by', { label: 'Reason', kind: 'wrap' }],
  page.items.map((a) => [
    idLink(`/office/appeals/${a.id}`, a.id, 'appeal id'),
    utc(a.createdAt),
    appealBadge(a),
    html`<a class="mono" href="/office/orders/${a.orderId}">${a.orderId}</a>${a.orderRef ? html`<br><span class="muted">${a.orderRef}</span>` : ''}<br>${statusBadge(a.order.status)}`,
    html`${money(a.order.amount, a.order.currency)}<br>${usd(a.amount.value)}`,
    html`<a class="mono" href="/office/merchants/${a.merchantId}">${a.merchantId}</a>`,
    utc(a.slaDueAt),
    a.reason ?? html`<span class="muted">none given</span>`,
  ]),
  'No appeals match.',
)}
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/appeals', { ...f, before: page.next }, s.mode)}">Older appeals</a></p>` : ''}`,
  );
}

export function appealPage(s: Shell, a: AppealItem, audit: readonly AuditItem[]): Html {
  return officePage(
    s,
    `Appeal ${a.id}`,
    'appeals',
    html`<h1>Appeal ${ident(a.id, 'appeal id')} ${appealBadge(a)}</h1>
<section class="card"><dl class="fields">
<dt>Order</dt><dd>${idLink(`/office/orders/${a.orderId}`, a.orderId, 'order id')} · ${statusBadge(a.order.status)} · ${money(a.order.amount, a.order.currency)}</dd>
<dt>Merchant</dt><dd>${idLink(`/office/merchants/${a.merchantId}`, a.merchantId, 'merchant id')}</dd>
<dt>Amount</dt><dd>${usd(a.amount.value)}</dd><dt>Decide by</dt><dd>${utc(a.slaDueAt)}</dd><dt>Reason</dt><dd>${a.reason ?? '—'}</dd>
<dt>Evidence</dt><dd>${evidence(a)}</dd>
<dt>Comment</dt><dd>${a.comment ?? '—'}</dd><dt>Resolved</dt><dd>${utc(a.resolvedAt)}</dd></dl>
${a.status === 'Open' ? decideForms(s.o, a.id, s.mode) : ''}</section>
${auditSection(audit, a.id)}`,
  );
}

/** Accept or reject with a comment; the answer goes back to the queue of the mode the operator is in. */
export function decideForms(o: OfficeRequest, id: string, mode: Mode = 'live'): Html {
  return html`<form class="decide" method="post" action="${href(`/office/appeals/${id}/accept`, {}, mode)}">${csrfInput(o.csrf)}
<label for="comment-${id}">Comment (sent to the merchant)</label>
<textarea id="comment-${id}" name="comment" rows="2" maxlength="1000"></textarea>
<div class="actions"><button type="submit">Accept</button>
<button type="submit" class="danger" formaction="${href(`/office/appeals/${id}/reject`, {}, mode)}">Reject</button></div>
</form>`;
}

/**
 * The evidence links (the API takes several separated by `;`) and the receipt file. Only web
 * addresses become links; anything else is shown as text.
 */
export function evidence(a: { id: string; evidenceUrl: string | null; hasReceipt: boolean }): Html {
  const links = (a.evidenceUrl ?? '').split(';').map((u) => u.trim()).filter(Boolean).map((u) =>
    /^https?:\/\//i.test(u) ? html`<a href="${u}" rel="noopener noreferrer" target="_blank">${u}</a>` : html`<span>${u}</span>`,
  );
  const receipt = a.hasReceipt ? html`<a href="/office/appeals/${a.id}/receipt">Receipt file</a>` : null;
  const all = receipt ? [...links, receipt] : links;
  return all.length === 0 ? html`<span class="muted">none</span>` : html`${all.map((x, i) => (i === 0 ? x : html` · ${x}`))}`;
}

