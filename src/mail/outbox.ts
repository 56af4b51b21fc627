import { newId } from '../ids.js';
import { listMerchantUsers } from '../store/accounts.js';
import type { Queryable } from '../store/db.js';

/**
 * The mails Paygate sends, each with the fields its template needs. Amounts are decimal strings,
 * times ISO 8601 strings, links absolute URLs.
 */
export type MailContent =
  | { kind: 'invitation'; data: { merchantName: string; role: string; link: string; expiresAt: string } }
  | { kind: 'password-reset'; data: { surface: 'cabinet' | 'office'; link: string; expiresAt: string } }
  | { kind: 'application-approved'; data: { merchantName: string; cabinetUrl: string } }
  | { kind: 'application-rejected'; data: { merchantName: string; reason: string; cabinetUrl: string } }
  | {
      kind: 'withdrawal-requested' | 'withdrawal-paid' | 'withdrawal-rejected';
      data: { merchantName: string; requestId: string; amountUsd: string; destination: string; reference?: string; reason?: string; cabinetUrl: string };
    }
  | { kind: 'webhook-disabled'; data: { merchantName: string; url: string; reason: string; cabinetUrl: string } }
  | { kind: 'alert'; data: { event: 'raised' | 'resolved'; alertKind: AlertMailKind; subject: string; summary: string; at: string; link: string } };

/** The kinds of alert (src/alerts), named in the alert mail in the reader's language. */
export type AlertMailKind = 'unmatched-credits' | 'statement' | 'circuit-open' | 'requisite-limit' | 'device-silent' | 'unread-messages';

export type MailKind = MailContent['kind'];

/** A mail to queue: its recipient, their language (a payment-page language code; English when unknown) and its content. */
export type MailRequest = MailContent & { to: string; lang?: string };

/**
 * Queues a mail in the caller's transaction: it leaves only if what it tells commits, and the
 * sender (a worker) sends it afterwards with retries. Returns the mail's id.
 */
export async function queueMail(q: Queryable, at: Date, mail: MailRequest): Promise<string> {
  const id = newId('mail');
  await q.query(
    `INSERT INTO mail_outbox (id, to_address, lang, kind, data, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [id, mail.to, mail.lang ?? 'en', mail.kind, JSON.stringify(mail.data), at],
  );
  return id;
}

/** Queues the mail once for each owner of the merchant, each in their own language, in the caller's transaction. */
export async function queueMailToOwners(q: Queryable, at: Date, merchantId: string, content: MailContent): Promise<void> {
  for (const u of await listMerchantUsers(q, merchantId)) if (u.role === 'owner') await queueMail(q, at, { ...content, to: u.email, lang: u.lang });
}
