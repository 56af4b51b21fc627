/**
 * SQL of a merchant's statement of live money: the ledger entries of its live orders and its
 * withdrawals (entries without an order), with the id of each withdrawal.
 */
import type { Queryable } from './db.js';

export interface StatementLine {
  id: number;
  kind: string;
  order_id: string | null;
  withdrawal_id: string | null;
  amount: string;
  created_at: Date;
}

/**
 * A merchant's live ledger: entries of its live orders and its withdrawals (an entry without an
 * order); sandbox orders' entries are left out. Sum of the entries before `from`, then the entries
 * of [from, to) oldest first, each withdrawal with its id.
 */
export async function liveOpeningBalance(q: Queryable, merchantId: string, from: Date): Promise<string> {
  const { rows } = await q.query<{ s: string }>(
    `SELECT COALESCE(sum(l.amount), 0)::numeric AS s FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
      WHERE l.merchant_id = $1 AND l.created_at < $2 AND (l.order_id IS NULL OR o.sandbox = false)`,
    [merchantId, from],
  );
  return rows[0].s;
}

export async function liveLedgerLines(q: Queryable, merchantId: string, from: Date, to: Date): Promise<StatementLine[]> {
  const { rows } = await q.query<StatementLine>(
    `SELECT l.id, l.kind, l.order_id, l.amount, l.created_at,
            CASE WHEN l.kind = 'withdrawal' THEN (
              SELECT w.id FROM withdrawals w
               WHERE w.merchant_id = l.merchant_id AND w.created_at = l.created_at AND w.amount_usd = -l.amount AND w.reference IS NOT DISTINCT FROM l.reason
               ORDER BY w.id LIMIT 1) END AS withdrawal_id
       FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
      WHERE l.merchant_id = $1 AND l.created_at >= $2 AND l.created_at < $3 AND (l.order_id IS NULL OR o.sandbox = false)
      ORDER BY l.id`,
    [merchantId, from, to],
  );
  return rows;
}
