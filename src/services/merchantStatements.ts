/**
 * A merchant's statement of live money between two UTC days: `GET /admin/v1/merchants/{id}/statement`
 * and the cabinet's CSV of it read the same figures from here.
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { getMerchant } from '../store/merchants.js';
import * as store from '../store/merchantStatements.js';

const DAY_MS = 86_400_000;
const today = (ctx: Ctx) => new Date(Math.floor(ctx.clock.now() / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** A calendar date `YYYY-MM-DD` as the UTC day it names, or a VALIDATION_ERROR naming the field. */
export function parseDay(v: string, field: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const at = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !at || at.toISOString().slice(0, 10) !== v) throw new AppError('VALIDATION_ERROR', `${field}: must be a date YYYY-MM-DD`);
  return at;
}

/** A statement covers at most this many days: a year and a day, so any calendar year fits. */
const STATEMENT_MAX_DAYS = 366;

export type StatementEntryType = 'credit' | 'reversal' | 'withdrawal';

const ENTRY_TYPE: Record<string, StatementEntryType> = { credit: 'credit', reversal: 'reversal', withdrawal: 'withdrawal' };

/**
 * The live balance at the start of `from`, every live ledger entry of the days `from` to `to`
 * (both included, UTC) oldest first with the running balance after it, and the balance at the end
 * of `to`. Opening plus the entries is closing, by construction; sandbox orders' entries are not
 * live money and are left out.
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
      type: ENTRY_TYPE[l.kind] ?? ((dec(l.amount).lt(0) ? 'reversal' : 'credit') as StatementEntryType),
      orderId: l.order_id,
      withdrawalId: l.withdrawal_id,
      amountUsd: fmt8(l.amount),
      balanceUsd: fmt8(balance),
    };
  });
  return { merchantId, from: fromDay, to: toDay, currency: 'USD' as const, openingBalance: fmt8(opening), closingBalance: fmt8(balance), entries };
}
