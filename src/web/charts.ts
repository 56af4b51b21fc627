import { Decimal } from 'decimal.js';
import { html, type Html } from './html.js';

/**
 * Charts as server-rendered SVG, for every surface (cabinet, back office): no script, no
 * third-party request, nothing inline that the page CSP forbids (colours are SVG presentation
 * attributes, not `style`). Each chart is an `<svg role="img">` with `<title>` and `<desc>`, and the
 * same figures as a visually hidden table, so a screen reader gets the numbers, not a picture.
 * Pages that show a chart load `charts.css` (CHART_STYLES) for the layout and the hidden table.
 */

export const CHART_STYLES = 'charts.css';

export interface ChartSeries {
  name: string;
  /** Decimal strings, one per label; exact in the table, rounded only for the bar geometry. */
  values: readonly string[];
}

export interface BarChartInput {
  title: string;
  description: string;
  /** One per group of bars along the x axis, e.g. dates "2026-11-01". */
  labels: readonly string[];
  series: readonly ChartSeries[];
  /** Shown after values, e.g. "USD". */
  unit: string;
  /** How a value reads in the table and the bars' titles (USD with cents, say); the exact decimal string by default. */
  valueText?: (value: string) => string;
  /** A short label under each bar group; defaults to the label itself. Every nth is drawn when they crowd. */
  shortLabel?: (label: string) => string;
}

/** Colour-blind-safe pair and a third (Okabe–Ito blue, orange, bluish green). */
const COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7'];

// Drawn at 640 × 280 and scaled to the card: text stays readable from phone to desktop widths.
const W = 640;
const H = 280;
const PAD = { top: 18, right: 12, bottom: 44, left: 76 };
const FONT = 16;

/** A value as a decimal, or zero when it is not one (a chart never throws on display data). */
function decOf(v: string | undefined): Decimal {
  try {
    return new Decimal(v ?? '0');
  } catch {
    return new Decimal(0);
  }
}

/** A round axis maximum at or above the data's: 1, 2 or 5 times a power of ten. */
export function niceMax(max: Decimal): Decimal {
  if (max.lte(0)) return new Decimal(1);
  const exp = Math.floor(Math.log10(max.toNumber()));
  const base = new Decimal(10).pow(exp);
  for (const m of [1, 2, 5, 10]) {
    const candidate = base.mul(m);
    if (candidate.gte(max)) return candidate;
  }
  return base.mul(10);
}

/** Axis tick text: no trailing zeros, thousands grouped. */
function tickText(v: Decimal): string {
  const [int, frac] = v.toFixed().split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

const n = (x: number) => (Math.round(x * 100) / 100).toString();

/** Ids only need to be unique within a page; a process-wide counter gives that. */
let chartSeq = 0;

/** A grouped bar chart: one group per label, one bar per series, a y axis from zero. */
export function barChart(input: BarChartInput): Html {
  const id = `chart${++chartSeq}`;
  const { labels, series } = input;
  const short = input.shortLabel ?? ((l: string) => l);
  const all = series.flatMap((s) => s.values.map(decOf));
  const top = niceMax(all.reduce((m, v) => (v.gt(m) ? v : m), new Decimal(0)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const groupW = labels.length > 0 ? plotW / labels.length : plotW;
  const barW = Math.max(1, (groupW * 0.8) / Math.max(1, series.length));
  const y = (v: Decimal) => PAD.top + plotH - Math.max(0, Math.min(1, v.div(top).toNumber())) * plotH;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => top.mul(f));
  // At most about 6 x labels, so 30 days stay readable at phone width.
  const every = Math.max(1, Math.ceil(labels.length / 6));

  const grid = ticks.map(
    (t) => html`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${n(y(t))}" y2="${n(y(t))}" stroke="#e3e8ee" stroke-width="1"/><text x="${PAD.left - 8}" y="${n(y(t) + 5)}" text-anchor="end" font-size="${FONT}" fill="#5b6477">${tickText(t)}</text>`,
  );
  const bars = labels.map((label, i) => {
    const x0 = PAD.left + i * groupW + groupW * 0.1;
    const rects = series.map((s, k) => {
      const v = decOf(s.values[i]);
      const yTop = y(v);
      const h = PAD.top + plotH - yTop;
      return html`<rect x="${n(x0 + k * barW)}" y="${n(yTop)}" width="${n(Math.max(1, barW - 1))}" height="${n(h)}" fill="${COLOURS[k % COLOURS.length]!}"><title>${label}: ${s.name} ${input.valueText ? input.valueText(v.toFixed()) : v.toFixed()} ${input.unit}</title></rect>`;
    });
    const text = i % every === 0 ? html`<text x="${n(PAD.left + i * groupW + groupW / 2)}" y="${H - PAD.bottom + 30}" text-anchor="middle" font-size="${FONT}" fill="#5b6477">${short(label)}</text>` : '';
    return html`<g>${rects}${text}</g>`;
  });
  const legend = series.map(
    (s, k) => html`<li><svg width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${COLOURS[k % COLOURS.length]!}"/></svg> ${s.name} (${input.unit})</li>`,
  );

  return html`<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-t ${id}-d" preserveAspectRatio="xMidYMid meet" class="chart-svg">
<title id="${id}-t">${input.title}</title>
<desc id="${id}-d">${input.description}</desc>
${grid}
<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#5b6477" stroke-width="1"/>
${bars}
</svg>
<figcaption><ul class="chart-legend">${legend}</ul></figcaption>
${dataTable(input)}
</figure>`;
}

/** The chart's figures as a table that only assistive technology reads. */
function dataTable(input: BarChartInput): Html {
  // The wrapper hides it: a table box ignores overflow and would widen a phone's page.
  return html`<div class="visually-hidden"><table>
<caption>${input.title} (${input.unit})</caption>
<thead><tr><th scope="col">Label</th>${input.series.map((s) => html`<th scope="col">${s.name}</th>`)}</tr></thead>
<tbody>${input.labels.map((l, i) => html`<tr><th scope="row">${l}</th>${input.series.map((s) => html`<td>${s.values[i] === undefined ? '' : input.valueText ? input.valueText(s.values[i]!) : s.values[i]}</td>`)}</tr>`)}</tbody>
</table></div>`;
}
