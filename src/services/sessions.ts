import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { isoSeconds } from '../domain/time.js';
import { accountCheckKey } from './accounts.js';
import { insertSession, listAccountSessions, revokeAccountSessions, revokeSession, touchSession, type SessionRow, type Surface } from '../store/sessions.js';

/** A session lasts this long after its last use (sliding), like the dashboards merchants already use. */
export const SESSION_IDLE_MS = 12 * 3_600_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface SessionInfo {
  /** The cookie value: shown to the browser once, only its hash is stored. */
  token?: string;
  idHash: string;
  surface: Surface;
  accountId: string;
}

/** A signed-in account: its session, and its failed password and code checks forgotten (ACCOUNT_LOCK). */
export async function startSession(ctx: Ctx, surface: Surface, accountId: string, client: { userAgent: string | null; ip: string | null }): Promise<SessionInfo & { token: string }> {
  await ctx.limits.accountChecks.clear(accountCheckKey(surface, accountId));
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const idHash = hashOf(token);
  await insertSession(ctx.db, {
    idHash,
    surface,
    accountId,
    at: new Date(now),
    expiresAt: new Date(now + SESSION_IDLE_MS),
    userAgent: client.userAgent?.slice(0, 300) ?? null,
    ip: client.ip,
  });
  return { token, idHash, surface, accountId };
}

/** The session a cookie value stands for, if it is live on this surface; each use extends it. */
export async function resumeSession(ctx: Ctx, surface: Surface, token: string | undefined): Promise<SessionInfo | null> {
  if (!token || token.length > 100) return null;
  const now = ctx.clock.now();
  const row = await touchSession(ctx.db, hashOf(token), surface, new Date(now), new Date(now + SESSION_IDLE_MS));
  return row ? { idHash: row.id_hash, surface, accountId: row.account_id } : null;
}

export async function endSession(ctx: Ctx, s: SessionInfo): Promise<void> {
  await revokeSession(ctx.db, s.idHash, s.surface, new Date(ctx.clock.now()));
}

/** After a password change: every other session of the account ends at once. */
export async function endOtherSessions(ctx: Ctx, s: SessionInfo): Promise<number> {
  return revokeAccountSessions(ctx.db, s.surface, s.accountId, new Date(ctx.clock.now()), s.idHash);
}

export const sessionView = (r: SessionRow, current: string | null) => ({
  /** A handle to revoke it by, never the cookie value: the first 16 characters of its hash. */
  id: r.id_hash.slice(0, 16),
  createdAt: isoSeconds(r.created_at),
  lastSeenAt: isoSeconds(r.last_seen_at),
  userAgent: r.user_agent,
  ip: r.ip,
  current: r.id_hash === current,
});

export async function listSessions(ctx: Ctx, s: SessionInfo) {
  return (await listAccountSessions(ctx.db, s.surface, s.accountId, new Date(ctx.clock.now()))).map((r) => sessionView(r, s.idHash));
}

/** Revokes one of the account's own sessions by its handle; another account's handle matches nothing. */
export async function revokeOwnSession(ctx: Ctx, s: SessionInfo, handle: string): Promise<boolean> {
  const mine = await listAccountSessions(ctx.db, s.surface, s.accountId, new Date(ctx.clock.now()));
  const target = mine.find((r) => r.id_hash.startsWith(handle) && handle.length === 16);
  if (!target) return false;
  await revokeSession(ctx.db, target.id_hash, s.surface, new Date(ctx.clock.now()));
  return true;
}

/**
 * CSRF tokens bound to what identifies the browser on a surface: the session when signed in, a
 * random pre-session cookie before (sign-in and sign-up forms). Derived with a key of this
 * deployment, so nothing extra is stored and every instance checks the same token.
 */
export function csrfKey(ctx: Ctx): Buffer {
  return ctx.box.derive('paygate csrf v1');
}

export function csrfToken(key: Buffer, surface: Surface, binding: string): string {
  return createHmac('sha256', key).update(`${surface}:${binding}`).digest('base64url');
}

export function csrfValid(key: Buffer, surface: Surface, binding: string | null, given: unknown): boolean {
  if (!binding || typeof given !== 'string' || given.length > 100) return false;
  const expected = Buffer.from(csrfToken(key, surface, binding));
  const got = Buffer.from(given);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
