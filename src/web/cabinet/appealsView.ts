import type { appealView } from '../../services/appeals.js';
import { html, type Html } from '../html.js';
import { cabinetPage, csrfInput, listTable, mayChange, money, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Appeal pages of the cabinet: the list, one appeal with its receipt, and the form that opens one. */

/** An appeal as the API shows it, with the review's overdue mark where the list has it. */
export type AppealLine = ReturnType<typeof appealView> & { overdue?: boolean };

export interface AppealDetail extends AppealLine {
  order: { id: string; status: string; amount: string; currency: string };
  receipt: { contentType: string; fileName: string | null; sizeBytes: number; sha256: string } | null;
}

export function appealBadge(status: string): Html {
  const cls = status === 'Accepted' ? 'ok' : status === 'Rejected' ? 'bad' : status === 'Open' ? 'warn' : '';
  return html`<span class="badge ${cls}">${status}</span>`;
}

/** What the appeal form holds: empty, or as typed before a refusal (the receipt aside: a file is never sent back). */
export interface AppealFormValues {
  orderId: string;
  reason: string;
  evidenceUrl: string;
}
export const EMPTY_APPEAL_FORM: AppealFormValues = { orderId: '', reason: '', evidenceUrl: '' };

/**
 * The upload form: multipart, so the receipt travels with the fields; `_csrf` first, so it is read
 * even when the file is too large. On an order's page the order is fixed (a hidden field); a
 * refusal is shown inside the form with what was typed.
 */
export function appealForm(c: CabinetRequest, fixedOrderId: string | null, v: AppealFormValues = EMPTY_APPEAL_FORM, error: string | null = null): Html {
  return html`<form class="card stack" method="post" action="/cabinet/appeals" enctype="multipart/form-data" id="appeal-form"${error ? html` aria-describedby="appeal-error"` : ''}>${csrfInput(c.csrf)}
<h2 id="appeal-form-h">Open an appeal</h2>
<p class="hint">For an order your customer paid but that closed without a credit. The order moves to Dispute while we review it; the decision target is 24 hours.</p>
${error ? html`<p class="notice bad" role="alert" id="appeal-error"><strong>No appeal was opened.</strong> ${error}${v.orderId || v.reason || v.evidenceUrl ? ' What you typed is kept; choose the receipt again.' : ''}</p>` : ''}
${fixedOrderId
  ? html`<input type="hidden" name="orderId" value="${fixedOrderId}">`
  : html`<label>Order id or orderRef <input type="text" name="orderId" required maxlength="255" autocomplete="off" value="${v.orderId}"></label>`}
<label>What happened <span class="hint">Payer name, time of the transfer, bank: what helps us find the payment.</span>
<textarea name="reason" rows="3" maxlength="2000">${v.reason}</textarea></label>
<label>Evidence links <span class="hint">Optional: URLs we can open, one per line.</span>
<textarea name="evidenceUrl" rows="2" maxlength="4096">${v.evidenceUrl}</textarea></label>
<label>Receipt <span class="hint">Optional: a PDF, PNG or JPEG of the transfer, at most 5 MiB.</span>
<input type="file" name="receipt" accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"></label>
<div><button type="submit">Open appeal</button></div>
</form>`;
}

export function appealsPage(c: CabinetRequest, lines: readonly AppealLine[], next: string | null, form: { values: AppealFormValues; error: string | null } = { values: EMPTY_APPEAL_FORM, error: null }): Html {
  return cabinetPage(
    c,
    'Appeals',
    'appeals',
    html`<h1>Appeals</h1>
${lines.length === 0
  ? html`<p class="card">No appeal yet. Open one from a cancelled order’s page, or below.</p>`
  : listTable<AppealLine>('Appeals, newest first', [
      { label: 'Appeal', cell: (a) => html`<a class="mono id" href="/cabinet/appeals/${a.id}">${a.id}</a>` },
      { label: 'Order', cell: (a) => html`<a class="mono" href="/cabinet/orders/${a.orderId}">${a.orderRef ?? a.orderId}</a>` },
      { label: 'Status', cell: (a) => html`${appealBadge(a.status)}${a.overdue ? html` <span class="badge bad">overdue</span>` : ''}` },
      { label: 'Amount', cell: (a) => money(a.amount.value, a.amount.currency), num: true },
      { label: 'Opened (UTC)', cell: (a) => utc(a.createdAt) },
      { label: 'Decision due (UTC)', cell: (a) => (a.status === 'Open' ? utc(a.slaDueAt) : html`<span class="muted">decided</span> ${utc(a.resolvedAt)}`) },
      { label: 'Reviewer’s comment', cell: (a) => a.comment ?? '—' },
    ], lines, { wide: true })}
${next ? html`<nav class="pager" aria-label="Pages"><a href="/cabinet/appeals?before=${next}" rel="next">Older appeals →</a></nav>` : ''}
${mayChange(c) ? appealForm(c, null, form.values, form.error) : ''}`,
  );
}

const kib = (n: number) => (n < 1024 ? `${n} bytes` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(2)} MiB`);

export function appealPage(c: CabinetRequest, a: AppealDetail, notice: string | null): Html {
  const urls = (a.evidenceUrl ?? '').split(/[;\n]/).map((s) => s.trim()).filter(Boolean);
  return cabinetPage(
    c,
    `Appeal ${a.id}`,
    'appeals',
    html`<h1>Appeal <span class="mono">${a.id}</span> ${appealBadge(a.status)}</h1>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="apl-h"><h2 id="apl-h">Appeal</h2><dl class="fields">
<dt>Order</dt><dd><a class="mono" href="/cabinet/orders/${a.orderId}">${a.orderId}</a> (${a.order.status})</dd>
<dt>orderRef</dt><dd class="mono">${a.orderRef ?? '—'}</dd>
<dt>Amount</dt><dd>${money(a.amount.value, a.amount.currency)} <span class="hint">settlement at the time of the appeal (${money(a.order.amount, a.order.currency)})</span></dd>
<dt>Opened</dt><dd>${utc(a.createdAt)}</dd>
<dt>Decision due</dt><dd>${utc(a.slaDueAt)}${a.overdue ? html` <span class="badge bad">overdue</span>` : ''}</dd>
<dt>Decided</dt><dd>${utc(a.resolvedAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="ev-h"><h2 id="ev-h">What you sent</h2><dl class="fields">
<dt>Reason</dt><dd class="wrap">${a.reason ?? '—'}</dd>
<dt>Evidence</dt><dd>${urls.length === 0 ? '—' : html`<ul class="plain">${urls.map((u) => html`<li class="mono">${u}</li>`)}</ul>`}</dd>
<dt>Receipt</dt><dd>${a.receipt
  ? html`<a href="/cabinet/appeals/${a.id}/receipt">${a.receipt.fileName ?? 'receipt'}</a> <span class="hint">${a.receipt.contentType}, ${kib(a.receipt.sizeBytes)}</span>`
  : '—'}</dd>
</dl></section></div>
<section class="card" aria-labelledby="rev-h"><h2 id="rev-h">Reviewer’s comment</h2>
<p>${a.comment ?? (a.status === 'Open' ? 'Under review: the comment appears here with the decision.' : 'No comment.')}</p>
${a.status === 'Accepted' ? html`<p class="hint">Accepted: the order is completed and credited.</p>` : a.status === 'Rejected' ? html`<p class="hint">Rejected: the order stays cancelled.</p>` : ''}
</section>`,
  );
}

/** The appeals part of an order page: its appeals, and the form when the order can be appealed. */
export function orderAppealsSection(c: CabinetRequest, orderId: string, status: string, appeals: readonly AppealLine[]): Html {
  const list = appeals.length === 0
    ? ''
    : html`<ul class="plain">${appeals.map((a) => html`<li><a class="mono" href="/cabinet/appeals/${a.id}">${a.id}</a> ${appealBadge(a.status)} opened ${utc(a.createdAt)}</li>`)}</ul>`;
  if (status === 'Canceled') return html`${appeals.length ? html`<section class="card" aria-labelledby="oa-h"><h2 id="oa-h">Earlier appeals</h2>${list}</section>` : ''}${mayChange(c) ? appealForm(c, orderId) : ''}`;
  if (appeals.length === 0) return html``;
  return html`<section class="card" aria-labelledby="oa-h"><h2 id="oa-h">Appeals</h2>${list}</section>`;
}

export interface TimelineLine {
  at: string;
  kind: string;
  title: string;
  detail: string | null;
  ref: string | null;
}

/** The order's timeline as an ordered list, oldest first. */
/**
 * A timeline detail with its USD amounts shown as people read money (2 decimals, grouped; the exact
 * figure a hover or click away); a rate ("… RUB per USD") stays as it is.
 */
function detailText(detail: string): Html {
  const parts = detail.split(/(-?\d+(?:\.\d+)? USD)(?! per)/);
  return html`${parts.map((p, i) => (i % 2 === 1 ? money(p.slice(0, -4), 'USD') : p))}`;
}

export function timelineSection(lines: readonly TimelineLine[]): Html {
  return html`<section class="card" aria-labelledby="tl-h"><h2 id="tl-h">Timeline</h2>
<ol class="timeline">${lines.map((l) => html`<li class="tl-${l.kind}"><span class="tl-time">${utc(l.at)}</span> <strong>${l.title}</strong>${l.detail ? html` <span class="muted">${detailText(l.detail)}</span>` : ''}${l.ref?.startsWith('apl_') ? html` <a class="mono" href="/cabinet/appeals/${l.ref}">${l.ref}</a>` : l.ref ? html` <span class="mono">${l.ref}</span>` : ''}</li>`)}</ol>
</section>`;
}
