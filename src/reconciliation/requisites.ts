/**
 * A pool provider's requisites (`rqs_`) for operators: listing, adding and changing them, each
 * shown with its open orders and today's money. Issuing an order one of them is the pool kind's
 * (src/providers/pool.ts); the rules are the domain's (src/domain/requisites.ts).
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt2 } from '../domain/money.js';
import { checkBounds, type RequisiteInput, type RequisiteState } from '../domain/requisites.js';
import { isoSeconds } from '../domain/time.js';
import { loadAt } from '../providers/pool.js';
import { insertRequisites } from '../services/providersAdmin.js';
import type { Queryable } from '../store/db.js';
import { getProvider, type ProviderRow } from '../store/providers.js';
import * as store from '../store/requisites.js';

export function requisiteView(r: store.RequisiteLoadRow) {
  return {
    id: r.id,
    providerId: r.provider_id,
    payment: r.payment,
    currency: r.currency,
    rails: r.rails,
    minAmount: fmt2(r.min_amount),
    maxAmount: fmt2(r.max_amount),
    dailyLimit: fmt2(r.daily_limit),
    maxOpenOrders: r.max_open_orders,
    label: r.label,
    state: r.state,
    openOrders: r.open_orders,
    receivedToday: fmt2(r.received_today),
    lastUsedAt: r.last_used_at ? isoSeconds(r.last_used_at) : null,
    createdAt: isoSeconds(r.created_at),
  };
}
export type RequisiteView = ReturnType<typeof requisiteView>;

async function mustProvider(q: Queryable, id: string): Promise<ProviderRow> {
  const p = await getProvider(q, id);
  if (!p) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  return p;
}

/** `GET /admin/v1/providers/{id}/requisites`: oldest first; a provider of another kind has none. */
export async function listRequisites(ctx: Ctx, providerId: string): Promise<RequisiteView[]> {
  await mustProvider(ctx.db, providerId);
  return (await store.listRequisiteLoads(ctx.db, providerId, loadAt(ctx))).map(requisiteView);
}

export async function getRequisiteView(ctx: Ctx, id: string): Promise<RequisiteView> {
  const r = await store.getRequisiteLoad(ctx.db, id, loadAt(ctx));
  if (!r) throw new AppError('REQUISITE_NOT_FOUND', `no requisite ${id}`);
  return requisiteView(r);
}

/** `POST /admin/v1/providers/{id}/requisites`. */
export async function createRequisite(ctx: Ctx, providerId: string, input: RequisiteInput): Promise<RequisiteView> {
  const id = await ctx.db.tx(async (q) => {
    const p = await mustProvider(q, providerId);
    if (p.kind !== 'pool') throw new AppError('VALIDATION_ERROR', `provider ${providerId} is a ${p.kind} provider; requisites belong to pool providers`);
    const [id] = await insertRequisites(q, ctx, p, [input], () => '');
    return id;
  });
  return getRequisiteView(ctx, id);
}

export interface RequisitePatchInput {
  minAmount?: string;
  maxAmount?: string;
  dailyLimit?: string;
  maxOpenOrders?: number;
  label?: string | null;
  state?: string;
}

/**
 * `PATCH /admin/v1/requisites/{id}`: its limits, label and state. Paused and retired requisites
 * take no new order; orders already on them keep them, and money to them is still matched.
 */
export async function patchRequisite(ctx: Ctx, id: string, patch: RequisitePatchInput): Promise<RequisiteView> {
  await ctx.db.tx(async (q) => {
    const r = await store.getRequisite(q, id);
    if (!r) throw new AppError('REQUISITE_NOT_FOUND', `no requisite ${id}`);
    const minAmount = patch.minAmount === undefined ? undefined : fmt2(patch.minAmount);
    const maxAmount = patch.maxAmount === undefined ? undefined : fmt2(patch.maxAmount);
    checkBounds(minAmount ?? r.min_amount, maxAmount ?? r.max_amount);
    await store.updateRequisite(
      q,
      id,
      {
        minAmount,
        maxAmount,
        dailyLimit: patch.dailyLimit === undefined ? undefined : fmt2(patch.dailyLimit),
        maxOpenOrders: patch.maxOpenOrders,
        label: patch.label,
        state: patch.state as RequisiteState | undefined,
      },
      new Date(ctx.clock.now()),
    );
  });
  return getRequisiteView(ctx, id);
}

/** How many declines the pool's page shows, newest first. */
export const DECLINES_SHOWN = 20;

export interface DeclineView {
  orderId: string;
  amount: string;
  currency: string;
  rail: string | null;
  reason: string;
  at: string;
  /** `placed` by another provider (named in `placedWith`), `pending` while the cascade goes on, `refused` when no provider took it. */
  outcome: 'placed' | 'pending' | 'refused';
  placedWith: string | null;
}

/**
 * Why the pool did not take orders lately: the last declines with their reasons, and how many in
 * the last 24 hours, so an operator sees when the pool needs more requisites or higher limits.
 */
export async function poolDeclines(ctx: Ctx, providerId: string): Promise<{ lastDay: number; latest: DeclineView[] }> {
  const since = new Date(ctx.clock.now() - 86_400_000);
  const [rows, lastDay] = await Promise.all([store.listDeclines(ctx.db, providerId, DECLINES_SHOWN), store.countDeclinesSince(ctx.db, providerId, since)]);
  return {
    lastDay,
    latest: rows.map((d) => ({ orderId: d.order_id, amount: fmt2(d.amount), currency: d.currency, rail: d.rail, reason: d.reason, at: isoSeconds(d.at),
      outcome: d.placement === 'placed' ? ('placed' as const) : d.placement === 'failed' || d.placement === null ? ('refused' as const) : ('pending' as const),
      placedWith: d.placed_with,
    })),
  };
}
