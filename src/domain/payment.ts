/** The order's `payment` object (spec, Order): every key always present, keys the rail does not use null. */
export const PAYMENT_KEYS = ['url', 'card', 'phone', 'account', 'iban', 'upiId', 'holder', 'bank'] as const;
export type PaymentKey = (typeof PAYMENT_KEYS)[number];
export type Payment = Record<PaymentKey, string | null>;

/** Keys a customer can actually pay to; a recipient name or bank alone is not payable. */
export const PAYABLE_KEYS = ['url', 'card', 'phone', 'account', 'iban', 'upiId'] as const satisfies readonly PaymentKey[];

export const isPaymentKey = (k: string): k is PaymentKey => (PAYMENT_KEYS as readonly string[]).includes(k);

/** A stored or issued details object as the full `payment` object: every key present, missing ones null. */
export function paymentOf(p: Partial<Record<string, string | null>> | null | undefined): Payment {
  const out = {} as Payment;
  for (const k of PAYMENT_KEYS) out[k] = p?.[k] ?? null;
  return out;
}

export const hasPayableDetail = (p: Partial<Payment>): boolean => PAYABLE_KEYS.some((k) => !!p[k]);
