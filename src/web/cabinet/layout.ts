import { html, type Html, type Interpolation } from '../html.js';
import { document } from '../layout.js';
import { moneyModeOf } from '../../services/gatewayReads.js';
import type { CabinetRequest } from './session.js';

/**
 * The frame every cabinet page shares, and the small pieces its pages are built from: the CSRF
 * input, times, money, copyable values and lists. Every value goes through `html` (escaped).
 */

export type Section = 'home' | 'desks' | 'orders' | 'links' | 'appeals' | 'callbacks' | 'webhooks' | 'balance' | 'team' | 'account' | null;

export const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** What the signed-in user may do; forms of actions the role may not take are not rendered (the routes refuse them all the same). */
export const mayChange = (c: CabinetRequest) => c.user.role !== 'viewer';
export const mayManageTeam = (c: CabinetRequest) => c.user.role === 'owner';

/** The banner of an approved merchant with desks no live provider serves (web spec, "Sandbox money and live money"). */
function coverageBanner(c: CabinetRequest): Html | '' {
  if (c.merchant.status !== 'Active' || c.liveWarnings.length === 0) return '';
  return html`<section class="notice warn banner" aria-labelledby="coverage-h"><h2 id="coverage-h">Some cash desks cannot take live orders yet</h2>
<ul>${c.liveWarnings.map((w) => html`<li>${w}</li>`)}</ul>
<p>Change their rails or currencies on the <a href="/cabinet/desks">cash desks</a> page, or ask support which ones we serve live.</p></section>`;
}

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
<nav aria-label="Cabinet">${link('/cabinet', 'home', 'Home')}${link('/cabinet/desks', 'desks', 'Cash desks')}${link('/cabinet/orders', 'orders', 'Orders')}${link('/cabinet/links', 'links', 'Payment links')}${link('/cabinet/appeals', 'appeals', 'Appeals')}${link('/cabinet/callbacks', 'callbacks', 'Callbacks')}${link('/cabinet/webhooks', 'webhooks', 'Webhooks')}${link('/cabinet/balance', 'balance', 'Balance')}${link('/cabinet/team', 'team', 'Team')}${link('/cabinet/account', 'account', 'Account')}</nav>
<div class="who"><span>${c.merchant.name} · ${c.user.email} <span class="badge">${c.user.role}</span></span>
<form class="inline" method="post" action="/cabinet/sign-out">${csrfInput(c.csrf)}<button class="link" type="submit">Sign out</button></form></div>
</div></header>
<main id="main">
${coverageBanner(c)}
${inSandbox(c) ? html`<p class="notice warn">Sandbox is on: orders are test orders and no money moves. Complete them with “Simulate payment”.</p>` : ''}
${body}
</main>`,
  });
}

/** Sign-in, sign-up, invitation and error pages for a browser without a session. */
export function publicPage(title: string, body: Interpolation): Html {
  return document({ lang: 'en', title: `${title} · Paygate cabinet`, styles: ['cabinet.css'], scripts: ['cabinet.js'], body: html`<main id="main" class="narrow">${body}</main>` });
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

/** The currency's own number of decimals as Intl knows it (2 for USD, RUB, INR, KZT; 0 for KRW); 2 for a code it does not know. */
function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * "1,500.50": the decimal string grouped and rounded half away from zero to the currency's own
 * decimals. Intl.NumberFormat reads a decimal string exactly: no float on the way.
 */
export function formatMoney(amount: string, currency: string): string {
  const digits = currencyDigits(currency);
  try {
    return new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount as unknown as number);
  } catch {
    return amount;
  }
}

/**
 * An amount for people ("1,500.50 RUB", the currency's own decimals, digits grouped) with the exact
 * decimal string a hover away (its title) or a click away (the script swaps it in).
 */
export function money(amount: string, currency: string): Html {
  return html`<span class="money" title="Exact: ${amount} ${currency}" data-exact="${amount} ${currency}">${formatMoney(amount, currency)} ${currency}</span>`;
}

/** A value people copy (an id, a key, a secret, a link): monospace, every character kept, and a copy button from the script. */
export function copyable(value: string, label: string, o: { id?: string; secret?: boolean } = {}): Html {
  return html`<code class="${o.secret ? 'secret' : 'copyable'}"${o.id ? html` id="${o.id}"` : ''} data-copy="${label}">${value}</code>`;
}

/** A column of a list: its heading, its cell, and how the cell is laid out. */
export interface Column<T> {
  label: string;
  cell: (row: T) => Interpolation;
  /** Right-aligned figures. */
  num?: boolean;
  /** Classes of the cells (`mono`, `wrap`). */
  className?: string;
  /** The cell names its row (`<th scope="row">`). */
  rowHeader?: boolean;
}

/**
 * A list as a table whose every column shows at desktop width (cells wrap rather than scroll); on
 * narrower screens each row becomes a card with the same fields, each labelled (cabinet.css).
 * `wide` lists (many columns) turn into cards earlier.
 */
function cellClass(col: { num?: boolean; className?: string }): Html | '' {
  const cls = [col.num ? 'num' : '', col.className ?? ''].filter(Boolean).join(' ');
  return cls ? html` class="${cls}"` : '';
}

export function listTable<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], o: { wide?: boolean; id?: string } = {}): Html {
  return html`<table class="list${o.wide ? ' wide' : ''}"${o.id ? html` id="${o.id}"` : ''}><caption class="skip">${caption}</caption>
<thead><tr>${columns.map((col) => html`<th scope="col"${col.num ? html` class="num"` : ''}>${col.label}</th>`)}</tr></thead><tbody>
${rows.map((r) => html`<tr>${columns.map((col) => (col.rowHeader
    ? html`<th scope="row" data-label="${col.label}"${cellClass(col)}>${col.cell(r)}</th>`
    : html`<td data-label="${col.label}"${cellClass(col)}>${col.cell(r)}</td>`))}</tr>\n`)}</tbody></table>`;
}

/** The merchant's orders are test orders: sandbox on and not yet approved (an approved merchant's orders are live). */
export const inSandbox = (c: CabinetRequest): boolean => c.merchant.sandbox && moneyModeOf(c.merchant) === 'sandbox';
