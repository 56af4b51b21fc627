import { byKey } from '../domain/keys.js';
import { dec } from '../domain/money.js';
import type { Queryable } from './db.js';
import { merchantFunds } from './withdrawalRequests.js';

export type EntryKind = 'credit' | 'reversal' | 'withdrawal' | 'adjustment';

/**
 * One ledger entry and the matching balance change, inside the caller's transaction, so each of
 * the merchant's balances always equals the sum of its entries of that money: `sandbox` entries
 * (those of sandbox orders) move the sandbox balance, every other entry the live one. The same
 * statements as for many (`postEntries`).
 */
export function postEntry(
  q: Queryable,
  e: { merchantId: string; orderId: string | null; kind: EntryKind; amount: string; reason: string | null; sandbox: boolean; at: Date },
): Promise<void> {
  return postEntries(q, [e]);
}

/**
 * Many entries and their balance changes in three statements, inside the caller's transaction, with
 * the effects of `postEntry` for each. The entries go in by merchant id, so the daily rollup rows
 * their trigger adds to are taken in that order; then the merchants' rows are locked in id order
 * (the lock an UPDATE of a balance takes, which leaves the entries' key checks free), and each
 * merchant's two balances move by the sums of its entries of that money, computed in the database.
 */
export async function postEntries(
  q: Queryable,
  es: readonly { merchantId: string; orderId: string | null; kind: EntryKind; amount: string; reason: string | null; sandbox: boolean; at: Date }[],
): Promise<void> {
  if (es.length === 0) return;
  const items = [...es]
    .sort((a, b) => byKey(a.merchantId, b.merchantId) || Number(a.sandbox) - Number(b.sandbox))
    .map((e, n) => ({ n, merchant_id: e.merchantId, order_id: e.orderId, kind: e.kind, amount: e.amount, reason: e.reason, sandbox: e.sandbox, at: e.at.toISOString() }));
  const json = JSON.stringify(items);
  await q.query(
    `INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, sandbox, created_at)
     SELECT e.merchant_id, e.order_id, e.kind, e.amount, e.reason, e.sandbox, e.at
       FROM jsonb_to_recordset($1::jsonb) AS e(n int, merchant_id text, order_id text, kind text, amount numeric, reason text, sandbox boolean, at timestamptz)
      ORDER BY e.n`,
    [json],
  );
  const merchantIds = [...new Set(items.map((e) => e.merchant_id))];
  await q.query('SELECT id FROM merchants WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [merchantIds]);
  await q.query(
    `UPDATE merchants m SET balance = m.balance + s.live, sandbox_balance = m.sandbox_balance + s.sandbox
       FROM (SELECT e.merchant_id, COALESCE(sum(e.amount) FILTER (WHERE NOT e.sandbox), 0) AS live, COALESCE(sum(e.amount) FILTER (WHERE e.sandbox), 0) AS sandbox
               FROM jsonb_to_recordset($1::jsonb) AS e(merchant_id text, amount numeric, sandbox boolean) GROUP BY e.merchant_id) s
      WHERE m.id = s.merchant_id`,
    [json],
  );
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
  sandbox: boolean;
  created_at: Date;
}

/**
 * A withdrawal of live money, inside the caller's transaction: its `withdrawals` row and its
 * ledger entry are written first, which takes the merchant's daily rollup and then its row in the
 * order every completion takes them (so a withdrawal and a credit of one merchant wait for each
 * other, never in a circle); then what is left is read by a statement of its own, which sees
 * whatever the merchant's previous lock holder committed (entries, requests). When it does not
 * cover the withdrawal, everything it wrote is rolled back (to a savepoint) and the answer is
 * 'insufficient', whatever the sandbox balance holds.
 *
 * `direct` (an operator's withdrawal): the balance less what open withdrawal requests hold must
 * cover it, so it never takes money a request was promised. `request` (paying a request, decided
 * `paid` earlier in the same transaction, its hold released): the balance must cover it, so it
 * never goes below zero.
 */
export async function withdraw(
  q: Queryable,
  w: { id: string; merchantId: string; amount: string; reference: string; at: Date },
  mode: 'direct' | 'request' = 'direct',
): Promise<'ok' | 'insufficient' | 'no-merchant'> {
  const { rows } = await q.query('SELECT 1 FROM merchants WHERE id = $1', [w.merchantId]);
  if (!rows[0]) return 'no-merchant';
  await q.query('SAVEPOINT withdrawal');
  await q.query('INSERT INTO withdrawals (id, merchant_id, amount_usd, reference, created_at) VALUES ($1, $2, $3, $4, $5)', [w.id, w.merchantId, w.amount, w.reference, w.at]);
  await postEntry(q, { merchantId: w.merchantId, orderId: null, kind: 'withdrawal', amount: `-${w.amount}`, reason: w.reference, sandbox: false, at: w.at });
  const after = (await merchantFunds(q, w.merchantId))!;
  const left = mode === 'direct' ? dec(after.balance).minus(after.held) : dec(after.balance);
  if (left.lt(0)) {
    await q.query('ROLLBACK TO SAVEPOINT withdrawal');
    return 'insufficient';
  }
  await q.query('RELEASE SAVEPOINT withdrawal');
  return 'ok';
}

/** A ledger entry with what the balance page shows of its order. */
export interface LedgerLine extends LedgerRow {
  order_ref: string | null;
}

/** A page of the merchant's entries, newest first, keyset-paged back from the entry `beforeId`. */
export async function listEntriesBefore(q: Queryable, merchantId: string, beforeId: number | null, limit: number): Promise<LedgerLine[]> {
  const { rows } = await q.query<LedgerLine>(
    `SELECT l.*, o.order_ref FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
     WHERE l.merchant_id = $1 AND ($2::bigint IS NULL OR l.id < $2)
     ORDER BY l.id DESC LIMIT $3`,
    [merchantId, beforeId, limit],
  );
  return rows;
}

export interface DailyTotals {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** Settled USD of the orders credited that day. */
  turnover: string;
  credits: string;
  reversals: string;
  withdrawals: string;
  adjustments: string;
  net: string;
}

/**
 * Per-UTC-day sums of the merchant's entries of one money (sandbox or live) in [from, to) (UTC day boundaries), newest day first;
 * days without entries are absent. Read from the daily rollup the database keeps with every entry
 * (ledger_daily, migration 0012): at most two rows a day, however many entries the day had.
 */
export async function dailyTotals(q: Queryable, merchantId: string, sandbox: boolean, from: Date, to: Date): Promise<DailyTotals[]> {
  const { rows } = await q.query<DailyTotals>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(turnover)::numeric AS turnover, sum(credits)::numeric AS credits,
            sum(reversals)::numeric AS reversals, sum(withdrawals)::numeric AS withdrawals, sum(adjustments)::numeric AS adjustments,
            sum(net)::numeric AS net
       FROM ledger_daily
      WHERE merchant_id = $1 AND sandbox = $4 AND day >= $2::date AND day < $3::date
      GROUP BY day ORDER BY day DESC`,
    [merchantId, utcDay(from), utcDay(to), sandbox],
  );
  return rows;
}

/** The UTC day of a moment, as a date literal. */
const utcDay = (t: Date): string => t.toISOString().slice(0, 10);

/** The order's ledger entries (its credit and any reversal), oldest first. */
export async function listOrderEntries(q: Queryable, orderId: string): Promise<LedgerRow[]> {
  const { rows } = await q.query<LedgerRow>('SELECT * FROM ledger_entries WHERE order_id = $1 ORDER BY id', [orderId]);
  return rows;
}
