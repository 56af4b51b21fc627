import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { getMerchant } from '../store/merchants.js';
import { getOrderById } from '../store/orders.js';
import { payPageView } from './orderViews.js';
import { parsePayerReference, recordPayerReference } from './providerEvents.js';

export type PayPage = ReturnType<typeof payPageView>;

/** What the customer's payment page shows, for `GET /api/pay/{id}` and the hosted page alike; null for an unknown order. */
export async function getPayPage(ctx: Ctx, id: string): Promise<PayPage | null> {
  const o = id.startsWith('ord_') ? await getOrderById(ctx.db, id) : null;
  if (!o) return null;
  const merchant = await getMerchant(ctx.db, o.merchant_id);
  return payPageView(o, merchant?.name ?? null);
}

/** The customer reports the UTR of a Upi payment; answers the page's data with the stored reference. */
export async function reportPayerReference(ctx: Ctx, id: string, value: unknown): Promise<PayPage> {
  const ref = parsePayerReference(value);
  if (ref === null) throw new AppError('VALIDATION_ERROR', 'payerReference: must be 1 to 64 letters and digits (a UPI UTR is 12 digits)');
  const o = await recordPayerReference(ctx, id, ref);
  const merchant = await getMerchant(ctx.db, o.merchant_id);
  return payPageView(o, merchant?.name ?? null);
}
