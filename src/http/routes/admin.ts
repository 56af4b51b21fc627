import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { AppealStatus } from '../../domain/appealGuard.js';
import type { Scope, Window } from '../../domain/turnover.js';
import * as op from '../../services/operator.js';
import * as actions from '../../services/orderActions.js';
import * as providers from '../../services/providersAdmin.js';
import { acceptAppeal, getAppealForReview, listAppealsForReview, rejectAppeal } from '../../services/appeals.js';
import { orderCallbackLog, resendOrder } from '../../services/events.js';
import { getOperatorOrder, listOperatorOrders } from '../../services/orders.js';
import { createLimit, listLimitViews, listNotificationViews, removeLimit } from '../../services/turnover.js';
import { sendOk } from '../../server/errors.js';
import * as A from '../../schemas/admin.js';
import * as O from '../../schemas/operators.js';
import * as Ap from '../../schemas/applications.js';
import { getMerchantApplication, rejectApplication } from '../../services/applications.js';
import { listOperatorAccounts, patchOperator } from '../../services/operators.js';
import { adminRouteSchema, IdParam } from '../../schemas/common.js';
import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import { audited, listAudit } from '../../services/audit.js';
import { createOperator, createUser } from '../../services/accounts.js';
import { recordWithdrawal } from '../../services/withdrawals.js';
import { listWithdrawalRequests, payWithdrawalRequest, rejectWithdrawalRequest } from '../../services/withdrawalRequests.js';
import * as W from '../../schemas/withdrawals.js';
import type { WithdrawalStatus } from '../../domain/payouts.js';

const doc = adminRouteSchema;

const merchantId = IdParam('`mer_` id');
const deskId = IdParam('`dsk_` id');
const orderId = IdParam('`ord_` id');
const appealId = IdParam('`apl_` id');
const providerId = IdParam('`prv_` id');
const limit = (q: { limit?: number }) => q.limit ?? 100;

/** The operator API: bearer token, the same envelopes as the gateway. Each route: schema, one service call, envelope. */
export function adminRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  /** Every state-changing operator action, audited in the same transaction as its effect. */
  const act = <T>(req: FastifyRequest, action: string, objectId: string | null, fn: (c: Ctx) => Promise<T>, objectOf?: (r: T) => string | null) =>
    audited(ctx, { actor: req.actor ?? 'token', action, objectId, objectOf: objectOf && objectId === null ? objectOf : undefined }, fn);
  return async (admin) => {
    // ---- merchants
    admin.get('/merchants', { schema: doc({ id: 'listMerchants', summary: 'Merchants, newest first', querystring: A.ListMerchantsQuery, ok: A.PageOf(A.MerchantWithBalance) }) }, async (req, reply) =>
      sendOk(req, reply, await op.listMerchantViews(ctx, { status: req.query.status ?? null, before: req.query.before, limit: limit(req.query) })),
    );
    admin.post('/merchants', { schema: doc({ id: 'createMerchant', summary: 'Create a merchant (UnderReview)', body: A.CreateMerchantBody, ok: A.Merchant, status: 201 }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'merchant.create', null, (c) => op.createMerchant(c, { name: req.body.name, sandbox: req.body.sandbox ?? true }), (r) => r.id), 201),
    );
    admin.get('/merchants/:id', { schema: doc({ id: 'getMerchant', summary: 'A merchant with its balance', params: merchantId, ok: A.MerchantWithBalance, errors: ['MERCHANT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await op.getMerchant(ctx, req.params.id)),
    );
    admin.post(
      '/merchants/:id/approve',
      {
        schema: doc({
          id: 'approveMerchant',
          summary: 'Approve: live providers from now on; `warnings` names the desks no live provider serves yet and the currencies priced by demo rates',
          description: 'Desks without a tariff get the default one; with no default, `409 TARIFF_REQUIRED` names them and nothing changes. The application, if any, is approved and the owners are mailed.',
          params: merchantId,
          ok: A.ApprovedMerchant,
          errors: ['MERCHANT_NOT_FOUND', 'TARIFF_REQUIRED'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await act(req, 'merchant.approve', req.params.id, (c) => op.approveMerchant(c, req.params.id))),
    );
    admin.post(
      '/merchants/:id/reject',
      {
        schema: doc({
          id: 'rejectMerchant',
          summary: 'Reject the submitted application with a reason the merchant reads; the merchant may edit it and submit again',
          params: merchantId,
          body: Ap.RejectMerchantBody,
          ok: Ap.MerchantApplication,
          errors: ['MERCHANT_NOT_FOUND', 'APPLICATION_NOT_SUBMITTED'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await act(req, 'merchant.reject', req.params.id, (c) => rejectApplication(c, req.params.id, req.body.reason))),
    );
    admin.get('/merchants/:id/application', { schema: doc({ id: 'getMerchantApplication', summary: 'The merchant\'s application for approval and where it stands', params: merchantId, ok: Ap.MerchantApplication, errors: ['MERCHANT_NOT_FOUND', 'APPLICATION_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getMerchantApplication(ctx, req.params.id)),
    );
    admin.post('/merchants/:id/block', { schema: doc({ id: 'blockMerchant', summary: 'Block: orders answer MERCHANT_INACTIVE', params: merchantId, body: A.BlockBody, ok: A.Merchant, errors: ['MERCHANT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'merchant.block', req.params.id, (c) => op.blockMerchant(c, req.params.id, req.body.reason ?? null))),
    );
    admin.post('/merchants/:id/unblock', { schema: doc({ id: 'unblockMerchant', summary: 'Back to the status before the block', params: merchantId, ok: A.Merchant, errors: ['MERCHANT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'merchant.unblock', req.params.id, (c) => op.unblockMerchant(c, req.params.id))),
    );
    admin.patch('/merchants/:id', { schema: doc({ id: 'patchMerchant', summary: 'Change sandbox or name', params: merchantId, body: A.PatchMerchantBody, ok: A.Merchant, errors: ['MERCHANT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'merchant.update', req.params.id, (c) => op.patchMerchant(c, req.params.id, req.body))),
    );

    // ---- tariffs
    admin.post('/tariffs', { schema: doc({ id: 'createTariff', summary: 'Create a tariff with fee bands', body: A.CreateTariffBody, ok: A.Tariff, status: 201 }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'tariff.create', null, (c) => op.createTariff(c, { name: req.body.name, bands: op.validateBands(req.body.bands), default: req.body.default }), (r) => r.id), 201),
    );
    admin.get('/tariffs', { schema: doc({ id: 'listTariffs', summary: 'Tariffs, newest first', querystring: A.ListTariffsQuery, ok: A.PageOf(A.Tariff) }) }, async (req, reply) =>
      sendOk(req, reply, await op.listTariffViews(ctx, { before: req.query.before, limit: limit(req.query) })),
    );
    admin.get('/tariffs/:id', { schema: doc({ id: 'getTariff', summary: 'A tariff with its bands', params: A.TariffIdParam, ok: A.Tariff, errors: ['TARIFF_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await op.getTariff(ctx, req.params.id)),
    );
    admin.patch('/tariffs/:id', { schema: doc({ id: 'patchTariff', summary: 'Rename a tariff, replace its bands, or make it the default', params: A.TariffIdParam, body: A.PatchTariffBody, ok: A.Tariff, errors: ['TARIFF_NOT_FOUND'] }) }, async (req, reply) => {
      const b = req.body;
      return sendOk(req, reply, await act(req, 'tariff.update', req.params.id, (c) => op.patchTariff(c, req.params.id, { name: b.name, bands: b.bands && op.validateBands(b.bands), default: b.default })));
    });

    // ---- desks
    admin.get('/desks', { schema: doc({ id: 'listDesks', summary: 'Cash desks, newest first', querystring: A.ListDesksQuery, ok: A.PageOf(A.Desk) }) }, async (req, reply) =>
      sendOk(req, reply, await op.listDeskViews(ctx, { merchantId: req.query.merchantId ?? null, before: req.query.before, limit: limit(req.query) })),
    );
    admin.post('/merchants/:id/desks', { schema: doc({ id: 'createDesk', summary: 'Create a cash desk; the secret is in this response only', params: merchantId, body: A.CreateDeskBody, ok: A.DeskWithSecret, status: 201, errors: ['MERCHANT_NOT_FOUND', 'INVALID_CALLBACK_URL', 'TARIFF_REQUIRED'] }) }, async (req, reply) => {
      const b = req.body;
      const desk = await act(req, 'desk.create', null, (c) => op.createDesk(c, req.params.id, {
        method: b.method,
        rails: dedupe(b.rails ?? []),
        currencies: dedupe(b.currencies ?? []),
        minUsd: b.minUsd ?? '0',
        maxUsd: b.maxUsd ?? '0',
        callbackUrl: b.callbackUrl ?? null,
        callbacksEnabled: b.callbacksEnabled ?? true,
        // Left out: the default tariff; null: no fee.
        tariffId: b.tariffId,
        name: b.name,
        // A test desk for life; left out, a live desk.
        sandbox: b.sandbox ?? false,
      }), (r) => r.id);
      return sendOk(req, reply, desk, 201);
    });
    admin.get('/desks/:id', { schema: doc({ id: 'getDesk', summary: 'A cash desk (never its secret)', params: deskId, ok: A.Desk, errors: ['DESK_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await op.getDesk(ctx, req.params.id)),
    );
    admin.patch(
      '/desks/:id',
      { schema: doc({ id: 'patchDesk', summary: 'Change a cash desk (its method stays for life)', params: deskId, body: A.PatchDeskBody, ok: A.Desk, errors: ['DESK_NOT_FOUND', 'INVALID_CALLBACK_URL'] }) },
      async (req, reply) => {
        const { method: _method, ...b } = req.body;
        return sendOk(req, reply, await act(req, 'desk.update', req.params.id, (c) => op.patchDesk(c, req.params.id, { ...b, rails: b.rails && dedupe(b.rails), currencies: b.currencies && dedupe(b.currencies) })));
      },
    );
    admin.post('/desks/:id/stop', { schema: doc({ id: 'stopDesk', summary: 'Stop: SHOP_STOPPED with the reason', params: deskId, body: A.StopDeskBody, ok: A.Desk, errors: ['DESK_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'desk.stop', req.params.id, (c) => op.stopDesk(c, req.params.id, req.body.reason))),
    );
    admin.post('/desks/:id/resume', { schema: doc({ id: 'resumeDesk', summary: 'Clear the stop', params: deskId, ok: A.Desk, errors: ['DESK_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'desk.resume', req.params.id, (c) => op.resumeDesk(c, req.params.id))),
    );
    admin.post('/desks/:id/secret', { schema: doc({ id: 'rotateDeskSecret', summary: 'Issue a new secret; the old one fails at once', params: deskId, ok: A.Secret, errors: ['DESK_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'desk.rotateSecret', req.params.id, (c) => op.rotateDeskSecret(c, req.params.id))),
    );

    // ---- currencies and rates
    admin.put('/currencies/:code', { schema: doc({ id: 'putCurrency', summary: 'Enable a currency and set its spread', params: A.CodeParam, body: A.PutCurrencyBody, ok: A.Currency }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'currency.update', req.params.code, (c) => op.putCurrency(c, op.currencyCode(req.params.code), req.body))),
    );
    admin.get('/currencies', { schema: doc({ id: 'listCurrencies', summary: 'Every currency', ok: Type.Array(A.Currency) }) }, async (req, reply) => sendOk(req, reply, await op.listCurrencyViews(ctx)));
    admin.put('/rates/:code', { schema: doc({ id: 'putRate', summary: 'Set a manual rate (before spread); it takes precedence', params: A.CodeParam, body: A.PutRateBody, ok: A.RateView }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'rate.set', req.params.code, (c) => op.putManualRate(c, op.currencyCode(req.params.code), req.body.rate))),
    );
    admin.delete('/rates/:code', { schema: doc({ id: 'deleteRate', summary: 'Back to market sources', params: A.CodeParam, ok: A.RateView, errors: ['RATE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'rate.remove', req.params.code, (c) => op.deleteManualRate(c, op.currencyCode(req.params.code)))),
    );
    admin.get('/rates', { schema: doc({ id: 'listRates', summary: 'Every rate with its source, age and flag', ok: Type.Array(A.RateView) }) }, async (req, reply) => sendOk(req, reply, await op.listRateViews(ctx)));

    // ---- providers
    admin.get('/providers', { schema: doc({ id: 'listProviders', summary: 'Providers with circuits, pauses and open appeals', ok: Type.Array(A.Provider) }) }, async (req, reply) =>
      sendOk(req, reply, await providers.listProviderViews(ctx)),
    );
    admin.post('/providers', { schema: doc({ id: 'createProvider', summary: 'Add a pool or http provider', body: A.CreateProviderBody, ok: A.ProviderCreated, status: 201 }) }, async (req, reply) => {
      const b = req.body;
      return sendOk(req, reply, await act(req, 'provider.create', null, (c) => providers.createProvider(c, { ...b, priority: b.priority ?? 100 }), (r) => r.id), 201);
    });
    admin.post('/providers/:id/pause', { schema: doc({ id: 'pauseProvider', summary: 'Pause a provider', params: providerId, ok: A.Provider, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'provider.pause', req.params.id, (c) => providers.pauseProvider(c, req.params.id, true))),
    );
    admin.post('/providers/:id/secret', { schema: doc({ id: 'rotateProviderSecret', summary: 'Issue a new secret for the provider\'s signed messages; the old one fails at once', params: providerId, ok: A.ProviderSecret, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'provider.rotateSecret', req.params.id, (c) => providers.rotateProviderSecret(c, req.params.id))),
    );
    admin.post('/providers/:id/resume', { schema: doc({ id: 'resumeProvider', summary: 'Resume a provider', params: providerId, ok: A.Provider, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'provider.resume', req.params.id, (c) => providers.pauseProvider(c, req.params.id, false))),
    );

    // ---- orders
    const orderErrors: ErrorCode[] = ['ORDER_NOT_FOUND', 'INVALID_TRANSITION', 'ORDER_ALREADY_COMPLETED'];
    admin.get('/orders', { schema: doc({ id: 'listOrders', summary: 'Orders, newest first', querystring: A.ListOrdersQuery, ok: A.PageOf(A.OperatorOrder) }) }, async (req, reply) =>
      sendOk(req, reply, await listOperatorOrders(ctx, { ...req.query, limit: limit(req.query) })),
    );
    admin.get('/orders/:id', { schema: doc({ id: 'getOperatorOrder', summary: 'An order with desk, merchant and provider', params: orderId, ok: A.OperatorOrder, errors: ['ORDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getOperatorOrder(ctx, req.params.id)),
    );
    admin.post('/orders/:id/simulate-payment', { schema: doc({ id: 'simulatePayment', summary: 'Sandbox order: Created → Completed, credited', params: orderId, ok: A.OrderView, errors: orderErrors }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.simulatePayment', req.params.id, (c) => actions.simulatePayment(c, {}, req.params.id))),
    );
    admin.post('/orders/:id/report-payment', { schema: doc({ id: 'reportPayment', summary: 'Live order: Created → Payed', params: orderId, body: A.ReportPaymentBody, ok: A.OrderView, errors: orderErrors }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.reportPayment', req.params.id, (c) => actions.reportPayment(c, req.params.id, req.body.payerReference ?? null))),
    );
    admin.post('/orders/:id/confirm', { schema: doc({ id: 'confirmPayment', summary: 'Payed, Created, Canceled (reconciliation) or Dispute → Completed', params: orderId, ok: A.OrderView, errors: orderErrors }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.confirm', req.params.id, (c) => actions.confirmPayment(c, req.params.id))),
    );
    admin.post('/orders/:id/reject', { schema: doc({ id: 'rejectOrder', summary: 'Provider rejected: Created or Payed → Canceled', params: orderId, ok: A.OrderView, errors: orderErrors }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.reject', req.params.id, (c) => actions.rejectOrder(c, req.params.id))),
    );
    admin.post('/orders/:id/reverse', { schema: doc({ id: 'reverseOrder', summary: 'Reverse what the order still has on the balance', params: orderId, body: A.ReverseBody, ok: A.Reversal, errors: ['ORDER_NOT_FOUND', 'NOTHING_TO_REVERSE'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.reverse', req.params.id, (c) => actions.reverseOrder(c, req.params.id, req.body.reason))),
    );
    admin.post('/orders/:id/resend', { schema: doc({ id: 'resendOrder', summary: 'Send the current state as a new event with a new id', params: orderId, ok: A.Resent, errors: ['ORDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'order.resend', req.params.id, (c) => resendOrder(c, {}, req.params.id))),
    );
    admin.get('/orders/:id/callbacks', { schema: doc({ id: 'listOrderCallbacks', summary: 'Callback attempts, oldest first', params: orderId, ok: Type.Array(A.Attempt), errors: ['ORDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await orderCallbackLog(ctx, {}, req.params.id)),
    );

    // ---- appeals
    admin.get('/appeals', { schema: doc({ id: 'listAppeals', summary: 'Appeals: the open queue most urgent first, others newest first', querystring: A.ListAppealsQuery, ok: A.PageOf(A.ReviewAppeal) }) }, async (req, reply) =>
      sendOk(req, reply, await listAppealsForReview(ctx, { status: req.query.status as AppealStatus | undefined, after: req.query.after, before: req.query.before, limit: limit(req.query) })),
    );
    admin.get('/appeals/:id', { schema: doc({ id: 'getReviewAppeal', summary: 'An appeal with its order', params: appealId, ok: A.ReviewAppeal, errors: ['APPEAL_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getAppealForReview(ctx, req.params.id)),
    );
    const decided: ErrorCode[] = ['APPEAL_NOT_FOUND', 'APPEAL_ALREADY_RESOLVED', 'ORDER_ALREADY_COMPLETED', 'INVALID_TRANSITION'];
    admin.post('/appeals/:id/accept', { schema: doc({ id: 'acceptAppeal', summary: 'Accept: order Completed and credited', params: appealId, body: A.CommentBody, ok: A.ReviewAppeal, errors: decided }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'appeal.accept', req.params.id, (c) => acceptAppeal(c, req.params.id, req.body.comment ?? null))),
    );
    admin.post('/appeals/:id/reject', { schema: doc({ id: 'rejectAppeal', summary: 'Reject: order Canceled, `appeal rejected`', params: appealId, body: A.CommentBody, ok: A.ReviewAppeal, errors: decided }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'appeal.reject', req.params.id, (c) => rejectAppeal(c, req.params.id, req.body.comment ?? null))),
    );

    // ---- turnover caps
    admin.get('/turnover-limits', { schema: doc({ id: 'listTurnoverLimits', summary: 'Turnover caps', ok: Type.Array(A.Limit) }) }, async (req, reply) => sendOk(req, reply, await listLimitViews(ctx)));
    admin.post('/turnover-limits', { schema: doc({ id: 'createTurnoverLimit', summary: 'Add a turnover cap', body: A.CreateLimitBody, ok: A.Limit, status: 201 }) }, async (req, reply) => {
      const b = req.body;
      return sendOk(req, reply, await act(req, 'turnoverLimit.create', null, (c) => createLimit(c, { scope: b.scope as Scope, scopeId: b.scopeId ?? null, window: b.window as Window, capUsd: b.capUsd, notifyOnly: b.notifyOnly ?? false }), (r) => r.id), 201);
    });
    admin.delete('/turnover-limits/:id', { schema: doc({ id: 'deleteTurnoverLimit', summary: 'Remove a turnover cap', params: IdParam('`lim_` id'), ok: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), errors: ['LIMIT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'turnoverLimit.remove', req.params.id, (c) => removeLimit(c, req.params.id))),
    );
    // ---- accounts, withdrawals, audit
    admin.post('/operators', { schema: doc({ id: 'createOperator', summary: 'Add a back-office operator (admin or support)', body: A.CreateOperatorBody, ok: A.OperatorAccount, status: 201, errors: ['EMAIL_TAKEN'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'operator.create', null, (c) => createOperator(c, req.body as { email: string; password: string; role: 'admin' | 'support' }), (r) => r.id), 201),
    );
    admin.get('/operators', { schema: doc({ id: 'listOperators', summary: 'Back-office operators, newest first, with their role and whether they may sign in', querystring: O.ListOperatorsQuery, ok: A.PageOf(O.OperatorWithAccess) }) }, async (req, reply) =>
      sendOk(req, reply, await listOperatorAccounts(ctx, { before: req.query.before, limit: limit(req.query) })),
    );
    admin.patch(
      '/operators/:id',
      {
        schema: doc({
          id: 'patchOperator',
          summary: 'Change an operator\'s role, or disable them (their sessions end) and enable them again',
          description: 'The last active admin can neither lose the role nor be disabled: `403 FORBIDDEN`.',
          params: O.OperatorIdParam,
          body: O.PatchOperatorBody,
          ok: O.OperatorWithAccess,
          errors: ['NOT_FOUND', 'FORBIDDEN'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await act(req, 'operator.update', req.params.id, (c) => patchOperator(c, req.params.id, req.body))),
    );
    admin.post('/merchants/:id/users', { schema: doc({ id: 'createUser', summary: 'Add a cabinet user to a merchant', params: merchantId, body: A.CreateUserBody, ok: A.UserAccount, status: 201, errors: ['EMAIL_TAKEN', 'MERCHANT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'user.create', req.params.id, (c) => createUser(c, req.params.id, req.body)), 201),
    );
    admin.post('/merchants/:id/withdrawals', { schema: doc({ id: 'recordWithdrawal', summary: 'Record a withdrawal paid outside a request: the balance shrinks at once; it never takes what open requests hold', params: merchantId, body: A.WithdrawalBody, ok: A.Withdrawal, status: 201, errors: ['MERCHANT_NOT_FOUND', 'INSUFFICIENT_BALANCE'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'merchant.withdraw', req.params.id, (c) => recordWithdrawal(c, req.params.id, req.body)), 201),
    );
    // ---- withdrawal requests (asked for in the cabinet; paid or rejected here)
    admin.get('/withdrawal-requests', { schema: doc({ id: 'listWithdrawalRequests', summary: 'Withdrawal requests: the open queue (status=requested) oldest first, others newest first', querystring: W.ListWithdrawalRequestsQuery, ok: A.PageOf(W.RequestedWithdrawal) }) }, async (req, reply) =>
      sendOk(req, reply, await listWithdrawalRequests(ctx, { status: req.query.status as WithdrawalStatus | undefined, merchantId: req.query.merchantId, after: req.query.after, before: req.query.before, limit: limit(req.query) })),
    );
    const decideErrors: ErrorCode[] = ['WITHDRAWAL_NOT_FOUND', 'WITHDRAWAL_ALREADY_DECIDED'];
    admin.post('/withdrawal-requests/:id/paid', { schema: doc({ id: 'markWithdrawalPaid', summary: 'Mark a requested withdrawal paid: the ledger\'s withdrawal entry, the balance shrinks, the hold is released', params: W.WithdrawalIdParam, body: W.WithdrawalPaidBody, ok: W.RequestedWithdrawal, errors: [...decideErrors, 'INSUFFICIENT_BALANCE'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'withdrawal.pay', req.params.id, (c) => payWithdrawalRequest(c, req.params.id, req.body.reference, req.actor ?? 'token'))),
    );
    admin.post('/withdrawal-requests/:id/reject', { schema: doc({ id: 'rejectWithdrawalRequest', summary: 'Reject a requested withdrawal with a reason: the hold is released, no money moves', params: W.WithdrawalIdParam, body: W.WithdrawalRejectBody, ok: W.RequestedWithdrawal, errors: decideErrors }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'withdrawal.reject', req.params.id, (c) => rejectWithdrawalRequest(c, req.params.id, req.body.reason, req.actor ?? 'token'))),
    );
    admin.get('/audit', { schema: doc({ id: 'listAudit', summary: 'The audit trail, newest first', querystring: A.ListAuditQuery, ok: A.PageOf(A.AuditEntry) }) }, async (req, reply) =>
      sendOk(req, reply, await listAudit(ctx, { objectId: req.query.objectId, before: req.query.before, limit: limit(req.query) })),
    );
    admin.get('/notifications', { schema: doc({ id: 'listNotifications', summary: 'Platform notifications (notify-only caps)', ok: Type.Array(A.Notification) }) }, async (req, reply) =>
      sendOk(req, reply, await listNotificationViews(ctx)),
    );
  };
}

const dedupe = (xs: string[]) => [...new Set(xs)];
