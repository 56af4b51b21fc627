/**
 * Completing orders: the one path every completion takes, alone (a confirmation, a simulated
 * payment, an accepted appeal: `completeInTx` in orderActions.ts) or many at once (the matcher,
 * for the orders a batch of credits pays). Each order gets the same effects whichever way: the
 * order Completed with its fee (a Canceled order too; a disputed one with its appeal Accepted), its
 * ledger credit on the balance of its money (live or sandbox), the turnover counters of its desk,
 * merchant (not for a test desk's orders), provider and (live orders) the platform, an
 * `order.completed` event and, when the caller asks, an audit entry; in a fixed number of
 * statements however many orders there are.
 *
 * Locks are taken in one order, kind by kind and each kind in key order: the orders (the caller
 * holds them, by id), the merchants' daily ledger rollups (through the entries' trigger, by
 * merchant), the merchants (by id), the turnover counters (desk, merchant, platform, provider; by
 * id, then window), the providers of disputed orders (by id). Two completions, of one order or of
 * many, therefore wait for each other but never in a circle.
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { byKey } from '../domain/keys.js';
import { computeFee, dec, fmt2, fmt4, fmt8, settle } from '../domain/money.js';
import { allowedFrom, refuseFrom, type CompletingAction } from '../domain/orders.js';
import { acceptOpenAppealOfOrder } from '../store/appeals.js';
import { insertAuditEntries } from '../store/audit.js';
import { completeOrders, completingDesks, type Completion } from '../store/completions.js';
import type { Queryable } from '../store/db.js';
import { postEntries } from '../store/ledger.js';
import type { OrderRow } from '../store/orders.js';
import { applyAppealGuard } from './appealGuard.js';
import { emitEvents } from './events.js';
import { recordCompletedTurnover } from './turnover.js';


/** What the ledger says of a completion. */
export const LEDGER_REASON: Record<CompletingAction, string> = { simulate: 'simulate payment', confirm: 'confirm', acceptAppeal: 'appeal accepted' };

/** What the audit trail says of each completion, when the completion audits itself (the matcher). */
export interface CompletionAudit {
  actor: string;
  /** The audit entry's detail for the order (the matcher names the credit). */
  detail: (o: OrderRow) => string | null;
}

export interface HowCompleted {
  action: CompletingAction;
  /** The comment a disputed order's appeal is accepted with. */
  appealComment: string | null;
  /** Audited here as `order.<action>` (the routes audit the operator's own actions themselves). */
  audit?: CompletionAudit;
  /**
   * Orders completed for money other than their amount (a person matched a credit of another
   * amount): the amount paid, by order id. Their settlement, fee and credit are computed from it
   * at the order's own rate; every other order is paid its amount.
   */
  paidAmounts?: ReadonlyMap<string, string>;
}

/**
 * Completes the orders, which the caller has locked (`SELECT … FOR UPDATE`, by id) in this
 * transaction, by the action given. An order the action does not allow from its status (Completed
 * already) refuses the whole batch; so does one that changed under the caller (it did not hold the
 * lock). Answers the orders as they now stand, in the order given.
 */
export async function completeManyInTx(q: Queryable, ctx: Ctx, orders: readonly OrderRow[], how: HowCompleted): Promise<OrderRow[]> {
  if (orders.length === 0) return [];
  if (new Set(orders.map((o) => o.id)).size !== orders.length) throw new Error('completeManyInTx: an order given twice');
  for (const o of orders) if (!allowedFrom(how.action, o.status)) refuseFrom(o, how.action);
  const now = new Date(ctx.clock.now());
  const desks = await completingDesks(q, [...new Set(orders.map((o) => o.desk_id))]);
  const changes: Completion[] = orders.map((o) => {
    const paid = how.paidAmounts?.get(o.id) ?? null;
    const settled = paid === null ? dec(o.settled_amount) : settle(dec(paid), dec(o.rate));
    const fee = computeFee(desks.get(o.desk_id)?.bands ?? [], settled);
    return {
      id: o.id, from: o.status, commissionRate: fmt4(fee.ratePercent), commissionAmount: fmt8(fee.commission), creditedAmount: fmt8(fee.credited),
      paidAmount: fmt2(paid ?? o.amount), settledAmount: fmt8(settled),
    };
  });
  const done = new Map((await completeOrders(q, changes, now)).map((o) => [o.id, o]));
  if (done.size !== orders.length) {
    const changed = orders.find((o) => !done.has(o.id))!;
    throw new AppError('INVALID_TRANSITION', `order ${changed.id} changed concurrently`);
  }
  // The events and audit entries first: they wait for nobody, so the rows other completions wait
  // for (the merchants' rollups and balances, the shared turnover counters) are held for as short a
  // time as possible, from here to the commit.
  await emitEvents(q, ctx, orders.map((o) => done.get(o.id)!), 'order.completed');
  const audit = how.audit;
  if (audit) await insertAuditEntries(q, orders.map((o) => ({ at: now, actor: audit.actor, action: `order.${how.action}`, objectId: o.id, outcome: 'ok', detail: audit.detail(o) })));
  await postEntries(q, orders.map((o, i) => ({
    merchantId: o.merchant_id, orderId: o.id, kind: 'credit' as const, amount: changes[i].creditedAmount, reason: LEDGER_REASON[how.action], sandbox: o.sandbox, at: now,
  })));
  await recordCompletedTurnover(q, ctx, orders.map((o, i) => ({
    deskId: o.desk_id, merchantId: o.merchant_id, providerId: o.provider_id, sandbox: o.sandbox, testDesk: desks.get(o.desk_id)?.sandbox ?? false, usd: changes[i].settledAmount,
  })));
  const disputed = orders.filter((o) => o.status === 'Dispute');
  for (const o of disputed) await acceptOpenAppealOfOrder(q, o.id, how.appealComment, now);
  // The accepted appeals no longer count against the providers that served the orders.
  for (const providerId of [...new Set(disputed.map((o) => o.provider_id).filter((p): p is string => p !== null))].sort(byKey)) {
    await applyAppealGuard(q, providerId);
  }
  ctx.metrics.orderTransitions.inc({ to: 'Completed' }, orders.length);
  return orders.map((o) => done.get(o.id)!);
}
