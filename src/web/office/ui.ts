import type * as office from '../../services/office.js';
import type { QueueCounts } from '../../services/office.js';
import { html, type Html, type Interpolation } from '../html.js';
import { document } from '../layout.js';
import type { OfficeRequest } from './session.js';

/**
 * What every back-office page shares: the shell with its navigation, the small widgets (times,
 * money, badges, tables, POST buttons) and the audit table. Every value goes through `html`
 * (escaped); every form carries the session's `_csrf`. Forms of admin-only actions are not rendered
 * for a `support` operator (the routes refuse them with 403 all the same).
 */

export type Fn<K extends keyof typeof office> = (typeof office)[K] extends (...a: never[]) => unknown ? Awaited<ReturnType<(typeof office)[K]>> : never;

export type Section =
  | 'home' | 'review' | 'appeals' | 'payed' | 'reconcile' | 'callbacks' | 'withdrawals' | 'merchants' | 'orders' | 'appeal-list' | 'providers' | 'rates' | 'caps' | 'tariffs'
  | 'operators' | 'audit' | 'mail' | NavPath | null;

/** The path of a navigation entry another room's page family adds: its pages name it as their section. */
export type NavPath = `/office/${string}`;

/** A navigation entry another room's page family adds (officeRoutes' extensions), with its count when it has one. */
export interface NavExtra {
  label: string;
  path: NavPath;
  group: 'queues' | 'objects';
  count: number | null;
}

/**
 * Sandbox money and live money are never shown together (web spec, "Sandbox money and live
 * money"): the dashboard and the lists show one of them, live unless `mode=sandbox` is asked for,
 * and every link of such a page keeps the mode.
 */
export type Mode = 'live' | 'sandbox';

export interface Shell {
  o: OfficeRequest;
  counts: QueueCounts;
  /** Entries other rooms' page families add to the navigation, with their counts. */
  nav?: readonly NavExtra[];
  mode: Mode;
}

export const isAdmin = (o: OfficeRequest) => o.operator.role === 'admin';
export const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A time as the API gives it (UTC); the script adds the reader's local time beside. */
export function utc(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

/** Digits after the point a currency shows (2 for USD, INR, RUB, KZT; 0 for KRW and UZS …), as ICU knows them. */
function minorUnits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * An amount for the page: digits grouped, the currency's own decimals (the one place an amount is
 * rounded, half away from zero, for display only), the exact decimal string a hover away in the
 * title and in the element's value. The API and the CSV keep the exact strings.
 */
export function money(amount: string | null | undefined, currency = 'USD'): Html {
  if (amount === null || amount === undefined || amount === '') return html`<span class="muted">—</span>`;
  const digits = minorUnits(currency);
  let shown: string;
  try {
    // A decimal string is formatted exactly (Intl.NumberFormat v3), never through a float.
    shown = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits, roundingMode: 'halfExpand' } as Intl.NumberFormatOptions).format(amount as unknown as number);
  } catch {
    shown = amount;
  }
  return html`<data class="money" value="${amount}" title="${amount} ${currency}">${shown} ${currency}</data>`;
}

export const usd = (amount: string) => money(amount, 'USD');

/**
 * The hidden start of a row form's label ("Band 2: "), so each input of the rows has a name of its
 * own for screen readers and voice control while the row shows its number once beside it.
 */
export function rowLabel(row: string, n: number): Html {
  return html`<span class="visually-hidden">${row} ${String(n)}: </span>`;
}

/** An id, key or secret: monospace, and a copy button beside it once the script runs. */
export function ident(value: string | null | undefined, what = 'id'): Html {
  if (!value) return html`<span class="muted">—</span>`;
  return html`<code class="ident" data-copy="${what}">${value}</code>`;
}

/** A link to an object by its id, the id in monospace with its copy button. */
export function idLink(href: string, id: string | null | undefined, what = 'id'): Html {
  if (!id) return html`<span class="muted">—</span>`;
  return html`<a class="ident-link" href="${href}"><code class="ident" data-copy="${what}">${id}</code></a>`;
}

/** A path with the query parameters given (empty ones left out) and the page's mode when it is not live. */
export function href(path: string, params: Record<string, string | null | undefined> = {}, mode: Mode = 'live'): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  if (mode === 'sandbox') q.set('mode', 'sandbox');
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The live / sandbox switch of a page that shows money, keeping the page's other parameters. */
export function modeSwitch(path: string, mode: Mode, params: Record<string, string | null | undefined> = {}): Html {
  const opt = (m: Mode, label: string) =>
    html`<li><a href="${href(path, params, m)}"${m === mode ? html` aria-current="true"` : ''} class="mode-${m}">${label}</a></li>`;
  return html`<nav class="mode-switch" aria-label="Live or sandbox money"><ul>${opt('live', 'Live')}${opt('sandbox', 'Sandbox')}</ul>
${mode === 'sandbox' ? html`<p class="mode-note" role="note">Sandbox: simulated money only, never withdrawable and never in a live total.</p>` : ''}</nav>`;
}

/** A hidden input that keeps the mode when a filter form is sent. */
export const modeInput = (mode: Mode) => (mode === 'sandbox' ? html`<input type="hidden" name="mode" value="sandbox">` : html``);

/** A POST button with its CSRF token and optional fields. */
export function action(o: OfficeRequest, path: string, label: string, opts: { fields?: Interpolation; kind?: 'secondary' | 'danger'; id?: string } = {}): Html {
  return html`<form class="inline-form" method="post" action="${path}"${opts.id ? html` id="${opts.id}"` : ''}>${csrfInput(o.csrf)}${opts.fields}<button type="submit"${opts.kind ? html` class="${opts.kind}"` : ''}>${label}</button></form>`;
}

/** A POST with a required reason (block, stop, reverse): a labelled text field and a button. */
export function reasonAction(o: OfficeRequest, path: string, label: string, field: string, fieldLabel: string, idBase: string): Html {
  return html`<form class="reason-form" method="post" action="${path}">${csrfInput(o.csrf)}
<label for="${idBase}">${fieldLabel}</label><input type="text" id="${idBase}" name="${field}" required maxlength="500">
<button type="submit" class="danger">${label}</button></form>`;
}

/** A queue's count as shown: counts are read up to 1,000, a queue that long is a backlog to look at whatever its size. */
export function queueCountText(n: number): string {
  return n > 999 ? '999+' : String(n);
}

function count(n: number, overdue = 0): Html {
  if (n === 0) return html``;
  return html` <span class="count${overdue > 0 ? ' bad' : ''}">${queueCountText(n)}<span class="visually-hidden"> waiting</span></span>`;
}

export function officePage(s: Shell, title: string, section: Section, body: Interpolation): Html {
  const c = s.counts;
  const link = (to: string, sec: Section, label: string, extra: Interpolation = '') =>
    html`<li><a href="${to}"${sec === section ? html` aria-current="page"` : ''}>${label}${extra}</a></li>`;
  /** The pages that show money apart keep the mode the operator is in. */
  const kept = (path: string) => href(path, {}, s.mode);
  const added = (group: NavExtra['group']) =>
    (s.nav ?? []).filter((e) => e.group === group).map((e) => link(e.path, e.path, e.label, e.count === null ? '' : count(e.count)));
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
<ul>${link(kept('/office'), 'home', 'Dashboard')}</ul>
<h2 class="nav-head">Queues</h2>
<ul>${link('/office/queues/review', 'review', 'Applications to review', count(c.review))}${link(kept('/office/queues/appeals'), 'appeals', 'Open appeals', count(c.appeals, c.overdue))}${link('/office/queues/payed', 'payed', 'Payments to confirm', count(c.payed))}${link('/office/queues/withdrawals', 'withdrawals', 'Withdrawals to pay', count(c.withdrawals))}${link('/office/queues/reconcile', 'reconcile', 'To reconcile', count(c.reconcile))}${link('/office/queues/callbacks', 'callbacks', 'Failing callbacks', count(c.callbacks))}${added('queues')}</ul>
<h2 class="nav-head">Objects</h2>
<ul>${link(kept('/office/merchants'), 'merchants', 'Merchants')}${link(kept('/office/orders'), 'orders', 'Orders')}${link(kept('/office/appeals'), 'appeal-list', 'Appeals')}${link('/office/providers', 'providers', 'Providers')}${link('/office/rates', 'rates', 'Currencies and rates')}${link('/office/tariffs', 'tariffs', 'Tariffs')}${link('/office/caps', 'caps', 'Turnover caps')}${link('/office/operators', 'operators', 'Operators')}${link('/office/audit', 'audit', 'Audit trail')}${isAdmin(s.o) ? link('/office/mail', 'mail', 'Mail') : ''}${added('objects')}</ul>
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

/** Pages an operator sees before the required two-factor is set up: no navigation, nothing else reachable. */
export function bareSignedIn(s: Shell, title: string, body: Interpolation): Html {
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
export function messagePage(s: Shell | null, title: string, message: string): Html {
  const body = html`<h1>${title}</h1><p>${message}</p><p><a href="/office">Back to the dashboard</a></p>`;
  return s ? officePage(s, title, null, body) : publicPage(title, body);
}

export function notice(text: string | null): Html {
  return text ? html`<p class="notice ok" role="status">${text}</p>` : html``;
}

/** A column of a list: its heading, and how its cells read (numbers right-aligned, long text wrapped). */
export type Col = string | { label: string; kind?: 'num' | 'wrap' | 'action' };

const colLabel = (c: Col) => (typeof c === 'string' ? c : c.label);
const colKind = (c: Col) => (typeof c === 'string' ? undefined : c.kind);

/**
 * A list as a table that never scrolls sideways: at a width where its columns fit, a table with
 * every column visible; where they do not, one card per row with the same fields, each labelled
 * (web spec, "Every page, in addition"). Without a script the switch happens at a width estimated
 * from the columns (a container query, `rt-…`); the script switches exactly, when the table is
 * wider than its box.
 */
export function table(caption: string, cols: readonly Col[], rows: readonly (readonly Interpolation[])[], empty: string, o: { id?: string } = {}): Html {
  if (rows.length === 0) return html`<p class="muted empty">${empty}</p>`;
  const fit = cols.length <= 3 ? 's' : cols.length <= 5 ? 'm' : cols.length <= 7 ? 'l' : 'xl';
  return html`<div class="rtable rt-${fit}"${o.id ? html` id="${o.id}"` : ''}><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${cols.map((c) => html`<th scope="col"${colKind(c) ? html` class="${colKind(c)}"` : ''}>${colLabel(c) || html`<span class="visually-hidden">Actions</span>`}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell, i) => {
    const c = cols[i] ?? '';
    const kind = colKind(c);
    // The value in a box of its own: in a card it sits beside its label as one piece.
    return html`<td data-label="${colLabel(c)}"${kind ? html` class="${kind}"` : ''}><div class="cv">${cell}</div></td>`;
  })}</tr>`)}</tbody></table></div>`;
}

export const statusBadge = (status: string) => {
  const tone = status === 'Completed' || status === 'Active' || status === 'delivered' || status === 'closed' ? 'ok' : status === 'Canceled' || status === 'Blocked' || status === 'failed' || status === 'open' ? 'bad' : 'warn';
  return html`<span class="badge ${tone}">${status}</span>`;
};

export type AuditItem = Fn<'merchantOverview'>['audit'][number];

export function auditTable(entries: readonly AuditItem[], caption = 'Audit entries'): Html {
  return table(
    caption,
    ['When', 'Who', 'Action', 'Object', { label: 'Outcome', kind: 'wrap' }],
    entries.map((a) => [
      utc(a.at),
      a.actor === 'token' ? html`<span class="muted">API token</span>` : idLink(`/office/operators#${a.actor}`, a.actor, 'operator id'),
      a.action,
      ident(a.objectId, 'object id'),
      a.outcome === 'ok' ? html`<span class="badge ok">ok</span>` : html`<span class="badge bad">${a.outcome}</span> ${a.detail ?? ''}`,
    ]),
    'No entries.',
  );
}

export function auditSection(entries: readonly AuditItem[], objectId: string): Html {
  return html`<section class="card" aria-labelledby="audit-h"><h2 id="audit-h">Audit</h2>${auditTable(entries, `Audit entries of ${objectId}`)}
<p><a href="/office/audit?objectId=${objectId}">Every entry of ${objectId}</a></p></section>`;
}

