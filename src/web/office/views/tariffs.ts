import { html, type Html } from '../../html.js';
import { rowField, TARIFF_ROWS } from '../forms.js';
import type { OfficeRequest } from '../session.js';
import { action, auditSection, rowLabel, csrfInput, href, ident, isAdmin, notice, officePage, table, usd, utc, type AuditItem, type Fn, type Shell } from '../ui.js';

/** Tariffs and their fee bands: the list, a new tariff, one tariff with its bands to edit, and the default. */

export type TariffItem = Fn<'listTariffViews'>[number];

/** What a tariff form holds as typed: a name, rows of bands (empty strings for empty cells), the default tick. */
export interface TariffFormValues {
  name: string;
  bands: { fromUsd: string; toUsd: string; ratePercent: string }[];
  default: boolean;
}

export const EMPTY_TARIFF: TariffFormValues = { name: '', bands: [{ fromUsd: '0', toUsd: '', ratePercent: '' }], default: false };

export const tariffValues = (t: TariffItem): TariffFormValues => ({
  name: t.name,
  bands: t.bands.map((b) => ({ fromUsd: b.fromUsd, toUsd: b.toUsd ?? '', ratePercent: b.ratePercent })),
  default: t.default,
});

const bandText = (b: TariffItem['bands'][number]) => html`${usd(b.fromUsd)} – ${b.toUsd === null ? '∞' : usd(b.toUsd)}: <strong class="nowrap">${b.ratePercent} %</strong>`;

/** The bands as rows of three inputs, and empty rows up to the form's room. */
function bandRows(v: TariffFormValues, idBase: string): Html {
  const rows = Array.from({ length: TARIFF_ROWS }, (_, i) => v.bands[i] ?? { fromUsd: '', toUsd: '', ratePercent: '' });
  // Show the bands given and two empty rows, the rest only when the form comes back with them.
  const shown = Math.min(TARIFF_ROWS, Math.max(v.bands.length + 2, 3));
  return html`<fieldset class="bands"><legend>Fee bands: [from, to) of the order's settled USD amount; an empty "to" has no upper bound</legend>
${rows.slice(0, shown).map((b, i) => {
  const n = i + 1;
  return html`<div class="band" role="group" aria-label="Band ${n}"><span class="band-no" aria-hidden="true">${n}</span>
<div><label for="${idBase}-from-${n}">${rowLabel('Band', n)}From (USD)</label><input type="text" id="${idBase}-from-${n}" name="${rowField('fromUsd', n)}" inputmode="decimal" size="10" value="${b.fromUsd}"></div>
<div><label for="${idBase}-to-${n}">${rowLabel('Band', n)}To (USD)</label><input type="text" id="${idBase}-to-${n}" name="${rowField('toUsd', n)}" inputmode="decimal" size="10" value="${b.toUsd}"></div>
<div><label for="${idBase}-rate-${n}">${rowLabel('Band', n)}Fee (%)</label><input type="text" id="${idBase}-rate-${n}" name="${rowField('ratePercent', n)}" inputmode="decimal" size="6" value="${b.ratePercent}"></div></div>`;
})}</fieldset>`;
}

function tariffForm(o: OfficeRequest, path: string, v: TariffFormValues, idBase: string, submit: string, withDefault: boolean, error: string | null): Html {
  return html`${error ? html`<p class="notice bad" role="alert" id="${idBase}-error">${error}</p>` : ''}
<form class="stack wide" method="post" action="${path}" id="${idBase}">${csrfInput(o.csrf)}
<label for="${idBase}-name">Name</label><input type="text" id="${idBase}-name" name="name" required maxlength="200" value="${v.name}">
${bandRows(v, idBase)}
${withDefault ? html`<label class="check"><input type="checkbox" name="default" value="true"${v.default ? html` checked` : ''}> The default: desks created without a tariff get this one</label>` : ''}
<button type="submit">${submit}</button></form>`;
}

export function tariffsPage(s: Shell, list: readonly TariffItem[], o: { done: string | null; form?: TariffFormValues; error?: string | null }): Html {
  return officePage(
    s,
    'Tariffs',
    'tariffs',
    html`<h1>Tariffs</h1>${notice(o.done)}
<p class="muted">A desk's fee is the band covering the order's settled USD amount, [from, to). Desks created without a tariff get the default one.</p>
<p class="list-tools"><a class="button secondary" href="/office/tariffs.csv" download>Export CSV</a></p>
${table(
  'Tariffs',
  ['Tariff', 'Default', { label: 'Bands', kind: 'wrap' }, 'Created'],
  list.map((t) => [
    html`<a href="/office/tariffs/${t.id}">${t.name}</a><br>${ident(t.id, 'tariff id')}`,
    t.default ? html`<span class="badge ok">default</span>` : html`<span class="muted">—</span>`,
    t.bands.length === 0 ? html`<span class="muted">no bands: no fee</span>` : html`<ul class="plain">${t.bands.map((b) => html`<li>${bandText(b)}</li>`)}</ul>`,
    utc(t.createdAt),
  ]),
  'No tariffs yet: desks trade without a fee.',
)}
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="new-tariff-h"><h2 id="new-tariff-h">New tariff</h2>
${tariffForm(s.o, '/office/tariffs', o.form ?? EMPTY_TARIFF, 'new-tariff', 'Create the tariff', true, o.error ?? null)}</section>`
  : ''}`,
  );
}

export function tariffPage(s: Shell, t: TariffItem, audit: readonly AuditItem[], o: { done: string | null; form?: TariffFormValues; error?: string | null }): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    `Tariff ${t.name}`,
    'tariffs',
    html`<h1>Tariff ${t.name} ${t.default ? html`<span class="badge ok">default</span>` : ''}</h1>${notice(o.done)}
<div class="grid two">
<section class="card" aria-labelledby="bands-h"><h2 id="bands-h">Bands</h2>
<dl class="fields"><dt>Id</dt><dd>${ident(t.id, 'tariff id')}</dd><dt>Created</dt><dd>${utc(t.createdAt)}</dd>
<dt>Default</dt><dd>${t.default ? 'yes: desks created without a tariff get it' : 'no'}</dd></dl>
${table(`Bands of ${t.name}`, [{ label: 'From (USD)', kind: 'num' }, { label: 'To (USD)', kind: 'num' }, { label: 'Fee', kind: 'num' }], t.bands.map((b) => [usd(b.fromUsd), b.toUsd === null ? '∞' : usd(b.toUsd), `${b.ratePercent} %`]), 'No bands: no fee.')}
${admin
  ? html`<div class="actions">${t.default
      ? action(s.o, `/office/tariffs/${t.id}/default`, 'Stop being the default', { kind: 'secondary', fields: html`<input type="hidden" name="default" value="false">` })
      : action(s.o, `/office/tariffs/${t.id}/default`, 'Make it the default', { fields: html`<input type="hidden" name="default" value="true">` })}</div>`
  : ''}
<p><a href="${href('/office/merchants')}">Merchants and their desks</a></p></section>
${admin
  ? html`<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Edit</h2>
<p class="muted">New bands apply to the fees of orders completed from now on.</p>
${tariffForm(s.o, `/office/tariffs/${t.id}`, o.form ?? tariffValues(t), 'edit-tariff', 'Save the tariff', false, o.error ?? null)}</section>`
  : ''}
</div>
${auditSection(audit, t.id)}`,
  );
}

