import type { FastifyInstance } from 'fastify';
import { acceptAppeal, appealReceiptFile, rejectAppeal } from '../../../services/appeals.js';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import { formOf, withForm } from '../../forms.js';
import { sendReceipt } from '../../receipt.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { param, str, type Kit } from '../kit.js';
import { appealPage } from '../views/appeals.js';

/** One appeal, its receipt file, and the decision (support decides appeals too). */
export function appealRoutes(app: FastifyInstance, { ctx, page, act }: Kit): void {
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
      return seeOther(reply, `/office/queues/appeals?done=${verb === 'accept' ? 'accepted' : 'rejected'}`);
    });
  }
}
