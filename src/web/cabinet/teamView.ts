import { ROLES, type InvitationMail, type MemberView } from '../../services/team.js';
import { html, type Html } from '../html.js';
import { cabinetPage, copyable, csrfInput, listTable, mayManageTeam, publicPage, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/** The team page (members, roles, invitations) and the invitation page where an invitee sets a password. */

const ROLE_TEXT: Record<string, string> = {
  owner: 'everything, the team and withdrawals included',
  developer: 'desks, secrets, callbacks, orders and links; not the team nor withdrawals',
  viewer: 'reads only',
};

export interface InvitationLine {
  email: string;
  role: string;
  createdAt: string;
  expiresAt: string;
  mail: InvitationMail;
}

/** Where an invitation's mail stands, said as it is: "mailed" only once the mail server took it. */
const MAIL_TEXT: Record<InvitationMail, { tone: 'ok' | 'warn' | 'bad' | ''; text: string }> = {
  sent: { tone: 'ok', text: 'Mailed' },
  queued: { tone: 'warn', text: 'Mailing' },
  failed: { tone: 'bad', text: 'Mail failed' },
  kept: { tone: '', text: 'Not mailed' },
  none: { tone: '', text: 'Not mailed' },
};
const mailBadge = (m: InvitationMail) => html`<span class="badge${MAIL_TEXT[m].tone ? ` ${MAIL_TEXT[m].tone}` : ''}">${MAIL_TEXT[m].text}</span>`;

export interface InviteFormValues {
  email: string;
  role: string;
}
export const EMPTY_INVITE_FORM: InviteFormValues = { email: '', role: 'developer' };

const roleOptions = (selected: string) => ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`);

/** An owner's actions on a member; the last owner gets none, since the team always keeps one. */
function memberActions(c: CabinetRequest, m: MemberView, owners: number): Html | '' {
  if (!mayManageTeam(c)) return '';
  if (m.role === 'owner' && owners <= 1) return html`<span class="hint">The last owner</span>`;
  const you = m.id === c.user.id;
  return html`<form class="inline" method="post" action="/cabinet/team/${m.id}/role">${csrfInput(c.csrf)}
<label class="inline-label"><span class="skip">Role of ${m.email}</span><select name="role">${roleOptions(m.role)}</select></label>
<button type="submit" class="secondary">Change role</button></form>
<form class="inline" method="post" action="/cabinet/team/${m.id}/remove">${csrfInput(c.csrf)}<button type="submit" class="danger">${you ? 'Leave the team' : 'Remove'}<span class="skip"> ${m.email}</span></button></form>`;
}

export function teamPage(
  c: CabinetRequest,
  o: {
    members: readonly MemberView[];
    invitations: readonly InvitationLine[];
    form: InviteFormValues;
    error: string | null;
    notice: { kind: 'ok' | 'bad'; text: string } | null;
    invited: { url: string; email: string; role: string; expiresAt: string } | null;
    /** A mail server is set up: invitations leave by mail. */
    mailing: boolean;
  },
): Html {
  const owner = mayManageTeam(c);
  const owners = o.members.filter((m) => m.role === 'owner').length;
  return cabinetPage(
    c,
    'Team',
    'team',
    html`<h1>Team</h1>
${o.notice ? html`<p class="notice ${o.notice.kind}" role="${o.notice.kind === 'ok' ? 'status' : 'alert'}">${o.notice.text}</p>` : ''}
${o.invited
  ? html`<section class="card" aria-labelledby="inv-h" id="invitation"><h2 id="inv-h">Invitation for ${o.invited.email}</h2>
${o.mailing
  ? html`<p class="notice ok" role="status">A mail with this link is on its way to ${o.invited.email}. The team page below says once it has gone out.</p>
<p class="notice warn">The link is shown here this once: copy it if you want to hand it over another way. It works once, until ${utc(o.invited.expiresAt)}.</p>`
  : html`<p class="notice warn">No mail server is set up here, so no mail leaves: copy this link now and send it to ${o.invited.email} yourself. It is shown this once, and works once, until ${utc(o.invited.expiresAt)}.</p>`}
<p>${copyable(o.invited.url, 'invitation link', { id: 'invitation-link', secret: true })}</p>
<p class="hint">Whoever opens it sets a password and joins as ${o.invited.role} (${ROLE_TEXT[o.invited.role]}).</p></section>`
  : ''}
<section class="card" aria-labelledby="members-h"><h2 id="members-h">Members</h2>
${listTable<MemberView>('Members of the team', [
  { label: 'Email', cell: (m) => html`${m.email}${m.id === c.user.id ? html` <span class="badge ok">you</span>` : ''}` },
  { label: 'Role', cell: (m) => html`<span class="badge">${m.role}</span> <span class="hint">${ROLE_TEXT[m.role]}</span>` },
  { label: 'Joined (UTC)', cell: (m) => utc(m.createdAt) },
  ...(owner ? [{ label: 'Actions', cell: (m: MemberView) => memberActions(c, m, owners) }] : []),
], o.members)}
${owner ? html`<p class="hint">The team always keeps one owner: the last one can be neither removed nor given another role.</p>` : html`<p class="hint">Only an owner changes the team.</p>`}
</section>
${o.invitations.length > 0
  ? html`<section class="card" aria-labelledby="open-h"><h2 id="open-h">Invitations not yet used</h2>
${listTable<InvitationLine>('Open invitations', [
  { label: 'Email', cell: (i) => i.email },
  { label: 'Role', cell: (i) => i.role },
  { label: 'Invited (UTC)', cell: (i) => utc(i.createdAt) },
  { label: 'Lapses (UTC)', cell: (i) => utc(i.expiresAt) },
  { label: 'Mail', cell: (i) => mailBadge(i.mail) },
], o.invitations)}
<p class="hint">${o.mailing
  ? 'Mailed: the mail server took the mail. A mail that failed is not tried again: invite the person again, or send them the link another way.'
  : 'No mail server is set up here, so invitations are not mailed: send each link yourself when you create it.'}</p></section>`
  : ''}
${owner
  ? html`<form class="card stack" method="post" action="/cabinet/team" id="invite"${o.error ? html` aria-describedby="invite-error"` : ''}>${csrfInput(c.csrf)}
<h2>Invite someone</h2>
${o.error ? html`<p class="notice bad" role="alert" id="invite-error"><strong>Nobody was invited.</strong> ${o.error}</p>` : ''}
<label>Email <input type="email" name="email" required maxlength="320" autocomplete="off" value="${o.form.email}"></label>
<label>Role <select name="role">${roleOptions(o.form.role)}</select></label>
<ul class="plain hint">${ROLES.map((r) => html`<li><strong>${r}</strong>: ${ROLE_TEXT[r]}</li>`)}</ul>
<div><button type="submit">${o.mailing ? 'Send the invitation' : 'Create invitation link'}</button></div>
</form>`
  : ''}`,
  );
}

/** The invitation page: who is invited to which account, and the password form. */
export function invitationPage(o: { csrf: string; token: string; email: string; role: string; merchantName: string; error: string | null }): Html {
  return publicPage(
    'Join the team',
    html`<h1>Join ${o.merchantName} on Paygate</h1>
<p>You are invited as <strong>${o.role}</strong> (${ROLE_TEXT[o.role]}). Choose a password to sign in with ${o.email}.</p>
${o.error ? html`<p class="notice bad" role="alert" id="invite-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/cabinet/invite/${o.token}">${csrfInput(o.csrf)}
<input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
<label>Password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"${o.error ? html` aria-describedby="invite-error"` : ''}></label>
<button type="submit">Join and sign in</button>
</form>`,
  );
}
