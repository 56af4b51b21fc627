import type { FastifyReply } from 'fastify';
import { RECEIPT_EXTENSION, type ReceiptType } from '../domain/receipts.js';

/**
 * An appeal's receipt as a download, to its merchant in the cabinet and to operators in the back
 * office: the stored type, never sniffed or rendered in the page's origin, never cached. The
 * stored type decides the name's extension; the uploaded name is not echoed into a header.
 */
export function sendReceipt(reply: FastifyReply, appealId: string, file: { contentType: string; content: Buffer }) {
  const name = `receipt-${appealId}.${RECEIPT_EXTENSION[file.contentType as ReceiptType] ?? 'bin'}`;
  return reply
    .code(200)
    .header('Content-Type', file.contentType)
    .header('Content-Disposition', `attachment; filename="${name}"`)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; sandbox")
    .header('Cache-Control', 'private, no-store')
    .send(file.content);
}
