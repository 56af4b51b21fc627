import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { rawBodyOf } from '../../http/rawBody.js';
import { cabinetAccount } from '../../services/cabinet.js';
import { csrfKey, csrfToken, csrfValid, resumeSession, type SessionInfo } from '../../services/sessions.js';
import type { UserRow } from '../../store/accounts.js';
import type { MerchantRow } from '../../store/merchants.js';

/** The session cookie of the cabinet (the back office has its own). */
export const SESSION_COOKIE = 'pg_cabinet';
/** A random value binding the sign-in and sign-up forms' CSRF token before there is a session. */
export const PRE_SESSION_COOKIE = 'pg_cabinet_pre';

export interface CabinetRequest {
  session: SessionInfo;
  user: UserRow;
  merchant: MerchantRow;
  /** The token every form of the page carries in its hidden `_csrf` input. */
  csrf: string;
  form: URLSearchParams;
}

declare module 'fastify' {
  interface FastifyRequest {
    cabinet?: CabinetRequest;
  }
}

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A malformed value (a stray %) is no cookie of ours: signed out, not a 500.
      return undefined;
    }
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, Path=/, and Secure when the public address is https (web spec, "Common rules"). */
export function cookieHeader(ctx: Ctx, name: string, value: string, maxAgeSeconds: number | null): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (ctx.config.publicBaseUrl.startsWith('https:')) parts.push('Secure');
  return parts.join('; ');
}

export function setCookies(reply: FastifyReply, cookies: string[]): void {
  reply.header('Set-Cookie', cookies);
}

/** The form fields of a urlencoded POST; anything else (or an oversized body) reads as no fields. */
export function formOf(req: FastifyRequest): URLSearchParams {
  const raw = rawBodyOf(req.body);
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.tooLarge || type !== 'application/x-www-form-urlencoded') return new URLSearchParams();
  return new URLSearchParams(raw.bytes.toString('utf8'));
}

function givenToken(req: FastifyRequest, form: URLSearchParams): string | null {
  const header = req.headers['x-csrf-token'];
  return form.get('_csrf') ?? (typeof header === 'string' ? header : null);
}

/**
 * The pre-session binding of the sign-in and sign-up forms: the cookie's value, set on the GET
 * when the browser has none yet. Returns the token for the form.
 */
export function preSessionToken(ctx: Ctx, req: FastifyRequest, reply: FastifyReply): string {
  let value = readCookie(req, PRE_SESSION_COOKIE);
  if (!value || !/^[A-Za-z0-9_-]{20,64}$/.test(value)) {
    value = randomBytes(24).toString('base64url');
    // A day is long enough to fill a form; the cookie is replaced by the session on success.
    setCookies(reply, [cookieHeader(ctx, PRE_SESSION_COOKIE, value, 86_400)]);
  }
  return csrfToken(csrfKey(ctx), 'cabinet', `pre:${value}`);
}

export function preSessionCsrfValid(ctx: Ctx, req: FastifyRequest, form: URLSearchParams): boolean {
  const value = readCookie(req, PRE_SESSION_COOKIE);
  return csrfValid(csrfKey(ctx), 'cabinet', value ? `pre:${value}` : null, givenToken(req, form));
}

/**
 * Runs before every page and action behind sign-in: resumes the session and loads its merchant;
 * signed out, a page leads to the sign-in form and an action is refused. Every POST must carry the
 * CSRF token of the session, else 403.
 */
export function cabinetSessionHook(ctx: Ctx) {
  return async function cabinetSession(req: FastifyRequest, reply: FastifyReply) {
    const session = await resumeSession(ctx, 'cabinet', readCookie(req, SESSION_COOKIE));
    const account = session ? await cabinetAccount(ctx, session.accountId) : null;
    const safe = req.method === 'GET' || req.method === 'HEAD';
    if (!session || !account) {
      if (safe) return reply.code(303).header('Location', '/cabinet/sign-in').header('Cache-Control', 'no-store').send('');
      return reply.code(403).type('text/plain; charset=utf-8').send('Sign in again: your session has ended.');
    }
    const key = csrfKey(ctx);
    const form = safe ? new URLSearchParams() : formOf(req);
    if (!safe && !csrfValid(key, 'cabinet', session.idHash, givenToken(req, form))) {
      return reply.code(403).type('text/plain; charset=utf-8').send('This form has expired. Go back, reload the page and try again.');
    }
    req.cabinet = { session, user: account.user, merchant: account.merchant, csrf: csrfToken(key, 'cabinet', session.idHash), form };
  };
}
