import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import type { Ctx } from '../../context.js';
import {
  cabinetSignInCode,
  cabinetTwoFactor,
  confirmTwoFactor,
  disableUserTwoFactor,
  regenerateUserRecoveryCodes,
  startTwoFactor,
} from '../../services/cabinet.js';
import { listSessions } from '../../services/sessions.js';
import { sendPage } from '../layout.js';
import { enterSession, preSessionCsrfValid, preSessionToken, seeOther, sendTooManyAttempts } from '../session.js';
import { ButtonForm, formOf, SignInCodeForm, withForm } from '../forms.js';
import { PasswordAgainForm, TwoFactorConfirmForm } from './forms.js';
import { cab, str } from './common.js';
import { CABINET } from './session.js';
import { enrolPage, recoveryCodesPage, signInCodePage, twoFactorCard } from './twoFactorView.js';
import { accountPage } from './accountView.js';
import { messagePage } from './layout.js';
import { signInPage } from './publicView.js';

/** An otpauth address as an SVG QR code (our own markup, no inline style). */
const qrSvg = (uri: string) => QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });

/** The code step of sign-in, before a session exists: same limiter and pre-session CSRF as the password step. */
export function signInCodeRoute(app: FastifyInstance, ctx: Ctx): void {
  app.post('/cabinet/sign-in/code', withForm(SignInCodeForm), async (req, reply) => {
    // The 10-a-minute sign-in limit counts code guesses too, under the same key as passwords.
    const admission = await ctx.limits.signIn.take(req.ip);
    if (!admission.ok) return sendTooManyAttempts(ctx, CABINET, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, CABINET, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInCodeForm);
    const step = await cabinetSignInCode(ctx, str(form.challenge, 200), str(form.code, 40));
    if (step.kind === 'expired') return seeOther(reply, '/cabinet/sign-in?expired=1');
    if (step.kind === 'locked') return sendTooManyAttempts(ctx, CABINET, req, reply, step.retryAfterMs);
    if (step.kind === 'void') {
      // Five codes on one challenge: it is spent, and the password step starts over.
      const notice = 'Too many codes were tried for this sign-in. Enter your password again.';
      return sendPage(reply, 401, signInPage({ csrf: preSessionToken(ctx, CABINET, req, reply), email: '', failed: false, signupOpen: ctx.config.cabinetSignup === 'open', notice }));
    }
    if (step.kind === 'wrong') return sendPage(reply, 401, signInCodePage({ csrf: preSessionToken(ctx, CABINET, req, reply), challenge: step.challenge, failed: true }));
    return enterSession(ctx, CABINET, req, reply, step.userId);
  });
}

/** The account page's two-factor actions, behind the session. */
export function twoFactorRoutes(app: FastifyInstance, ctx: Ctx): void {
  const account = async (req: Parameters<typeof cab>[0], status: number, error: string | null) => {
    const c = cab(req);
    const [sessions, tf] = await Promise.all([listSessions(ctx, c.session), cabinetTwoFactor(ctx, c.user)]);
    return { status, page: accountPage(c, sessions, null, null, twoFactorCard(c, tf, error)) };
  };

  app.post('/cabinet/account/two-factor', withForm(ButtonForm), async (req, reply) => {
    await startTwoFactor(ctx, cab(req).user);
    return seeOther(reply, '/cabinet/account/two-factor');
  });

  app.get('/cabinet/account/two-factor', async (req, reply) => {
    const c = cab(req);
    const tf = await cabinetTwoFactor(ctx, c.user);
    if (!tf.enrolment) return seeOther(reply, '/cabinet/account');
    return sendPage(reply, 200, enrolPage(c, { ...tf.enrolment, qrSvg: await qrSvg(tf.enrolment.uri) }, null));
  });

  app.post('/cabinet/account/two-factor/confirm', withForm(TwoFactorConfirmForm), async (req, reply) => {
    const c = cab(req);
    const codes = await confirmTwoFactor(ctx, c.user, str(formOf(req, TwoFactorConfirmForm).code, 20).replace(/\s/g, ''));
    if (codes) return sendPage(reply, 200, recoveryCodesPage(c, codes, true));
    const tf = await cabinetTwoFactor(ctx, c.user);
    if (!tf.enrolment) return seeOther(reply, '/cabinet/account');
    return sendPage(reply, 400, enrolPage(c, { ...tf.enrolment, qrSvg: await qrSvg(tf.enrolment.uri) }, 'That code is not right. Check the time on your phone and enter the current code.'));
  });

  app.post('/cabinet/account/two-factor/recovery-codes', withForm(PasswordAgainForm), async (req, reply) => {
    const c = cab(req);
    const r = await regenerateUserRecoveryCodes(ctx, c.user, formOf(req, PasswordAgainForm).password ?? '');
    if (r.ok) return sendPage(reply, 200, recoveryCodesPage(c, r.value, false));
    if (r.retryAfterMs !== undefined) return sendTooManyAttempts(ctx, CABINET, req, reply, r.retryAfterMs, '/cabinet/account');
    const { status, page } = await account(req, 400, r.message);
    return sendPage(reply, status, page);
  });

  app.post('/cabinet/account/two-factor/disable', withForm(PasswordAgainForm), async (req, reply) => {
    const c = cab(req);
    const r = await disableUserTwoFactor(ctx, c.user, formOf(req, PasswordAgainForm).password ?? '');
    if (r.ok) return seeOther(reply, '/cabinet/account?done=two-factor-off');
    if (r.retryAfterMs !== undefined) return sendTooManyAttempts(ctx, CABINET, req, reply, r.retryAfterMs, '/cabinet/account');
    const { status, page } = await account(req, 400, r.message);
    return sendPage(reply, status, page);
  });
}

/** The two-factor card of the account page. */
export async function twoFactorCardOf(ctx: Ctx, c: ReturnType<typeof cab>) {
  return twoFactorCard(c, await cabinetTwoFactor(ctx, c.user), null);
}
