import { createHash, randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { passwordProblem } from '../domain/passwords.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { queueMail } from '../mail/outbox.js';
import { mailLang } from '../mail/templates.js';
import {
  deleteUser,
  findOpenInvitation,
  findUserByEmail,
  insertInvitation,
  insertUser,
  listMerchantUsers,
  listOpenInvitations,
  lockMerchantUsers,
  setUserRole,
  useInvitation,
  type UserRole,
  type UserRow,
} from '../store/accounts.js';
import { getMerchant } from '../store/merchants.js';
import { revokeAccountSessions } from '../store/sessions.js';
import { hashPassword } from './passwords.js';

/**
 * A merchant's team (web spec, "Cabinet, in addition"): members with roles, invitations by a
 * single-use link, role changes and removals by an owner, never leaving the merchant without one.
 */

export const ROLES = ['owner', 'developer', 'viewer'] as const satisfies readonly UserRole[];
export type { UserRole };
export const isRole = (v: unknown): v is UserRole => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** What each role may change in the cabinet; reading is everyone's. `money`: withdrawal requests and their destinations. */
export type CabinetArea = 'work' | 'team' | 'money';
export function roleMay(role: UserRole, area: CabinetArea): boolean {
  if (role === 'owner') return true;
  if (role === 'developer') return area === 'work';
  return false;
}

/** An invitation link is good for 7 days (web spec), and once. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

/** Only this is stored: the token itself travels in the link alone. */
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
/** 32 random bytes, URL-safe; a malformed token is not looked up at all. */
const TOKEN = /^inv_[A-Za-z0-9_-]{43}$/;

export const memberView = (u: UserRow) => ({ id: u.id, email: u.email, role: u.role, createdAt: isoSeconds(u.created_at) });
export type MemberView = ReturnType<typeof memberView>;

function mustOwn(actor: UserRow): void {
  if (actor.role !== 'owner') throw new AppError('FORBIDDEN', 'only an owner manages the team');
}

/**
 * Where an invitation's mail stands: `sent` (the mail server took it), `queued` (waiting to go out,
 * or retrying), `failed` (given up), `kept` (no mail server: an admin sees it in the back office),
 * `none` (made before invitations were mailed).
 */
export type InvitationMail = 'sent' | 'queued' | 'failed' | 'kept' | 'none';

/** The members, owners first, and the invitations still open with where their mails stand. */
export async function teamOf(ctx: Ctx, merchantId: string) {
  const [users, invitations] = await Promise.all([listMerchantUsers(ctx.db, merchantId), listOpenInvitations(ctx.db, merchantId, new Date(ctx.clock.now()))]);
  return {
    members: users.map(memberView),
    invitations: invitations.map((i) => ({
      email: i.email,
      role: i.role,
      createdAt: isoSeconds(i.created_at),
      expiresAt: isoSeconds(i.expires_at),
      mail: (i.mail_status ?? 'none') as InvitationMail,
    })),
  };
}

/**
 * An owner invites `email` with `role`: the link goes by mail (queued with the invitation, in the
 * inviting browser's language `lang`, the invitee having none yet) and the answer holds its token,
 * shown once; only its hash is stored. An email that already has an account is EMAIL_TAKEN (emails
 * are unique across merchants).
 */
export async function inviteMember(
  ctx: Ctx,
  actor: UserRow,
  input: { email: string; role: string; lang?: string },
): Promise<{ token: string; path: string; email: string; role: UserRole; expiresAt: string; mailId: string }> {
  mustOwn(actor);
  const email = input.email.trim();
  if (!EMAIL.test(email)) throw new AppError('VALIDATION_ERROR', 'email: must be an email address');
  if (!isRole(input.role)) throw new AppError('VALIDATION_ERROR', `role: must be one of ${ROLES.join(', ')}`);
  if (await findUserByEmail(ctx.db, email)) throw new AppError('EMAIL_TAKEN', 'this email already has an account');
  const merchant = await getMerchant(ctx.db, actor.merchant_id);
  if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${actor.merchant_id}`);
  const role = input.role;
  const token = `inv_${randomBytes(32).toString('base64url')}`;
  const path = `/cabinet/invite/${token}`;
  const at = new Date(ctx.clock.now());
  const expiresAt = new Date(at.getTime() + INVITATION_TTL_MS);
  return ctx.db.tx(async (q) => {
    const mailId = await queueMail(q, at, {
      to: email,
      lang: mailLang(input.lang),
      kind: 'invitation',
      data: { merchantName: merchant.name, role, link: `${ctx.config.publicBaseUrl}${path}`, expiresAt: isoSeconds(expiresAt) },
    });
    const row = await insertInvitation(q, { tokenHash: tokenHash(token), merchantId: actor.merchant_id, email, role, invitedBy: actor.id, at, expiresAt, mailId });
    return { token, path, email, role: row.role, expiresAt: isoSeconds(row.expires_at), mailId };
  });
}

/** What the invitation page shows: the email, the role and the merchant; null for a used, lapsed or unknown token. */
export async function openInvitation(ctx: Ctx, token: string): Promise<{ email: string; role: UserRole; merchantName: string } | null> {
  if (!TOKEN.test(token)) return null;
  const inv = await findOpenInvitation(ctx.db, tokenHash(token), new Date(ctx.clock.now()));
  if (!inv) return null;
  const merchant = await getMerchant(ctx.db, inv.merchant_id);
  return merchant ? { email: inv.email, role: inv.role, merchantName: merchant.name } : null;
}

export type Acceptance = { ok: true; userId: string } | { ok: false; reason: 'gone' | 'taken' | 'password'; message: string };

/**
 * The invitee sets a password: the user is created with the invitation's email and role (and the
 * language of the invitee's browser, `lang`, for its mails), and the invitation used, in one
 * transaction (of two acceptances at once, one creates the user).
 */
export async function acceptInvitation(ctx: Ctx, token: string, password: string, lang?: string): Promise<Acceptance> {
  const gone = { ok: false as const, reason: 'gone' as const, message: 'This invitation was used already or has lapsed. Ask for a new one.' };
  if (!TOKEN.test(token)) return gone;
  const problem = passwordProblem(password);
  if (problem) return { ok: false, reason: 'password', message: `The password ${problem}.` };
  const hash = tokenHash(token);
  const now = new Date(ctx.clock.now());
  const open = await findOpenInvitation(ctx.db, hash, now);
  if (!open) return gone;
  const passwordHash = await hashPassword(password, ctx.config.passwordScryptLog2N);
  const userId = newId('usr');
  try {
    await ctx.db.tx(async (q) => {
      const inv = await useInvitation(q, hash, userId, now);
      if (!inv) throw new AppError('NOT_FOUND', 'invitation used or lapsed');
      const user = await insertUser(q, { id: userId, merchantId: inv.merchant_id, email: inv.email, passwordHash, role: inv.role, lang: mailLang(lang), at: now });
      if (!user) throw new AppError('EMAIL_TAKEN', 'this email already has an account');
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return gone;
    if (err instanceof AppError && err.code === 'EMAIL_TAKEN') return { ok: false, reason: 'taken', message: 'This email already has an account. Sign in instead.' };
    throw err;
  }
  return { ok: true, userId };
}

export type TeamChange = { ok: true } | { ok: false; message: string };

const LAST_OWNER = { ok: false as const, message: 'The team needs at least one owner: make someone else an owner first.' };

/** An owner changes a member's role; the last owner stays an owner. */
export async function changeMemberRole(ctx: Ctx, actor: UserRow, userId: string, role: string): Promise<TeamChange> {
  mustOwn(actor);
  if (!isRole(role)) throw new AppError('VALIDATION_ERROR', `role: must be one of ${ROLES.join(', ')}`);
  return ctx.db.tx(async (q) => {
    const users = await lockMerchantUsers(q, actor.merchant_id);
    const target = users.find((u) => u.id === userId);
    if (!target) throw new AppError('NOT_FOUND', `no member ${userId}`);
    if (target.role === 'owner' && role !== 'owner' && users.filter((u) => u.role === 'owner').length === 1) return LAST_OWNER;
    await setUserRole(q, actor.merchant_id, userId, role);
    return { ok: true as const };
  });
}

/** An owner removes a member: the user is deleted and its sessions end at once; the last owner stays. */
export async function removeMember(ctx: Ctx, actor: UserRow, userId: string): Promise<TeamChange> {
  mustOwn(actor);
  return ctx.db.tx(async (q) => {
    const users = await lockMerchantUsers(q, actor.merchant_id);
    const target = users.find((u) => u.id === userId);
    if (!target) throw new AppError('NOT_FOUND', `no member ${userId}`);
    if (target.role === 'owner' && users.filter((u) => u.role === 'owner').length === 1) return LAST_OWNER;
    await deleteUser(q, actor.merchant_id, userId);
    await revokeAccountSessions(q, 'cabinet', userId, new Date(ctx.clock.now()));
    return { ok: true as const };
  });
}
