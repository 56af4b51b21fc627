import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import * as op from '../../../services/operator.js';
import { recordWithdrawal } from '../../../services/withdrawals.js';
import { ButtonForm } from '../../forms.js';
import * as forms from '../forms.js';
import { doneOf, param, query, str, type Kit } from '../kit.js';
import { deskPage, merchantPage, merchantsPage } from '../views/merchants.js';

/** Merchants and their cash desks. */
export function merchantRoutes(app: FastifyInstance, { ctx, page, objectAction }: Kit): void {
  app.get('/office/merchants', async (req, reply) => {
    const status = str(query(req).status, 20);
    if (status && !['UnderReview', 'Active', 'Blocked'].includes(status)) throw new AppError('VALIDATION_ERROR', 'status: one of UnderReview, Active, Blocked');
    const list = await op.listMerchantViews(ctx, { status: status || null, before: str(query(req).before, 64) || undefined, limit: 50 });
    return page(req, reply, (s) => merchantsPage(s, list, status));
  });
  app.get('/office/merchants/:id', async (req, reply) => {
    const m = await office.merchantOverview(ctx, param(req, 'id'));
    return page(req, reply, (s) => merchantPage(s, m, doneOf(req), null));
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
    return page(req, reply, (s) => deskPage(s, { ...d, rails: d.rails ?? [], currencies: d.currencies ?? [] }, audit.items, doneOf(req)));
  });
  objectAction('/office/desks/:id/stop', 'desk.stop', forms.StopDeskForm, (c, id, f) => op.stopDesk(c, id, str(f.reason, 500)), (id) => `/office/desks/${id}?done=stopped`, (f) =>
    str(f.reason, 500) ? null : 'Reason: say why the desk is stopped; the merchant sees it',
  );
  objectAction('/office/desks/:id/resume', 'desk.resume', ButtonForm, (c, id) => op.resumeDesk(c, id), (id) => `/office/desks/${id}?done=resumed`);
}
