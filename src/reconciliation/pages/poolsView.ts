/**
 * The pool providers in the back office: the list (`/office/reconciliation`), a pool's page with
 * its requisites, a new requisite and the statement upload (`/office/pools/{id}`), and a
 * requisite's page with its limits (`/office/requisites/{id}`).
 */
import type { Capability } from '../../domain/providers.js';
import { PAYMENT_KEYS } from '../../domain/payment.js';
import { html, type Html, type Interpolation } from '../../web/html.js';
import { csrfInput, isAdmin, notice, officePage, queueCountText, utc, type Shell } from '../../web/office/ui.js';
import type { StatementAnswer } from '../statementImport.js';
import type { PoolProvider } from '../queue.js';
import type { profileView } from '../statementProfiles.js';
import type { DeclineView, RequisiteView } from '../requisites.js';
import type { DeviceView } from '../messages.js';
import { CREDITS_PATH } from './creditsView.js';
import { balanceBadge, continuityBadge, formatLabel, STATEMENTS_PATH } from './statementsView.js';
import { amount, list, withQuery } from './ui.js';

export const RECONCILIATION_PATH = '/office/reconciliation' as const;

/** A pool's CSV profile, as the upload's choice names it. */
type ProfileView = ReturnType<typeof profileView>;

/** The payment keys in the order the form asks for them: the payable details first. */
const FORM_KEYS = ['card', 'phone', 'account', 'iban', 'upiId', 'url', 'holder', 'bank'] as const satisfies readonly (typeof PAYMENT_KEYS)[number][];

const KEY_LABEL: Record<(typeof PAYMENT_KEYS)[number], string> = {
  card: 'Card number',
  phone: 'Phone',
  account: 'Account number',
  iban: 'IBAN',
  upiId: 'UPI id',
  url: 'Payment URL',
  holder: 'Holder',
  bank: 'Bank',
};

const capabilitiesOf = (p: PoolProvider): readonly Capability[] => (typeof p.capabilities === 'string' ? [] : p.capabilities);
const currenciesOf = (p: PoolProvider) => [...new Set(capabilitiesOf(p).map((c) => c.currency))].sort();
const railsOf = (p: PoolProvider) => [...new Set(capabilitiesOf(p).flatMap((c) => (c.rail ? [c.rail] : [])))].sort();

/** The currency a pool's amounts are in when it serves one only; null when it serves several. */
export function poolCurrency(p: PoolProvider): string | null {
  const all = currenciesOf(p);
  return all.length === 1 ? all[0]! : null;
}

function stateBadge(state: string): Html {
  const tone = state === 'active' ? 'ok' : state === 'paused' ? 'warn' : 'bad';
  return html`<span class="badge ${tone}">${state}</span>`;
}

function providerBadge(p: PoolProvider): Html {
  return p.paused ? html`<span class="badge bad">Paused</span>` : html`<span class="badge ok">Serving</span>`;
}

/** The payable details of a requisite, then holder and bank. */
function details(r: RequisiteView): Html {
  const shown = FORM_KEYS.filter((k) => r.payment[k]);
  return html`${shown.map((k, i) => html`${i > 0 ? html`<br>` : ''}<span class="muted">${KEY_LABEL[k]}</span> <span class="mono">${r.payment[k]}</span>`)}`;
}

const bound = (v: string, currency: string | null) => (/^0(\.0+)?$/.test(v) ? html`<span class="muted">unbounded</span>` : amount(v, currency));

function currencyOf(r: RequisiteView, p: PoolProvider): string | null {
  return r.currency ?? poolCurrency(p);
}

const todayLink = (p: PoolProvider) => `/office/pools/${p.id}/report`;

export function poolsPage(s: Shell, pools: readonly (PoolProvider & { requisites: number; active: number })[]): Html {
  return officePage(
    s,
    'Reconciliation',
    RECONCILIATION_PATH,
    html`<h1>Reconciliation</h1>
<p class="muted">The platform's own pools of payment details: their requisites, bank statements and day reports. Money that no order claimed waits in <a href="${CREDITS_PATH}">unmatched credits</a>.</p>
${pools.length === 0
  ? html`<p class="muted empty">No pool provider yet. Add one on the <a href="/office/providers">providers</a> page.</p>`
  : list(
      'Pool providers',
      [{ label: 'Pool' }, { label: 'State' }, { label: 'Requisites', num: true }, { label: 'Unmatched credits', num: true }, { label: 'Day report' }],
      pools.map((p) => [
        html`<a href="/office/pools/${p.id}">${p.name}</a><br><span class="mono muted">${p.id}</span>`,
        providerBadge(p),
        html`${p.active} active of ${p.requisites}`,
        p.unmatched > 0 ? html`<a href="${withQuery(CREDITS_PATH, { providerId: p.id })}">${queueCountText(p.unmatched)}</a>` : '0',
        html`<a href="${todayLink(p)}">Today</a>`,
      ]),
      { fit: 'm' },
    )}`,
  );
}

/** What the new-requisite form held when it was refused. */
export type RequisiteFormValues = Partial<Record<string, string | string[]>>;

export interface PoolPageState {
  done?: string | null;
  create?: { values: RequisiteFormValues; error: string };
  /** The upload's answer, or its refusal; `profile` the CSV profile chosen for it. */
  statement?: { summary: StatementAnswer; fileName: string; profile: string | null } | { error: string; fileName: string | null; profile: string | null };
}

function requisiteActions(s: Shell, r: RequisiteView, back: 'pool' | 'requisite'): Html {
  const button = (verb: 'pause' | 'resume' | 'retire', label: string, kind: 'secondary' | 'danger') =>
    html`<form class="inline-form" method="post" action="/office/requisites/${r.id}/${verb}">${csrfInput(s.o.csrf)}<input type="hidden" name="back" value="${back}"><button type="submit" class="${kind}">${label}<span class="visually-hidden"> ${r.label ?? r.id}</span></button></form>`;
  return html`${r.state === 'active' ? button('pause', 'Pause', 'secondary') : button('resume', 'Resume', 'secondary')}${r.state !== 'retired' ? button('retire', 'Retire', 'danger') : ''}`;
}

function requisitesList(s: Shell, p: PoolProvider, rows: readonly RequisiteView[]): Html {
  if (rows.length === 0) return html`<p class="muted empty">No requisites yet: the pool declines every order until one is added.</p>`;
  const admin = isAdmin(s.o);
  return list(
    `Requisites of ${p.name}`,
    [
      { label: 'Requisite' },
      { label: 'Payment details' },
      { label: 'Serves' },
      { label: 'Order bounds' },
      { label: 'Daily limit', num: true },
      { label: 'Open orders', num: true },
      { label: 'Received today', num: true },
      { label: 'State' },
      ...(admin ? [{ label: 'Actions' }] : []),
    ],
    rows.map((r) => {
      const cur = currencyOf(r, p);
      const cells: Interpolation[] = [
        html`<a href="/office/requisites/${r.id}" id="requisite-${r.id}">${r.label ?? 'Unlabelled'}</a><br><span class="mono muted">${r.id}</span>`,
        details(r),
        html`${r.currency ?? 'any currency'}<br><span class="muted">${r.rails === null ? 'every rail' : r.rails.length === 0 ? 'rail-less orders' : r.rails.join(', ')}</span>`,
        html`${bound(r.minAmount, cur)} – ${bound(r.maxAmount, cur)}`,
        bound(r.dailyLimit, cur),
        html`${r.openOrders} <span class="muted">of ${r.maxOpenOrders}</span>`,
        amount(r.receivedToday, cur),
        stateBadge(r.state),
      ];
      if (admin) cells.push(html`<div class="rc-buttons"><a href="/office/requisites/${r.id}#edit-h">Edit<span class="visually-hidden"> ${r.label ?? r.id}</span></a> ${requisiteActions(s, r, 'pool')}</div>`);
      return cells;
    }),
    { fit: 'l', id: 'requisites' },
  );
}

const val = (v: RequisiteFormValues, k: string): string => {
  const x = v[k];
  return typeof x === 'string' ? x : '';
};

function newRequisiteForm(s: Shell, p: PoolProvider, state?: PoolPageState['create']): Html {
  const v = state?.values ?? {};
  const rails = railsOf(p);
  const ticked = new Set(Array.isArray(v.rails) ? v.rails : typeof v.rails === 'string' ? [v.rails] : []);
  const field = (name: string, label: string, o: { hint?: string; inputmode?: string; value?: string } = {}) =>
    html`<div><label for="new-${name}">${label}</label>${o.hint ? html`<span class="muted" id="new-${name}-hint">${o.hint}</span>` : ''}<input type="text" id="new-${name}" name="${name}" value="${val(v, name) || (o.value ?? '')}"${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.hint ? html` aria-describedby="new-${name}-hint"` : ''} maxlength="255" autocomplete="off"></div>`;
  return html`<section class="card" aria-labelledby="new-h"><h2 id="new-h">Add a requisite</h2>
${state ? html`<p class="notice bad" role="alert" id="requisite-error">${state.error}</p>` : ''}
<form class="stack rc-form" method="post" action="/office/pools/${p.id}/requisites">${csrfInput(s.o.csrf)}
<fieldset><legend>Payment details</legend><p class="muted">At least one payable detail (card, phone, account, IBAN, UPI id or URL). A credit names the requisite by any of them.</p>
<div class="rc-grid">${FORM_KEYS.map((k) => field(k, KEY_LABEL[k]))}</div></fieldset>
<fieldset><legend>What it serves</legend><div class="rc-grid">
<div><label for="new-currency">Currency</label><select id="new-currency" name="currency"><option value="">Any the pool serves</option>${currenciesOf(p).map((c) => html`<option value="${c}"${val(v, 'currency') === c ? html` selected` : ''}>${c}</option>`)}</select></div>
${rails.length
  ? html`<div role="group" aria-labelledby="new-rails-h"><span class="rc-label" id="new-rails-h">Rails</span><span class="muted">None ticked: every rail the pool serves.</span>${rails.map((r) => html`<label class="check"><input type="checkbox" name="rails" value="${r}"${ticked.has(r) ? html` checked` : ''}> ${r}</label>`)}</div>`
  : ''}
</div></fieldset>
<fieldset><legend>Limits, in the customer currency (0 = unbounded)</legend><div class="rc-grid">
${field('minAmount', 'Smallest order', { inputmode: 'decimal', value: '0' })}
${field('maxAmount', 'Largest order', { inputmode: 'decimal', value: '0' })}
${field('dailyLimit', 'Daily limit', { hint: "Today's matched credits plus the open orders' amounts, per UTC day.", inputmode: 'decimal', value: '0' })}
${field('maxOpenOrders', 'Open orders at most', { inputmode: 'numeric', value: '10' })}
</div></fieldset>
<div class="rc-grid">${field('label', 'Label', { hint: 'Optional: how operators name it.' })}</div>
<button type="submit">Add requisite</button>
</form></section>`;
}

function statementSection(s: Shell, p: PoolProvider, profiles: readonly ProfileView[], st?: PoolPageState['statement']): Html {
  let result: Html = html``;
  if (st && 'summary' in st) {
    const m = st.summary;
    const link = html`<a href="${STATEMENTS_PATH}/${m.statementId}" data-field="statement">${m.statementId}</a>`;
    result = html`<div class="notice ok" role="status" id="statement-summary"><p><strong>${st.fileName}</strong> ${m.sameAs ? html`was recorded before as ${link} (<span data-field="same-as">${m.sameAs}</span>); nothing new was recorded.` : html`read and recorded as ${link}.`}</p>
<dl class="fields rc-summary"><dt>Format</dt><dd data-field="format">${formatLabel(m.format, m.version)}</dd><dt>Entries</dt><dd data-field="entries">${m.entries}</dd><dt>Credits</dt><dd data-field="credits">${m.credits}</dd><dt>Duplicates</dt><dd data-field="duplicates">${m.duplicates}</dd>
<dt>Matched</dt><dd data-field="matched">${m.matched}</dd><dt>Unmatched</dt><dd data-field="unmatched">${m.unmatched}</dd><dt>Skipped</dt><dd data-field="skipped">${m.skipped}</dd><dt>Unreadable</dt><dd data-field="unreadable">${m.unreadable}</dd>
<dt>Balances</dt><dd data-field="balance-check">${balanceBadge(m.balanceCheck, m.balanceDifference, null)}</dd><dt>Continuity</dt><dd data-field="continuity">${continuityBadge(m.continuity, m.gap)}</dd></dl>
${m.problems.length ? html`<p>Entries that could not be read:</p><ul class="rc-wrap">${m.problems.slice(0, 10).map((x) => html`<li>${x.index}: ${x.problem}</li>`)}</ul>${m.problems.length > 10 || m.unreadable > 10 ? html`<p><a href="${withQuery(`${STATEMENTS_PATH}/${m.statementId}`, { outcome: 'unreadable' })}">Every unreadable entry</a></p>` : ''}` : ''}
<p class="rc-links"><a href="${STATEMENTS_PATH}/${m.statementId}">Open the statement</a>${m.unmatched > 0 ? html` · <a href="${withQuery(CREDITS_PATH, { providerId: p.id })}">Work the unmatched credits</a>` : ''}</p></div>`;
  } else if (st) {
    result = html`<div class="notice bad rc-wrap" role="alert" id="statement-error"><p>${st.fileName ? html`<strong>${st.fileName}</strong>: ` : ''}${st.error}</p><p>Nothing was recorded.</p></div>`;
  }
  const chosen = st?.profile ?? '';
  const profileChoice = profiles.length
    ? html`<label for="statement-profile">Read it as</label><span class="muted" id="statement-profile-hint">A bank's own CSV export needs its profile; every other file is recognised by its content.</span>
<select id="statement-profile" name="profile" aria-describedby="statement-profile-hint"><option value="">Recognised by its content</option>${profiles.map((r) => html`<option value="${r.id}"${r.id === chosen ? html` selected` : ''}>CSV profile: ${r.name}</option>`)}</select>`
    : '';
  return html`<section class="card" aria-labelledby="statement-h"><h2 id="statement-h">Upload a bank statement</h2>
${result}
<p class="muted rc-wrap">ISO 20022 camt.052, camt.053 or camt.054, MT940 or MT942, a 1C client-bank file, CSV with the header <code>transactionId,account,amount,currency,receivedAt,payer,reference</code>, or the bank's own CSV read with one of the pool's <a href="/office/pools/${p.id}/profiles">CSV profiles</a>; up to 50 MiB, in any encoding the file declares. Each booked credit is recorded once and matched; money recorded before counts as a duplicate, and entries that cannot be read are listed without stopping the rest. The pool's uploads are on its <a href="${withQuery(STATEMENTS_PATH, { providerId: p.id })}">statements</a> page.</p>
${isAdmin(s.o)
  ? html`<form class="stack" method="post" action="/office/pools/${p.id}/statements" enctype="multipart/form-data">${csrfInput(s.o.csrf)}
<label for="statement-file">Statement file</label><input type="file" id="statement-file" name="statement" required accept=".xml,.csv,.txt,.sta,.940,.mt940,application/xml,text/xml,text/csv,text/plain">
${profileChoice}
<button type="submit">Upload statement</button></form>`
  : html`<p class="muted">Uploading statements is for administrators.</p>`}
</section>`;
}

/** The pool's recent declines: when, which order, its terms, and the reason the cascade moved on. */
function declinesSection(p: PoolProvider, d: { lastDay: number; latest: readonly DeclineView[] }): Html {
  const body =
    d.latest.length === 0
      ? html`<p class="muted empty">The pool has declined no order.</p>`
      : list(
          `Orders ${p.name} declined, newest first`,
          [{ label: 'When' }, { label: 'Order' }, { label: 'Amount', num: true }, { label: 'Rail' }, { label: 'Reason' }, { label: 'Then' }],
          d.latest.map((x) => [
            utc(x.at),
            x.outcome === 'placed' ? html`<a class="mono" href="/office/orders/${x.orderId}">${x.orderId}</a>` : html`<span class="mono">${x.orderId}</span>`,
            amount(x.amount, x.currency),
            x.rail ?? html`<span class="muted">—</span>`,
            html`<span class="rc-wrap">${x.reason}</span>`,
            x.outcome === 'placed'
              ? html`<span class="badge ok">placed</span> <span class="muted">with ${x.placedWith ?? 'another provider'}</span>`
              : x.outcome === 'pending'
                ? html`<span class="badge warn">being placed</span>`
                : html`<span class="badge bad">refused</span> <span class="muted">no provider took it</span>`,
          ]),
          { fit: 'l', id: 'declines' },
        );
  return html`<section class="card" aria-labelledby="declines-h"><h2 id="declines-h">Declined orders</h2>
<p id="declines-day"><strong>${d.lastDay}</strong> ${d.lastDay === 1 ? 'order' : 'orders'} declined in the last 24 hours${d.latest.length ? html`; the latest ${d.latest.length} below` : ''}.</p>
<p class="muted">The pool declines an order when no requisite can take it; the cascade then offers the order to the next provider. Many declines for one reason say what to change: more requisites for "same amount open" or "maxOpenOrders reached", higher limits for "dailyLimit reached".</p>
${body}</section>`;
}

export function poolPage(
  s: Shell,
  p: PoolProvider,
  requisites: readonly RequisiteView[],
  declines: { lastDay: number; latest: readonly DeclineView[] },
  profiles: readonly ProfileView[],
  st: PoolPageState = {},
  devices: readonly DeviceView[] = [],
): Html {
  return officePage(
    s,
    p.name,
    RECONCILIATION_PATH,
    html`<p><a href="${RECONCILIATION_PATH}">← Reconciliation</a></p>
<h1>${p.name} ${providerBadge(p)}</h1>${notice(st.done ?? null)}
<p class="rc-links"><a href="${todayLink(p)}">Day report</a> · <a href="${withQuery(CREDITS_PATH, { providerId: p.id })}">Unmatched credits (${queueCountText(p.unmatched)})</a> · <a href="${withQuery(STATEMENTS_PATH, { providerId: p.id })}">Statements</a> · <a href="/office/pools/${p.id}/profiles">CSV profiles (${profiles.length})</a> · <a href="/office/pools/${p.id}/devices">Devices</a> · <a href="/office/providers/${p.id}">Routing health</a> · <span class="mono muted">${p.id}</span></p>
<section class="card" aria-labelledby="requisites-h"><h2 id="requisites-h">Requisites</h2>
<p class="muted">An order gets a requisite only where a credit can name one open order: no two open orders of one amount on a requisite.</p>
${requisitesList(s, p, requisites)}</section>
${devicesSection(p, requisites, devices)}
${declinesSection(p, declines)}
${statementSection(s, p, profiles, st.statement)}
${isAdmin(s.o) ? newRequisiteForm(s, p, st.create) : ''}`,
  );
}

/** The pool's phones at a glance: a silent one's requisites take no new order. */
function devicesSection(p: PoolProvider, requisites: readonly RequisiteView[], devices: readonly DeviceView[]): Html {
  const labelOf = (id: string) => requisites.find((r) => r.id === id)?.label ?? id;
  return html`<section class="card" aria-labelledby="pool-devices-h"><h2 id="pool-devices-h">Devices</h2>
${devices.length === 0
  ? html`<p class="muted empty" id="pool-devices-empty">No phone forwards this pool's bank messages. <a href="/office/pools/${p.id}/devices">Add a device</a></p>`
  : html`${list(
      `Devices of ${p.name}`,
      [{ label: 'Device' }, { label: 'State' }, { label: 'Last seen' }, { label: 'Messages today', num: true }, { label: 'Unread', num: true }, { label: 'Requisites' }],
      devices.map((d) => [
        html`${d.name}<br><span class="mono muted">${d.id}</span>`,
        d.state === 'silent' ? html`<strong class="bad">silent: requisites paused</strong>` : 'active',
        d.lastSeenAt ? utc(d.lastSeenAt) : html`<span class="muted">never</span>`,
        String(d.messagesToday),
        d.unread > 0 ? html`<a href="/office/messages">${d.unread}</a>` : '0',
        d.requisiteIds.map((id) => labelOf(id)).join(', ') || '—',
      ]),
      { fit: 'l', id: 'pool-devices' },
    )}<p class="muted">Adding a phone and issuing its signing key: the pool's Devices page (linked above).</p>`}</section>`;
}

export interface RequisitePageState {
  done?: string | null;
  edit?: { values: RequisiteFormValues; error: string };
}

export function requisitePage(s: Shell, p: PoolProvider, r: RequisiteView, st: RequisitePageState = {}): Html {
  const cur = currencyOf(r, p);
  const v = st.edit?.values;
  const value = (k: 'minAmount' | 'maxAmount' | 'dailyLimit' | 'label', current: string | null) => (v ? val(v, k) : (current ?? ''));
  const field = (name: string, label: string, current: string, o: { hint?: string; inputmode?: string; max?: number } = {}) =>
    html`<div><label for="edit-${name}">${label}</label>${o.hint ? html`<span class="muted" id="edit-${name}-hint">${o.hint}</span>` : ''}<input type="text" id="edit-${name}" name="${name}" value="${current}"${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.hint ? html` aria-describedby="edit-${name}-hint"` : ''} maxlength="${o.max ?? 32}" autocomplete="off"></div>`;
  return officePage(
    s,
    `Requisite ${r.label ?? r.id}`,
    RECONCILIATION_PATH,
    html`<p><a href="/office/pools/${p.id}">← ${p.name}</a></p>
<h1>Requisite ${r.label ?? r.id} ${stateBadge(r.state)}</h1>${notice(st.done ?? null)}
<section class="card" aria-labelledby="now-h"><h2 id="now-h">Now</h2>
<dl class="fields">
<dt>Open orders</dt><dd id="open-orders">${r.openOrders} <span class="muted">of at most ${r.maxOpenOrders}</span></dd>
<dt>Received today</dt><dd id="received-today">${amount(r.receivedToday, cur)} <span class="muted">matched credits, UTC day</span></dd>
<dt>Last given an order</dt><dd>${utc(r.lastUsedAt)}</dd>
<dt>Credits</dt><dd><a href="${withQuery(CREDITS_PATH, { status: 'any', requisiteId: r.id })}">Every credit on it</a> · <a href="${withQuery(CREDITS_PATH, { requisiteId: r.id })}">unmatched</a></dd>
</dl>
${isAdmin(s.o) ? html`<div class="actions">${requisiteActions(s, r, 'requisite')}</div><p class="muted">Paused and retired requisites take no new orders; orders already on them keep them, and money to them is still matched.</p>` : ''}
</section>
<section class="card" aria-labelledby="terms-h"><h2 id="terms-h">Terms</h2>
<dl class="fields">
<dt>Id</dt><dd class="mono">${r.id}</dd>
<dt>Pool</dt><dd><a href="/office/pools/${p.id}">${p.name}</a></dd>
<dt>Payment details</dt><dd>${details(r)}</dd>
<dt>Currency</dt><dd>${r.currency ?? 'any the pool serves'}</dd>
<dt>Rails</dt><dd>${r.rails === null ? 'every rail the pool serves' : r.rails.length === 0 ? 'rail-less orders only' : r.rails.join(', ')}</dd>
<dt>Order bounds</dt><dd>${bound(r.minAmount, cur)} – ${bound(r.maxAmount, cur)}</dd>
<dt>Daily limit</dt><dd>${bound(r.dailyLimit, cur)}</dd>
<dt>Created</dt><dd>${utc(r.createdAt)}</dd>
</dl></section>
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Change limits and label</h2>
${st.edit ? html`<p class="notice bad" role="alert" id="requisite-error">${st.edit.error}</p>` : ''}
<form class="stack rc-form" method="post" action="/office/requisites/${r.id}">${csrfInput(s.o.csrf)}
<p class="muted">Amounts in the customer currency; 0 or empty = unbounded.</p>
<div class="rc-grid">
${field('minAmount', 'Smallest order', value('minAmount', r.minAmount), { inputmode: 'decimal' })}
${field('maxAmount', 'Largest order', value('maxAmount', r.maxAmount), { inputmode: 'decimal' })}
${field('dailyLimit', 'Daily limit', value('dailyLimit', r.dailyLimit), { inputmode: 'decimal' })}
${field('maxOpenOrders', 'Open orders at most', v ? val(v, 'maxOpenOrders') : String(r.maxOpenOrders), { inputmode: 'numeric', max: 5 })}
${field('label', 'Label', value('label', r.label), { hint: 'Empty clears it.', max: 200 })}
</div>
<button type="submit">Save</button></form></section>`
  : ''}`,
  );
}
