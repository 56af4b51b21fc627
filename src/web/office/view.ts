import type { orderCallbackLog } from '../../services/events.js';
import type * as office from '../../services/office.js';
import type { QueueCounts } from '../../services/office.js';
import { html, raw, type Html, type Interpolation } from '../html.js';
import { document } from '../layout.js';
import { barChart, columnChart, rateTone } from './charts.js';
import type { OfficeRequest } from './session.js';

/**
 * The back office's pages: server-rendered, usable without a script. Every value goes through
 * `html` (escaped); every form carries the session's `_csrf`. Forms of admin-only actions are not
 * rendered for a `support` operator (the routes refuse them with 403 all the same).
 */

type Fn<K extends keyof typeof office> = (typeof office)[K] extends (...a: never[]) => unknown ? Awaited<ReturnType<(typeof office)[K]>> : never;

export type Section = 'home' | 'review' | 'appeals' | 'payed' | 'reconcile' | 'callbacks' | 'merchants' | 'orders' | 'providers' | 'rates' | 'caps' | 'tariffs' | 'audit' | null;

export interface Shell {
  o: OfficeRequest;
  counts: QueueCounts;
}

export const isAdmin = (o: OfficeRequest) => o.operator.role === 'admin';
const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A time as the API gives it (UTC); the script adds the reader's local time beside. */
export function utc(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

const usd = (amount: string) => html`<span class="money">${amount} USD</span>`;

/** A POST button with its CSRF token and optional fields. */
function action(o: OfficeRequest, path: string, label: string, opts: { fields?: Interpolation; kind?: 'secondary' | 'danger'; id?: string } = {}): Html {
  return html`<form class="inline-form" method="post" action="${path}"${opts.id ? html` id="${opts.id}"` : ''}>${csrfInput(o.csrf)}${opts.fields}<button type="submit"${opts.kind ? html` class="${opts.kind}"` : ''}>${label}</button></form>`;
}

/** A POST with a required reason (block, stop, reverse): a labelled text field and a button. */
function reasonAction(o: OfficeRequest, path: string, label: string, field: string, fieldLabel: string, idBase: string): Html {
  return html`<form class="reason-form" method="post" action="${path}">${csrfInput(o.csrf)}
<label for="${idBase}">${fieldLabel}</label><input type="text" id="${idBase}" name="${field}" required maxlength="500">
<button type="submit" class="danger">${label}</button></form>`;
}

function count(n: number, overdue = 0): Html {
  if (n === 0) return html``;
  return html` <span class="count${overdue > 0 ? ' bad' : ''}">${n}<span class="visually-hidden"> waiting</span></span>`;
}

export function officePage(s: Shell, title: string, section: Section, body: Interpolation): Html {
  const c = s.counts;
  const link = (href: string, sec: Section, label: string, extra: Interpolation = '') =>
    html`<li><a href="${href}"${sec === section ? html` aria-current="page"` : ''}>${label}${extra}</a></li>`;
  return document({
    lang: 'en',
    title: `${title} · Paygate back office`,
    styles: ['office.css'],
    scripts: ['office.js'],
    body: html`<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/office">Paygate <span>back office</span></a>
<div class="who"><span>${s.o.operator.email} · <span class="role">${s.o.operator.role}</span></span>
<a href="/office/two-factor">Two-factor</a>
<form class="inline-form" method="post" action="/office/sign-out">${csrfInput(s.o.csrf)}<button class="link" type="submit">Sign out</button></form></div></header>
<div class="layout">
<nav class="side" aria-label="Back office">
<ul>${link('/office', 'home', 'Dashboard')}</ul>
<h2 class="nav-head">Queues</h2>
<ul>${link('/office/queues/review', 'review', 'Merchants to review', count(c.review))}${link('/office/queues/appeals', 'appeals', 'Open appeals', count(c.appeals, c.overdue))}${link('/office/queues/payed', 'payed', 'Payments to confirm', count(c.payed))}${link('/office/queues/reconcile', 'reconcile', 'To reconcile', count(c.reconcile))}${link('/office/queues/callbacks', 'callbacks', 'Failing callbacks', count(c.callbacks))}</ul>
<h2 class="nav-head">Objects</h2>
<ul>${link('/office/merchants', 'merchants', 'Merchants')}${link('/office/orders', 'orders', 'Orders')}${link('/office/providers', 'providers', 'Providers')}${link('/office/rates', 'rates', 'Currencies and rates')}${link('/office/tariffs', 'tariffs', 'Tariffs')}${link('/office/caps', 'caps', 'Turnover caps')}${link('/office/audit', 'audit', 'Audit trail')}</ul>
</nav>
<main id="main">
${body}
</main>
</div>`,
  });
}

export function publicPage(title: string, body: Interpolation): Html {
  return document({ lang: 'en', title: `${title} · Paygate back office`, styles: ['office.css'], body: html`<main id="main" class="narrow">${body}</main>` });
}

export function signInPage(o: { csrf: string; email: string; failed: boolean }): Html {
  return publicPage(
    'Sign in',
    html`<h1>Paygate back office</h1>
${o.failed ? html`<p class="notice bad" role="alert" id="sign-in-error">Wrong email or password.</p>` : ''}
<form class="card stack" method="post" action="/office/sign-in">${csrfInput(o.csrf)}
<label for="email">Email</label><input type="email" id="email" name="email" autocomplete="username" required value="${o.email}"${o.failed ? html` aria-describedby="sign-in-error"` : ''}>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function codePage(o: { csrf: string; challenge: string; failed: boolean }): Html {
  return publicPage(
    'Two-factor code',
    html`<h1>Enter your code</h1>
<p>Open your authenticator app and enter the 6-digit code for Paygate, or one of your recovery codes.</p>
${o.failed ? html`<p class="notice bad" role="alert" id="code-error">That code is not valid. Try the current one.</p>` : ''}
<form class="card stack" method="post" action="/office/sign-in/code">${csrfInput(o.csrf)}<input type="hidden" name="challenge" value="${o.challenge}">
<label for="code">Code</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="40"${o.failed ? html` aria-describedby="code-error"` : ''}>
<button type="submit">Continue</button>
</form>
<p><a href="/office/sign-in">Start again</a></p>`,
  );
}

export function enrolPage(s: Shell, e: { secret: string; uri: string; qrSvg: string; error: string | null; required: boolean }): Html {
  const body = html`<h1>Set up two-factor sign-in</h1>
${e.required ? html`<p class="notice warn">Operators sign in with a second factor. Set it up now: the back office opens once it is confirmed.</p>` : ''}
<ol class="steps">
<li>Scan this code with an authenticator app (any TOTP app), or type the secret.
<div class="qr">${rawSvg(e.qrSvg)}</div>
<p>Secret: <code class="secret" id="totp-secret">${e.secret}</code></p></li>
<li>Enter the 6-digit code the app shows.</li>
</ol>
${e.error ? html`<p class="notice bad" role="alert" id="enrol-error">${e.error}</p>` : ''}
<form class="card stack" method="post" action="/office/two-factor">${csrfInput(s.o.csrf)}
<label for="code">Code from the app</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8"${e.error ? html` aria-describedby="enrol-error"` : ''}>
<button type="submit">Confirm</button>
</form>`;
  return e.required ? bareSignedIn(s, 'Two-factor sign-in', body) : officePage(s, 'Two-factor sign-in', null, body);
}

/** Pages an operator sees before the required two-factor is set up: no navigation, nothing else reachable. */
function bareSignedIn(s: Shell, title: string, body: Interpolation): Html {
  return document({
    lang: 'en',
    title: `${title} · Paygate back office`,
    styles: ['office.css'],
    body: html`<header class="top"><span class="brand">Paygate <span>back office</span></span><div class="who"><span>${s.o.operator.email}</span>
<form class="inline-form" method="post" action="/office/sign-out">${csrfInput(s.o.csrf)}<button class="link" type="submit">Sign out</button></form></div></header>
<main id="main" class="narrow">${body}</main>`,
  });
}

/** The QR encoder's own SVG markup (never user data). */
const rawSvg = (svg: string) => raw(svg);

export function recoveryCodesPage(s: Shell, codes: readonly string[]): Html {
  return officePage(
    s,
    'Recovery codes',
    null,
    html`<h1>Two-factor sign-in is on</h1>
<p class="notice ok" role="status">Keep these recovery codes somewhere safe. Each signs you in once if you lose your phone. They are shown only now.</p>
<ul class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a class="button" href="/office">Continue to the back office</a></p>`,
  );
}

export function twoFactorStatusPage(s: Shell, st: { enabled: boolean; recoveryCodesLeft: number }): Html {
  return officePage(
    s,
    'Two-factor sign-in',
    null,
    html`<h1>Two-factor sign-in</h1>
${st.enabled ? html`<p><span class="badge ok">On</span> ${st.recoveryCodesLeft} recovery codes left.</p>` : html`<p><span class="badge warn">Off</span> <a href="/office/two-factor?setup=1">Set it up</a>.</p>`}`,
  );
}

export function messagePage(s: Shell | null, title: string, message: string): Html {
  const body = html`<h1>${title}</h1><p>${message}</p><p><a href="/office">Back to the dashboard</a></p>`;
  return s ? officePage(s, title, null, body) : publicPage(title, body);
}

function notice(text: string | null): Html {
  return text ? html`<p class="notice ok" role="status">${text}</p>` : html``;
}

function table(caption: string, head: readonly string[], rows: readonly Interpolation[], empty: string): Html {
  if (rows.length === 0) return html`<p class="muted empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

const statusBadge = (status: string) => {
  const tone = status === 'Completed' || status === 'Active' || status === 'delivered' || status === 'closed' ? 'ok' : status === 'Canceled' || status === 'Blocked' || status === 'failed' || status === 'open' ? 'bad' : 'warn';
  return html`<span class="badge ${tone}">${status}</span>`;
};

// ---- dashboard

export function homePage(s: Shell, d: Fn<'dashboard'>): Html {
  const t = d.turnover;
  return officePage(
    s,
    'Dashboard',
    'home',
    html`<h1>Dashboard</h1>
<section aria-labelledby="turnover-h" class="tiles">
<h2 id="turnover-h" class="visually-hidden">Turnover</h2>
<div class="tile"><p class="tile-label">Turnover today (UTC)</p><p class="tile-value">${usd(t.todayUsd)}</p><p class="muted">${t.todayOrders} completed live orders</p></div>
<div class="tile"><p class="tile-label">Turnover this month</p><p class="tile-value">${usd(t.monthUsd)}</p><p class="muted">${t.monthOrders} completed live orders</p></div>
<div class="tile"><p class="tile-label">Sandbox this month</p><p class="tile-value">${usd(t.sandboxMonthUsd)}</p><p class="muted">${t.sandboxTodayUsd} USD today; no money moved</p></div>
<div class="tile"><p class="tile-label">Waiting in queues</p><p class="tile-value">${s.counts.review + s.counts.appeals + s.counts.payed + s.counts.reconcile}</p><p class="muted">${s.counts.overdue} ${s.counts.overdue === 1 ? 'appeal' : 'appeals'} past the SLA</p></div>
</section>
<div class="grid two">
<section class="card" aria-labelledby="statuses-h"><h2 id="statuses-h">Orders by status, last 30 days</h2>
${barChart({ id: 'chart-statuses', title: 'Orders by status, last 30 days', unit: 'Orders', bars: d.statuses.map((x) => ({ label: x.status, value: x.count, text: String(x.count), tone: x.status === 'Completed' ? 'ok' : x.status === 'Canceled' ? 'bad' : 'warn' })) })}</section>
<section class="card" aria-labelledby="conversion-h"><h2 id="conversion-h">Conversion per method, last 30 days</h2>
${barChart({ id: 'chart-conversion', title: 'Completed of created orders per method, last 30 days', unit: 'Completed / created', max: 100, bars: d.conversion.map((x) => ({ label: x.method, value: x.percent, text: `${x.percent} % (${x.completed}/${x.created})`, tone: rateTone(x.percent) })) })}</section>
<section class="card" aria-labelledby="providers-h"><h2 id="providers-h">Provider success rates, last 7 days</h2>
${barChart({ id: 'chart-providers', title: 'Completed of served orders per provider, last 7 days', unit: 'Success rate', max: 100, bars: d.providers.map((x) => ({ label: x.name, value: x.percent, text: `${x.percent} % (${x.completed}/${x.placed})`, tone: rateTone(x.percent) })) })}
<p><a href="/office/providers">Providers and routing health</a></p></section>
<section class="card" aria-labelledby="callbacks-h"><h2 id="callbacks-h">Callback delivery, last 24 hours</h2>
${barChart({ id: 'chart-callbacks', title: 'Callback events by delivery state, last 24 hours', unit: 'Events', bars: d.callbacks.map((x) => ({ label: x.state, value: x.count, text: String(x.count), tone: x.state === 'delivered' ? 'ok' : x.state === 'pending' || x.state === 'suppressed' ? 'warn' : 'bad' })) })}
<p><a href="/office/queues/callbacks">Failing endpoints</a></p></section>
</div>`,
  );
}

// ---- queues

export function reviewQueuePage(s: Shell, rows: Fn<'reviewQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Merchants to review',
    'review',
    html`<h1>Merchants to review</h1>${notice(done)}
<p class="muted">The longest waiting first. Approving opens live providers to the merchant.</p>
${table(
  'Merchants under review',
  ['Merchant', 'Waiting since', 'Sandbox activity', ''],
  rows.map(
    (m) => html`<tr><td><a href="/office/merchants/${m.id}">${m.name}</a><br><span class="mono muted">${m.id}</span></td><td>${utc(m.createdAt)}</td>
<td>${m.desks} desks, ${m.sandboxOrders} sandbox orders, ${m.sandboxCompleted} completed</td>
<td>${admin ? action(s.o, `/office/merchants/${m.id}/approve`, 'Approve') : html`<span class="muted">admin approves</span>`}</td></tr>`,
  ),
  'Nobody is waiting for review.',
)}`,
  );
}

export function appealQueuePage(s: Shell, page: Fn<'appealQueue'>, done: string | null): Html {
  return officePage(
    s,
    'Open appeals',
    'appeals',
    html`<h1>Open appeals</h1>${notice(done)}
<p class="muted">The nearest decision deadline first. Accepting completes the order and credits the merchant; rejecting cancels it.</p>
${page.items.length === 0 ? html`<p class="muted empty">No open appeals.</p>` : ''}
<ul class="queue">${page.items.map(
      (a) => html`<li class="card${a.overdue ? ' overdue' : ''}" id="appeal-${a.id}">
<h2><a href="/office/appeals/${a.id}">${a.id}</a> ${a.overdue ? html`<span class="badge bad">Overdue</span>` : html`<span class="badge warn">Open</span>`}</h2>
<dl class="fields">
<dt>Decide by</dt><dd>${utc(a.slaDueAt)}</dd>
<dt>Order</dt><dd><a href="/office/orders/${a.orderId}">${a.orderId}</a>${a.orderRef ? html` (${a.orderRef})` : ''} · ${statusBadge(a.order.status)}</dd>
<dt>Amount</dt><dd>${a.order.amount} ${a.order.currency} · ${usd(a.amount.value)}</dd>
<dt>Merchant</dt><dd><a href="/office/merchants/${a.merchantId}">${a.merchantId}</a></dd>
<dt>Reason</dt><dd>${a.reason ?? html`<span class="muted">none given</span>`}</dd>
<dt>Evidence</dt><dd>${evidence(a)}</dd>
</dl>
${decideForms(s.o, a.id)}
</li>`,
    )}</ul>
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/queues/appeals?after=${page.next}">Next appeals</a></p>` : ''}`,
  );
}

function decideForms(o: OfficeRequest, id: string): Html {
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
function evidence(a: { id: string; evidenceUrl: string | null; hasReceipt: boolean }): Html {
  const links = (a.evidenceUrl ?? '').split(';').map((u) => u.trim()).filter(Boolean).map((u) =>
    /^https?:\/\//i.test(u) ? html`<a href="${u}" rel="noopener noreferrer" target="_blank">${u}</a>` : html`<span>${u}</span>`,
  );
  const receipt = a.hasReceipt ? html`<a href="/office/appeals/${a.id}/receipt">Receipt file</a>` : null;
  const all = receipt ? [...links, receipt] : links;
  return all.length === 0 ? html`<span class="muted">none</span>` : html`${all.map((x, i) => (i === 0 ? x : html` · ${x}`))}`;
}

function ordersTable(s: Shell, caption: string, rows: readonly OrderItem[], empty: string, act?: (o: OrderItem) => Interpolation): Html {
  return table(
    caption,
    ['Order', 'Created', 'Status', 'Amount', 'USD', 'Method', 'Payer reference', ...(act ? [''] : [])],
    rows.map(
      (o) => html`<tr><td><a href="/office/orders/${o.id}">${o.id}</a>${o.orderRef ? html`<br><span class="muted">${o.orderRef}</span>` : ''}</td><td>${utc(o.createdAt)}</td>
<td>${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td class="num">${o.amount} ${o.currency}</td><td class="num">${o.settled.amount}</td>
<td>${o.method}${o.rail ? html` · ${o.rail}` : ''}</td><td class="mono">${o.payerReference ?? ''}</td>${act ? html`<td>${act(o)}</td>` : ''}</tr>`,
    ),
    empty,
  );
}

type OrderItem = Fn<'payedQueue'>[number];

export function payedQueuePage(s: Shell, rows: Fn<'payedQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Payments to confirm',
    'payed',
    html`<h1>Payments to confirm</h1>${notice(done)}
<p class="muted">Pool orders the payer reported paid, the oldest report first. Confirm once the money is on the platform's account.</p>
${ordersTable(s, 'Pool orders awaiting confirmation', rows, 'No payment waits for confirmation.', admin ? (o) => action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm', { fields: html`<input type="hidden" name="from" value="payed">` }) : undefined)}`,
  );
}

export function reconcileQueuePage(s: Shell, rows: Fn<'reconcileQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'To reconcile',
    'reconcile',
    html`<h1>Cancelled orders to reconcile</h1>${notice(done)}
<p class="muted">Live orders that were cancelled although a payment reference came for them, the oldest first. Confirm when the money did arrive: the order completes and the merchant is credited.</p>
${ordersTable(s, 'Cancelled orders with a payment reference', rows, 'Nothing to reconcile.', admin ? (o) => action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm', { fields: html`<input type="hidden" name="from" value="reconcile">` }) : undefined)}`,
  );
}

export function callbackQueuePage(s: Shell, rows: Fn<'callbackQueue'>): Html {
  return officePage(
    s,
    'Failing callbacks',
    'callbacks',
    html`<h1>Failing callback endpoints</h1>
<p class="muted">Endpoints with failed or retrying events in the last 7 days, the most failing first.</p>
${table(
  'Failing callback endpoints',
  ['Desk', 'Endpoint', 'Failed', 'Retrying', 'Last event', 'Last error'],
  rows.map(
    (r) => html`<tr><td><a href="/office/desks/${r.deskId}">${r.deskId}</a><br><a class="muted" href="/office/merchants/${r.merchantId}">${r.merchantId}</a></td><td class="wrap mono">${r.url ?? '—'}</td>
<td class="num">${r.failed}</td><td class="num">${r.retrying}</td><td>${utc(r.lastEventAt)}</td><td class="wrap">${r.lastError ?? ''}</td></tr>`,
  ),
  'Every endpoint is answering.',
)}`,
  );
}

// ---- merchants and desks

type MerchantView = Fn<'merchantOverview'>['merchant'];

export function merchantsPage(s: Shell, page: { items: MerchantView[]; hasMore: boolean; next: string | null }, status: string): Html {
  const opt = (v: string, label: string) => html`<option value="${v}"${v === status ? html` selected` : ''}>${label}</option>`;
  return officePage(
    s,
    'Merchants',
    'merchants',
    html`<h1>Merchants</h1>
<form class="filters" method="get" action="/office/merchants"><label for="status">Status</label>
<select id="status" name="status">${opt('', 'Any')}${opt('UnderReview', 'Under review')}${opt('Active', 'Active')}${opt('Blocked', 'Blocked')}</select><button type="submit" class="secondary">Show</button></form>
${table(
  'Merchants',
  ['Merchant', 'Status', 'Sandbox', 'Balance', 'Created'],
  page.items.map(
    (m) => html`<tr><td><a href="/office/merchants/${m.id}">${m.name}</a><br><span class="mono muted">${m.id}</span></td><td>${statusBadge(m.status)}</td><td>${m.sandbox ? 'on' : 'off'}</td>
<td class="num">${m.balance.available}</td><td>${utc(m.createdAt)}</td></tr>`,
  ),
  'No merchants.',
)}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/merchants?status=${status}&amp;before=${page.next}">Older merchants</a></p>` : ''}`,
  );
}

export type AuditItem = Fn<'merchantOverview'>['audit'][number];

function auditTable(entries: readonly AuditItem[], caption = 'Audit entries'): Html {
  return table(
    caption,
    ['When', 'Who', 'Action', 'Object', 'Outcome'],
    entries.map(
      (a) => html`<tr><td>${utc(a.at)}</td><td class="mono">${a.actor}</td><td>${a.action}</td><td class="mono">${a.objectId ?? ''}</td>
<td class="wrap">${a.outcome === 'ok' ? html`<span class="badge ok">ok</span>` : html`<span class="badge bad">${a.outcome}</span> ${a.detail ?? ''}`}</td></tr>`,
    ),
    'No entries.',
  );
}

function auditSection(entries: readonly AuditItem[], objectId: string): Html {
  return html`<section class="card" aria-labelledby="audit-h"><h2 id="audit-h">Audit</h2>${auditTable(entries, `Audit entries of ${objectId}`)}
<p><a href="/office/audit?objectId=${objectId}">Every entry of ${objectId}</a></p></section>`;
}

export function merchantPage(s: Shell, m: Fn<'merchantOverview'>, done: string | null, error: string | null): Html {
  const admin = isAdmin(s.o);
  const mer = m.merchant;
  return officePage(
    s,
    mer.name,
    'merchants',
    html`<h1>${mer.name} ${statusBadge(mer.status)}</h1>${notice(done)}
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="fields"><dt>Id</dt><dd class="mono">${mer.id}</dd><dt>Status</dt><dd>${mer.status}${mer.blockReason ? html` — ${mer.blockReason}` : ''}</dd>
<dt>Sandbox</dt><dd>${mer.sandbox ? 'on' : 'off'}</dd><dt>Available balance</dt><dd id="balance">${usd(mer.balance.available)}</dd><dt>Created</dt><dd>${utc(mer.createdAt)}</dd></dl>
${admin
  ? html`<div class="actions">
${mer.status === 'UnderReview' ? action(s.o, `/office/merchants/${mer.id}/approve`, 'Approve') : ''}
${action(s.o, `/office/merchants/${mer.id}/sandbox`, mer.sandbox ? 'Turn the sandbox off' : 'Turn the sandbox on', { kind: 'secondary', fields: html`<input type="hidden" name="sandbox" value="${mer.sandbox ? 'false' : 'true'}">` })}
${mer.status === 'Blocked' ? action(s.o, `/office/merchants/${mer.id}/unblock`, 'Unblock', { kind: 'secondary' }) : reasonAction(s.o, `/office/merchants/${mer.id}/block`, 'Block', 'reason', 'Reason for the block', 'block-reason')}
</div>`
  : ''}
</section>
${admin
  ? html`<section class="card" aria-labelledby="withdraw-h"><h2 id="withdraw-h">Record a withdrawal</h2>
<p class="muted">A payout arranged with the merchant: the balance shrinks at once, never below zero.</p>
<form class="stack" method="post" action="/office/merchants/${mer.id}/withdrawals">${csrfInput(s.o.csrf)}
<label for="amountUsd">Amount (USD)</label><input type="text" id="amountUsd" name="amountUsd" inputmode="decimal" required pattern="\\d{1,16}(\\.\\d{1,8})?">
<label for="reference">Reference (bank transfer id)</label><input type="text" id="reference" name="reference" required maxlength="200">
<button type="submit">Record withdrawal</button></form></section>`
  : ''}
</div>
<section class="card" aria-labelledby="users-h"><h2 id="users-h">Users</h2>
${table('Users', ['Email', 'Id', 'Created'], m.users.map((u) => html`<tr><td>${u.email}</td><td class="mono">${u.id}</td><td>${utc(u.createdAt)}</td></tr>`), 'No cabinet users.')}</section>
<section class="card" aria-labelledby="desks-h"><h2 id="desks-h">Cash desks</h2>
${table(
  'Cash desks',
  ['Desk', 'Method', 'Enabled', 'Stopped', 'Callback URL'],
  m.desks.map(
    (d) => html`<tr><td><a href="/office/desks/${d.id}">${d.id}</a></td><td>${d.method}</td><td>${d.enabled ? 'yes' : 'no'}</td><td>${d.stopReason !== null ? html`<span class="badge bad">stopped</span> ${d.stopReason}` : 'no'}</td><td class="wrap mono">${d.callbackUrl ?? ''}</td></tr>`,
  ),
  'No desks yet.',
)}
<p><a href="/office/orders?merchantId=${mer.id}">Orders of this merchant</a></p></section>
<section class="card" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger (latest 100)</h2>
${table(
  'Ledger entries',
  ['When', 'Kind', 'Amount (USD)', 'Order', 'Reason'],
  m.ledger.map((e) => html`<tr><td>${utc(e.at)}</td><td>${e.kind}</td><td class="num">${e.amount}</td><td>${e.orderId ? html`<a href="/office/orders/${e.orderId}">${e.orderId}</a>` : ''}</td><td class="wrap">${e.reason ?? ''}</td></tr>`),
  'No entries yet.',
)}</section>
<section class="card" aria-labelledby="wd-h"><h2 id="wd-h">Withdrawals</h2>
${table('Withdrawals', ['When', 'Id', 'Amount (USD)', 'Reference'], m.withdrawals.map((w) => html`<tr><td>${utc(w.createdAt)}</td><td class="mono">${w.id}</td><td class="num">${w.amountUsd}</td><td>${w.reference}</td></tr>`), 'No withdrawals.')}</section>
${auditSection(m.audit, mer.id)}`,
  );
}

export interface DeskDetail {
  id: string;
  merchantId: string;
  method: string;
  rails: readonly string[];
  currencies: readonly string[];
  enabled: boolean;
  stopReason: string | null;
  callbackUrl: string | null;
  minUsd: string;
  maxUsd: string;
}

export function deskPage(s: Shell, d: DeskDetail, audit: readonly AuditItem[], done: string | null): Html {
  return officePage(
    s,
    `Desk ${d.id}`,
    'merchants',
    html`<h1>Cash desk <span class="mono">${d.id}</span> ${d.stopReason !== null ? html`<span class="badge bad">Stopped</span>` : ''}</h1>${notice(done)}
<section class="card"><dl class="fields"><dt>Merchant</dt><dd><a href="/office/merchants/${d.merchantId}">${d.merchantId}</a></dd>
<dt>Method</dt><dd>${d.method}${d.rails.length ? html` · ${d.rails.join(', ')}` : ''}</dd><dt>Currencies</dt><dd>${d.currencies.join(', ')}</dd>
<dt>Limits (USD)</dt><dd>${d.minUsd} – ${d.maxUsd}</dd><dt>Enabled by merchant</dt><dd>${d.enabled ? 'yes' : 'no'}</dd>
<dt>Stopped</dt><dd>${d.stopReason !== null ? html`yes — ${d.stopReason}` : 'no'}</dd><dt>Callback URL</dt><dd class="mono">${d.callbackUrl ?? '—'}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${d.stopReason !== null ? action(s.o, `/office/desks/${d.id}/resume`, 'Resume', { kind: 'secondary' }) : reasonAction(s.o, `/office/desks/${d.id}/stop`, 'Stop the desk', 'reason', 'Reason for the stop (shown to the merchant as SHOP_STOPPED)', 'stop-reason')}</div>` : ''}
<p><a href="/office/orders?deskId=${d.id}">Orders of this desk</a></p></section>
${auditSection(audit, d.id)}`,
  );
}

// ---- orders

export function ordersPage(s: Shell, f: { q: string; status: string; merchantId: string; deskId: string }, page: { items: OrderItem[]; hasMore: boolean; next: string | null }, error: string | null): Html {
  const qs = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== '')).toString();
  return officePage(
    s,
    'Orders',
    'orders',
    html`<h1>Orders</h1>
<form class="filters" method="get" action="/office/orders" role="search">
<div><label for="q">Order id, orderRef or payer reference</label><input type="text" id="q" name="q" value="${f.q}" maxlength="100"></div>
<div><label for="status">Status</label><select id="status" name="status">${['', 'Created', 'Payed', 'Completed', 'Canceled', 'Dispute'].map((v) => html`<option value="${v}"${v === f.status ? html` selected` : ''}>${v || 'Any'}</option>`)}</select></div>
${f.merchantId ? html`<input type="hidden" name="merchantId" value="${f.merchantId}">` : ''}${f.deskId ? html`<input type="hidden" name="deskId" value="${f.deskId}">` : ''}
<button type="submit" class="secondary">Search</button></form>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
${ordersTable(s, 'Orders', page.items, 'No orders match.')}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/orders?${qs}${qs ? '&' : ''}before=${page.next}">Older orders</a></p>` : ''}`,
  );
}

export type CallbackLine = Awaited<ReturnType<typeof orderCallbackLog>>[number];

export function orderPage(s: Shell, o: OrderItem, timeline: Fn<'orderTimeline'>, callbacks: readonly CallbackLine[], note: { kind: 'ok' | 'bad'; text: string } | null): Html {
  const admin = isAdmin(s.o);
  const can = (statuses: string[]) => statuses.includes(o.status);
  return officePage(
    s,
    `Order ${o.id}`,
    'orders',
    html`<h1>Order <span class="mono">${o.id}</span> ${statusBadge(o.status)}${o.sandbox ? html` <span class="badge">sandbox</span>` : ''}</h1>
${note ? html`<p class="notice ${note.kind}" role="${note.kind === 'ok' ? 'status' : 'alert'}">${note.text}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="order-h"><h2 id="order-h">Order</h2>
<dl class="fields"><dt>orderRef</dt><dd>${o.orderRef ?? '—'}</dd><dt>Amount</dt><dd>${o.amount} ${o.currency}</dd>
<dt>Settled</dt><dd>${usd(o.settled.amount)} at ${o.settled.rate}</dd><dt>Commission</dt><dd>${usd(o.commission.amount)} (${o.commission.rate} %)</dd>
<dt>Credited</dt><dd>${usd(o.credited.amount)}</dd><dt>Method</dt><dd>${o.method}${o.rail ? html` · ${o.rail}` : ''}</dd>
<dt>Sub-status</dt><dd>${o.subStatus}</dd><dt>Cancel reason</dt><dd>${o.cancelReason ?? '—'}</dd><dt>Payer reference</dt><dd class="mono">${o.payerReference ?? '—'}</dd>
<dt>Merchant</dt><dd><a href="/office/merchants/${o.merchantId}">${o.merchantId}</a></dd><dt>Desk</dt><dd><a href="/office/desks/${o.deskId}">${o.deskId}</a></dd>
<dt>Provider</dt><dd>${o.providerId ? html`<a href="/office/providers/${o.providerId}">${o.providerId}</a>` : '—'}</dd>
<dt>Created</dt><dd>${utc(o.createdAt)}</dd><dt>Expires</dt><dd>${utc(o.expiresAt)}</dd><dt>Finished</dt><dd>${utc(o.finishedAt)}</dd></dl></section>
<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">Actions</h2>
<div class="actions">${action(s.o, `/office/orders/${o.id}/resend`, 'Resend callback', { kind: 'secondary' })}
${admin && o.sandbox && can(['Created']) ? action(s.o, `/office/orders/${o.id}/simulate-payment`, 'Simulate payment', { kind: 'secondary' }) : ''}
${admin && !o.sandbox && can(['Created']) ? action(s.o, `/office/orders/${o.id}/report-payment`, 'Mark paid (Payed)', { kind: 'secondary' }) : ''}
${admin && can(['Created', 'Payed', 'Canceled', 'Dispute']) ? action(s.o, `/office/orders/${o.id}/confirm`, 'Confirm payment') : ''}
${admin && can(['Created', 'Payed']) ? action(s.o, `/office/orders/${o.id}/reject`, 'Reject', { kind: 'danger' }) : ''}</div>
${admin && o.status === 'Completed' ? reasonAction(s.o, `/office/orders/${o.id}/reverse`, 'Reverse', 'reason', 'Reason for the reversal', 'reverse-reason') : ''}
${admin ? '' : html`<p class="muted">Confirming, rejecting and reversing are for administrators.</p>`}
</section></div>
<section class="card" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
<ol class="timeline">${timeline.lines.map((l) => html`<li>${utc(l.at)} <strong>${l.what}</strong>${l.detail ? html` <span class="muted">${l.detail}</span>` : ''}</li>`)}</ol></section>
<section class="card" aria-labelledby="callbacks-h"><h2 id="callbacks-h">Callback attempts</h2>
${table(
  'Callback attempts',
  ['When', 'Event', 'Attempt', 'Outcome', 'HTTP', 'Response or error'],
  callbacks.map(
    (c) => html`<tr><td>${utc(c.at)}</td><td>${c.event}<br><span class="mono muted">${c.eventId}</span></td><td class="num">${c.attempt}</td><td>${statusBadge(c.outcome)}</td><td class="num">${c.httpCode ?? ''}</td><td class="wrap mono">${c.error ?? c.response ?? ''}</td></tr>`,
  ),
  'No callback attempt yet.',
)}</section>
${auditSection(timeline.audit, o.id)}`,
  );
}

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

// ---- providers

export type ProviderItem = Fn<'providerHealth'>['provider'];

export function providersPage(s: Shell, list: readonly (ProviderItem & { series: Fn<'providerDailySuccess'> })[], done: string | null): Html {
  return officePage(
    s,
    'Providers',
    'providers',
    html`<h1>Providers and routing health</h1>${notice(done)}
<p class="muted">The cascade asks providers by priority and skips paused ones and open circuits.</p>
${methodsPicture(list)}
<ul class="queue">${list.map((p) => html`<li class="card">${providerSummary(s, p)}
${successChart(`chart-${p.id}`, p.name, p.series)}</li>`)}</ul>`,
  );
}

/** Live methods across providers: each capability (method, rail, currency) and who serves it right now. */
function methodsPicture(list: readonly ProviderItem[]): Html {
  const live = list.filter((p) => typeof p.capabilities !== 'string');
  const rows = new Map<string, { method: string; rail: string | null; currency: string }>();
  for (const p of live) for (const c of p.capabilities as Exclude<ProviderItem['capabilities'], string>) rows.set(`${c.method}|${c.rail ?? ''}|${c.currency}`, c);
  const cell = (p: ProviderItem, c: { method: string; rail: string | null; currency: string }): { text: string; tone: 'ok' | 'warn' | 'bad' } | null => {
    const caps = p.capabilities as Exclude<ProviderItem['capabilities'], string>;
    if (!caps.some((x) => x.method === c.method && x.rail === c.rail && x.currency === c.currency)) return null;
    if (p.paused) return { text: 'paused', tone: 'bad' };
    const state = p.circuits.find((x) => x.method === c.method && x.rail === c.rail)?.state ?? 'closed';
    return state === 'closed' ? { text: 'serving', tone: 'ok' } : { text: `circuit ${state}`, tone: state === 'open' ? 'bad' : 'warn' };
  };
  const sorted = [...rows.values()].sort((x, y) => `${x.method}${x.rail}${x.currency}`.localeCompare(`${y.method}${y.rail}${y.currency}`));
  return html`<section class="card" aria-labelledby="picture-h"><h2 id="picture-h">Live methods picture</h2>
${table(
  'Live methods across providers',
  ['Method', 'Rail', 'Currency', 'Live now', ...live.map((p) => p.name)],
  sorted.map((c) => {
    const cells = live.map((p) => cell(p, c));
    const serving = cells.some((x) => x?.tone === 'ok' || x?.tone === 'warn');
    return html`<tr><td>${c.method}</td><td>${c.rail ?? '—'}</td><td>${c.currency}</td><td>${serving ? html`<span class="badge ok">yes</span>` : html`<span class="badge bad">no</span>`}</td>
${cells.map((x) => html`<td>${x ? html`<span class="badge ${x.tone}">${x.text}</span>` : html`<span class="muted">—</span>`}</td>`)}</tr>`;
  }),
  'No live provider yet: only sandbox orders are served.',
)}
<p class="muted">Sandbox orders go to the sandbox provider, whatever the method.</p></section>`;
}

function successChart(id: string, name: string, series: Fn<'providerDailySuccess'>): Html {
  return columnChart({
    id,
    title: `${name}: completed of served orders per day, last 14 days`,
    unit: 'Success rate',
    max: 100,
    bars: series.map((d) => ({ label: d.day.slice(8), full: d.day, value: d.percent, text: `${d.percent} % (${d.completed}/${d.placed})`, tone: rateTone(d.percent) })),
  });
}

function providerSummary(s: Shell, p: ProviderItem): Html {
  return html`<h2><a href="/office/providers/${p.id}">${p.name}</a> <span class="muted mono">${p.id}</span> ${p.paused ? html`<span class="badge bad">Paused</span>` : html`<span class="badge ok">Serving</span>`}</h2>
<dl class="fields"><dt>Kind, priority</dt><dd>${p.kind}, ${p.priority}</dd>
<dt>Pause reasons</dt><dd>${p.pauseReasons.length === 0 ? 'none' : p.pauseReasons.map((r) => (r === 'appeals' ? html`<span class="badge bad">appeal guard: ${p.openAppeals} open appeals</span> ` : html`<span class="badge warn">paused by an operator</span> `))}</dd>
<dt>Open appeals</dt><dd>${p.openAppeals}</dd>
<dt>Circuits</dt><dd>${p.circuits.length === 0 ? html`<span class="muted">all closed (no failures recorded)</span>` : html`<ul class="plain">${p.circuits.map((c) => html`<li>${c.method}${c.rail ? html` · ${c.rail}` : ''}: ${statusBadge(c.state)}</li>`)}</ul>`}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${p.pauseReasons.includes('manual') ? action(s.o, `/office/providers/${p.id}/resume`, 'Resume', { kind: 'secondary' }) : action(s.o, `/office/providers/${p.id}/pause`, 'Pause', { kind: 'danger' })}</div>` : ''}`;
}

export function providerPage(s: Shell, h: Fn<'providerHealth'>, done: string | null): Html {
  const p = h.provider;
  return officePage(
    s,
    p.name,
    'providers',
    html`<h1>Provider ${p.name}</h1>${notice(done)}
<section class="card">${providerSummary(s, p)}</section>
<section class="card" aria-labelledby="rate-h"><h2 id="rate-h">Success rate over time</h2>
${successChart('chart-provider-days', p.name, h.series)}</section>
<section class="card" aria-labelledby="methods-h"><h2 id="methods-h">What it serves</h2>
${typeof p.capabilities === 'string' ? html`<p>Every method and rail (sandbox).</p>` : html`<ul class="plain">${p.capabilities.map((c) => html`<li><code>${JSON.stringify(c)}</code></li>`)}</ul>`}</section>
${auditSection(h.audit, p.id)}`,
  );
}

// ---- rates, tariffs, caps

export function ratesPage(s: Shell, r: Fn<'ratesOverview'>, done: string | null, maxAgeSeconds: number, nowMs: number): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Currencies and rates',
    'rates',
    html`<h1>Currencies and rates</h1>${notice(done)}
<p class="muted">Rates in force before spread: a manual rate takes precedence over the market source until removed. A market rate older than ${maxAgeSeconds} s is not used.</p>
${table(
  'Rates',
  ['Currency', 'Enabled, spread', 'In force', 'Market (source, age)', 'Last jump refusal', 'Manual'],
  r.map((x) => {
    const age = x.marketFetchedAt ? Math.round((nowMs - Date.parse(x.marketFetchedAt)) / 1000) : null;
    return html`<tr><td><strong>${x.code}</strong></td><td>${x.currency ? html`${x.currency.enabled ? 'yes' : 'no'}, ${x.currency.spreadPercent} %` : html`<span class="muted">not set up</span>`}</td>
<td class="num">${x.rate ?? '—'}</td><td>${x.marketRate ?? '—'}${x.marketSource ? html`<br><span class="muted">${x.marketSource}, ${age === null ? '' : html`<span class="${age > maxAgeSeconds ? 'stale' : ''}">${age} s old</span>`}</span>` : ''}</td>
<td class="wrap">${x.flag ?? html`<span class="muted">none</span>`}</td><td>${x.manualRate ? html`${x.manualRate}<br><span class="muted">since ${utc(x.manualSetAt)}</span>` : '—'}</td></tr>`;
  }),
  'No currency has a rate yet.',
)}
${admin ? html`<h2 class="section">Settings and overrides</h2>${r.map((x) => rateForms(s.o, x))}` : ''}`,
  );
}

/** An admin's forms for one currency: its setting (enabled, spread) and its manual rate. */
function rateForms(o: OfficeRequest, x: Fn<'ratesOverview'>[number]): Html {
  return html`<section class="card rate-forms" aria-label="${x.code} settings"><h3>${x.code}</h3>
<form class="inline-form" method="post" action="/office/currencies/${x.code}">${csrfInput(o.csrf)}<label class="check"><input type="checkbox" name="enabled" value="true"${x.currency?.enabled ? html` checked` : ''}> Enabled</label>
<label for="spread-${x.code}">Spread (%)</label><input type="text" id="spread-${x.code}" name="spreadPercent" inputmode="decimal" required size="6" value="${x.currency ? x.currency.spreadPercent : '0'}"><button type="submit" class="secondary">Save</button></form>
<form class="inline-form" method="post" action="/office/rates/${x.code}">${csrfInput(o.csrf)}<label for="rate-${x.code}">Manual rate</label><input type="text" id="rate-${x.code}" name="rate" inputmode="decimal" required size="10"><button type="submit" class="secondary">Set</button></form>
${x.manualRate ? action(o, `/office/rates/${x.code}/remove`, 'Remove override', { kind: 'danger' }) : ''}</section>`;
}

export function tariffsPage(s: Shell, list: Fn<'listTariffViews'>): Html {
  return officePage(
    s,
    'Tariffs',
    'tariffs',
    html`<h1>Tariffs</h1>
<p class="muted">A desk's fee is the band covering the order's settled USD amount, [from, to).</p>
${list.length === 0 ? html`<p class="muted empty">No tariffs.</p>` : ''}
${list.map(
  (t) => html`<section class="card"><h2>${t.name} <span class="mono muted">${t.id}</span></h2>
${table(`Bands of ${t.name}`, ['From (USD)', 'To (USD)', 'Fee'], t.bands.map((b) => html`<tr><td class="num">${b.fromUsd}</td><td class="num">${b.toUsd ?? '∞'}</td><td class="num">${b.ratePercent} %</td></tr>`), 'No bands: no fee.')}</section>`,
)}`,
  );
}

export function capsPage(s: Shell, caps: Fn<'capsWithUsage'>, done: string | null, error: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Turnover caps',
    'caps',
    html`<h1>Turnover caps</h1>${notice(done)}${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<p class="muted">Completed USD in the current calendar window (UTC) against each cap. A hard cap refuses orders that would cross it; a notify-only cap raises a notification.</p>
${table(
  'Turnover caps',
  ['Scope', 'Window', 'Cap (USD)', 'Used (USD)', 'Kind', ...(admin ? [''] : [])],
  caps.map(
    (c) => html`<tr><td>${c.scope}${c.scopeId ? html` <span class="mono">${c.scopeId}</span>` : ''}</td><td>${c.window} from ${utc(c.windowStart)}</td><td class="num">${c.capUsd}</td>
<td class="num">${c.usedUsd} <span class="muted">(${c.usedPercent} %)</span><meter min="0" max="100" value="${c.usedPercent}" aria-label="Share of the cap used">${c.usedPercent} %</meter></td><td>${c.notifyOnly ? 'notify only' : 'hard'}</td>
${admin ? html`<td>${action(s.o, `/office/caps/${c.id}/remove`, 'Remove', { kind: 'danger' })}</td>` : ''}</tr>`,
  ),
  'No caps.',
)}
${admin
  ? html`<section class="card" aria-labelledby="newcap-h"><h2 id="newcap-h">Add a cap</h2>
<form class="stack" method="post" action="/office/caps">${csrfInput(s.o.csrf)}
<label for="scope">Scope</label><select id="scope" name="scope"><option>platform</option><option>merchant</option><option>desk</option><option>provider</option></select>
<label for="scopeId">Scope id (empty for the platform)</label><input type="text" id="scopeId" name="scopeId" maxlength="64">
<label for="window">Window</label><select id="window" name="window"><option>hour</option><option selected>day</option><option>month</option></select>
<label for="capUsd">Cap (USD)</label><input type="text" id="capUsd" name="capUsd" inputmode="decimal" required>
<label class="check"><input type="checkbox" name="notifyOnly" value="true"> Notify only</label>
<button type="submit">Add cap</button></form></section>`
  : ''}`,
  );
}

export function auditPage(s: Shell, page: { items: AuditItem[]; hasMore: boolean; next: string | null }, objectId: string): Html {
  return officePage(
    s,
    'Audit trail',
    'audit',
    html`<h1>Audit trail</h1>
<p class="muted">Every state-changing action of the back office and of the operator API, newest first. Entries are never changed.</p>
<form class="filters" method="get" action="/office/audit"><div><label for="objectId">Object id</label><input type="text" id="objectId" name="objectId" value="${objectId}" maxlength="64"></div><button type="submit" class="secondary">Filter</button></form>
${auditTable(page.items)}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/audit?${objectId ? `objectId=${encodeURIComponent(objectId)}&` : ''}before=${page.next}">Older entries</a></p>` : ''}`,
  );
}
