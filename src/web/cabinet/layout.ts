import { html, type Html, type Interpolation } from '../html.js';
import { document } from '../layout.js';
import type { CabinetRequest } from './session.js';

/**
 * The frame every cabinet page shares (header, navigation, notices) and the small pieces its pages
 * are built from. Plain server-rendered HTML that works without a script: every value goes through
 * `html` (escaped); every form carries the hidden `_csrf` input of the session.
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

export function messagePage(c: CabinetRequest | null, title: string, message: string): Html {
  const body = html`<h1>${title}</h1><p>${message}</p><p><a href="/cabinet">Back to the cabinet</a></p>`;
  return c ? cabinetPage(c, title, null, body) : publicPage(title, body);
}

/** A time as the API gives it (UTC, ISO 8601); the script writes the reader's local time beside. */
export function utc(iso: string | null): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

