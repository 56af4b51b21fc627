import type { MailContent, MailLine } from '../../../services/mail.js';
import { html, type Html } from '../../html.js';
import { href, ident, officePage, table, utc, type Shell } from '../ui.js';

/** The mails Paygate has sent, is sending, gave up or kept (admins only): the list, and one mail. */

const KIND_TEXT: Record<string, string> = {
  invitation: 'Team invitation',
  'password-reset': 'Password reset',
  'application-approved': 'Application approved',
  'application-rejected': 'Application rejected',
  'withdrawal-requested': 'Withdrawal requested',
  'withdrawal-paid': 'Withdrawal paid',
  'withdrawal-rejected': 'Withdrawal rejected',
};
const kindText = (k: string) => KIND_TEXT[k] ?? k;

const STATUS: Record<MailLine['status'], { tone: string; text: string }> = {
  sent: { tone: 'ok', text: 'sent' },
  queued: { tone: 'warn', text: 'queued' },
  failed: { tone: 'bad', text: 'failed' },
  kept: { tone: '', text: 'kept' },
};
function statusBadge(m: MailLine): Html {
  const s = STATUS[m.status];
  return html`<span class="badge${s.tone ? ` ${s.tone}` : ''}">${s.text}</span>`;
}

/** Where a mail stands, in a sentence: when it went, when it is tried next, why it was given up. */
function progress(m: MailLine): Html {
  if (m.status === 'sent') return html`${statusBadge(m)} ${utc(m.sentAt)}`;
  if (m.status === 'kept') return html`${statusBadge(m)} <span class="muted">no mail server</span>`;
  const tries = m.attempts === 1 ? '1 attempt' : `${m.attempts} attempts`;
  if (m.status === 'failed') return html`${statusBadge(m)} <span class="muted">after ${tries}</span>`;
  return m.attempts === 0 ? statusBadge(m) : html`${statusBadge(m)} <span class="muted">${tries}; next</span> ${utc(m.nextAttemptAt)}`;
}

export function mailListPage(s: Shell, page: { items: MailLine[]; hasMore: boolean; next: string | null }, server: string | null): Html {
  return officePage(
    s,
    'Mail',
    'mail',
    html`<h1>Mail</h1>
${server
  ? html`<p class="muted">Mails leave through the mail server at <code>${server}</code>, each retried with a growing delay when the server cannot take it, and given up at once when it refuses the recipient. Newest first.</p>`
  : html`<p class="notice warn" id="no-mail-server">No mail server is set up (<code>SMTP_URL</code>), so no mail leaves: every mail is kept here instead. Open one to read it and follow its link.</p>`}
${table(
  'Mails',
  ['Created', 'To', 'Mail', { label: 'Status', kind: 'wrap' }, { label: 'Last error', kind: 'wrap' }],
  page.items.map((m) => [
    utc(m.createdAt),
    html`<span class="wrap-any">${m.to}</span>`,
    html`<a href="/office/mail/${m.id}"${m.subject ? html` lang="${m.lang}"` : ''}>${m.subject ?? kindText(m.kind)}</a><br><span class="muted">${kindText(m.kind)} · ${m.lang}</span>`,
    progress(m),
    m.lastError ?? html`<span class="muted">—</span>`,
  ]),
  'No mail yet.',
  { id: 'mail-list' },
)}
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/mail', { before: page.next })}">Older mails</a></p>` : ''}`,
  );
}

export function mailPage(s: Shell, m: MailLine, content: MailContent | null): Html {
  return officePage(
    s,
    m.subject ?? 'Mail',
    'mail',
    html`<p><a href="/office/mail">All mail</a></p>
<h1${m.subject ? html` lang="${m.lang}"` : ''}>${m.subject ?? kindText(m.kind)}</h1>
<section class="card"><dl class="fields">
<dt>Id</dt><dd>${ident(m.id, 'mail id')}</dd>
<dt>To</dt><dd>${m.to}</dd>
<dt>Mail</dt><dd>${kindText(m.kind)}, in <span lang="${m.lang}">${m.lang}</span></dd>
<dt>Created</dt><dd>${utc(m.createdAt)}</dd>
<dt>Status</dt><dd>${progress(m)}</dd>
${m.lastError ? html`<dt>Last error</dt><dd>${m.lastError}</dd>` : ''}
</dl></section>
${content
  ? html`${content.link ? html`<section class="card" aria-labelledby="link-h"><h2 id="link-h">Its link</h2><p><a href="${content.link}" id="mail-link" class="wrap-any">${content.link}</a></p>
<p class="muted">Only the recipient should open it: it works as the mail would.</p></section>` : ''}
<section class="card" aria-labelledby="text-h"><h2 id="text-h">Text</h2><pre class="mail-text" id="mail-text" lang="${m.lang}">${content.text}</pre></section>
<section class="card" aria-labelledby="html-h"><h2 id="html-h">HTML</h2>
<p><a href="/office/mail/${m.id}/html" id="mail-html-link">Open the HTML version</a> <span class="muted">as a separate page, without scripts</span></p>
<details><summary>HTML source</summary><pre class="mail-text" id="mail-html">${content.html}</pre></details></section>`
  : html`<p class="notice ok" id="mail-not-kept">This mail ${m.status === 'queued' ? 'goes' : 'went'} to the mail server: its text is its recipient's, so only mails kept without a mail server are shown in full.</p>`}`,
  );
}
