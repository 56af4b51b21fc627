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
 * The merchant's live balance at the start of `from`: its running live balance less the live
 * entries written since, in one statement (one snapshot), reading only the entries after `from`
 * however long the merchant's history is.
 */
export async function liveOpeningBalance(q: Queryable, merchantId: string, from: Date): Promise<string> {
  const { rows } = await q.query<{ s: string }>(
    `SELECT (m.balance - COALESCE((SELECT sum(l.amount) FROM ledger_entries l
                                    WHERE l.merchant_id = m.id AND l.created_at >= $2 AND NOT l.sandbox), 0))::numeric AS s
       FROM merchants m WHERE m.id = $1`,
    [merchantId, from],
  );
  return rows[0]?.s ?? '0';
}

/** The live entries of [from, to) oldest first, each withdrawal with its id; sandbox entries are left out. */
export async function liveLedgerLines(q: Queryable, merchantId: string, from: Date, to: Date): Promise<StatementLine[]> {
  const { rows } = await q.query<StatementLine>(
    `SELECT l.id, l.kind, l.order_id, l.amount, l.created_at,
            CASE WHEN l.kind = 'withdrawal' THEN (
              SELECT w.id FROM withdrawals w
               WHERE w.merchant_id = l.merchant_id AND w.created_at = l.created_at AND w.amount_usd = -l.amount AND w.reference IS NOT DISTINCT FROM l.reason
               ORDER BY w.id LIMIT 1) END AS withdrawal_id
       FROM ledger_entries l
      WHERE l.merchant_id = $1 AND l.created_at >= $2 AND l.created_at < $3 AND NOT l.sandbox
      ORDER BY l.id`,
    [merchantId, from, to],
  );
  return rows;
}
