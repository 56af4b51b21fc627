import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
import { auditSection, csrfInput, officePage, statusBadge, usd, utc, type AuditItem, type Fn, type Shell } from '../ui.js';

/** One appeal, its decision form and its evidence (the open-appeals queue shows the same pieces). */

export type AppealItem = Fn<'appealQueue'>['items'][number];

export function appealPage(s: Shell, a: AppealItem, audit: readonly AuditItem[]): Html {
  return officePage(
    s,
    `Appeal ${a.id}`,
    'appeals',
    html`<h1>Appeal <span class="mono">${a.id}</span> ${a.status === 'Open' ? (a.overdue ? html`<span class="badge bad">Overdue</span>` : html`<span class="badge warn">Open</span>`) : statusBadge(a.status)}</h1>
<section class="card"><dl class="fields">
<dt>Order</dt><dd><a href="/office/orders/${a.orderId}">${a.orderId}</a> · ${statusBadge(a.order.status)} · ${a.order.amount} ${a.order.currency}</dd>
<dt>Amount</dt><dd>${usd(a.amount.value)}</dd><dt>Decide by</dt><dd>${utc(a.slaDueAt)}</dd><dt>Reason</dt><dd>${a.reason ?? '—'}</dd>
<dt>Evidence</dt><dd>${evidence(a)}</dd>
<dt>Comment</dt><dd>${a.comment ?? '—'}</dd><dt>Resolved</dt><dd>${utc(a.resolvedAt)}</dd></dl>
${a.status === 'Open' ? decideForms(s.o, a.id) : ''}</section>
${auditSection(audit, a.id)}`,
  );
}

export function decideForms(o: OfficeRequest, id: string): Html {
  return html`<form class="decide" method="post" action="/office/appeals/${id}/accept">${csrfInput(o.csrf)}
<label for="comment-${id}">Comment (sent to the merchant)</label>
<textarea id="comment-${id}" name="comment" rows="2" maxlength="1000"></textarea>
<div class="actions"><button type="submit">Accept</button>
<button type="submit" class="danger" formaction="/office/appeals/${id}/reject">Reject</button></div>
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

