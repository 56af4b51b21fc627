import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { ERROR_STATUS, AppError, type ErrorCode } from '../../domain/errors.js';
import { MAX_RECEIPT_BYTES } from '../../domain/receipts.js';
import { appealReceiptFile, getAppealForMerchant, listAppealsForReview, openAppealRow } from '../../services/appeals.js';
import { sendPage } from '../layout.js';
import { sendReceipt } from '../receipt.js';
import { formWithProblem, withForm } from '../forms.js';
import { registerUploads } from '../upload.js';
import { AppealForm } from './forms.js';
import { seeOther } from '../session.js';
import { appealPage, appealsPage } from './appealsView.js';
import { cab, param, query, sentence, str } from './common.js';

const APPEALS_PAGE = 50;

/** Titles of the refusals an appeal can meet, shown as a page with the API's status. */
const REFUSAL_TITLES: Partial<Record<string, string>> = {
  ORDER_NOT_FOUND: 'No such order',
  ORDER_STILL_OPEN: 'The order is still open',
  ORDER_ALREADY_COMPLETED: 'The order is already completed',
  PAYLOAD_TOO_LARGE: 'The receipt is too large',
  VALIDATION_ERROR: 'Check the appeal form',
};

/** Appeals in the cabinet: opened through the same service as `POST /gw/v1/appeals`, scoped to the merchant. */
export async function appealRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  await app.register(async (upload) => {
    // The upload's own cap is the receipt's: a larger file is answered beside its field (413).
    await registerUploads(upload, { fileBytes: MAX_RECEIPT_BYTES, fileLabel: '5 MiB' });

    upload.post('/cabinet/appeals', withForm(AppealForm, { invalid: 'route' }), async (req, reply) => {
      const c = cab(req);
      const { form, problem } = formWithProblem(req, AppealForm);
      const orderId = str(form.orderId, 300);
      const reason = (form.reason ?? '').trim();
      const evidenceText = form.evidenceUrl ?? '';
      // A refusal answers the appeals page with the form as typed (the file aside) and the reason beside it.
      const refuse = async (code: ErrorCode, detail: string) => {
        const page = await listAppealsForReview(ctx, { merchantId: c.merchant.id, limit: APPEALS_PAGE });
        const values = { orderId: str(form.orderId, 255), reason: (form.reason ?? '').slice(0, 2000), evidenceUrl: evidenceText.slice(0, 4096) };
        const error = `${REFUSAL_TITLES[code] ?? 'Not possible now'}: ${sentence(detail)} (${code})`;
        return sendPage(reply, ERROR_STATUS[code], appealsPage(c, page.items, page.hasMore ? page.next : null, { values, error }));
      };
      if (problem) return refuse('VALIDATION_ERROR', problem);
      const file = form.receipt?.[0];
      if (file?.tooLarge) return refuse('PAYLOAD_TOO_LARGE', 'receipt: the file is larger than 5 MiB');
      // One URL a line in the form; the API keeps several separated by semicolons.
      const evidence = evidenceText.split(/[\r\n;]+/).map((s) => s.trim()).filter(Boolean).join('; ');
      if (!orderId || orderId.length > 255) return refuse('VALIDATION_ERROR', 'orderId: give the order id (ord_…) or your orderRef');
      if (evidence.length > 4096) return refuse('VALIDATION_ERROR', 'evidenceUrl: at most 4,096 characters');
      try {
        const appeal = await openAppealRow(ctx, { merchantId: c.merchant.id }, {
          orderId,
          reason: reason || null,
          evidenceUrl: evidence || null,
          receipt: file ? { content: file.content, fileName: file.fileName } : null,
        });
        return seeOther(reply, `/cabinet/appeals/${appeal.id}?done=opened`);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return refuse(err.code, err.detail ?? '');
      }
    });
  });

  app.get('/cabinet/appeals', async (req, reply) => {
    const c = cab(req);
    const before = str(query(req).before, 64) || undefined;
    const page = await listAppealsForReview(ctx, { merchantId: c.merchant.id, before, limit: APPEALS_PAGE });
    return sendPage(reply, 200, appealsPage(c, page.items, page.hasMore ? page.next : null));
  });

  app.get('/cabinet/appeals/:appealId', async (req, reply) => {
    const c = cab(req);
    const a = await getAppealForMerchant(ctx, c.merchant.id, param(req, 'appealId'));
    const notice = query(req).done === 'opened' ? 'Appeal opened: the order is in Dispute until we decide.' : null;
    return sendPage(reply, 200, appealPage(c, a, notice));
  });

  app.get('/cabinet/appeals/:appealId/receipt', async (req, reply) => {
    const c = cab(req);
    const id = param(req, 'appealId');
    return sendReceipt(reply, id, await appealReceiptFile(ctx, c.merchant.id, id));
  });
}
