import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt2, fmt8 } from '../domain/money.js';
import {
  checkWithdrawalAmount,
  describeDestination,
  HOLDING_STATUSES,
  REASON_MAX,
  REFERENCE_MAX,
  WITHDRAWAL_ACTIONS,
  WITHDRAWAL_STATUSES,
  type WithdrawalAction,
  type WithdrawalStatus,
} from '../domain/payouts.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { queueMailToOwners, type MailContent } from '../mail/outbox.js';
import type { UserRow } from '../store/accounts.js';
import { insertAuditEntry } from '../store/audit.js';
import type { Queryable } from '../store/db.js';
import { withdraw } from '../store/ledger.js';
import { getActiveDestination } from '../store/payoutDestinations.js';
import {
  countOpenWithdrawalRequests,
  decideWithdrawalRequest,
  getWithdrawalRequestLine,
  insertWithdrawalRequest,
  listWithdrawalRequestLines,
  lockMerchantFunds,
  merchantFunds,
  withdrawalRequestExists,
  type MerchantFunds,
  type WithdrawalRequestLine,
} from '../store/withdrawalRequests.js';
import { accountCheckKey } from './accounts.js';
import { pageOf, type Page } from './paging.js';
import { destinationView, mustOwnMoney } from './payoutDestinations.js';
import { twoFactorStatus, verifySecondFactor } from './twoFactor.js';

/**
 * Withdrawal requests (web spec, "Withdrawal requests"): an owner asks for live money to be paid
 * to a saved destination, confirmed by their two-factor code when it is on. The amount is held at
 * once: every request, payment and operator's withdrawal of a merchant is weighed under its row's
 * lock against the live balance less what open requests hold, so none together can overdraw. An
 * operator then pays it (with the transfer's reference: the ledger's withdrawal entry, the balance
 * shrinking and the hold released in one transaction with the audit entry) or rejects it (with a
 * reason: the hold released). The merchant's owners get a mail of each step, queued in the step's
 * own transaction.
 */

export function withdrawalView(l: WithdrawalRequestLine) {
  return {
    id: l.id,
    merchantId: l.merchant_id,
    amountUsd: fmt8(l.amount_usd),
    destination: destinationView({
      id: l.destination_id,
      kind: l.d_kind,
      label: l.d_label,
      address: l.d_address,
      iban: l.d_iban,
      account: l.d_account,
      holder: l.d_holder,
      bank: l.d_bank,
      created_at: l.d_created_at,
    }),
    status: l.status,
    reference: l.reference,
    reason: l.reason,
    createdAt: isoSeconds(l.created_at),
    decidedAt: isoOrNull(l.decided_at),
  };
}
export type WithdrawalView = ReturnType<typeof withdrawalView>;

/** A request as the back office lists it: the API's fields, the merchant's name and its live balance now. */
const queueLine = (l: WithdrawalRequestLine) => ({ ...withdrawalView(l), merchantName: l.merchant_name, merchantLive: fmt8(l.merchant_balance) });
export type WithdrawalQueueLine = ReturnType<typeof queueLine>;

/** The live balance, what open requests hold and what is left to ask for (which a reversal may take below zero). */
export interface FundsView {
  live: string;
  held: string;
  available: string;
}
const fundsView = (f: MerchantFunds): FundsView => ({ live: fmt8(f.balance), held: fmt8(f.held), available: fmt8(dec(f.balance).minus(f.held)) });

/** The merchant's money as the cabinet shows it beside its requests, both figures of one moment. */
export async function merchantFundsView(ctx: Ctx, merchantId: string): Promise<FundsView> {
  const f = await merchantFunds(ctx.db, merchantId);
  if (!f) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  return fundsView(f);
}

/** The merchant's requests, newest first (the cabinet's list). */
export async function merchantWithdrawals(ctx: Ctx, merchantId: string, limit: number): Promise<WithdrawalView[]> {
  return (await listWithdrawalRequestLines(ctx.db, { statuses: null, merchantId, oldestFirst: false, limit })).map(withdrawalView);
}

export type WithdrawalAsk = { kind: 'requested'; request: WithdrawalView; funds: FundsView } | { kind: 'locked'; retryAfterMs: number };

const insufficient = (funds: MerchantFunds, amount: string) =>
  new AppError(
    'INSUFFICIENT_BALANCE',
    `amountUsd: ${amount} USD is more than the available balance, ${fmt2(dec(funds.balance).minus(funds.held).toDecimalPlaces(2, 1))} USD (the live balance, ${fmt2(dec(funds.balance).toDecimalPlaces(2, 1))} USD, less ${fmt2(funds.held)} USD held by open requests)`,
  );

/**
 * An owner asks for `amountUsd` to `destinationId`: VALIDATION_ERROR for an amount that is not
 * positive USD cents, DESTINATION_NOT_FOUND for a destination not in the merchant's list,
 * INSUFFICIENT_BALANCE for more than the live balance less open requests; with two-factor codes
 * on, the code is checked last (a refused request spends no code), counted like a password
 * (ACCOUNT_LOCK: `locked` once too many were wrong) and TWO_FACTOR_CODE_INVALID when wrong.
 */
export async function requestWithdrawal(ctx: Ctx, actor: UserRow, input: { amountUsd: string; destinationId: string; code: string }): Promise<WithdrawalAsk> {
  mustOwnMoney(actor);
  const amount = checkWithdrawalAmount(input.amountUsd);
  if (!amount.ok) throw new AppError(amount.refusal.code, amount.refusal.detail);
  const destination = await getActiveDestination(ctx.db, actor.merchant_id, input.destinationId);
  if (!destination) throw new AppError('DESTINATION_NOT_FOUND', `destinationId: no payout destination ${input.destinationId} in your list`);
  const before = await merchantFunds(ctx.db, actor.merchant_id);
  if (!before) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${actor.merchant_id}`);
  if (dec(before.balance).minus(before.held).lt(amount.value)) throw insufficient(before, amount.value);
  const confirmed = await confirmWithCode(ctx, actor, input.code);
  if (!confirmed.ok) return { kind: 'locked', retryAfterMs: confirmed.retryAfterMs };

  return ctx.db.tx(async (q) => {
    // Weighed again under the merchant's lock: what was read above may have been taken since.
    const funds = await lockMerchantFunds(q, actor.merchant_id);
    if (!funds) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${actor.merchant_id}`);
    if (dec(funds.balance).minus(funds.held).lt(amount.value)) throw insufficient(funds, amount.value);
    const at = new Date(ctx.clock.now());
    const row = await insertWithdrawalRequest(q, { id: newId('wdr'), merchantId: actor.merchant_id, amountUsd: amount.value, destinationId: destination.id, requestedBy: actor.id, at });
    await insertAuditEntry(q, { at, actor: actor.id, action: 'withdrawal.request', objectId: row.id, outcome: 'ok', detail: `${amount.value} USD to ${destination.id}` });
    const line = (await getWithdrawalRequestLine(q, row.id))!;
    await mailOwners(ctx, q, line, 'withdrawal-requested', at);
    return { kind: 'requested', request: withdrawalView(line), funds: fundsView({ balance: funds.balance, held: dec(funds.held).plus(amount.value).toFixed(8) }) };
  });
}

/** The owner's two-factor code, when their codes are on: a current code or an unused recovery code, as at sign-in. */
async function confirmWithCode(ctx: Ctx, actor: UserRow, code: string): Promise<{ ok: true } | { ok: false; retryAfterMs: number }> {
  if (!(await twoFactorStatus(ctx, 'cabinet', actor.id)).enabled) return { ok: true };
  if (code.trim() === '') throw new AppError('VALIDATION_ERROR', 'code: two-factor codes are on for your account: enter the current code from your authenticator app');
  const key = accountCheckKey('cabinet', actor.id);
  const admission = await ctx.limits.accountChecks.attempt(key, ctx.clock.now());
  if (!admission.ok) return { ok: false, retryAfterMs: admission.retryAfterMs };
  if (!(await verifySecondFactor(ctx, 'cabinet', actor.id, code))) {
    throw new AppError('TWO_FACTOR_CODE_INVALID', 'code: not the current code of your authenticator app; nothing was requested');
  }
  await ctx.limits.accountChecks.clear(key);
  return { ok: true };
}

/** One mail of the request's progress to each owner of its merchant, in their language, in the transaction of the step it tells. */
async function mailOwners(ctx: Ctx, q: Queryable, l: WithdrawalRequestLine, kind: Extract<MailContent, { kind: `withdrawal-${string}` }>['kind'], at: Date): Promise<void> {
  const data = {
    merchantName: l.merchant_name,
    requestId: l.id,
    amountUsd: fmt2(l.amount_usd),
    destination: describeDestination({ kind: l.d_kind, label: l.d_label, address: l.d_address, iban: l.d_iban, account: l.d_account, holder: l.d_holder, bank: l.d_bank }),
    ...(l.reference !== null ? { reference: l.reference } : {}),
    ...(l.reason !== null ? { reason: l.reason } : {}),
    cabinetUrl: `${ctx.config.publicBaseUrl.replace(/\/$/, '')}/cabinet/withdrawals`,
  };
  await queueMailToOwners(q, at, l.merchant_id, { kind, data });
}

export interface WithdrawalListQuery {
  status?: WithdrawalStatus;
  merchantId?: string;
  /** The open queue (`status=requested`, oldest first): the `next` of the previous page. */
  after?: string;
  /** Any other list (newest first): the `next` of the previous page. */
  before?: string;
  limit: number;
}

/**
 * `GET /admin/v1/withdrawal-requests`: the open queue (`status=requested`) oldest first and paged
 * by `after`, like the open appeals; any other list newest first, paged by `before`.
 */
export async function listWithdrawalRequests(ctx: Ctx, query: WithdrawalListQuery): Promise<Page<WithdrawalView>> {
  const oldestFirst = query.status === 'requested';
  const cursorId = oldestFirst ? query.after : query.before;
  if (cursorId !== undefined && !(await withdrawalRequestExists(ctx.db, cursorId))) throw new AppError('VALIDATION_ERROR', `${oldestFirst ? 'after' : 'before'}: unknown withdrawal request id`);
  const rows = await listWithdrawalRequestLines(ctx.db, { statuses: query.status ? [query.status] : null, merchantId: query.merchantId ?? null, oldestFirst, cursorId, limit: query.limit + 1 });
  return pageOf(rows, query.limit, withdrawalView, (r) => r.id);
}

export async function getWithdrawalRequest(ctx: Ctx, id: string): Promise<WithdrawalView> {
  const l = await getWithdrawalRequestLine(ctx.db, id);
  if (!l) throw new AppError('WITHDRAWAL_NOT_FOUND', `no withdrawal request ${id}`);
  return withdrawalView(l);
}

/** Rows the back office's queue shows at once, and of the requests decided lately. */
const QUEUE_ROWS = 100;
const DECIDED_ROWS = 20;
const DECIDED_STATUSES = WITHDRAWAL_STATUSES.filter((s) => !HOLDING_STATUSES.includes(s));

/** The back office's queue: open requests oldest first (the first 100, saying whether more wait), and the latest decided. */
export async function withdrawalQueue(ctx: Ctx) {
  const [open, decided] = await Promise.all([
    listWithdrawalRequestLines(ctx.db, { statuses: HOLDING_STATUSES, merchantId: null, oldestFirst: true, limit: QUEUE_ROWS + 1 }),
    listWithdrawalRequestLines(ctx.db, { statuses: DECIDED_STATUSES, merchantId: null, oldestFirst: false, limit: DECIDED_ROWS }),
  ]);
  return { open: open.slice(0, QUEUE_ROWS).map(queueLine), more: open.length > QUEUE_ROWS, decided: decided.map(queueLine) };
}

export const openWithdrawalCount = (ctx: Ctx): Promise<number> => countOpenWithdrawalRequests(ctx.db);

/** Why a decision found no open request: none by that id, or decided already (its status named). */
async function notOpen(q: Queryable, id: string): Promise<AppError> {
  const l = await getWithdrawalRequestLine(q, id);
  if (!l) return new AppError('WITHDRAWAL_NOT_FOUND', `no withdrawal request ${id}`);
  return new AppError('WITHDRAWAL_ALREADY_DECIDED', `withdrawal request ${id} is already ${l.status}${l.decided_at ? ` (${isoSeconds(l.decided_at)})` : ''}`);
}

const oneLine = (s: string) => s.trim().replace(/\s+/g, ' ');

/**
 * Decides an open request in one transaction: the conditional status change (of two decisions at
 * once, one wins and the other is WITHDRAWAL_ALREADY_DECIDED), `effect` (paying's ledger entry),
 * the owners' mail; the caller's audit entry joins the same transaction (`audited`).
 */
async function decide(
  ctx: Ctx,
  action: WithdrawalAction,
  id: string,
  by: string,
  note: { reference: string | null; reason: string | null },
  effect: (q: Queryable, l: WithdrawalRequestLine, at: Date) => Promise<void>,
): Promise<WithdrawalView> {
  return ctx.db.tx(async (q) => {
    const at = new Date(ctx.clock.now());
    const { from, to } = WITHDRAWAL_ACTIONS[action];
    const row = await decideWithdrawalRequest(q, { id, from, to, ...note, decidedBy: by, at });
    if (!row) throw await notOpen(q, id);
    const line = (await getWithdrawalRequestLine(q, id))!;
    await effect(q, line, at);
    await mailOwners(ctx, q, line, to === 'paid' ? 'withdrawal-paid' : 'withdrawal-rejected', at);
    return withdrawalView(line);
  });
}

/**
 * Marks a request paid with the transfer's `reference`: the ledger's withdrawal entry (a
 * `withdrawals` row with the request's id, which the merchant statement names), the balance
 * shrinking by the amount and the hold released. Refused with INSUFFICIENT_BALANCE, nothing
 * changed, when the live balance no longer covers it (a reversal since): it never goes below zero.
 */
export async function payWithdrawalRequest(ctx: Ctx, id: string, reference: string, by: string): Promise<WithdrawalView> {
  const ref = oneLine(reference);
  if (ref.length === 0 || ref.length > REFERENCE_MAX) throw new AppError('VALIDATION_ERROR', `reference: the transfer's reference (transaction hash or bank reference), 1 to ${REFERENCE_MAX} characters`);
  return decide(ctx, 'pay', id, by, { reference: ref, reason: null }, async (q, l, at) => {
    const outcome = await withdraw(q, { id: l.id, merchantId: l.merchant_id, amount: fmt8(l.amount_usd), reference: ref, at }, 'request');
    if (outcome === 'insufficient') {
      throw new AppError('INSUFFICIENT_BALANCE', `the live balance no longer covers withdrawal request ${l.id} (${fmt2(l.amount_usd)} USD): reject it, or pay it once the balance covers it`);
    }
  });
}

/** Rejects a request with a `reason` the merchant's owners read: the hold is released, no money moves. */
export async function rejectWithdrawalRequest(ctx: Ctx, id: string, reason: string, by: string): Promise<WithdrawalView> {
  const why = oneLine(reason);
  if (why.length === 0 || why.length > REASON_MAX) throw new AppError('VALIDATION_ERROR', `reason: why it is not paid, for the merchant, 1 to ${REASON_MAX} characters`);
  return decide(ctx, 'reject', id, by, { reference: null, reason: why }, async () => {});
}
