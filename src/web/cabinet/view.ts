import { CATALOGUE, METHODS } from '../../domain/catalogue.js';
import { html, type Html, type Interpolation } from '../html.js';
import { document } from '../layout.js';
import type { CabinetRequest } from './session.js';

/**
 * The cabinet's pages: plain server-rendered HTML that works without a script. Every value goes
 * through `html` (escaped); every form carries the hidden `_csrf` input of the session.
 */

export type Section = 'home' | 'desks' | 'orders' | 'appeals' | 'callbacks' | 'balance' | 'account' | null;

export const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export function cabinetPage(c: CabinetRequest, title: string, section: Section, body: Interpolation, extraStyles: readonly string[] = []): Html {
  const link = (href: string, s: Section, label: string) => html`<a href="${href}"${s === section ? html` aria-current="page"` : ''}>${label}</a>`;
  return document({
    lang: 'en',
    title: `${title} · Paygate cabinet`,
    styles: ['cabinet.css', ...extraStyles],
    scripts: ['cabinet.js'],
    body: html`<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar">
<a class="brand" href="/cabinet">Paygate</a>
<nav aria-label="Cabinet">${link('/cabinet', 'home', 'Home')}${link('/cabinet/desks', 'desks', 'Cash desks')}${link('/cabinet/orders', 'orders', 'Orders')}${link('/cabinet/appeals', 'appeals', 'Appeals')}${link('/cabinet/callbacks', 'callbacks', 'Callbacks')}${link('/cabinet/balance', 'balance', 'Balance')}${link('/cabinet/account', 'account', 'Account')}</nav>
<div class="who"><span>${c.merchant.name} · ${c.user.email}</span>
<form class="inline" method="post" action="/cabinet/sign-out">${csrfInput(c.csrf)}<button class="link" type="submit">Sign out</button></form></div>
</div></header>
<main id="main">
${c.merchant.sandbox ? html`<p class="notice warn">Sandbox is on: orders are test orders and no money moves. Complete them with “Simulate payment”.</p>` : ''}
${body}
</main>`,
  });
}

/** Sign-in, sign-up and error pages for a browser without a session. */
export function publicPage(title: string, body: Interpolation): Html {
  return document({ lang: 'en', title: `${title} · Paygate cabinet`, styles: ['cabinet.css'], body: html`<main id="main" class="narrow">${body}</main>` });
}

export function signInPage(o: { csrf: string; email: string; failed: boolean; signupOpen: boolean; notice?: string | null }): Html {
  return publicPage(
    'Sign in',
    html`<h1>Sign in to your cabinet</h1>
${o.notice ? html`<p class="notice info" role="status">${o.notice}</p>` : ''}
${o.failed ? html`<p class="notice bad" role="alert" id="sign-in-error">Wrong email or password.</p>` : ''}
<form class="card stack" method="post" action="/cabinet/sign-in">${csrfInput(o.csrf)}
<label>Email <input type="email" name="email" autocomplete="username" required value="${o.email}"${o.failed ? html` aria-describedby="sign-in-error"` : ''}></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
${o.signupOpen ? html`<p>New to Paygate? <a href="/cabinet/sign-up">Create an account</a>: you can integrate in the sandbox at once.</p>` : ''}`,
  );
}

export function signUpPage(o: { csrf: string; company: string; email: string; error: string | null }): Html {
  return publicPage(
    'Create an account',
    html`<h1>Create a merchant account</h1>
<p>Your account starts in the sandbox: create a cash desk and send test orders right away. Live payments open once we have reviewed your business.</p>
${o.error ? html`<p class="notice bad" role="alert" id="sign-up-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/cabinet/sign-up">${csrfInput(o.csrf)}
<label>Company name <input type="text" name="company" autocomplete="organization" required minlength="2" maxlength="100" value="${o.company}"></label>
<label>Work email <input type="email" name="email" autocomplete="email" required value="${o.email}"></label>
<label>Password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"></label>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/cabinet/sign-in">Sign in</a>.</p>`,
  );
}

export function messagePage(c: CabinetRequest | null, title: string, message: string): Html {
  const body = html`<h1>${title}</h1><p>${message}</p><p><a href="/cabinet">Back to the cabinet</a></p>`;
  return c ? cabinetPage(c, title, null, body) : publicPage(title, body);
}

/** A time as the API gives it (UTC, ISO 8601); the script writes the reader's local time beside. */
export function utc(iso: string | null): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

// ---- home

export interface HomeData {
  progress: { hasDesk: boolean; hasOrder: boolean; hasDeliveredCallback: boolean; hasCompletedSandboxOrder: boolean };
  firstDesk: { id: string; key: string } | null;
  baseUrl: string;
}

function statusExplained(m: CabinetRequest['merchant']): Html {
  if (m.status === 'Active') {
    return html`<p><span class="badge ok">Active</span> Your account is approved: live orders are served${m.sandbox ? ' once you turn the sandbox off with us' : ''}.</p>`;
  }
  if (m.status === 'Blocked') {
    return html`<p><span class="badge bad">Blocked</span> Your account is blocked: the API refuses new orders (MERCHANT_INACTIVE).${m.block_reason ? html` Reason: ${m.block_reason}.` : ''} Contact support to resolve it.</p>`;
  }
  return m.sandbox
    ? html`<p><span class="badge warn">Under review</span> We are reviewing your business. Meanwhile the sandbox is on: integrate now with test orders; nothing you build changes when live payments open.</p>`
    : html`<p><span class="badge warn">Under review</span> We are reviewing your business; orders are served once the account is approved.</p>`;
}

/**
 * A signed GET of /gw/v1/methods that runs in any POSIX shell with openssl: the signing string is
 * `{ts}.{nonce}.{METHOD}.{path}.{sha256 of body}` (API guide, "Signing").
 */
export function signedCurl(baseUrl: string, key: string, secret: string | null): string {
  return [
    `BASE='${baseUrl}'`,
    `KEY='${key}'`,
    `SECRET='${secret ?? 'paste the desk secret here'}'`,
    `TS=$(date +%s); NONCE=$(openssl rand -hex 16); P=/gw/v1/methods`,
    `BODY_SHA=$(printf '' | openssl dgst -sha256 -hex | sed 's/^.* //')`,
    `SIGN=$(printf '%s' "$TS.$NONCE.GET.$P.$BODY_SHA" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')`,
    `curl -sS "$BASE$P" -H "X-Gate-Key: $KEY" -H "X-Gate-Ts: $TS" -H "X-Gate-Nonce: $NONCE" -H "X-Gate-Sign: $SIGN"`,
  ].join('\n');
}

/** The same call with the Node.js SDK; the secret comes from the environment, never from source code. */
export function nodeSnippet(baseUrl: string, key: string): string {
  return [
    `// Node.js 20+, with @paygate/sdk installed; run as an ES module (.mjs)`,
    `import { Paygate } from '@paygate/sdk';`,
    ``,
    `const paygate = new Paygate({ baseUrl: '${baseUrl}', key: '${key}', secret: process.env.PAYGATE_SECRET });`,
    `console.log(await paygate.methods());`,
  ].join('\n');
}

export function homePage(c: CabinetRequest, d: HomeData): Html {
  const p = d.progress;
  const step = (done: boolean, text: Interpolation) => html`<li class="${done ? 'done' : ''}"><span class="step">${text}</span>${done ? html` <span class="badge ok">done</span>` : ''}</li>`;
  return cabinetPage(
    c,
    'Home',
    'home',
    html`<h1>${c.merchant.name}</h1>
<section class="card" aria-labelledby="status-h"><h2 id="status-h">Account</h2>${statusExplained(c.merchant)}</section>
<section class="card" aria-labelledby="start-h"><h2 id="start-h">Get started</h2>
<ol class="checklist">
${step(p.hasDesk, html`<a href="/cabinet/desks#new-desk">Create a cash desk</a>: its method, rails, currencies and callback URL.`)}
${step(p.hasDesk, 'Copy the desk key and secret: the secret is shown once, when the desk is created or its secret rotated.')}
${step(p.hasOrder, html`Make a signed test call (below), then create an order with <code>POST /gw/v1/orders</code>.`)}
${step(p.hasDeliveredCallback, 'Receive a callback: your callback URL answers 2xx to a signed event.')}
${step(p.hasCompletedSandboxOrder, html`Simulate a payment on a sandbox order from <a href="/cabinet/orders">Orders</a>.`)}
</ol></section>
${d.firstDesk
  ? html`<section class="card" aria-labelledby="curl-h"><h2 id="curl-h">Signed test call</h2>
<p>Asks what desk <a href="/cabinet/desks/${d.firstDesk.id}" class="mono">${d.firstDesk.id}</a> can take now. Paste the secret you copied at creation.</p>
<pre tabindex="0"><code>${signedCurl(d.baseUrl, d.firstDesk.key, null)}</code></pre>
<p>Or with the Node.js SDK, the secret in <code>PAYGATE_SECRET</code>:</p>
<pre tabindex="0"><code>${nodeSnippet(d.baseUrl, d.firstDesk.key)}</code></pre></section>`
  : ''}`,
  );
}

// ---- desks

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

// ---- orders

export const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute'] as const;

export interface OrderFilters {
  status: string;
  desk: string;
  from: string;
  to: string;
  q: string;
}

/** A line of the orders list: the order page's shape. */
export type OrderLine = OrderDetail;

/** The filters as a query string (no CSRF token: links to lists and exports carry none). */
export function filterQuery(f: OrderFilters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

function statusBadge(status: string): Html {
  const cls = status === 'Completed' ? 'ok' : status === 'Canceled' ? '' : status === 'Dispute' ? 'bad' : 'warn';
  return html`<span class="badge ${cls}">${status}</span>`;
}

export function ordersPage(c: CabinetRequest, o: { filters: OrderFilters; lines: readonly OrderLine[]; next: string | null; desks: readonly string[]; error: string | null }): Html {
  const f = o.filters;
  return cabinetPage(
    c,
    'Orders',
    'orders',
    html`<h1>Orders</h1>
<form class="card filters" method="get" action="/cabinet/orders" role="search">${csrfInput(c.csrf)}
<label>Status <select name="status"><option value="">Any</option>${ORDER_STATUSES.map((s) => html`<option value="${s}"${s === f.status ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>Desk <select name="desk"><option value="">Any</option>${o.desks.map((d) => html`<option value="${d}"${d === f.desk ? html` selected` : ''}>${d}</option>`)}</select></label>
<label>From (UTC) <input type="date" name="from" value="${f.from}"></label>
<label>To (UTC, before) <input type="date" name="to" value="${f.to}"></label>
<label>Order id or orderRef <input type="text" name="q" value="${f.q}" maxlength="100"></label>
<button type="submit">Filter</button>
<a class="button secondary" href="/cabinet/orders.csv${filterQuery(f)}" download>Export CSV</a>
</form>
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${o.lines.length === 0
  ? html`<p class="card">No order matches.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><caption class="skip">Orders, newest first</caption><thead><tr><th scope="col">Order</th><th scope="col">orderRef</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Settled, USD</th><th scope="col">Credited, USD</th><th scope="col">Method</th><th scope="col">Desk</th><th scope="col">Created (UTC)</th></tr></thead><tbody>
${o.lines.map((l) => html`<tr><td><a class="mono" href="/cabinet/orders/${l.id}">${l.id}</a>${l.sandbox ? html` <span class="badge">test</span>` : ''}</td><td class="mono">${l.orderRef ?? '—'}</td><td>${statusBadge(l.status)}</td><td class="num">${l.amount} ${l.currency}</td><td class="num">${l.settled.amount}</td><td class="num">${l.credited.amount}</td><td>${l.method}${l.rail ? ` / ${l.rail}` : ''}</td><td class="mono">${l.deskId}</td><td>${utc(l.createdAt)}</td></tr>`)}
</tbody></table></div>`}
<nav class="pager" aria-label="Pages">${f.status || f.desk || f.from || f.to || f.q ? html`<a href="/cabinet/orders">Clear filters</a>` : ''}${o.next ? html`<a href="/cabinet/orders${filterQuery(f, { before: o.next })}" rel="next">Older orders →</a>` : ''}</nav>`,
  );
}

export interface OrderDetail {
  id: string;
  orderRef: string | null;
  status: string;
  subStatus: string | null;
  amount: string;
  currency: string;
  settled: { amount: string; rate: string };
  commission: { rate: string; amount: string };
  credited: { amount: string };
  method: string;
  rail: string | null;
  payerReference: string | null;
  cancelReason: string | null;
  createdAt: string;
  expiresAt: string;
  finishedAt: string | null;
  deskId: string;
  sandbox: boolean;
}

export interface Attempt {
  eventId: string;
  event: string;
  attempt: number;
  outcome: string;
  httpCode: number | null;
  response: string | null;
  error: string | null;
  at: string;
}

export function orderPage(c: CabinetRequest, o: OrderDetail, attempts: readonly Attempt[], notice: { kind: 'ok' | 'bad'; text: string } | null, more: Interpolation = null): Html {
  const canSimulate = o.sandbox && (o.status === 'Created' || o.status === 'Payed' || o.status === 'Dispute');
  return cabinetPage(
    c,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order <span class="mono">${o.id}</span> ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">test</span>` : ''}</h1>
${notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'bad' ? 'alert' : 'status'}">${notice.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="ord-h"><h2 id="ord-h">Order</h2><dl class="fields">
<dt>orderRef</dt><dd class="mono">${o.orderRef ?? '—'}</dd>
<dt>Status</dt><dd>${o.status}${o.subStatus ? ` (${o.subStatus})` : ''}</dd>
<dt>Amount</dt><dd>${o.amount} ${o.currency}</dd>
<dt>Method</dt><dd>${o.method}${o.rail ? ` / ${o.rail}` : ''}</dd>
<dt>Desk</dt><dd><a class="mono" href="/cabinet/desks/${o.deskId}">${o.deskId}</a></dd>
<dt>Payer reference</dt><dd class="mono">${o.payerReference ?? '—'}</dd>
${o.cancelReason ? html`<dt>Cancel reason</dt><dd>${o.cancelReason}</dd>` : ''}
<dt>Created</dt><dd>${utc(o.createdAt)}</dd>
<dt>Expires</dt><dd>${utc(o.expiresAt)}</dd>
<dt>Finished</dt><dd>${utc(o.finishedAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="money-h"><h2 id="money-h">Settlement, fee and credit</h2><dl class="fields">
<dt>Rate</dt><dd>${o.settled.rate} ${o.currency} per USD</dd>
<dt>Settled</dt><dd>${o.settled.amount} USD</dd>
<dt>Fee</dt><dd>${o.commission.amount} USD (${o.commission.rate} %)</dd>
<dt>Credited</dt><dd>${o.credited.amount} USD</dd>
</dl><p class="hint">The fee and credit are set when the order completes.</p></section></div>
<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2><div class="actions">
${canSimulate ? html`<form class="inline" method="post" action="/cabinet/orders/${o.id}/simulate-payment">${csrfInput(c.csrf)}<button type="submit">Simulate payment</button></form>` : ''}
<form class="inline" method="post" action="/cabinet/orders/${o.id}/resend">${csrfInput(c.csrf)}<button type="submit" class="secondary">Resend callback</button></form>
</div><p class="hint">Resend posts the order's current state to your callback URL as a new event with a new event id.${o.sandbox ? '' : ' Live orders are completed by the payment itself.'}</p></section>
${more}
<section class="card" aria-labelledby="cb-h"><h2 id="cb-h">Callback attempts</h2>
${attempts.length === 0
  ? html`<p class="muted">No delivery attempt yet.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">HTTP code</th><th scope="col">Answer (first 300 characters)</th></tr></thead><tbody>
${attempts.map((a) => html`<tr><td>${utc(a.at)}</td><td><span class="mono">${a.eventId}</span><br>${a.event}</td><td class="num">${a.attempt}</td><td>${a.outcome}</td><td class="num">${a.httpCode ?? '—'}</td><td class="wrap mono">${(a.response ?? a.error ?? '').slice(0, 300)}</td></tr>`)}
</tbody></table></div>`}
</section>`,
  );
}

// ---- account

export interface SessionLine {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

export function accountPage(c: CabinetRequest, sessions: readonly SessionLine[], notice: string | null, error: string | null, more: Interpolation = null): Html {
  return cabinetPage(
    c,
    'Account',
    'account',
    html`<h1>Account</h1>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<div class="grid two">
<form class="card stack" method="post" action="/cabinet/account/password">${csrfInput(c.csrf)}
<h2>Change password</h2>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<input type="text" name="username" autocomplete="username" value="${c.user.email}" hidden>
<label>Current password <input type="password" name="currentPassword" autocomplete="current-password" required></label>
<label>New password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="newPassword" autocomplete="new-password" required minlength="10" maxlength="200"></label>
<div><button type="submit">Change password</button></div>
<p class="hint">Changing it signs you out everywhere else.</p>
</form>
<section class="card" aria-labelledby="sess-h"><h2 id="sess-h">Where you are signed in</h2>
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Last seen (UTC)</th><th scope="col"><span class="skip">Action</span></th></tr></thead><tbody>
${sessions.map((s) => html`<tr><td class="wrap">${s.userAgent ?? 'unknown'}${s.current ? html` <span class="badge ok">this browser</span>` : ''}</td><td class="mono">${s.ip ?? '—'}</td><td>${utc(s.lastSeenAt)}</td>
<td>${s.current ? '' : html`<form class="inline" method="post" action="/cabinet/account/sessions/${s.id}/revoke">${csrfInput(c.csrf)}<button type="submit" class="secondary">Sign out</button></form>`}</td></tr>`)}
</tbody></table></div></section></div>
${more}`,
  );
}
