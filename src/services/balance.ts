import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { dailyTotals, listEntriesBefore, type DailyTotals } from '../store/ledger.js';
import { getMerchant } from '../store/merchants.js';
import { balanceOf, moneyModeOf } from './gatewayReads.js';

/** Days in the balance page's chart and daily totals. */
export const BALANCE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface BalanceQuery {
  /** Cursor: the id of the last entry of the previous page. */
  before?: string;
  limit: number;
}

/**
 * The cabinet's balance page: the live and the sandbox balance apart, which of them
 * GET /gw/v1/balance answers now (`mode`: sandbox until approval, live after), a page of ledger
 * entries of both moneys newest first (each marked), and per-day totals of the last 30 UTC days of
 * the current mode's money, every day present (zeros where nothing happened) so the chart has no gaps.
 */
export async function merchantBalance(ctx: Ctx, merchantId: string, query: BalanceQuery) {
  if (query.before !== undefined && !/^\d{1,18}$/.test(query.before)) throw new AppError('VALIDATION_ERROR', 'before: an entry number');
  const nowMs = ctx.clock.now();
  const todayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const from = new Date(todayStart - (BALANCE_DAYS - 1) * DAY_MS);
  const to = new Date(todayStart + DAY_MS);
  const merchant = await getMerchant(ctx.db, merchantId);
  if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  const [rows, totals] = await Promise.all([
    listEntriesBefore(ctx.db, merchantId, query.before ? Number(query.before) : null, query.limit + 1),
    // The chart's figures read where reports read (the replica while it keeps up); the balances and
    // the entries are the primary's, so the page agrees with what the merchant just did.
    dailyTotals(ctx.readDb, merchantId, moneyModeOf(merchant) === 'sandbox', from, to),
  ]);
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
    ...balanceOf(merchant),
    live: fmt8(merchant.balance),
    sandbox: fmt8(merchant.sandbox_balance),
    entries: kept.map((e) => ({
      id: String(e.id),
      kind: e.kind,
      amount: fmt8(e.amount),
      orderId: e.order_id,
      orderRef: e.order_ref,
      reason: e.reason,
      sandbox: e.sandbox,
      createdAt: isoSeconds(e.created_at),
    })),
    next: rows.length > query.limit && kept.length ? String(kept[kept.length - 1]!.id) : null,
    /** Newest day first. */
    days,
  };
}

export type MerchantBalance = Awaited<ReturnType<typeof merchantBalance>>;
