import { html, type Html } from '../../html.js';
import { action, auditSection, csrfInput, isAdmin, notice, officePage, reasonAction, statusBadge, table, usd, utc, type AuditItem, type Fn, type Shell } from '../ui.js';

/** The merchants list, one merchant with everything an operator looks at, and one cash desk. */

type MerchantView = Fn<'merchantOverview'>['merchant'];

export function merchantsPage(s: Shell, page: { items: MerchantView[]; hasMore: boolean; next: string | null }, status: string): Html {
  const opt = (v: string, label: string) => html`<option value="${v}"${v === status ? html` selected` : ''}>${label}</option>`;
  return officePage(
    s,
    'Merchants',
    'merchants',
    html`<h1>Merchants</h1>
<form class="filters" method="get" action="/office/merchants"><label for="status">Status</label>
<select id="status" name="status">${opt('', 'Any')}${opt('UnderReview', 'Under review')}${opt('Active', 'Active')}${opt('Blocked', 'Blocked')}</select><button type="submit" class="secondary">Show</button></form>
${table(
  'Merchants',
  ['Merchant', 'Status', 'Sandbox', 'Balance', 'Created'],
  page.items.map(
    (m) => html`<tr><td><a href="/office/merchants/${m.id}">${m.name}</a><br><span class="mono muted">${m.id}</span></td><td>${statusBadge(m.status)}</td><td>${m.sandbox ? 'on' : 'off'}</td>
<td class="num">${m.balance.available}</td><td>${utc(m.createdAt)}</td></tr>`,
  ),
  'No merchants.',
)}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/merchants?status=${status}&amp;before=${page.next}">Older merchants</a></p>` : ''}`,
  );
}

export function merchantPage(s: Shell, m: Fn<'merchantOverview'>, done: string | null, error: string | null): Html {
  const admin = isAdmin(s.o);
  const mer = m.merchant;
  return officePage(
    s,
    mer.name,
    'merchants',
    html`<h1>${mer.name} ${statusBadge(mer.status)}</h1>${notice(done)}
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<div class="grid two">
<section class="card" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="fields"><dt>Id</dt><dd class="mono">${mer.id}</dd><dt>Status</dt><dd>${mer.status}${mer.blockReason ? html` — ${mer.blockReason}` : ''}</dd>
<dt>Sandbox</dt><dd>${mer.sandbox ? 'on' : 'off'}</dd><dt>Available balance</dt><dd id="balance">${usd(mer.balance.available)}</dd><dt>Created</dt><dd>${utc(mer.createdAt)}</dd></dl>
${admin
  ? html`<div class="actions">
${mer.status === 'UnderReview' ? action(s.o, `/office/merchants/${mer.id}/approve`, 'Approve') : ''}
${action(s.o, `/office/merchants/${mer.id}/sandbox`, mer.sandbox ? 'Turn the sandbox off' : 'Turn the sandbox on', { kind: 'secondary', fields: html`<input type="hidden" name="sandbox" value="${mer.sandbox ? 'false' : 'true'}">` })}
${mer.status === 'Blocked' ? action(s.o, `/office/merchants/${mer.id}/unblock`, 'Unblock', { kind: 'secondary' }) : reasonAction(s.o, `/office/merchants/${mer.id}/block`, 'Block', 'reason', 'Reason for the block', 'block-reason')}
</div>`
  : ''}
</section>
${admin
  ? html`<section class="card" aria-labelledby="withdraw-h"><h2 id="withdraw-h">Record a withdrawal</h2>
<p class="muted">A payout arranged with the merchant: the balance shrinks at once, never below zero.</p>
<form class="stack" method="post" action="/office/merchants/${mer.id}/withdrawals">${csrfInput(s.o.csrf)}
<label for="amountUsd">Amount (USD)</label><input type="text" id="amountUsd" name="amountUsd" inputmode="decimal" required pattern="\\d{1,16}(\\.\\d{1,8})?">
<label for="reference">Reference (bank transfer id)</label><input type="text" id="reference" name="reference" required maxlength="200">
<button type="submit">Record withdrawal</button></form></section>`
  : ''}
</div>
<section class="card" aria-labelledby="users-h"><h2 id="users-h">Users</h2>
${table('Users', ['Email', 'Id', 'Created'], m.users.map((u) => html`<tr><td>${u.email}</td><td class="mono">${u.id}</td><td>${utc(u.createdAt)}</td></tr>`), 'No cabinet users.')}</section>
<section class="card" aria-labelledby="desks-h"><h2 id="desks-h">Cash desks</h2>
${table(
  'Cash desks',
  ['Desk', 'Method', 'Enabled', 'Stopped', 'Callback URL'],
  m.desks.map(
    (d) => html`<tr><td><a href="/office/desks/${d.id}">${d.id}</a></td><td>${d.method}</td><td>${d.enabled ? 'yes' : 'no'}</td><td>${d.stopReason !== null ? html`<span class="badge bad">stopped</span> ${d.stopReason}` : 'no'}</td><td class="wrap mono">${d.callbackUrl ?? ''}</td></tr>`,
  ),
  'No desks yet.',
)}
<p><a href="/office/orders?merchantId=${mer.id}">Orders of this merchant</a></p></section>
<section class="card" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger (latest 100)</h2>
${table(
  'Ledger entries',
  ['When', 'Kind', 'Amount (USD)', 'Order', 'Reason'],
  m.ledger.map((e) => html`<tr><td>${utc(e.at)}</td><td>${e.kind}</td><td class="num">${e.amount}</td><td>${e.orderId ? html`<a href="/office/orders/${e.orderId}">${e.orderId}</a>` : ''}</td><td class="wrap">${e.reason ?? ''}</td></tr>`),
  'No entries yet.',
)}</section>
<section class="card" aria-labelledby="wd-h"><h2 id="wd-h">Withdrawals</h2>
${table('Withdrawals', ['When', 'Id', 'Amount (USD)', 'Reference'], m.withdrawals.map((w) => html`<tr><td>${utc(w.createdAt)}</td><td class="mono">${w.id}</td><td class="num">${w.amountUsd}</td><td>${w.reference}</td></tr>`), 'No withdrawals.')}</section>
${auditSection(m.audit, mer.id)}`,
  );
}

export interface DeskDetail {
  id: string;
  merchantId: string;
  method: string;
  rails: readonly string[];
  currencies: readonly string[];
  enabled: boolean;
  stopReason: string | null;
  callbackUrl: string | null;
  minUsd: string;
  maxUsd: string;
}

export function deskPage(s: Shell, d: DeskDetail, audit: readonly AuditItem[], done: string | null): Html {
  return officePage(
    s,
    `Desk ${d.id}`,
    'merchants',
    html`<h1>Cash desk <span class="mono">${d.id}</span> ${d.stopReason !== null ? html`<span class="badge bad">Stopped</span>` : ''}</h1>${notice(done)}
<section class="card"><dl class="fields"><dt>Merchant</dt><dd><a href="/office/merchants/${d.merchantId}">${d.merchantId}</a></dd>
<dt>Method</dt><dd>${d.method}${d.rails.length ? html` · ${d.rails.join(', ')}` : ''}</dd><dt>Currencies</dt><dd>${d.currencies.join(', ')}</dd>
<dt>Limits (USD)</dt><dd>${d.minUsd} – ${d.maxUsd}</dd><dt>Enabled by merchant</dt><dd>${d.enabled ? 'yes' : 'no'}</dd>
<dt>Stopped</dt><dd>${d.stopReason !== null ? html`yes — ${d.stopReason}` : 'no'}</dd><dt>Callback URL</dt><dd class="mono">${d.callbackUrl ?? '—'}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${d.stopReason !== null ? action(s.o, `/office/desks/${d.id}/resume`, 'Resume', { kind: 'secondary' }) : reasonAction(s.o, `/office/desks/${d.id}/stop`, 'Stop the desk', 'reason', 'Reason for the stop (shown to the merchant as SHOP_STOPPED)', 'stop-reason')}</div>` : ''}
<p><a href="/office/orders?deskId=${d.id}">Orders of this desk</a></p></section>
${auditSection(audit, d.id)}`,
  );
}

