import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { checkSignIn } from '../../services/accounts.js';
import { officeOperator } from '../../services/office.js';
import { answerChallenge, issueChallenge, twoFactorStatus } from '../../services/twoFactor.js';
import { sendPage } from '../layout.js';
import { enterSession, preSessionCsrfValid, preSessionToken, seeOther, sendTooManyAttempts } from '../session.js';
import { formOf, SignInCodeForm, SignInForm, withForm } from '../forms.js';
import { handlePageError } from '../formGuard.js';
import { kitFor, sentence, str, type Kit, type OfficeExtensions } from './kit.js';
import { OFFICE, officeSessionHook } from './session.js';
import { messagePage } from './ui.js';
import { codePage, signInPage } from './views/signIn.js';
import { officeResetPages } from './views/passwordReset.js';
import { passwordResetRoutes } from '../passwordReset.js';
import { accountRoutes } from './routes/account.js';
import { appealRoutes } from './routes/appeals.js';
import { auditRoutes } from './routes/audit.js';
import { capRoutes } from './routes/caps.js';
import { merchantRoutes } from './routes/merchants.js';
import { operatorRoutes } from './routes/operators.js';
import { orderRoutes } from './routes/orders.js';
import { providerRoutes } from './routes/providers.js';
import { queueRoutes } from './routes/queues.js';
import { rateRoutes } from './routes/rates.js';
import { tariffRoutes } from './routes/tariffs.js';
import { mailRoutes } from './routes/mail.js';
import { withdrawalRoutes } from './routes/withdrawals.js';

/**
 * The operators' back office (web spec, "Back office"): sign-in with the required second factor in
 * front; queues, objects, pictures and the audit trail behind the session. Each action calls the
 * same service as its `/admin/v1` counterpart inside `audited()`, with the operator's id as actor,
 * so the action and its audit entry commit together.
 */
export function officeRoutes(app: FastifyInstance, ctx: Ctx, extensions: OfficeExtensions = {}): void {
  app.get('/office/sign-in', async (req, reply) => {
    const notice = (req.query as Record<string, unknown>).reset === '1' ? 'Your password is changed, and every session of your account is signed out. Sign in with the new password.' : null;
    return sendPage(reply, 200, signInPage({ csrf: preSessionToken(ctx, OFFICE, req, reply), email: '', failed: false, notice }));
  });
  passwordResetRoutes(app, ctx, OFFICE, officeResetPages);

  app.post('/office/sign-in', withForm(SignInForm), async (req, reply) => {
    const admission = await ctx.limits.signIn.take(`office:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, OFFICE, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, OFFICE, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInForm);
    const email = str(form.email, 320);
    const check = await checkSignIn(ctx, 'office', email, form.password ?? '');
    // Ten wrong passwords on the account from any addresses (ACCOUNT_LOCK): not even checked now.
    if (check.kind === 'locked') return sendTooManyAttempts(ctx, OFFICE, req, reply, check.retryAfterMs);
    if (check.kind === 'refused') return sendPage(reply, 401, signInPage({ csrf: preSessionToken(ctx, OFFICE, req, reply), email, failed: true }));
    const operator = check.account;
    // A disabled operator gets the same answer as a wrong password: nothing says the account exists.
    if (!(await officeOperator(ctx, operator.id))) return sendPage(reply, 401, signInPage({ csrf: preSessionToken(ctx, OFFICE, req, reply), email, failed: true }));
    if ((await twoFactorStatus(ctx, 'office', operator.id)).enabled) {
      return sendPage(reply, 200, codePage({ csrf: preSessionToken(ctx, OFFICE, req, reply), challenge: issueChallenge(ctx, 'office', operator.id), failed: false }));
    }
    return enterSession(ctx, OFFICE, req, reply, operator.id);
  });

  app.post('/office/sign-in/code', withForm(SignInCodeForm), async (req, reply) => {
    // Codes are guessed like passwords: the same limit, counted apart from the password step.
    const admission = await ctx.limits.signIn.take(`office-code:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, OFFICE, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, OFFICE, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInCodeForm);
    const challenge = str(form.challenge, 200);
    const answer = await answerChallenge(ctx, 'office', challenge, str(form.code, 40));
    switch (answer.kind) {
      case 'expired':
        return sendPage(reply, 401, messagePage(null, 'Sign in again', 'The code step took too long. Sign in with your password again.'));
      case 'void':
        // Five codes on one challenge: it is spent, and the password step starts over.
        return sendPage(reply, 401, messagePage(null, 'Sign in again', 'Too many codes were tried for this sign-in. Sign in with your password again.'));
      case 'locked':
        return sendTooManyAttempts(ctx, OFFICE, req, reply, answer.retryAfterMs);
      case 'wrong':
        return sendPage(reply, 401, codePage({ csrf: preSessionToken(ctx, OFFICE, req, reply), challenge, failed: true }));
      case 'ok':
        return enterSession(ctx, OFFICE, req, reply, answer.accountId);
    }
  });

  app.register(async (signedIn) => {
    const kit = kitFor(signedIn, ctx, extensions.nav ?? [], extensions.home ?? []);
    signedIn.addHook('preHandler', officeSessionHook(ctx));
    signedIn.addHook('preHandler', twoFactorGate(ctx));
    signedIn.setErrorHandler(async (err, req, reply) => {
      if (err instanceof AppError && req.office) {
        const status = ERROR_STATUS[err.code];
        const title = status === 404 ? 'Not found' : status === 400 ? 'Check the form' : 'Not possible now';
        const message = status === 404 ? 'There is nothing here.' : sentence(err.detail);
        return sendPage(reply, status === 404 || status === 400 ? status : 409, messagePage(await kit.shell(req), title, message));
      }
      return handlePageError(err, req, reply);
    });
    registerSignedIn(signedIn, kit);
    // Other rooms' pages (src/app wires them) behind the same session, CSRF check and gate.
    for (const family of extensions.pages ?? []) await family(signedIn, kit);
  });
}

const ENROL_PATHS = new Set(['/office/two-factor', '/office/sign-out']);

/**
 * With OFFICE_REQUIRE_2FA, an operator without a confirmed second factor reaches only the
 * enrolment page and sign-out: every other page leads there and every other action is refused.
 * Support operators too: they accept appeals, which credits merchants.
 */
function twoFactorGate(ctx: Ctx) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const o = req.office;
    if (!o || !ctx.config.officeRequire2fa) return;
    if (ENROL_PATHS.has(req.url.split('?')[0]!)) return;
    if ((await twoFactorStatus(ctx, 'office', o.operator.id)).enabled) return;
    if (req.method === 'GET' || req.method === 'HEAD') return seeOther(reply, '/office/two-factor');
    return reply.code(403).type('text/plain; charset=utf-8').send('Set up two-factor sign-in first.');
  };
}

function registerSignedIn(app: FastifyInstance, kit: Kit): void {
  accountRoutes(app, kit);
  queueRoutes(app, kit);
  withdrawalRoutes(app, kit);
  merchantRoutes(app, kit);
  orderRoutes(app, kit);
  appealRoutes(app, kit);
  providerRoutes(app, kit);
  rateRoutes(app, kit);
  tariffRoutes(app, kit);
  capRoutes(app, kit);
  operatorRoutes(app, kit);
  auditRoutes(app, kit);
  mailRoutes(app, kit);
}
