import type { LinkLineView } from '../../services/links.js';
import { counted } from '../format.js';
import { html, type Html } from '../html.js';
import { deskLabel } from './desksView.js';
import { cabinetPage, copyable, csrfInput, inSandbox, listTable, mayChange, money, utc } from './layout.js';
import { orderColumns, statusBadge, type DeskName, type OrderLine } from './ordersView.js';
import type { CabinetRequest } from './session.js';

/** Payment links: the list with each link's newest orders and the form that makes one; one link with all its orders. */

export interface LinkFormValues {
  amount: string;
  currency: string;
  deskId: string;
  description: string;
  expiresAt: string;
  rail: string;
}
export const EMPTY_LINK_FORM: LinkFormValues = { amount: '', currency: '', deskId: '', description: '', expiresAt: '', rail: '' };

/** A desk the form offers, with what it takes. */
export interface LinkDesk extends DeskName {
  rails: readonly string[];
  currencies: readonly string[];
}

function linkState(l: LinkLineView): Html {
  if (l.state === 'off') return html`<span class="badge">Off</span>`;
  if (l.state === 'expired') return html`<span class="badge warn">Expired</span>`;
  return html`<span class="badge ok">Active</span>`;
}

/** The switch of a link: off answers 410 at once; on again takes orders again. */
function enabledForm(c: CabinetRequest, l: LinkLineView): Html | '' {
  if (!mayChange(c)) return '';
  return html`<form class="inline" method="post" action="/cabinet/links/${l.id}/enabled">${csrfInput(c.csrf)}<input type="hidden" name="enabled" value="${l.enabled ? 'false' : 'true'}">
<button type="submit" class="${l.enabled ? 'danger' : 'secondary'}">${l.enabled ? 'Switch off' : 'Switch on'}</button></form>`;
}

function linkForm(c: CabinetRequest, desks: readonly LinkDesk[], v: LinkFormValues, error: string | null): Html {
  const currencies = [...new Set(desks.flatMap((d) => d.currencies))].sort();
  const rails = [...new Set(desks.flatMap((d) => d.rails))].sort();
  return html`<form class="card stack" method="post" action="/cabinet/links" id="new-link"${error ? html` aria-describedby="link-error"` : ''}>${csrfInput(c.csrf)}
<h2>New payment link</h2>
<p class="hint">Send the link by message or e-mail, or put it on a page: whoever opens it gets an order of this amount on the desk, with its own payment page. No code needed: a desk without a callback URL works too, and you follow its orders here.</p>
${error ? html`<p class="notice bad" role="alert" id="link-error"><strong>No link was created.</strong> ${error}</p>` : ''}
<label>What it is for <span class="hint">Shown to the customer and on the order.</span>
<input type="text" name="description" required maxlength="255" value="${v.description}" autocomplete="off"></label>
<div class="filters">
<label>Amount <input type="text" name="amount" inputmode="decimal" required maxlength="20" value="${v.amount}" placeholder="1500.00"></label>
<label>Currency <select name="currency">${currencies.map((code) => html`<option value="${code}"${code === v.currency ? html` selected` : ''}>${code}</option>`)}</select></label>
</div>
<label>Cash desk <select name="deskId">${desks.map((d) => html`<option value="${d.id}"${d.id === v.deskId ? html` selected` : ''}>${d.name} (${d.id})</option>`)}</select></label>
<label>Rail <span class="hint">Optional: the first of the desk’s rails that takes the currency otherwise.</span>
<select name="rail"><option value="">Any that takes the currency</option>${rails.map((r) => html`<option value="${r}"${r === v.rail ? html` selected` : ''}>${r}</option>`)}</select></label>
<label>Expires (UTC) <span class="hint">Optional: after this time the link answers “no longer active”.</span>
<input type="datetime-local" name="expiresAt" step="60" value="${v.expiresAt}"></label>
<div><button type="submit">Create link</button></div>
</form>`;
}

export function linksPage(
  c: CabinetRequest,
  o: { lines: readonly LinkLineView[]; ordersOf: (id: string) => readonly OrderLine[]; desks: readonly LinkDesk[]; next: string | null; form: LinkFormValues; error: string | null; notice: string | null },
): Html {
  const desks = new Map(o.desks.map((d) => [d.id, d]));
  return cabinetPage(
    c,
    'Payment links',
    'links',
    html`<h1>Payment links</h1>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${o.lines.length === 0
  ? html`<p class="card">No payment link yet. A link takes payments without any code on your side.</p>`
  : listTable<LinkLineView>('Payment links, newest first', [
      { label: 'Link', cell: (l) => html`<a href="/cabinet/links/${l.id}">${l.description}</a><br>${copyable(l.url, 'link')}` },
      { label: 'Amount', cell: (l) => money(l.amount, l.currency), num: true },
      { label: 'Desk', cell: (l) => deskLabel(desks.get(l.deskId), l.deskId) },
      { label: 'State', cell: (l) => html`${linkState(l)}${l.expiresAt ? html`<br><span class="hint">until ${utc(l.expiresAt)}</span>` : ''}` },
      {
        label: 'Orders',
        cell: (l) => html`${l.orders} (${l.completed} paid)${o.ordersOf(l.id).length > 0 ? html`<ul class="plain">${o.ordersOf(l.id).map((x) => html`<li><a class="mono id" href="/cabinet/orders/${x.id}">${x.id}</a> ${statusBadge(x.status)}</li>`)}</ul>` : ''}`,
      },
      { label: 'Created (UTC)', cell: (l) => utc(l.createdAt) },
      { label: 'Action', cell: (l) => enabledForm(c, l) },
    ], o.lines, { wide: true, id: 'links' })}
${o.next ? html`<nav class="pager" aria-label="Pages"><a href="/cabinet/links?before=${o.next}" rel="next">Older links →</a></nav>` : ''}
${mayChange(c)
  ? o.desks.length === 0
    ? html`<p class="card">Create a <a href="/cabinet/desks#new-desk">cash desk</a> first: a link's orders are placed on one of your desks.</p>`
    : linkForm(c, o.desks, o.form, o.error)
  : ''}`,
  );
}

export function linkPage(c: CabinetRequest, l: LinkLineView, orders: readonly OrderLine[], desks: readonly DeskName[], notice: string | null): Html {
  const desk = desks.find((d) => d.id === l.deskId);
  return cabinetPage(
    c,
    `Payment link ${l.description}`,
    'links',
    html`<h1>${l.description} ${linkState(l)}</h1>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<section class="card" aria-labelledby="link-h"><h2 id="link-h">The link</h2>
<p>${copyable(l.url, 'link', { id: 'link-url' })}</p>
<dl class="fields">
<dt>Link id</dt><dd>${copyable(l.id, 'link id', { id: 'link-id' })}</dd>
<dt>Amount</dt><dd>${money(l.amount, l.currency)}</dd>
<dt>Desk</dt><dd>${deskLabel(desk, l.deskId)}</dd>
<dt>Rail</dt><dd>${l.rail ?? 'the first of the desk’s rails that takes the currency'}</dd>
<dt>Expires</dt><dd>${l.expiresAt ? utc(l.expiresAt) : 'never'}</dd>
<dt>Used</dt><dd>${counted(l.opened, 'press of its Pay button', 'presses of its Pay button')}, ${counted(l.orders, 'order', 'orders')}, ${l.completed} paid</dd>
<dt>Created</dt><dd>${utc(l.createdAt)}</dd>
</dl>
<p class="hint">Opening it shows the amount, what it is for and a button; each press of the button creates a new order (its orderRef is the link id and a number) and leads to its payment page, at most 3 open at once from one customer's address. Switched off or expired, the link answers “no longer active”.</p>
<p><a href="${l.path}" rel="nofollow noopener" target="_blank">Open it as a customer would</a> <span class="hint">(pressing its button makes an order${inSandbox(c) ? ', a test one' : ''})</span></p>
<div class="actions">${enabledForm(c, l)}</div>
</section>
<section class="card" aria-labelledby="lo-h"><h2 id="lo-h">Orders from this link</h2>
${orders.length === 0 ? html`<p class="muted">Nobody has opened it yet.</p>` : listTable('Orders from this link, newest first', orderColumns(desks), orders, { wide: true })}
</section>`,
  );
}
