/**
 * The day report of a pool provider (orders against money, per requisite) and a merchant's
 * statement of live money between two UTC days.
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt2, fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { getMerchant } from '../store/merchants.js';
import { getProvider } from '../store/providers.js';
import { utcDay } from '../providers/pool.js';
import * as store from './store.js';

const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD` as the UTC day it names, or a VALIDATION_ERROR naming the field. */
export function parseDay(v: string, field: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const at = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !at || at.toISOString().slice(0, 10) !== v) throw new AppError('VALIDATION_ERROR', `${field}: must be a date YYYY-MM-DD`);
  return at;
}

const today = (ctx: Ctx) => utcDay(ctx.clock.now()).start.toISOString().slice(0, 10);

function row(r: store.DayRow) {
  return {
    requisiteId: r.requisite_id,
    ordersIssued: r.orders_issued,
    ordersCompleted: r.orders_completed,
    completedAmount: fmt2(r.completed_amount),
    credits: r.credits,
    creditsAmount: fmt2(r.credits_amount),
    matched: r.matched,
    unmatched: r.unmatched,
    completedWithoutCredit: r.completed_without_credit,
  };
}

/**
 * `GET /admin/v1/reconciliation`: one row per requisite of the provider for the UTC day, and the
 * totals. Credits whose account names no requisite are in the totals only (they arrived on the
 * provider's accounts all the same), so the totals' money is what the bank shows for the day.
 */
export async function reconciliationReport(ctx: Ctx, providerId: string, date: string | undefined) {
  const day = date ?? today(ctx);
  const from = parseDay(day, 'date');
  if (!(await getProvider(ctx.db, providerId))) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${providerId}`);
  const rows = await store.dayRows(ctx.db, providerId, from, new Date(from.getTime() + DAY_MS));
  const totals = rows.reduce(
    (t, r) => ({
      requisite_id: null,
      orders_issued: t.orders_issued + r.orders_issued,
      orders_completed: t.orders_completed + r.orders_completed,
      completed_amount: dec(t.completed_amount).plus(r.completed_amount).toString(),
      credits: t.credits + r.credits,
      credits_amount: dec(t.credits_amount).plus(r.credits_amount).toString(),
      matched: t.matched + r.matched,
      unmatched: t.unmatched + r.unmatched,
      completed_without_credit: t.completed_without_credit + r.completed_without_credit,
    }),
    { requisite_id: null, orders_issued: 0, orders_completed: 0, completed_amount: '0', credits: 0, credits_amount: '0', matched: 0, unmatched: 0, completed_without_credit: 0 } as store.DayRow,
  );
  return { providerId, date: day, requisites: rows.filter((r) => r.requisite_id !== null).map(row), totals: row(totals) };
}

/** A statement covers at most this many days: a year and a day, so any calendar year fits. */
const STATEMENT_MAX_DAYS = 366;

const ENTRY_TYPE: Record<string, 'credit' | 'reversal' | 'withdrawal'> = { credit: 'credit', reversal: 'reversal', withdrawal: 'withdrawal' };

/**
 * `GET /admin/v1/merchants/{id}/statement`: the live balance at the start of `from`, every live
 * ledger entry of the days `from` to `to` (both included, UTC) oldest first with the running
 * balance after it, and the balance at the end of `to`. Opening plus the entries is closing, by
 * construction; sandbox orders' entries are not live money and are left out.
 */
export async function merchantStatement(ctx: Ctx, merchantId: string, query: { from?: string; to?: string }) {
  const fromDay = query.from ?? today(ctx);
  const toDay = query.to ?? today(ctx);
  const from = parseDay(fromDay, 'from');
  const to = parseDay(toDay, 'to');
  if (to.getTime() < from.getTime()) throw new AppError('VALIDATION_ERROR', 'to: must not be before from');
  if ((to.getTime() - from.getTime()) / DAY_MS >= STATEMENT_MAX_DAYS) throw new AppError('VALIDATION_ERROR', `to: a statement covers at most ${STATEMENT_MAX_DAYS} days`);
  if (!(await getMerchant(ctx.db, merchantId))) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  const end = new Date(to.getTime() + DAY_MS);
  const [opening, lines] = await Promise.all([store.liveOpeningBalance(ctx.db, merchantId, from), store.liveLedgerLines(ctx.db, merchantId, from, end)]);
  let balance = dec(opening);
  const entries = lines.map((l) => {
    balance = balance.plus(l.amount);
    return {
      at: isoSeconds(l.created_at),
      type: ENTRY_TYPE[l.kind] ?? (dec(l.amount).lt(0) ? 'reversal' : 'credit'),
      orderId: l.order_id,
      withdrawalId: l.withdrawal_id,
      amountUsd: fmt8(l.amount),
      balanceUsd: fmt8(balance),
    };
  });
  return { merchantId, from: fromDay, to: toDay, currency: 'USD' as const, openingBalance: fmt8(opening), closingBalance: fmt8(balance), entries };
}
