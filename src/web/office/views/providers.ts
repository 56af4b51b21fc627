import { html, type Html } from '../../html.js';
import { columnChart, rateTone } from '../charts.js';
import { action, auditSection, isAdmin, notice, officePage, statusBadge, table, type Fn, type Shell } from '../ui.js';

/** Providers and routing health: the live methods picture, each provider's circuits, pauses and success rate. */

export type ProviderItem = Fn<'providerHealth'>['provider'];

export function providersPage(s: Shell, list: readonly (ProviderItem & { series: Fn<'providerDailySuccess'> })[], done: string | null): Html {
  return officePage(
    s,
    'Providers',
    'providers',
    html`<h1>Providers and routing health</h1>${notice(done)}
<p class="muted">The cascade asks providers by priority and skips paused ones and open circuits.</p>
${methodsPicture(list)}
<ul class="queue">${list.map((p) => html`<li class="card">${providerSummary(s, p)}
${successChart(`chart-${p.id}`, p.name, p.series)}</li>`)}</ul>`,
  );
}

/** Live methods across providers: each capability (method, rail, currency) and who serves it right now. */
function methodsPicture(list: readonly ProviderItem[]): Html {
  const live = list.filter((p) => typeof p.capabilities !== 'string');
  const rows = new Map<string, { method: string; rail: string | null; currency: string }>();
  for (const p of live) for (const c of p.capabilities as Exclude<ProviderItem['capabilities'], string>) rows.set(`${c.method}|${c.rail ?? ''}|${c.currency}`, c);
  const cell = (p: ProviderItem, c: { method: string; rail: string | null; currency: string }): { text: string; tone: 'ok' | 'warn' | 'bad' } | null => {
    const caps = p.capabilities as Exclude<ProviderItem['capabilities'], string>;
    if (!caps.some((x) => x.method === c.method && x.rail === c.rail && x.currency === c.currency)) return null;
    if (p.paused) return { text: 'paused', tone: 'bad' };
    const state = p.circuits.find((x) => x.method === c.method && x.rail === c.rail)?.state ?? 'closed';
    return state === 'closed' ? { text: 'serving', tone: 'ok' } : { text: `circuit ${state}`, tone: state === 'open' ? 'bad' : 'warn' };
  };
  const sorted = [...rows.values()].sort((x, y) => `${x.method}${x.rail}${x.currency}`.localeCompare(`${y.method}${y.rail}${y.currency}`));
  return html`<section class="card" aria-labelledby="picture-h"><h2 id="picture-h">Live methods picture</h2>
${table(
  'Live methods across providers',
  ['Method', 'Rail', 'Currency', 'Live now', ...live.map((p) => p.name)],
  sorted.map((c) => {
    const cells = live.map((p) => cell(p, c));
    const serving = cells.some((x) => x?.tone === 'ok' || x?.tone === 'warn');
    return html`<tr><td>${c.method}</td><td>${c.rail ?? '—'}</td><td>${c.currency}</td><td>${serving ? html`<span class="badge ok">yes</span>` : html`<span class="badge bad">no</span>`}</td>
${cells.map((x) => html`<td>${x ? html`<span class="badge ${x.tone}">${x.text}</span>` : html`<span class="muted">—</span>`}</td>`)}</tr>`;
  }),
  'No live provider yet: only sandbox orders are served.',
)}
<p class="muted">Sandbox orders go to the sandbox provider, whatever the method.</p></section>`;
}

function successChart(id: string, name: string, series: Fn<'providerDailySuccess'>): Html {
  return columnChart({
    id,
    title: `${name}: completed of served orders per day, last 14 days`,
    unit: 'Success rate',
    max: 100,
    bars: series.map((d) => ({ label: d.day.slice(8), full: d.day, value: d.percent, text: `${d.percent} % (${d.completed}/${d.placed})`, tone: rateTone(d.percent) })),
  });
}

function providerSummary(s: Shell, p: ProviderItem): Html {
  return html`<h2><a href="/office/providers/${p.id}">${p.name}</a> <span class="muted mono">${p.id}</span> ${p.paused ? html`<span class="badge bad">Paused</span>` : html`<span class="badge ok">Serving</span>`}</h2>
<dl class="fields"><dt>Kind, priority</dt><dd>${p.kind}, ${p.priority}</dd>
<dt>Pause reasons</dt><dd>${p.pauseReasons.length === 0 ? 'none' : p.pauseReasons.map((r) => (r === 'appeals' ? html`<span class="badge bad">appeal guard: ${p.openAppeals} open appeals</span> ` : html`<span class="badge warn">paused by an operator</span> `))}</dd>
<dt>Open appeals</dt><dd>${p.openAppeals}</dd>
<dt>Circuits</dt><dd>${p.circuits.length === 0 ? html`<span class="muted">all closed (no failures recorded)</span>` : html`<ul class="plain">${p.circuits.map((c) => html`<li>${c.method}${c.rail ? html` · ${c.rail}` : ''}: ${statusBadge(c.state)}</li>`)}</ul>`}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${p.pauseReasons.includes('manual') ? action(s.o, `/office/providers/${p.id}/resume`, 'Resume', { kind: 'secondary' }) : action(s.o, `/office/providers/${p.id}/pause`, 'Pause', { kind: 'danger' })}</div>` : ''}`;
}

export function providerPage(s: Shell, h: Fn<'providerHealth'>, done: string | null): Html {
  const p = h.provider;
  return officePage(
    s,
    p.name,
    'providers',
    html`<h1>Provider ${p.name}</h1>${notice(done)}
<section class="card">${providerSummary(s, p)}</section>
<section class="card" aria-labelledby="rate-h"><h2 id="rate-h">Success rate over time</h2>
${successChart('chart-provider-days', p.name, h.series)}</section>
<section class="card" aria-labelledby="methods-h"><h2 id="methods-h">What it serves</h2>
${typeof p.capabilities === 'string' ? html`<p>Every method and rail (sandbox).</p>` : html`<ul class="plain">${p.capabilities.map((c) => html`<li><code>${JSON.stringify(c)}</code></li>`)}</ul>`}</section>
${auditSection(h.audit, p.id)}`,
  );
}

