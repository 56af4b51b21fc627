import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { sendTooMany } from '../../server/errors.js';
import { cabinetSignIn, changeUserPassword, merchantDesk, onboardingProgress, signUpMerchant } from '../../services/cabinet.js';
import { orderCallbackLog, resendOrder } from '../../services/events.js';
import { methodsFor } from '../../services/gatewayReads.js';
import { createDesk, deskView, listCurrencyViews, listDeskViews, patchDesk, rotateDeskSecret } from '../../services/operator.js';
import { simulatePayment } from '../../services/orderActions.js';
import { sendTestCallback } from '../../services/testCallback.js';
import { orderPageExtras } from '../../services/orderTimeline.js';
import { findOrderRow, listOrderRows } from '../../services/orders.js';
import { orderView } from '../../services/orderViews.js';
import { endSession, listSessions, revokeOwnSession } from '../../services/sessions.js';
import type { OrderRow } from '../../services/shapes.js';
import { sendPage } from '../layout.js';
import { ordersCsv, type OrderCsvRow } from './csv.js';
import { cookieHeader, enterSession, preSessionCsrfValid, preSessionToken, seeOther, sendTooManyAttempts, setCookies } from '../session.js';
import { ButtonForm, formOf, formWithProblem, SignInForm, withForm } from '../forms.js';
import { handlePageError } from '../formGuard.js';
import { DeskEnabledForm, DeskForm, PasswordForm, SignUpForm } from './forms.js';
import { CABINET, cabinetSessionHook, SESSION_COOKIE } from './session.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { appealRoutes } from './appeals.js';
import { balanceRoutes } from './balance.js';
import { callbackRoutes } from './callbacks.js';
import { signInCodeRoute, twoFactorCardOf, twoFactorRoutes } from './twoFactor.js';
import { signInCodePage } from './twoFactorView.js';
import { orderAppealsSection, timelineSection } from './appealsView.js';
import { html } from '../html.js';
import {
  accountPage,
  deskCreatedPage,
  deskPage,
  desksPage,
  EMPTY_DESK_FORM,
  homePage,
  messagePage,
  ORDER_STATUSES,
  orderPage,
  ordersPage,
  secretRotatedPage,
  signInPage,
  signUpPage,
  type DeskForm as DeskFormView,
  type OrderDetail,
  type OrderFilters,
} from './view.js';

/** Orders per list page; the CSV export takes up to 200 (web spec). */
const ORDERS_PAGE = 50;
const CSV_MAX_ROWS = 200;


/**
 * The merchant cabinet (web spec, "Merchant cabinet"): sign-up and sign-in in front, the pages and
 * actions behind the session. Every action calls the same services as the API with the signed-in
 * merchant as scope, so another merchant's desk or order is "not found" like any unknown id.
 */
export function cabinetRoutes(app: FastifyInstance, ctx: Ctx): void {
  const signupOpen = () => ctx.config.cabinetSignup === 'open';

  app.get('/cabinet/sign-in', async (req, reply) => {
    const csrf = preSessionToken(ctx, CABINET, req, reply);
    // After a sign-in code step that took too long: the password step starts again.
    const notice = query(req).expired === '1' ? 'The sign-in step took too long. Enter your password again.' : null;
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
      const { user } = await signUpMerchant(ctx, { company, email, password: form.password ?? '' });
      return enterSession(ctx, CABINET, req, reply, user.id);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'VALIDATION_ERROR' && err.code !== 'EMAIL_TAKEN')) throw err;
      const message = err.code === 'EMAIL_TAKEN' ? 'This email already has an account. Sign in instead.' : sentence(err.detail);
      return sendPage(reply, err.code === 'EMAIL_TAKEN' ? 409 : 400, signUpPage({ csrf: preSessionToken(ctx, CABINET, req, reply), company, email, error: message }));
    }
  });

  app.register(async (signedIn) => {
    signedIn.addHook('preHandler', cabinetSessionHook(ctx));
    signedIn.setErrorHandler((err, req, reply) => {
      if (err instanceof AppError && req.cabinet) {
        if (NOT_FOUND_CODES.has(err.code)) return sendPage(reply, 404, messagePage(cab(req), 'Not found', 'There is nothing here, or it belongs to another account.'));
        if (err.code === 'VALIDATION_ERROR') return sendPage(reply, 400, messagePage(cab(req), 'Check the form', sentence(err.detail)));
        if (err.code === 'PAYLOAD_TOO_LARGE') return sendPage(reply, 413, messagePage(cab(req), 'File too large', sentence(err.detail)));
        return sendPage(reply, 409, messagePage(cab(req), 'Not possible now', sentence(err.detail)));
      }
      return handlePageError(err, req, reply);
    });
    registerSignedIn(signedIn, ctx);
    await appealRoutes(signedIn, ctx);
    balanceRoutes(signedIn, ctx);
    twoFactorRoutes(signedIn, ctx);
    callbackRoutes(signedIn, ctx);
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
    const [progress, desks] = await Promise.all([onboardingProgress(ctx, c.merchant.id), listDeskViews(ctx, { merchantId: c.merchant.id, limit: 1 })]);
    const first = desks.items[0];
    return sendPage(reply, 200, homePage(c, { progress, firstDesk: first ? { id: first.id, key: first.key } : null, baseUrl: ctx.config.publicBaseUrl }));
  });

  // ---- account

  app.get('/cabinet/account', async (req, reply) => {
    const c = cab(req);
    const done = query(req).done;
    const notice =
      done === 'password' ? 'Password changed. Every other session has been signed out.'
      : done === 'revoked' ? 'That session is signed out.'
      : done === 'two-factor-off' ? 'Two-factor sign-in is off.'
      : null;
    return sendPage(reply, 200, accountPage(c, await listSessions(ctx, c.session), notice, null, await twoFactorCardOf(ctx, c)));
  });

  app.post('/cabinet/account/password', withForm(PasswordForm), async (req, reply) => {
    const c = cab(req);
    const form = formOf(req, PasswordForm);
    const r = await changeUserPassword(ctx, c.session, form.currentPassword ?? '', form.newPassword ?? '');
    if (!r.ok && r.retryAfterMs !== undefined) return sendTooManyAttempts(ctx, CABINET, req, reply, r.retryAfterMs, '/cabinet/account');
    if (!r.ok) return sendPage(reply, 400, accountPage(c, await listSessions(ctx, c.session), null, r.message, await twoFactorCardOf(ctx, c)));
    return seeOther(reply, '/cabinet/account?done=password');
  });

  app.post('/cabinet/account/sessions/:handle/revoke', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    // Another account's session handle matches nothing: the same 404 as an unknown one.
    if (!(await revokeOwnSession(ctx, c.session, param(req, 'handle')))) throw new AppError('NOT_FOUND', 'no such session');
    return seeOther(reply, '/cabinet/account?done=revoked');
  });

  // ---- desks

  const desksOf = async (merchantId: string) => (await listDeskViews(ctx, { merchantId, limit: 500 })).items;
  const enabledCurrencies = async () => (await listCurrencyViews(ctx)).filter((c) => c.enabled).map((c) => c.code);

  app.get('/cabinet/desks', async (req, reply) => {
    const c = cab(req);
    return sendPage(reply, 200, desksPage(c, await desksOf(c.merchant.id), await enabledCurrencies(), EMPTY_DESK_FORM, null));
  });

  app.post('/cabinet/desks', withForm(DeskForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, DeskForm);
    const f = deskFormOf(form);
    try {
      const d = await createDesk(ctx, c.merchant.id, { method: f.method, ...deskFields(f, problem) });
      const { secret, ...view } = d;
      return sendPage(reply, 201, deskCreatedPage(c, view, secret, ctx.config.publicBaseUrl));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return sendPage(reply, 400, desksPage(c, await desksOf(c.merchant.id), await enabledCurrencies(), f, sentence(err.detail)));
    }
  });

  app.get('/cabinet/desks/:deskId', async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const picture = await methodsFor(ctx, desk, c.merchant);
    const done = query(req).done;
    const notice =
      done === 'on' ? 'The desk is on: it takes new orders.'
      : done === 'off' ? 'The desk is off: new orders answer SHOP_INACTIVE.'
      : done === 'saved' ? 'Settings saved. New orders use them at once.'
      : null;
    const view = deskView(desk);
    return sendPage(reply, 200, deskPage(c, view, picture, notice, { form: storedDeskForm(view), currencies: await enabledCurrencies(), error: null, test: null }));
  });

  app.post('/cabinet/desks/:deskId/settings', withForm(DeskForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { form, problem } = formWithProblem(req, DeskForm);
    // The method is the desk's for life, whatever the form says.
    const f = { ...deskFormOf(form), method: desk.method };
    try {
      await patchDesk(ctx, desk.id, deskFields(f, problem?.startsWith('method:') ? null : problem));
      return seeOther(reply, `/cabinet/desks/${desk.id}?done=saved`);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      const picture = await methodsFor(ctx, desk, c.merchant);
      const extras = { form: f, currencies: await enabledCurrencies(), error: `${sentence(err.detail)} (${err.code})`, test: null };
      return sendPage(reply, ERROR_STATUS[err.code] === 409 ? 409 : 400, deskPage(c, deskView(desk), picture, null, extras));
    }
  });

  app.post('/cabinet/desks/:deskId/test-callback', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const test = await sendTestCallback(ctx, c.merchant.id, param(req, 'deskId'));
    const desk = await merchantDesk(ctx, c.merchant.id, test.deskId);
    const view = deskView(desk);
    return sendPage(reply, 200, deskPage(c, view, await methodsFor(ctx, desk, c.merchant), null, { form: storedDeskForm(view), currencies: await enabledCurrencies(), error: null, test }));
  });

  app.post('/cabinet/desks/:deskId/enabled', withForm(DeskEnabledForm), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { enabled } = formOf(req, DeskEnabledForm);
    if (enabled === undefined) throw new AppError('VALIDATION_ERROR', 'enabled: must be true or false');
    await patchDesk(ctx, desk.id, { enabled: enabled === 'true' });
    return seeOther(reply, `/cabinet/desks/${desk.id}?done=${enabled === 'true' ? 'on' : 'off'}`);
  });

  app.post('/cabinet/desks/:deskId/secret', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { secret } = await rotateDeskSecret(ctx, desk.id);
    return sendPage(reply, 200, secretRotatedPage(c, deskView(desk), secret, ctx.config.publicBaseUrl));
  });

  // ---- orders

  app.get('/cabinet/orders', async (req, reply) => {
    const c = cab(req);
    const filters = filtersOf(req);
    const desks = (await desksOf(c.merchant.id)).map((d) => d.id);
    const before = str(query(req).before, 64) || undefined;
    try {
      const page = await listOrderRows(ctx, { merchantId: c.merchant.id }, { ...listQuery(filters), before, limit: ORDERS_PAGE });
      return sendPage(reply, 200, ordersPage(c, { filters, lines: page.items.map(orderDetail), next: page.hasMore ? page.next : null, desks, error: null }));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return sendPage(reply, 400, ordersPage(c, { filters, lines: [], next: null, desks, error: sentence(err.detail) }));
    }
  });

  app.get('/cabinet/orders.csv', async (req, reply) => {
    const c = cab(req);
    const page = await listOrderRows(ctx, { merchantId: c.merchant.id }, { ...listQuery(filtersOf(req)), limit: CSV_MAX_ROWS });
    return reply
      .code(200)
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="orders.csv"')
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(ordersCsv(page.items.map(csvRow)));
  });

  app.get('/cabinet/orders/:orderId', async (req, reply) => {
    const c = cab(req);
    const o = await findOrderRow(ctx, { merchantId: c.merchant.id }, param(req, 'orderId'));
    const done = query(req).done;
    // Only an event id is shown back: the query string is the visitor's to write.
    const event = /^evt_[A-Za-z0-9]{1,40}$/.test(str(query(req).event, 64)) ? str(query(req).event, 64) : '';
    const notice =
      done === 'simulated' ? { kind: 'ok' as const, text: 'Payment simulated: the order is completed and its callback is on its way.' }
      : done === 'resent' ? { kind: 'ok' as const, text: `Resent as event ${event || 'with a new id'}.` }
      : null;
    const { attempts, appeals, timeline } = await orderPageExtras(ctx, c.merchant.id, o.id);
    return sendPage(reply, 200, orderPage(c, orderDetail(o), attempts, notice, html`${timelineSection(timeline)}${orderAppealsSection(c, o.id, o.status, appeals)}`));
  });

  app.post('/cabinet/orders/:orderId/resend', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const r = await resendOrder(ctx, { merchantId: c.merchant.id }, param(req, 'orderId'));
    return seeOther(reply, `/cabinet/orders/${r.orderId}?done=resent&event=${r.eventId}`);
  });

  app.post('/cabinet/orders/:orderId/simulate-payment', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const scope = { merchantId: c.merchant.id };
    const o = await findOrderRow(ctx, scope, param(req, 'orderId'));
    try {
      await simulatePayment(ctx, scope, o.id);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      const fresh = await findOrderRow(ctx, scope, o.id);
      return sendPage(reply, 409, orderPage(c, orderDetail(fresh), await orderCallbackLog(ctx, scope, o.id), { kind: 'bad', text: sentence(err.detail) }));
    }
    return seeOther(reply, `/cabinet/orders/${o.id}?done=simulated`);
  });
}

// ---- form and query parsing

/** The desk form as the page shows it again: lists without repeats, an empty limit as 0. */
function deskFormOf(form: Static<typeof DeskForm>): DeskFormView {
  const uniq = (v: string[] = []) => [...new Set(v.map((s) => s.trim()).filter(Boolean))];
  return {
    method: str(form.method, 40),
    rails: uniq(form.rails),
    currencies: uniq(form.currencies).map((s) => s.toUpperCase()),
    minUsd: str(form.minUsd, 40) || '0',
    maxUsd: str(form.maxUsd, 40) || '0',
    callbackUrl: str(form.callbackUrl, 2048),
    callbacksEnabled: form.callbacksEnabled !== 'false',
  };
}

/** The settings form as the desk has them now. */
function storedDeskForm(d: ReturnType<typeof deskView>): DeskFormView {
  return { method: d.method, rails: d.rails, currencies: d.currencies, minUsd: d.minUsd, maxUsd: d.maxUsd, callbackUrl: d.callbackUrl ?? '', callbacksEnabled: d.callbacksEnabled };
}

/** What the schema leaves to the form: at least one currency, and a bound on the lists. */
function deskFormProblem(f: DeskFormView): string | null {
  if (f.currencies.length === 0) return 'currencies: choose at least one currency';
  if (f.rails.length > 50 || f.currencies.length > 50) return 'rails: too many values';
  return null;
}

/**
 * The desk fields of the form, checked (the schema's problem first, in the API's words), as the
 * operator API's create and patch take them; a refusal is VALIDATION_ERROR.
 */
function deskFields(f: DeskFormView, schemaProblem: string | null) {
  const problem = schemaProblem ?? deskFormProblem(f);
  if (problem) throw new AppError('VALIDATION_ERROR', problem);
  return {
    rails: f.rails,
    currencies: f.currencies,
    minUsd: f.minUsd,
    maxUsd: f.maxUsd,
    callbackUrl: f.callbackUrl === '' ? null : f.callbackUrl,
    callbacksEnabled: f.callbacksEnabled,
  };
}

/** Filters from the query string; a malformed one is shown back to be corrected, never dropped silently. */
function filtersOf(req: FastifyRequest): OrderFilters {
  const q = query(req);
  return { status: str(q.status, 20), desk: str(q.desk, 64), from: str(q.from, 40), to: str(q.to, 40), q: str(q.q, 100) };
}

function listQuery(f: OrderFilters) {
  if (f.status && !(ORDER_STATUSES as readonly string[]).includes(f.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${ORDER_STATUSES.join(', ')}`);
  return { status: f.status || undefined, deskId: f.desk || undefined, from: f.from || undefined, to: f.to || undefined, q: f.q || undefined };
}

function orderDetail(o: OrderRow): OrderDetail {
  const v = orderView(o);
  return { ...v, deskId: o.desk_id, sandbox: o.sandbox };
}

function csvRow(o: OrderRow): OrderCsvRow {
  const v = orderDetail(o);
  return {
    id: v.id,
    orderRef: v.orderRef,
    createdAt: v.createdAt,
    status: v.status,
    amount: v.amount,
    currency: v.currency,
    rate: v.settled.rate,
    settledUsd: v.settled.amount,
    commissionUsd: v.commission.amount,
    creditedUsd: v.credited.amount,
    deskId: v.deskId,
    method: v.method,
    rail: v.rail,
    payerReference: v.payerReference,
    finishedAt: v.finishedAt,
  };
}
