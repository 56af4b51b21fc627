/**
 * Appeal receipts: a PDF, PNG or JPEG of at most 5 MiB, recognised by its first bytes (magic
 * numbers), never by the file name or the type the browser declared, which anyone can set.
 */

export const MAX_RECEIPT_BYTES = 5 * 1024 * 1024;

export type ReceiptType = 'application/pdf' | 'image/png' | 'image/jpeg';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
const JPEG = [0xff, 0xd8, 0xff];

const startsWith = (b: Uint8Array, magic: readonly number[]) => b.length >= magic.length && magic.every((x, i) => b[i] === x);

/** The receipt's type from its content, or null for anything else. */
export function receiptTypeOf(content: Uint8Array): ReceiptType | null {
  if (startsWith(content, PNG)) return 'image/png';
  if (startsWith(content, JPEG)) return 'image/jpeg';
  // PDF readers accept the header within the first 1024 bytes; a receipt must start with it.
  if (startsWith(content, PDF)) return 'application/pdf';
  return null;
}

/** The extension a download gets for its type, whatever name it was uploaded under. */
export const RECEIPT_EXTENSION: Record<ReceiptType, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };
