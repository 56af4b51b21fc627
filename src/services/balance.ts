import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { dailyTotals, listEntriesBefore, type DailyTotals } from '../store/ledger.js';
import { getMerchant } from '../store/merchants.js';

/** Days in the balance page's chart and daily totals. */
export const BALANCE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface BalanceQuery {
  /** Cursor: the id of the last entry of the previous page. */
  before?: string;
  limit: number;
}

/**
 * The cabinet's balance page: the available balance (the same figure as GET /gw/v1/balance), a
 * page of ledger entries newest first, and per-day totals of the last 30 UTC days, every day
 * present (zeros where nothing happened) so the chart has no gaps.
 */
export async function merchantBalance(ctx: Ctx, merchantId: string, query: BalanceQuery) {
  if (query.before !== undefined && !/^\d{1,18}$/.test(query.before)) throw new AppError('VALIDATION_ERROR', 'before: an entry number');
  const nowMs = ctx.clock.now();
  const todayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const from = new Date(todayStart - (BALANCE_DAYS - 1) * DAY_MS);
  const to = new Date(todayStart + DAY_MS);
  const [merchant, rows, totals] = await Promise.all([
    getMerchant(ctx.db, merchantId),
    listEntriesBefore(ctx.db, merchantId, query.before ? Number(query.before) : null, query.limit + 1),
    dailyTotals(ctx.db, merchantId, from, to),
  ]);
  if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  const kept = rows.slice(0, query.limit);
  const byDay = new Map(totals.map((t) => [t.day, t]));
  const days: DailyTotals[] = [];
  for (let t = todayStart; t >= from.getTime(); t -= DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const d = byDay.get(day);
    days.push({
      day,
      turnover: fmt8(d?.turnover ?? '0'),
      credits: fmt8(d?.credits ?? '0'),
      reversals: fmt8(d?.reversals ?? '0'),
      withdrawals: fmt8(d?.withdrawals ?? '0'),
      adjustments: fmt8(d?.adjustments ?? '0'),
      net: fmt8(d?.net ?? '0'),
    });
  }
  return {
    available: fmt8(merchant.balance),
    currency: 'USD' as const,
    entries: kept.map((e) => ({
      id: String(e.id),
      kind: e.kind,
      amount: fmt8(e.amount),
      orderId: e.order_id,
      orderRef: e.order_ref,
      reason: e.reason,
      createdAt: isoSeconds(e.created_at),
    })),
    next: rows.length > query.limit && kept.length ? String(kept[kept.length - 1]!.id) : null,
    /** Newest day first. */
    days,
  };
}

export type MerchantBalance = Awaited<ReturnType<typeof merchantBalance>>;
