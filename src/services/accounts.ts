import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { passwordProblem } from '../domain/passwords.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { findOperatorByEmail, findUserByEmail, insertOperator, insertUser, type OperatorRow, type UserRole, type UserRow } from '../store/accounts.js';
import { getMerchant } from '../store/merchants.js';
import type { Surface } from '../store/sessions.js';
import { hashPassword, verifyPassword } from './passwords.js';

export const userView = (u: UserRow) => ({ id: u.id, email: u.email, merchantId: u.merchant_id, role: u.role, createdAt: isoSeconds(u.created_at) });
export const operatorView = (o: OperatorRow) => ({ id: o.id, email: o.email, role: o.role, createdAt: isoSeconds(o.created_at) });

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

function checkCredentials(email: string, password: string): string {
  const e = email.trim();
  if (!EMAIL.test(e)) throw new AppError('VALIDATION_ERROR', 'email: must be an email address');
  const problem = passwordProblem(password);
  if (problem) throw new AppError('VALIDATION_ERROR', `password: ${problem}`);
  return e;
}

/** A user of a merchant's cabinet; several per merchant, each with a role (an owner unless said otherwise). */
export async function createUser(ctx: Ctx, merchantId: string, input: { email: string; password: string; role?: UserRole }) {
  const email = checkCredentials(input.email, input.password);
  if (!(await getMerchant(ctx.db, merchantId))) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  const passwordHash = await hashPassword(input.password, ctx.config.passwordScryptLog2N);
  const u = await insertUser(ctx.db, { id: newId('usr'), merchantId, email, passwordHash, role: input.role ?? 'owner', at: new Date(ctx.clock.now()) });
  if (!u) throw new AppError('EMAIL_TAKEN', 'this email already has an account');
  return userView(u);
}

/** An operator of the back office: `admin` may do everything, `support` reads, decides appeals and resends. */
export async function createOperator(ctx: Ctx, input: { email: string; password: string; role: 'admin' | 'support' }) {
  const email = checkCredentials(input.email, input.password);
  const o = await insertOperator(ctx.db, { id: newId('opr'), email, passwordHash: await hashPassword(input.password, ctx.config.passwordScryptLog2N), role: input.role, at: new Date(ctx.clock.now()) });
  if (!o) throw new AppError('EMAIL_TAKEN', 'this email already has an account');
  return operatorView(o);
}

// A hash of a password nobody has, at the configured cost: an unknown email costs the same scrypt as a wrong password.
const decoyHashes = new Map<number, Promise<string>>();

/**
 * The key under which an account's password and code checks are counted (ACCOUNT_LOCK): its id, so
 * the sign-in form, the code step and the password asked again inside a session share one count.
 */
export const accountCheckKey = (surface: Surface, accountId: string) => `${surface}:${accountId}`;

/** An email with no account is counted under its own key, the same way, so a lock says nothing about whether it exists. */
const unknownEmailKey = (surface: Surface, email: string) => `${surface}:email:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}`;

export type SignInCheck<A> = { kind: 'ok'; account: A } | { kind: 'refused' } | { kind: 'locked'; retryAfterMs: number };

/**
 * Checks an email and password of a surface; one answer for an unknown email and a wrong password
 * (the caller shows one generic message), and the same work for both. The check counts against
 * the account's limit (ACCOUNT_LOCK) whatever the address; a locked account is not checked at all,
 * the right password included. The count is cleared when a session starts (`startSession`), so
 * for an account with two-factor the code step counts too.
 */
export async function checkSignIn(ctx: Ctx, surface: 'cabinet', email: string, password: string): Promise<SignInCheck<UserRow>>;
export async function checkSignIn(ctx: Ctx, surface: 'office', email: string, password: string): Promise<SignInCheck<OperatorRow>>;
export async function checkSignIn(ctx: Ctx, surface: Surface, email: string, password: string): Promise<SignInCheck<UserRow | OperatorRow>> {
  const cost = ctx.config.passwordScryptLog2N;
  if (!decoyHashes.has(cost)) decoyHashes.set(cost, hashPassword('decoy password that is never anyone\'s', cost));
  const decoyHash = decoyHashes.get(cost)!;
  const account = surface === 'cabinet' ? await findUserByEmail(ctx.db, email.trim()) : await findOperatorByEmail(ctx.db, email.trim());
  const admission = await ctx.limits.accountChecks.attempt(account ? accountCheckKey(surface, account.id) : unknownEmailKey(surface, email), ctx.clock.now());
  if (!admission.ok) return { kind: 'locked', retryAfterMs: admission.retryAfterMs };
  const ok = await verifyPassword(password, account?.password_hash ?? (await decoyHash));
  return account && ok ? { kind: 'ok', account } : { kind: 'refused' };
}

export type PasswordCheck = { kind: 'ok' } | { kind: 'wrong' } | { kind: 'locked'; retryAfterMs: number };

/**
 * The password asked again inside a session (changing it, turning two-factor off): under the
 * same per-account limit as sign-in, so an open session is no place to guess it; a right one
 * clears the count.
 */
export async function checkAccountPassword(ctx: Ctx, surface: Surface, account: { id: string; password_hash: string }, password: string): Promise<PasswordCheck> {
  const key = accountCheckKey(surface, account.id);
  const admission = await ctx.limits.accountChecks.attempt(key, ctx.clock.now());
  if (!admission.ok) return { kind: 'locked', retryAfterMs: admission.retryAfterMs };
  if (!(await verifyPassword(password, account.password_hash))) return { kind: 'wrong' };
  await ctx.limits.accountChecks.clear(key);
  return { kind: 'ok' };
}
