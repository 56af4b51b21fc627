import { html, type Html } from '../html.js';

/**
 * Server-rendered SVG bar charts for the back office: no script, no third-party request (CSP
 * 'self'). Each chart is an image with a title for screen readers and the same figures as a
 * table right below it, so nothing is only in the picture. Geometry uses plain numbers; the
 * labels carry the values as the services gave them.
 */

export interface Bar {
  label: string;
  /** The bar's length; null draws no bar (no data), shown as "no data" in the table. */
  value: number | null;
  /** The value as text, e.g. "97.5 %" or "12". */
  text: string;
  tone?: 'ok' | 'warn' | 'bad';
}

const ROW = 26;
const LABEL_W = 130;
const BAR_W = 220;
const VALUE_W = 70;

/** Horizontal bars, one per row: reads well on a phone and with long labels. */
export function barChart(o: { id: string; title: string; bars: readonly Bar[]; max?: number; unit?: string }): Html {
  if (o.bars.length === 0) return html`<p class="muted">${o.title}: no data yet.</p>`;
  const max = o.max ?? Math.max(1, ...o.bars.map((b) => b.value ?? 0));
  const height = o.bars.length * ROW + 8;
  const width = LABEL_W + BAR_W + VALUE_W;
  const rows = o.bars.map((b, i) => {
    const y = 4 + i * ROW;
    const w = b.value === null ? 0 : Math.max(b.value > 0 ? 2 : 0, Math.round((b.value / max) * BAR_W));
    return html`<text x="${LABEL_W - 8}" y="${y + 17}" text-anchor="end" class="chart-label">${clip(b.label)}</text>
<rect x="${LABEL_W}" y="${y + 4}" width="${BAR_W}" height="${ROW - 8}" class="chart-track"/>
<rect x="${LABEL_W}" y="${y + 4}" width="${w}" height="${ROW - 8}" class="chart-bar ${b.tone ?? ''}"/>
<text x="${LABEL_W + BAR_W + 6}" y="${y + 17}" class="chart-value">${b.value === null ? 'no data' : b.text}</text>`;
  });
  return html`<figure class="chart" id="${o.id}">
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${o.id}-title" preserveAspectRatio="xMinYMin meet">
<title id="${o.id}-title">${o.title}</title>
${rows}
</svg>
<figcaption><details><summary>${o.title} as a table</summary>
<table><thead><tr><th scope="col">Item</th><th scope="col">${o.unit ?? 'Value'}</th></tr></thead>
<tbody>${o.bars.map((b) => html`<tr><td>${b.label}</td><td class="num">${b.value === null ? 'no data' : b.text}</td></tr>`)}</tbody></table>
</details></figcaption>
</figure>`;
}

const clip = (s: string) => (s.length > 18 ? `${s.slice(0, 17)}…` : s);

/** A success rate as a bar's tone: green from 90 %, amber from 50 %, red below. */
export const rateTone = (percent: number | null): Bar['tone'] => (percent === null ? undefined : percent >= 90 ? 'ok' : percent >= 50 ? 'warn' : 'bad');
