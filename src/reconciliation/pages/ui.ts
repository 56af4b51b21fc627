/**
 * Small parts the reconciliation pages share, inside the back office's shell (src/web/office/ui.ts):
 * amounts as people read them, and lists that become one card per row where their columns do not
 * fit (web spec, "Every page, in addition").
 */
import { html, type Html, type Interpolation } from '../../web/html.js';

/** Digits after the point a currency shows, as ICU knows them (2 for RUB, INR, KZT; 0 for KRW, UZS). */
function minorUnits(currency: string | null): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * An amount for the page: digits grouped, the currency's own decimals (rounded half away from
 * zero for display only, from the decimal string, never through a float), the exact string a
 * hover away and in the element's value. The API and the CSV keep the exact strings.
 */
export function amount(value: string | null | undefined, currency: string | null): Html {
  if (value === null || value === undefined || value === '') return html`<span class="muted">—</span>`;
  const digits = minorUnits(currency);
  let shown = value;
  try {
    shown = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits, roundingMode: 'halfExpand' } as Intl.NumberFormatOptions).format(
      value as unknown as number,
    );
  } catch {
    // Not a decimal string: shown as it is.
  }
  const label = currency ? `${value} ${currency}` : value;
  return html`<data class="money" value="${value}" title="${label}">${shown}${currency ? ` ${currency}` : ''}</data>`;
}

/** A column: its heading and how its cells read (`num` right-aligned). */
export interface Column {
  label: string;
  num?: boolean;
}

/**
 * A list as a table with every column visible where it fits, and one card per row, each cell
 * labelled, where it does not: the switch is a container query on the list's own width, so it
 * holds whatever the navigation takes. `fit` is the width the columns need. Each cell's content is
 * one element, so a card lays out label and value as two columns.
 */
export function list(caption: string, cols: readonly Column[], rows: readonly (readonly Interpolation[])[], o: { fit?: 's' | 'm' | 'l'; id?: string } = {}): Html {
  return html`<div class="rc-list fit-${o.fit ?? 'm'}"${o.id ? html` id="${o.id}"` : ''}><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${cols.map((c) => html`<th scope="col"${c.num ? html` class="num"` : ''}>${c.label}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell, i) => html`<td data-label="${cols[i]?.label ?? ''}"${cols[i]?.num ? html` class="num"` : ''}><div class="rc-v">${cell}</div></td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A path with its query, empty values left out. */
export function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The notice after an action, by the fixed word the action's redirect names (never free text). */
export function noticeOf(done: unknown, notices: Record<string, string>): string | null {
  return typeof done === 'string' && Object.prototype.hasOwnProperty.call(notices, done) ? notices[done]! : null;
}
