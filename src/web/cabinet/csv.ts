/**
 * The orders export of the cabinet (web spec, "Merchant cabinet"): UTF-8, a header row, commas,
 * RFC 4180 quoting, and a cell a spreadsheet would read as a formula made inert with a leading `'`.
 */

export const ORDER_CSV_COLUMNS = [
  'id',
  'orderRef',
  'createdAt',
  'status',
  'amount',
  'currency',
  'rate',
  'settledUsd',
  'commissionUsd',
  'creditedUsd',
  'deskId',
  'method',
  'rail',
  'payerReference',
  'finishedAt',
  'paidAmount',
] as const;

export type OrderCsvRow = Record<(typeof ORDER_CSV_COLUMNS)[number], string | null>;

/** `=`, `+`, `-`, `@`, tab and carriage return start a formula in Excel, LibreOffice and Sheets. */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | null): string {
  let v = value ?? '';
  if (FORMULA_START.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Lines end in CRLF, as RFC 4180 writes them. */
export function ordersCsv(rows: readonly OrderCsvRow[]): string {
  const lines = [ORDER_CSV_COLUMNS.join(',')];
  for (const r of rows) lines.push(ORDER_CSV_COLUMNS.map((c) => csvCell(r[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}
