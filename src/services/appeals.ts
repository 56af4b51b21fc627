import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import { MAX_RECEIPT_BYTES, receiptTypeOf } from '../domain/receipts.js';
import { appealOpening, isOverdue, slaDueAt, type AppealStatus } from '../domain/appealGuard.js';
import { AppError } from '../domain/errors.js';
import { fmt2, fmt8 } from '../domain/money.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import {
  countOverdueAppeals,
  getAppeal,
  getDeskAppeal,
  getReceipt,
  getReceiptMeta,
  insertAppealReceipt,
  listOrderAppeals,
  getOpenAppealForOrder,
  getReviewAppeal,
  insertOpenAppeal,
  listReviewAppeals,
  resolveAppeal,
  type AppealRow,
  type ReviewRow,
} from '../store/appeals.js';
import type { Queryable } from '../store/db.js';
import { findScopedOrder, getOrderById, transitionOrder, type OrderRow, type OrderScope } from '../store/orders.js';
import { emitEvent } from './events.js';
import { pageOf, type Page } from './paging.js';
import { cancelInTx, completeInTx } from './orderActions.js';
import { applyAppealGuard } from './appealGuard.js';
import { ORDER_ACTIONS } from '../domain/orders.js';

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

export interface OpenAppealInput {
  /** The order's ord_ id or the merchant's orderRef. */
  orderId: string;
  reason: string | null;
  evidenceUrl: string | null;
  /** A receipt file (cabinet only): checked by content, stored with the appeal in its transaction. */
  receipt?: { content: Buffer; fileName: string | null } | null;
}

/**
 * POST /gw/v1/appeals. A Canceled order gets an Open appeal and moves to Dispute, with
 * order.appealed and the appeal guard, in one transaction; a Dispute order returns its open appeal.
 * The order row is locked first, so two concurrent opens for one order run one after the other and
 * the second finds the order in Dispute.
 */
export async function openAppeal(ctx: Ctx, scope: OrderScope, input: OpenAppealInput) {
  return appealView(await openAppealRow(ctx, scope, input));
}

export async function openAppealRow(ctx: Ctx, scope: OrderScope, input: OpenAppealInput): Promise<AppealRow> {
  const receipt = input.receipt ? checkedReceipt(input.receipt) : null;
  const found = await findScopedOrder(ctx.db, scope, input.orderId);
  if (!found) throw new AppError('ORDER_NOT_FOUND', `no order ${input.orderId}`);
  return ctx.db.tx(async (q) => {
    const appeal = await openInTx(q, ctx, found.id, input);
    // A repeat on an appeal that already has a receipt keeps the first one.
    if (receipt) await insertAppealReceipt(q, { appealId: appeal.id, ...receipt, at: new Date(ctx.clock.now()) });
    return appeal;
  });
}

/** The receipt's type from its bytes and its size, or the refusal: a wrong type is 400, too large 413. */
function checkedReceipt(r: { content: Buffer; fileName: string | null }) {
  if (r.content.length > MAX_RECEIPT_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'receipt: the file is larger than 5 MiB');
  const contentType = receiptTypeOf(r.content);
  if (!contentType) throw new AppError('VALIDATION_ERROR', 'receipt: the file is not a PDF, PNG or JPEG');
  const fileName = r.fileName ? r.fileName.replace(/[\u0000-\u001f\u007f]/g, '').slice(-200) || null : null;
  return { contentType, fileName, content: r.content, sha256: createHash('sha256').update(r.content).digest('hex') };
}

async function openInTx(q: Queryable, ctx: Ctx, orderId: string, input: OpenAppealInput): Promise<AppealRow> {
  const o = (await getOrderById(q, orderId, { forUpdate: true }))!;
  const step = appealOpening(o.status);
  if (!step.ok) throw new AppError(step.refusal.code, step.refusal.detail);
  if (step.value === 'existing') return existingOpenAppeal(q, o);

  const nowMs = ctx.clock.now();
  const now = new Date(nowMs);
  const appeal = await insertOpenAppeal(q, {
    id: newHistoryId('apl', nowMs),
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
  const disputed = await transitionOrder(q, o.id, ORDER_ACTIONS.appeal.from, { status: 'Dispute', finishedAt: null }, now);
  if (!disputed) throw new AppError('INVALID_TRANSITION', `order ${o.id} changed concurrently`);
  await emitEvent(q, ctx, disputed, 'order.appealed');
  ctx.metrics.orderTransitions.inc({ to: 'Dispute' });
  await applyAppealGuard(q, o.provider_id);
  return appeal;
}

async function existingOpenAppeal(q: Queryable, o: OrderRow): Promise<AppealRow> {
  const a = await getOpenAppealForOrder(q, o.id);
  // A Dispute order without an open appeal breaks the invariant kept by openAppeal and the two resolutions.
  if (!a) throw new Error(`order ${o.id} is in ${o.status} without an open appeal`);
  return a;
}

/** GET /gw/v1/appeals/{id}: another desk's appeal is not found (D4). */
export async function getAppealForDesk(ctx: Ctx, deskId: string, id: string) {
  const a = await getDeskAppeal(ctx.db, deskId, id);
  if (!a) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  return appealView(a);
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
export async function acceptAppeal(ctx: Ctx, id: string, comment: string | null) {
  return ctx.db.tx(async (q) => {
    const { order } = await lockOpenAppeal(q, id);
    // completeInTx accepts the open appeal with the comment and re-applies the appeal guard.
    await completeInTx(q, ctx, order, 'acceptAppeal', comment);
    return reviewView((await getReviewAppeal(q, id))!, ctx.clock.now());
  });
}

/** The operator rejects: appeal Rejected, order Canceled with cancelReason `appeal rejected`, order.cancelled; the guard re-applied. */
export async function rejectAppeal(ctx: Ctx, id: string, comment: string | null) {
  return ctx.db.tx(async (q) => {
    const { order } = await lockOpenAppeal(q, id);
    await cancelInTx(q, ctx, order, 'rejectAppeal', { subStatus: 'Cancelled', reason: 'appeal rejected' });
    if (!(await resolveAppeal(q, id, 'Rejected', comment, new Date(ctx.clock.now())))) {
      throw new AppError('APPEAL_ALREADY_RESOLVED', `appeal ${id} is no longer open`);
    }
    await applyAppealGuard(q, order.provider_id);
    return reviewView((await getReviewAppeal(q, id))!, ctx.clock.now());
  });
}

export interface AppealListQuery {
  status?: AppealStatus;
  merchantId?: string;
  /** Cursor of the open-appeal queue (oldest decision target first). */
  after?: string;
  /** Cursor of every other list (newest first). */
  before?: string;
  limit: number;
}

/**
 * `GET /admin/v1/appeals` (and the cabinet's list, scoped to a merchant): open appeals most urgent
 * first, paged forward with `after`; any other list newest first, paged back with `before`. Also
 * sets the appealsOverdue gauge, counted over all open appeals so it does not depend on the filter.
 */
export async function listAppealsForReview(ctx: Ctx, query: AppealListQuery): Promise<Page<ReturnType<typeof reviewView>>> {
  const nowMs = ctx.clock.now();
  const bySla = query.status === 'Open';
  const cursorId = bySla ? query.after : query.before;
  if (cursorId && !(await getAppeal(ctx.db, cursorId))) throw new AppError('VALIDATION_ERROR', `${bySla ? 'after' : 'before'}: unknown appeal id`);
  const [rows] = await Promise.all([
    listReviewAppeals(ctx.db, { status: query.status ?? null, merchantId: query.merchantId, bySla, cursorId, limit: query.limit + 1 }),
    query.merchantId ? Promise.resolve(0) : refreshAppealsOverdue(ctx),
  ]);
  return pageOf(rows, query.limit, (r) => reviewView(r, nowMs), (r) => r.id);
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

/** The cabinet's appeal page: the merchant's appeal with its order and receipt; another merchant's is not found. */
export async function getAppealForMerchant(ctx: Ctx, merchantId: string, id: string) {
  const r = await getReviewAppeal(ctx.db, id, merchantId);
  if (!r) throw new AppError('APPEAL_NOT_FOUND', `no appeal ${id}`);
  const receipt = await getReceiptMeta(ctx.db, id);
  return {
    ...reviewView(r, ctx.clock.now()),
    receipt: receipt ? { contentType: receipt.content_type, fileName: receipt.file_name, sizeBytes: receipt.size_bytes, sha256: receipt.sha256 } : null,
  };
}

/** The receipt file for its download: the merchant's own (or any, for an operator with merchantId null). */
export async function appealReceiptFile(ctx: Ctx, merchantId: string | null, appealId: string) {
  const r = await getReceipt(ctx.db, appealId, merchantId);
  if (!r) throw new AppError('NOT_FOUND', `no receipt for appeal ${appealId}`);
  return { contentType: r.content_type, fileName: r.file_name, content: r.content };
}

/** The appeals of one of the merchant's orders, for its order page (the order is looked up in scope first). */
export async function appealsOfOrder(ctx: Ctx, merchantId: string, orderId: string) {
  return (await listOrderAppeals(ctx.db, orderId)).filter((a) => a.merchant_id === merchantId).map(appealView);
}
