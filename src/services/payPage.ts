import type { Ctx } from '../context.js';
import { ok, type Result } from '../domain/errors.js';
import { getMerchant } from '../store/merchants.js';
import { getOrderById } from '../store/orders.js';
import { payPageView } from './orderViews.js';
import { recordPayerReference } from './providerEvents.js';

/** What the customer's payment page shows, as `GET /api/pay/{id}` answers it and the HTML page renders it. */
export type PayPage = ReturnType<typeof payPageView>;

export { PAYER_REFERENCE_RULES, payerReferenceRule, type PayerReferenceRule } from './providerEvents.js';

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
 * The customer reports the reference of a payment (the UTR of a Upi payment, the bank's
 * reference on other rails). A reference that breaks its rail's rule, an unknown order or a paid
 * one are refusals the page shows, not failures (`recordPayerReference` says which).
 */
export async function reportPayerReference(ctx: Ctx, id: string, value: unknown): Promise<Result<PayPage>> {
  const recorded = await recordPayerReference(ctx, id, value);
  if (!recorded.ok) return recorded;
  const merchant = await getMerchant(ctx.db, recorded.value.merchant_id);
  return ok(payPageView(recorded.value, merchant?.name ?? null));
}
