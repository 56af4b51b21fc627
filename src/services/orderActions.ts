import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt8 } from '../domain/money.js';
import { allowedFrom, ORDER_ACTIONS, refuseFrom, type CancellingAction, type CompletingAction } from '../domain/orders.js';
import type { Queryable } from '../store/db.js';
import { orderNet, postEntry } from '../store/ledger.js';
import { closeDueOrders, findScopedOrder, getOrderById, setPayerReference, transitionOrder, type OrderRow, type OrderScope } from '../store/orders.js';
import { orderView } from './orderViews.js';
import { completeManyInTx } from './completions.js';
import { emitEvent, emitEvents } from './events.js';

const at = (ctx: Ctx) => new Date(ctx.clock.now());

async function lockOrder(q: Queryable, id: string): Promise<OrderRow> {
  const o = await getOrderById(q, id, { forUpdate: true });
  if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
  return o;
}

/**
 * Completion of one order by the action (a confirmation, a simulated payment, an accepted appeal
 * with `comment`): the path every completion takes (`completeManyInTx`), for one order. The order,
 * its fee, the ledger credit, the merchant balance, the turnover counters, an open appeal (accepted
 * by the payment) and the order.completed event all commit together.
 */
export async function completeInTx(q: Queryable, ctx: Ctx, o: OrderRow, action: CompletingAction, comment: string | null = null, paidAmount: string | null = null): Promise<OrderRow> {
  return (await completeManyInTx(q, ctx, [o], { action, appealComment: comment, paidAmounts: paidAmount === null ? undefined : new Map([[o.id, paidAmount]]) }))[0]!;
}

export async function cancelInTx(
  q: Queryable,
  ctx: Ctx,
  o: OrderRow,
  action: CancellingAction,
  change: { subStatus: 'Cancelled' | 'Expired'; reason: string | null },
): Promise<OrderRow> {
  const now = at(ctx);
  const done = await transitionOrder(q, o.id, ORDER_ACTIONS[action].from, { status: 'Canceled', subStatus: change.subStatus, cancelReason: change.reason, finishedAt: now }, now);
  if (!done) refuseFrom(o, 'cancel');
  await emitEvent(q, ctx, done, 'order.cancelled');
  ctx.metrics.orderTransitions.inc({ to: 'Canceled' });
  return done;
}

/**
 * Expires the order now if it is still Created and its expiresAt has been reached, exactly as the
 * expiry worker would (Canceled/Expired, order.cancelled); returns the order as it then stands.
 * For callers that must not act on an order the worker simply has not reached yet.
 */
export async function expireIfDueInTx(q: Queryable, ctx: Ctx, id: string): Promise<OrderRow | null> {
  const o = await getOrderById(q, id, { forUpdate: true });
  if (!o || o.status !== 'Created' || o.expires_at.getTime() > ctx.clock.now()) return o;
  return cancelInTx(q, ctx, o, 'expire', { subStatus: 'Expired', reason: 'expired' });
}

/** Live: the provider reports a payment; Created → Payed, waiting for confirmation, no callback; a repeat changes nothing. */
export async function reportPaymentInTx(q: Queryable, ctx: Ctx, o: OrderRow, payerReference: string | null): Promise<OrderRow> {
  if (o.sandbox) throw new AppError('INVALID_TRANSITION', 'sandbox orders skip Payed; use simulate-payment');
  if (o.status === 'Payed') return o;
  const now = at(ctx);
  const done = await transitionOrder(q, o.id, ORDER_ACTIONS.report.from, { status: 'Payed', subStatus: 'WaitingAdminConfirmation' }, now);
  if (!done) refuseFrom(o, 'report a payment for');
  if (payerReference) await setPayerReference(q, o.id, payerReference, now);
  ctx.metrics.orderTransitions.inc({ to: 'Payed' });
  return (await getOrderById(q, o.id))!;
}

/**
 * The platform confirms the funds: Payed → Completed; Canceled → Completed (reconciliation at the
 * captured rate); Dispute → Completed with its appeal accepted; Created → Completed when the
 * confirmation arrives without a prior report.
 */
export function confirmInTx(q: Queryable, ctx: Ctx, o: OrderRow, paidAmount: string | null = null): Promise<OrderRow> {
  return completeInTx(q, ctx, o, 'confirm', o.status === 'Dispute' ? 'payment confirmed' : null, paidAmount);
}

/** The provider rejects: an unpaid or unconfirmed order is closed; rejecting a cancelled order changes nothing. */
export async function rejectInTx(q: Queryable, ctx: Ctx, o: OrderRow): Promise<OrderRow> {
  if (o.status === 'Canceled') return o;
  return cancelInTx(q, ctx, o, 'reject', { subStatus: 'Cancelled', reason: 'rejected by provider' });
}

/** A reversal of what the order still has on the balance, linked to it; the order stays as it is. Returns the amount. */
export async function reverseInTx(q: Queryable, ctx: Ctx, o: OrderRow, reason: string): Promise<string> {
  const net = dec(await orderNet(q, o.id));
  if (net.lte(0)) throw new AppError('NOTHING_TO_REVERSE', `order ${o.id} has no credit to reverse`);
  await postEntry(q, { merchantId: o.merchant_id, orderId: o.id, kind: 'reversal', amount: fmt8(net.neg()), reason, sandbox: o.sandbox, at: at(ctx) });
  return fmt8(net);
}

/**
 * Runs one order action on the order, locked, in its own transaction. The order is looked up within
 * the caller's scope first (a merchant or desk sees only its own orders; operators every order).
 */
async function onLockedOrder<T>(ctx: Ctx, scope: OrderScope, id: string, action: (q: Queryable, o: OrderRow) => Promise<T>): Promise<T> {
  const found = await findScopedOrder(ctx.db, scope, id);
  if (!found) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
  return ctx.db.tx(async (q) => action(q, await lockOrder(q, found.id)));
}

/** Sandbox: payment simulated, Created → Completed at once (skips Payed). Operators and the merchant's cabinet. */
export const simulatePayment = (ctx: Ctx, scope: OrderScope, id: string) =>
  onLockedOrder(ctx, scope, id, async (q, o) => {
    if (!o.sandbox) throw new AppError('INVALID_TRANSITION', 'simulate-payment is for sandbox orders; live orders use report-payment and confirm');
    return orderView(await completeInTx(q, ctx, o, 'simulate'), ctx.config.publicBaseUrl);
  });
export const reportPayment = (ctx: Ctx, id: string, payerReference: string | null = null) =>
  onLockedOrder(ctx, {}, id, async (q, o) => orderView(await reportPaymentInTx(q, ctx, o, payerReference), ctx.config.publicBaseUrl));
export const confirmPayment = (ctx: Ctx, id: string) => onLockedOrder(ctx, {}, id, async (q, o) => orderView(await confirmInTx(q, ctx, o), ctx.config.publicBaseUrl));
export const rejectOrder = (ctx: Ctx, id: string) => onLockedOrder(ctx, {}, id, async (q, o) => orderView(await rejectInTx(q, ctx, o), ctx.config.publicBaseUrl));
export const reverseOrder = (ctx: Ctx, id: string, reason: string) =>
  onLockedOrder(ctx, {}, id, async (q, o) => ({
    order: orderView(o, ctx.config.publicBaseUrl),
    reversal: { amount: await reverseInTx(q, ctx, o, reason), currency: 'USD' as const, reason },
  }));

/** POST /gw/v1/orders/{id}/cancel: only unpaid orders; a cancelled order is a no-op; the reason is stored. */
export async function cancelByMerchant(ctx: Ctx, scope: OrderScope, idOrRef: string, reason: string | null) {
  return onLockedOrder(ctx, scope, idOrRef, async (q, o) => {
    if (o.status === 'Canceled') return orderView(o, ctx.config.publicBaseUrl);
    if (!allowedFrom('cancel', o.status)) {
      switch (o.status) {
        case 'Completed':
          throw new AppError('ORDER_ALREADY_COMPLETED', `order ${o.id} is completed and cannot be cancelled`);
        case 'Payed':
          throw new AppError('ORDER_ALREADY_PAID', `order ${o.id} is paid and waiting for confirmation; it cannot be cancelled`);
        case 'Dispute':
          throw new AppError('ORDER_IN_DISPUTE', `order ${o.id} has an open appeal`);
      }
    }
    return orderView(await cancelInTx(q, ctx, o, 'cancel', { subStatus: 'Cancelled', reason: reason ?? 'cancelled by merchant' }), ctx.config.publicBaseUrl);
  });
}

/** One pass of the expiry worker: a batch of due Created orders closed in one statement, with their events, in one transaction. */
export async function expireDueOrders(ctx: Ctx, batchSize: number): Promise<number> {
  return ctx.db.tx(async (q) => {
    const closed = await closeDueOrders(q, at(ctx), batchSize);
    await emitEvents(q, ctx, closed, 'order.cancelled');
    if (closed.length) {
      ctx.metrics.ordersExpired.inc(closed.length);
      ctx.metrics.orderTransitions.inc({ to: 'Canceled' }, closed.length);
    }
    return closed.length;
  });
}
