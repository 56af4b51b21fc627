import type { Ctx } from '../context.js';
import { AppError, fail, ok, type Result } from '../domain/errors.js';
import { getMerchant } from '../store/merchants.js';
import { getOrderById } from '../store/orders.js';
import { payPageView } from './orderViews.js';
import { parsePayerReference, recordPayerReference } from './providerEvents.js';

/** What the customer's payment page shows, as `GET /api/pay/{id}` answers it and the HTML page renders it. */
export type PayPage = ReturnType<typeof payPageView>;

/**
 * The payment page of one order, or null for an id that names no order the customer may see.
 * One loader for the JSON endpoint and the HTML page, so both always show the same data.
 * Rate limiting stays with the caller: it is keyed by the client's address, which a service never sees.
 */
export async function getPayPage(ctx: Ctx, id: string): Promise<PayPage | null> {
  const o = id.startsWith('ord_') ? await getOrderById(ctx.db, id) : null;
  if (!o) return null;
  const merchant = await getMerchant(ctx.db, o.merchant_id);
  return payPageView(o, merchant?.name ?? null);
}

/**
 * The customer reports the UTR of a Upi payment. A malformed reference, an unknown order, another
 * rail or a closed order are refusals the page shows, not failures.
 */
export async function reportPayerReference(ctx: Ctx, id: string, value: unknown): Promise<Result<PayPage>> {
  const ref = parsePayerReference(value);
  if (ref === null) return fail('VALIDATION_ERROR', 'payerReference: must be 1 to 64 letters and digits (a UPI UTR is 12 digits)');
  try {
    const o = await recordPayerReference(ctx, id, ref);
    const merchant = await getMerchant(ctx.db, o.merchant_id);
    return ok(payPageView(o, merchant?.name ?? null));
  } catch (err) {
    if (err instanceof AppError) return fail(err.code, err.detail);
    throw err;
  }
}
