import { html, type Html } from '../../html.js';
import { officePage, table, type Fn, type Shell } from '../ui.js';

/** Tariffs and their fee bands. */

export function tariffsPage(s: Shell, list: Fn<'listTariffViews'>): Html {
  return officePage(
    s,
    'Tariffs',
    'tariffs',
    html`<h1>Tariffs</h1>
<p class="muted">A desk's fee is the band covering the order's settled USD amount, [from, to).</p>
${list.length === 0 ? html`<p class="muted empty">No tariffs.</p>` : ''}
${list.map(
  (t) => html`<section class="card"><h2>${t.name} <span class="mono muted">${t.id}</span></h2>
${table(`Bands of ${t.name}`, ['From (USD)', 'To (USD)', 'Fee'], t.bands.map((b) => html`<tr><td class="num">${b.fromUsd}</td><td class="num">${b.toUsd ?? '∞'}</td><td class="num">${b.ratePercent} %</td></tr>`), 'No bands: no fee.')}</section>`,
)}`,
  );
}

