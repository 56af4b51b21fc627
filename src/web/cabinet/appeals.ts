import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { ERROR_STATUS, AppError } from '../../domain/errors.js';
import { MAX_RECEIPT_BYTES } from '../../domain/receipts.js';
import { appealReceiptFile, getAppealForMerchant, listAppealsForReview, openAppealRow } from '../../services/appeals.js';
import { sendPage } from '../layout.js';
import { sendReceipt } from '../receipt.js';
import { registerUploadBody, uploadOf } from '../multipart.js';
import { seeOther } from '../session.js';
import { appealPage, appealsPage } from './appealsView.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { messagePage } from './view.js';

/**
 * The body cap of the upload route only: a 5 MiB receipt, the text fields (reason 2,000 and
 * evidence 4,096 characters, up to 4 bytes each in UTF-8) and multipart headers fit well within
 * 64 KiB more. Every other route keeps the app's 1 MiB cap.
 */
export const APPEAL_UPLOAD_CAP = MAX_RECEIPT_BYTES + 64 * 1024;

const APPEALS_PAGE = 50;

/** Titles of the refusals an appeal can meet, shown as a page with the API's status. */
const REFUSAL_TITLES: Partial<Record<string, string>> = {
  ORDER_STILL_OPEN: 'The order is still open',
  ORDER_ALREADY_COMPLETED: 'The order is already completed',
  PAYLOAD_TOO_LARGE: 'The receipt is too large',
  VALIDATION_ERROR: 'Check the appeal form',
};

/** Appeals in the cabinet: opened through the same service as `POST /gw/v1/appeals`, scoped to the merchant. */
export function appealRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.register(async (upload) => {
    registerUploadBody(upload, APPEAL_UPLOAD_CAP);

    upload.post('/cabinet/appeals', async (req, reply) => {
      const c = cab(req);
      const { body, result } = uploadOf(req);
      const refuse = (code: keyof typeof ERROR_STATUS, detail: string) =>
        sendPage(reply, ERROR_STATUS[code], messagePage(c, REFUSAL_TITLES[code] ?? 'Not possible now', `${sentence(detail)} (${code})`));
      if (body?.tooLarge) return refuse('PAYLOAD_TOO_LARGE', 'receipt: the file is larger than 5 MiB');
      if (!result.ok) return refuse('VALIDATION_ERROR', result.problem);
      const f = result.form.fields;
      const orderId = str(f.get('orderId'), 300);
      const reason = (f.get('reason') ?? '').trim();
      // One URL a line in the form; the API keeps several separated by semicolons.
      const evidence = (f.get('evidenceUrl') ?? '').split(/[\r\n;]+/).map((s) => s.trim()).filter(Boolean).join('; ');
      if (!orderId || orderId.length > 255) return refuse('VALIDATION_ERROR', 'orderId: give the order id (ord_…) or your orderRef');
      if (reason.length > 2000) return refuse('VALIDATION_ERROR', 'reason: at most 2,000 characters');
      if (evidence.length > 4096) return refuse('VALIDATION_ERROR', 'evidenceUrl: at most 4,096 characters');
      const files = result.form.files.filter((x) => x.field === 'receipt');
      if (files.length > 1) return refuse('VALIDATION_ERROR', 'receipt: one file per appeal');
      const file = files[0];
      try {
        const appeal = await openAppealRow(ctx, { merchantId: c.merchant.id }, {
          orderId,
          reason: reason || null,
          evidenceUrl: evidence || null,
          receipt: file ? { content: file.content, fileName: file.fileName } : null,
        });
        return seeOther(reply, `/cabinet/appeals/${appeal.id}?done=opened`);
      } catch (err) {
        if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
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
