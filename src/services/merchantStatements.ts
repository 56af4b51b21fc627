/**
 * A merchant's statement of live money between two UTC days: `GET /admin/v1/merchants/{id}/statement`
 * and the cabinet's CSV of it read the same figures from here, as a stream: the balances at both
 * ends first (from the daily rollup), then the entries a batch at a time, read from the database
 * only as fast as the client takes them, so a year of a large merchant costs the server the same
 * memory as a day.
 */
import type { Ctx } from '../context.js';
import { nextTurn, slotsOf, watchStall } from './slots.js';
import { AppError } from '../domain/errors.js';
import { fmt8, fromUnits8, units8 } from '../domain/money.js';
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

/**
 * A statement whose reader has taken nothing for this long is ended (its database read closed, its
 * slot freed, its answer left incomplete): a client that stopped reading cannot hold a slot for ever.
 */
export const STATEMENT_STALL_MS = 60_000;

/** How long a refused statement is told to wait (`Retry-After`): statements take seconds. */
export const STATEMENT_RETRY_AFTER_MS = 5_000;

export type StatementEntryType = 'credit' | 'reversal' | 'withdrawal';

const ENTRY_TYPE: Record<string, StatementEntryType> = { credit: 'credit', reversal: 'reversal', withdrawal: 'withdrawal' };

/** What is known before the first entry: the statement's fields but its entries, in the API's order. */
export interface StatementHead {
  merchantId: string;
  from: string;
  to: string;
  currency: 'USD';
  openingBalance: string;
  closingBalance: string;
}

/** One line, in the API's field order. */
export interface StatementEntry {
  at: string;
  type: StatementEntryType;
  orderId: string | null;
  withdrawalId: string | null;
  amountUsd: string;
  balanceUsd: string;
}

/**
 * An open statement: `entries` yields the lines a batch at a time, oldest first, each with the
 * running balance after it, and throws after the last one if they do not add up to the closing
 * balance. `close` ends the read and frees the slot; call it however the statement ends (it runs
 * once, and by itself after the last entry or after `STATEMENT_STALL_MS` without a read).
 */
export interface OpenStatement {
  head: StatementHead;
  entries: AsyncIterable<StatementEntry[]>;
  close(): Promise<void>;
  /** Aborted when the statement is ended from here (its reader stalled): its answer must end too. */
  ended: AbortSignal;
}

export type StatementOpening = { ok: true; statement: OpenStatement } | { ok: false; code: 'STATEMENTS_BUSY'; retryAfterMs: number };

/**
 * Statements being read in this process, in total and per merchant: each holds a database read
 * (on the server a connection of its own) for as long as its client downloads it.
 */
const slots = (ctx: Ctx) => slotsOf(ctx, 'statements', ctx.config.statementExports.perProcess, ctx.config.statementExports.perMerchant);

/**
 * Opens the merchant's statement of the days `from` to `to` (both included, UTC; today by
 * default): every refusal that can be known before the first byte comes here, thrown as the API's
 * codes (`VALIDATION_ERROR`, `MERCHANT_NOT_FOUND`) or returned (`STATEMENTS_BUSY`: the merchant's or
 * the process's statements at their limit). Sandbox orders' entries are not live money and are
 * left out. Opening plus the entries is closing, checked after the last entry.
 */
export async function openMerchantStatement(ctx: Ctx, merchantId: string, query: { from?: string; to?: string }): Promise<StatementOpening> {
  const fromDay = query.from ?? today(ctx);
  const toDay = query.to ?? today(ctx);
  const from = parseDay(fromDay, 'from');
  const to = parseDay(toDay, 'to');
  if (to.getTime() < from.getTime()) throw new AppError('VALIDATION_ERROR', 'to: must not be before from');
  if ((to.getTime() - from.getTime()) / DAY_MS >= STATEMENT_MAX_DAYS) throw new AppError('VALIDATION_ERROR', `to: a statement covers at most ${STATEMENT_MAX_DAYS} days`);
  // Read where the statement is read (the replica while it keeps up): the merchant is there too.
  if (!(await getMerchant(ctx.readDb, merchantId))) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  const slotSet = slots(ctx);
  if (!slotSet.take(merchantId)) {
    ctx.metrics.statements.inc({ outcome: 'busy' });
    return { ok: false, code: 'STATEMENTS_BUSY', retryAfterMs: STATEMENT_RETRY_AFTER_MS };
  }
  let read: store.StatementRead;
  try {
    read = await store.openStatementRead(ctx.readDb, merchantId, { firstDay: fromDay, lastDay: toDay, from, to: new Date(to.getTime() + DAY_MS) });
  } catch (err) {
    slotSet.release(merchantId);
    throw err;
  }
  ctx.metrics.statementsOpen.inc();
  let closed = false;
  let outcome = 'aborted';
  const ended = new AbortController();
  const close = async () => {
    if (closed) return;
    closed = true;
    slotSet.release(merchantId);
    ctx.metrics.statementsOpen.dec();
    ctx.metrics.statements.inc({ outcome });
    await read.close();
  };
  const bounds = read.bounds;
  if (!bounds) {
    await close();
    throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  }
  const head: StatementHead = { merchantId, from: fromDay, to: toDay, currency: 'USD', openingBalance: fmt8(bounds.opening), closingBalance: fmt8(bounds.closing) };
  let lastRead = ctx.clock.now();
  watchStall(ctx, 'statement', STATEMENT_STALL_MS, () => closed, () => lastRead, close, () => ended.abort(new Error('the statement\'s reader took nothing for too long')));

  async function* entries(): AsyncGenerator<StatementEntry[]> {
    try {
      // The running balance in whole 10⁻⁸ units: exact, and no decimal object per line.
      let balance = units8(bounds!.opening);
      for await (const lines of read.lines) {
        if (closed) throw new Error('the statement was closed while it was read');
        const batch = lines.map((l): StatementEntry => {
          const amount = units8(l.amount);
          balance += amount;
          return {
            at: l.at,
            type: ENTRY_TYPE[l.kind] ?? (amount < 0n ? 'reversal' : 'credit'),
            orderId: l.order_id,
            withdrawalId: l.withdrawal_id,
            amountUsd: fromUnits8(amount),
            balanceUsd: fromUnits8(balance),
          };
        });
        ctx.metrics.statementRows.inc(batch.length);
        yield batch;
        lastRead = ctx.clock.now();
        await nextTurn();
      }
      if (closed) throw new Error('the statement was closed while it was read');
      // Both ends come from the rollup, the lines from the ledger: a difference is a fault of the
      // data, and the statement must not look complete.
      if (balance !== units8(bounds!.closing)) {
        outcome = 'failed';
        ctx.log.error({ merchantId, from: fromDay, to: toDay, entriesEnd: fromUnits8(balance), closing: fmt8(bounds!.closing) }, 'statement entries do not add up to the rollup\'s closing balance');
        throw new Error(`statement of ${merchantId} ${fromDay}..${toDay}: the entries end at ${fromUnits8(balance)}, the rollup at ${fmt8(bounds!.closing)}`);
      }
      outcome = 'complete';
    } catch (err) {
      if (outcome === 'aborted' && !closed) outcome = 'failed';
      throw err;
    } finally {
      await close();
    }
  }
  return { ok: true, statement: { head, entries: { [Symbol.asyncIterator]: entries }, close, ended: ended.signal } };
}

