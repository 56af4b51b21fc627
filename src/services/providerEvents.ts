import { randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError, fail, ok, type Result } from '../domain/errors.js';
import { verifyProviderMessage, type ProviderEvent } from '../providers/providerMessages.js';
import { providerKind } from '../providers/registry.js';
import { getProvider } from '../store/providers.js';
import { getOrderById, setPayerReference, type OrderRow } from '../store/orders.js';
import { recordProviderMessage } from '../store/providerMessages.js';
import { confirmInTx, rejectInTx, reportPaymentInTx, reverseInTx } from './orderActions.js';

/** The ledger reason of a reversal a provider asked for (operator-api: `revoked` = reverse). */
export const REVOKED_REASON = 'revoked by provider';

export type ProviderEventResult =
  | { duplicate: false; order: OrderRow }
  /** The provider already sent a message with this event id and it was applied; nothing changed now. */
  | { duplicate: true };

/**
 * Applies one verified provider event (`POST /providers/v1/{providerId}/events`) exactly once.
 *
 * The message row (provider, event id) and the effect commit in one transaction: the row is
 * inserted first, so a repeat finds it and changes nothing, and any refusal (unknown order, a
 * transition that is not allowed) rolls the row back with the effect, so nothing is recorded as
 * applied that was not, and the provider's retry of a refused event is judged afresh. The
 * alternative, recording the id in a transaction of its own and deleting it again when the effect
 * fails, would answer a retry with 200 and lose the event if the process died between the two.
 *
 * The effects are the operator's order actions (report-payment, confirm, reject, reverse), in their
 * transaction-taking form so they share the message row's transaction.
 */
export async function applyProviderEvent(ctx: Ctx, providerId: string, eventId: string, event: ProviderEvent): Promise<ProviderEventResult> {
  return ctx.db.tx(async (q) => {
    const now = new Date(ctx.clock.now());
    if (!(await recordProviderMessage(q, providerId, eventId, now))) return { duplicate: true };
    const o = await getOrderById(q, event.orderId, { forUpdate: true });
    // Another provider's order is "not found" as well: a provider learns nothing about orders it did not serve.
    if (!o || o.provider_id !== providerId) throw new AppError('ORDER_NOT_FOUND', `no order ${event.orderId} served by this provider`);
    switch (event.type) {
      case 'paid':
        return { duplicate: false, order: await reportPaymentInTx(q, ctx, o, event.payerReference) };
      case 'confirmed':
        return { duplicate: false, order: await confirmInTx(q, ctx, o) };
      case 'rejected':
        return { duplicate: false, order: await rejectInTx(q, ctx, o) };
      case 'revoked':
        await reverseInTx(q, ctx, o, REVOKED_REASON);
        return { duplicate: false, order: o };
    }
  });
}

/**
 * The reference a customer reports for a payment, checked per rail before it is stored (web spec,
 * "Payment page, in addition"). A UPI payment's UTR is exactly 12 digits: every UPI app shows it
 * so, and a shorter or lettered value is a different number (a UPI transaction id, an app's own
 * id) that matches nothing on the bank's statement. Other rails' receipts carry 4 to 40 ASCII
 * letters, digits, `-` or `/` (SBP operation ids, card RRNs, EFT/FAST and Havale references).
 * Surrounding whitespace is trimmed; the rest is stored as given.
 */
export const UTR_PATTERN = /^[0-9]{12}$/;
export const BANK_REFERENCE_PATTERN = /^[A-Za-z0-9/-]{4,40}$/;

/** Which rule a rail's reference follows: the UTR of `Upi`, or the bank reference of every other rail (and of methods without rails). */
export type PayerReferenceRule = 'utr' | 'bankReference';

export function payerReferenceRule(rail: string | null): PayerReferenceRule {
  return rail === 'Upi' ? 'utr' : 'bankReference';
}

/** The refusal's wording, the same through the API and the page's form. */
export const PAYER_REFERENCE_RULES: Record<PayerReferenceRule, string> = {
  utr: 'a UPI UTR is exactly 12 digits',
  bankReference: 'must be 4 to 40 letters, digits, "-" or "/"',
};

export function parsePayerReference(value: unknown, rail: string | null): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  const pattern = payerReferenceRule(rail) === 'utr' ? UTR_PATTERN : BANK_REFERENCE_PATTERN;
  return pattern.test(trimmed) ? trimmed : null;
}

/**
 * The customer reports the reference of a payment, on any rail. It is taken while the order is
 * unpaid: `Created`, and `Canceled` (expired or cancelled: "I have paid", a late payment the
 * platform's reconciliation looks for), the latest report replacing an earlier one. Once the
 * order is paid (`Payed`, `Completed`, `Dispute`) the reference it was paid with stands, and a
 * report is refused with the code a cancel gets in the same state. The state is judged before the
 * value, since no value could be stored then. The order row is locked, so a report never lands on
 * an order that was paid in between.
 */
export async function recordPayerReference(ctx: Ctx, orderId: string, value: unknown): Promise<Result<OrderRow>> {
  return ctx.db.tx(async (q) => {
    const o = orderId.startsWith('ord_') ? await getOrderById(q, orderId, { forUpdate: true }) : null;
    if (!o) return fail('ORDER_NOT_FOUND', 'no such order');
    switch (o.status) {
      case 'Payed':
        return fail('ORDER_ALREADY_PAID', `order ${o.id} is paid and waiting for confirmation; its payer reference can no longer be changed`);
      case 'Completed':
        return fail('ORDER_ALREADY_COMPLETED', `order ${o.id} is completed; its payer reference can no longer be changed`);
      case 'Dispute':
        return fail('ORDER_IN_DISPUTE', `order ${o.id} has an open appeal; its payer reference can no longer be changed`);
      case 'Created':
      case 'Canceled':
        break;
      default: {
        // A new status must say here whether it takes a reference.
        const unhandled: never = o.status;
        throw new Error(`payer reference on an order in status ${String(unhandled)}`);
      }
    }
    const ref = parsePayerReference(value, o.rail);
    if (ref === null) return fail('VALIDATION_ERROR', `payerReference: ${PAYER_REFERENCE_RULES[payerReferenceRule(o.rail)]}`);
    const now = new Date(ctx.clock.now());
    await setPayerReference(q, o.id, ref, now);
    return ok({ ...o, payer_reference: ref, updated_at: now });
  });
}

/** An id that is not an `http` provider is checked against a throwaway key, so it fails exactly like a wrong signature. */
const DECOY = { key: `decoy_${randomBytes(16).toString('hex')}`, secret: randomBytes(32).toString('hex') };

export type InboundResult = { ok: true; eventId: string; duplicate: boolean; orderStatus?: string } | { ok: false; code: 'AUTH_FAILED' | 'VALIDATION_ERROR'; detail: string };

/**
 * `POST /providers/v1/{providerId}/events`: the signature over the raw bytes first (401 whatever
 * the body), then the body (400), then the effect, applied once per message id.
 */
export async function receiveProviderEvent(ctx: Ctx, providerId: string, headers: Record<string, string | string[] | undefined>, rawBody: Buffer): Promise<InboundResult> {
  const provider = await getProvider(ctx.db, providerId);
  const inbound = provider ? providerKind(provider.kind).inbound : null;
  const creds = provider && inbound ? inbound.credentials(ctx, provider) : null;
  const verdict = verifyProviderMessage({
    headers,
    rawBody,
    expectedKey: creds?.key ?? DECOY.key,
    secret: creds?.secret ?? DECOY.secret,
    nowMs: ctx.clock.now(),
  });
  if (!verdict.ok) {
    ctx.log.warn({ providerId, reason: verdict.reason, status: verdict.status }, 'provider event refused');
    return { ok: false, code: verdict.status === 401 ? 'AUTH_FAILED' : 'VALIDATION_ERROR', detail: verdict.reason };
  }
  // The decoy check passes only for a caller who guessed 32 random bytes; refused all the same.
  if (!provider || !creds) return { ok: false, code: 'AUTH_FAILED', detail: 'key or signature mismatch' };
  const result = await applyProviderEvent(ctx, provider.id, verdict.eventId, verdict.event);
  ctx.log.info(
    { providerId, eventId: verdict.eventId, type: verdict.event.type, orderId: verdict.event.orderId, duplicate: result.duplicate },
    result.duplicate ? 'provider event already applied' : 'provider event applied',
  );
  return { ok: true, eventId: verdict.eventId, duplicate: result.duplicate, ...(result.duplicate ? {} : { orderStatus: result.order.status }) };
}
