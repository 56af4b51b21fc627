import { CATALOGUE, METHODS } from '../../domain/catalogue.js';
import { html, type Html } from '../html.js';
import { nodeSnippet, signedCurl } from './homeView.js';
import { cabinetPage, csrfInput, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Cash desk pages: the list with the new-desk form, one desk with its settings, credentials shown once. */

export interface DeskView {
  id: string;
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
}

export interface DeskForm {
  method: string;
  rails: string[];
  currencies: string[];
  minUsd: string;
  maxUsd: string;
  callbackUrl: string;
  callbacksEnabled: boolean;
}

export const EMPTY_DESK_FORM: DeskForm = { method: 'Classic', rails: [], currencies: [], minUsd: '0', maxUsd: '0', callbackUrl: '', callbacksEnabled: true };

function deskState(d: DeskView): Html {
  if (!d.enabled) return html`<span class="badge">Off</span>`;
  if (d.stopReason) return html`<span class="badge bad">Stopped</span>`;
  return html`<span class="badge ok">On</span>`;
}

/** The desk form: a new desk (any method), or the settings of desk `editId` (its method is fixed for life). */
function deskForm(c: CabinetRequest, currencies: readonly string[], f: DeskForm, editId: string | null = null): Html {
  const methods = editId ? METHODS.filter((m) => m === f.method) : METHODS;
  const railBoxes = methods.filter((m) => CATALOGUE[m].length > 0).map(
    (m) => html`<fieldset${editId ? '' : html` data-method="${m}"`}><legend>${m} rails</legend>${CATALOGUE[m].map(
      (r) => html`<label><input type="checkbox" name="rails" value="${r.rail}"${f.method === m && f.rails.includes(r.rail) ? html` checked` : ''}> ${r.rail}</label>`,
    )}</fieldset>`,
  );
  // A currency the desk has but the platform no longer enables stays ticked, so saving keeps it.
  const codes = [...new Set([...currencies, ...f.currencies])];
  return html`<form class="card stack" method="post" action="${editId ? `/cabinet/desks/${editId}/settings` : '/cabinet/desks'}"${editId ? html` id="edit-desk"` : html` id="new-desk"`}>${csrfInput(c.csrf)}
<h2>${editId ? 'Change settings' : 'New cash desk'}</h2>
${editId
  ? html`<input type="hidden" name="method" value="${f.method}"><p>Method: <strong>${f.method}</strong> <span class="hint">(bound to the desk for life)</span></p>`
  : html`<label>Method <span class="hint">Bound to the desk for life. Tick the rails of this method below; methods without rails take none.</span>
<select name="method">${METHODS.map((m) => html`<option value="${m}"${m === f.method ? html` selected` : ''}>${m}</option>`)}</select></label>`}
${railBoxes}
<fieldset><legend>Currencies</legend>${codes.length === 0 ? html`<span class="hint">No currency is enabled on the platform yet.</span>` : codes.map(
    (code) => html`<label><input type="checkbox" name="currencies" value="${code}"${f.currencies.includes(code) ? html` checked` : ''}> ${code}</label>`,
  )}</fieldset>
<div class="filters">
<label>Minimum per order, USD <input type="text" name="minUsd" inputmode="decimal" value="${f.minUsd}" aria-describedby="limits-hint"></label>
<label>Maximum per order, USD <input type="text" name="maxUsd" inputmode="decimal" value="${f.maxUsd}" aria-describedby="limits-hint"></label>
</div>
<p class="hint" id="limits-hint">0 means no limit.</p>
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
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
${desks.length === 0
  ? html`<p class="card">No cash desk yet. A desk is what your shop signs API calls with: one per site or integration.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><caption class="skip">Your cash desks</caption><thead><tr><th scope="col">Desk</th><th scope="col">State</th><th scope="col">Method</th><th scope="col">Rails</th><th scope="col">Currencies</th><th scope="col">Created (UTC)</th></tr></thead><tbody>
${desks.map((d) => html`<tr><td><a class="mono" href="/cabinet/desks/${d.id}">${d.id}</a></td><td>${deskState(d)}</td><td>${d.method}</td><td>${d.rails.join(', ') || '—'}</td><td>${d.currencies.join(', ')}</td><td>${utc(d.createdAt)}</td></tr>`)}
</tbody></table></div>`}
${deskForm(c, currencies, form)}`,
  );
}

function credentials(d: { id: string; key: string }, secret: string, baseUrl: string, what: string): Html {
  return html`<section class="card" aria-labelledby="cred-h"><h2 id="cred-h">${what}</h2>
<p class="notice warn">Copy the secret now: it is shown this once and never again. Store it on your server only.</p>
<dl class="fields">
<dt>Desk id</dt><dd><span class="mono" id="desk-id" data-copy="desk id">${d.id}</span></dd>
<dt>Key</dt><dd><span class="mono" id="desk-key" data-copy="key">${d.key}</span></dd>
<dt>Secret</dt><dd><code class="secret" id="desk-secret" data-copy="secret">${secret}</code></dd>
</dl></section>
<section class="card" aria-labelledby="curl-h"><h2 id="curl-h">Try it: a signed call</h2>
<pre tabindex="0"><code>${signedCurl(baseUrl, d.key, secret)}</code></pre>
<p>Or with the Node.js SDK, the secret in <code>PAYGATE_SECRET</code>:</p>
<pre tabindex="0"><code>${nodeSnippet(baseUrl, d.key)}</code></pre></section>
<p><a href="/cabinet/desks/${d.id}">Go to the desk</a></p>`;
}

export function deskCreatedPage(c: CabinetRequest, d: DeskView, secret: string, baseUrl: string): Html {
  return cabinetPage(c, 'Cash desk created', 'desks', html`<h1>Cash desk created</h1>${credentials(d, secret, baseUrl, 'Credentials')}`);
}

export function secretRotatedPage(c: CabinetRequest, d: DeskView, secret: string, baseUrl: string): Html {
  return cabinetPage(
    c,
    'New secret',
    'desks',
    html`<h1>New secret issued</h1><p class="notice info">The old secret stopped working at once: calls signed with it answer INVALID_SIGNATURE.</p>${credentials(d, secret, baseUrl, 'New credentials')}`,
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

export function deskPage(c: CabinetRequest, d: DeskView, picture: MethodsPicture, notice: string | null, extras: DeskExtras | null = null): Html {
  const limit = (v: string) => (/^0(\.0+)?$/.test(v) ? 'no limit' : `${v} USD`);
  return cabinetPage(
    c,
    `Desk ${d.id}`,
    'desks',
    html`<h1>Cash desk <span class="mono">${d.id}</span> ${deskState(d)}</h1>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="fields-h"><h2 id="fields-h">Settings</h2>
<dl class="fields">
<dt>Key</dt><dd><span class="mono" data-copy="key">${d.key}</span></dd>
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
${picture.rails.length === 0
  ? html`<p class="muted">No rail is available for this desk at the moment.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Rail</th><th scope="col">Currency</th><th scope="col">Min</th><th scope="col">Max</th></tr></thead><tbody>
${picture.rails.flatMap((r) => r.currencies.map((cur) => html`<tr><td>${r.rail ?? '—'}</td><td>${cur.code}</td><td class="num">${cur.min === 0 ? '—' : String(cur.min)}</td><td class="num">${cur.max === 0 ? '—' : String(cur.max)}</td></tr>`))}
</tbody></table></div><p class="hint">As <code>GET /gw/v1/methods</code> answers for this desk; amounts in the order's currency.</p>`}
</section></div>
<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2><div class="actions">
<form class="inline" method="post" action="/cabinet/desks/${d.id}/enabled">${csrfInput(c.csrf)}<input type="hidden" name="enabled" value="${d.enabled ? 'false' : 'true'}">
<button type="submit" class="${d.enabled ? 'danger' : ''}">${d.enabled ? 'Turn the desk off' : 'Turn the desk on'}</button></form>
<form class="inline" method="post" action="/cabinet/desks/${d.id}/secret">${csrfInput(c.csrf)}<button type="submit" class="secondary">Issue a new secret</button></form>
${d.callbackUrl ? html`<form class="inline" method="post" action="/cabinet/desks/${d.id}/test-callback">${csrfInput(c.csrf)}<button type="submit" class="secondary">Send a test callback</button></form>` : ''}
<a href="/cabinet/orders?desk=${d.id}">Orders of this desk</a>
</div>
<p class="hint">A desk that is off answers SHOP_INACTIVE to new orders. A new secret replaces the old one at once.</p></section>
${extras?.test ? testResult(extras.test) : ''}
${extras?.error ? html`<p class="notice bad" role="alert">${extras.error}</p>` : ''}
${extras ? deskForm(c, extras.currencies, extras.form, d.id) : ''}`,
  );
}

