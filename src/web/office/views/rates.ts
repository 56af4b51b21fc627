import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
import { action, csrfInput, isAdmin, notice, officePage, table, utc, type Fn, type Shell } from '../ui.js';

/** Currencies and rates: the rate in force, the market's, the manual override and each currency's setting. */

export function ratesPage(s: Shell, r: Fn<'ratesOverview'>, done: string | null, maxAgeSeconds: number, nowMs: number): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Currencies and rates',
    'rates',
    html`<h1>Currencies and rates</h1>${notice(done)}
<p class="muted">Rates in force before spread: a manual rate takes precedence over the market source until removed. A market rate older than ${maxAgeSeconds} s is not used. A rate marked <span class="badge warn">demo</span> came with the demo data: live orders would be priced on it until you set the rate here.</p>
<p class="list-tools"><a class="button secondary" href="/office/rates.csv" download>Export CSV</a></p>
${table(
  'Rates',
  ['Currency', 'Enabled, spread', { label: 'In force', kind: 'num' }, 'Market (source, age)', { label: 'Last jump refusal', kind: 'wrap' }, 'Manual'],
  r.map((x) => {
    const age = x.marketFetchedAt ? Math.round((nowMs - Date.parse(x.marketFetchedAt)) / 1000) : null;
    return [
      html`<strong>${x.code}</strong>`,
      x.currency ? `${x.currency.enabled ? 'yes' : 'no'}, ${x.currency.spreadPercent} %` : html`<span class="muted">not set up</span>`,
      html`${x.rate ?? '—'}${x.source === 'demo' ? html`<br><span class="badge warn" title="set by the demo data">demo</span>` : x.source ? html`<br><span class="muted">${x.source}</span>` : ''}`,
      html`${x.marketRate ?? '—'}${x.marketSource ? html`<br><span class="muted">${x.marketSource}, ${age === null ? '' : html`<span class="${age > maxAgeSeconds ? 'stale' : ''}">${age} s old</span>`}</span>` : ''}`,
      x.flag ?? html`<span class="muted">none</span>`,
      x.manualRate ? html`${x.manualRate}<br><span class="muted">since ${utc(x.manualSetAt)}</span>` : '—',
    ];
  }),
  'No currency has a rate yet.',
)}
${admin ? html`<h2 class="section">Settings and overrides</h2>${r.map((x) => rateForms(s.o, x))}` : ''}`,
  );
}

/** An admin's forms for one currency: its setting (enabled, spread) and its manual rate. */
function rateForms(o: OfficeRequest, x: Fn<'ratesOverview'>[number]): Html {
  return html`<section class="card rate-forms" aria-label="${x.code} settings"><h3>${x.code}</h3>
<form class="inline-form" method="post" action="/office/currencies/${x.code}">${csrfInput(o.csrf)}<label class="check"><input type="checkbox" name="enabled" value="true"${x.currency?.enabled ? html` checked` : ''}> Enabled</label>
<label for="spread-${x.code}">Spread (%)</label><input type="text" id="spread-${x.code}" name="spreadPercent" inputmode="decimal" required size="6" value="${x.currency ? x.currency.spreadPercent : '0'}"><button type="submit" class="secondary">Save</button></form>
<form class="inline-form" method="post" action="/office/rates/${x.code}">${csrfInput(o.csrf)}<label for="rate-${x.code}">Manual rate</label><input type="text" id="rate-${x.code}" name="rate" inputmode="decimal" required size="10"><button type="submit" class="secondary">Set</button></form>
${x.manualRate ? action(o, `/office/rates/${x.code}/remove`, 'Remove override', { kind: 'danger' }) : ''}</section>`;
}

