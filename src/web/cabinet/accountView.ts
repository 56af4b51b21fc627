import { html, type Html, type Interpolation } from '../html.js';
import { cabinetPage, csrfInput, listTable, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** The account page: password and the sessions signed in. */

export interface SessionLine {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

export function accountPage(c: CabinetRequest, sessions: readonly SessionLine[], notice: string | null, error: string | null, more: Interpolation = null): Html {
  return cabinetPage(
    c,
    'Account',
    'account',
    html`<h1>Account</h1>
${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<div class="grid two">
<form class="card stack" method="post" action="/cabinet/account/password">${csrfInput(c.csrf)}
<h2>Change password</h2>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<input type="text" name="username" autocomplete="username" value="${c.user.email}" hidden>
<label>Current password <input type="password" name="currentPassword" autocomplete="current-password" required></label>
<label>New password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="newPassword" autocomplete="new-password" required minlength="10" maxlength="200"></label>
<div><button type="submit">Change password</button></div>
<p class="hint">Changing it signs you out everywhere else.</p>
</form>
${more}
</div>
<section class="card" aria-labelledby="sess-h"><h2 id="sess-h">Where you are signed in</h2>
${listTable<SessionLine>('Your sessions', [
  { label: 'Browser', cell: (s) => html`${s.userAgent ?? 'unknown'}${s.current ? html` <span class="badge ok">this browser</span>` : ''}` },
  { label: 'Address', cell: (s) => s.ip ?? '—', className: 'mono' },
  { label: 'Last seen (UTC)', cell: (s) => utc(s.lastSeenAt) },
  { label: 'Action', cell: (s) => (s.current ? '' : html`<form class="inline" method="post" action="/cabinet/account/sessions/${s.id}/revoke">${csrfInput(c.csrf)}<button type="submit" class="secondary">Sign out</button></form>`) },
], sessions)}</section>`,
  );
}
