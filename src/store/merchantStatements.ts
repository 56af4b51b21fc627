/**
 * SQL of a merchant's statement of live money: the balances at its two ends from the daily rollup
 * (ledger_daily, kept by the database with every ledger entry, migration 0012), and the ledger
 * entries of its live orders and its withdrawals (entries without an order), with the id of each
 * withdrawal, read a batch at a time however many there are.
 */
import type { Db, Queryable } from './db.js';

export interface StatementLine {
  id: number;
  kind: string;
  order_id: string | null;
  withdrawal_id: string | null;
  amount: string;
  /** The entry's time to the second, `YYYY-MM-DDTHH:mm:ssZ`, written by the database (no Date per line). */
  at: string;
  /** The entry's exact time as text, where the next page starts (a Date keeps milliseconds only). */
  at_key: string;
}

export interface StatementBounds {
  /** The live balance at the start of the first day. */
  opening: string;
  /** The live balance at the end of the last day. */
  closing: string;
  /** The newest ledger entry the read sees: later ones are not part of this statement. */
  upto: number;
}

/**
 * The live balance at the start of `firstDay` and at the end of `lastDay` (`YYYY-MM-DD`, UTC): the
 * merchant's running live balance less what the rollup holds for the days since, at most one row
 * per day from `firstDay` to today whatever the history (a year's statement of a merchant with
 * millions of entries reads some 400 rows). Sandbox money is filed apart in the rollup, as on the
 * entries. Null for an unknown merchant. One statement: one snapshot.
 */
export async function statementBounds(q: Pick<Queryable, 'query'>, merchantId: string, firstDay: string, lastDay: string): Promise<StatementBounds | null> {
  const { rows } = await q.query<StatementBounds>(
    `SELECT (m.balance - COALESCE((SELECT sum(d.net) FROM ledger_daily d WHERE d.merchant_id = m.id AND NOT d.sandbox AND d.day >= $2::date), 0))::numeric AS opening,
            (m.balance - COALESCE((SELECT sum(d.net) FROM ledger_daily d WHERE d.merchant_id = m.id AND NOT d.sandbox AND d.day > $3::date), 0))::numeric AS closing,
            COALESCE((SELECT max(l.id) FROM ledger_entries l), 0)::bigint AS upto
       FROM merchants m WHERE m.id = $1`,
    [merchantId, firstDay, lastDay],
  );
  return rows[0] ?? null;
}

// The live entries of [from, to), oldest first: by time, then by id among entries of one instant.
// Through the index (merchant_id, created_at, id) of live entries (migrations 0029, 0039), so a month's
// statement reads that month's entries only, in their order, with nothing to sort.
// Every column a line needs is in the index (0039): the lines come from it alone.
const LINE_COLUMNS = `l.id, l.kind, l.order_id, l.amount, to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at, l.created_at::text AS at_key,
            CASE WHEN l.kind = 'withdrawal' THEN (
              SELECT w.id FROM withdrawals w
               WHERE w.merchant_id = l.merchant_id AND w.created_at = l.created_at AND w.amount_usd = -l.amount AND w.reference IS NOT DISTINCT FROM l.reason
               ORDER BY w.id LIMIT 1) END AS withdrawal_id`;

/** The server's cursor over every line of the statement, as one statement of the snapshot. */
const LINES_SQL = `SELECT ${LINE_COLUMNS}
       FROM ledger_entries l
      WHERE l.merchant_id = $1 AND NOT l.sandbox AND l.created_at >= $2 AND l.created_at < $3
      ORDER BY l.created_at, l.id`;

/**
 * One page of the lines after (`afterAt`, `afterId`), for the embedded database: keyset-paged,
 * each page a short statement of its own, and none past entry `upto`. The embedded database runs
 * one transaction after another, so ids are given in commit order there and the entries up to
 * `upto` are exactly those the bounds' statement saw.
 */
const PAGE_SQL = `SELECT ${LINE_COLUMNS}
       FROM ledger_entries l
      WHERE l.merchant_id = $1 AND NOT l.sandbox AND (l.created_at, l.id) > ($4::timestamptz, $5::bigint) AND l.created_at < $3 AND l.created_at >= $2 AND l.id <= $6
      ORDER BY l.created_at, l.id
      LIMIT $7`;

/** A statement as it is read: its bounds, then its lines a batch at a time, until `close`. */
export interface StatementRead {
  bounds: StatementBounds | null;
  lines: AsyncIterable<StatementLine[]>;
  close(): Promise<void>;
}

/** Lines per batch: a cursor fetch on the server, a page on the embedded database (a few milliseconds each). */
export const STATEMENT_BATCH = 1000;

/**
 * Opens the read of a statement of `[from, to)` (the days `firstDay` to `lastDay`): on the server one
 * snapshot (the bounds and a cursor over the lines agree whatever is written meanwhile), on the
 * embedded database keyset pages bounded by the bounds' newest entry.
 */
export async function openStatementRead(db: Db, merchantId: string, days: { firstDay: string; lastDay: string; from: Date; to: Date }): Promise<StatementRead> {
  if (db.openSnapshot) {
    const snap = await db.openSnapshot('paygate statement');
    try {
      const bounds = await statementBounds(snap, merchantId, days.firstDay, days.lastDay);
      const lines = batches(snap.rows<StatementLine>(LINES_SQL, [merchantId, days.from, days.to], STATEMENT_BATCH));
      return { bounds, lines, close: () => snap.close() };
    } catch (err) {
      await snap.close();
      throw err;
    }
  }
  const bounds = await statementBounds(db, merchantId, days.firstDay, days.lastDay);
  return { bounds, lines: bounds ? pages(db, merchantId, days.from, days.to, bounds.upto) : none(), close: async () => {} };
}

async function* batches(rows: AsyncIterable<StatementLine>): AsyncGenerator<StatementLine[]> {
  let batch: StatementLine[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === STATEMENT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function* pages(q: Queryable, merchantId: string, from: Date, to: Date, upto: number): AsyncGenerator<StatementLine[]> {
  // Before the first entry of `from`: ids start at 1.
  let after = { at: from.toISOString(), id: 0 };
  for (;;) {
    const { rows } = await q.query<StatementLine>(PAGE_SQL, [merchantId, from, to, after.at, after.id, upto, STATEMENT_BATCH]);
    if (rows.length > 0) yield rows;
    if (rows.length < STATEMENT_BATCH) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.at_key, id: last.id };
  }
}

async function* none(): AsyncGenerator<StatementLine[]> {}
