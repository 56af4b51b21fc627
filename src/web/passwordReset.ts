import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { completePasswordReset, openPasswordReset, requestPasswordReset } from '../services/passwordResets.js';
import { ForgotPasswordForm, formWithProblem, NewPasswordForm, withForm } from './forms.js';
import type { Html } from './html.js';
import { sendPage } from './layout.js';
import { preSessionCsrfValid, preSessionToken, seeOther, sendTooManyAttempts, type SurfaceCookies } from './session.js';

/**
 * Forgotten passwords of the cabinet and the back office (web spec, "A money-right first day"):
 * "Forgot password?" asks for an address and answers `303` to a page saying a mail is on its way,
 * whether the address has an account or not; the mailed link `/{surface}/password-reset/{token}`
 * sets a new password once, within 30 minutes. Each surface renders the pages in its own look.
 */

export interface ResetPages {
  /** The form asking for the address (`error`: why the address typed cannot be one). */
  request(o: { csrf: string; email: string; error: string | null }): Html;
  /** After a request: a mail is on its way, if the address has an account. */
  sent(): Html;
  /** The link's form: a new password, and a two-factor code when the account needs one. */
  form(o: { csrf: string; token: string; email: string; needsCode: boolean; error: string | null }): Html;
  /** A link that opens nothing: used, lapsed, unknown (`gone`), or spent on wrong codes (`void`). */
  gone(why: 'gone' | 'void'): Html;
  /** A form posted without its CSRF token (or an old one). */
  expired(): Html;
}

/** A sentence of a form's problem: "email: must be an email address" → "Email: must be an email address." */
const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

const str = (v: unknown, max: number) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

export function passwordResetRoutes(app: FastifyInstance, ctx: Ctx, s: SurfaceCookies, pages: ResetPages): void {
  const base = `/${s.surface}/password-reset`;
  const token = (req: FastifyRequest) => (req.params as { token: string }).token;

  const requestForm = (req: FastifyRequest, reply: FastifyReply, status: number, email = '', error: string | null = null) =>
    sendPage(reply, status, pages.request({ csrf: preSessionToken(ctx, s, req, reply), email, error }));

  app.get(base, async (req, reply) => requestForm(req, reply, 200));

  app.post(base, withForm(ForgotPasswordForm, { invalid: 'route' }), async (req, reply) => {
    // Every request counts, a refused form included: mailing is what is limited, per client and per address.
    const admission = await ctx.limits.passwordResetClient.take(`${s.surface}:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, s, req, reply, admission.retryAfterMs, base);
    if (!preSessionCsrfValid(ctx, s, req)) return sendPage(reply, 403, pages.expired());
    const { form, problem } = formWithProblem(req, ForgotPasswordForm);
    const email = str(form.email, 320);
    if (problem) return requestForm(req, reply, 400, email, sentence(problem));
    try {
      await requestPasswordReset(ctx, s.surface, { email, client: req.ip ?? null });
    } catch (err) {
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return requestForm(req, reply, 400, email, sentence(err.detail ?? 'email: must be an email address'));
      throw err;
    }
    return seeOther(reply, `${base}/sent`);
  });

  app.get(`${base}/sent`, async (_req, reply) => sendPage(reply, 200, pages.sent()));

  app.get(`${base}/:token`, async (req, reply) => {
    const open = await openPasswordReset(ctx, s.surface, token(req));
    if (!open) return sendPage(reply, 410, pages.gone('gone'));
    return sendPage(reply, 200, pages.form({ csrf: preSessionToken(ctx, s, req, reply), token: token(req), email: open.email, needsCode: open.needsCode, error: null }));
  });

  app.post(`${base}/:token`, withForm(NewPasswordForm, { invalid: 'route' }), async (req, reply) => {
    // Each try costs a password hash (and may check a code): under the sign-in limit, with a key of its own.
    const admission = await ctx.limits.signIn.take(`${s.surface}-reset:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, s, req, reply, admission.retryAfterMs, req.url);
    if (!preSessionCsrfValid(ctx, s, req)) return sendPage(reply, 403, pages.expired());
    const open = await openPasswordReset(ctx, s.surface, token(req));
    if (!open) return sendPage(reply, 410, pages.gone('gone'));
    const again = (status: number, error: string) =>
      sendPage(reply, status, pages.form({ csrf: preSessionToken(ctx, s, req, reply), token: token(req), email: open.email, needsCode: open.needsCode, error }));
    const { form, problem } = formWithProblem(req, NewPasswordForm);
    if (problem) return again(400, sentence(problem));
    const r = await completePasswordReset(ctx, s.surface, token(req), { password: form.password ?? '', code: form.code });
    if (r.ok) return seeOther(reply, `${s.signInPath}?reset=1`);
    switch (r.reason) {
      case 'gone':
      case 'void':
        return sendPage(reply, 410, pages.gone(r.reason));
      case 'locked':
        return sendTooManyAttempts(ctx, s, req, reply, r.retryAfterMs, req.url);
      case 'password':
      case 'code':
        return again(400, r.message);
    }
  });
}
