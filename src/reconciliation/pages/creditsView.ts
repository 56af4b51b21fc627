/**
 * The credits queue (`/office/credits`) and a credit's own page: each credit with what it is
 * (amount, account, payer, reference, where it came from), why it waits, the orders a person
 * weighs it against, and for an administrator the two ways out of the queue: match it with an
 * order, or ignore it with a reason.
 */
import { dec, fmt2 } from '../../domain/money.js';
import { html, type Html } from '../../web/html.js';
import { csrfInput, isAdmin, notice, officePage, statusBadge, utc, type Shell } from '../../web/office/ui.js';
import type { OrderBrief, PoolProvider, QueuedCredit } from '../queue.js';
import { CREDIT_FILTERS } from './forms.js';
import { amount, list, withQuery } from './ui.js';

export const CREDITS_PATH = '/office/credits' as const;

export interface CreditFilters {
  status: (typeof CREDIT_FILTERS)[number];
  providerId: string;
  requisiteId: string;
}

const STATUS_LABEL: Record<(typeof CREDIT_FILTERS)[number], string> = { unmatched: 'Unmatched', matched: 'Matched', ignored: 'Ignored', any: 'Any status' };

const REASON_TEXT: Record<string, string> = {
  'unknown account': 'Unknown account: the account names no requisite of the provider.',
  'no order': 'No order: no order on the requisite has this amount.',
  ambiguous: 'Ambiguous: several orders could be the one; pick it.',
  'amount differs': 'Amount differs: orders near this amount are listed.',
  'already paid': 'Already paid: the only such order was completed by another credit.',
};

function creditBadge(status: string): Html {
  const tone = status === 'matched' ? 'ok' : status === 'ignored' ? '' : 'warn';
  return html`<span class="badge${tone ? ` ${tone}` : ''}">${status}</span>`;
}

/** Credit less order, signed, 2 places: what a forced match leaves on the credit. */
function difference(c: QueuedCredit, o: OrderBrief): string {
  return fmt2(dec(c.amount).minus(o.amount));
}
const signed = (d: string) => (d.startsWith('-') ? d : `+${d}`);

function candidates(s: Shell, c: QueuedCredit, back: string): Html {
  if (c.candidateOrders.length === 0) return html``;
  const admin = isAdmin(s.o) && c.status !== 'matched';
  const rows = c.candidateOrders.map((o) => {
    const d = difference(c, o);
    const same = dec(d).eq(0);
    return [
      html`<a class="mono" href="/office/orders/${o.id}">${o.id}</a>`,
      amount(o.amount, o.currency),
      same ? html`<span class="muted">none</span>` : amount(signed(d), o.currency),
      utc(o.createdAt),
      statusBadge(o.status),
      ...(admin
        ? [
            html`<form class="inline-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="orderId" value="${o.id}"><input type="hidden" name="back" value="${back}">${
              same
                ? html`<button type="submit" class="secondary">Match<span class="visually-hidden"> with ${o.id}</span></button>`
                : html`<input type="hidden" name="force" value="true"><button type="submit" class="danger">Match anyway<span class="visually-hidden"> with ${o.id}, difference ${signed(d)}</span></button>`
            }</form>`,
          ]
        : []),
    ];
  });
  const cols = [{ label: 'Order' }, { label: 'Amount', num: true }, { label: 'Difference', num: true }, { label: 'Created' }, { label: 'Status' }, ...(admin ? [{ label: 'Action' }] : [])];
  return html`<h3 class="rc-sub">Candidates</h3>${list(`Orders that credit ${c.id} may pay`, cols, rows, { fit: 'l' })}`;
}

function actions(s: Shell, c: QueuedCredit, back: string): Html {
  if (c.status === 'matched') return html``;
  if (!isAdmin(s.o)) return html`<p class="muted">Matching and ignoring credits is for administrators.</p>`;
  return html`<div class="rc-actions">
<form class="reason-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="back" value="${back}">
<label for="match-${c.id}">Order this credit pays</label><input type="text" id="match-${c.id}" name="orderId" required maxlength="128" placeholder="ord_…" autocomplete="off" spellcheck="false">
<button type="submit">Match</button></form>
${c.status === 'unmatched'
  ? html`<form class="reason-form" method="post" action="${CREDITS_PATH}/${c.id}/ignore">${csrfInput(s.o.csrf)}<input type="hidden" name="back" value="${back}">
<label for="ignore-${c.id}">Why it needs no order (1 to 500 characters)</label><input type="text" id="ignore-${c.id}" name="reason" required minlength="1" maxlength="500">
<button type="submit" class="danger">Ignore</button></form>`
  : ''}
</div>`;
}

/** Pool providers' names by id, to name a credit's provider. */
export type PoolNames = ReadonlyMap<string, string>;

/** One credit: what arrived, why it waits, its candidates and the actions. */
function creditBody(s: Shell, c: QueuedCredit, back: string, names: PoolNames): Html {
  return html`<dl class="fields">
<dt>Received</dt><dd>${utc(c.receivedAt)}</dd>
<dt>Why here</dt><dd>${c.status === 'matched' ? html`Matched${c.matchedBy ? ` by ${c.matchedBy}` : ''}` : (REASON_TEXT[c.reason ?? ''] ?? c.reason ?? html`<span class="muted">—</span>`)}</dd>
${c.orderId ? html`<dt>Order</dt><dd><a class="mono" href="/office/orders/${c.orderId}">${c.orderId}</a>${c.difference ? html` · difference ${amount(signed(c.difference), c.currency)} (credit less order)` : ''}</dd>` : ''}
<dt>Account</dt><dd><code>${c.account}</code></dd>
<dt>Requisite</dt><dd>${c.requisiteId ? html`<a class="mono" href="/office/requisites/${c.requisiteId}">${c.requisiteId}</a>` : html`<span class="muted">none: unknown account</span>`}</dd>
<dt>Pool</dt><dd><a href="/office/pools/${c.providerId}">${names.get(c.providerId) ?? c.providerId}</a></dd>
<dt>Payer</dt><dd>${c.payer ?? html`<span class="muted">—</span>`}</dd>
<dt>Reference</dt><dd>${c.reference ? html`<code>${c.reference}</code>` : html`<span class="muted">—</span>`}</dd>
<dt>Source</dt><dd>${c.source} · <code>${c.sourceId}</code></dd>
<dt>Credit</dt><dd><code>${c.id}</code> · recorded ${utc(c.createdAt)}</dd>
</dl>
${candidates(s, c, back)}
${actions(s, c, back)}`;
}

function creditHeading(c: QueuedCredit, link: boolean): Html {
  const what = html`${amount(c.amount, c.currency)}`;
  return html`${link ? html`<a href="${CREDITS_PATH}/${c.id}">${what}<span class="visually-hidden"> credit ${c.id}</span></a>` : what} ${creditBadge(c.status)}`;
}

export function creditsPage(
  s: Shell,
  page: { items: QueuedCredit[]; next: string | null; oldestFirst: boolean },
  f: CreditFilters,
  pools: readonly PoolProvider[],
  done: string | null,
): Html {
  const here = withQuery(CREDITS_PATH, { status: f.status === 'unmatched' ? '' : f.status, providerId: f.providerId, requisiteId: f.requisiteId });
  const opt = (v: string, label: string, current: string) => html`<option value="${v}"${v === current ? html` selected` : ''}>${label}</option>`;
  const title = f.status === 'unmatched' ? 'Unmatched credits' : 'Credits';
  return officePage(
    s,
    title,
    CREDITS_PATH,
    html`<h1>${title}</h1>${notice(done)}
<p class="muted">Money seen on the pools' accounts. ${page.oldestFirst ? 'Unmatched credits wait here, the oldest first, until someone matches each with the order it pays or ignores it with a reason.' : 'The newest first.'}</p>
<form class="filters" method="get" action="${CREDITS_PATH}" role="search" aria-label="Credits">
<div><label for="f-status">Status</label><select id="f-status" name="status">${CREDIT_FILTERS.map((v) => opt(v, STATUS_LABEL[v], f.status))}</select></div>
<div><label for="f-provider">Pool provider</label><select id="f-provider" name="providerId">${opt('', 'Any', f.providerId)}${pools.map((p) => opt(p.id, p.name, f.providerId))}</select></div>
<div><label for="f-requisite">Requisite id</label><input type="text" id="f-requisite" name="requisiteId" value="${f.requisiteId}" maxlength="64" placeholder="rqs_…" spellcheck="false"></div>
<div class="rc-buttons"><button type="submit" class="secondary">Show</button> <a href="${CREDITS_PATH}">Clear</a></div>
</form>
${page.items.length === 0 ? html`<p class="muted empty" id="credits-empty">${f.status === 'unmatched' && !f.providerId && !f.requisiteId ? 'No credit is waiting: every credit is matched or ignored.' : 'No credits match these filters.'}</p>` : ''}
<ul class="queue rc-credits">${page.items.map(
      (c) => html`<li class="card" id="credit-${c.id}"><h2>${creditHeading(c, true)}</h2>
${creditBody(s, c, here, new Map(pools.map((p) => [p.id, p.name])))}</li>`,
    )}</ul>
${page.next ? html`<p class="pager"><a href="${withQuery(CREDITS_PATH, { status: f.status === 'unmatched' ? '' : f.status, providerId: f.providerId, requisiteId: f.requisiteId, [page.oldestFirst ? 'after' : 'before']: page.next })}" rel="next">${page.oldestFirst ? 'Newer credits' : 'Older credits'}</a></p>` : ''}`,
  );
}

export function creditPage(s: Shell, c: QueuedCredit, names: PoolNames, done: string | null): Html {
  return officePage(
    s,
    `Credit ${c.id}`,
    CREDITS_PATH,
    html`<p><a href="${CREDITS_PATH}">← Unmatched credits</a></p>
<h1>Credit ${creditHeading(c, false)}</h1>${notice(done)}
<section class="card" id="credit-${c.id}">${creditBody(s, c, `${CREDITS_PATH}/${c.id}`, names)}</section>`,
  );
}

/**
 * The answer to a match whose amounts differ (`AMOUNT_MISMATCH`): both amounts and the difference,
 * and the same match with `force`, which completes the order at its own amount and keeps the
 * difference on the credit and in the audit trail.
 */
export function amountMismatchPage(s: Shell, c: QueuedCredit, o: OrderBrief, back: string): Html {
  const d = difference(c, o);
  return officePage(
    s,
    'The amounts differ',
    CREDITS_PATH,
    html`<h1>The amounts differ</h1>
<p class="notice warn" role="alert" id="amount-mismatch">Credit ${c.id} is ${amount(c.amount, c.currency)}; order ${o.id} is ${amount(o.amount, o.currency)}.</p>
<section class="card"><dl class="fields">
<dt>Credit</dt><dd>${amount(c.amount, c.currency)} <code>${c.id}</code></dd>
<dt>Order</dt><dd>${amount(o.amount, o.currency)} <a class="mono" href="/office/orders/${o.id}">${o.id}</a> ${statusBadge(o.status)}</dd>
<dt>Difference</dt><dd id="difference">${amount(signed(d), c.currency)} <span class="muted">(credit less order)</span></dd>
</dl>
<p>Matching anyway completes the order at its own amount and credits the merchant for it; the difference stays on the credit and in the audit trail.</p>
<div class="actions"><form class="inline-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="orderId" value="${o.id}"><input type="hidden" name="force" value="true"><input type="hidden" name="back" value="${back}"><button type="submit" class="danger">Match anyway</button></form>
<a href="${back}">Back without matching</a></div></section>`,
  );
}
