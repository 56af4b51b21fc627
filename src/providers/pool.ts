/**
 * How the `pool` kind issues an order one of its requisites: only under the assignment rules
 * (src/domain/requisites.ts), so that a credit seen on a requisite points at exactly one open
 * order, and serialised per requisite in the database, so that instances issuing orders at once
 * never break the rules between them.
 */
import type { Ctx } from '../context.js';
import { fmt2 } from '../domain/money.js';
import { paymentOf } from '../domain/payment.js';
import { rankRequisites, refusalOf, type RequisiteLoad } from '../domain/requisites.js';
import * as store from '../store/requisites.js';
import { requisitesOfSilentDevices } from '../store/devices.js';
import type { IssueOutcome, IssueRequest } from './httpConnector.js';

const DAY_MS = 86_400_000;

/** The UTC day holding `ms`: [start, end). */
export function utcDay(ms: number): { start: Date; end: Date } {
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  return { start: new Date(start), end: new Date(start + DAY_MS) };
}

/** The instants a requisite's load is read at now, for an order's amount and currency when given. */
export function loadAt(ctx: Ctx, order?: { amount: string; currency: string }): store.LoadAt {
  const now = ctx.clock.now();
  const day = utcDay(now);
  return {
    now: new Date(now),
    quarantineSince: new Date(now - ctx.config.requisiteQuarantineMinutes * 60_000),
    dayStart: day.start,
    dayEnd: day.end,
    amount: order?.amount ?? null,
    currency: order?.currency ?? null,
  };
}

export function loadOf(r: store.RequisiteLoadRow): RequisiteLoad {
  return {
    id: r.id,
    state: r.state,
    currency: r.currency,
    rails: r.rails,
    minAmount: r.min_amount,
    maxAmount: r.max_amount,
    dailyLimit: r.daily_limit,
    maxOpenOrders: r.max_open_orders,
    openOrders: r.open_orders,
    openAmount: r.open_amount,
    receivedToday: r.received_today,
    sameAmountOpen: r.same_amount_open,
    quarantined: r.quarantined,
    lastUsedAt: r.last_used_at,
    seq: r.seq,
  };
}

/**
 * Ranks the provider's requisites for the order, then tries them in turn, each in a transaction
 * that locks the requisite row, reads its load afresh under the lock, and records the assignment
 * only if the requisite can still take the order. Two instances that pick the same requisite at
 * once are thereby serialised: the second sees the first's order and moves on. None left: declined,
 * saying why; the decline is recorded (the pool's back-office page lists them) and the cascade
 * moves on to the next provider.
 */
export async function issueRequisite(ctx: Ctx, providerId: string, o: IssueRequest): Promise<IssueOutcome> {
  const terms = { amount: fmt2(o.amount), currency: o.currency, rail: o.rail };
  const already = await store.assignedRequisite(ctx.db, o.orderId);
  if (already) return { kind: 'issued', payment: paymentOf(already.payment) };
  const ranking = rankRequisites((await store.listRequisiteLoads(ctx.db, providerId, loadAt(ctx, terms))).map(loadOf), terms);
  // A requisite whose phone has gone silent takes no new order: its money would not be seen.
  const silentSince = new Date(ctx.clock.now() - ctx.config.deviceSilenceMinutes * 60_000);
  const silent = await requisitesOfSilentDevices(ctx.db, ranking.ranked.map((r) => r.id), silentSince);
  const ranked = ranking.ranked.filter((r) => !silent.has(r.id));
  const reason = silent.size === 0 ? ranking.reason : `${ranking.reason}${ranking.reason === '' || ranking.reason.endsWith(': ') ? '' : ', '}${silent.size} paused: its device is silent`;
  for (const candidate of ranked) {
    const payment = await ctx.db.tx(async (q) => {
      if (!(await store.lockRequisite(q, candidate.id))) return null;
      const fresh = await store.getRequisiteLoad(q, candidate.id, loadAt(ctx, terms));
      if (!fresh || refusalOf(loadOf(fresh), terms) !== null) return null;
      if ((await requisitesOfSilentDevices(q, [fresh.id], silentSince)).size > 0) return null;
      const recorded = await store.insertAssignment(q, {
        orderId: o.orderId,
        requisiteId: fresh.id,
        providerId,
        amount: terms.amount,
        currency: terms.currency,
        rail: terms.rail,
        expiresAt: new Date(o.expiresAt),
        at: new Date(ctx.clock.now()),
      });
      // The order was given a requisite meanwhile (a second issue of one order): that one stands.
      if (!recorded) return (await store.assignedRequisite(q, o.orderId))?.payment ?? null;
      return fresh.payment;
    });
    if (payment) return { kind: 'issued', payment: paymentOf(payment) };
  }
  return declined(ctx, providerId, o, terms, ranked.length === 0 ? reason : `${reason}${reason.endsWith(': ') ? '' : ', '}${ranked.length} taken by other orders meanwhile`);
}

/** A decline is recorded with its reason, for the pool's page in the back office, before the cascade moves on. */
async function declined(ctx: Ctx, providerId: string, o: IssueRequest, terms: { amount: string; currency: string; rail: string | null }, reason: string): Promise<IssueOutcome> {
  await store.insertDecline(ctx.db, { providerId, orderId: o.orderId, amount: terms.amount, currency: terms.currency, rail: terms.rail, reason, at: new Date(ctx.clock.now()) });
  return { kind: 'declined', reason };
}
