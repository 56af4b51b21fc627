/**
 * A pool's CSV profiles in the back office: the list (`/office/pools/{id}/profiles`), a new
 * profile and a profile's page (`…/profiles/new`, `…/profiles/{csp}`), each form with a preview of
 * a sample file's first rows as the entries they would be, before anything is saved.
 */
import { html, type Html } from '../../web/html.js';
import { csrfInput, isAdmin, notice, officePage, utc, type Shell } from '../../web/office/ui.js';
import type { PoolProvider } from '../queue.js';
import type { profileView } from '../statementProfiles.js';
import type { StatementEntry, StatementProblem } from '../statements/types.js';
import { DELIMITERS, QUOTES, THOUSANDS } from './forms.js';
import { RECONCILIATION_PATH } from './poolsView.js';
import { amount, list } from './ui.js';

export type ProfileView = ReturnType<typeof profileView>;

/** The form as typed (or as the saved profile reads), every field a string. */
export type ProfileValues = Partial<Record<string, string>>;

/** A sample read with the form's profile: the file's header, its first rows as entries, or why it cannot be read so. */
export interface ProfilePreview {
  fileName: string;
  header: readonly string[] | null;
  entries: readonly StatementEntry[];
  problem: StatementProblem | null;
  /** The file was longer than the part read for the preview. */
  cut: boolean;
}

export interface ProfilePageState {
  done?: string | null;
  values: ProfileValues;
  /** The profile refused (the API's words), or a preview that could not be made. */
  error?: string | null;
  preview?: ProfilePreview | null;
  /** The sample kept for the next preview: base64 of its first lines, and its name. */
  kept?: { data: string; name: string } | null;
}

export const profilesPath = (p: { id: string }) => `/office/pools/${p.id}/profiles`;
export const profilePath = (r: { id: string; providerId: string }) => `/office/pools/${r.providerId}/profiles/${r.id}`;

const keyOf = <T extends Record<string, unknown>>(map: T, value: unknown): string => Object.entries(map).find(([, v]) => v === value)?.[0] ?? '';
const DELIMITER_LABEL: Record<keyof typeof DELIMITERS, string> = { comma: 'Comma ,', semicolon: 'Semicolon ;', tab: 'Tab', pipe: 'Vertical bar |' };
const QUOTE_LABEL: Record<keyof typeof QUOTES, string> = { double: 'Double quote "', single: "Single quote '", none: 'None: values are never quoted' };
const THOUSANDS_LABEL: Record<keyof typeof THOUSANDS, string> = { none: 'None', space: 'Space (1 234,56)', nbsp: 'No-break space', dot: 'Dot (1.234,56)', comma: 'Comma (1,234.56)', apostrophe: "Apostrophe (1'234.56)" };

/** What each column field holds, as the form and the read-only page name it. */
const COLUMN_LABEL: Record<string, string> = {
  receivedAt: 'Booking date',
  amount: 'Amount, signed',
  credit: 'Credit (money in)',
  debit: 'Debit (money out)',
  account: 'Account',
  currency: 'Currency',
  payer: 'Payer',
  reference: 'Payer\u2019s reference',
  bankReference: 'Bank\u2019s reference',
};

/** A saved profile as the form shows it. */
export function valuesOf(r: ProfileView): ProfileValues {
  const col = (v: string | number | undefined) => (v === undefined ? '' : String(v));
  const c: Record<string, string | number | undefined> = { ...r.columns };
  return {
    name: r.name,
    delimiter: keyOf(DELIMITERS, r.delimiter),
    quote: keyOf(QUOTES, r.quote),
    encoding: r.encoding,
    skipRows: String(r.skipRows),
    decimalSeparator: r.decimalSeparator,
    thousandsSeparator: keyOf(THOUSANDS, r.thousandsSeparator),
    dateFormat: r.dateFormat,
    timeZone: r.timeZone,
    ...Object.fromEntries(['receivedAt', 'amount', 'credit', 'debit', 'account', 'currency', 'payer', 'reference', 'bankReference'].map((k) => [k, col(c[k])])),
    fixedAccount: r.fixedAccount ?? '',
    fixedCurrency: r.fixedCurrency ?? '',
  };
}

/** A new profile's form: the API's defaults. */
export const NEW_PROFILE: ProfileValues = { delimiter: 'comma', quote: 'double', encoding: 'utf-8', skipRows: '0', decimalSeparator: '.', thousandsSeparator: 'none', timeZone: 'UTC' };

/** How a profile reads a file, in one line. */
function summary(r: ProfileView): string {
  const c: Record<string, string | number | undefined> = { ...r.columns };
  const amounts = c.amount !== undefined ? 'signed amounts' : 'credit and debit columns';
  return `${DELIMITER_LABEL[keyOf(DELIMITERS, r.delimiter) as keyof typeof DELIMITERS] ?? r.delimiter}, ${r.encoding}, dates ${r.dateFormat} (${r.timeZone}), ${amounts}`;
}

export function profilesPage(s: Shell, p: PoolProvider, profiles: readonly ProfileView[], done: string | null): Html {
  return officePage(
    s,
    `CSV profiles of ${p.name}`,
    RECONCILIATION_PATH,
    html`<p><a href="/office/pools/${p.id}">← ${p.name}</a></p>
<h1>CSV profiles of ${p.name}</h1>${notice(done)}
<p class="muted">A profile says how a bank writes its own CSV export (delimiter, encoding, which column holds what, how amounts and dates are written), so its statements are uploaded as they come from the bank: choose the profile beside the file on the pool's page.</p>
${isAdmin(s.o) ? html`<p><a class="button" href="${profilesPath(p)}/new">New CSV profile</a></p>` : ''}
${profiles.length === 0
  ? html`<p class="muted empty" id="profiles-empty">No CSV profile yet: statements of this pool are read as camt, MT940, 1C or the Paygate CSV.</p>`
  : list(
      `CSV profiles of ${p.name}`,
      [{ label: 'Profile' }, { label: 'Reads' }, { label: 'Changed' }],
      profiles.map((r) => [
        html`<a href="${profilePath(r)}" id="profile-${r.id}">${r.name}</a><br><span class="mono muted">${r.id}</span>`,
        summary(r),
        utc(r.updatedAt),
      ]),
      { fit: 's', id: 'profiles' },
    )}`,
  );
}

const val = (v: ProfileValues, k: string) => v[k] ?? '';

function select(id: string, name: string, label: string, options: Record<string, string>, current: string, hint?: string): Html {
  return html`<div><label for="${id}">${label}</label>${hint ? html`<span class="muted" id="${id}-hint">${hint}</span>` : ''}<select id="${id}" name="${name}"${hint ? html` aria-describedby="${id}-hint"` : ''}>${Object.entries(options).map(
    ([v, l]) => html`<option value="${v}"${v === current ? html` selected` : ''}>${l}</option>`,
  )}</select></div>`;
}

function field(id: string, name: string, label: string, value: string, o: { hint?: string; max?: number; required?: boolean; inputmode?: string; api?: string } = {}): Html {
  const hintId = `${id}-hint`;
  const hint = o.hint || o.api ? html`<span class="muted" id="${hintId}">${o.api ? html`<code>${o.api}</code>` : ''}${o.api && o.hint ? ': ' : ''}${o.hint ?? ''}</span>` : '';
  return html`<div><label for="${id}">${label}</label>${hint}<input type="text" id="${id}" name="${name}" value="${value}" maxlength="${o.max ?? 200}"${o.required ? html` required` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${hint ? html` aria-describedby="${hintId}"` : ''} autocomplete="off" spellcheck="false"></div>`;
}

/** The profile's form: how the file is written, which column holds what, and the sample to preview with. */
function profileForm(s: Shell, action: string, st: ProfilePageState, saveLabel: string): Html {
  const v = st.values;
  const col = (k: string, label: string, hint?: string, required = false) => field(`p-${k}`, k, label, val(v, k), { hint, api: `columns.${k}`, required });
  return html`<form class="stack wide rc-form" method="post" action="${action}" enctype="multipart/form-data" id="profile-form">${csrfInput(s.o.csrf)}
<div class="rc-grid">${field('p-name', 'name', 'Name', val(v, 'name'), { max: 100, required: true, hint: 'How operators know it, such as "Sberbank CSV".' })}</div>
<fieldset><legend>How the file is written</legend><div class="rc-grid">
${select('p-delimiter', 'delimiter', 'Delimiter', DELIMITER_LABEL, val(v, 'delimiter'))}
${select('p-quote', 'quote', 'Quote', QUOTE_LABEL, val(v, 'quote'))}
${field('p-encoding', 'encoding', 'Encoding', val(v, 'encoding'), { max: 40, hint: 'utf-8, windows-1251, iso-8859-1 …; a byte order mark in the file wins.' })}
${field('p-skipRows', 'skipRows', 'Lines before the header', val(v, 'skipRows'), { max: 4, inputmode: 'numeric', hint: 'The bank\u2019s preamble, if any.' })}
${select('p-decimalSeparator', 'decimalSeparator', 'Decimal separator', { '.': 'Point .', ',': 'Comma ,' }, val(v, 'decimalSeparator'))}
${select('p-thousandsSeparator', 'thousandsSeparator', 'Thousands separator', THOUSANDS_LABEL, val(v, 'thousandsSeparator'))}
${field('p-dateFormat', 'dateFormat', 'Date format', val(v, 'dateFormat'), { max: 40, required: true, hint: 'DD, MM, YYYY, YY, HH, mm, ss with any separators: DD.MM.YYYY HH:mm' })}
${field('p-timeZone', 'timeZone', 'Time zone', val(v, 'timeZone'), { max: 64, hint: 'The IANA zone the bank writes times in: Europe/Moscow, Asia/Kolkata, UTC.' })}
</div></fieldset>
<fieldset><legend>Which column holds what</legend>
<p class="muted">A header name as the file writes it (case and blanks around it ignored), or a column number, 1 for the first. An amount is either one signed column (negative is money out) or a credit and a debit column.</p>
<div class="rc-grid">
${Object.entries(COLUMN_LABEL).map(([k, label]) => col(k, label, undefined, k === 'receivedAt'))}
</div></fieldset>
<fieldset><legend>When the file has no such column</legend><div class="rc-grid">
${field('p-fixedAccount', 'fixedAccount', 'Every row\u2019s account', val(v, 'fixedAccount'), { api: 'fixedAccount', hint: 'instead of an account column' })}
${field('p-fixedCurrency', 'fixedCurrency', 'Every row\u2019s currency', val(v, 'fixedCurrency'), { max: 3, api: 'fixedCurrency', hint: 'instead of a currency column, such as RUB' })}
</div></fieldset>
<fieldset><legend>Sample file</legend>
<label for="p-sample">A statement exported by the bank</label>
<span class="muted" id="p-sample-hint">${st.kept ? html`The preview reads <strong>${st.kept.name}</strong> again unless you choose another file. ` : ''}Its first 20 rows are read with the profile above; nothing is recorded.</span>
<input type="file" id="p-sample" name="sample" aria-describedby="p-sample-hint" accept=".csv,.txt,text/csv,text/plain">
${st.kept ? html`<input type="hidden" name="kept" value="${st.kept.data}"><input type="hidden" name="keptName" value="${st.kept.name}">` : ''}
</fieldset>
<div class="actions"><button type="submit" name="intent" value="preview" class="secondary">Preview</button><button type="submit" name="intent" value="save">${saveLabel}</button></div>
</form>`;
}

function kindBadge(e: StatementEntry): Html {
  if (e.problem !== null) return html`<span class="badge bad">unreadable</span>`;
  if (e.kind === 'credit') return html`<span class="badge ok">credit</span>`;
  return html`<span class="badge">${e.kind}</span>`;
}

/** What an entry of the preview would become on upload. */
function becomes(e: StatementEntry): string {
  if (e.problem !== null) return 'listed as unreadable';
  if (e.kind === 'credit') return 'a credit, matched if its order waits';
  return e.kind === 'debit' ? 'skipped: money out, counted in the balance check' : 'skipped';
}

function previewSection(pv: ProfilePreview): Html {
  const credits = pv.entries.filter((e) => e.kind === 'credit' && e.problem === null).length;
  const unreadable = pv.entries.filter((e) => e.problem !== null).length;
  const header = pv.header
    ? html`<p class="rc-wrap"><span class="muted">Columns of the file:</span> ${pv.header.map((h, i) => html`${i ? ' · ' : ''}<span class="nowrap">${i + 1} <code>${h || '(empty)'}</code></span>`)}</p>`
    : '';
  const rows = pv.entries.map((e) => [
    html`#${e.index} ${kindBadge(e)}`,
    amount(e.amount, e.currency),
    e.receivedAt ? (e.dateOnly ? html`<span class="nowrap">${e.receivedAt.slice(0, 10)}</span> <span class="muted">whole day</span>` : utc(e.receivedAt.replace(/\.\d{3}Z$/, 'Z'))) : html`<span class="muted">—</span>`,
    e.account ? html`<span class="mono">${e.account}</span>` : html`<span class="muted">—</span>`,
    html`${e.payer ?? html`<span class="muted">—</span>`}${e.reference ? html`<br><span class="muted">${e.reference}</span>` : ''}`,
    e.bankReference ? html`<code>${e.bankReference}</code>` : html`<span class="muted">—</span>`,
    e.problem ? html`<span class="rc-wrap">${e.problem}</span>` : becomes(e),
  ]);
  return html`<section class="card" aria-labelledby="preview-h" id="preview"><h2 id="preview-h">Preview of ${pv.fileName}</h2>
${pv.problem
  ? html`<div class="notice bad rc-wrap" role="alert" id="preview-problem"><p>Read with this profile, the file stops here: ${pv.problem.message}</p><p>An upload of it would be refused (STATEMENT_INVALID) and record nothing.</p></div>`
  : html`<p class="notice ok" role="status" id="preview-summary">The first ${pv.entries.length} ${pv.entries.length === 1 ? 'row reads' : 'rows read'} as ${credits} credit${credits === 1 ? '' : 's'}${unreadable ? `, ${unreadable} unreadable` : ''} and ${pv.entries.length - credits - unreadable} skipped.${pv.cut ? ' Only the start of the file was read.' : ''}</p>`}
${header}
${rows.length
  ? list(
      `The first rows of ${pv.fileName} as entries`,
      [{ label: 'Row' }, { label: 'Amount', num: true }, { label: 'Booked' }, { label: 'Account' }, { label: 'Payer and reference' }, { label: 'Bank reference' }, { label: 'Becomes' }],
      rows,
      { fit: 'l', id: 'preview-rows' },
    )
  : html`<p class="muted empty">No row was read.</p>`}
</section>`;
}

function errorNotice(error: string | null | undefined): Html {
  return error ? html`<p class="notice bad rc-wrap" role="alert" id="profile-error">${error}</p>` : html``;
}

export function newProfilePage(s: Shell, p: PoolProvider, st: ProfilePageState): Html {
  return officePage(
    s,
    `New CSV profile of ${p.name}`,
    RECONCILIATION_PATH,
    html`<p><a href="${profilesPath(p)}">← CSV profiles of ${p.name}</a></p>
<h1>New CSV profile</h1>
${errorNotice(st.error)}
${st.preview ? previewSection(st.preview) : ''}
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="form-h"><h2 id="form-h">How ${p.name}'s bank writes its CSV</h2>
<p class="muted">Choose a sample file and preview it until its rows read as they should, then save.</p>
${profileForm(s, `${profilesPath(p)}/new`, st, 'Save profile')}</section>`
  : html`<p class="muted">Creating CSV profiles is for administrators.</p>`}`,
  );
}

/** A saved profile read without its form (a support operator's page). */
function profileFields(v: ProfileValues): Html {
  const rows: [string, string][] = [
    ['Delimiter', DELIMITER_LABEL[v.delimiter as keyof typeof DELIMITERS] ?? ''],
    ['Quote', QUOTE_LABEL[v.quote as keyof typeof QUOTES] ?? ''],
    ['Encoding', val(v, 'encoding')],
    ['Lines before the header', val(v, 'skipRows')],
    ['Decimal separator', v.decimalSeparator === ',' ? 'Comma ,' : 'Point .'],
    ['Thousands separator', THOUSANDS_LABEL[v.thousandsSeparator as keyof typeof THOUSANDS] ?? ''],
    ['Date format', val(v, 'dateFormat')],
    ['Time zone', val(v, 'timeZone')],
  ];
  const column = (ref: string) => (/^\d+$/.test(ref) ? `column ${ref}` : html`<q>${ref}</q>`);
  const cols = Object.keys(COLUMN_LABEL).filter((k) => val(v, k));
  return html`<dl class="fields">${rows.map(([k, x]) => html`<dt>${k}</dt><dd>${x}</dd>`)}
${cols.map((k) => html`<dt>${COLUMN_LABEL[k]}</dt><dd>${column(val(v, k))}</dd>`)}
${val(v, 'fixedAccount') ? html`<dt>Every row\u2019s account</dt><dd class="mono">${val(v, 'fixedAccount')}</dd>` : ''}
${val(v, 'fixedCurrency') ? html`<dt>Every row\u2019s currency</dt><dd>${val(v, 'fixedCurrency')}</dd>` : ''}</dl>`;
}

export function profilePage(s: Shell, p: PoolProvider, r: ProfileView, st: ProfilePageState): Html {
  return officePage(
    s,
    `CSV profile ${r.name}`,
    RECONCILIATION_PATH,
    html`<p><a href="${profilesPath(p)}">← CSV profiles of ${p.name}</a></p>
<h1 class="rc-wrap">CSV profile ${r.name}</h1>${notice(st.done ?? null)}
<p class="muted"><span class="mono">${r.id}</span> · changed ${utc(r.updatedAt)} · created ${utc(r.createdAt)}</p>
${errorNotice(st.error)}
${st.preview ? previewSection(st.preview) : ''}
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="form-h"><h2 id="form-h">Change the profile</h2>
<p class="muted">Statements uploaded before keep what they were read as; the profile applies to the next uploads.</p>
${profileForm(s, profilePath(r), st, 'Save changes')}</section>`
  : html`<section class="card" aria-labelledby="form-h"><h2 id="form-h">How it reads a file</h2>${profileFields(valuesOf(r))}<p class="muted">Changing CSV profiles is for administrators.</p></section>`}`,
  );
}
