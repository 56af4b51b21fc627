import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { passwordProblem } from '../domain/passwords.js';
import { newId } from '../ids.js';
import { mailLang } from '../mail/templates.js';
import { getUser, insertUser, setUserPassword, type UserRow } from '../store/accounts.js';
import { getDesk, type DeskRow } from '../store/desks.js';
import { getMerchant, insertMerchant, merchantProgress, type MerchantRow } from '../store/merchants.js';
import { hashPassword } from './passwords.js';
import { endOtherSessions, type SessionInfo } from './sessions.js';
import { checkAccountPassword, checkSignIn } from './accounts.js';
import { liveCoverageWarnings } from './operator.js';
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  answerChallenge,
  issueChallenge,
  pendingEnrolment,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from './twoFactor.js';

/**
 * What the merchant cabinet needs beyond the shared services: self sign-up, the signed-in user's
 * merchant, and a desk seen from its merchant (another merchant's desk does not exist, D4).
 */

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

export interface SignUp {
  company: string;
  email: string;
  password: string;
  /** The language of the signing-up browser: the user's mails are written in it. */
  lang?: string;
}

/**
 * Self sign-up: a merchant under review with the sandbox on, so it can integrate at once, and its
 * first user, in one transaction (a taken email leaves no merchant behind).
 */
export async function signUpMerchant(ctx: Ctx, input: SignUp): Promise<{ merchant: MerchantRow; user: UserRow }> {
  const company = input.company.trim();
  const email = input.email.trim();
  if (company.length < 2 || company.length > 100) throw new AppError('VALIDATION_ERROR', 'company: 2 to 100 characters');
  if (!EMAIL.test(email)) throw new AppError('VALIDATION_ERROR', 'email: must be an email address');
  const problem = passwordProblem(input.password);
  if (problem) throw new AppError('VALIDATION_ERROR', `password: ${problem}`);
  const passwordHash = await hashPassword(input.password, ctx.config.passwordScryptLog2N);
  const at = new Date(ctx.clock.now());
  return ctx.db.tx(async (q) => {
    const merchant = await insertMerchant(q, { id: newId('mer'), name: company, sandbox: true, at });
    const user = await insertUser(q, { id: newId('usr'), merchantId: merchant.id, email, passwordHash, lang: mailLang(input.lang), at });
    if (!user) throw new AppError('EMAIL_TAKEN', 'this email already has an account');
    return { merchant, user };
  });
}

/**
 * The user of a live cabinet session and its merchant; null when either is gone. An approved
 * merchant also gets one line per desk no live provider serves (the cabinet's banner).
 */
export async function cabinetAccount(ctx: Ctx, userId: string): Promise<{ user: UserRow; merchant: MerchantRow; liveWarnings: string[] } | null> {
  const user = await getUser(ctx.db, userId);
  if (!user) return null;
  const merchant = await getMerchant(ctx.db, user.merchant_id);
  if (!merchant) return null;
  return { user, merchant, liveWarnings: merchant.status === 'Active' ? await liveCoverageWarnings(ctx, merchant.id) : [] };
}

/** A desk of this merchant; any other id, another merchant's included, is DESK_NOT_FOUND. */
export async function merchantDesk(ctx: Ctx, merchantId: string, deskId: string): Promise<DeskRow> {
  const d = await getDesk(ctx.db, deskId);
  if (!d || d.merchant_id !== merchantId) throw new AppError('DESK_NOT_FOUND', `no cash desk ${deskId}`);
  return d;
}

export const onboardingProgress = (ctx: Ctx, merchantId: string) => merchantProgress(ctx.db, merchantId);

/** `retryAfterMs`: the account is locked after too many wrong passwords (ACCOUNT_LOCK); nothing was checked. */
export type PasswordChange = { ok: true; endedSessions: number } | { ok: false; field: 'current' | 'next'; message: string; retryAfterMs?: number };

/**
 * A user's new password, given the current one; every other session of the user ends at once, so
 * a stolen session does not outlive the change. A wrong current password is a refusal, not an error.
 */
export async function changeUserPassword(ctx: Ctx, session: SessionInfo, current: string, next: string): Promise<PasswordChange> {
  const user = await getUser(ctx.db, session.accountId);
  const check = user ? await checkAccountPassword(ctx, 'cabinet', user, current) : null;
  if (check?.kind === 'locked') return { ok: false, field: 'current', message: 'Too many wrong passwords.', retryAfterMs: check.retryAfterMs };
  if (!user || check?.kind !== 'ok') return { ok: false, field: 'current', message: 'The current password is not right.' };
  const problem = passwordProblem(next);
  if (problem) return { ok: false, field: 'next', message: `The new password ${problem}.` };
  await setUserPassword(ctx.db, user.id, await hashPassword(next, ctx.config.passwordScryptLog2N));
  return { ok: true, endedSessions: await endOtherSessions(ctx, session) };
}

// ---- two-factor sign-in (TOTP), the cabinet's side of services/twoFactor.ts

export type SignInStep = { kind: 'refused' } | { kind: 'locked'; retryAfterMs: number } | { kind: 'signed-in'; userId: string } | { kind: 'code'; challenge: string };

/**
 * The password step of sign-in: a user with two-factor on gets a short-lived challenge for the
 * code form instead of a session; the same refusal for an unknown email and a wrong password.
 */
export async function cabinetSignIn(ctx: Ctx, email: string, password: string): Promise<SignInStep> {
  const check = await checkSignIn(ctx, 'cabinet', email, password);
  if (check.kind !== 'ok') return check;
  const user = check.account;
  const tf = await twoFactorStatus(ctx, 'cabinet', user.id);
  return tf.enabled ? { kind: 'code', challenge: issueChallenge(ctx, 'cabinet', user.id) } : { kind: 'signed-in', userId: user.id };
}

export type CodeStep =
  | { kind: 'expired' }
  | { kind: 'void' }
  | { kind: 'locked'; retryAfterMs: number }
  | { kind: 'wrong'; challenge: string }
  | { kind: 'signed-in'; userId: string };

/**
 * The code step: the challenge must still be fresh and have taken fewer than five codes, the
 * account not locked, then a TOTP code or an unused recovery code.
 */
export async function cabinetSignInCode(ctx: Ctx, challenge: string, code: string): Promise<CodeStep> {
  const a = await answerChallenge(ctx, 'cabinet', challenge, code);
  if (a.kind === 'ok') return { kind: 'signed-in', userId: a.accountId };
  return a.kind === 'wrong' ? { kind: 'wrong', challenge } : a;
}

/** What the account page shows of two-factor sign-in, with the pending secret while enrolling. */
export async function cabinetTwoFactor(ctx: Ctx, user: UserRow) {
  const status = await twoFactorStatus(ctx, 'cabinet', user.id);
  return { ...status, enrolment: status.pending ? await pendingEnrolment(ctx, 'cabinet', user.id, user.email) : null };
}

export const startTwoFactor = (ctx: Ctx, user: UserRow) => beginEnrolment(ctx, 'cabinet', user.id, user.email);

/** The first code from the app turns two-factor on; the recovery codes come back once, or null for a wrong code. */
export const confirmTwoFactor = (ctx: Ctx, user: UserRow, code: string) => confirmEnrolment(ctx, 'cabinet', user.id, code);

export type PasswordGuarded<T> = { ok: true; value: T } | { ok: false; message: string; retryAfterMs?: number };

/** Turning two-factor off or replacing the recovery codes asks for the password again: a left-open session is not enough. */
async function withPassword<T>(ctx: Ctx, user: UserRow, password: string, act: () => Promise<T>): Promise<PasswordGuarded<T>> {
  const fresh = await getUser(ctx.db, user.id);
  const check = fresh ? await checkAccountPassword(ctx, 'cabinet', fresh, password) : null;
  if (check?.kind === 'locked') return { ok: false, message: 'Too many wrong passwords.', retryAfterMs: check.retryAfterMs };
  if (check?.kind !== 'ok') return { ok: false, message: 'The password is not right.' };
  return { ok: true, value: await act() };
}

export const disableUserTwoFactor = (ctx: Ctx, user: UserRow, password: string) => withPassword(ctx, user, password, () => disableTwoFactor(ctx, 'cabinet', user.id));

export const regenerateUserRecoveryCodes = (ctx: Ctx, user: UserRow, password: string) =>
  withPassword(ctx, user, password, () => regenerateRecoveryCodes(ctx, 'cabinet', user.id));
