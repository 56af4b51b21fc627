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
  /** The label in full for the table and the tooltip, when the chart shows it short. */
  full?: string;
}

const ROW = 26;
const LABEL_W = 120;
const BAR_W = 190;
const VALUE_W = 110;

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
${fallback(o)}
</figure>`;
}

const clip = (s: string) => (s.length > 16 ? `${s.slice(0, 15)}…` : s);

/** A success rate as a bar's tone: green from 90 %, amber from 50 %, red below. */
export const rateTone = (percent: number | null): Bar['tone'] => (percent === null ? undefined : percent >= 90 ? 'ok' : percent >= 50 ? 'warn' : 'bad');

const COL_H = 110;
const COL_W = 26;

/** Vertical columns over time (one per day), the labels under them: a series reads left to right. */
export function columnChart(o: { id: string; title: string; bars: readonly Bar[]; max?: number; unit?: string }): Html {
  if (o.bars.length === 0) return html`<p class="muted">${o.title}: no data yet.</p>`;
  const max = o.max ?? Math.max(1, ...o.bars.map((b) => b.value ?? 0));
  // Room on the left for the axis's "100 %", also at the larger type of a phone.
  const width = o.bars.length * COL_W + 48;
  const height = COL_H + 34;
  const cols = o.bars.map((b, i) => {
    const x = 44 + i * COL_W;
    const h = b.value === null ? 0 : Math.max(b.value > 0 ? 2 : 0, Math.round((b.value / max) * COL_H));
    return html`<rect x="${x + 3}" y="${8}" width="${COL_W - 6}" height="${COL_H}" class="chart-track"/>
<rect x="${x + 3}" y="${8 + COL_H - h}" width="${COL_W - 6}" height="${h}" class="chart-bar ${b.tone ?? ''}"><title>${b.full ?? b.label}: ${b.value === null ? 'no data' : b.text}</title></rect>
<text x="${x + COL_W / 2}" y="${COL_H + 26}" text-anchor="middle" class="chart-tick">${b.label}</text>`;
  });
  return html`<figure class="chart" id="${o.id}">
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${o.id}-title" preserveAspectRatio="xMinYMin meet">
<title id="${o.id}-title">${o.title}</title>
<text x="40" y="16" text-anchor="end" class="chart-tick">${o.max === 100 ? '100 %' : String(max)}</text>
<text x="40" y="${COL_H + 8}" text-anchor="end" class="chart-tick">0</text>
${cols}
</svg>
${fallback(o)}
</figure>`;
}

function fallback(o: { title: string; bars: readonly Bar[]; unit?: string }): Html {
  return html`<figcaption><details><summary>${o.title} as a table</summary>
<table><thead><tr><th scope="col">Item</th><th scope="col">${o.unit ?? 'Value'}</th></tr></thead>
<tbody>${o.bars.map((b) => html`<tr><td>${b.full ?? b.label}</td><td class="num">${b.value === null ? 'no data' : b.text}</td></tr>`)}</tbody></table>
</details></figcaption>`;
}
