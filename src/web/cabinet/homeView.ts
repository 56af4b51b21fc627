import { html, type Html, type Interpolation } from '../html.js';
import { cabinetPage, utc } from './layout.js';
import { applicationState } from './applicationView.js';
import type { ApplicationView } from '../../services/applications.js';
import type { CabinetRequest } from './session.js';

/** The home page: the account's status, the getting-started checklist and a signed test call. */

export interface HomeData {
  progress: { hasDesk: boolean; hasOrder: boolean; hasDeliveredCallback: boolean; hasCompletedSandboxOrder: boolean };
  firstDesk: { id: string; name: string; key: string } | null;
  baseUrl: string;
  /** The application for approval, null when none is written yet. */
  application?: ApplicationView | null;
}

function statusExplained(m: CabinetRequest['merchant']): Html {
  if (m.status === 'Active') {
    return html`<p><span class="badge ok">Active</span> Your account is approved: new orders are live orders, paid with real money and credited to the live balance. To keep testing, create a test desk on <a href="/cabinet/desks">Cash desks</a>: its orders stay test orders.</p>`;
  }
  if (m.status === 'Blocked') {
    return html`<p><span class="badge bad">Blocked</span> Your account is blocked: the API refuses new orders (MERCHANT_INACTIVE).${m.block_reason ? html` Reason: ${m.block_reason}.` : ''} Contact support to resolve it.</p>`;
  }
  return m.sandbox
    ? html`<p><span class="badge warn">Under review</span> Live payments open once we approve the account. Meanwhile the sandbox is on: integrate now with test orders; nothing you build changes when live payments open.</p>`
    : html`<p><span class="badge warn">Under review</span> Orders are served once we approve the account.</p>`;
}

/** Where the application for approval stands, with the way to it, while the account is not approved. */
function applicationLine(m: CabinetRequest['merchant'], a: ApplicationView | null | undefined): Html | '' {
  if (m.status === 'Active' || m.status_before_block === 'Active') return '';
  const link = (text: string) => html`<a href="/cabinet/application">${text}</a>`;
  const { badge } = applicationState(a ?? null);
  let text: Interpolation;
  if (!a) text = html`Apply for approval: ${link('fill in the application')} about the business.`;
  else if (a.status === 'draft') text = html`Your application is a draft: ${link('finish and submit it')}.`;
  else if (a.status === 'submitted') text = html`Application submitted ${utc(a.submittedAt)}: we are reviewing it (${link('see the application')}).`;
  else if (a.status === 'rejected') text = html`We could not approve the application: ${a.reason ?? ''} ${link('Change it and submit again')}.`;
  else return '';
  return html`<p id="application-status">${badge} ${text}</p>`;
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

/** A shell or code snippet people paste: wrapped rather than scrolled, with a copy button from the script. */
export function snippet(text: string, label: string): Html {
  return html`<pre class="snippet" data-copy="${label}"><code>${text}</code></pre>`;
}

export function homePage(c: CabinetRequest, d: HomeData): Html {
  const p = d.progress;
  const step = (done: boolean, text: Interpolation) => html`<li class="${done ? 'done' : ''}"><span class="step">${text}</span>${done ? html` <span class="badge ok">done</span>` : ''}</li>`;
  return cabinetPage(
    c,
    'Home',
    'home',
    html`<h1>${c.merchant.name}</h1>
<section class="card" aria-labelledby="status-h"><h2 id="status-h">Account</h2>${statusExplained(c.merchant)}${applicationLine(c.merchant, d.application)}</section>
<section class="card" aria-labelledby="start-h"><h2 id="start-h">Get started</h2>
<ol class="checklist">
${step(p.hasDesk, html`<a href="/cabinet/desks#new-desk">Create a cash desk</a>: its method, rails, currencies and callback URL.`)}
${step(p.hasDesk, 'Copy the desk key and secret: the secret is shown once, when the desk is created or its secret rotated.')}
${step(p.hasOrder, d.firstDesk
  ? html`Make the <a href="#curl-h">signed test call</a> below, then create an order with <code>POST /gw/v1/orders</code>.`
  : html`Make a signed test call (shown here once you have a desk), then create an order with <code>POST /gw/v1/orders</code>.`)}
${step(p.hasDeliveredCallback, 'Receive a callback: your callback URL answers 200 to a signed event.')}
${step(p.hasCompletedSandboxOrder, html`Simulate a payment on a sandbox order from <a href="/cabinet/orders">Orders</a>.`)}
</ol></section>
${d.firstDesk
  ? html`<section class="card" aria-labelledby="curl-h"><h2 id="curl-h">Signed test call</h2>
<p>Asks what desk <a href="/cabinet/desks/${d.firstDesk.id}">${d.firstDesk.name}</a> <span class="mono id">${d.firstDesk.id}</span> can take now. Paste the secret you copied at creation.</p>
${snippet(signedCurl(d.baseUrl, d.firstDesk.key, null), 'signed call')}
<p>Or with the Node.js SDK, the secret in <code>PAYGATE_SECRET</code>:</p>
${snippet(nodeSnippet(d.baseUrl, d.firstDesk.key), 'SDK example')}</section>`
  : ''}`,
  );
}

