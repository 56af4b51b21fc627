/**
 * The platform confirming many orders in one transaction (the matcher, for the orders a batch of
 * credits pays), with exactly the effects `confirmInTx` has for each (orderActions.ts): the order
 * Completed with its fee (a Canceled order too; a disputed one with its appeal Accepted), its ledger
 * credit on the balance of its money (live or sandbox), the turnover counters of its desk, merchant,
 * provider and (live orders) the platform, an `order.completed` event and an audit entry; but in a
 * fixed number of statements for the whole batch instead of about nineteen per order.
 *
 * Locks are taken in the order a lone confirmation takes them, kind by kind and each kind in key
 * order: the orders (the caller holds them, by id), the merchants' daily ledger rollups (through the
 * entries' trigger, by merchant), the merchants (by id), the turnover counters (desk, merchant,
 * platform, provider; by id, then window), the providers of disputed orders (by id). A lone
 * confirmation holds at most one row of each kind, so it and a batch, or two batches, wait for each
 * other but never in a circle.
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { computeFee, dec, fmt4, fmt8 } from '../domain/money.js';
import { allowedFrom } from '../domain/orders.js';
import { windowStart, WINDOWS, type Scope, type Window } from '../domain/turnover.js';
import { acceptOpenAppealOfOrder } from '../store/appeals.js';
import { insertAuditEntries } from '../store/audit.js';
import { completeOrders, deskTariffBands, type Completion } from '../store/completions.js';
import type { Queryable } from '../store/db.js';
import { postEntries } from '../store/ledger.js';
import type { OrderRow } from '../store/orders.js';
import { addToCounters, capsFor } from '../store/turnover.js';
import { applyAppealGuard } from './appealGuard.js';
import { LEDGER_REASON, refuseFrom } from './orderActions.js';
import { emitEvents } from './events.js';
import { notifyCrossedCaps, scopesOf, type ScopeIds } from './turnover.js';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const SCOPE_RANK: Record<Scope, number> = { desk: 0, merchant: 1, platform: 2, provider: 3 };

/**
 * Completion's share of the caps for many orders, in their transaction: each scope × window
 * counter grows by the settled USD of the orders it counts (as `recordCompletedTurnover` does for
 * one), in one statement; a notify-only cap the batch takes across leaves its one notification.
 */
export async function recordCompletedTurnoverMany(q: Queryable, ctx: Ctx, orders: readonly (ScopeIds & { usd: string })[]): Promise<void> {
  if (orders.length === 0) return;
  const now = ctx.clock.now();
  const adds: { scope: Scope; scopeId: string; window: Window; start: Date; usd: string }[] = [];
  const scopes = new Map<string, { scope: Scope; id: string }>();
  for (const o of orders) {
    for (const s of scopesOf(o)) {
      scopes.set(`${s.scope}|${s.id}`, s);
      for (const w of WINDOWS) adds.push({ scope: s.scope, scopeId: s.id, window: w, start: windowStart(w, now), usd: o.usd });
    }
  }
  const key = (a: { scope: Scope; scopeId: string; window: Window }) => `${a.scope}|${a.scopeId}|${a.window}`;
  const ranked = adds.map((a) => ({ a, scopeRank: SCOPE_RANK[a.scope], windowRank: WINDOWS.indexOf(a.window) }));
  ranked.sort((x, y) => x.scopeRank - y.scopeRank || byText(x.a.scopeId, y.a.scopeId) || x.windowRank - y.windowRank);
  const rankOf = new Map<string, number>();
  for (const { a } of ranked) if (!rankOf.has(key(a))) rankOf.set(key(a), rankOf.size);
  const rows = await addToCounters(q, adds.map((a) => ({ ...a, rank: rankOf.get(key(a))! })));
  const totals = new Map(rows.map((r) => [`${r.scope}|${r.scope_id}|${r.win}`, r.completed_usd]));
  // The counter a cap reads: one the batch added to, or none (then the batch cannot cross it).
  await notifyCrossedCaps(q, ctx, await capsFor(q, [...scopes.values()]), totals, (cap) => (cap.scope === 'platform' ? '' : (cap.scopeId ?? '')), now);
}

/** What the audit trail says of each confirmation. */
export interface ConfirmationAudit {
  actor: string;
  /** The audit entry's detail for the order (the matcher names the credit). */
  detail: (o: OrderRow) => string | null;
}

/**
 * Confirms the orders, which the caller has locked (`SELECT … FOR UPDATE`, by id) in this
 * transaction, as `POST /admin/v1/orders/{id}/confirm` confirms one, and audits each as
 * `order.confirm`. An order that cannot be confirmed (Completed already) refuses the whole batch;
 * so does one that changed under the caller (it did not hold the lock). Answers the orders as they
 * now stand, in the order given.
 */
export async function confirmManyInTx(q: Queryable, ctx: Ctx, orders: readonly OrderRow[], audit: ConfirmationAudit): Promise<OrderRow[]> {
  if (orders.length === 0) return [];
  if (new Set(orders.map((o) => o.id)).size !== orders.length) throw new Error('confirmManyInTx: an order given twice');
  for (const o of orders) if (!allowedFrom('confirm', o.status)) refuseFrom(o, 'confirm');
  const nowMs = ctx.clock.now();
  const now = new Date(nowMs);
  const bands = await deskTariffBands(q, [...new Set(orders.map((o) => o.desk_id))]);
  const changes: Completion[] = orders.map((o) => {
    const fee = computeFee(bands.get(o.desk_id) ?? [], dec(o.settled_amount));
    return { id: o.id, from: o.status, commissionRate: fmt4(fee.ratePercent), commissionAmount: fmt8(fee.commission), creditedAmount: fmt8(fee.credited) };
  });
  const done = new Map((await completeOrders(q, changes, now)).map((o) => [o.id, o]));
  if (done.size !== orders.length) {
    const changed = orders.find((o) => !done.has(o.id))!;
    throw new AppError('INVALID_TRANSITION', `order ${changed.id} changed concurrently`);
  }
  // The events and audit entries first: they wait for nobody, so the rows other confirmations wait
  // for (the merchants' rollups and balances, the shared turnover counters) are held for as short a
  // time as possible, from here to the commit.
  await emitEvents(q, ctx, orders.map((o) => done.get(o.id)!), 'order.completed');
  await insertAuditEntries(q, orders.map((o) => ({ at: now, actor: audit.actor, action: 'order.confirm', objectId: o.id, outcome: 'ok', detail: audit.detail(o) })));
  await postEntries(q, orders.map((o, i) => ({
    merchantId: o.merchant_id, orderId: o.id, kind: 'credit' as const, amount: changes[i].creditedAmount, reason: LEDGER_REASON.confirm, sandbox: o.sandbox, at: now,
  })));
  await recordCompletedTurnoverMany(q, ctx, orders.map((o) => ({ deskId: o.desk_id, merchantId: o.merchant_id, providerId: o.provider_id, sandbox: o.sandbox, usd: fmt8(o.settled_amount) })));
  const disputed = orders.filter((o) => o.status === 'Dispute');
  for (const o of disputed) await acceptOpenAppealOfOrder(q, o.id, 'payment confirmed', now);
  // The accepted appeals no longer count against the providers that served the orders.
  for (const providerId of [...new Set(disputed.map((o) => o.provider_id).filter((p): p is string => p !== null))].sort(byText)) {
    await applyAppealGuard(q, providerId);
  }
  ctx.metrics.orderTransitions.inc({ to: 'Completed' }, orders.length);
  return orders.map((o) => done.get(o.id)!);
}
