/**
 * The credits queue (`/office/credits`) and a credit's own page: each credit with what it is
 * (amount, account, payer, reference, where it came from), why it waits, the orders a person
 * weighs it against, and for an administrator the two ways out of the queue: match it with an
 * order, or ignore it with a reason.
 */
import { dec, fmt2 } from '../../domain/money.js';
import { counted } from '../../web/format.js';
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
    // A completed order takes no second payment: matching it would fail (ORDER_ALREADY_COMPLETED).
    const paid = o.status === 'Completed';
    return [
      html`<a class="mono" href="/office/orders/${o.id}">${o.id}</a>`,
      amount(o.amount, o.currency),
      same ? html`<span class="muted">none</span>` : amount(signed(d), o.currency),
      utc(o.createdAt),
      statusBadge(o.status),
      ...(admin
        ? [
            paid
              ? html`<span class="muted">paid already</span>`
              : html`<form class="inline-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="orderId" value="${o.id}"><input type="hidden" name="back" value="${back}">${
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

/** The form that matches a credit with an order whose id the operator types. */
function matchForm(s: Shell, c: QueuedCredit, back: string): Html {
  return html`<form class="reason-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="back" value="${back}">
<label for="match-${c.id}">Order this credit pays</label><input type="text" id="match-${c.id}" name="orderId" required maxlength="128" placeholder="ord_…" autocomplete="off" spellcheck="false">
<button type="submit">Match</button></form>`;
}

function ignoreForm(s: Shell, c: QueuedCredit, back: string, label = 'Why it needs no order (1 to 500 characters)'): Html {
  return html`<form class="reason-form" method="post" action="${CREDITS_PATH}/${c.id}/ignore">${csrfInput(s.o.csrf)}<input type="hidden" name="back" value="${back}">
<label for="ignore-${c.id}">${label}</label><input type="text" id="ignore-${c.id}" name="reason" required minlength="1" maxlength="500">
<button type="submit" class="danger">Ignore</button></form>`;
}

/**
 * The ways out of the queue that can succeed. An `already paid` credit is a second payment for an
 * order completed already: there is no order to match it with (matching that one fails), so the
 * page leads with ignoring it once refunded, and keeps matching another order one step away.
 */
function actions(s: Shell, c: QueuedCredit, back: string): Html {
  if (c.status === 'matched') return html``;
  if (!isAdmin(s.o)) return html`<p class="muted">Matching and ignoring credits is for administrators.</p>`;
  const secondPayment = c.status === 'unmatched' && c.reason === 'already paid' && c.candidateOrders.every((o) => o.status === 'Completed');
  if (secondPayment) {
    return html`<div class="rc-actions">
<p>The order this money was for is paid already, so there is no order to match it with: refund it to the payer, then ignore it with the refund's reference.</p>
${ignoreForm(s, c, back, 'Why it needs no order, such as the refund made (1 to 500 characters)')}
<details><summary>It pays another order</summary>${matchForm(s, c, back)}</details>
</div>`;
  }
  return html`<div class="rc-actions">
${matchForm(s, c, back)}
${c.status === 'unmatched' ? ignoreForm(s, c, back) : ''}
</div>`;
}

/** Pool providers' names by id, to name a credit's provider. */
export type PoolNames = ReadonlyMap<string, string>;

/** One credit: what arrived, why it waits, its candidates and the actions. */
function creditBody(s: Shell, c: QueuedCredit, back: string, names: PoolNames): Html {
  return html`<dl class="fields">
<dt>Received</dt><dd>${utc(c.receivedAt)}</dd>
<dt>Why here</dt><dd>${c.status === 'matched'
    ? html`Matched${c.matchedBy ? ` by ${c.matchedBy}` : ''}`
    : c.status === 'ignored'
      ? html`Ignored: ${c.reason ?? ''}`
      : (REASON_TEXT[c.reason ?? ''] ?? c.reason ?? html`<span class="muted">—</span>`)}</dd>
${c.orderId ? html`<dt>Order</dt><dd><a class="mono" href="/office/orders/${c.orderId}">${c.orderId}</a>${c.difference ? html` · difference ${amount(signed(c.difference), c.currency)} (credit less order)` : ''}</dd>` : ''}
<dt>Account</dt><dd><code>${c.account}</code></dd>
<dt>Requisite</dt><dd>${c.requisiteId ? html`<a class="mono" href="/office/requisites/${c.requisiteId}">${c.requisiteId}</a>` : html`<span class="muted">none: unknown account</span>`}</dd>
<dt>Pool</dt><dd><a href="/office/pools/${c.providerId}">${names.get(c.providerId) ?? c.providerId}</a></dd>
<dt>Payer</dt><dd>${c.payer ?? html`<span class="muted">—</span>`}</dd>
<dt>Reference</dt><dd>${c.reference ? html`<code>${c.reference}</code>` : html`<span class="muted">—</span>`}</dd>
<dt>Source</dt><dd>${c.source}${c.sourceId ? html` · <code>${c.sourceId}</code>` : ''}</dd>
<dt>Credit</dt><dd><code>${c.id}</code> · recorded ${utc(c.createdAt)}</dd>
</dl>
${candidates(s, c, back)}
${actions(s, c, back)}`;
}

function creditHeading(c: QueuedCredit, link: boolean): Html {
  const what = html`${amount(c.amount, c.currency)}`;
  return html`${link ? html`<a href="${CREDITS_PATH}/${c.id}">${what}<span class="visually-hidden"> credit ${c.id}</span></a>` : what} ${creditBadge(c.status)}`;
}

/** The unmatched credits the filters select, as "ignore this queue" takes them (at most 500, oldest first). */
export interface QueueSelection {
  ids: readonly string[];
  /** More unmatched credits match the filters beyond these. */
  more: boolean;
}

/** One reason for every unmatched credit the filters select: `POST /admin/v1/credits/ignore` with their ids. */
function ignoreQueue(s: Shell, sel: QueueSelection, back: string): Html {
  const n = sel.ids.length;
  return html`<details class="card" id="ignore-queue"><summary><strong>Ignore ${n === 1 ? 'this credit' : `these ${n} credits at once`}</strong></summary>
<form class="reason-form" method="post" action="${CREDITS_PATH}/ignore">${csrfInput(s.o.csrf)}<input type="hidden" name="ids" value="${sel.ids.join(' ')}"><input type="hidden" name="back" value="${back}">
<p class="muted">${sel.more
    ? `The oldest ${n} unmatched credits these filters select leave the queue with one reason; more wait behind them and can be ignored the same way next.`
    : `Every unmatched credit these filters select (${n}) leaves the queue with one reason.`} Credits that arrive after this page was shown are not included; any matched meanwhile stay matched.</p>
<label for="ignore-queue-reason">Why they need no order (1 to 500 characters)</label><input type="text" id="ignore-queue-reason" name="reason" required minlength="1" maxlength="500">
<button type="submit" class="danger">Ignore ${counted(n, 'credit', 'credits')}</button></form></details>`;
}

export function creditsPage(
  s: Shell,
  page: { items: QueuedCredit[]; next: string | null; oldestFirst: boolean },
  f: CreditFilters,
  pools: readonly PoolProvider[],
  done: string | null,
  selection: QueueSelection | null = null,
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
${selection && selection.ids.length > 1 && isAdmin(s.o) ? ignoreQueue(s, selection, here) : ''}
${page.items.length === 0 ? html`<p class="muted empty" id="credits-empty">${f.status === 'unmatched' && !f.providerId && !f.requisiteId ? 'No credit is waiting: every credit is matched or ignored.' : 'No credits match these filters.'}</p>` : ''}
<ul class="queue rc-credits">${page.items.map(
      (c) => html`<li class="card" id="credit-${c.id}"><h2>${creditHeading(c, true)}</h2>
${creditBody(s, c, here, new Map(pools.map((p) => [p.id, p.name])))}</li>`,
    )}</ul>
${page.next ? html`<p class="pager"><a href="${withQuery(CREDITS_PATH, { status: f.status === 'unmatched' ? '' : f.status, providerId: f.providerId, requisiteId: f.requisiteId, [page.oldestFirst ? 'after' : 'before']: page.next })}" rel="next">${page.oldestFirst ? 'Newer credits' : 'Older credits'}</a></p>` : ''}`,
  );
}

/** A statement entry that evidences a credit, with its statement's file name when known. */
export interface Evidence {
  statementId: string;
  index: number;
  outcome: string;
  bankReference: string | null;
  fileName: string | null;
}

function evidenceSection(c: QueuedCredit, entries: readonly Evidence[]): Html {
  return html`<section class="card" aria-labelledby="evidence-h"><h2 id="evidence-h">Statement entries</h2>
${entries.length === 0
  ? html`<p class="muted empty" id="evidence-empty">No uploaded bank statement shows this money yet: it was recorded from ${c.source === 'feed' ? 'the credit feed' : c.source === 'operator' ? 'an operator' : `the ${c.source}`}.</p>`
  : html`<p class="muted">The entries of uploaded bank statements that show this money: the first recorded it, and the same money in another statement is a duplicate of it.</p>
${list(
  `Statement entries of credit ${c.id}`,
  [{ label: 'Statement' }, { label: 'Entry' }, { label: 'Outcome' }, { label: 'Bank reference' }],
  entries.map((e) => [
    html`<a href="/office/statements/${e.statementId}">${e.fileName ?? e.statementId}</a>`,
    html`<a href="/office/statements/${e.statementId}?after=${String(e.index - 1)}#entry-${String(e.index)}">#${e.index}<span class="visually-hidden"> of ${e.fileName ?? e.statementId}</span></a>`,
    html`<span class="badge${e.outcome === 'new' ? ' ok' : e.outcome === 'duplicate' ? ' warn' : ''}">${e.outcome}</span>`,
    e.bankReference ? html`<code>${e.bankReference}</code>` : html`<span class="muted">—</span>`,
  ]),
  { fit: 's', id: 'evidence' },
)}`}</section>`;
}

export function creditPage(s: Shell, c: QueuedCredit, names: PoolNames, done: string | null, evidence: readonly Evidence[] = []): Html {
  return officePage(
    s,
    `Credit ${c.id}`,
    CREDITS_PATH,
    html`<p><a href="${CREDITS_PATH}">← Unmatched credits</a></p>
<h1>Credit ${creditHeading(c, false)}</h1>${notice(done)}
<section class="card" id="credit-${c.id}">${creditBody(s, c, `${CREDITS_PATH}/${c.id}`, names)}</section>
${evidenceSection(c, evidence)}`,
  );
}

/** A requisite as a refused match names it: its label where it has one, and its payable detail (card, phone …). */
export interface RequisiteBrief {
  id: string;
  label: string | null;
  detail: string | null;
}

const requisiteWords = (r: RequisiteBrief) => (r.label && r.detail ? `${r.label} (${r.detail})` : (r.label ?? r.detail ?? r.id));

/** The refusals of a match a person can act on, each with its own page. */
export type MatchRefusal = 'AMOUNT_MISMATCH' | 'REQUISITE_MISMATCH' | 'SANDBOX_ORDER';

const requisiteName = (r: RequisiteBrief | null) =>
  r
    ? html`<a href="/office/requisites/${r.id}">${r.label ?? 'Unlabelled'}</a>${r.detail ? html` <span class="mono">${r.detail}</span>` : ''} <span class="mono muted">${r.id}</span>`
    : html`<span class="muted">none</span>`;

/**
 * The answer to a match the API refused with a reason a person weighs: amounts that differ
 * (`AMOUNT_MISMATCH`), money on another requisite than the order's (`REQUISITE_MISMATCH`), both
 * with the same match forced (`force`), which completes the order for the money that arrived and
 * keeps the difference on the credit and in the audit trail; or a sandbox order
 * (`SANDBOX_ORDER`), which real money never pays, forced or not: another order may be named.
 */
export function matchRefusedPage(
  s: Shell,
  code: MatchRefusal,
  c: QueuedCredit,
  o: OrderBrief,
  requisites: { credit: RequisiteBrief | null; order: RequisiteBrief | null },
  back: string,
): Html {
  const d = difference(c, o);
  const amountsDiffer = !dec(d).eq(0);
  const requisitesDiffer = c.requisiteId !== null && requisites.order?.id !== c.requisiteId;
  const title = code === 'SANDBOX_ORDER' ? 'A sandbox order' : code === 'AMOUNT_MISMATCH' ? 'The amounts differ' : 'The requisites differ';
  const why =
    code === 'SANDBOX_ORDER'
      ? html`<p class="notice bad" role="alert" id="sandbox-order">Order ${o.id} is a sandbox order: a credit is real money and pays live orders only. It cannot be matched with it, not even by force (SANDBOX_ORDER).</p>`
      : code === 'AMOUNT_MISMATCH'
        ? html`<p class="notice warn" role="alert" id="amount-mismatch">Credit ${c.id} is ${amount(c.amount, c.currency)}; order ${o.id} is ${amount(o.amount, o.currency)}.</p>`
        : html`<p class="notice warn" role="alert" id="requisite-mismatch">Credit ${c.id} arrived on requisite ${requisites.credit ? requisiteWords(requisites.credit) : c.requisiteId}; order ${o.id} was given ${requisites.order ? html`requisite ${requisiteWords(requisites.order)}` : 'no requisite'}.</p>`;
  const forced: Html[] = [];
  if (amountsDiffer) forced.push(html`completes the order for the money that arrived, ${amount(c.amount, c.currency)}: the merchant is credited for that amount at the order's rate, and the difference stays on the credit and in the audit trail`);
  if (requisitesDiffer) forced.push(html`${amountsDiffer ? 'and ' : ''}pays the order with money that arrived on another requisite than the one shown to its payer; the audit trail keeps the match`);
  return officePage(
    s,
    title,
    CREDITS_PATH,
    html`<h1>${title}</h1>
${why}
<section class="card"><dl class="fields">
<dt>Credit</dt><dd>${amount(c.amount, c.currency)} <a class="mono" href="${CREDITS_PATH}/${c.id}">${c.id}</a></dd>
<dt>Credit's requisite</dt><dd>${c.requisiteId ? requisiteName(requisites.credit ?? { id: c.requisiteId, label: null, detail: null }) : html`<span class="muted">none: unknown account</span>`}</dd>
<dt>Order</dt><dd>${amount(o.amount, o.currency)} <a class="mono" href="/office/orders/${o.id}">${o.id}</a> ${statusBadge(o.status)}</dd>
<dt>Order's requisite</dt><dd>${requisiteName(requisites.order)}</dd>
<dt>Difference</dt><dd id="difference">${amountsDiffer ? html`${amount(signed(d), c.currency)} <span class="muted">(credit less order)</span>` : html`<span class="muted">none</span>`}</dd>
</dl>
${code === 'SANDBOX_ORDER'
  ? html`<p>Name the live order this money pays, or ignore the credit on <a href="${CREDITS_PATH}/${c.id}">its page</a>.</p>
<div class="rc-actions">${matchForm(s, c, back)}</div>
<p><a href="${back}">Back without matching</a></p>`
  : html`<p>Matching anyway ${forced.map((x, i) => html`${i ? ' ' : ''}${x}`)}.</p>
<div class="actions"><form class="inline-form" method="post" action="${CREDITS_PATH}/${c.id}/match">${csrfInput(s.o.csrf)}<input type="hidden" name="orderId" value="${o.id}"><input type="hidden" name="force" value="true"><input type="hidden" name="back" value="${back}"><button type="submit" class="danger">Match anyway</button></form>
<a href="${back}">Back without matching</a></div>`}
</section>`,
  );
}
