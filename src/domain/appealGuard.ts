import { fail, ok, type Result } from './errors.js';
import type { OrderStatus } from './orders.js';

/**
 * Appeal guard (spec "Limits / Appeal guard"): open appeals count against the provider that served
 * the order. At 10 or more the provider is paused for everyone; it resumes only once the count has
 * fallen to 7 or fewer. Counts of 8 and 9 keep whatever state the provider is in, so a provider
 * hovering around the threshold does not flap on and off with every single appeal.
 */
export const APPEAL_PAUSE_AT = 10;
export const APPEAL_RESUME_AT = 7;

/** Whether the provider is paused for appeals, given its current flag and its open appeals now. */
export function pausedForAppeals(pausedNow: boolean, openAppeals: number): boolean {
  if (openAppeals >= APPEAL_PAUSE_AT) return true;
  if (openAppeals <= APPEAL_RESUME_AT) return false;
  return pausedNow;
}

/** An appeal's statuses; `Cancelled` is reserved and never assigned. */
export const APPEAL_STATUSES = ['Open', 'Accepted', 'Rejected', 'Cancelled'] as const;
export type AppealStatus = (typeof APPEAL_STATUSES)[number];

/**
 * What POST /gw/v1/appeals does for an order in a given state (spec rules 1–3, D17): a Canceled
 * order gets a new appeal; a Dispute order already has one, which is returned; anything else is
 * refused.
 */
export function appealOpening(status: OrderStatus): Result<'open' | 'existing'> {
  switch (status) {
    case 'Canceled':
      return ok('open');
    case 'Dispute':
      return ok('existing');
    case 'Completed':
      return fail('ORDER_ALREADY_COMPLETED', 'the order is completed and credited; there is nothing to appeal');
    case 'Created':
    case 'Payed':
      return fail('ORDER_STILL_OPEN', `the order is still open (${status}); only a cancelled order can be appealed`);
  }
}

/** The platform's decision target: `hours` after opening. */
export function slaDueAt(openedAtMs: number, hours: number): number {
  return openedAtMs + hours * 3_600_000;
}

/** An open appeal is overdue once the clock is strictly past its decision target. */
export function isOverdue(status: AppealStatus, slaDueAtMs: number, nowMs: number): boolean {
  return status === 'Open' && nowMs > slaDueAtMs;
}
