import type { FastifyInstance, FastifyRequest } from 'fastify';
import { acceptAppeal, appealReceiptFile, rejectAppeal } from '../../../services/appeals.js';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import { formOf, withForm } from '../../forms.js';
import { sendReceipt } from '../../receipt.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { sendCsv, type CsvColumn } from '../csv.js';
import { modeOf, param, query, str, type Kit } from '../kit.js';
import { appealPage, appealsListPage } from '../views/appeals.js';
import { href } from '../ui.js';

const appealFilters = (req: FastifyRequest) => ({ status: str(query(req).status, 20), merchantId: str(query(req).merchantId, 64) });

type ListedAppeal = Awaited<ReturnType<typeof office.listAppeals>>['items'][number];

const APPEAL_COLUMNS: CsvColumn<ListedAppeal>[] = [
  { name: 'id', value: (a) => a.id },
  { name: 'status', value: (a) => a.status },
  { name: 'overdue', value: (a) => a.overdue },
  { name: 'createdAt', value: (a) => a.createdAt },
  { name: 'slaDueAt', value: (a) => a.slaDueAt },
  { name: 'resolvedAt', value: (a) => a.resolvedAt },
  { name: 'orderId', value: (a) => a.orderId },
  { name: 'orderRef', value: (a) => a.orderRef },
  { name: 'orderStatus', value: (a) => a.order.status },
  { name: 'orderAmount', value: (a) => a.order.amount },
  { name: 'orderCurrency', value: (a) => a.order.currency },
  { name: 'amountUsd', value: (a) => a.amount.value },
  { name: 'merchantId', value: (a) => a.merchantId },
  { name: 'deskId', value: (a) => a.deskId },
  { name: 'providerId', value: (a) => a.providerId },
  { name: 'reason', value: (a) => a.reason },
  { name: 'comment', value: (a) => a.comment },
  { name: 'evidenceUrl', value: (a) => a.evidenceUrl },
];

/** Every appeal of a mode with its export, one appeal, its receipt file, and the decision (support decides appeals too). */
export function appealRoutes(app: FastifyInstance, { ctx, page, act }: Kit): void {
  app.get('/office/appeals', async (req, reply) => {
    const f = appealFilters(req);
    const list = await office.listAppeals(ctx, f, { sandbox: modeOf(req) === 'sandbox', before: str(query(req).before, 64) || undefined, limit: 50 });
    return page(req, reply, (s) => appealsListPage(s, list, f));
  });
  app.get('/office/appeals.csv', async (req, reply) => {
    const mode = modeOf(req);
    return sendCsv(ctx, reply, `appeals-${mode}.csv`, APPEAL_COLUMNS, office.exportAppeals(ctx, appealFilters(req), mode === 'sandbox'));
  });
  app.get('/office/appeals/:id', async (req, reply) => {
    const a = await office.appealForReview(ctx, param(req, 'id'));
    const audit = await listAudit(ctx, { objectId: a.id, limit: 50 });
    return page(req, reply, (s) => appealPage(s, a, audit.items));
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
      return seeOther(reply, href('/office/queues/appeals', { done: verb === 'accept' ? 'accepted' : 'rejected' }, modeOf(req)));
    });
  }
}
