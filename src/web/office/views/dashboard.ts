import { html, type Html } from '../../html.js';
import { barChart, rateTone } from '../charts.js';
import { href, modeSwitch, officePage, usd, type Fn, type Shell } from '../ui.js';

/**
 * The home dashboard of one mode, live or sandbox: the set-up checklist while the platform is not
 * set up for live payments, turnover tiles, the sections other rooms add
 * (what needs an operator's eye, such as bank statements that do not add up), and the charts of
 * orders, conversion, providers and callbacks.
 */
export function homePage(s: Shell, d: Fn<'dashboard'>, sections: readonly Html[] = [], setup: Html | '' = ''): Html {
  const t = d.turnover;
  const sandbox = d.sandbox;
  const kind = sandbox ? 'sandbox' : 'live';
  return officePage(
    s,
    'Dashboard',
    'home',
    html`<div class="page-head"><h1>${sandbox ? 'Sandbox dashboard' : 'Live dashboard'}</h1>${modeSwitch('/office', s.mode)}</div>
${setup}
<section aria-labelledby="turnover-h" class="tiles" id="turnover" data-mode="${s.mode}">
<h2 id="turnover-h" class="visually-hidden">${sandbox ? 'Sandbox turnover' : 'Live turnover'}</h2>
<div class="tile"><p class="tile-label">${sandbox ? 'Sandbox turnover' : 'Live turnover'} today (UTC)</p><p class="tile-value" id="turnover-today">${usd(t.todayUsd)}</p><p class="muted">${t.todayOrders} completed ${kind} order${t.todayOrders === 1 ? '' : 's'}</p></div>
<div class="tile"><p class="tile-label">${sandbox ? 'Sandbox turnover' : 'Live turnover'} this month</p><p class="tile-value" id="turnover-month">${usd(t.monthUsd)}</p><p class="muted">${t.monthOrders} completed ${kind} order${t.monthOrders === 1 ? '' : 's'}${sandbox ? '; no money moved' : ''}</p></div>
<div class="tile"><p class="tile-label">Waiting in queues</p><p class="tile-value">${s.counts.review + s.counts.appeals + s.counts.payed + s.counts.reconcile + s.counts.withdrawals}</p><p class="muted">${s.counts.overdue} ${s.counts.overdue === 1 ? 'appeal' : 'appeals'} past the SLA</p></div>
</section>
${sections}
<div class="grid two">
<section class="card" aria-labelledby="statuses-h"><h2 id="statuses-h">${sandbox ? 'Sandbox' : 'Live'} orders by status, last 30 days</h2>
${barChart({ id: 'chart-statuses', title: 'Orders by status, last 30 days', unit: 'Orders', bars: d.statuses.map((x) => ({ label: x.status, value: x.count, text: String(x.count), tone: x.status === 'Completed' ? 'ok' : x.status === 'Canceled' ? 'bad' : 'warn' })) })}</section>
<section class="card" aria-labelledby="conversion-h"><h2 id="conversion-h">Conversion per method, last 30 days</h2>
${barChart({ id: 'chart-conversion', title: 'Completed of created orders per method, last 30 days', unit: 'Completed / created', max: 100, bars: d.conversion.map((x) => ({ label: x.method, value: x.percent, text: `${x.percent} % (${x.completed}/${x.created})`, tone: rateTone(x.percent) })) })}</section>
<section class="card" aria-labelledby="providers-h"><h2 id="providers-h">Provider success rates, last 7 days</h2>
${barChart({ id: 'chart-providers', title: 'Completed of served orders per provider, last 7 days', unit: 'Success rate', max: 100, bars: d.providers.map((x) => ({ label: x.name, value: x.percent, text: `${x.percent} % (${x.completed}/${x.placed})`, tone: rateTone(x.percent) })) })}
<p><a href="/office/providers">Providers and routing health</a></p></section>
<section class="card" aria-labelledby="callbacks-h"><h2 id="callbacks-h">Callback delivery, last 24 hours</h2>
${barChart({ id: 'chart-callbacks', title: 'Callback events by delivery state, last 24 hours', unit: 'Events', bars: d.callbacks.map((x) => ({ label: x.state, value: x.count, text: String(x.count), tone: x.state === 'delivered' ? 'ok' : x.state === 'pending' || x.state === 'suppressed' ? 'warn' : 'bad' })) })}
<p><a href="/office/queues/callbacks">Failing endpoints</a> · <a href="${href('/office/orders', {}, s.mode)}">${sandbox ? 'Sandbox' : 'Live'} orders</a></p></section>
</div>`,
  );
}

