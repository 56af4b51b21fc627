import type { Queryable } from './db.js';

/**
 * The mail outbox (migrations 0024, 0025): the sender claims due mails with a lease and finishes
 * them only while it holds the lease; the back office reads them newest first. Mails are queued
 * by `queueMail` (src/mail/outbox.ts) in the transaction of what they tell.
 */

export type MailStatus = 'queued' | 'sent' | 'failed' | 'kept';

export interface MailRow {
  id: string;
  to_address: string;
  lang: string;
  kind: string;
  data: Record<string, unknown>;
  status: MailStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
  locked_by: string | null;
  locked_at: Date | null;
}

/**
 * Claims due mails for one sender in one statement: SKIP LOCKED, so two senders never take the same
 * row; a lease older than `staleBefore` belongs to a sender that stopped during the send and is
 * taken over. Each claim counts as an attempt, so a send cut short by a crash counts too.
 */
export async function claimDueMails(q: Queryable, c: { me: string; now: Date; staleBefore: Date; limit: number }): Promise<MailRow[]> {
  const { rows } = await q.query<MailRow>(
    `WITH due AS (
       SELECT id FROM mail_outbox
        WHERE status = 'queued' AND next_attempt_at <= $2 AND (locked_by IS NULL OR locked_at < $3)
        ORDER BY next_attempt_at, id LIMIT $4
        FOR UPDATE SKIP LOCKED)
     UPDATE mail_outbox m SET locked_by = $1, locked_at = $2, attempts = m.attempts + 1
       FROM due WHERE m.id = due.id
     RETURNING m.*`,
    [c.me, c.now, c.staleBefore, c.limit],
  );
  return rows;
}

/**
 * Without a mail server: due mails become `kept` (shown to admins in the back office), oldest
 * first, up to `limit` at a time. Returns how many.
 */
export async function keepDueMails(q: Queryable, now: Date, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE mail_outbox SET status = 'kept', locked_by = NULL, locked_at = NULL
      WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'queued' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [now, limit],
  );
  return rowCount;
}

/**
 * What a mail's link carried once it has gone to a mail server (or been given up): the token is
 * the recipient's alone, and a kept copy in the database would open the account as well as the
 * mail does. The link's address without its last part (the token) is kept, to say where it led.
 */
const REDACT_LINK = `CASE WHEN data ? 'link' AND jsonb_typeof(data->'link') = 'string'
  THEN jsonb_set(data, '{link}', to_jsonb(regexp_replace(data->>'link', '/[^/]*$', '/…')))
  ELSE data END`;

/** The mail went out: only while this sender still holds it. */
export async function finishMailSent(q: Queryable, me: string, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE mail_outbox SET status = 'sent', sent_at = $3, last_error = NULL, locked_by = NULL, locked_at = NULL, data = ${REDACT_LINK}
      WHERE id = $2 AND locked_by = $1 AND status = 'queued'`,
    [me, id, at],
  );
  return rowCount === 1;
}

/** A temporary failure: tried again at `nextAt`. */
export async function finishMailRetry(q: Queryable, me: string, id: string, nextAt: Date, error: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE mail_outbox SET next_attempt_at = $3, last_error = $4, locked_by = NULL, locked_at = NULL
      WHERE id = $2 AND locked_by = $1 AND status = 'queued'`,
    [me, id, nextAt, error],
  );
  return rowCount === 1;
}

/** Given up: refused for good, or out of attempts. */
export async function finishMailFailed(q: Queryable, me: string, id: string, error: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE mail_outbox SET status = 'failed', last_error = $3, locked_by = NULL, locked_at = NULL, data = ${REDACT_LINK}
      WHERE id = $2 AND locked_by = $1 AND status = 'queued'`,
    [me, id, error],
  );
  return rowCount === 1;
}

/** Mails newest first, keyset-paged: those created before the mail `beforeId`. */
export async function listMails(q: Queryable, f: { beforeId: string | null; limit: number }): Promise<MailRow[]> {
  const { rows } = await q.query<MailRow>(
    `SELECT * FROM mail_outbox m
      WHERE ($1::text IS NULL OR (m.created_at, m.id) < (SELECT c.created_at, c.id FROM mail_outbox c WHERE c.id = $1))
      ORDER BY m.created_at DESC, m.id DESC LIMIT $2`,
    [f.beforeId, f.limit],
  );
  return rows;
}

export async function getMail(q: Queryable, id: string): Promise<MailRow | null> {
  const { rows } = await q.query<MailRow>('SELECT * FROM mail_outbox WHERE id = $1', [id]);
  return rows[0] ?? null;
}
