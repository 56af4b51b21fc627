import type { MerchantBalance } from '../../services/balance.js';
import type { FundsView, WithdrawalView } from '../../services/withdrawalRequests.js';
import { dec } from '../../domain/money.js';
import { barChart, CHART_STYLES } from '../charts.js';
import { html, type Html } from '../html.js';
import { cabinetPage, listTable, money, utc } from './layout.js';
import type { CabinetRequest } from './session.js';
import { statementForm } from './statement.js';
import { requestsTable } from './withdrawalsView.js';

const KIND_LABEL: Record<string, string> = { credit: 'Credit', reversal: 'Reversal', withdrawal: 'Withdrawal', adjustment: 'Adjustment' };

const isZero = (v: string) => /^-?0(\.0*)?$/.test(v);
/** A USD figure of a list: grouped, 2 decimals, the exact value a hover away; negatives marked. */
const usd = (v: string) => (v.startsWith('-') ? html`<span class="neg">${money(v, 'USD')}</span>` : money(v, 'USD'));
type Day = MerchantBalance['days'][number];
type Entry = MerchantBalance['entries'][number];

/** What withdrawal requests hold of the live balance, and the latest of them. */
export interface BalanceWithdrawals {
  funds: FundsView;
  requests: readonly WithdrawalView[];
}

/** The latest withdrawal requests with their statuses, and the way to ask for one. */
function withdrawalsCard(w: BalanceWithdrawals): Html {
  return html`<section class="card" aria-labelledby="wr-h" id="balance-withdrawals"><h2 id="wr-h">Withdrawal requests</h2>
${w.requests.length === 0 ? html`<p class="muted">No withdrawal requested yet.</p>` : requestsTable(w.requests, 'Latest withdrawal requests, newest first')}
<p><a href="/cabinet/withdrawals">${w.requests.length === 0 ? 'Request a withdrawal and manage payout destinations' : 'All requests, a new request and payout destinations'} →</a></p>
</section>`;
}

/** Marks the balance `GET /gw/v1/balance` answers now. */
const apiBadge = html` <span class="badge ok">API balance</span>`;

export function balancePage(c: CabinetRequest, b: MerchantBalance, w: BalanceWithdrawals): Html {
  const oldestFirst = [...b.days].reverse();
  const active = b.days.filter((d) => !isZero(d.credits) || !isZero(d.reversals) || !isZero(d.withdrawals) || !isZero(d.adjustments));
  return cabinetPage(
    c,
    'Balance',
    'balance',
    html`<h1>Balance</h1>
<div class="grid three">
<section class="card${b.mode === 'live' ? ' current' : ''}" aria-labelledby="live-h"><h2 id="live-h">Live balance${b.mode === 'live' ? apiBadge : ''}</h2>
<p class="figure" id="live-balance">${money(b.live, b.currency)}</p>
<dl class="fields" id="withdrawable"><dt>Available to withdraw</dt><dd id="available">${money(w.funds.available, 'USD')}</dd><dt>Held by withdrawal requests</dt><dd id="held">${money(w.funds.held, 'USD')}</dd></dl>
<p class="hint">${b.mode === 'live'
  ? html`Money of live orders: credits less reversals, withdrawals and adjustments. Owners ask for withdrawals on the <a href="/cabinet/withdrawals">withdrawals</a> page; once paid, they appear in the ledger. This is what <code>GET /gw/v1/balance</code> answers with a live desk's key.`
  : html`Money of live orders, which start once the account is approved: withdrawals are paid from it.`}</p>
</section>
<section class="card${b.mode === 'sandbox' ? ' current' : ''}" aria-labelledby="sandbox-h"><h2 id="sandbox-h">Sandbox balance${b.mode === 'sandbox' ? apiBadge : ''}</h2>
<p class="figure" id="sandbox-balance">${money(b.sandbox, b.currency)}</p>
<p class="hint">Simulated payments of sandbox orders: never withdrawable and never part of the live balance.${b.mode === 'sandbox' ? html` While the account is in the sandbox, this is what <code>GET /gw/v1/balance</code> answers.` : html` Test desks' orders are credited here, and a test desk's key reads it from <code>GET /gw/v1/balance</code>.`}</p>
</section>
<section class="card" aria-labelledby="today-h"><h2 id="today-h">Today (UTC, ${b.mode === 'live' ? 'live' : 'sandbox'} money)</h2>
<dl class="fields"><dt>Turnover</dt><dd>${money(b.days[0]?.turnover ?? '0', 'USD')}</dd><dt>Credits</dt><dd>${money(b.days[0]?.credits ?? '0', 'USD')}</dd><dt>Reversals</dt><dd>${money(b.days[0]?.reversals ?? '0', 'USD')}</dd><dt>Withdrawals</dt><dd>${money(b.days[0]?.withdrawals ?? '0', 'USD')}</dd></dl>
</section>
</div>
${withdrawalsCard(w)}
<section class="card" aria-labelledby="chart-h"><h2 id="chart-h">Last ${b.days.length} days (${b.mode === 'live' ? 'live' : 'sandbox'} money)</h2>
${barChart({
  title: `Turnover and credits per day, last ${b.days.length} days (UTC)`,
  description: `Settled USD of the orders credited each day and the USD credited to the balance, from ${oldestFirst[0]?.day ?? ''} to ${oldestFirst[oldestFirst.length - 1]?.day ?? ''}.`,
  labels: oldestFirst.map((d) => d.day),
  series: [
    { name: 'Turnover', values: oldestFirst.map((d) => d.turnover) },
    { name: 'Credits', values: oldestFirst.map((d) => d.credits) },
  ],
  unit: 'USD',
  valueText: (v) => dec(v).toFixed(2),
  shortLabel: (l) => l.slice(5),
})}
</section>
<section class="card" aria-labelledby="days-h"><h2 id="days-h">Totals per day (UTC, ${b.mode === 'live' ? 'live' : 'sandbox'} money)</h2>
${active.length === 0
  ? html`<p class="muted">Nothing on the balance in the last ${b.days.length} days.</p>`
  : listTable<Day>('Totals per day, newest first', [
      { label: 'Day', cell: (d) => d.day, rowHeader: true },
      { label: 'Turnover, USD', cell: (d) => usd(d.turnover), num: true },
      { label: 'Credits', cell: (d) => usd(d.credits), num: true },
      { label: 'Reversals', cell: (d) => usd(d.reversals), num: true },
      { label: 'Withdrawals', cell: (d) => usd(d.withdrawals), num: true },
      { label: 'Net', cell: (d) => usd(d.net), num: true },
    ], active)}
</section>
${statementForm(b.days[0]?.day)}
<section class="card" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger</h2>
${b.entries.length === 0
  ? html`<p class="muted">No entry yet: a completed order credits the balance.</p>`
  : listTable<Entry>('Ledger entries, newest first', [
      { label: 'Time (UTC)', cell: (e) => utc(e.createdAt) },
      { label: 'Entry', cell: (e) => KIND_LABEL[e.kind] ?? e.kind },
      { label: 'Money', cell: (e) => (e.sandbox ? html`<span class="badge">Sandbox</span>` : 'Live') },
      { label: 'Amount, USD', cell: (e) => usd(e.amount), num: true },
      { label: 'Order', cell: (e) => (e.orderId ? html`<a class="mono" href="/cabinet/orders/${e.orderId}">${e.orderRef ?? e.orderId}</a>` : html`<span class="muted">—</span>`) },
      { label: 'Note', cell: (e) => e.reason ?? '' },
    ], b.entries)}
${b.next ? html`<nav class="pager" aria-label="Pages"><a href="/cabinet/balance?before=${b.next}" rel="next">Older entries →</a></nav>` : ''}
</section>`,
    [CHART_STYLES],
  );
}
