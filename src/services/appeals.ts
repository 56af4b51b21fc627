import type { Ctx } from '../context.js';
import { appealOpening, isOverdue, pausedForAppeals, slaDueAt, type AppealStatus } from '../domain/appealGuard.js';
import { AppError } from '../domain/errors.js';
import { fmt2, fmt8 } from '../domain/money.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import {
  countOpenAppeals,
  countOverdueAppeals,
  getAppeal,
  getDeskAppeal,
  getOpenAppealForOrder,
  getReviewAppeal,
  insertOpenAppeal,
  listReviewAppeals,
  lockProviderAppealFlag,
  resolveAppeal,
  setPausedAppeals,
  type AppealRow,
  type ReviewRow,
} from '../store/appeals.js';
import type { Queryable } from '../store/db.js';
import { findDeskOrder, getOrderById, transitionOrder, type OrderRow } from '../store/orders.js';
import { emitEvent } from './events.js';
import { cancelInTx, completeInTx } from './orderActions.js';

/** The Appeal resource: exactly the spec's fields, plus evidenceUrl as the merchant gave it. */
export function appealView(a: AppealRow) {
  return {
    id: a.id,
    orderId: a.order_id,
    orderRef: a.order_ref,
    status: a.status,
    amount: { value: fmt8(a.amount), currency: 'USD' },
    reason: a.reason,
    comment: a.comment,
    slaDueAt: isoSeconds(a.sla_due_at),
    createdAt: isoSeconds(a.created_at),
    resolvedAt: isoOrNull(a.resolved_at),
    evidenceUrl: a.evidence_url,
  };
}

/** The operator's view: the appeal, who it concerns, its order as it stands, and whether it is past its SLA. */
export function reviewView(r: ReviewRow, nowMs: number) {
  return {
    ...appealView(r),
    deskId: r.desk_id,
    merchantId: r.merchant_id,
    providerId: r.provider_id,
    overdue: isOverdue(r.status, r.sla_due_at.getTime(), nowMs),
    order: {
      id: r.order_id,
      orderRef: r.order_ref,
      status: r.order_status,
      amount: fmt2(r.order_amount),
      currency: r.order_currency,
      settled: { amount: fmt8(r.order_settled_amount), currency: 'USD', rate: fmt8(r.order_rate) },
    },
  };
}

/**
 * Re-applies the appeal guard to the provider that served an order, inside the caller's transaction,
 * after its open appeals changed. The provider row is locked before counting: two transactions
 * changing the same provider's appeals count one after the other, each seeing the other's commit.
 */
export async function applyAppealGuard(q: Queryable, providerId: string | null): Promise<{ openAppeals: number; paused: boolean } | null> {
  if (!providerId) return null;
  const pausedNow = await lockProviderAppealFlag(q, providerId);
  if (pausedNow === null) return null;
  const openAppeals = await countOpenAppeals(q, providerId);
  const paused = pausedForAppeals(pausedNow, openAppeals);
  if (paused !== pausedNow) await setPausedAppeals(q, providerId, paused);
  return { openAppeals, paused };
}

export interface OpenAppealInput {
  /** The order's ord_ id or the merchant's orderRef. */
  orderId: string;
  reason: string | null;
  evidenceUrl: string | null;
}

/**
 * POST /gw/v1/appeals. A Canceled order gets an Open appeal and moves to Dispute, with
 * order.appealed and the appeal guard, in one transaction; a Dispute order returns its open appeal.
 * The order row is locked first, so two concurrent opens for one order run one after the other and
 * the second finds the order in Dispute.
 */
export async function openAppeal(ctx: Ctx, deskId: string, input: OpenAppealInput): Promise<AppealRow> {
  const found = await findDeskOrder(ctx.db, deskId, input.orderId);
  if (!found) throw new AppError('ORDER_NOT_FOUND', `no order ${input.orderId}`);
  return ctx.db.tx(async (q) => {
    const o = (await getOrderById(q, found.id, { forUpdate: true }))!;
    const step = appealOpening(o.status);
    if (!step.ok) throw new AppError(step.refusal.code, step.refusal.detail);
    if (step.value === 'existing') return existingOpenAppeal(q, o);

    const nowMs = ctx.clock.now();
    const now = new Date(nowMs);
    const appeal = await insertOpenAppeal(q, {
      id: newId('apl'),
      orderId: o.id,
      deskId: o.desk_id,
      merchantId: o.merchant_id,
      providerId: o.provider_id,
      amount: fmt8(o.settled_amount),
      reason: input.reason,
      evidenceUrl: input.evidenceUrl,
      slaDueAt: new Date(slaDueAt(nowMs, ctx.config.appealSlaHours)),
      at: now,
    });
    // Only a writer that skipped the order lock could have got here first; its appeal is the one.
    if (!appeal) return existingOpenAppeal(q, o);
    const disputed = await transitionOrder(q, o.id, ['Canceled'], { status: 'Dispute', finishedAt: null }, now);
    if (!disputed) throw new AppError('INVALID_TRANSITION', `order ${o.id} changed concurrently`);
    await emitEvent(q, ctx, disputed, 'order.appealed');
    ctx.metrics.orderTransitions.inc({ to: 'Dispute' });
    await applyAppealGuard(q, o.provider_id);
    return appeal;
  });
}

async function existingOpenAppeal(q: Queryable, o: OrderRow): Promise<AppealRow> {
  const a = await getOpenAppealForOrder(q, o.id);
  // A Dispute order without an open appeal breaks the invariant kept by openAppeal and the two resolutions.
  if (!a) throw new Error(`order ${o.id} is in ${o.status} without an open appeal`);
  return a;
}

/** GET /gw/v1/appeals/{id}: another desk's appeal is not found (D4). */
export async function getAppealForDesk(ctx: Ctx, deskId: string, id: string): Promise<AppealRow> {
  const a = await getDeskAppeal(ctx.db, deskId, id);
  if (!a) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  return a;
}

/**
 * Locks order, then appeal, in that order (the order first, as every order action does, so an
 * operator's decision and a payment confirmation on the same order cannot deadlock), and checks
 * the appeal is still open. Of two decisions at once, the second finds it resolved.
 */
async function lockOpenAppeal(q: Queryable, id: string): Promise<{ appeal: AppealRow; order: OrderRow }> {
  const seen = await getAppeal(q, id);
  if (!seen) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  const order = await getOrderById(q, seen.order_id, { forUpdate: true });
  const appeal = await getAppeal(q, id, { forUpdate: true });
  if (!order || !appeal) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  if (appeal.status !== 'Open') throw new AppError('APPEAL_ALREADY_RESOLVED', `appeal ${id} is already ${appeal.status}`);
  return { appeal, order };
}

/** The operator accepts: appeal Accepted, order Completed and credited, order.completed; the guard re-applied. */
export async function acceptAppeal(ctx: Ctx, id: string, comment: string | null): Promise<ReviewRow> {
  return ctx.db.tx(async (q) => {
    const { order } = await lockOpenAppeal(q, id);
    // completeInTx accepts the open appeal with the comment and re-applies the appeal guard.
    await completeInTx(q, ctx, order, ['Dispute'], 'appeal accepted', comment);
    return (await getReviewAppeal(q, id))!;
  });
}

/** The operator rejects: appeal Rejected, order Canceled with cancelReason `appeal rejected`, order.cancelled; the guard re-applied. */
export async function rejectAppeal(ctx: Ctx, id: string, comment: string | null): Promise<ReviewRow> {
  return ctx.db.tx(async (q) => {
    const { order } = await lockOpenAppeal(q, id);
    await cancelInTx(q, ctx, order, ['Dispute'], { subStatus: 'Cancelled', reason: 'appeal rejected' });
    if (!(await resolveAppeal(q, id, 'Rejected', comment, new Date(ctx.clock.now())))) {
      throw new AppError('APPEAL_ALREADY_RESOLVED', `appeal ${id} is no longer open`);
    }
    await applyAppealGuard(q, order.provider_id);
    return (await getReviewAppeal(q, id))!;
  });
}

export const REVIEW_LIST_LIMIT = 500;

/**
 * GET /admin/v1/appeals: most urgent decision target first. Also sets the appealsOverdue gauge,
 * counted over all open appeals so that it does not depend on the filter or the page size.
 */
export async function listAppealsForReview(ctx: Ctx, status: AppealStatus | null) {
  const nowMs = ctx.clock.now();
  const [rows] = await Promise.all([listReviewAppeals(ctx.db, status, REVIEW_LIST_LIMIT), refreshAppealsOverdue(ctx)]);
  return rows.map((r) => reviewView(r, nowMs));
}

/** Sets the appealsOverdue gauge to the number of open appeals past their SLA now; also usable from a periodic worker. */
export async function refreshAppealsOverdue(ctx: Ctx): Promise<number> {
  const overdue = await countOverdueAppeals(ctx.db, new Date(ctx.clock.now()));
  ctx.metrics.appealsOverdue.set(overdue);
  return overdue;
}

export async function getAppealForReview(ctx: Ctx, id: string) {
  const r = await getReviewAppeal(ctx.db, id);
  if (!r) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  return reviewView(r, ctx.clock.now());
}
