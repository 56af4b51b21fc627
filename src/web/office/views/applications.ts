import { COUNTRY_CODES } from '../../../domain/applications.js';
import type { ApplicationView } from '../../../services/applications.js';
import type { PlatformSetup } from '../../../services/platformSetup.js';
import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
import { counted } from '../../format.js';
import { action, csrfInput, ident, isAdmin, notice, officePage, table, usd, utc, type Fn, type Shell } from '../ui.js';

/**
 * Merchants' applications for approval in the back office: the review queue, the application on
 * its merchant's page with the decision forms, and the home page's set-up checklist.
 */

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const known = new Set(COUNTRY_CODES);
const country = (code: string | null) => (code ? `${known.has(code) ? (regionNames.of(code) ?? code) : code} (${code})` : '—');

export function applicationBadge(status: ApplicationView['status'] | null): Html {
  if (status === null) return html`<span class="badge">none written</span>`;
  const tone = status === 'approved' ? 'ok' : status === 'rejected' ? 'bad' : status === 'submitted' ? 'warn' : '';
  return html`<span class="badge${tone ? ` ${tone}` : ''}">${status}</span>`;
}

/** The application's fields, for reading: as the merchant wrote them, never as links that run anything. */
function applicationFields(a: ApplicationView): Html {
  return html`<dl class="fields">
<dt>Legal name</dt><dd dir="auto">${a.legalName ?? '—'}</dd>
<dt>Country</dt><dd>${country(a.country)}</dd>
<dt>Website</dt><dd>${a.website ? html`<a class="wrap-any" href="${a.website}" rel="noopener noreferrer nofollow" target="_blank">${a.website}</a>` : '—'}</dd>
<dt>What it sells</dt><dd class="pre-line" dir="auto">${a.description ?? '—'}</dd>
<dt>Monthly volume</dt><dd>${a.monthlyVolumeUsd ? usd(a.monthlyVolumeUsd) : '—'}</dd>
<dt>Contact</dt><dd dir="auto">${a.contact ?? '—'}</dd>
<dt>Submitted</dt><dd>${utc(a.submittedAt)}</dd>
${a.decidedAt ? html`<dt>Decided</dt><dd>${utc(a.decidedAt)}</dd>` : ''}
${a.reason ? html`<dt>Reason given</dt><dd class="pre-line" dir="auto">${a.reason}</dd>` : ''}
</dl>`;
}

/** Reject with a reason the merchant's owners read (mailed to them); the merchant may submit again. */
function rejectForm(o: OfficeRequest, merchantId: string, name: string, back: 'queue' | 'merchant'): Html {
  const id = `reject-reason-${merchantId}`;
  return html`<form class="decide reject-application" method="post" action="/office/merchants/${merchantId}/reject">${csrfInput(o.csrf)}${back === 'queue' ? html`<input type="hidden" name="back" value="queue">` : ''}
<label for="${id}">Reason for rejecting ${name} (mailed to its owners)</label>
<textarea id="${id}" name="reason" rows="2" required minlength="3" maxlength="1000"></textarea>
<div><button type="submit" class="danger">Reject</button></div></form>`;
}

export function applicationQueuePage(s: Shell, q: Fn<'reviewQueue'>, done: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Applications to review',
    'review',
    html`<h1>Applications to review</h1>${notice(done)}
<p class="muted">Submitted applications, the longest waiting first. Approving opens live providers to the merchant; rejecting mails the reason to its owners, who may change the application and submit it again.</p>
<p class="list-tools"><a class="button secondary" href="/office/queues/review.csv" download>Export CSV</a></p>
${q.items.length === 0 ? html`<p class="muted empty">No application waits for review.</p>` : ''}
<ul class="queue">${q.items.map(
      (i) => html`<li class="card" id="application-${i.merchantId}">
<h2><a href="/office/merchants/${i.merchantId}">${i.merchantName}</a> ${applicationBadge(i.application.status)}</h2>
<p>${ident(i.merchantId, 'merchant id')} · waiting since ${utc(i.application.submittedAt)} · sandbox: ${i.desks} ${i.desks === 1 ? 'desk' : 'desks'}, ${i.sandboxOrders} ${i.sandboxOrders === 1 ? 'order' : 'orders'}, ${i.sandboxCompleted} completed</p>
${applicationFields(i.application)}
${admin
  ? html`<div class="actions">${action(s.o, `/office/merchants/${i.merchantId}/approve`, `Approve ${i.merchantName}`)}</div>${rejectForm(s.o, i.merchantId, i.merchantName, 'queue')}`
  : html`<p class="muted">An admin approves or rejects.</p>`}
</li>`,
    )}</ul>
<h2 class="section" id="not-applied-h">Under review without a submitted application</h2>
<p class="muted">Merchants that have not applied (or whose application was rejected), the longest waiting first. They are not waiting for a decision; an admin may still approve one.</p>
${table(
  'Merchants under review',
  ['Merchant', 'Waiting since', 'Application', 'Sandbox activity', { label: '', kind: 'action' }],
  q.notApplied.map((m) => [
    html`<a href="/office/merchants/${m.merchantId}">${m.merchantName}</a><br>${ident(m.merchantId, 'merchant id')}`,
    utc(m.createdAt),
    applicationBadge(m.applicationStatus),
    `${counted(m.desks, 'desk', 'desks')}, ${counted(m.sandboxOrders, 'sandbox order', 'sandbox orders')}, ${m.sandboxCompleted} completed`,
    admin ? action(s.o, `/office/merchants/${m.merchantId}/approve`, 'Approve') : html`<span class="muted">admin approves</span>`,
  ]),
  'Every merchant under review has applied.',
)}`,
  );
}

/** The application on its merchant's page: where it stands, what it says, and (submitted, admin) the rejection form. */
export function applicationSection(s: Shell, merchant: { id: string; name: string }, a: ApplicationView | null): Html {
  return html`<section class="card" aria-labelledby="application-h" id="application"><h2 id="application-h">Application ${applicationBadge(a?.status ?? null)}</h2>
${a ? applicationFields(a) : html`<p class="muted">The merchant has not written an application in the cabinet.</p>`}
${a?.status === 'submitted' && isAdmin(s.o) ? rejectForm(s.o, merchant.id, merchant.name, 'merchant') : ''}
</section>`;
}

/** A currency list for a sentence: "RUB", "RUB and KZT", "RUB, KZT and INR". */
const listed = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/**
 * The set-up checklist of the home page, shown until every step is done: each step done or not,
 * what is missing, and a link to the page that does it.
 */
export function setupChecklist(setup: PlatformSetup): Html | '' {
  if (setup.complete) return '';
  const { rates, tariff, provider, twoFactor } = setup.steps;
  const step = (done: boolean, href: string, title: string, detail: Html | string) =>
    html`<li class="${done ? 'done' : 'todo'}">${done ? html`<span class="badge ok">done</span>` : html`<span class="badge warn">to do</span>`} <a href="${href}">${title}</a><br><span class="muted">${detail}</span></li>`;
  const rateDetail =
    rates.enabled.length === 0 ? 'No currency is enabled: every order answers CURRENCY_NOT_PAYABLE.'
    : rates.done ? `${listed(rates.enabled)} priced by operators' or market rates.`
    : [
        rates.unpriced.length > 0 ? `${listed(rates.unpriced)}: no rate orders could use now.` : '',
        rates.demo.length > 0 ? `${listed(rates.demo)}: priced by the demo data's rates; set real ones.` : '',
      ].filter(Boolean).join(' ');
  return html`<section class="card setup" aria-labelledby="setup-h" id="setup">
<h2 id="setup-h">Set up the platform for live payments</h2>
<p class="muted">Until these are done, live orders cannot be taken or are priced wrongly.</p>
<ol class="setup-steps">
${step(rates.done, '/office/rates', 'Enable currencies with rates', rateDetail)}
${step(tariff.done, '/office/tariffs', 'Choose a default tariff', tariff.default ? `Default: ${tariff.default.name}.` : 'No default tariff: desks made without a tariff have no fee set, and approving their merchant is refused (TARIFF_REQUIRED).')}
${step(provider.done, '/office/providers', 'Connect a live provider', provider.done ? `Serving ${provider.methods.slice(0, 6).join('; ')}${provider.methods.length > 6 ? ' …' : ''}.` : 'Only the sandbox serves: approved merchants\' orders answer NO_AVAILABLE_METHOD.')}
${step(twoFactor.done, '/office/two-factor', 'Turn on two-factor codes for an admin', twoFactor.done ? 'An admin signs in with two-factor codes.' : 'No admin signs in with two-factor codes yet.')}
</ol></section>`;
}
