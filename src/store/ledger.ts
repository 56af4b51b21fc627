import type { Queryable } from './db.js';

export type EntryKind = 'credit' | 'reversal' | 'withdrawal' | 'adjustment';

/**
 * One ledger entry and the matching balance change, inside the caller's transaction, so the
 * balance always equals the sum of the merchant's entries.
 */
export async function postEntry(
  q: Queryable,
  e: { merchantId: string; orderId: string | null; kind: EntryKind; amount: string; reason: string | null; at: Date },
): Promise<void> {
  await q.query('INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    e.merchantId, e.orderId, e.kind, e.amount, e.reason, e.at,
  ]);
  await q.query('UPDATE merchants SET balance = balance + $2::numeric WHERE id = $1', [e.merchantId, e.amount]);
}

/** What the order has put on the balance so far: credits minus reversals. */
export async function orderNet(q: Queryable, orderId: string): Promise<string> {
  const { rows } = await q.query<{ net: string }>('SELECT COALESCE(sum(amount), 0)::numeric AS net FROM ledger_entries WHERE order_id = $1', [orderId]);
  return rows[0].net;
}

export interface LedgerRow {
  id: number;
  merchant_id: string;
  order_id: string | null;
  kind: EntryKind;
  amount: string;
  reason: string | null;
  created_at: Date;
}

export async function listEntries(q: Queryable, merchantId: string, limit = 200): Promise<LedgerRow[]> {
  const { rows } = await q.query<LedgerRow>('SELECT * FROM ledger_entries WHERE merchant_id = $1 ORDER BY id DESC LIMIT $2', [merchantId, limit]);
  return rows;
}

export async function ledgerSum(q: Queryable, merchantId: string): Promise<string> {
  const { rows } = await q.query<{ s: string }>('SELECT COALESCE(sum(amount), 0)::numeric AS s FROM ledger_entries WHERE merchant_id = $1', [merchantId]);
  return rows[0].s;
}

/**
 * A withdrawal: the merchant row is locked first, so of two concurrent withdrawals the second sees
 * the balance the first left; returns false (nothing written) when the balance does not cover it.
 */
export async function withdraw(q: Queryable, w: { id: string; merchantId: string; amount: string; reference: string; at: Date }): Promise<'ok' | 'insufficient' | 'no-merchant'> {
  const { rows } = await q.query<{ covered: boolean }>('SELECT balance >= $2::numeric AS covered FROM merchants WHERE id = $1 FOR UPDATE', [w.merchantId, w.amount]);
  if (!rows[0]) return 'no-merchant';
  if (!rows[0].covered) return 'insufficient';
  await q.query('INSERT INTO withdrawals (id, merchant_id, amount_usd, reference, created_at) VALUES ($1, $2, $3, $4, $5)', [w.id, w.merchantId, w.amount, w.reference, w.at]);
  await postEntry(q, { merchantId: w.merchantId, orderId: null, kind: 'withdrawal', amount: `-${w.amount}`, reason: w.reference, at: w.at });
  return 'ok';
}
