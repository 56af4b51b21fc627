import { APPLICATION_FIELDS, APPLICATION_LIMITS, COUNTRY_CODES, applicationAllows, type ApplicationField, type FieldProblem } from '../../domain/applications.js';
import type { ApplicationView } from '../../services/applications.js';
import { html, type Html } from '../html.js';
import { cabinetPage, csrfInput, money, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/**
 * The application for approval: where it stands, and the form an owner fills in and submits (or
 * the details as submitted, for other roles and once it may not change). Every problem of a
 * refused form is named beside its field and listed at the top, each linked to its field.
 */

export type ApplicationFormValues = Record<ApplicationField, string>;
export const EMPTY_APPLICATION: ApplicationFormValues = { legalName: '', country: '', website: '', description: '', monthlyVolumeUsd: '', contact: '' };

export const applicationValues = (a: ApplicationView | null): ApplicationFormValues => ({
  legalName: a?.legalName ?? '',
  country: a?.country ?? '',
  website: a?.website ?? '',
  description: a?.description ?? '',
  monthlyVolumeUsd: a?.monthlyVolumeUsd ?? '',
  contact: a?.contact ?? '',
});

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** The countries of the select, by their English names. */
const COUNTRIES = COUNTRY_CODES.map((code) => ({ code, name: regionNames.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
export const countryName = (code: string | null): string => (code ? `${regionNames.of(code) ?? code} (${code})` : '');

/** The status as a badge, and what it means for the merchant. */
export function applicationState(a: ApplicationView | null): { badge: Html; text: Html } {
  if (!a) return { badge: html`<span class="badge">Not started</span>`, text: html`Tell us about the business so we can approve the account for live payments.` };
  switch (a.status) {
    case 'draft':
      return { badge: html`<span class="badge">Draft</span>`, text: html`Saved, not submitted yet: submit it when every field is filled in.` };
    case 'submitted':
      return { badge: html`<span class="badge warn">Submitted</span>`, text: html`${utc(a.submittedAt)}: we are reviewing it, and it cannot be changed meanwhile. We write to the account’s owners when we decide.` };
    case 'approved':
      return { badge: html`<span class="badge ok">Approved</span>`, text: html`${utc(a.decidedAt)}: the account takes live payments.` };
    case 'rejected':
      return { badge: html`<span class="badge bad">Rejected</span>`, text: html`${utc(a.decidedAt)}: change what the reason asks and submit it again.` };
  }
}

const LABELS: Record<ApplicationField, string> = {
  legalName: 'Legal name',
  country: 'Country of registration',
  website: 'Website',
  description: 'What the business sells',
  monthlyVolumeUsd: 'Expected monthly volume (USD)',
  contact: 'Contact',
};

const HINTS: Record<ApplicationField, string> = {
  legalName: `As registered, in any script; ${APPLICATION_LIMITS.legalName.min} to ${APPLICATION_LIMITS.legalName.max} characters.`,
  country: 'Where the business is registered.',
  website: 'Its address, starting with https:// or http://.',
  description: `The goods or services, and to whom; ${APPLICATION_LIMITS.description.min} to ${APPLICATION_LIMITS.description.max} characters.`,
  monthlyVolumeUsd: 'What you expect customers to pay in a month, in USD, such as 25000.',
  contact: 'A person and how to reach them: an email or a phone number.',
};

const fieldId = (f: ApplicationField) => `app-${f}`;
const errorId = (f: ApplicationField) => `app-${f}-error`;

function field(f: ApplicationField, v: ApplicationFormValues, problems: readonly FieldProblem[]): Html {
  const problem = problems.find((p) => p.field === f);
  const describedBy = `${fieldId(f)}-hint${problem ? ` ${errorId(f)}` : ''}`;
  const invalid = problem ? html` aria-invalid="true"` : '';
  let control: Html;
  if (f === 'country') {
    control = html`<select id="${fieldId(f)}" name="country" aria-describedby="${describedBy}"${invalid} autocomplete="country">
<option value="">Choose a country</option>${COUNTRIES.map((c) => html`<option value="${c.code}"${c.code === v.country ? html` selected` : ''}>${c.name}</option>`)}</select>`;
  } else if (f === 'description') {
    control = html`<textarea id="${fieldId(f)}" name="description" rows="5" maxlength="${APPLICATION_LIMITS.description.max}" aria-describedby="${describedBy}"${invalid} dir="auto">${v.description}</textarea>`;
  } else {
    const attrs =
      f === 'website' ? html` type="url" inputmode="url" autocomplete="url" maxlength="${APPLICATION_LIMITS.website.max}"`
      : f === 'monthlyVolumeUsd' ? html` type="text" inputmode="decimal" autocomplete="off" maxlength="20"`
      : f === 'legalName' ? html` type="text" autocomplete="organization" maxlength="${APPLICATION_LIMITS.legalName.max}" dir="auto"`
      : html` type="text" autocomplete="off" maxlength="${APPLICATION_LIMITS.contact.max}" dir="auto"`;
    control = html`<input id="${fieldId(f)}" name="${f}"${attrs} aria-describedby="${describedBy}"${invalid} value="${v[f]}">`;
  }
  return html`<div class="field${problem ? ' has-error' : ''}"><label for="${fieldId(f)}">${LABELS[f]}</label>
<span class="hint" id="${fieldId(f)}-hint">${HINTS[f]}</span>
${problem ? html`<span class="field-error" id="${errorId(f)}">${problem.message}</span>` : ''}
${control}</div>`;
}

function applicationForm(c: CabinetRequest, v: ApplicationFormValues, problems: readonly FieldProblem[]): Html {
  return html`<form class="card stack application" method="post" action="/cabinet/application" id="application-form" novalidate>${csrfInput(c.csrf)}
<h2 id="form-h">The business</h2>
<p class="hint">Every field is needed to submit; a draft may be saved at any point and finished later.</p>
${APPLICATION_FIELDS.map((f) => field(f, v, problems))}
<div class="actions"><button type="submit" name="submit" value="false" class="secondary">Save draft</button><button type="submit" name="submit" value="true">Submit for review</button></div>
</form>`;
}

/** The application as written, for reading. */
function details(a: ApplicationView): Html {
  return html`<section class="card" aria-labelledby="details-h"><h2 id="details-h">As written</h2><dl class="fields">
<dt>Legal name</dt><dd dir="auto">${a.legalName ?? '—'}</dd>
<dt>Country</dt><dd>${countryName(a.country) || '—'}</dd>
<dt>Website</dt><dd class="wrap">${a.website ?? '—'}</dd>
<dt>What it sells</dt><dd class="pre-line" dir="auto">${a.description ?? '—'}</dd>
<dt>Monthly volume</dt><dd>${a.monthlyVolumeUsd ? money(a.monthlyVolumeUsd, 'USD') : '—'}</dd>
<dt>Contact</dt><dd dir="auto">${a.contact ?? '—'}</dd>
</dl></section>`;
}

export function applicationPage(
  c: CabinetRequest,
  o: { application: ApplicationView | null; values: ApplicationFormValues; problems: readonly FieldProblem[]; notice: string | null; error: string | null },
): Html {
  const a = o.application;
  const state = applicationState(a);
  const approved = c.merchant.status === 'Active' || c.merchant.status_before_block === 'Active';
  const editable = !approved && applicationAllows('save', a?.status ?? 'none');
  const owner = c.user.role === 'owner';
  return cabinetPage(
    c,
    'Application for approval',
    null,
    html`<h1>Application for approval</h1>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${o.problems.length > 0
  ? html`<section class="notice bad" role="alert" aria-labelledby="problems-h" id="problems"><h2 id="problems-h">${o.problems.length === 1 ? 'One field needs a change' : `${o.problems.length} fields need a change`}; nothing was saved</h2>
<ul>${o.problems.map((p) => html`<li><a href="#${fieldId(p.field)}">${p.message}</a></li>`)}</ul></section>`
  : ''}
<section class="card" aria-labelledby="state-h" id="application-state"><h2 id="state-h">Where it stands</h2>
<p>${state.badge} ${state.text}</p>
${a?.status === 'rejected' && a.reason ? html`<p class="notice warn" id="rejection-reason"><strong>Our reason:</strong> <span class="pre-line" dir="auto">${a.reason}</span></p>` : ''}
${approved && !a ? html`<p>The account is approved: there is nothing to apply for.</p>` : ''}
</section>
${editable && owner ? applicationForm(c, o.values, o.problems) : ''}
${editable && !owner ? html`<p class="card">An owner of ${c.merchant.name} fills in and submits the application.</p>` : ''}
${a && (!editable || !owner) ? details(a) : ''}`,
  );
}
