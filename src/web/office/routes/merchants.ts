import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import * as op from '../../../services/operator.js';
import { recordWithdrawal } from '../../../services/withdrawals.js';
import { ButtonForm, formOf, formWithProblem } from '../../forms.js';
import { seeOther } from '../../session.js';
import { sendCsv, type CsvColumn } from '../csv.js';
import * as forms from '../forms.js';
import { doneOf, modeOf, param, query, sentence, str, type Kit } from '../kit.js';
import { deskCreatedPage, deskPage, deskSecretPage, EMPTY_DESK, merchantPage, merchantsPage, type NewDeskForm } from '../views/merchants.js';
import { createUser } from '../../../services/accounts.js';
import { rejectApplication } from '../../../services/applications.js';

const merchantFilters = (req: FastifyRequest) => ({ status: str(query(req).status, 20), q: str(query(req).q, 200) });

export const MERCHANT_COLUMNS = (sandbox: boolean): CsvColumn<office.MerchantListItem>[] => [
  { name: 'id', value: (m) => m.id },
  { name: 'name', value: (m) => m.name },
  { name: 'status', value: (m) => m.status },
  { name: 'sandbox', value: (m) => m.sandbox },
  { name: 'blockReason', value: (m) => m.blockReason },
  { name: 'desks', value: (m) => m.desks },
  sandbox ? { name: 'sandboxMoneyUsd', value: (m) => m.money.sandbox } : { name: 'liveBalanceUsd', value: (m) => m.money.live },
  { name: 'createdAt', value: (m) => m.createdAt },
];

/** Where a desk's tariff form goes back to. */
const tariffBack = (id: string, back: string | undefined, merchantId: string) => (back === 'desk' ? `/office/desks/${id}?done=tariff` : `/office/merchants/${merchantId}?done=tariff`);

/** The page's `tariffId` choice as the API takes it: left out for the default, null for no fee, or the id. */
const tariffChoice = (v: string | undefined): string | null | undefined => (v === undefined || v === '' ? undefined : v === 'none' ? null : v);

/** Merchants, their desks (a new one, each one's tariff), money and audit. */
export function merchantRoutes(app: FastifyInstance, { ctx, page, act, adminPost, objectAction }: Kit): void {
  app.get('/office/merchants', async (req, reply) => {
    const f = merchantFilters(req);
    const list = await office.listMerchants(ctx, f, { before: str(query(req).before, 64) || undefined, limit: 50 });
    return page(req, reply, (s) => merchantsPage(s, list, f));
  });
  app.get('/office/merchants.csv', async (req, reply) => {
    const mode = modeOf(req);
    return sendCsv(ctx, reply, `merchants-${mode}.csv`, MERCHANT_COLUMNS(mode === 'sandbox'), office.exportMerchants(ctx, merchantFilters(req)));
  });

  const showMerchant = async (req: FastifyRequest, reply: FastifyReply, o: { deskForm?: NewDeskForm; deskError?: string | null; userError?: string | null; userEmail?: string; error?: string | null; status?: number } = {}) => {
    const id = param(req, 'id');
    const [m, currencies] = await Promise.all([office.merchantOverview(ctx, id, modeOf(req) === 'sandbox'), office.deskCurrencies(ctx)]);
    return page(req, reply, (s) => merchantPage(s, m, { done: doneOf(req), error: o.error ?? null, currencies, deskForm: o.deskForm, deskError: o.deskError, userError: o.userError, userEmail: o.userEmail }), o.status);
  };
  // As POST /admin/v1/merchants.
  adminPost('/office/merchants', forms.NewMerchantForm, async (req, reply) => {
    const f = formOf(req, forms.NewMerchantForm);
    const name = str(f.name, 200);
    if (!name) throw new AppError('VALIDATION_ERROR', 'Name: give the merchant a name');
    const m = await act(req, 'merchant.create', null, (c) => op.createMerchant(c, { name, sandbox: f.sandbox === 'true' }), (r) => r.id);
    return seeOther(reply, `/office/merchants/${m.id}?done=merchant-created`);
  });
  // As PATCH /admin/v1/merchants/{id} with a name.
  adminPost('/office/merchants/:id/name', forms.MerchantNameForm, async (req, reply) => {
    const id = param(req, 'id');
    const name = str(formOf(req, forms.MerchantNameForm).name, 200);
    if (!name) throw new AppError('VALIDATION_ERROR', 'Name: give the merchant a name');
    await act(req, 'merchant.update', id, (c) => op.patchMerchant(c, id, { name }));
    return seeOther(reply, `/office/merchants/${id}?done=renamed`);
  });
  // As POST /admin/v1/merchants/{id}/users.
  adminPost(
    '/office/merchants/:id/users',
    forms.NewUserForm,
    async (req, reply) => {
      const id = param(req, 'id');
      const { form: f, problem } = formWithProblem(req, forms.NewUserForm);
      const email = f.email?.trim() ?? '';
      if (problem) return showMerchant(req, reply, { userError: sentence(problem), userEmail: email, status: 400 });
      try {
        const role = f.role === 'developer' || f.role === 'viewer' ? f.role : 'owner';
        await act(req, 'user.create', id, (c) => createUser(c, id, { email, password: f.password ?? '', role }));
        return seeOther(reply, `/office/merchants/${id}?done=user-created`);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'EMAIL_TAKEN')) {
          return showMerchant(req, reply, { userError: sentence(err.code === 'EMAIL_TAKEN' ? 'That email already has an account' : err.detail), userEmail: email, status: err.code === 'EMAIL_TAKEN' ? 409 : 400 });
        }
        throw err;
      }
    },
    { invalid: 'route' },
  );
  app.get('/office/merchants/:id', async (req, reply) => showMerchant(req, reply));
  objectAction('/office/merchants/:id/approve', 'merchant.approve', ButtonForm, (c, id) => op.approveMerchant(c, id), (id) => `/office/merchants/${id}?done=approved`);
  // As POST /admin/v1/merchants/{id}/reject: the reason is mailed to the owners, who may submit again.
  objectAction(
    '/office/merchants/:id/reject',
    'merchant.reject',
    forms.RejectApplicationForm,
    (c, id, f) => rejectApplication(c, id, f.reason),
    (id, f) => (f.back === 'queue' ? '/office/queues/review?done=application-rejected' : `/office/merchants/${id}?done=application-rejected`),
    (f) => (str(f.reason, 4000) ? null : 'Reason: say why the application is rejected; the merchant reads it'),
  );
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

  // A new desk for the merchant, as POST /admin/v1/merchants/{id}/desks: the secret is on the answer page only.
  adminPost(
    '/office/merchants/:id/desks',
    forms.NewDeskForm,
    async (req, reply) => {
      const merchantId = param(req, 'id');
      const { form: f, problem } = formWithProblem(req, forms.NewDeskForm);
      const values: NewDeskForm = {
        name: f.name ?? '',
        method: f.method ?? EMPTY_DESK.method,
        rails: [...new Set(f.rails ?? [])],
        currencies: [...new Set(f.currencies ?? [])],
        minUsd: f.minUsd ?? '0',
        maxUsd: f.maxUsd ?? '0',
        callbackUrl: f.callbackUrl ?? '',
        callbacksEnabled: f.callbacksEnabled !== 'false',
        tariffId: tariffChoice(f.tariffId),
        sandbox: f.sandbox === 'true',
      };
      const again = (detail: string) => showMerchant(req, reply, { deskForm: values, deskError: sentence(detail), status: 400 });
      if (problem) return again(problem);
      try {
        const desk = await act(
          req,
          'desk.create',
          null,
          (c) =>
            op.createDesk(c, merchantId, {
              name: values.name.trim() || undefined,
              method: values.method,
              // The method's own rails only: the page shows the boxes of every method.
              rails: values.rails.filter((r) => office.railsOfMethod(values.method).includes(r)),
              currencies: [...values.currencies],
              minUsd: values.minUsd,
              maxUsd: values.maxUsd,
              callbackUrl: values.callbackUrl || null,
              callbacksEnabled: values.callbacksEnabled,
              tariffId: values.tariffId,
              sandbox: values.sandbox,
            }),
          (r) => r.id,
        );
        return page(req, reply, (s) => deskCreatedPage(s, desk), 201);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'INVALID_CALLBACK_URL')) return again(err.detail ?? err.code);
        throw err;
      }
    },
    { invalid: 'route' },
  );

  // ---- desks

  const showDesk = async (req: FastifyRequest, reply: FastifyReply, o: { error?: string | null; status?: number } = {}) => {
    const d = await op.getDesk(ctx, param(req, 'id'));
    const [audit, tariffs, currencies] = await Promise.all([listAudit(ctx, { objectId: d.id, limit: 50 }), office.listTariffViews(ctx), office.deskCurrencies(ctx)]);
    return page(req, reply, (s) => deskPage(s, { ...d, rails: d.rails ?? [], currencies: d.currencies ?? [] }, audit.items, tariffs, { done: doneOf(req), currencies, error: o.error }), o.status);
  };
  app.get('/office/desks/:id', async (req, reply) => showDesk(req, reply));
  // As PATCH /admin/v1/desks/{id}: the settings the form shows (the method stays, the tariff has its own form).
  adminPost(
    '/office/desks/:id/settings',
    forms.DeskSettingsForm,
    async (req, reply) => {
      const id = param(req, 'id');
      const { form: f, problem } = formWithProblem(req, forms.DeskSettingsForm);
      if (problem) return showDesk(req, reply, { error: sentence(problem), status: 400 });
      const desk = await op.getDesk(ctx, id);
      try {
        await act(req, 'desk.update', id, (c) =>
          op.patchDesk(c, id, {
            name: f.name,
            enabled: f.enabled === undefined ? undefined : f.enabled === 'true',
            // Check boxes: none ticked is an empty list, not "unchanged".
            rails: [...new Set(f.rails ?? [])].filter((r) => office.railsOfMethod(desk.method).includes(r)),
            currencies: [...new Set(f.currencies ?? [])],
            minUsd: f.minUsd ?? '0',
            maxUsd: f.maxUsd ?? '0',
            callbackUrl: f.callbackUrl || null,
            callbacksEnabled: f.callbacksEnabled === undefined ? undefined : f.callbacksEnabled === 'true',
          }),
        );
        return seeOther(reply, `/office/desks/${id}?done=desk-saved`);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'INVALID_CALLBACK_URL')) return showDesk(req, reply, { error: sentence(err.detail ?? err.code), status: 400 });
        throw err;
      }
    },
    { invalid: 'route' },
  );
  // As POST /admin/v1/desks/{id}/secret: the new secret is on the answer page only.
  adminPost('/office/desks/:id/secret', ButtonForm, async (req, reply) => {
    const id = param(req, 'id');
    const d = await op.getDesk(ctx, id);
    const { secret } = await act(req, 'desk.rotateSecret', id, (c) => op.rotateDeskSecret(c, id));
    return page(req, reply, (s) => deskSecretPage(s, d, secret));
  });
  objectAction('/office/desks/:id/stop', 'desk.stop', forms.StopDeskForm, (c, id, f) => op.stopDesk(c, id, str(f.reason, 500)), (id) => `/office/desks/${id}?done=stopped`, (f) =>
    str(f.reason, 500) ? null : 'Reason: say why the desk is stopped; the merchant sees it',
  );
  objectAction('/office/desks/:id/resume', 'desk.resume', ButtonForm, (c, id) => op.resumeDesk(c, id), (id) => `/office/desks/${id}?done=resumed`);
  adminPost('/office/desks/:id/tariff', forms.DeskTariffForm, async (req, reply) => {
    const id = param(req, 'id');
    const f = formOf(req, forms.DeskTariffForm);
    // The page always sends a choice; none given would mean "the default", which a PATCH cannot say.
    const tariffId = tariffChoice(f.tariffId);
    if (tariffId === undefined) throw new AppError('VALIDATION_ERROR', 'tariffId: choose a tariff, or no fee');
    const desk = await act(req, 'desk.update', id, (c) => op.patchDesk(c, id, { tariffId }));
    return seeOther(reply, tariffBack(id, f.back, desk.merchantId));
  });
}
