/**
 * What the back office's reconciliation pages read: the queue of credits with the orders a person
 * weighs them against, the count in the navigation, and the pool providers with their requisites.
 * Working the queue (match, ignore) and changing requisites go through the same services as the
 * operator API (credits.ts, requisites.ts).
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt2 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { listProviderViews } from '../services/providersAdmin.js';
import { creditView, type CreditView } from './credits.js';
import { listRequisites, type RequisiteView } from './requisites.js';
import * as store from './store.js';

/**
 * Counts shown beside a queue stop at this: past it the page says "999+", and counting further
 * would cost every page of the back office a walk through the whole queue.
 */
export const QUEUE_COUNT_CAP = 1000;

/** The queue's count in the navigation: every credit waiting for a person, up to QUEUE_COUNT_CAP. */
export async function unmatchedCreditCount(ctx: Ctx): Promise<number> {
  return store.countCredits(ctx.db, 'unmatched', QUEUE_COUNT_CAP);
}

function orderBriefView(o: store.OrderBriefRow) {
  return { id: o.id, amount: fmt2(o.amount), currency: o.currency, status: o.status, createdAt: isoSeconds(o.created_at), expiresAt: isoSeconds(o.expires_at), merchantId: o.merchant_id };
}
export type OrderBrief = ReturnType<typeof orderBriefView>;

/** A credit with its candidates as orders (amount, created, status), in the credit's order of them; an id that names no order is left out. */
export type QueuedCredit = CreditView & { candidateOrders: OrderBrief[] };

async function withCandidates(ctx: Ctx, rows: store.CreditRow[]): Promise<QueuedCredit[]> {
  const ids = [...new Set(rows.flatMap((c) => c.candidates))];
  const byId = new Map((await store.orderBriefs(ctx.db, ids)).map((o) => [o.id, orderBriefView(o)]));
  return rows.map((c) => ({ ...creditView(c), candidateOrders: c.candidates.flatMap((id) => byId.get(id) ?? []) }));
}

export interface CreditQueueQuery {
  /** null: every status. */
  status: store.CreditStatus | null;
  providerId: string | null;
  requisiteId: string | null;
  /** The `next` of the page before. */
  cursor: string | null;
  limit: number;
}

/**
 * The credits the filters select. Unmatched credits are a queue, worked oldest first; the other
 * statuses read as history, newest first like `GET /admin/v1/credits`. `next` continues in the
 * same order.
 */
export async function creditQueue(ctx: Ctx, f: CreditQueueQuery): Promise<{ items: QueuedCredit[]; next: string | null; oldestFirst: boolean }> {
  const oldestFirst = f.status === 'unmatched';
  let seq: number | null = null;
  if (f.cursor) {
    const at = await store.getCredit(ctx.db, f.cursor);
    if (!at) throw new AppError('VALIDATION_ERROR', 'the page to continue from is no credit');
    seq = at.seq;
  }
  const rows = await store.listCredits(ctx.db, { status: f.status, providerId: f.providerId, requisiteId: f.requisiteId, pastSeq: seq, oldestFirst, limit: f.limit + 1 });
  const page = rows.slice(0, f.limit);
  return { items: await withCandidates(ctx, page), next: rows.length > f.limit ? page[page.length - 1]!.id : null, oldestFirst };
}

export async function queuedCredit(ctx: Ctx, id: string): Promise<QueuedCredit> {
  const c = await store.getCredit(ctx.db, id);
  if (!c) throw new AppError('CREDIT_NOT_FOUND', `no credit ${id}`);
  return (await withCandidates(ctx, [c]))[0]!;
}

/** One order as a credit is weighed against it, or null. */
export async function orderBrief(ctx: Ctx, id: string): Promise<OrderBrief | null> {
  const [o] = await store.orderBriefs(ctx.db, [id]);
  return o ? orderBriefView(o) : null;
}

export type PoolProvider = Awaited<ReturnType<typeof listProviderViews>>[number] & { unmatched: number };

/** The pool providers (the only kind with requisites and credits), with their unmatched credits. */
export async function poolProviders(ctx: Ctx): Promise<PoolProvider[]> {
  const [views, unmatched] = await Promise.all([listProviderViews(ctx), store.unmatchedByProvider(ctx.db, QUEUE_COUNT_CAP)]);
  const counts = new Map(unmatched.map((u) => [u.provider_id, u.n]));
  return views.filter((p) => p.kind === 'pool').map((p) => ({ ...p, unmatched: counts.get(p.id) ?? 0 }));
}

/** A pool provider with its requisites; another kind of provider is not found here. */
export async function poolProvider(ctx: Ctx, id: string): Promise<{ provider: PoolProvider; requisites: RequisiteView[] }> {
  const provider = (await poolProviders(ctx)).find((p) => p.id === id);
  if (!provider) throw new AppError('PROVIDER_NOT_FOUND', `no pool provider ${id}`);
  return { provider, requisites: await listRequisites(ctx, id) };
}

/**
 * The ids of the unmatched credits the queue's filters select, oldest first, at most `limit`, and
 * whether more wait behind them: what "ignore this queue" ignores, exactly the credits counted on
 * the page (a credit arriving after the page was shown is never ignored unseen).
 */
export async function unmatchedCreditIds(ctx: Ctx, f: { providerId: string | null; requisiteId: string | null }, limit: number): Promise<{ ids: string[]; more: boolean }> {
  const rows = await store.listCredits(ctx.db, { status: 'unmatched', providerId: f.providerId, requisiteId: f.requisiteId, pastSeq: null, oldestFirst: true, limit: limit + 1 });
  return { ids: rows.slice(0, limit).map((c) => c.id), more: rows.length > limit };
}

/** The requisite a pool gave an order, or null: what a match's `REQUISITE_MISMATCH` compares. */
export async function orderRequisite(ctx: Ctx, orderId: string): Promise<string | null> {
  return store.requisiteOfOrder(ctx.db, orderId);
}
