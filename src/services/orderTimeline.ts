import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt2, fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { listOrderAppeals } from '../store/appeals.js';
import { listOrderEntries } from '../store/ledger.js';
import { findScopedOrder, listOrderTransitions, type OrderScope } from '../store/orders.js';
import { listOrderEvents } from '../store/outbox.js';
import { appealsOfOrder } from './appeals.js';
import { orderCallbackLog } from './events.js';


/** A callback event's delivery state, as a sentence's start. */
const DELIVERY_STATE: Record<string, string> = {
  pending: 'Not delivered yet',
  delivered: 'Delivered',
  rejected: 'Refused, not retried',
  failed: 'Given up after the retries',
  suppressed: 'Not sent (callbacks off)',
};

export type TimelineKind = 'status' | 'money' | 'callback' | 'appeal';

export interface TimelineEntry {
  at: string;
  kind: TimelineKind;
  title: string;
  detail: string | null;
  /** An object the entry links to: an appeal (apl_) or an event (evt_). */
  ref: string | null;
}

/**
 * An order's timeline: its creation, every status change (recorded by the database on each
 * change), its ledger entries (credit, reversal), its appeals, and the callback events written for
 * it, oldest first. Entries at the same second keep that order: status, money, appeal, callback.
 */
export async function orderTimeline(ctx: Ctx, scope: OrderScope, id: string): Promise<TimelineEntry[]> {
  const o = await findScopedOrder(ctx.db, scope, id);
  if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${id}`);
  const [transitions, entries, appeals, events] = await Promise.all([
    listOrderTransitions(ctx.db, o.id),
    listOrderEntries(ctx.db, o.id),
    listOrderAppeals(ctx.db, o.id),
    listOrderEvents(ctx.db, o.id),
  ]);
  const out: { ms: number; rank: number; e: TimelineEntry }[] = [];
  const add = (at: Date, rank: number, e: Omit<TimelineEntry, 'at'>) => out.push({ ms: at.getTime(), rank, e: { at: isoSeconds(at), ...e } });

  add(o.created_at, 0, { kind: 'status', title: 'Created', detail: `${fmt2(o.amount)} ${o.currency} at ${fmt8(o.rate)} ${o.currency} per USD = ${fmt8(o.settled_amount)} USD`, ref: null });
  for (const t of transitions) {
    const detail = [t.sub_status, t.reason].filter((x): x is string => !!x && x !== t.to_status).join(' · ') || null;
    add(t.at, 1, { kind: 'status', title: `${t.from_status} → ${t.to_status}`, detail, ref: null });
  }
  for (const l of entries) {
    const title = l.kind === 'credit' ? 'Credited' : l.kind === 'reversal' ? 'Credit reversed' : l.kind === 'withdrawal' ? 'Withdrawal' : 'Adjustment';
    add(l.created_at, 2, { kind: 'money', title, detail: `${fmt8(l.amount)} USD${l.reason ? ` · ${l.reason}` : ''}`, ref: null });
  }
  for (const a of appeals) {
    add(a.created_at, 3, { kind: 'appeal', title: 'Appeal opened', detail: a.reason, ref: a.id });
    if (a.resolved_at) add(a.resolved_at, 3, { kind: 'appeal', title: `Appeal ${a.status.toLowerCase()}`, detail: a.comment, ref: a.id });
  }
  const seen = new Set<string>();
  for (const e of events) {
    // A second event of a kind already sent states the same status again: a resend, not a change.
    const again = seen.has(e.event);
    seen.add(e.event);
    add(e.created_at, 4, { kind: 'callback', title: `Callback ${e.event}${again ? ' (resent)' : ''}`, detail: `${DELIVERY_STATE[e.state] ?? e.state}, ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}`, ref: e.id });
  }
  return out.sort((a, b) => a.ms - b.ms || a.rank - b.rank).map((x) => x.e);
}

/** Everything the cabinet's order page shows besides the order: callback attempts, appeals, timeline. */
export async function orderPageExtras(ctx: Ctx, merchantId: string, orderId: string) {
  const scope = { merchantId };
  const [attempts, appeals, timeline] = await Promise.all([orderCallbackLog(ctx, scope, orderId), appealsOfOrder(ctx, merchantId, orderId), orderTimeline(ctx, scope, orderId)]);
  return { attempts, appeals, timeline };
}
