import { html, type Html } from '../../html.js';
import type { OfficeRequest } from '../session.js';
import { action, csrfInput, ident, isAdmin, notice, officePage, table, utc, type Shell } from '../ui.js';

/** The back office's operators: who they are, their role, whether they may sign in; new operators. */

export interface OperatorItem {
  id: string;
  email: string;
  role: string;
  disabled: boolean;
  createdAt: string;
}

export interface OperatorFormValues {
  email: string;
  role: string;
}

function roleForm(o: OfficeRequest, op: OperatorItem): Html {
  const other = op.role === 'admin' ? 'support' : 'admin';
  return action(o, `/office/operators/${op.id}/role`, `Make ${other}`, { kind: 'secondary', fields: html`<input type="hidden" name="role" value="${other}">` });
}

function accessForm(o: OfficeRequest, op: OperatorItem): Html {
  return op.disabled
    ? action(o, `/office/operators/${op.id}/access`, 'Enable', { kind: 'secondary', fields: html`<input type="hidden" name="disabled" value="false">` })
    : action(o, `/office/operators/${op.id}/access`, 'Disable', { kind: 'danger', fields: html`<input type="hidden" name="disabled" value="true">` });
}

export function operatorsPage(s: Shell, list: readonly OperatorItem[], o: { done: string | null; form?: OperatorFormValues; error?: string | null }): Html {
  const admin = isAdmin(s.o);
  const me = s.o.operator.id;
  const v = o.form ?? { email: '', role: 'support' };
  return officePage(
    s,
    'Operators',
    'operators',
    html`<h1>Operators</h1>${notice(o.done)}
<p class="muted"><strong>admin</strong>: everything; <strong>support</strong>: reads, appeals and resending callbacks. A disabled operator cannot sign in, and their sessions end at once.</p>
<p class="list-tools"><a class="button secondary" href="/office/operators.csv" download>Export CSV</a></p>
${table(
  'Operators',
  ['Email', 'Id', 'Role', 'Access', 'Created', ...(admin ? [{ label: '', kind: 'action' as const }] : [])],
  list.map((op) => [
    html`<span id="${op.id}">${op.email}</span>${op.id === me ? html` <span class="badge">you</span>` : ''}`,
    ident(op.id, 'operator id'),
    op.role,
    op.disabled ? html`<span class="badge bad">disabled</span>` : html`<span class="badge ok">active</span>`,
    utc(op.createdAt),
    ...(admin ? [op.id === me ? html`<span class="muted">your own account</span>` : html`<div class="actions">${roleForm(s.o, op)}${accessForm(s.o, op)}</div>`] : []),
  ]),
  'No operators.',
)}
${admin
  ? html`<section class="card" aria-labelledby="new-operator-h"><h2 id="new-operator-h">New operator</h2>
${o.error ? html`<p class="notice bad" role="alert" id="operator-error">${o.error}</p>` : ''}
<form class="stack" method="post" action="/office/operators" id="new-operator">${csrfInput(s.o.csrf)}
<label for="op-email">Email</label><input type="email" id="op-email" name="email" required maxlength="320" autocomplete="off" value="${v.email}">
<label for="op-password">Password (at least 10 characters, not a common one)</label><input type="password" id="op-password" name="password" required maxlength="200" autocomplete="new-password">
<label for="op-role">Role</label><select id="op-role" name="role"><option value="support"${v.role !== 'admin' ? html` selected` : ''}>support</option><option value="admin"${v.role === 'admin' ? html` selected` : ''}>admin</option></select>
<button type="submit">Create the operator</button></form></section>`
  : ''}`,
  );
}
