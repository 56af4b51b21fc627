import { createHash, randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { passwordProblem } from '../domain/passwords.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { queueMail } from '../mail/outbox.js';
import { findOperatorByEmail, findUserByEmail, getUser, setOperatorPassword, setUserPassword } from '../store/accounts.js';
import { insertAuditEntry } from '../store/audit.js';
import { getOperator } from '../store/office.js';
import { findOpenPasswordReset, insertPasswordReset, usePasswordReset, voidPasswordReset } from '../store/passwordResets.js';
import { revokeAccountSessions, type Surface } from '../store/sessions.js';
import { accountCheckKey } from './accounts.js';
import { hashPassword } from './passwords.js';
import { twoFactorStatus, verifySecondFactor } from './twoFactor.js';
import { CHALLENGE_ATTEMPTS } from './rateLimits.js';

/**
 * Forgotten passwords, in the cabinet and the back office (web spec, "A money-right first day"):
 * a request mails a single-use link valid 30 minutes to the account's address, and answers the
 * same whether the address has an account or not; the link sets a new password (in the back office
 * with the two-factor code too, when the operator has it on) and signs out every session.
 */

/** A link is good for 30 minutes (web spec), and once. */
export const PASSWORD_RESET_TTL_MS = 30 * 60_000;

/** 32 random bytes, URL-safe; a malformed token is not looked up at all. */
const TOKEN = /^rst_[A-Za-z0-9_-]{43}$/;
/** Only this is stored: the token itself travels in the mail alone. */
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

/** The account a reset is for, on either surface: a cabinet user, or an operator who may sign in (not disabled). */
interface ResetAccount {
  id: string;
  email: string;
  lang: string;
}

async function accountById(ctx: Ctx, surface: Surface, id: string): Promise<ResetAccount | null> {
  return surface === 'cabinet' ? getUser(ctx.db, id) : getOperator(ctx.db, id);
}

async function accountByEmail(ctx: Ctx, surface: Surface, email: string): Promise<ResetAccount | null> {
  if (surface === 'cabinet') return findUserByEmail(ctx.db, email);
  const o = await findOperatorByEmail(ctx.db, email);
  // A disabled operator gets no link: the same answer, and nothing mailed.
  return o ? getOperator(ctx.db, o.id) : null;
}

const auditObject = (surface: Surface) => (surface === 'cabinet' ? 'user' : 'operator');
const addressKey = (surface: Surface, email: string) => `${surface}:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;

/**
 * "Forgot password?": mails a reset link when the address has an account on the surface, and does
 * nothing otherwise, the caller answering the same either way. At most PASSWORD_RESET_ADDRESS_LIMIT
 * links per address an hour, counted whether the address has an account or not; beyond it nothing
 * is mailed, still with the same answer. The link, its mail and the audit entry commit together.
 */
export async function requestPasswordReset(ctx: Ctx, surface: Surface, input: { email: string; client: string | null }): Promise<void> {
  const email = input.email.trim();
  if (!EMAIL.test(email)) throw new AppError('VALIDATION_ERROR', 'email: must be an email address');
  if (!(await ctx.limits.passwordResetAddress.take(addressKey(surface, email))).ok) return;
  const account = await accountByEmail(ctx, surface, email);
  if (!account) return;
  const token = `rst_${randomBytes(32).toString('base64url')}`;
  const at = new Date(ctx.clock.now());
  const expiresAt = new Date(at.getTime() + PASSWORD_RESET_TTL_MS);
  const link = `${ctx.config.publicBaseUrl}/${surface}/password-reset/${token}`;
  await ctx.db.tx(async (q) => {
    const id = newId('rst');
    await insertPasswordReset(q, { id, surface, accountId: account.id, tokenHash: tokenHash(token), at, expiresAt });
    const mailId = await queueMail(q, at, { to: account.email, lang: account.lang, kind: 'password-reset', data: { surface, link, expiresAt: isoSeconds(expiresAt) } });
    await insertAuditEntry(q, {
      at,
      actor: account.id,
      action: `${auditObject(surface)}.password-reset-requested`,
      objectId: account.id,
      outcome: 'ok',
      detail: `reset link ${id} mailed (${mailId})${input.client ? `; asked from ${input.client}` : ''}`,
    });
  });
}

export interface OpenReset {
  email: string;
  /** The new password also needs a two-factor code (back office, two-factor on). */
  needsCode: boolean;
}

/** What the reset page shows for a link: the account's email, and whether a code is asked; null for a used, lapsed or unknown link. */
export async function openPasswordReset(ctx: Ctx, surface: Surface, token: string): Promise<OpenReset | null> {
  if (!TOKEN.test(token)) return null;
  const reset = await findOpenPasswordReset(ctx.db, surface, tokenHash(token), new Date(ctx.clock.now()));
  const account = reset ? await accountById(ctx, surface, reset.account_id) : null;
  if (!account) return null;
  return { email: account.email, needsCode: surface === 'office' && (await twoFactorStatus(ctx, 'office', account.id)).enabled };
}

export type ResetOutcome =
  | { ok: true; accountId: string; endedSessions: number }
  /** Used, lapsed, unknown, or its account gone or disabled: nothing changed. */
  | { ok: false; reason: 'gone' }
  /** The link took CHALLENGE_ATTEMPTS wrong codes: it is void now. */
  | { ok: false; reason: 'void' }
  | { ok: false; reason: 'password' | 'code'; message: string }
  /** Too many wrong passwords or codes on the account (ACCOUNT_LOCK): nothing was checked. */
  | { ok: false; reason: 'locked'; retryAfterMs: number };

/**
 * Sets the new password through a link: the link used, the password set, every session of the
 * account ended and the audit entry written in one transaction (of two uses at once, one wins).
 * In the back office an operator with two-factor on gives a current code too, counted like the
 * codes of sign-in (per account, ACCOUNT_LOCK; per link, CHALLENGE_ATTEMPTS). The account's
 * failed-check count is cleared: whoever holds the mailbox (and the code) is its owner.
 */
export async function completePasswordReset(ctx: Ctx, surface: Surface, token: string, input: { password: string; code?: string }): Promise<ResetOutcome> {
  if (!TOKEN.test(token)) return { ok: false, reason: 'gone' };
  const hash = tokenHash(token);
  const now = ctx.clock.now();
  const reset = await findOpenPasswordReset(ctx.db, surface, hash, new Date(now));
  const account = reset ? await accountById(ctx, surface, reset.account_id) : null;
  if (!reset || !account) return { ok: false, reason: 'gone' };
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, reason: 'password', message: `The new password ${problem}.` };
  const checkKey = accountCheckKey(surface, account.id);
  if (surface === 'office' && (await twoFactorStatus(ctx, 'office', account.id)).enabled) {
    const code = (input.code ?? '').trim();
    if (code === '') return { ok: false, reason: 'code', message: 'Enter the code from your authenticator app, or a recovery code.' };
    const ttl = reset.expires_at.getTime() - now + 1000;
    if (!(await ctx.limits.challengeAttempts.take(`office:reset:${reset.id}`, now, ttl)).ok) {
      await voidPasswordReset(ctx.db, reset.id, new Date(now));
      return { ok: false, reason: 'void' };
    }
    const admission = await ctx.limits.accountChecks.attempt(checkKey, now);
    if (!admission.ok) return { ok: false, reason: 'locked', retryAfterMs: admission.retryAfterMs };
    if (!(await verifySecondFactor(ctx, 'office', account.id, code))) {
      return { ok: false, reason: 'code', message: `That code is not valid. Try the current one (${CHALLENGE_ATTEMPTS} tries per link).` };
    }
  }
  const passwordHash = await hashPassword(input.password, ctx.config.passwordScryptLog2N);
  const at = new Date(ctx.clock.now());
  const ended = await ctx.db.tx(async (q) => {
    const used = await usePasswordReset(q, surface, hash, at);
    if (!used) return null;
    await (surface === 'cabinet' ? setUserPassword(q, account.id, passwordHash) : setOperatorPassword(q, account.id, passwordHash));
    const n = await revokeAccountSessions(q, surface, account.id, at);
    await insertAuditEntry(q, {
      at,
      actor: account.id,
      action: `${auditObject(surface)}.password-reset`,
      objectId: account.id,
      outcome: 'ok',
      detail: `new password set through reset link ${used.id}; ${n} session${n === 1 ? '' : 's'} signed out`,
    });
    return n;
  });
  if (ended === null) return { ok: false, reason: 'gone' };
  await ctx.limits.accountChecks.clear(checkKey);
  return { ok: true, accountId: account.id, endedSessions: ended };
}
