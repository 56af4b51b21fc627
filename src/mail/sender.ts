import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Ctx } from '../context.js';
import type { SmtpSettings } from '../config.js';
import type { Worker } from '../workers/loop.js';
import { claimDueMails, finishMailFailed, finishMailRetry, finishMailSent, keepDueMails, type MailRow } from '../store/mail.js';
import { MailTemplateError, mailLang, renderMail } from './templates.js';

/**
 * The mail sender: a worker that takes due mails from the outbox and hands them to the mail server
 * of SMTP_URL, never in a request's path. A temporary failure (no connection, a timeout, a `4xx`)
 * is tried again later with a doubling delay; a permanent refusal of the recipient or the message
 * (`5xx` to `RCPT TO` or `DATA`) gives up at once; MAIL_MAX_ATTEMPTS attempts in all. Without
 * SMTP_URL every mail is kept for the back office (`/office/mail`) instead.
 */

/** How often the sender looks for due mails when it found none. */
export const MAIL_PERIOD_MS = 2_000;
/** Mails one pass claims; they are sent side by side, each on its own connection. */
export const MAIL_BATCH = 10;
/** Attempts before a mail is given up: the last one about two hours after the first (MAIL_RETRY_BASE_MS · 2^(n-1)). */
export const MAIL_MAX_ATTEMPTS = 8;
export const MAIL_RETRY_BASE_MS = 60_000;
export const MAIL_RETRY_MAX_MS = 3_600_000;

/** The delay before the next attempt after `attempts` attempts: 1, 2, 4 … minutes, at most an hour. */
export const mailRetryDelayMs = (attempts: number) => Math.min(MAIL_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), MAIL_RETRY_MAX_MS);

export interface MailSenderOptions {
  workerId?: string;
  batchSize?: number;
  /** Reaching the server (DNS and TCP, and TLS for smtps://). */
  connectTimeoutMs?: number;
  /** The server's greeting once connected. */
  greetingTimeoutMs?: number;
  /** Silence on the connection at any later step. */
  socketTimeoutMs?: number;
  /** One whole send, however the server trickles its answers: the connection is dropped then. */
  sendDeadlineMs?: number;
}

const DEFAULTS = { connectTimeoutMs: 10_000, greetingTimeoutMs: 10_000, socketTimeoutMs: 20_000, sendDeadlineMs: 60_000 };
/** A lease outlives the longest send by this much; a lease older than that is a dead sender's. */
const LEASE_MARGIN_MS = 60_000;

type SmtpError = Error & { code?: string; responseCode?: number; command?: string };

/**
 * A `5xx` to the recipient or to the message itself is the receiving side's last word on this mail;
 * so is an address nodemailer refuses before sending. Everything else (no connection, timeouts,
 * `4xx`, a refused login or sender, which an operator can put right) is worth another attempt.
 */
export function isPermanentRefusal(err: SmtpError): boolean {
  if (err.code === 'EENVELOPE' && err.command === 'API') return true;
  const code = err.responseCode ?? 0;
  return code >= 500 && code < 600 && (err.command === 'RCPT TO' || err.command === 'DATA');
}

/** The address part of MAIL_FROM (`Name <address>` or an address). */
export const fromAddress = (mailFrom: string) => (/<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom).trim();

/**
 * An error as it may be stored and shown: one line, at most 500 characters, and never the server's
 * credentials in any spelling (as typed, percent-encoded, or in the base64 of an AUTH exchange).
 */
export function describeSendError(err: unknown, smtp: SmtpSettings | null): string {
  const e = err as SmtpError;
  let text = e?.name === 'AbortError' || e?.name === 'TimeoutError' ? 'the send was cut off (it took too long, or the process was stopping)' : String(e?.message ?? err);
  const secrets = [smtp?.password, smtp?.user].filter((s): s is string => !!s && s.length >= 2);
  for (const s of secrets) {
    for (const spelling of [s, encodeURIComponent(s), Buffer.from(s).toString('base64'), Buffer.from(`\u0000${smtp?.user ?? ''}\u0000${s}`).toString('base64')]) {
      text = text.split(spelling).join('***');
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return (e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text).slice(0, 500);
}

export class MailSender implements Worker {
  readonly name = 'mail';
  readonly id: string;
  private readonly batch: number;
  private readonly opts: typeof DEFAULTS;
  private readonly leaseMs: number;
  private transport: ReturnType<typeof nodemailer.createTransport> | null = null;
  /** Aborted when the process stops: sends still in flight then are cut off and tried again later. */
  private stopping = new AbortController();

  constructor(private readonly ctx: Ctx, o: MailSenderOptions = {}) {
    this.id = o.workerId ?? `ms_${randomBytes(6).toString('hex')}`;
    this.batch = o.batchSize ?? MAIL_BATCH;
    this.opts = { ...DEFAULTS, ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) } as typeof DEFAULTS;
    this.leaseMs = this.opts.sendDeadlineMs + LEASE_MARGIN_MS;
  }

  private transportOf(smtp: SmtpSettings) {
    // One connection per mail (no pool): a connection left by a server that went away cannot hold the next mail.
    this.transport ??= nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
      connectionTimeout: this.opts.connectTimeoutMs,
      greetingTimeout: this.opts.greetingTimeoutMs,
      socketTimeout: this.opts.socketTimeoutMs,
      dnsTimeout: this.opts.connectTimeoutMs,
    });
    return this.transport;
  }

  /** One pass: due mails claimed and sent (or kept, without a mail server). Returns how many were taken. */
  async runOnce(): Promise<number> {
    const smtp = this.ctx.config.smtp;
    const now = this.ctx.clock.now();
    if (!smtp) return keepDueMails(this.ctx.db, new Date(now), this.batch);
    const claimed = await claimDueMails(this.ctx.db, { me: this.id, now: new Date(now), staleBefore: new Date(now - this.leaseMs), limit: this.batch });
    await Promise.all(claimed.map((m) => this.send(m, smtp)));
    return claimed.length;
  }

  private async send(m: MailRow, smtp: SmtpSettings): Promise<void> {
    const db = this.ctx.db;
    let mail;
    try {
      mail = renderMail(m);
    } catch (err) {
      if (!(err instanceof MailTemplateError)) throw err;
      await finishMailFailed(db, this.id, m.id, `cannot be written: ${err.message}`);
      this.ctx.log.error({ mailId: m.id, kind: m.kind, err: err.message }, 'mail given up: its data cannot make the mail');
      return;
    }
    const from = this.ctx.config.mailFrom;
    try {
      await this.transportOf(smtp).sendMail({
        from,
        to: m.to_address,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // The same id on every attempt: a receiver that took an earlier attempt whose answer was lost can tell it is the same mail.
        messageId: `<${m.id}@${fromAddress(from).split('@')[1] ?? 'localhost'}>`,
        headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': mailLang(m.lang) },
        signal: AbortSignal.any([AbortSignal.timeout(this.opts.sendDeadlineMs), this.stopping.signal]),
      });
    } catch (err) {
      const error = describeSendError(err, smtp);
      const permanent = isPermanentRefusal(err as SmtpError);
      if (permanent || m.attempts >= MAIL_MAX_ATTEMPTS) {
        await finishMailFailed(db, this.id, m.id, error);
        this.ctx.log.warn({ mailId: m.id, kind: m.kind, attempt: m.attempts, error }, permanent ? 'mail refused by the mail server' : 'mail given up after its attempts');
      } else {
        await finishMailRetry(db, this.id, m.id, new Date(this.ctx.clock.now() + mailRetryDelayMs(m.attempts)), error);
        this.ctx.log.warn({ mailId: m.id, kind: m.kind, attempt: m.attempts, error }, 'mail not sent; will try again');
      }
      return;
    }
    await finishMailSent(db, this.id, m.id, new Date(this.ctx.clock.now()));
  }

  /**
   * Cuts off the sends in flight (the process is stopping): each is recorded as a temporary failure
   * and tried again by a later pass, with the same Message-ID in case the server took it.
   */
  abortSends(): void {
    this.stopping.abort();
    this.stopping = new AbortController();
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
