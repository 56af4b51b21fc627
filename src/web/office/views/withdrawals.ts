import { DESTINATION_KIND_LABEL, ibanForPeople, REFERENCE_MAX, withdrawalActionsIn, WITHDRAWAL_STATUS_LABEL, type DestinationKind, type WithdrawalStatus } from '../../../domain/payouts.js';
import type { WithdrawalQueueLine } from '../../../services/withdrawalRequests.js';
import { html, type Html } from '../../html.js';
import { csrfInput, idLink, ident, isAdmin, notice, officePage, reasonAction, table, usd, utc, type Shell } from '../ui.js';

/** The queue of withdrawal requests: the open ones oldest first, each with where to pay and the two decisions; then the latest decided. */

type Destination = WithdrawalQueueLine['destination'];

/** Where to pay, every detail copyable: the kind, the address or IBAN / account, holder and bank. */
function destinationFields(d: Destination): Html {
  const kind = DESTINATION_KIND_LABEL[d.kind as DestinationKind] ?? d.kind;
  if (d.kind === 'bank') {
    return html`<dt>Pay to</dt><dd>${kind} · ${d.label}</dd>
${d.iban ? html`<dt>IBAN</dt><dd>${ident(ibanForPeople(d.iban), 'IBAN')}</dd>` : html`<dt>Account</dt><dd>${ident(d.account, 'account number')}</dd>`}
<dt>Holder</dt><dd>${d.holder}</dd><dt>Bank</dt><dd>${d.bank}</dd>`;
  }
  return html`<dt>Pay to</dt><dd>${kind} · ${d.label}</dd><dt>Address</dt><dd>${ident(d.address, 'address')}</dd>`;
}

const STATUS_TONE: Readonly<Record<WithdrawalStatus, string>> = { requested: 'warn', paid: 'ok', rejected: 'bad' };
const badge = (s: string) => html`<span class="badge ${STATUS_TONE[s as WithdrawalStatus] ?? 'warn'}">${WITHDRAWAL_STATUS_LABEL[s as WithdrawalStatus] ?? s}</span>`;

/** The decisions the request's status still allows (the domain's list), for an admin; a support operator reads. */
function decisions(s: Shell, w: WithdrawalQueueLine): Html {
  if (!isAdmin(s.o)) return html`<p class="muted">An administrator pays or rejects it.</p>`;
  const forms = withdrawalActionsIn(w.status as WithdrawalStatus).map((a) =>
    a === 'pay'
      ? html`<form class="reason-form" method="post" action="/office/withdrawals/${w.id}/paid">${csrfInput(s.o.csrf)}
<label for="reference-${w.id}">Transfer reference (transaction hash or bank reference), once the money is sent</label><input type="text" id="reference-${w.id}" name="reference" required maxlength="${String(REFERENCE_MAX)}" autocomplete="off" spellcheck="false">
<button type="submit">Mark paid</button></form>`
      : reasonAction(s.o, `/office/withdrawals/${w.id}/reject`, 'Reject', 'reason', 'Why not (the merchant reads it)', `reason-${w.id}`),
  );
  return html`${forms}`;
}

export function withdrawalQueuePage(s: Shell, q: { open: readonly WithdrawalQueueLine[]; more: boolean; decided: readonly WithdrawalQueueLine[] }, done: string | null): Html {
  return officePage(
    s,
    'Withdrawals to pay',
    'withdrawals',
    html`<h1>Withdrawals to pay</h1>${notice(done)}
<p class="muted">Requests merchants' owners made in the cabinet, the oldest first. Each amount is held on the merchant's balance. Send the money, then mark it paid with the transfer's reference: the ledger's withdrawal is written and the balance shrinks. Rejecting releases the hold; the owners get a mail either way.</p>
<p class="list-tools"><a class="button secondary" href="/office/queues/withdrawals.csv" download>Export CSV</a></p>
${q.open.length === 0 ? html`<p class="muted empty">No withdrawal waits.</p>` : ''}
<ul class="queue">${q.open.map(
      (w) => html`<li class="card" id="withdrawal-${w.id}">
<h2>${usd(w.amountUsd)} <span class="visually-hidden">for</span> <a href="/office/merchants/${w.merchantId}">${w.merchantName}</a> ${badge(w.status)}</h2>
<dl class="fields">
<dt>Request</dt><dd>${ident(w.id, 'withdrawal request id')}</dd>
<dt>Requested</dt><dd>${utc(w.createdAt)}</dd>
<dt>Merchant</dt><dd>${idLink(`/office/merchants/${w.merchantId}`, w.merchantId, 'merchant id')}</dd>
<dt>Amount</dt><dd>${usd(w.amountUsd)}</dd>
<dt>Live balance now</dt><dd>${usd(w.merchantLive)}</dd>
${destinationFields(w.destination)}
</dl>
${decisions(s, w)}
</li>`,
    )}</ul>
${q.more ? html`<p class="muted">More requests wait behind these: decide these first, or read them all with <code>GET /admin/v1/withdrawal-requests?status=requested</code>.</p>` : ''}
<section class="card" aria-labelledby="decided-h"><h2 id="decided-h">Decided lately</h2>
${table(
  'Withdrawal requests decided lately, newest first',
  ['Request', 'Merchant', { label: 'Amount', kind: 'num' }, 'Status', 'Decided', { label: 'Reference or reason', kind: 'wrap' }],
  q.decided.map((w) => [
    ident(w.id, 'withdrawal request id'),
    html`<a href="/office/merchants/${w.merchantId}">${w.merchantName}</a>`,
    usd(w.amountUsd),
    badge(w.status),
    utc(w.decidedAt),
    w.status === 'paid' ? ident(w.reference, 'reference') : (w.reason ?? ''),
  ]),
  'None decided yet.',
)}
</section>`,
  );
}
