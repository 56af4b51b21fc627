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

export type Section = 'home' | 'review' | 'appeals' | 'payed' | 'reconcile' | 'callbacks' | 'merchants' | 'orders' | 'providers' | 'rates' | 'caps' | 'tariffs' | 'audit' | NavPath | null;

/** The path of a navigation entry another room's page family adds: its pages name it as their section. */
export type NavPath = `/office/${string}`;

/** A navigation entry another room's page family adds (officeRoutes' extensions), with its count when it has one. */
export interface NavExtra {
  label: string;
  path: NavPath;
  group: 'queues' | 'objects';
  count: number | null;
}

export interface Shell {
  o: OfficeRequest;
  counts: QueueCounts;
  /** Entries other rooms' page families add to the navigation, with their counts. */
  nav?: readonly NavExtra[];
}

export const isAdmin = (o: OfficeRequest) => o.operator.role === 'admin';
export const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A time as the API gives it (UTC); the script adds the reader's local time beside. */
export function utc(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

export const usd = (amount: string) => html`<span class="money">${amount} USD</span>`;

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

function count(n: number, overdue = 0): Html {
  if (n === 0) return html``;
  return html` <span class="count${overdue > 0 ? ' bad' : ''}">${n}<span class="visually-hidden"> waiting</span></span>`;
}

export function officePage(s: Shell, title: string, section: Section, body: Interpolation): Html {
  const c = s.counts;
  const link = (href: string, sec: Section, label: string, extra: Interpolation = '') =>
    html`<li><a href="${href}"${sec === section ? html` aria-current="page"` : ''}>${label}${extra}</a></li>`;
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
<ul>${link('/office', 'home', 'Dashboard')}</ul>
<h2 class="nav-head">Queues</h2>
<ul>${link('/office/queues/review', 'review', 'Merchants to review', count(c.review))}${link('/office/queues/appeals', 'appeals', 'Open appeals', count(c.appeals, c.overdue))}${link('/office/queues/payed', 'payed', 'Payments to confirm', count(c.payed))}${link('/office/queues/reconcile', 'reconcile', 'To reconcile', count(c.reconcile))}${link('/office/queues/callbacks', 'callbacks', 'Failing callbacks', count(c.callbacks))}${added('queues')}</ul>
<h2 class="nav-head">Objects</h2>
<ul>${link('/office/merchants', 'merchants', 'Merchants')}${link('/office/orders', 'orders', 'Orders')}${link('/office/providers', 'providers', 'Providers')}${link('/office/rates', 'rates', 'Currencies and rates')}${link('/office/tariffs', 'tariffs', 'Tariffs')}${link('/office/caps', 'caps', 'Turnover caps')}${link('/office/audit', 'audit', 'Audit trail')}${added('objects')}</ul>
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

export function table(caption: string, head: readonly string[], rows: readonly Interpolation[], empty: string): Html {
  if (rows.length === 0) return html`<p class="muted empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export const statusBadge = (status: string) => {
  const tone = status === 'Completed' || status === 'Active' || status === 'delivered' || status === 'closed' ? 'ok' : status === 'Canceled' || status === 'Blocked' || status === 'failed' || status === 'open' ? 'bad' : 'warn';
  return html`<span class="badge ${tone}">${status}</span>`;
};

export type AuditItem = Fn<'merchantOverview'>['audit'][number];

export function auditTable(entries: readonly AuditItem[], caption = 'Audit entries'): Html {
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

export function auditSection(entries: readonly AuditItem[], objectId: string): Html {
  return html`<section class="card" aria-labelledby="audit-h"><h2 id="audit-h">Audit</h2>${auditTable(entries, `Audit entries of ${objectId}`)}
<p><a href="/office/audit?objectId=${objectId}">Every entry of ${objectId}</a></p></section>`;
}

