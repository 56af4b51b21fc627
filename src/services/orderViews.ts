import { paymentOf } from '../domain/payment.js';
import { fmt2, fmt4, fmt8 } from '../domain/money.js';
import { isoMillis, isoOrNull, isoSeconds } from '../domain/time.js';
import type { EventKind } from '../store/outbox.js';
import type { OrderRow, OrderViewRow } from '../store/orders.js';

/** Every key always present; keys the rail does not use are null. */
export const paymentView = paymentOf;

/**
 * The absolute address of the order's payment page, where the merchant sends the customer:
 * `{PUBLIC_URL}/pay/{id}` (`publicUrl` has no trailing slash).
 */
export function payPageUrlOf(publicUrl: string, orderId: string): string {
  return `${publicUrl}/pay/${orderId}`;
}

type CreateViewRow = Pick<OrderRow, 'id' | 'amount' | 'currency' | 'settled_amount' | 'rate' | 'method' | 'rail' | 'status' | 'payment' | 'created_at' | 'expires_at' | 'sandbox'>;

/** The spec's create fields; orderRef is always null here. */
function specCreateFields(o: CreateViewRow) {
  return {
    id: o.id,
    orderRef: null,
    amount: fmt2(o.amount),
    currency: o.currency,
    settled: { amount: fmt8(o.settled_amount), currency: 'USD', rate: fmt8(o.rate) },
    method: o.method,
    rail: o.rail,
    direction: 'In',
    status: o.status,
    payment: paymentView(o.payment),
    createdAt: isoSeconds(o.created_at),
    expiresAt: isoSeconds(o.expires_at),
  };
}

/**
 * The 201 create response: the spec's create fields, then whether it is a sandbox order and the
 * address of its payment page (`publicUrl`: the configured PUBLIC_URL).
 */
export function createView(o: CreateViewRow, publicUrl: string) {
  return { ...specCreateFields(o), sandbox: o.sandbox, payPageUrl: payPageUrlOf(publicUrl, o.id) };
}

/** The get fields of an order (the create fields plus the spec's get fields), then `sandbox`: the order as the cabinet's pages read it. */
export function orderFields(o: OrderViewRow) {
  return {
    ...specCreateFields(o),
    orderRef: o.order_ref,
    subStatus: o.sub_status,
    payerReference: o.payer_reference,
    commission: { rate: fmt4(o.commission_rate), amount: fmt8(o.commission_amount), currency: 'USD' },
    credited: { amount: fmt8(o.credited_amount), currency: 'USD' },
    cancelReason: o.cancel_reason,
    finishedAt: isoOrNull(o.finished_at),
    description: o.description ?? null,
    paidAmount: paidAmountOf(o),
    sandbox: o.sandbox,
  };
}

/**
 * GET /gw/v1/orders/{id} and every other order read: the get fields, then `sandbox` and the
 * address of the payment page (D24: new fields are added after the spec's own).
 */
export function orderView(o: OrderViewRow, publicUrl: string) {
  return { ...orderFields(o), payPageUrl: payPageUrlOf(publicUrl, o.id) };
}

/** The operator's order: the get fields plus who it belongs to and who served it. */
export function operatorOrderView(o: OrderRow, publicUrl: string) {
  return { ...orderView(o, publicUrl), deskId: o.desk_id, merchantId: o.merchant_id, providerId: o.provider_id };
}

/**
 * What a completed order was paid: its amount, or the money that arrived when a person matched a
 * credit of another amount to it; null until it completes (orders completed before this was kept
 * were paid their amount).
 */
export function paidAmountOf(o: Pick<OrderRow, 'status' | 'amount' | 'paid_amount'>): string | null {
  return o.status === 'Completed' ? fmt2(o.paid_amount ?? o.amount) : null;
}

/**
 * The callback body, in the spec's field order; serialised once and kept as the exact bytes sent.
 * A completed order's body also says what it was paid (`paidAmount`, after `amount`'s siblings),
 * and every body ends with `sandbox`: whether the order is a sandbox order (no money moved).
 */
export function eventBody(o: OrderRow, event: EventKind, occurredAtMs: number): string {
  return JSON.stringify({
    event,
    id: o.id,
    orderRef: o.order_ref,
    status: o.status,
    amount: { value: fmt2(o.amount), currency: o.currency },
    settled: { value: fmt8(o.settled_amount), currency: 'USD', rate: fmt8(o.rate) },
    ...(o.status === 'Completed' ? { paidAmount: { value: paidAmountOf(o), currency: o.currency } } : {}),
    method: o.method,
    rail: o.rail,
    occurredAt: isoMillis(occurredAtMs),
    sandbox: o.sandbox,
  });
}

/**
 * Statuses in which the customer may still need the payment details: waiting for the payment, or
 * paid and being confirmed. Completed, cancelled, expired and disputed orders take no more money,
 * so their details are never shown again (web spec, "Payment page").
 */
export function showsPaymentDetails(status: OrderRow['status']): boolean {
  return status === 'Created' || status === 'Payed';
}

/**
 * The payment page's fields, as `GET /api/pay/{id}` answers them: what the customer needs to pay and
 * a display name, nothing else about the merchant. A closed order carries every payment key null.
 */
export function payPageView(o: OrderRow, merchantName: string | null) {
  return {
    id: o.id,
    // The merchant's own reference: the customer's UPI app shows it as the payment's note (tn).
    orderRef: o.order_ref,
    status: o.status,
    subStatus: o.sub_status,
    amount: fmt2(o.amount),
    currency: o.currency,
    method: o.method,
    rail: o.rail,
    payment: paymentView(showsPaymentDetails(o.status) ? o.payment : null),
    payerReference: o.payer_reference,
    expiresAt: isoSeconds(o.expires_at),
    successUrl: o.success_url ?? o.back_url,
    failUrl: o.fail_url ?? o.back_url,
    backUrl: o.back_url,
    merchant: { displayName: merchantName },
    sandbox: o.sandbox,
    description: o.description ?? null,
  };
}
