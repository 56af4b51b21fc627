import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { formatUtcTime } from './format.js';
import { bodyFields, CSRF_FIELD } from './forms.js';
import { html } from './html.js';
import { chooseLang, translator } from './i18n/index.js';
import { document, sendPage } from './layout.js';
import { csrfKey, csrfToken, csrfValid, resumeSession, startSession, type SessionInfo } from '../services/sessions.js';
import type { Surface } from '../services/shapes.js';

/**
 * What the cabinet and the back office share about people signed in through a browser (web spec,
 * "Common rules"): cookies, form bodies, CSRF tokens bound to the session (or to a pre-session
 * cookie on the sign-in forms), and the hook that resumes a session before every page.
 */

export interface SurfaceCookies {
  surface: Surface;
  /** The session cookie. */
  session: string;
  /** A random value binding the sign-in forms' CSRF token before there is a session. */
  pre: string;
  /** Where a signed-out page request is sent. */
  signInPath: string;
  /** Where a new session lands. */
  homePath: string;
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

export const seeOther = (reply: FastifyReply, to: string) => reply.code(303).header('Location', to).header('Cache-Control', 'no-store').send('');

/** The CSRF token a POST carries: the form's `_csrf` field, else the `X-CSRF-Token` header. */
export function givenToken(req: FastifyRequest): string | null {
  const field = bodyFields(req)[CSRF_FIELD];
  if (typeof field === 'string') return field;
  const header = req.headers['x-csrf-token'];
  return typeof header === 'string' ? header : null;
}

/**
 * The pre-session binding of a surface's sign-in forms: the cookie's value, set on the GET when
 * the browser has none yet. Returns the token for the form.
 */
export function preSessionToken(ctx: Ctx, s: SurfaceCookies, req: FastifyRequest, reply: FastifyReply): string {
  let value = readCookie(req, s.pre);
  if (!value || !/^[A-Za-z0-9_-]{20,64}$/.test(value)) {
    value = randomBytes(24).toString('base64url');
    // A day is long enough to fill a form; the cookie is replaced by the session on success.
    reply.header('Set-Cookie', cookieHeader(ctx, s.pre, value, 86_400));
  }
  return csrfToken(csrfKey(ctx), s.surface, `pre:${value}`);
}

export function preSessionCsrfValid(ctx: Ctx, s: SurfaceCookies, req: FastifyRequest): boolean {
  const value = readCookie(req, s.pre);
  return csrfValid(csrfKey(ctx), s.surface, value ? `pre:${value}` : null, givenToken(req));
}

/** A started session: its cookie set, the pre-session cookie dropped, and 303 to the surface's home. */
export async function enterSession(ctx: Ctx, s: SurfaceCookies, req: FastifyRequest, reply: FastifyReply, accountId: string, to = s.homePath) {
  const session = await startSession(ctx, s.surface, accountId, { userAgent: req.headers['user-agent'] ?? null, ip: req.ip });
  setCookies(reply, [cookieHeader(ctx, s.session, session.token, null), cookieHeader(ctx, s.pre, '', 0)]);
  return seeOther(reply, to);
}

/**
 * The browser's language as the payment page chooses it (`?lang=`, then `Accept-Language`, then
 * English): an account made by its own person keeps it for its mails.
 */
export const requestLang = (req: FastifyRequest) => chooseLang((req.query as Record<string, unknown> | undefined)?.lang, req.headers['accept-language']);

/**
 * `429` to a sign-in step, or to a password asked again inside a session, while the address or
 * the account is held back: `Retry-After` in whole seconds, and a page saying when to try again.
 * The page is in the reader's language (`?lang=`, then `Accept-Language`, as the payment page
 * chooses it), though the rest of the surface is English: whoever is locked out must understand why.
 */
export function sendTooManyAttempts(ctx: Ctx, s: SurfaceCookies, req: FastifyRequest, reply: FastifyReply, retryAfterMs: number, back = s.signInPath) {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const lang = chooseLang((req.query as Record<string, unknown> | undefined)?.lang, req.headers['accept-language']);
  const t = translator(lang);
  const at = new Date(ctx.clock.now() + seconds * 1000);
  const wait = seconds < 60 ? t('waitSeconds', { n: String(seconds) }) : t('waitMinutes', { n: String(Math.ceil(seconds / 60)) });
  // `{time}` stays a placeholder through the translator, then becomes a <time> the surface's script dates locally.
  const [before, after] = t('tooManyText', { wait }).split('{time}');
  const when = html`<time datetime="${at.toISOString()}">${formatUtcTime(lang, at)}</time>`;
  const page = document({
    lang,
    title: `${t('tooManyTitle')} · Paygate`,
    styles: [`${s.surface}.css`],
    scripts: [`${s.surface}.js`],
    body: html`<main id="main" class="narrow">
<h1>${t('tooManyTitle')}</h1>
<p class="notice bad" role="alert" id="too-many">${before}${when}${after ?? ''}</p>
<p>${t('tooManyWhy')}</p>
<p><a href="${back}">${t('back')}</a></p>
</main>`,
  });
  return sendPage(reply.header('Retry-After', String(seconds)), 429, page);
}

export interface SignedIn<A> {
  session: SessionInfo;
  account: A;
  /** The token every form of the page carries in its hidden `_csrf` input. */
  csrf: string;
}

/**
 * A preHandler that resumes the surface's session and loads its account: signed out, a page leads
 * to the sign-in form and an action is refused (403). Every POST must carry the session's CSRF
 * token, else 403; the rest of its form is the route's to read (forms.ts).
 */
export function sessionHook<A>(
  ctx: Ctx,
  s: SurfaceCookies,
  loadAccount: (accountId: string) => Promise<A | null>,
  attach: (req: FastifyRequest, signedIn: SignedIn<A>) => void,
) {
  return async function resume(req: FastifyRequest, reply: FastifyReply) {
    const session = await resumeSession(ctx, s.surface, readCookie(req, s.session));
    const account = session ? await loadAccount(session.accountId) : null;
    const safe = req.method === 'GET' || req.method === 'HEAD';
    if (!session || !account) {
      if (safe) return seeOther(reply, s.signInPath);
      return reply.code(403).type('text/plain; charset=utf-8').send('Sign in again: your session has ended.');
    }
    const key = csrfKey(ctx);
    if (!safe && !csrfValid(key, s.surface, session.idHash, givenToken(req))) {
      return reply.code(403).type('text/plain; charset=utf-8').send('This form has expired. Go back, reload the page and try again.');
    }
    attach(req, { session, account, csrf: csrfToken(key, s.surface, session.idHash) });
  };
}
