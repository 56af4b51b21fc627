import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import QRCode from 'qrcode';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import type { Scope, Window } from '../../domain/turnover.js';
import { checkSignIn } from '../../services/accounts.js';
import { acceptAppeal, appealReceiptFile, rejectAppeal } from '../../services/appeals.js';
import { audited, listAudit } from '../../services/audit.js';
import { orderCallbackLog, resendOrder } from '../../services/events.js';
import * as office from '../../services/office.js';
import * as op from '../../services/operator.js';
import * as actions from '../../services/orderActions.js';
import { getOperatorOrder } from '../../services/orders.js';
import { pauseProvider } from '../../services/providersAdmin.js';
import { endSession } from '../../services/sessions.js';
import { createLimit, removeLimit } from '../../services/turnover.js';
import { answerChallenge, beginEnrolment, confirmEnrolment, issueChallenge, pendingEnrolment, twoFactorStatus } from '../../services/twoFactor.js';
import { recordWithdrawal } from '../../services/withdrawals.js';
import { sendPage } from '../layout.js';
import { sendReceipt } from '../receipt.js';
import { cookieHeader, enterSession, preSessionCsrfValid, preSessionToken, seeOther, sendTooManyAttempts, setCookies } from '../session.js';
import { ButtonForm, formOf, SignInCodeForm, SignInForm, withForm, type FormSchema } from '../forms.js';
import { handlePageError } from '../formGuard.js';
import * as forms from './forms.js';
import { off, OFFICE, officeSessionHook, type OfficeRequest } from './session.js';
import * as v from './view.js';

const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name]!;
const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
const str = (x: unknown, max = 200) => (typeof x === 'string' ? x.trim().slice(0, max) : '');

/** Where an action's notice is read back: `?done=` names one of these, never free text. */
const NOTICES: Record<string, string> = {
  approved: 'Merchant approved: live providers serve it from now on.',
  blocked: 'Merchant blocked: its orders answer MERCHANT_INACTIVE.',
  unblocked: 'Merchant unblocked.',
  withdrawn: 'Withdrawal recorded: the balance shrank by its amount.',
  stopped: 'Desk stopped: its orders answer SHOP_STOPPED with the reason.',
  resumed: 'Resumed.',
  accepted: 'Appeal accepted: the order is completed and the merchant credited.',
  rejected: 'Appeal rejected: the order is cancelled.',
  confirmed: 'Payment confirmed: the order is completed and the merchant credited.',
  paused: 'Provider paused: the cascade skips it.',
  rate: 'Manual rate set: it takes precedence over the market.',
  currency: 'Currency setting saved.',
  sandbox: 'Sandbox setting changed.',
  'rate-removed': 'Manual rate removed: the market rate applies again.',
  'cap-added': 'Cap added.',
  'cap-removed': 'Cap removed.',
};
const doneOf = (req: FastifyRequest) => NOTICES[str(query(req).done, 20)] ?? null;

const ORDER_NOTICES: Record<string, { kind: 'ok'; text: string }> = {
  resent: { kind: 'ok', text: 'The current state was sent as a new event.' },
  confirmed: { kind: 'ok', text: 'Payment confirmed: the order is completed and the merchant credited.' },
  rejected: { kind: 'ok', text: 'Order rejected: it is cancelled.' },
  reversed: { kind: 'ok', text: 'Reversed: what the order had on the balance is taken back.' },
  reported: { kind: 'ok', text: 'Marked paid: the order waits for confirmation.' },
  simulated: { kind: 'ok', text: 'Payment simulated: the order is completed.' },
};

/** A service detail ("amountUsd: must be …") as a sentence for a person. */
function sentence(detail: string | null): string {
  if (!detail) return 'That is not possible now.';
  return /[.!?]$/.test(detail) ? detail : `${detail}.`;
}

/**
 * The operators' back office (web spec, "Back office"): sign-in with the required second factor in
 * front; queues, objects, pictures and the audit trail behind the session. Each action calls the
 * same service as its `/admin/v1` counterpart inside `audited()`, with the operator's id as actor,
 * so the action and its audit entry commit together.
 */
export function officeRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/office/sign-in', async (req, reply) => sendPage(reply, 200, v.signInPage({ csrf: preSessionToken(ctx, OFFICE, req, reply), email: '', failed: false })));

  app.post('/office/sign-in', withForm(SignInForm), async (req, reply) => {
    const admission = await ctx.limits.signIn.take(`office:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, OFFICE, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, OFFICE, req)) return sendPage(reply, 403, v.messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInForm);
    const email = str(form.email, 320);
    const check = await checkSignIn(ctx, 'office', email, form.password ?? '');
    // Ten wrong passwords on the account from any addresses (ACCOUNT_LOCK): not even checked now.
    if (check.kind === 'locked') return sendTooManyAttempts(ctx, OFFICE, req, reply, check.retryAfterMs);
    if (check.kind === 'refused') return sendPage(reply, 401, v.signInPage({ csrf: preSessionToken(ctx, OFFICE, req, reply), email, failed: true }));
    const operator = check.account;
    if ((await twoFactorStatus(ctx, 'office', operator.id)).enabled) {
      return sendPage(reply, 200, v.codePage({ csrf: preSessionToken(ctx, OFFICE, req, reply), challenge: issueChallenge(ctx, 'office', operator.id), failed: false }));
    }
    return enterSession(ctx, OFFICE, req, reply, operator.id);
  });

  app.post('/office/sign-in/code', withForm(SignInCodeForm), async (req, reply) => {
    // Codes are guessed like passwords: the same limit, counted apart from the password step.
    const admission = await ctx.limits.signIn.take(`office-code:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, OFFICE, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, OFFICE, req)) return sendPage(reply, 403, v.messagePage(null, 'Form expired', 'Reload the sign-in page and try again.'));
    const form = formOf(req, SignInCodeForm);
    const challenge = str(form.challenge, 200);
    const answer = await answerChallenge(ctx, 'office', challenge, str(form.code, 40));
    switch (answer.kind) {
      case 'expired':
        return sendPage(reply, 401, v.messagePage(null, 'Sign in again', 'The code step took too long. Sign in with your password again.'));
      case 'void':
        // Five codes on one challenge: it is spent, and the password step starts over.
        return sendPage(reply, 401, v.messagePage(null, 'Sign in again', 'Too many codes were tried for this sign-in. Sign in with your password again.'));
      case 'locked':
        return sendTooManyAttempts(ctx, OFFICE, req, reply, answer.retryAfterMs);
      case 'wrong':
        return sendPage(reply, 401, v.codePage({ csrf: preSessionToken(ctx, OFFICE, req, reply), challenge, failed: true }));
      case 'ok':
        return enterSession(ctx, OFFICE, req, reply, answer.accountId);
    }
  });

  app.register(async (signedIn) => {
    signedIn.addHook('preHandler', officeSessionHook(ctx));
    signedIn.addHook('preHandler', twoFactorGate(ctx));
    signedIn.setErrorHandler(async (err, req, reply) => {
      if (err instanceof AppError && req.office) {
        const status = ERROR_STATUS[err.code];
        const title = status === 404 ? 'Not found' : status === 400 ? 'Check the form' : 'Not possible now';
        const message = status === 404 ? 'There is nothing here.' : sentence(err.detail);
        return sendPage(reply, status === 404 || status === 400 ? status : 409, v.messagePage(await shell(ctx, req), title, message));
      }
      return handlePageError(err, req, reply);
    });
    registerSignedIn(signedIn, ctx);
  });
}

async function shell(ctx: Ctx, req: FastifyRequest): Promise<v.Shell> {
  return { o: off(req), counts: await office.queueCounts(ctx) };
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

/** The answer to a `support` operator posting an admin action. */
async function refuseSupport(ctx: Ctx, req: FastifyRequest, reply: FastifyReply) {
  return sendPage(reply, 403, v.messagePage(await shell(ctx, req), 'Administrators only', 'This action is for administrators. Ask one to take it.'));
}

function registerSignedIn(app: FastifyInstance, ctx: Ctx): void {
  /** An action as `/admin/v1` takes it: the same service, audited in its transaction, actor = the operator. */
  const act = <T>(req: FastifyRequest, action: string, objectId: string | null, fn: (c: Ctx) => Promise<T>, objectOf?: (r: T) => string | null) =>
    audited(ctx, { actor: off(req).operator.id, action, objectId, objectOf }, fn);

  /**
   * Registers a POST only administrators may take, with its form: a support operator gets 403 before
   * the form is looked at, and nothing happens.
   */
  const adminOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!v.isAdmin(off(req))) return refuseSupport(ctx, req, reply);
  };
  const adminPost = (path: string, form: FormSchema, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    app.post(path, withForm(form, { preHandler: adminOnly }), handler);

  /**
   * An admin action on the object in the path: the form checked first (a refusal is a 400 page and
   * no action), then the service in `audited()`, then 303 to where its notice is shown.
   */
  const objectAction = <F extends FormSchema>(
    path: string,
    action: string,
    form: F,
    fn: (c: Ctx, id: string, f: Static<F>) => Promise<unknown>,
    back: (id: string, f: Static<F>) => string,
    check?: (f: Static<F>) => string | null,
  ) =>
    adminPost(path, form, async (req, reply) => {
      const id = param(req, 'id');
      const f = formOf(req, form);
      const problem = check?.(f);
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      await act(req, action, id, (c) => fn(c, id, f));
      return seeOther(reply, back(id, f));
    });

  const page = async (req: FastifyRequest, reply: FastifyReply, render: (s: v.Shell) => ReturnType<typeof v.officePage>, status = 200) =>
    sendPage(reply, status, render(await shell(ctx, req)));

  app.post('/office/sign-out', withForm(ButtonForm), async (req, reply) => {
    await endSession(ctx, off(req).session);
    setCookies(reply, [cookieHeader(ctx, OFFICE.session, '', 0)]);
    return seeOther(reply, OFFICE.signInPath);
  });

  // ---- two-factor enrolment

  const enrolment = async (o: OfficeRequest) =>
    (await pendingEnrolment(ctx, 'office', o.operator.id, o.operator.email)) ?? (await beginEnrolment(ctx, 'office', o.operator.id, o.operator.email));
  const qr = (uri: string) => QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then((svg) => svg.replace('<svg ', '<svg role="img" aria-label="QR code of the authenticator secret" class="qr-code" '));
  const required = ctx.config.officeRequire2fa;

  app.get('/office/two-factor', async (req, reply) => {
    const o = off(req);
    const status = await twoFactorStatus(ctx, 'office', o.operator.id);
    if (status.enabled || (!required && query(req).setup !== '1')) return page(req, reply, (s) => v.twoFactorStatusPage(s, status));
    const e = await enrolment(o);
    const svg = await qr(e.uri);
    return page(req, reply, (s) => v.enrolPage(s, { ...e, qrSvg: svg, error: null, required: required }));
  });

  app.post('/office/two-factor', withForm(forms.TwoFactorForm), async (req, reply) => {
    const o = off(req);
    // Already on: a stray form must not start a new secret over the one in force.
    if ((await twoFactorStatus(ctx, 'office', o.operator.id)).enabled) return seeOther(reply, '/office/two-factor');
    const codes = await confirmEnrolment(ctx, 'office', o.operator.id, str(formOf(req, forms.TwoFactorForm).code, 40));
    if (!codes) {
      const e = await enrolment(o);
      const svg = await qr(e.uri);
      return page(req, reply, (s) => v.enrolPage(s, { ...e, qrSvg: svg, error: 'That code does not match. Check the time on your phone and enter the current code.', required: required }), 400);
    }
    return page(req, reply, (s) => v.recoveryCodesPage(s, codes));
  });

  // ---- dashboard and queues

  app.get('/office', async (req, reply) => {
    const d = await office.dashboard(ctx);
    return page(req, reply, (s) => v.homePage(s, d));
  });
  app.get('/office/queues/review', async (req, reply) => {
    const rows = await office.reviewQueue(ctx);
    return page(req, reply, (s) => v.reviewQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/appeals', async (req, reply) => {
    const rows = await office.appealQueue(ctx, str(query(req).after, 64) || undefined);
    return page(req, reply, (s) => v.appealQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/payed', async (req, reply) => {
    const rows = await office.payedQueue(ctx);
    return page(req, reply, (s) => v.payedQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/reconcile', async (req, reply) => {
    const rows = await office.reconcileQueue(ctx);
    return page(req, reply, (s) => v.reconcileQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/callbacks', async (req, reply) => {
    const rows = await office.callbackQueue(ctx);
    return page(req, reply, (s) => v.callbackQueuePage(s, rows));
  });

  // ---- merchants

  app.get('/office/merchants', async (req, reply) => {
    const status = str(query(req).status, 20);
    if (status && !['UnderReview', 'Active', 'Blocked'].includes(status)) throw new AppError('VALIDATION_ERROR', 'status: one of UnderReview, Active, Blocked');
    const list = await op.listMerchantViews(ctx, { status: status || null, before: str(query(req).before, 64) || undefined, limit: 50 });
    return page(req, reply, (s) => v.merchantsPage(s, list, status));
  });
  app.get('/office/merchants/:id', async (req, reply) => {
    const m = await office.merchantOverview(ctx, param(req, 'id'));
    return page(req, reply, (s) => v.merchantPage(s, m, doneOf(req), null));
  });
  objectAction('/office/merchants/:id/approve', 'merchant.approve', ButtonForm, (c, id) => op.approveMerchant(c, id), (id) => `/office/merchants/${id}?done=approved`);
  objectAction('/office/merchants/:id/block', 'merchant.block', forms.BlockForm, (c, id, f) => op.blockMerchant(c, id, str(f.reason, 500) || null), (id) => `/office/merchants/${id}?done=blocked`);
  objectAction('/office/merchants/:id/unblock', 'merchant.unblock', ButtonForm, (c, id) => op.unblockMerchant(c, id), (id) => `/office/merchants/${id}?done=unblocked`);
  objectAction(
    '/office/merchants/:id/sandbox',
    'merchant.update',
    forms.SandboxForm,
    (c, id, f) => op.patchMerchant(c, id, { sandbox: f.sandbox === 'true' }),
    (id) => `/office/merchants/${id}?done=sandbox`,
    (f) => (f.sandbox === undefined ? 'Sandbox: true or false' : null),
  );
  objectAction(
    '/office/merchants/:id/withdrawals',
    'merchant.withdraw',
    forms.WithdrawalForm,
    (c, id, f) => recordWithdrawal(c, id, { amountUsd: str(f.amountUsd, 40), reference: str(f.reference, 200) }),
    (id) => `/office/merchants/${id}?done=withdrawn`,
    (f) => {
      if (!f.amountUsd) return 'Amount: a decimal amount in USD, such as 100 or 99.50';
      return str(f.reference, 200) ? null : 'Reference: give the transfer reference';
    },
  );

  // ---- desks

  app.get('/office/desks/:id', async (req, reply) => {
    const d = await op.getDesk(ctx, param(req, 'id'));
    const audit = await listAudit(ctx, { objectId: d.id, limit: 50 });
    return page(req, reply, (s) => v.deskPage(s, { ...d, rails: d.rails ?? [], currencies: d.currencies ?? [] }, audit.items, doneOf(req)));
  });
  objectAction('/office/desks/:id/stop', 'desk.stop', forms.StopDeskForm, (c, id, f) => op.stopDesk(c, id, str(f.reason, 500)), (id) => `/office/desks/${id}?done=stopped`, (f) =>
    str(f.reason, 500) ? null : 'Reason: say why the desk is stopped; the merchant sees it',
  );
  objectAction('/office/desks/:id/resume', 'desk.resume', ButtonForm, (c, id) => op.resumeDesk(c, id), (id) => `/office/desks/${id}?done=resumed`);

  // ---- orders

  app.get('/office/orders', async (req, reply) => {
    const q = query(req);
    const f = { q: str(q.q, 100), status: str(q.status, 20), merchantId: str(q.merchantId, 64), deskId: str(q.deskId, 64) };
    const before = str(q.before, 64) || undefined;
    try {
      if (f.status && !ORDER_STATUSES.includes(f.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${ORDER_STATUSES.join(', ')}`);
      const list = await office.searchOrders(ctx, { q: f.q || undefined, status: f.status || undefined, merchantId: f.merchantId || undefined, deskId: f.deskId || undefined, before, limit: 50 });
      return page(req, reply, (s) => v.ordersPage(s, f, list, null));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return page(req, reply, (s) => v.ordersPage(s, f, { items: [], hasMore: false, next: null }, sentence(err.detail)), 400);
    }
  });
  app.get('/office/orders/:id', async (req, reply) => {
    const o = await getOperatorOrder(ctx, param(req, 'id'));
    const [timeline, callbacks] = await Promise.all([office.orderTimeline(ctx, o), orderCallbackLog(ctx, {}, o.id)]);
    return page(req, reply, (s) => v.orderPage(s, o, timeline, callbacks, ORDER_NOTICES[str(query(req).done, 20)] ?? null));
  });
  const orderBack = (done: string) => (id: string) => `/office/orders/${id}?done=${done}`;
  objectAction('/office/orders/:id/confirm', 'order.confirm', forms.ConfirmForm, (c, id) => actions.confirmPayment(c, id), (id, f) => queueBack(f.from, 'confirmed') ?? orderBack('confirmed')(id));
  objectAction('/office/orders/:id/reject', 'order.reject', ButtonForm, (c, id) => actions.rejectOrder(c, id), orderBack('rejected'));
  objectAction('/office/orders/:id/report-payment', 'order.reportPayment', ButtonForm, (c, id) => actions.reportPayment(c, id, null), orderBack('reported'));
  objectAction('/office/orders/:id/simulate-payment', 'order.simulatePayment', ButtonForm, (c, id) => actions.simulatePayment(c, {}, id), orderBack('simulated'));
  objectAction('/office/orders/:id/reverse', 'order.reverse', forms.ReverseForm, (c, id, f) => actions.reverseOrder(c, id, str(f.reason, 500)), orderBack('reversed'), (f) =>
    str(f.reason, 500) ? null : 'Reason: say why the order is reversed',
  );
  app.post('/office/orders/:id/resend', withForm(ButtonForm), async (req, reply) => {
    const id = param(req, 'id');
    await act(req, 'order.resend', id, (c) => resendOrder(c, {}, id));
    return seeOther(reply, `/office/orders/${id}?done=resent`);
  });

  // ---- appeals (support decides them too)

  app.get('/office/appeals/:id', async (req, reply) => {
    const a = await office.appealForReview(ctx, param(req, 'id'));
    const audit = await listAudit(ctx, { objectId: a.id, limit: 50 });
    return page(req, reply, (s) => v.appealPage(s, a, audit.items));
  });
  app.get('/office/appeals/:id/receipt', async (req, reply) => {
    const id = param(req, 'id');
    return sendReceipt(reply, id, await appealReceiptFile(ctx, null, id));
  });
  for (const [verb, decide] of [['accept', acceptAppeal], ['reject', rejectAppeal]] as const) {
    app.post(`/office/appeals/:id/${verb}`, withForm(forms.AppealDecisionForm), async (req, reply) => {
      const id = param(req, 'id');
      const comment = str(formOf(req, forms.AppealDecisionForm).comment, 2000);
      await act(req, `appeal.${verb}`, id, (c) => decide(c, id, comment || null));
      return seeOther(reply, `/office/queues/appeals?done=${verb === 'accept' ? 'accepted' : 'rejected'}`);
    });
  }

  // ---- providers

  app.get('/office/providers', async (req, reply) => {
    const list = await office.providersOverview(ctx);
    return page(req, reply, (s) => v.providersPage(s, list, doneOf(req)));
  });
  app.get('/office/providers/:id', async (req, reply) => {
    const h = await office.providerHealth(ctx, param(req, 'id'));
    return page(req, reply, (s) => v.providerPage(s, h, doneOf(req)));
  });
  for (const [verb, paused] of [['pause', true], ['resume', false]] as const) {
    objectAction(`/office/providers/:id/${verb}`, `provider.${verb}`, ButtonForm, (c, id) => pauseProvider(c, id, paused), (id) => `/office/providers/${id}?done=${paused ? 'paused' : 'resumed'}`);
  }

  // ---- rates, tariffs, caps

  app.get('/office/rates', async (req, reply) => {
    const rates = await office.ratesOverview(ctx);
    return page(req, reply, (s) => v.ratesPage(s, rates, doneOf(req), ctx.config.rateMaxAgeSeconds, ctx.clock.now()));
  });
  adminPost('/office/rates/:code', forms.RateForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    const rate = str(formOf(req, forms.RateForm).rate, 40);
    if (!rate) throw new AppError('VALIDATION_ERROR', 'Rate: a decimal number, such as 92.5');
    await act(req, 'rate.set', code, (c) => op.putManualRate(c, code, rate));
    return seeOther(reply, '/office/rates?done=rate');
  });
  adminPost('/office/currencies/:code', forms.CurrencyForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    const f = formOf(req, forms.CurrencyForm);
    const spreadPercent = str(f.spreadPercent, 20);
    if (!spreadPercent) throw new AppError('VALIDATION_ERROR', 'Spread: a percentage such as 1.5');
    await act(req, 'currency.update', code, (c) => op.putCurrency(c, code, { enabled: f.enabled === 'true', spreadPercent }));
    return seeOther(reply, '/office/rates?done=currency');
  });
  adminPost('/office/rates/:code/remove', ButtonForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    await act(req, 'rate.remove', code, (c) => op.deleteManualRate(c, code));
    return seeOther(reply, '/office/rates?done=rate-removed');
  });
  app.get('/office/tariffs', async (req, reply) => {
    const list = await office.listTariffViews(ctx);
    return page(req, reply, (s) => v.tariffsPage(s, list));
  });
  app.get('/office/caps', async (req, reply) => {
    const caps = await office.capsWithUsage(ctx);
    return page(req, reply, (s) => v.capsPage(s, caps, doneOf(req), null));
  });
  adminPost('/office/caps', forms.CapForm, async (req, reply) => {
    const f = formOf(req, forms.CapForm);
    const scope = str(f.scope, 20) as Scope;
    const window = str(f.window, 20) as Window;
    const capUsd = str(f.capUsd, 40);
    if (!scope) throw new AppError('VALIDATION_ERROR', 'Scope: platform, merchant, desk or provider');
    if (!window) throw new AppError('VALIDATION_ERROR', 'Window: hour, day or month');
    if (!capUsd) throw new AppError('VALIDATION_ERROR', 'Cap: a decimal amount in USD');
    const input = { scope, scopeId: str(f.scopeId, 64) || null, window, capUsd, notifyOnly: f.notifyOnly === 'true' };
    await act(req, 'turnoverLimit.create', null, (c) => createLimit(c, input), (r) => r.id);
    return seeOther(reply, '/office/caps?done=cap-added');
  });
  adminPost('/office/caps/:id/remove', ButtonForm, async (req, reply) => {
    const id = param(req, 'id');
    await act(req, 'turnoverLimit.remove', id, (c) => removeLimit(c, id));
    return seeOther(reply, '/office/caps?done=cap-removed');
  });

  // ---- audit (read only: there is no route that changes an entry)

  app.get('/office/audit', async (req, reply) => {
    const objectId = str(query(req).objectId, 64);
    const list = await listAudit(ctx, { objectId: objectId || undefined, before: str(query(req).before, 20) || undefined, limit: 50 });
    return page(req, reply, (s) => v.auditPage(s, list, objectId));
  });
}

const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute'];

/** A confirmation taken from a queue goes back to that queue. */
function queueBack(from: 'payed' | 'reconcile' | undefined, done: string): string | null {
  return from ? `/office/queues/${from}?done=${done}` : null;
}
