import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoSeconds } from '../domain/time.js';
import { MailTemplateError, renderMail } from '../mail/templates.js';
import { getMail, listMails, type MailRow, type MailStatus } from '../store/mail.js';
import { pageOf, type Page } from './paging.js';

/**
 * The mails as the back office shows them to admins (`/office/mail`): every mail with where it
 * stands, newest first; and a kept mail's text and HTML, so an install without a mail server
 * still hands out its invitations and reset links. A mail that went to a mail server (or will)
 * shows its envelope only: its link belongs to its recipient.
 */

export interface MailLine {
  id: string;
  to: string;
  kind: string;
  lang: string;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  /** When a queued mail is tried next; null once it is done. */
  nextAttemptAt: string | null;
  /** As the recipient reads it; null when the mail's data cannot make the mail. */
  subject: string | null;
}

export interface MailContent {
  text: string;
  html: string;
  /** The mail's one link (an invitation, a reset, the cabinet). */
  link: string | null;
}

function rendered(row: MailRow) {
  try {
    return renderMail(row);
  } catch (err) {
    if (err instanceof MailTemplateError) return null;
    throw err;
  }
}

function lineOf(row: MailRow, subject: string | null): MailLine {
  return {
    id: row.id,
    to: row.to_address,
    kind: row.kind,
    lang: row.lang,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: isoSeconds(row.created_at),
    sentAt: row.sent_at ? isoSeconds(row.sent_at) : null,
    nextAttemptAt: row.status === 'queued' ? isoSeconds(row.next_attempt_at) : null,
    subject,
  };
}

/** Mails newest first, `limit` a page, the next page from the mail `before` (`next` of this page). */
export async function listMailLines(ctx: Ctx, o: { before?: string; limit: number }): Promise<Page<MailLine>> {
  if (o.before !== undefined && !/^mail_[0-9a-z]{26}$/.test(o.before)) throw new AppError('VALIDATION_ERROR', 'before: must be a mail id');
  const rows = await listMails(ctx.db, { beforeId: o.before ?? null, limit: o.limit + 1 });
  return pageOf(rows, o.limit, (r) => lineOf(r, rendered(r)?.subject ?? null), (r) => r.id);
}

/** One mail, with its text and HTML while it is kept; null for an unknown id. */
export async function mailDetail(ctx: Ctx, id: string): Promise<{ line: MailLine; content: MailContent | null } | null> {
  if (!/^mail_[0-9a-z]{26}$/.test(id)) return null;
  const row = await getMail(ctx.db, id);
  if (!row) return null;
  const r = rendered(row);
  const link = typeof row.data.link === 'string' ? row.data.link : typeof row.data.cabinetUrl === 'string' ? row.data.cabinetUrl : null;
  return { line: lineOf(row, r?.subject ?? null), content: row.status === 'kept' && r ? { text: r.text, html: r.html, link } : null };
}
