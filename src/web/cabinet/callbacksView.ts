import { html, type Html } from '../html.js';
import { deskLabel } from './desksView.js';
import { cabinetPage, csrfInput, listTable, mayChange, utc } from './layout.js';
import type { DeskName } from './ordersView.js';
import type { CabinetRequest } from './session.js';

export interface FailingLine {
  eventId: string;
  event: string;
  orderId: string;
  orderRef: string | null;
  deskId: string;
  url: string | null;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  last: { outcome: string | null; httpCode: number | null; response: string | null; error: string | null; at: string } | null;
}

const STATE_LABEL: Record<string, Html> = {
  failed: html`<span class="badge bad">gave up</span>`,
  rejected: html`<span class="badge bad">refused</span>`,
  pending: html`<span class="badge warn">retrying</span>`,
};

/** Failing deliveries across the merchant's desks, and the one-step redelivery since a time. */
export function callbacksPage(c: CabinetRequest, o: { lines: readonly FailingLine[]; desks: readonly DeskName[]; next: string | null; sinceDefault: string; notice: string | null; error: string | null }): Html {
  const desks = new Map(o.desks.map((d) => [d.id, d]));
  return cabinetPage(
    c,
    'Callbacks',
    'callbacks',
    html`<h1>Callbacks</h1>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${o.error ? html`<p class="notice bad" role="alert">${o.error}</p>` : ''}
${mayChange(c) ? html`<form class="card stack" method="post" action="/cabinet/callbacks/redeliver">${csrfInput(c.csrf)}
<h2>Redeliver failed events</h2>
<p class="hint">Every event that gave up or was refused since this time is sent again under its own event id, to the URL it was meant for. Each new attempt appears in the order’s log. Fix your endpoint first.</p>
<div class="filters"><label>Since (UTC) <input type="datetime-local" name="since" value="${o.sinceDefault}" step="60" required></label>
<button type="submit">Redeliver</button></div>
</form>` : ''}
<section class="card" aria-labelledby="fail-h"><h2 id="fail-h">Failing deliveries</h2>
${o.lines.length === 0
  ? html`<p class="muted">Every callback got through. Nothing is failing.</p>`
  : listTable<FailingLine>('Failing deliveries, newest first', [
      { label: 'Event', cell: (l) => html`<span class="mono">${l.eventId}</span><br>${l.event}` },
      { label: 'Order', cell: (l) => html`<a class="mono" href="/cabinet/orders/${l.orderId}">${l.orderRef ?? l.orderId}</a>` },
      { label: 'State', cell: (l) => STATE_LABEL[l.state] ?? l.state },
      { label: 'Attempts', cell: (l) => l.attempts, num: true },
      { label: 'Last answer', cell: (l) => (l.last ? `${l.last.httpCode ?? '—'} ${(l.last.response ?? l.last.error ?? '').slice(0, 300)}` : '—'), className: 'mono' },
      { label: 'Last attempt (UTC)', cell: (l) => (l.last ? utc(l.last.at) : '—') },
      { label: 'Next (UTC)', cell: (l) => utc(l.nextAttemptAt) },
      { label: 'Desk', cell: (l) => deskLabel(desks.get(l.deskId), l.deskId) },
    ], o.lines, { wide: true })}
${o.next ? html`<nav class="pager" aria-label="Pages"><a href="/cabinet/callbacks?before=${o.next}" rel="next">Older →</a></nav>` : ''}
</section>`,
  );
}
