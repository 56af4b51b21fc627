/**
 * Which order a credit pays, as a pure rule over the orders issued the credit's requisite
 * (reconciliation contract, Matching). The caller reads the orders with their rows locked, applies
 * this, and confirms the winner in the same transaction.
 */
import { dec } from '../domain/money.js';

/** An order issued the requisite, as matching sees it. */
export interface MatchableOrder {
  id: string;
  amount: string;
  currency: string;
  status: string;
  createdAt: Date;
  expiresAt: Date;
  /** When it closed unpaid (its cancel or expiry); null while open. */
  closedAt: Date | null;
  payerReference: string | null;
  /** Another credit is already matched to this order. */
  matchedByCredit: boolean;
}

export interface CreditTerms {
  amount: string;
  currency: string;
  /** When the money arrived: one instant, or a whole UTC day when the statement gave a date alone. */
  receivedFrom: Date;
  receivedTo: Date;
  reference: string | null;
}

export type MatchReason = 'no order' | 'ambiguous' | 'amount differs' | 'already paid';

export type MatchOutcome =
  | { matched: true; orderId: string; by: 'reference' | 'amount' }
  | { matched: false; reason: MatchReason; candidates: string[] };

/** An order may be created up to 5 minutes after the money it is paid with (clocks and typing). */
export const CREATED_AFTER_MONEY_MS = 5 * 60_000;

/**
 * The contract's window of an order for a credit: created no later than 5 minutes after the money
 * arrived, and the money no later than `expiresAt` plus the late hours.
 */
export function inWindow(o: Pick<MatchableOrder, 'createdAt' | 'expiresAt'>, c: Pick<CreditTerms, 'receivedFrom' | 'receivedTo'>, lateMs: number): boolean {
  return o.createdAt.getTime() <= c.receivedTo.getTime() + CREATED_AFTER_MONEY_MS && c.receivedFrom.getTime() <= o.expiresAt.getTime() + lateMs;
}

/**
 * The order was open when the money arrived: the arrival (or its day) meets [created − 5 min, the
 * moment it closed]; it closed at its cancel or expiry, and an order still open closes at
 * `expiresAt`. An order cancelled before the money came is no longer waiting for it, so the next
 * order of that amount on the requisite is not made ambiguous by it.
 */
export function openWhenArrived(o: Pick<MatchableOrder, 'createdAt' | 'expiresAt' | 'closedAt'>, c: Pick<CreditTerms, 'receivedFrom' | 'receivedTo'>): boolean {
  const closed = o.closedAt !== null && o.closedAt.getTime() < o.expiresAt.getTime() ? o.closedAt : o.expiresAt;
  return c.receivedTo.getTime() >= o.createdAt.getTime() - CREATED_AFTER_MONEY_MS && c.receivedFrom.getTime() <= closed.getTime();
}

/**
 * 1. Candidates: same currency, exactly the same amount, in the window, not Completed, not matched.
 * 2. The one candidate whose payerReference equals the credit's reference wins (`reference`).
 * 3. Else (`amount`) the one candidate open when the money arrived; with none open then, the one
 *    late candidate; anything else is `ambiguous`, every candidate listed.
 * 4. No candidate: `already paid` when the orders of that amount in the window (usually one) were
 *    completed already (by another credit or by hand), `amount differs` with the window's orders
 *    of other amounts that still wait for money listed, else `no order`.
 */
export function matchCredit(c: CreditTerms, orders: readonly MatchableOrder[], lateMs: number): MatchOutcome {
  const amount = dec(c.amount);
  const sameCurrency = orders.filter((o) => o.currency === c.currency && inWindow(o, c, lateMs));
  const sameAmount = sameCurrency.filter((o) => dec(o.amount).eq(amount));
  const candidates = sameAmount.filter((o) => o.status !== 'Completed' && !o.matchedByCredit);
  if (candidates.length > 0) {
    if (c.reference !== null) {
      const byReference = candidates.filter((o) => o.payerReference !== null && o.payerReference === c.reference);
      if (byReference.length === 1) return { matched: true, orderId: byReference[0].id, by: 'reference' };
    }
    const open = candidates.filter((o) => openWhenArrived(o, c));
    if (open.length === 1) return { matched: true, orderId: open[0].id, by: 'amount' };
    if (open.length === 0 && candidates.length === 1) return { matched: true, orderId: candidates[0].id, by: 'amount' };
    return { matched: false, reason: 'ambiguous', candidates: ids(candidates) };
  }
  if (sameAmount.length > 0) return { matched: false, reason: 'already paid', candidates: ids(sameAmount) };
  // Orders of the window that still wait for money, closest amount first: the likely payer mistyped it.
  const near = sameCurrency
    .filter((o) => o.status !== 'Completed' && !o.matchedByCredit && !dec(o.amount).eq(amount))
    .sort((a, b) => dec(a.amount).minus(amount).abs().cmp(dec(b.amount).minus(amount).abs()) || a.createdAt.getTime() - b.createdAt.getTime());
  if (near.length > 0) return { matched: false, reason: 'amount differs', candidates: ids(near).slice(0, NEAR_MAX) };
  return { matched: false, reason: 'no order', candidates: [] };
}

/** A requisite has at most maxOpenOrders open at a time; a list longer than this helps nobody. */
export const NEAR_MAX = 20;

const ids = (os: readonly MatchableOrder[]) => os.map((o) => o.id);
