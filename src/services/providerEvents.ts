import { randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
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
 * A UTR as the customer reports it on the payment page. UPI references are 12 digits in practice,
 * but some payer apps show longer or alphanumeric transaction ids, and a customer whose reference
 * is refused has no way to correct it; since the value is only a matching hint (never a status),
 * the rule is 1–64 ASCII letters and digits, surrounding whitespace trimmed, stored as given.
 */
export const PAYER_REFERENCE_PATTERN = /^[A-Za-z0-9]{1,64}$/;

export function parsePayerReference(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return PAYER_REFERENCE_PATTERN.test(trimmed) ? trimmed : null;
}

/**
 * The customer reports the UTR of a Upi payment: stored on an open (Created or Payed) order with
 * rail Upi, the latest report replacing an earlier one. The order row is locked, so a report never
 * lands on an order that closed in between.
 */
export async function recordPayerReference(ctx: Ctx, orderId: string, payerReference: string): Promise<OrderRow> {
  return ctx.db.tx(async (q) => {
    const o = orderId.startsWith('ord_') ? await getOrderById(q, orderId, { forUpdate: true }) : null;
    if (!o) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    if (o.rail !== 'Upi') throw new AppError('INVALID_TRANSITION', 'a payer reference is reported only for rail Upi');
    if (o.status !== 'Created' && o.status !== 'Payed') throw new AppError('INVALID_TRANSITION', `the order is ${o.status}; a payer reference is taken only while it is open`);
    const now = new Date(ctx.clock.now());
    await setPayerReference(q, o.id, payerReference, now);
    return { ...o, payer_reference: payerReference, updated_at: now };
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
