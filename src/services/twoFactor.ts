import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { base32Decode, base32Encode, matchTotp, otpauthUri } from '../domain/totp.js';
import type { Surface } from '../store/sessions.js';
import { accountCheckKey } from './accounts.js';
import {
  claimTotpStep,
  clearTotp,
  enableTotp,
  getTotpState,
  lastTotpStep,
  replaceRecoveryCodes,
  setPendingTotp,
  unusedRecoveryCodes,
  useRecoveryCode,
} from '../store/twoFactor.js';

/**
 * Optional (cabinet) or required (back office, with OFFICE_REQUIRE_2FA) TOTP two-factor sign-in with one-time
 * recovery codes. The secret is sealed under the master key; recovery codes are kept as hashes.
 */

export const RECOVERY_CODE_COUNT = 10;
/** How long the step between a correct password and the code may take. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

const ISSUER = 'Paygate';

const codeHash = (code: string) => createHash('sha256').update(normaliseRecovery(code)).digest('hex');
const normaliseRecovery = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();

export interface TwoFactorStatus {
  enabled: boolean;
  /** A secret was issued and waits for its first code. */
  pending: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(ctx: Ctx, surface: Surface, accountId: string): Promise<TwoFactorStatus> {
  const s = await getTotpState(ctx.db, surface, accountId);
  const enabled = !!s?.totp_enabled_at;
  return {
    enabled,
    pending: !!s?.totp_secret && !enabled,
    recoveryCodesLeft: enabled ? await unusedRecoveryCodes(ctx.db, surface, accountId) : 0,
  };
}

/**
 * Starts enrolment: a new secret for the account, not in force until `confirmEnrolment` sees a
 * code from it. Returns what the enrolment page shows (the secret and its otpauth address).
 */
export async function beginEnrolment(ctx: Ctx, surface: Surface, accountId: string, accountLabel: string): Promise<{ secret: string; uri: string }> {
  const secret = base32Encode(randomBytes(20));
  await setPendingTotp(ctx.db, surface, accountId, ctx.box.seal(secret));
  return { secret, uri: otpauthUri(ISSUER, accountLabel, secret) };
}

/** The pending secret (to show again when the first code was wrong), or null. */
export async function pendingEnrolment(ctx: Ctx, surface: Surface, accountId: string, accountLabel: string): Promise<{ secret: string; uri: string } | null> {
  const s = await getTotpState(ctx.db, surface, accountId);
  if (!s?.totp_secret || s.totp_enabled_at) return null;
  const secret = ctx.box.open(s.totp_secret);
  return { secret, uri: otpauthUri(ISSUER, accountLabel, secret) };
}

/**
 * Turns two-factor on when the code matches the pending secret. Returns the recovery codes, shown
 * once, or null when the code is wrong.
 */
export async function confirmEnrolment(ctx: Ctx, surface: Surface, accountId: string, code: string): Promise<string[] | null> {
  return ctx.db.tx(async (q) => {
    const s = await getTotpState(q, surface, accountId);
    if (!s?.totp_secret || s.totp_enabled_at) return null;
    const secret = base32Decode(ctx.box.open(s.totp_secret));
    if (!secret) return null;
    const step = matchTotp(secret, code, ctx.clock.now(), await lastTotpStep(q, surface, accountId));
    if (step === null || !(await claimTotpStep(q, surface, accountId, step))) return null;
    const at = new Date(ctx.clock.now());
    await enableTotp(q, surface, accountId, at);
    const codes = newRecoveryCodes();
    await replaceRecoveryCodes(q, surface, accountId, codes.map(codeHash), at);
    return codes;
  });
}

/** New recovery codes replacing the old ones (shown once). */
export async function regenerateRecoveryCodes(ctx: Ctx, surface: Surface, accountId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(ctx.db, surface, accountId, codes.map(codeHash), new Date(ctx.clock.now()));
  return codes;
}

export async function disableTwoFactor(ctx: Ctx, surface: Surface, accountId: string): Promise<void> {
  await ctx.db.tx((q) => clearTotp(q, surface, accountId));
}

/**
 * The second step of sign-in: a current TOTP code (each accepted once) or an unused recovery code
 * (then used up). True when the account may sign in.
 */
export async function verifySecondFactor(ctx: Ctx, surface: Surface, accountId: string, code: string): Promise<boolean> {
  const s = await getTotpState(ctx.db, surface, accountId);
  if (!s?.totp_secret || !s.totp_enabled_at) return false;
  const trimmed = code.trim();
  if (/^\d{3}\s?\d{3}$/.test(trimmed)) {
    const secret = base32Decode(ctx.box.open(s.totp_secret));
    if (!secret) return false;
    const step = matchTotp(secret, trimmed, ctx.clock.now(), await lastTotpStep(ctx.db, surface, accountId));
    return step !== null && (await claimTotpStep(ctx.db, surface, accountId, step));
  }
  if (trimmed.length === 0 || trimmed.length > 40) return false;
  return useRecoveryCode(ctx.db, surface, accountId, codeHash(trimmed), new Date(ctx.clock.now()));
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomBytes(5).toString('hex');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/**
 * The signed, short-lived proof that the password step passed, carried in the code form's hidden
 * `challenge` field: `<accountId>.<expiresAtMs>.<id>.<mac>`. Any instance checks it; what is
 * stored is only how many codes it has taken (CHALLENGE_ATTEMPTS, counted under its random id).
 */
export function issueChallenge(ctx: Ctx, surface: Surface, accountId: string): string {
  const expires = ctx.clock.now() + CHALLENGE_TTL_MS;
  const id = randomBytes(12).toString('base64url');
  return `${accountId}.${expires}.${id}.${challengeMac(ctx, surface, accountId, expires, id)}`;
}

interface Challenge {
  accountId: string;
  expires: number;
  id: string;
}

function readChallenge(ctx: Ctx, surface: Surface, token: string | null | undefined): Challenge | null {
  if (!token || token.length > 200) return null;
  const [accountId, expiresText, id, mac, extra] = token.split('.');
  if (!accountId || !expiresText || !id || !mac || extra !== undefined || !/^\d{1,16}$/.test(expiresText)) return null;
  const expires = Number(expiresText);
  if (expires < ctx.clock.now()) return null;
  const expected = Buffer.from(challengeMac(ctx, surface, accountId, expires, id));
  const got = Buffer.from(mac);
  return got.length === expected.length && timingSafeEqual(got, expected) ? { accountId, expires, id } : null;
}

/** The account a challenge stands for while it is fresh, else null. */
export function openChallenge(ctx: Ctx, surface: Surface, token: string | null | undefined): string | null {
  return readChallenge(ctx, surface, token)?.accountId ?? null;
}

export type ChallengeAnswer =
  | { kind: 'ok'; accountId: string }
  | { kind: 'wrong' }
  /** Forged, or older than CHALLENGE_TTL_MS. */
  | { kind: 'expired' }
  /** It has taken CHALLENGE_ATTEMPTS codes already: the password step starts over. */
  | { kind: 'void' }
  /** The account is locked (ACCOUNT_LOCK): codes count with its password checks. */
  | { kind: 'locked'; retryAfterMs: number };

/**
 * The code step of sign-in: a fresh challenge that has taken fewer than CHALLENGE_ATTEMPTS codes,
 * an account that is not locked, then `verifySecondFactor`. Each code counts against the challenge
 * and against the account, so a stolen password buys a few guesses per lock, not a million.
 */
export async function answerChallenge(ctx: Ctx, surface: Surface, token: string, code: string): Promise<ChallengeAnswer> {
  const c = readChallenge(ctx, surface, token);
  if (!c) return { kind: 'expired' };
  const now = ctx.clock.now();
  // The count needs to outlive the challenge only: past its expiry the token opens no more.
  if (!(await ctx.limits.challengeAttempts.take(`${surface}:${c.id}`, now, c.expires - now + 1000)).ok) return { kind: 'void' };
  const admission = await ctx.limits.accountChecks.attempt(accountCheckKey(surface, c.accountId), now);
  if (!admission.ok) return { kind: 'locked', retryAfterMs: admission.retryAfterMs };
  return (await verifySecondFactor(ctx, surface, c.accountId, code)) ? { kind: 'ok', accountId: c.accountId } : { kind: 'wrong' };
}

function challengeMac(ctx: Ctx, surface: Surface, accountId: string, expires: number, id: string): string {
  return createHmac('sha256', ctx.box.derive('paygate 2fa challenge v2')).update(`${surface}:${accountId}:${expires}:${id}`).digest('base64url');
}
