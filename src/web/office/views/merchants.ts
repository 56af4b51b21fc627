import { CATALOGUE, METHODS } from '../../../domain/catalogue.js';
import type { MerchantListItem } from '../../../services/office.js';
import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
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
  notice,
  officePage,
  reasonAction,
  statusBadge,
  table,
  usd,
  utc,
  type Fn,
  type Shell,
} from '../ui.js';
import { applicationSection } from './applications.js';

/** The merchants list, one merchant with everything an operator looks at (its desks, their tariffs, a new desk), and the page of a new desk's secret. */

type Overview = Fn<'merchantOverview'>;
export type TariffOption = Overview['tariffs'][number];
type DeskItem = Overview['desks'][number];

const STATUS_LABEL: Record<string, string> = { UnderReview: 'Under review', Active: 'Active', Blocked: 'Blocked' };

export function merchantsPage(s: Shell, page: { items: MerchantListItem[]; hasMore: boolean; next: string | null }, f: { status: string; q: string }): Html {
  const opt = (v: string, label: string) => html`<option value="${v}"${v === f.status ? html` selected` : ''}>${label}</option>`;
  const moneyLabel = s.mode === 'sandbox' ? 'Sandbox money (USD)' : 'Live balance (USD)';
  return officePage(
    s,
    'Merchants',
    'merchants',
    html`<div class="page-head"><h1>Merchants</h1>${modeSwitch('/office/merchants', s.mode, f)}</div>
<form class="filters" method="get" action="/office/merchants" role="search" aria-label="Merchants">${modeInput(s.mode)}
<div><label for="q">Name or merchant id</label><input type="text" id="q" name="q" value="${f.q}" maxlength="200"></div>
<div><label for="status">Status</label><select id="status" name="status">${opt('', 'Any')}${Object.entries(STATUS_LABEL).map(([v, l]) => opt(v, l))}</select></div>
<div class="filter-actions"><button type="submit" class="secondary">Show</button> <a href="${href('/office/merchants', {}, s.mode)}">Clear</a></div></form>
<p class="list-tools"><a class="button secondary" href="${href('/office/merchants.csv', f, s.mode)}" download>Export CSV</a> <span class="muted">every merchant these filters match, with its ${s.mode} money</span></p>
${table(
  'Merchants',
  ['Merchant', 'Status', 'Sandbox', { label: 'Desks', kind: 'num' }, { label: moneyLabel, kind: 'num' }, 'Created'],
  page.items.map((m) => [
    html`<a href="${href(`/office/merchants/${m.id}`, {}, s.mode)}">${m.name}</a><br>${ident(m.id, 'merchant id')}`,
    statusBadge(m.status),
    m.status === 'Active' ? html`<span class="muted">not used</span>` : m.sandbox ? 'on' : 'off',
    m.desks,
    usd(s.mode === 'sandbox' ? m.money.sandbox : m.money.live),
    utc(m.createdAt),
  ]),
  'No merchants match.',
)}
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/merchants', { ...f, before: page.next }, s.mode)}">Older merchants</a></p>` : ''}
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="new-merchant-h"><h2 id="new-merchant-h">New merchant</h2>
<p class="muted">It starts under review; in the sandbox unless the box is cleared. Add its cabinet users and desks on its page.</p>
<form class="stack" method="post" action="/office/merchants" id="new-merchant">${csrfInput(s.o.csrf)}
<label for="merchant-name">Name</label><input type="text" id="merchant-name" name="name" required maxlength="200">
<label class="check"><input type="checkbox" name="sandbox" value="true" checked> Sandbox: the sandbox provider serves it until approval</label>
<button type="submit">Create the merchant</button></form></section>`
  : ''}`,
  );
}

/**
 * A tariff's choice for a desk: the tariff itself, none (no fee), or (for a new desk) the default.
 * A desk still waiting for a tariff (`waiting`: made while no default existed) shows so, as a
 * choice that cannot be sent.
 */
function tariffSelect(id: string, options: readonly TariffOption[], current: string | null | undefined, o: { label: string; hiddenLabel?: boolean; withDefault?: boolean; waiting?: boolean }): Html {
  const def = options.find((t) => t.default);
  const choice = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  return html`<label for="${id}"${o.hiddenLabel ? html` class="visually-hidden"` : ''}>${o.label}</label><select id="${id}" name="tariffId">
${o.withDefault ? choice('', def ? `The default: ${def.name}` : 'The default (none set yet: the desk waits for one)', current === undefined) : ''}
${o.waiting ? html`<option value="" selected disabled>None yet: the default when approved</option>` : ''}
${choice('none', 'No fee', current === null && !o.waiting)}
${options.map((t) => choice(t.id, `${t.name}${t.default ? ' (default)' : ''}`, current === t.id))}</select>`;
}

export function deskTariffForm(o: OfficeRequest, d: { id: string; tariffId: string | null; noFee: boolean }, tariffs: readonly TariffOption[], back: 'merchant' | 'desk'): Html {
  return html`<form class="inline-form" method="post" action="/office/desks/${d.id}/tariff">${csrfInput(o.csrf)}<input type="hidden" name="back" value="${back}">
${tariffSelect(`tariff-${d.id}`, tariffs, d.tariffId, { label: `Tariff of desk ${d.id}`, hiddenLabel: true, waiting: d.tariffId === null && !d.noFee })}<button type="submit" class="secondary">Save</button></form>`;
}

/** A limit of "0" is no limit. */
const dec0 = (v: string) => /^0*(\.0*)?$/.test(v);

const tariffName = (tariffs: readonly TariffOption[], d: { tariffId: string | null; noFee: boolean }) =>
  d.tariffId === null ? (d.noFee ? 'No fee' : 'None yet: the default when approved') : (tariffs.find((t) => t.id === d.tariffId)?.name ?? d.tariffId);

export interface NewDeskForm {
  name: string;
  method: string;
  rails: readonly string[];
  currencies: readonly string[];
  minUsd: string;
  maxUsd: string;
  callbackUrl: string;
  callbacksEnabled: boolean;
  tariffId: string | null | undefined;
  /** A test desk: sandbox orders whatever the merchant's status; chosen at creation only. */
  sandbox: boolean;
}

export const EMPTY_DESK: NewDeskForm = { name: '', method: 'Classic', rails: [], currencies: [], minUsd: '0', maxUsd: '0', callbackUrl: '', callbacksEnabled: true, tariffId: undefined, sandbox: false };

/** A test desk's badge, beside its name wherever the back office shows the desk. */
const testDeskBadge = (d: { sandbox: boolean }): Html | string => (d.sandbox ? html` <span class="badge warn">Test desk</span>` : '');

/** The operator's new-desk form: every field of `POST /admin/v1/merchants/{id}/desks`, the tariff included. */
function newDeskForm(o: OfficeRequest, merchantId: string, f: NewDeskForm, currencies: readonly string[], tariffs: readonly TariffOption[]): Html {
  const railSets = METHODS.filter((m) => CATALOGUE[m].length > 0).map(
    (m) => html`<fieldset class="checks" data-method="${m}"><legend>${m} rails</legend>${CATALOGUE[m].map(
      (r) => html`<label class="check"><input type="checkbox" name="rails" value="${r.rail}"${f.method === m && f.rails.includes(r.rail) ? html` checked` : ''}> ${r.rail}</label>`,
    )}</fieldset>`,
  );
  const codes = [...new Set([...currencies, ...f.currencies])].sort();
  return html`<form class="stack wide" method="post" action="/office/merchants/${merchantId}/desks" id="new-desk">${csrfInput(o.csrf)}
<label for="desk-name">Name (optional)</label><input type="text" id="desk-name" name="name" maxlength="100" value="${f.name}" placeholder="Desk N">
<label for="desk-method">Method (bound to the desk for life)</label><select id="desk-method" name="method">${METHODS.map((m) => html`<option value="${m}"${m === f.method ? html` selected` : ''}>${m}</option>`)}</select>
<p class="muted">Tick the rails of the chosen method; methods without rails take none.</p>
<fieldset class="checks" id="desk-mode"><legend>Mode (fixed for the desk's life)</legend><label class="check"><input type="radio" name="sandbox" value="false"${!f.sandbox ? html` checked` : ''}> Live: follows the merchant (sandbox until approval, live after)</label>
<label class="check"><input type="radio" name="sandbox" value="true"${f.sandbox ? html` checked` : ''}> Test: sandbox orders only, whatever the merchant's status</label></fieldset>
<div class="check-sets">${railSets}</div>
<fieldset class="checks"><legend>Currencies</legend>${codes.map((c) => html`<label class="check"><input type="checkbox" name="currencies" value="${c}"${f.currencies.includes(c) ? html` checked` : ''}> ${c}</label>`)}</fieldset>
<div class="filters"><div><label for="desk-min">Minimum per order (USD)</label><input type="text" id="desk-min" name="minUsd" inputmode="decimal" size="10" value="${f.minUsd}"></div>
<div><label for="desk-max">Maximum per order (USD)</label><input type="text" id="desk-max" name="maxUsd" inputmode="decimal" size="10" value="${f.maxUsd}"></div></div>
<p class="muted">0 means no limit.</p>
<label for="desk-callback">Callback URL (https, a public address; optional)</label><input type="url" id="desk-callback" name="callbackUrl" maxlength="2048" value="${f.callbackUrl}" placeholder="https://shop.example/paygate/callbacks">
<fieldset class="checks"><legend>Callbacks</legend><label class="check"><input type="radio" name="callbacksEnabled" value="true"${f.callbacksEnabled ? html` checked` : ''}> Send</label>
<label class="check"><input type="radio" name="callbacksEnabled" value="false"${!f.callbacksEnabled ? html` checked` : ''}> Do not send</label></fieldset>
${tariffSelect('desk-tariff', tariffs, f.tariffId, { label: 'Tariff', withDefault: true })}
<button type="submit">Create the desk</button></form>`;
}

export function merchantPage(
  s: Shell,
  m: Overview,
  o: { done: string | null; error: string | null; currencies: readonly string[]; deskForm?: NewDeskForm; deskError?: string | null; userError?: string | null; userEmail?: string },
): Html {
  const admin = isAdmin(s.o);
  const mer = m.merchant;
  const deskTable = table(
    'Cash desks',
    ['Desk', 'Method', 'Currencies', 'State', { label: 'Callback URL', kind: 'wrap' }, 'Tariff'],
    m.desks.map((d: DeskItem) => [
      html`<a href="/office/desks/${d.id}">${d.name}</a>${testDeskBadge(d)}<br>${ident(d.id, 'desk id')}`,
      html`${d.method}${d.rails.length ? html`<br><span class="muted">${d.rails.join(', ')}</span>` : ''}`,
      d.currencies.join(', ') || html`<span class="muted">none</span>`,
      d.stopReason !== null ? html`<span class="badge bad">stopped</span> ${d.stopReason}` : d.enabled ? html`<span class="badge ok">on</span>` : html`<span class="badge">off</span>`,
      html`<span class="mono">${d.callbackUrl ?? ''}</span>`,
      admin ? deskTariffForm(s.o, d, m.tariffs, 'merchant') : tariffName(m.tariffs, d),
    ]),
    'No desks yet.',
  );
  return officePage(
    s,
    mer.name,
    'merchants',
    html`<h1>${mer.name} ${statusBadge(mer.status)}</h1>${notice(o.done)}
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${m.warnings.length > 0
  ? html`<section class="notice warn" aria-labelledby="warnings-h" id="live-warnings"><h2 id="warnings-h">${mer.status === 'UnderReview' ? 'Desks no live provider would serve after approval' : 'Desks no live provider serves'}</h2>
<ul>${m.warnings.map((w) => html`<li>${w}</li>`)}</ul><p>Their live orders answer NO_AVAILABLE_METHOD until a provider serving that method, rail and currency is connected.</p></section>`
  : ''}
${m.rateWarnings.length > 0
  ? html`<section class="notice warn" aria-labelledby="rate-warnings-h" id="rate-warnings"><h2 id="rate-warnings-h">Currencies priced by demo rates</h2>
<ul>${m.rateWarnings.map((w) => html`<li>${w}</li>`)}</ul><p><a href="/office/rates">Set real rates</a>: an operator's rate replaces the demo's.</p></section>`
  : ''}
<div class="grid two">
<section class="card" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="fields"><dt>Id</dt><dd>${ident(mer.id, 'merchant id')}</dd><dt>Status</dt><dd>${mer.status}${mer.blockReason ? html` — ${mer.blockReason}` : ''}</dd>
<dt>Sandbox</dt><dd>${mer.status === 'Active' ? 'approved: live providers serve its live desks, the sandbox its test desks' : mer.sandbox ? 'on until approval' : 'off: no provider until approval'}</dd><dt>Live balance</dt><dd id="balance">${usd(mer.money.live)}</dd>
<dt>Sandbox money</dt><dd id="sandbox-money">${usd(mer.money.sandbox)} <span class="muted">(never withdrawable)</span></dd><dt>Created</dt><dd>${utc(mer.createdAt)}</dd></dl>
${admin
  ? html`<div class="actions">
${mer.status === 'UnderReview' ? action(s.o, `/office/merchants/${mer.id}/approve`, 'Approve') : ''}
${action(s.o, `/office/merchants/${mer.id}/sandbox`, mer.sandbox ? 'Turn the sandbox off' : 'Turn the sandbox on', { kind: 'secondary', fields: html`<input type="hidden" name="sandbox" value="${mer.sandbox ? 'false' : 'true'}">` })}
${mer.status === 'Blocked' ? action(s.o, `/office/merchants/${mer.id}/unblock`, 'Unblock', { kind: 'secondary' }) : reasonAction(s.o, `/office/merchants/${mer.id}/block`, 'Block', 'reason', 'Reason for the block', 'block-reason')}
</div>
<form class="reason-form" method="post" action="/office/merchants/${mer.id}/name">${csrfInput(s.o.csrf)}<label for="merchant-rename">Name</label>
<input type="text" id="merchant-rename" name="name" required maxlength="200" value="${mer.name}"><button type="submit" class="secondary">Rename</button></form>`
  : ''}
</section>
${admin
  ? html`<section class="card" aria-labelledby="withdraw-h"><h2 id="withdraw-h">Record a withdrawal</h2>
<p class="muted">A payout of live money made outside a withdrawal request: the balance shrinks at once, never into what the merchant's open <a href="/office/queues/withdrawals">withdrawal requests</a> hold.</p>
<form class="stack" method="post" action="/office/merchants/${mer.id}/withdrawals">${csrfInput(s.o.csrf)}
<label for="amountUsd">Amount (USD)</label><input type="text" id="amountUsd" name="amountUsd" inputmode="decimal" required pattern="\\d{1,16}(\\.\\d{1,8})?">
<label for="reference">Reference (bank transfer id)</label><input type="text" id="reference" name="reference" required maxlength="200">
<button type="submit">Record withdrawal</button></form></section>`
  : ''}
</div>
${applicationSection(s, mer, m.application)}
<section class="card" aria-labelledby="desks-h"><h2 id="desks-h">Cash desks</h2>
${deskTable}
<p><a href="${href('/office/orders', { merchantId: mer.id }, s.mode)}">Orders of this merchant</a></p>
${admin
  ? html`<details class="card-details" id="new-desk-details"${o.deskForm ? html` open` : ''}><summary>New cash desk for ${mer.name}</summary>
${o.deskError ? html`<p class="notice bad" role="alert" id="desk-error">${o.deskError}</p>` : ''}
${newDeskForm(s.o, mer.id, o.deskForm ?? EMPTY_DESK, o.currencies, m.tariffs)}</details>`
  : ''}</section>
<section class="card" aria-labelledby="users-h"><h2 id="users-h">Users</h2>
${table('Users', ['Email', 'Role', 'Id', 'Created'], m.users.map((u) => [u.email, u.role, ident(u.id, 'user id'), utc(u.createdAt)]), 'No cabinet users.')}
${admin
  ? html`<details class="card-details"${o.userError ? html` open` : ''}><summary>New cabinet user</summary>
${o.userError ? html`<p class="notice bad" role="alert">${o.userError}</p>` : ''}
<form class="stack" method="post" action="/office/merchants/${mer.id}/users" id="new-user">${csrfInput(s.o.csrf)}
<label for="user-email">Email</label><input type="email" id="user-email" name="email" required maxlength="320" autocomplete="off" value="${o.userEmail ?? ''}">
<label for="user-password">Password (at least 10 characters, not a common one)</label><input type="password" id="user-password" name="password" required maxlength="200" autocomplete="new-password">
<label for="user-role">Role</label><select id="user-role" name="role"><option value="owner">owner: everything</option><option value="developer">developer: desks, secrets, callbacks</option><option value="viewer">viewer: reads only</option></select>
<button type="submit">Add the user</button></form></details>`
  : ''}</section>
<section class="card" aria-labelledby="ledger-h"><div class="page-head"><h2 id="ledger-h">${s.mode === 'sandbox' ? 'Sandbox ledger' : 'Live ledger'} (latest 100)</h2>${modeSwitch(`/office/merchants/${mer.id}`, s.mode)}</div>
${table(
  s.mode === 'sandbox' ? 'Sandbox ledger entries' : 'Live ledger entries',
  ['When', 'Kind', { label: 'Amount (USD)', kind: 'num' }, 'Order', { label: 'Reason', kind: 'wrap' }],
  m.ledger.map((e) => [utc(e.at), e.kind, usd(e.amount), e.orderId ? idLink(`/office/orders/${e.orderId}`, e.orderId, 'order id') : '', e.reason ?? '']),
  'No entries yet.',
)}</section>
<section class="card" aria-labelledby="wd-h"><h2 id="wd-h">Withdrawals</h2>
${table('Withdrawals', ['When', 'Id', { label: 'Amount (USD)', kind: 'num' }, 'Reference'], m.withdrawals.map((w) => [utc(w.createdAt), ident(w.id, 'withdrawal id'), usd(w.amountUsd), w.reference]), 'No withdrawals.')}</section>
${auditSection(m.audit, mer.id)}`,
  );
}

/** The answer to a new desk: its id, key and secret, the secret shown this once. */
export function deskCreatedPage(s: Shell, d: { id: string; merchantId: string; name: string; key: string; secret: string }): Html {
  return officePage(
    s,
    `Desk ${d.name} created`,
    'merchants',
    html`<h1>Cash desk created</h1>
<p class="notice ok" role="status">The desk ${d.name} is ready. Give its key and secret to the merchant's developers: the secret is shown only now.</p>
<section class="card"><dl class="fields"><dt>Desk id</dt><dd><code class="ident" id="desk-id" data-copy="desk id">${d.id}</code></dd>
<dt>Key</dt><dd><code class="ident" id="desk-key" data-copy="desk key">${d.key}</code></dd>
<dt>Secret</dt><dd><code class="ident secret" id="desk-secret" data-copy="desk secret">${d.secret}</code></dd></dl>
<p><a href="/office/desks/${d.id}">Open the desk</a> · <a href="/office/merchants/${d.merchantId}">Back to the merchant</a></p></section>`,
  );
}

export interface DeskDetail {
  id: string;
  name: string;
  merchantId: string;
  method: string;
  rails: readonly string[];
  currencies: readonly string[];
  enabled: boolean;
  stopReason: string | null;
  callbackUrl: string | null;
  minUsd: string;
  maxUsd: string;
  key: string;
  tariffId: string | null;
  /** With `tariffId` null: no fee chosen (true), or waiting for the default (false). */
  noFee: boolean;
  callbacksEnabled: boolean;
  sandbox: boolean;
}

/** The desk's settings as `PATCH /admin/v1/desks/{id}` changes them; its method stays, its tariff has its own form. */
function deskSettingsForm(o: OfficeRequest, d: DeskDetail, currencies: readonly string[]): Html {
  const rails = CATALOGUE[d.method as keyof typeof CATALOGUE] ?? [];
  const codes = [...new Set([...currencies, ...d.currencies])].sort();
  const radio = (name: string, value: boolean, label: string, on: boolean) => html`<label class="check"><input type="radio" name="${name}" value="${value ? 'true' : 'false'}"${on === value ? html` checked` : ''}> ${label}</label>`;
  return html`<form class="stack wide" method="post" action="/office/desks/${d.id}/settings" id="desk-settings">${csrfInput(o.csrf)}
<label for="settings-name">Name</label><input type="text" id="settings-name" name="name" required maxlength="100" value="${d.name}">
<fieldset class="checks"><legend>Enabled (the merchant's switch)</legend>${radio('enabled', true, 'On', d.enabled)}${radio('enabled', false, 'Off', d.enabled)}</fieldset>
${rails.length ? html`<fieldset class="checks"><legend>${d.method} rails</legend>${rails.map((r) => html`<label class="check"><input type="checkbox" name="rails" value="${r.rail}"${d.rails.includes(r.rail) ? html` checked` : ''}> ${r.rail}</label>`)}</fieldset>` : ''}
<fieldset class="checks"><legend>Currencies</legend>${codes.map((c) => html`<label class="check"><input type="checkbox" name="currencies" value="${c}"${d.currencies.includes(c) ? html` checked` : ''}> ${c}</label>`)}</fieldset>
<div class="filters"><div><label for="settings-min">Minimum per order (USD)</label><input type="text" id="settings-min" name="minUsd" inputmode="decimal" size="10" value="${d.minUsd}"></div>
<div><label for="settings-max">Maximum per order (USD)</label><input type="text" id="settings-max" name="maxUsd" inputmode="decimal" size="10" value="${d.maxUsd}"></div></div>
<label for="settings-callback">Callback URL (empty: none)</label><input type="url" id="settings-callback" name="callbackUrl" maxlength="2048" value="${d.callbackUrl ?? ''}">
<fieldset class="checks"><legend>Callbacks</legend>${radio('callbacksEnabled', true, 'Send', d.callbacksEnabled)}${radio('callbacksEnabled', false, 'Do not send', d.callbacksEnabled)}</fieldset>
<button type="submit">Save the settings</button></form>`;
}

/** The answer to a desk's new secret: shown this once; the old one fails from now on. */
export function deskSecretPage(s: Shell, d: { id: string; name: string; key: string }, secret: string): Html {
  return officePage(
    s,
    `New secret of ${d.name}`,
    'merchants',
    html`<h1>New secret of desk ${d.name}</h1>
<p class="notice ok" role="status">The old secret fails from now on. Give the new one to the merchant's developers: it is shown only now.</p>
<section class="card"><dl class="fields"><dt>Desk id</dt><dd><code class="ident" id="desk-id" data-copy="desk id">${d.id}</code></dd>
<dt>Key</dt><dd><code class="ident" id="desk-key" data-copy="desk key">${d.key}</code></dd>
<dt>Secret</dt><dd><code class="ident secret" id="desk-secret" data-copy="desk secret">${secret}</code></dd></dl>
<p><a href="/office/desks/${d.id}">Back to the desk</a></p></section>`,
  );
}

export function deskPage(
  s: Shell,
  d: DeskDetail,
  audit: readonly Fn<'merchantOverview'>['audit'][number][],
  tariffs: readonly TariffOption[],
  o: { done: string | null; currencies: readonly string[]; error?: string | null },
): Html {
  const done = o.done;
  return officePage(
    s,
    `Desk ${d.name}`,
    'merchants',
    html`<h1>Cash desk ${d.name} ${d.stopReason !== null ? html`<span class="badge bad">Stopped</span>` : ''}${testDeskBadge(d)}</h1>${notice(done)}
<section class="card"><dl class="fields"><dt>Id</dt><dd>${ident(d.id, 'desk id')}</dd><dt>Key</dt><dd>${ident(d.key, 'desk key')}</dd>
<dt>Mode</dt><dd id="desk-mode">${d.sandbox ? 'Test desk: its orders are sandbox orders whatever the merchant\'s status (fixed for life)' : 'Live desk: sandbox until the merchant is approved, live after (fixed for life)'}</dd>
<dt>Merchant</dt><dd>${idLink(`/office/merchants/${d.merchantId}`, d.merchantId, 'merchant id')}</dd>
<dt>Method</dt><dd>${d.method}${d.rails.length ? html` · ${d.rails.join(', ')}` : ''}</dd><dt>Currencies</dt><dd>${d.currencies.join(', ')}</dd>
<dt>Limits per order</dt><dd>${dec0(d.minUsd) ? 'no minimum' : usd(d.minUsd)} – ${dec0(d.maxUsd) ? 'no maximum' : usd(d.maxUsd)}</dd><dt>Enabled by merchant</dt><dd>${d.enabled ? 'yes' : 'no'}</dd>
<dt>Stopped</dt><dd>${d.stopReason !== null ? html`yes — ${d.stopReason}` : 'no'}</dd><dt>Callback URL</dt><dd class="mono">${d.callbackUrl ?? '—'}</dd>
<dt>Tariff</dt><dd>${isAdmin(s.o) ? deskTariffForm(s.o, d, tariffs, 'desk') : tariffName(tariffs, d)}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${d.stopReason !== null ? action(s.o, `/office/desks/${d.id}/resume`, 'Resume', { kind: 'secondary' }) : reasonAction(s.o, `/office/desks/${d.id}/stop`, 'Stop the desk', 'reason', 'Reason for the stop (shown to the merchant as SHOP_STOPPED)', 'stop-reason')}</div>` : ''}
<p><a href="${href('/office/orders', { deskId: d.id }, s.mode)}">Orders of this desk</a></p></section>
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="settings-h"><h2 id="settings-h">Settings</h2>
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${deskSettingsForm(s.o, d, o.currencies)}
<h3 class="section">Secret</h3><p class="muted">A new secret is shown once; the old one fails at once.</p>
${action(s.o, `/office/desks/${d.id}/secret`, 'Issue a new secret', { kind: 'danger' })}</section>`
  : ''}
${auditSection(audit, d.id)}`,
  );
}
