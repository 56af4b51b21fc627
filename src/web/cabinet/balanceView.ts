import type { MerchantBalance } from '../../services/balance.js';
import { barChart, CHART_STYLES } from '../charts.js';
import { html, type Html } from '../html.js';
import { cabinetPage, utc } from './layout.js';
import type { CabinetRequest } from './session.js';
import { statementForm } from './statement.js';

const KIND_LABEL: Record<string, string> = { credit: 'Credit', reversal: 'Reversal', withdrawal: 'Withdrawal', adjustment: 'Adjustment' };

const isZero = (v: string) => /^-?0(\.0*)?$/.test(v);
const money = (v: string) => html`<td class="num${v.startsWith('-') ? ' neg' : ''}">${v}</td>`;

export function balancePage(c: CabinetRequest, b: MerchantBalance): Html {
  const oldestFirst = [...b.days].reverse();
  const active = b.days.filter((d) => !isZero(d.credits) || !isZero(d.reversals) || !isZero(d.withdrawals) || !isZero(d.adjustments));
  return cabinetPage(
    c,
    'Balance',
    'balance',
    html`<h1>Balance</h1>
<div class="grid two">
<section class="card" aria-labelledby="avail-h"><h2 id="avail-h">Available</h2>
<p class="figure">${b.available} <span class="muted">${b.currency}</span></p>
<p class="hint">The same figure as <code>GET /gw/v1/balance</code>: credits minus reversals and withdrawals. Withdrawals are arranged with support and appear below.</p>
</section>
<section class="card" aria-labelledby="today-h"><h2 id="today-h">Today (UTC)</h2>
<dl class="fields"><dt>Turnover</dt><dd>${b.days[0]?.turnover ?? '0'} USD</dd><dt>Credits</dt><dd>${b.days[0]?.credits ?? '0'} USD</dd><dt>Reversals</dt><dd>${b.days[0]?.reversals ?? '0'} USD</dd><dt>Withdrawals</dt><dd>${b.days[0]?.withdrawals ?? '0'} USD</dd></dl>
</section></div>
<section class="card" aria-labelledby="chart-h"><h2 id="chart-h">Last ${b.days.length} days</h2>
${barChart({
  title: `Turnover and credits per day, last ${b.days.length} days (UTC)`,
  description: `Settled USD of the orders credited each day and the USD credited to the balance, from ${oldestFirst[0]?.day ?? ''} to ${oldestFirst[oldestFirst.length - 1]?.day ?? ''}.`,
  labels: oldestFirst.map((d) => d.day),
  series: [
    { name: 'Turnover', values: oldestFirst.map((d) => d.turnover) },
    { name: 'Credits', values: oldestFirst.map((d) => d.credits) },
  ],
  unit: 'USD',
  shortLabel: (l) => l.slice(5),
})}
</section>
<section class="card" aria-labelledby="days-h"><h2 id="days-h">Totals per day (UTC)</h2>
${active.length === 0
  ? html`<p class="muted">Nothing on the balance in the last ${b.days.length} days.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Day</th><th scope="col">Turnover, USD</th><th scope="col">Credits</th><th scope="col">Reversals</th><th scope="col">Withdrawals</th><th scope="col">Net</th></tr></thead><tbody>
${active.map((d) => html`<tr><th scope="row">${d.day}</th>${money(d.turnover)}${money(d.credits)}${money(d.reversals)}${money(d.withdrawals)}${money(d.net)}</tr>`)}
</tbody></table></div>`}
</section>
${statementForm(b.days[0]?.day)}
<section class="card" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger</h2>
${b.entries.length === 0
  ? html`<p class="muted">No entry yet: a completed order credits the balance.</p>`
  : html`<div class="table-wrap" tabindex="0"><table><caption class="skip">Ledger entries, newest first</caption><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Entry</th><th scope="col">Amount, USD</th><th scope="col">Order</th><th scope="col">Note</th></tr></thead><tbody>
${b.entries.map((e) => html`<tr><td>${utc(e.createdAt)}</td><td>${KIND_LABEL[e.kind] ?? e.kind}</td>${money(e.amount)}<td>${e.orderId ? html`<a class="mono" href="/cabinet/orders/${e.orderId}">${e.orderRef ?? e.orderId}</a>` : html`<span class="muted">—</span>`}</td><td class="wrap">${e.reason ?? ''}</td></tr>`)}
</tbody></table></div>`}
${b.next ? html`<nav class="pager" aria-label="Pages"><a href="/cabinet/balance?before=${b.next}" rel="next">Older entries →</a></nav>` : ''}
</section>`,
    [CHART_STYLES],
  );
}
