import type { DestinationKind, WithdrawalStatus } from '../domain/payouts.js';
import type { Queryable } from './db.js';
import { query, raw, sql } from './sql.js';

/**
 * Withdrawal requests (migration 0027): what an owner asked to be paid, to which destination, and
 * the operator's decision. A request still `requested` holds its amount: the merchant's live
 * balance less what its open requests hold is what may be asked for or withdrawn.
 */

export interface WithdrawalRequestRow {
  id: string;
  merchant_id: string;
  amount_usd: string;
  destination_id: string;
  status: WithdrawalStatus;
  reference: string | null;
  reason: string | null;
  requested_by: string;
  decided_by: string | null;
  created_at: Date;
  decided_at: Date | null;
}

/** A request with its merchant's name and its destination, as every list and read shows it. */
export interface WithdrawalRequestLine extends WithdrawalRequestRow {
  merchant_name: string;
  /** The merchant's live balance as the line is read. */
  merchant_balance: string;
  d_kind: DestinationKind;
  d_label: string;
  d_address: string | null;
  d_iban: string | null;
  d_account: string | null;
  d_holder: string | null;
  d_bank: string | null;
  d_created_at: Date;
}

/**
 * What the open requests of the merchant row `m` hold: an expression for statements over
 * `merchants m`, read through `withdrawal_requests_held`.
 */
export const HELD_OF_M = `COALESCE((SELECT sum(r.amount_usd) FROM withdrawal_requests r WHERE r.merchant_id = m.id AND r.status = 'requested'), 0)`;

/** The merchant's live balance and what its open requests hold. */
export interface MerchantFunds {
  balance: string;
  held: string;
}

/** Both figures in one statement, so they are of one moment (a page's read). */
export async function merchantFunds(q: Queryable, merchantId: string): Promise<MerchantFunds | null> {
  const { rows } = await q.query<MerchantFunds>(`SELECT m.balance, ${HELD_OF_M}::numeric(24, 8) AS held FROM merchants m WHERE m.id = $1`, [merchantId]);
  return rows[0] ?? null;
}

/**
 * The merchant's row locked until the transaction ends (the lock a balance update takes), then
 * both figures read by a second statement: under READ COMMITTED that statement sees every request
 * and entry committed by whoever held the lock before, which one statement that waited for the
 * lock would not (its subquery keeps the snapshot taken before the wait). So the requests of one
 * merchant are weighed one after the other, and against its payments and the operator's
 * withdrawals, which take the same lock when they write their entry (ledger.ts `withdraw`).
 */
export async function lockMerchantFunds(q: Queryable, merchantId: string): Promise<MerchantFunds | null> {
  const { rows } = await q.query('SELECT id FROM merchants WHERE id = $1 FOR NO KEY UPDATE', [merchantId]);
  if (!rows[0]) return null;
  return merchantFunds(q, merchantId);
}

export async function insertWithdrawalRequest(
  q: Queryable,
  r: { id: string; merchantId: string; amountUsd: string; destinationId: string; requestedBy: string; at: Date },
): Promise<WithdrawalRequestRow> {
  const { rows } = await q.query<WithdrawalRequestRow>(
    `INSERT INTO withdrawal_requests (id, merchant_id, amount_usd, destination_id, requested_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [r.id, r.merchantId, r.amountUsd, r.destinationId, r.requestedBy, r.at],
  );
  return rows[0]!;
}

const LINE = `SELECT r.*, m.name AS merchant_name, m.balance AS merchant_balance, d.kind AS d_kind, d.label AS d_label, d.address AS d_address, d.iban AS d_iban,
       d.account AS d_account, d.holder AS d_holder, d.bank AS d_bank, d.created_at AS d_created_at
  FROM withdrawal_requests r JOIN payout_destinations d ON d.id = r.destination_id JOIN merchants m ON m.id = r.merchant_id`;

/** A request with its destination; with `merchantId`, only that merchant's. */
export async function getWithdrawalRequestLine(q: Queryable, id: string, merchantId: string | null = null): Promise<WithdrawalRequestLine | null> {
  const { rows } = await q.query<WithdrawalRequestLine>(`${LINE} WHERE r.id = $1 AND ($2::text IS NULL OR r.merchant_id = $2)`, [id, merchantId]);
  return rows[0] ?? null;
}

export interface WithdrawalRequestFilter {
  /** Requests in any of these statuses; null: every status. */
  statuses: readonly WithdrawalStatus[] | null;
  merchantId: string | null;
  /** Oldest first (the queue of open requests), else newest first. */
  oldestFirst: boolean;
  /** The last request of the previous page: after it oldest first, before it newest first. */
  cursorId?: string;
  limit: number;
}

export async function listWithdrawalRequestLines(q: Queryable, f: WithdrawalRequestFilter): Promise<WithdrawalRequestLine[]> {
  const conditions = [
    f.statuses === null ? null : sql`r.status = ANY(${[...f.statuses]}::text[])`,
    f.merchantId === null ? null : sql`r.merchant_id = ${f.merchantId}`,
    f.cursorId === undefined
      ? null
      : f.oldestFirst
        ? sql`(r.created_at, r.id) > (SELECT c.created_at, c.id FROM withdrawal_requests c WHERE c.id = ${f.cursorId})`
        : sql`(r.created_at, r.id) < (SELECT c.created_at, c.id FROM withdrawal_requests c WHERE c.id = ${f.cursorId})`,
  ].filter((c) => c !== null);
  const where = conditions.length ? sql` WHERE ${conditions.reduce((all, c) => sql`${all} AND ${c}`)}` : raw('');
  const order = f.oldestFirst ? raw('r.created_at, r.id') : raw('r.created_at DESC, r.id DESC');
  const { rows } = await query<WithdrawalRequestLine>(q, sql`${raw(LINE)}${where} ORDER BY ${order} LIMIT ${f.limit}`);
  return rows;
}

export async function withdrawalRequestExists(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM withdrawal_requests WHERE id = $1', [id]);
  return rows.length > 0;
}

/**
 * Decides a request that is still `from`, in one conditional update: the request as decided, or
 * null when it is unknown or was decided already (by this decision or another, at the same moment
 * or before).
 */
export async function decideWithdrawalRequest(
  q: Queryable,
  d: { id: string; from: readonly WithdrawalStatus[]; to: WithdrawalStatus; reference: string | null; reason: string | null; decidedBy: string; at: Date },
): Promise<WithdrawalRequestRow | null> {
  const { rows } = await q.query<WithdrawalRequestRow>(
    `UPDATE withdrawal_requests SET status = $3, reference = $4, reason = $5, decided_by = $6, decided_at = $7
      WHERE id = $1 AND status = ANY($2::text[]) RETURNING *`,
    [d.id, d.from, d.to, d.reference, d.reason, d.decidedBy, d.at],
  );
  return rows[0] ?? null;
}

/** Requests waiting for a decision, for the back office's navigation. */
export async function countOpenWithdrawalRequests(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM withdrawal_requests WHERE status = 'requested'");
  return rows[0]!.n;
}
