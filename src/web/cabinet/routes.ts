import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { sendTooMany } from '../../server/errors.js';
import { cabinetSignIn, onboardingProgress, signUpMerchant } from '../../services/cabinet.js';
import { listDeskViews } from '../../services/operator.js';
import { endSession } from '../../services/sessions.js';
import { sendPage } from '../layout.js';
import { cookieHeader, enterSession, preSessionCsrfValid, preSessionToken, requestLang, seeOther, sendTooManyAttempts, setCookies } from '../session.js';
import { passwordResetRoutes } from '../passwordReset.js';
import { cabinetResetPages } from './passwordResetView.js';
import { ButtonForm, formOf, formWithProblem, SignInForm, withForm } from '../forms.js';
import { handlePageError } from '../formGuard.js';
import { SignUpForm } from './forms.js';
import { CABINET, cabinetSessionHook, SESSION_COOKIE } from './session.js';
import { cab, NOT_FOUND_CODES, query, sentence, str } from './common.js';
import { accountRoutes } from './account.js';
import { appealRoutes } from './appeals.js';
import { balanceRoutes } from './balance.js';
import { statementRoutes } from './statement.js';
import { callbackRoutes } from './callbacks.js';
import { webhookRoutes } from './webhooks.js';
import { deskRoutes } from './desks.js';
import { orderRoutes } from './orders.js';
import { linkRoutes, publicLinkRoute } from './links.js';
import { withdrawalRoutes } from './withdrawals.js';
import { invitationRoutes, teamRoutes } from './team.js';
import { roleGate } from './roles.js';
import { signInCodeRoute, twoFactorRoutes } from './twoFactor.js';
import { signInCodePage } from './twoFactorView.js';
import { homePage } from './homeView.js';
import { applicationRoutes } from './application.js';
import { findMerchantApplication } from '../../services/applications.js';
import { messagePage } from './layout.js';
import { signInPage, signUpPage } from './publicView.js';

/**
 * The merchant cabinet (web spec, "Merchant cabinet"): sign-up and sign-in in front, the pages and
 * actions behind the session. Every action calls the same services as the API with the signed-in
 * merchant as scope, so another merchant's desk or order is "not found" like any unknown id.
 */
export function cabinetRoutes(app: FastifyInstance, ctx: Ctx): void {
  const signupOpen = () => ctx.config.cabinetSignup === 'open';

  app.get('/cabinet/sign-in', async (req, reply) => {
    const csrf = preSessionToken(ctx, CABINET, req, reply);
    // After a sign-in code step that took too long: the password step starts again. After a reset: the new password.
    const notice =
      query(req).expired === '1' ? 'The sign-in step took too long. Enter your password again.'
      : query(req).reset === '1' ? 'Your password is changed, and every session of your account is signed out. Sign in with the new password.'
      : null;
    return sendPage(reply, 200, signInPage({ csrf, email: '', failed: false, signupOpen: signupOpen(), notice }));
  });

  app.post('/cabinet/sign-in', withForm(SignInForm), async (req, reply) => {
    // Every attempt counts, a refused form included: the limit is on guessing, 10 a minute per IP.
    const admission = await ctx.limits.signIn.take(req.ip);
    if (!admission.ok) return sendTooManyAttempts(ctx, CABINET, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, CABINET, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInForm);
    const email = str(form.email, 320);
    const step = await cabinetSignIn(ctx, email, form.password ?? '');
    // Ten wrong passwords on the account from any addresses (ACCOUNT_LOCK): not even checked now.
    if (step.kind === 'locked') return sendTooManyAttempts(ctx, CABINET, req, reply, step.retryAfterMs);
    if (step.kind === 'refused') {
      const csrf = preSessionToken(ctx, CABINET, req, reply);
      return sendPage(reply, 401, signInPage({ csrf, email, failed: true, signupOpen: signupOpen() }));
    }
    if (step.kind === 'code') return sendPage(reply, 200, signInCodePage({ csrf: preSessionToken(ctx, CABINET, req, reply), challenge: step.challenge, failed: false }));
    return enterSession(ctx, CABINET, req, reply, step.userId);
  });

  signInCodeRoute(app, ctx);

  app.get('/cabinet/sign-up', async (req, reply) => {
    if (!signupOpen()) return sendPage(reply, 404, messagePage(null, 'Not found', 'There is no such page.'));
    return sendPage(reply, 200, signUpPage({ csrf: preSessionToken(ctx, CABINET, req, reply), company: '', email: '', error: null }));
  });

  app.post('/cabinet/sign-up', withForm(SignUpForm, { invalid: 'route' }), async (req, reply) => {
    if (!signupOpen()) return sendPage(reply, 404, messagePage(null, 'Not found', 'There is no such page.'));
    // The sign-in limiter under a key of its own: sign-ups from one address do not lock its sign-ins.
    const admission = await ctx.limits.signIn.take(`sign-up:${req.ip}`);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, CABINET, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the sign-up page and try again.'));
    const { form, problem } = formWithProblem(req, SignUpForm);
    const company = str(form.company, 100);
    const email = str(form.email, 320);
    // A value the form cannot take: the form again, with what was typed (passwords aside).
    if (problem) return sendPage(reply, 400, signUpPage({ csrf: preSessionToken(ctx, CABINET, req, reply), company, email, error: sentence(problem) }));
    try {
      const { user } = await signUpMerchant(ctx, { company, email, password: form.password ?? '', lang: requestLang(req) });
      return enterSession(ctx, CABINET, req, reply, user.id);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'VALIDATION_ERROR' && err.code !== 'EMAIL_TAKEN')) throw err;
      const message = err.code === 'EMAIL_TAKEN' ? 'This email already has an account. Sign in instead.' : sentence(err.detail);
      return sendPage(reply, err.code === 'EMAIL_TAKEN' ? 409 : 400, signUpPage({ csrf: preSessionToken(ctx, CABINET, req, reply), company, email, error: message }));
    }
  });

  invitationRoutes(app, ctx);
  passwordResetRoutes(app, ctx, CABINET, cabinetResetPages);
  publicLinkRoute(app, ctx);

  app.register(async (signedIn) => {
    signedIn.addHook('preHandler', cabinetSessionHook(ctx));
    signedIn.addHook('preHandler', roleGate(ctx));
    signedIn.setErrorHandler((err, req, reply) => {
      if (err instanceof AppError && req.cabinet) {
        if (NOT_FOUND_CODES.has(err.code)) return sendPage(reply, 404, messagePage(cab(req), 'Not found', 'There is nothing here, or it belongs to another account.'));
        if (err.code === 'VALIDATION_ERROR') return sendPage(reply, 400, messagePage(cab(req), 'Check the form', sentence(err.detail)));
        if (err.code === 'FORBIDDEN') return sendPage(reply, 403, messagePage(cab(req), 'Not for your role', sentence(err.detail)));
        if (err.code === 'PAYLOAD_TOO_LARGE') return sendPage(reply, 413, messagePage(cab(req), 'File too large', sentence(err.detail)));
        return sendPage(reply, 409, messagePage(cab(req), 'Not possible now', sentence(err.detail)));
      }
      return handlePageError(err, req, reply);
    });
    registerSignedIn(signedIn, ctx);
    accountRoutes(signedIn, ctx);
    deskRoutes(signedIn, ctx);
    orderRoutes(signedIn, ctx);
    await appealRoutes(signedIn, ctx);
    balanceRoutes(signedIn, ctx);
    statementRoutes(signedIn, ctx);
    twoFactorRoutes(signedIn, ctx);
    callbackRoutes(signedIn, ctx);
    webhookRoutes(signedIn, ctx);
    linkRoutes(signedIn, ctx);
    withdrawalRoutes(signedIn, ctx);
    teamRoutes(signedIn, ctx);
    applicationRoutes(signedIn, ctx);
  });
}

function registerSignedIn(app: FastifyInstance, ctx: Ctx): void {
  app.post('/cabinet/sign-out', withForm(ButtonForm), async (req, reply) => {
    await endSession(ctx, cab(req).session);
    setCookies(reply, [cookieHeader(ctx, SESSION_COOKIE, '', 0)]);
    return seeOther(reply, '/cabinet/sign-in');
  });

  app.get('/cabinet', async (req, reply) => {
    const c = cab(req);
    const [progress, desks, application] = await Promise.all([
      onboardingProgress(ctx, c.merchant.id),
      listDeskViews(ctx, { merchantId: c.merchant.id, limit: 1 }),
      findMerchantApplication(ctx, c.merchant.id),
    ]);
    const first = desks.items[0];
    return sendPage(reply, 200, homePage(c, { progress, firstDesk: first ? { id: first.id, name: first.name, key: first.key } : null, baseUrl: ctx.config.publicBaseUrl, application }));
  });
}
