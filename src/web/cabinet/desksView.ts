import { CATALOGUE, METHOD_SUMMARY, METHODS, RAIL_SUMMARY } from '../../domain/catalogue.js';
import { html, type Html } from '../html.js';
import { nodeSnippet, signedCurl, snippet } from './homeView.js';
import { cabinetPage, copyable, csrfInput, listTable, mayChange, money, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Cash desk pages: the list with the new-desk form, one desk with its settings, credentials shown once. */

export interface DeskView {
  id: string;
  name: string;
  key: string;
  method: string;
  rails: string[];
  currencies: string[];
  minUsd: string;
  maxUsd: string;
  callbackUrl: string | null;
  callbacksEnabled: boolean;
  enabled: boolean;
  stopReason: string | null;
  createdAt: string;
  /** A test desk: its orders are sandbox orders, whatever the account's status. */
  sandbox: boolean;
}

export interface DeskForm {
  /** Empty on a new desk: it is then called "Desk N". */
  name: string;
  method: string;
  rails: string[];
  currencies: string[];
  minUsd: string;
  maxUsd: string;
  callbackUrl: string;
  callbacksEnabled: boolean;
  /** Chosen on a new desk only: a desk is a test desk or a live desk for life. */
  sandbox: boolean;
}

export const EMPTY_DESK_FORM: DeskForm = { name: '', method: 'Classic', rails: [], currencies: [], minUsd: '', maxUsd: '', callbackUrl: '', callbacksEnabled: true, sandbox: false };

export function deskState(d: { enabled: boolean; stopReason: string | null }): Html {
  if (!d.enabled) return html`<span class="badge">Off</span>`;
  if (d.stopReason) return html`<span class="badge bad">Stopped</span>`;
  return html`<span class="badge ok">On</span>`;
}

/** A desk's mode: a test desk says so wherever the desk is shown; a live desk's badge is plain. */
export function deskMode(d: { sandbox: boolean }): Html {
  return d.sandbox ? html`<span class="badge warn">Test desk</span>` : html`<span class="badge">Live</span>`;
}

/** What a test desk is, where its page and its credentials are shown. */
const testDeskNotice = html`<p class="notice warn" id="test-desk-notice"><strong>Test desk.</strong> Its orders are test orders whatever the account's status: served by the sandbox, paid by simulation from the cabinet, credited to the sandbox balance only, and marked <code>"sandbox": true</code> in the API and in callbacks. Never ship goods for them.</p>`;

/** A desk as lists show it: its name first (a link to it), its id after. */
export function deskLabel(d: { id: string; name: string } | undefined, id: string): Html {
  return d
    ? html`<a href="/cabinet/desks/${d.id}">${d.name}</a> <span class="mono small">${d.id}</span>`
    : html`<span class="mono small">${id}</span>`;
}

/** A rail's explanation and the currencies it serves, after its name in the form. */
function railHint(rail: string, currencies: readonly string[] | null): Html | string {
  const what = RAIL_SUMMARY[rail];
  const parts = [what, currencies?.join(', ')].filter((x): x is string => !!x);
  return parts.length ? html` <span class="hint">(${parts.join('; ')})</span>` : '';
}

/** The new desk's mode, chosen once: live (follows the account) or test (always the sandbox). */
function modeChoice(sandbox: boolean): Html {
  return html`<fieldset id="desk-mode" aria-describedby="desk-mode-hint"><legend>Mode</legend>
<p class="hint" id="desk-mode-hint">Fixed for the desk's life: for the other mode, create another desk.</p>
<label><input type="radio" name="sandbox" value="false"${!sandbox ? html` checked` : ''}> Live: real payments once the account is approved (test orders until then)</label>
<label><input type="radio" name="sandbox" value="true"${sandbox ? html` checked` : ''}> Test: always test orders, paid by simulation from the cabinet; no real money ever moves</label></fieldset>`;
}

/**
 * The desk form: a new desk (any method), or the settings of desk `editId` (its method and mode are
 * fixed for life). A refusal is shown inside the form, above its fields, with what was typed kept.
 */
function deskForm(c: CabinetRequest, currencies: readonly string[], f: DeskForm, editId: string | null, error: string | null): Html {
  const methods = editId ? METHODS.filter((m) => m === f.method) : METHODS;
  const railBoxes = methods.filter((m) => CATALOGUE[m].length > 0).map(
    (m) => html`<fieldset${editId ? '' : html` data-method="${m}"`}><legend>${m} rails</legend>${CATALOGUE[m].map(
      (r) => html`<label><input type="checkbox" name="rails" value="${r.rail}"${f.method === m && f.rails.includes(r.rail) ? html` checked` : ''}> ${r.rail}${railHint(r.rail, r.currencies)}</label>`,
    )}</fieldset>`,
  );
  // A currency the desk has but the platform no longer enables stays ticked, so saving keeps it.
  const codes = [...new Set([...currencies, ...f.currencies])];
  const errorId = editId ? 'edit-desk-error' : 'new-desk-error';
  return html`<form class="card stack" method="post" action="${editId ? `/cabinet/desks/${editId}/settings` : '/cabinet/desks'}"${editId ? html` id="edit-desk"` : html` id="new-desk"`}${error ? html` aria-describedby="${errorId}"` : ''}>${csrfInput(c.csrf)}
<h2>${editId ? 'Change settings' : 'New cash desk'}</h2>
${error ? html`<p class="notice bad" role="alert" id="${errorId}"><strong>Nothing was ${editId ? 'saved' : 'created'}.</strong> ${error}</p>` : ''}
<label>Name <span class="hint">Shown before the id in every list${editId ? '' : '; empty: “Desk N”'}.</span>
<input type="text" name="name" maxlength="100" value="${f.name}"${editId ? html` required` : ''} autocomplete="off"></label>
${editId
  ? html`<input type="hidden" name="method" value="${f.method}"><p>Method: <strong>${f.method}</strong> <span class="hint">(bound to the desk for life)</span></p>
<p>Mode: <strong>${f.sandbox ? 'Test' : 'Live'}</strong> <span class="hint">(fixed for the desk's life)</span></p>`
  : html`<label>Method <span class="hint">Bound to the desk for life. Tick the rails of this method below; methods without rails take none.</span>
<select name="method" aria-describedby="method-list">${METHODS.map((m) => html`<option value="${m}"${m === f.method ? html` selected` : ''}>${m}</option>`)}</select></label>
<ul class="hint method-list" id="method-list">${METHODS.map((m) => html`<li><strong>${m}</strong>: ${METHOD_SUMMARY[m]}</li>`)}</ul>`}
${editId ? '' : modeChoice(f.sandbox)}
${railBoxes}
<fieldset><legend>Currencies</legend>${codes.length === 0 ? html`<span class="hint">No currency is enabled on the platform yet.</span>` : codes.map(
    (code) => html`<label><input type="checkbox" name="currencies" value="${code}"${f.currencies.includes(code) ? html` checked` : ''}> ${code}</label>`,
  )}</fieldset>
<div class="filters">
<label>Minimum per order, USD <input type="text" name="minUsd" inputmode="decimal" value="${f.minUsd}" placeholder="no limit" aria-describedby="limits-hint"></label>
<label>Maximum per order, USD <input type="text" name="maxUsd" inputmode="decimal" value="${f.maxUsd}" placeholder="no limit" aria-describedby="limits-hint"></label>
</div>
<p class="hint" id="limits-hint">Empty or 0: no limit.</p>
<label>Callback URL <span class="hint">https, a public address; events about orders are posted here, signed with the desk secret.</span>
<input type="url" name="callbackUrl" value="${f.callbackUrl}" placeholder="https://shop.example/paygate/callbacks"></label>
<fieldset><legend>Callbacks</legend>
<label><input type="radio" name="callbacksEnabled" value="true"${f.callbacksEnabled ? html` checked` : ''}> Send</label>
<label><input type="radio" name="callbacksEnabled" value="false"${!f.callbacksEnabled ? html` checked` : ''}> Do not send (read the events feed instead)</label></fieldset>
<div><button type="submit">${editId ? 'Save settings' : 'Create cash desk'}</button></div>
</form>`;
}

export function desksPage(c: CabinetRequest, desks: readonly DeskView[], currencies: readonly string[], form: DeskForm, error: string | null): Html {
  return cabinetPage(
    c,
    'Cash desks',
    'desks',
    html`<h1>Cash desks</h1>
${desks.length === 0
  ? html`<p class="card">No cash desk yet. A desk is what your shop signs API calls with: one per site or integration.</p>`
  : listTable<DeskView>('Your cash desks', [
      { label: 'Name', cell: (d) => html`<a href="/cabinet/desks/${d.id}">${d.name}</a>` },
      { label: 'Desk id', cell: (d) => html`<span class="mono id">${d.id}</span>` },
      { label: 'State', cell: deskState },
      { label: 'Mode', cell: deskMode },
      { label: 'Method', cell: (d) => d.method },
      { label: 'Rails', cell: (d) => d.rails.join(', ') || '—' },
      { label: 'Currencies', cell: (d) => d.currencies.join(', ') },
      { label: 'Created (UTC)', cell: (d) => utc(d.createdAt) },
    ], desks)}
${mayChange(c) ? deskForm(c, currencies, form, null, error) : ''}`,
  );
}

function credentials(d: { id: string; name: string; key: string; sandbox: boolean }, secret: string, baseUrl: string, what: string): Html {
  return html`<section class="card" aria-labelledby="cred-h"><h2 id="cred-h">${what}</h2>
<p class="notice warn">Copy the secret now: it is shown this once and never again. Store it on your server only.</p>
${d.sandbox ? testDeskNotice : ''}
<dl class="fields">
<dt>Name</dt><dd>${d.name}</dd>
<dt>Desk id</dt><dd>${copyable(d.id, 'desk id', { id: 'desk-id' })}</dd>
<dt>Key</dt><dd>${copyable(d.key, 'key', { id: 'desk-key' })}</dd>
<dt>Secret</dt><dd>${copyable(secret, 'secret', { id: 'desk-secret', secret: true })}</dd>
</dl></section>
<section class="card" aria-labelledby="curl-h"><h2 id="curl-h">Try it: a signed call</h2>
${snippet(signedCurl(baseUrl, d.key, secret), 'signed call')}
<p>Or with the Node.js SDK, the secret in <code>PAYGATE_SECRET</code>:</p>
${snippet(nodeSnippet(baseUrl, d.key), 'SDK example')}</section>
<p><a href="/cabinet/desks/${d.id}">Go to the desk</a></p>`;
}

export function deskCreatedPage(c: CabinetRequest, d: DeskView, secret: string, baseUrl: string): Html {
  return cabinetPage(c, 'Cash desk created', 'desks', html`<h1>Cash desk created: ${d.name}${d.sandbox ? html` ${deskMode(d)}` : ''}</h1>${credentials(d, secret, baseUrl, 'Credentials')}`);
}

export function secretRotatedPage(c: CabinetRequest, d: DeskView, secret: string, baseUrl: string): Html {
  return cabinetPage(
    c,
    'New secret',
    'desks',
    html`<h1>New secret issued for ${d.name}</h1><p class="notice info">The old secret stopped working at once: calls signed with it answer INVALID_SIGNATURE.</p>${credentials(d, secret, baseUrl, 'New credentials')}`,
  );
}

export interface MethodsPicture {
  available: boolean;
  reason: string | null;
  rails: { rail: string | null; currencies: { code: string; min: number; max: number }[] }[];
}

export interface DeskExtras {
  /** The settings form, as stored or as typed back after a refusal. */
  form: DeskForm;
  currencies: readonly string[];
  error: string | null;
  test: TestCallbackView | null;
}

export interface TestCallbackView {
  eventId: string;
  url: string;
  sentAt: string;
  durationMs: number;
  outcome: string;
  httpCode: number | null;
  response: string | null;
  error: string | null;
}

function testResult(t: TestCallbackView): Html {
  const ok = t.outcome === 'delivered';
  return html`<section class="card" aria-labelledby="test-h" id="test-result"><h2 id="test-h">Test callback result</h2>
<p role="status">${ok ? html`<span class="badge ok">Delivered</span> your server answered 200.` : html`<span class="badge bad">Not delivered</span> ${t.httpCode === null ? 'no answer.' : 'a real callback would be ' + (t.outcome === 'retry' ? 'retried.' : 'given up.')}`}</p>
<dl class="fields">
<dt>URL</dt><dd class="mono">${t.url}</dd>
<dt>Sent</dt><dd>${utc(t.sentAt)}, answered in ${t.durationMs} ms</dd>
<dt>Event id</dt><dd class="mono">${t.eventId}</dd>
<dt>HTTP code</dt><dd>${t.httpCode ?? '—'}</dd>
<dt>Answer (first 300 characters)</dt><dd class="wrap mono">${t.response ?? t.error ?? '—'}</dd>
</dl>
<p class="hint">A test is signed like a real callback but its body says <code>"event": "test.callback"</code>; it is not an order event, is not retried and is not in the events feed.</p></section>`;
}

type PictureLine = { rail: string | null; code: string; min: number; max: number };

export function deskPage(c: CabinetRequest, d: DeskView, picture: MethodsPicture, notice: string | null, extras: DeskExtras | null = null): Html {
  const limit = (v: string) => (/^0(\.0+)?$/.test(v) ? 'no limit' : money(v, 'USD'));
  const lines: PictureLine[] = picture.rails.flatMap((r) => r.currencies.map((cur) => ({ rail: r.rail, ...cur })));
  const change = mayChange(c);
  return cabinetPage(
    c,
    `Desk ${d.name}`,
    'desks',
    html`<h1>${d.name} ${deskState(d)}${d.sandbox ? html` ${deskMode(d)}` : ''}</h1>
<p class="subtitle">Cash desk ${copyable(d.id, 'desk id')}</p>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
${d.sandbox ? testDeskNotice : ''}
<div class="grid two">
<section class="card" aria-labelledby="fields-h"><h2 id="fields-h">Settings</h2>
<dl class="fields">
<dt>Name</dt><dd>${d.name}</dd>
<dt>Mode</dt><dd id="desk-mode-value">${d.sandbox ? 'Test desk: sandbox orders only (fixed for life)' : 'Live desk (fixed for life)'}</dd>
<dt>Key</dt><dd>${copyable(d.key, 'key')}</dd>
<dt>Method</dt><dd>${d.method}</dd>
<dt>Rails</dt><dd>${d.rails.join(', ') || '— (this method has no rails)'}</dd>
<dt>Currencies</dt><dd>${d.currencies.join(', ')}</dd>
<dt>Minimum</dt><dd>${limit(d.minUsd)}</dd>
<dt>Maximum</dt><dd>${limit(d.maxUsd)}</dd>
<dt>Callback URL</dt><dd class="mono">${d.callbackUrl ?? '—'}</dd>
<dt>Callbacks</dt><dd>${d.callbacksEnabled ? 'sent' : 'not sent'}</dd>
${d.stopReason ? html`<dt>Stopped by the platform</dt><dd>${d.stopReason}</dd>` : ''}
<dt>Created</dt><dd>${utc(d.createdAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="live-h"><h2 id="live-h">What the API offers now</h2>
<p>${picture.available ? html`<span class="badge ok">Taking orders</span>` : html`<span class="badge bad">Not taking orders</span> ${picture.reason}`}</p>
${lines.length === 0
  ? html`<p class="muted">No rail is available for this desk at the moment.</p>`
  : html`${listTable<PictureLine>('Rails and currencies the API offers for this desk', [
      { label: 'Rail', cell: (l) => l.rail ?? '—' },
      { label: 'Currency', cell: (l) => l.code },
      { label: 'Min', cell: (l) => (l.min === 0 ? '—' : money(String(l.min), l.code)), num: true },
      { label: 'Max', cell: (l) => (l.max === 0 ? '—' : money(String(l.max), l.code)), num: true },
    ], lines)}<p class="hint">As <code>GET /gw/v1/methods</code> answers for this desk; amounts in the order's currency.</p>`}
</section></div>
${change
  ? html`<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2><div class="actions">
<form class="inline" method="post" action="/cabinet/desks/${d.id}/enabled">${csrfInput(c.csrf)}<input type="hidden" name="enabled" value="${d.enabled ? 'false' : 'true'}">
<button type="submit" class="${d.enabled ? 'danger' : ''}">${d.enabled ? 'Turn the desk off' : 'Turn the desk on'}</button></form>
<form class="inline" method="post" action="/cabinet/desks/${d.id}/secret">${csrfInput(c.csrf)}<button type="submit" class="secondary">Issue a new secret</button></form>
${d.callbackUrl ? html`<form class="inline" method="post" action="/cabinet/desks/${d.id}/test-callback">${csrfInput(c.csrf)}<button type="submit" class="secondary">Send a test callback</button></form>` : ''}
<a href="/cabinet/orders?desk=${d.id}">Orders of this desk</a>
</div>
<p class="hint">A desk that is off answers SHOP_INACTIVE to new orders. A new secret replaces the old one at once.</p></section>`
  : html`<p><a href="/cabinet/orders?desk=${d.id}">Orders of this desk</a></p>`}
${extras?.test ? testResult(extras.test) : ''}
${extras && change ? deskForm(c, extras.currencies, extras.form, d.id, extras.error) : ''}`,
  );
}
