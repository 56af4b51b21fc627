/**
 * SQL of reconciliation: credits, the orders a credit may pay and the day report. One exported
 * function per statement, the connection or transaction first. Orders are
 * only read and locked here (their transitions stay with the order actions); requisites and
 * assignments have their own store (src/store/requisites.ts).
 */
import { byKey } from '../domain/keys.js';
import type { Queryable } from '../store/db.js';
import type { OrderRow } from '../store/orders.js';

// ---- credits

export type CreditStatus = 'matched' | 'unmatched' | 'ignored';
export type CreditSource = 'feed' | 'statement' | 'operator' | 'device';
export type MatchedBy = 'reference' | 'amount' | 'operator';

export interface CreditRow {
  id: string;
  seq: number;
  provider_id: string;
  requisite_id: string | null;
  account: string;
  amount: string;
  currency: string;
  received_at: Date;
  date_only: boolean;
  payer: string | null;
  reference: string | null;
  source: CreditSource;
  source_id: string | null;
  account_key: string;
  /** A `date` column: read as the driver gives it; the terms compare it in SQL. */
  booking_day: unknown;
  bank_reference: string | null;
  in_statement: boolean;
  legacy_statement: boolean;
  statement_id: string | null;
  status: CreditStatus;
  reason: string | null;
  order_id: string | null;
  matched_by: MatchedBy | null;
  candidates: string[];
  difference: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One credit as it arrives, checked: what the feed, a statement line or an operator says of it. */
export interface CreditTerms {
  /** The sender's id of the item (feed, device, hand); for a statement entry how the file names it, for people only. */
  sourceId: string | null;
  account: string;
  /** 2 places. */
  amount: string;
  currency: string;
  receivedAt: Date;
  dateOnly: boolean;
  payer: string | null;
  reference: string | null;
  /** The bank's own reference of the booking, when known. */
  bankReference: string | null;
}

export interface NewCredit extends CreditTerms {
  id: string;
  providerId: string;
  source: CreditSource;
  at: Date;
  /** The requisite the account names, else the account as written without spaces, dashes and case (`raw:`…). */
  accountKey: string;
  /** `YYYY-MM-DD`, the UTC day of `receivedAt`. */
  bookingDay: string;
  /** The statement that records it, for a credit a statement entry makes. */
  statementId: string | null;
}

/** A new credit with the outcome its matching gave it (its requisite: the account's, when known). */
export type SettledCredit = NewCredit & CreditOutcome & { requisiteId: string | null };

/** The identity of a credit's money: provider, account, currency, amount and booking day, as one text. */
export const termsKey = (t: { providerId: string; accountKey: string; currency: string; amount: string; bookingDay: string }): string =>
  `${t.providerId}|${t.accountKey}|${t.currency}|${t.amount}|${t.bookingDay}`;

/**
 * Takes a transaction-scoped lock on each of these terms, in one order, so two transactions
 * recording the same money (two instances taking the same file, a file and the feed) decide its
 * identity one after the other: the second sees what the first recorded.
 */
export async function lockTerms(q: Queryable, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await q.query(
    `SELECT count(pg_advisory_xact_lock(hashtextextended(s.k, 0))) FROM (SELECT DISTINCT unnest($1::text[]) AS k ORDER BY 1) s`,
    [[...keys]],
  );
}

/**
 * Records credits with their outcomes, in one statement: the rows recorded, in no particular
 * order. Rows go in sorted by id.
 */
export async function insertCredits(q: Queryable, cs: readonly SettledCredit[]): Promise<CreditRow[]> {
  if (cs.length === 0) return [];
  const items = [...cs]
    .sort((a, b) => byKey(a.id, b.id))
    .map((c, n) => ({
      n,
      id: c.id, provider_id: c.providerId, account: c.account, amount: c.amount, currency: c.currency, received_at: c.receivedAt.toISOString(),
      date_only: c.dateOnly, payer: c.payer, reference: c.reference, source: c.source, source_id: c.sourceId, at: c.at.toISOString(),
      status: c.status, reason: c.reason, requisite_id: c.requisiteId, order_id: c.orderId, matched_by: c.matchedBy, candidates: c.candidates,
      account_key: c.accountKey, booking_day: c.bookingDay, bank_reference: c.bankReference, in_statement: c.statementId !== null, statement_id: c.statementId,
    }));
  const { rows } = await q.query<CreditRow>(
    `INSERT INTO credits (id, provider_id, account, amount, currency, received_at, date_only, payer, reference, source, source_id,
                          status, reason, requisite_id, order_id, matched_by, candidates, created_at, updated_at,
                          account_key, booking_day, bank_reference, in_statement, statement_id)
     SELECT i.id, i.provider_id, i.account, i.amount, i.currency, i.received_at, i.date_only, i.payer, i.reference, i.source, i.source_id,
            i.status, i.reason, i.requisite_id, i.order_id, i.matched_by, i.candidates, i.at, i.at,
            i.account_key, i.booking_day, i.bank_reference, i.in_statement, i.statement_id
       FROM jsonb_to_recordset($1::jsonb) AS i(n int, id text, provider_id text, account text, amount numeric, currency text, received_at timestamptz,
            date_only boolean, payer text, reference text, source text, source_id text, at timestamptz,
            status text, reason text, requisite_id text, order_id text, matched_by text, candidates jsonb,
            account_key text, booking_day date, bank_reference text, in_statement boolean, statement_id text)
      ORDER BY i.n
     RETURNING *`,
    [JSON.stringify(items)],
  );
  return rows;
}

/** An item id as the feed, a device or a person gave it, with the terms it came with and its credit. */
export interface ItemRow {
  source_id: string;
  account_key: string;
  currency: string;
  amount: string;
  booking_day: string;
  credit_id: string;
}

/** The items of these ids the provider's source sent before, whatever their terms: through the primary key, id by id. */
export async function itemsByIds(q: Queryable, providerId: string, source: ItemSource, ids: readonly string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<ItemRow>(
    `SELECT i.source_id, i.account_key, i.currency, i.amount::text AS amount, to_char(i.booking_day, 'YYYY-MM-DD') AS booking_day, i.credit_id
       FROM unnest($3::text[]) AS s(source_id)
       CROSS JOIN LATERAL (SELECT * FROM credit_items WHERE provider_id = $1 AND source = $2 AND source_id = s.source_id OFFSET 0) i`,
    [providerId, source, [...new Set(ids)]],
  );
  return rows;
}

export type ItemSource = 'feed' | 'operator' | 'device';

/** Records item ids with their terms and credits; answers how many were new (a repeat inserted meanwhile is skipped). */
export async function insertItems(
  q: Queryable,
  items: readonly { providerId: string; source: ItemSource; sourceId: string; accountKey: string; currency: string; amount: string; bookingDay: string; creditId: string; at: Date }[],
): Promise<number> {
  if (items.length === 0) return 0;
  const { rows } = await q.query<{ credit_id: string }>(
    `INSERT INTO credit_items (provider_id, source, source_id, account_key, currency, amount, booking_day, credit_id, created_at)
     SELECT i.provider_id, i.source, i.source_id, i.account_key, i.currency, i.amount, i.booking_day, i.credit_id, i.at
       FROM jsonb_to_recordset($1::jsonb) AS i(provider_id text, source text, source_id text, account_key text, currency text, amount numeric,
            booking_day date, credit_id text, at timestamptz)
      ORDER BY i.provider_id, i.source, i.source_id
     ON CONFLICT DO NOTHING RETURNING credit_id`,
    [JSON.stringify(items.map((i) => ({
      provider_id: i.providerId, source: i.source, source_id: i.sourceId, account_key: i.accountKey, currency: i.currency, amount: i.amount,
      booking_day: i.bookingDay, credit_id: i.creditId, at: i.at.toISOString(),
    })))],
  );
  return rows.length;
}

/** A credit of given terms, with what its identity depends on. */
export interface TermsCreditRow extends CreditRow {
  /** The caller's index of the terms. */
  k: number;
  /** Bank references of the statement entries (of other statements) that evidence it. */
  entry_refs: (string | null)[];
  /** A statement entry of the statement being recorded evidences it already. */
  in_this_statement: boolean;
  /** An item of the source being recorded names it already. */
  has_item_of_source: boolean;
}

/**
 * The credits of each of these terms, oldest first, each looked up through the terms index (a
 * read that does not grow with the provider's history): with the bank references of the statement
 * entries that evidence them, whether `statementId` evidences them already, and whether an item of
 * `source` names them.
 */
export async function creditsByTerms(
  q: Queryable,
  providerId: string,
  terms: readonly { k: number; accountKey: string; currency: string; amount: string; bookingDay: string }[],
  opts: { statementId: string | null; source: ItemSource | null },
): Promise<TermsCreditRow[]> {
  if (terms.length === 0) return [];
  // Planned for the credits as they are at each call: a plan kept from when the table was small
  // read every credit of the provider for each of the terms (through `credits_provider_received`),
  // and the embedded database, which never runs ANALYZE, never makes its kept plans again (a
  // 50,000-entry statement took 490 s instead of 15).
  await q.exec('SET LOCAL plan_cache_mode = force_custom_plan');
  const { rows } = await q.query<TermsCreditRow>(
    `SELECT t.k, c.*,
            ARRAY(SELECT e.bank_reference FROM statement_entries e WHERE e.credit_id = c.id AND e.statement_id IS DISTINCT FROM $3) AS entry_refs,
            EXISTS (SELECT 1 FROM statement_entries e WHERE e.credit_id = c.id AND e.statement_id = $3) AS in_this_statement,
            EXISTS (SELECT 1 FROM credit_items i WHERE i.credit_id = c.id AND i.source = $4) AS has_item_of_source
       FROM jsonb_to_recordset($2::jsonb) AS t(k int, account_key text, currency text, amount numeric, booking_day date)
       CROSS JOIN LATERAL (
         SELECT * FROM credits x WHERE x.provider_id = $1 AND x.account_key = t.account_key AND x.currency = t.currency
            AND x.amount = t.amount AND x.booking_day = t.booking_day OFFSET 0) c
      ORDER BY t.k, c.seq`,
    [providerId, JSON.stringify(terms.map((t) => ({ k: t.k, account_key: t.accountKey, currency: t.currency, amount: t.amount, booking_day: t.bookingDay }))),
      opts.statementId, opts.source],
  );
  await q.exec('SET LOCAL plan_cache_mode = DEFAULT');
  return rows;
}

/** Credits a statement entry found: evidenced by a statement now, with the bank's reference when they had none. */
export async function markInStatement(q: Queryable, found: readonly { creditId: string; bankReference: string | null }[], at: Date): Promise<void> {
  if (found.length === 0) return;
  await q.query(
    `UPDATE credits c SET in_statement = true, legacy_statement = false, bank_reference = COALESCE(c.bank_reference, f.bank_reference), updated_at = $2
       FROM jsonb_to_recordset($1::jsonb) AS f(id text, bank_reference text) WHERE c.id = f.id`,
    [JSON.stringify(found.map((f) => ({ id: f.creditId, bank_reference: f.bankReference }))), at],
  );
}

export async function creditsByIds(q: Queryable, ids: readonly string[]): Promise<CreditRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<CreditRow>('SELECT * FROM credits WHERE id = ANY($1::text[])', [[...new Set(ids)]]);
  return rows;
}

/**
 * The requisites of the provider each account (normalised) names, active ones first, then oldest
 * first: one row per account and requisite, in that order.
 */
export async function requisitesByAccounts(q: Queryable, providerId: string, accounts: string[]): Promise<{ account: string; requisite_id: string }[]> {
  if (accounts.length === 0) return [];
  const { rows } = await q.query<{ account: string; requisite_id: string }>(
    `SELECT a.account, r.id AS requisite_id FROM requisite_accounts a JOIN requisites r ON r.id = a.requisite_id
      WHERE a.provider_id = $1 AND a.account = ANY($2::text[]) ORDER BY a.account, (r.state = 'active') DESC, r.seq`,
    [providerId, accounts],
  );
  return rows;
}

/**
 * The requisites of the provider whose account, as a number, ends with each tail (a masked account
 * such as `*1234`): one row per tail and requisite, active ones first.
 */
export async function requisitesByTails(q: Queryable, providerId: string, tails: string[]): Promise<{ tail: string; requisite_id: string }[]> {
  if (tails.length === 0) return [];
  const { rows } = await q.query<{ tail: string; requisite_id: string }>(
    `SELECT DISTINCT ON (t.tail, r.id) t.tail, r.id AS requisite_id, (r.state = 'active') AS active, r.seq
       FROM unnest($2::text[]) AS t(tail)
       JOIN requisite_accounts a ON a.provider_id = $1 AND a.account ~ '^[0-9]+$' AND right(a.account, length(t.tail)) = t.tail
       JOIN requisites r ON r.id = a.requisite_id
      ORDER BY t.tail, r.id`,
    [providerId, tails],
  );
  return rows;
}

export async function getCredit(q: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<CreditRow | null> {
  const { rows } = await q.query<CreditRow>(`SELECT * FROM credits WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export interface CreditOutcome {
  status: CreditStatus;
  reason: string | null;
  requisiteId?: string | null;
  orderId: string | null;
  matchedBy: MatchedBy | null;
  candidates: string[];
  difference?: string | null;
}

export async function setCreditOutcome(q: Queryable, id: string, o: CreditOutcome, at: Date): Promise<CreditRow> {
  const { rows } = await q.query<CreditRow>(
    `UPDATE credits SET status = $2, reason = $3, requisite_id = CASE WHEN $4::boolean THEN $5::text ELSE requisite_id END,
            order_id = $6, matched_by = $7, candidates = $8, difference = CASE WHEN $9::boolean THEN $10::numeric ELSE difference END, updated_at = $11
      WHERE id = $1 RETURNING *`,
    [id, o.status, o.reason, o.requisiteId !== undefined, o.requisiteId ?? null, o.orderId, o.matchedBy, JSON.stringify(o.candidates),
      o.difference !== undefined, o.difference ?? null, at],
  );
  return rows[0];
}

export interface CreditFilter {
  status: CreditStatus | null;
  providerId: string | null;
  requisiteId: string | null;
  /** The page goes on past this credit (its `seq`), in the list's order. */
  pastSeq: number | null;
  /** Oldest first (a queue is worked from its oldest entry); newest first otherwise. */
  oldestFirst: boolean;
  limit: number;
}

/** Credits keyset-paged by `seq`, newest or oldest first. */
export async function listCredits(q: Queryable, f: CreditFilter): Promise<CreditRow[]> {
  const { rows } = await q.query<CreditRow>(
    `SELECT * FROM credits
      WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR provider_id = $2) AND ($3::text IS NULL OR requisite_id = $3)
        AND ($4::bigint IS NULL OR seq ${f.oldestFirst ? '>' : '<'} $4)
      ORDER BY seq ${f.oldestFirst ? 'ASC' : 'DESC'} LIMIT $5`,
    [f.status, f.providerId, f.requisiteId, f.pastSeq, f.limit],
  );
  return rows;
}

export interface MatchableOrderRow {
  id: string;
  amount: string;
  currency: string;
  status: string;
  created_at: Date;
  expires_at: Date;
  /** When it was completed or closed unpaid (cancel, expiry); null while open. */
  finished_at: Date | null;
  payer_reference: string | null;
  requisite_id: string;
  matched_credit_id: string | null;
}

/**
 * The placed orders issued these requisites in the currency whose window can hold money that
 * arrived in [from, to]: created no later than `createdBy`, expiring no earlier than `expiresFrom`.
 */
export async function ordersOnRequisites(
  q: Queryable,
  r: { requisiteIds: string[]; currency: string; createdBy: Date; expiresFrom: Date },
): Promise<MatchableOrderRow[]> {
  const { rows } = await q.query<MatchableOrderRow>(
    `SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.finished_at, o.payer_reference, a.requisite_id,
            (SELECT c.id FROM credits c WHERE c.order_id = o.id) AS matched_credit_id
       FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
      WHERE a.requisite_id = ANY($1::text[]) AND a.currency = $2 AND a.expires_at >= $4 AND o.placement = 'placed' AND NOT o.sandbox AND o.created_at <= $3
      ORDER BY o.created_at, o.id`,
    [r.requisiteIds, r.currency, r.createdBy, r.expiresFrom],
  );
  return rows;
}

/** What one credit asks of the orders: its requisites, currency and amount, and its window (see `ordersOnRequisites`). */
export interface OrderProbe {
  /** The caller's index of the credit, answered on each row. */
  k: number;
  requisiteIds: string[];
  currency: string;
  amount: string;
  createdBy: Date;
  expiresFrom: Date;
}

const probeJson = (ps: OrderProbe[]) =>
  JSON.stringify(ps.map((p) => ({ k: p.k, requisite_ids: p.requisiteIds, currency: p.currency, amount: p.amount, created_by: p.createdBy.toISOString(), expires_from: p.expiresFrom.toISOString() })));
const PROBES = `jsonb_to_recordset($1::jsonb) AS p(k int, requisite_ids text[], currency text, amount numeric, created_by timestamptz, expires_from timestamptz)`;

/**
 * For many credits in one statement: the placed orders of exactly each credit's amount issued its
 * requisites in its currency within its window, whatever their status, each row with the credit's
 * `k`; by credit, then oldest first. (The assignment's copy of the amount finds them by index.)
 */
export async function sameAmountOrders(q: Queryable, probes: OrderProbe[]): Promise<(MatchableOrderRow & { k: number })[]> {
  if (probes.length === 0) return [];
  const { rows } = await q.query<MatchableOrderRow & { k: number }>(
    // Each credit's orders are looked up through the assignments' amount index, credit by credit
    // (LATERAL, kept apart by OFFSET 0): joined as a whole, the planner hashes every assignment the
    // pool ever made, a read that grows with history.
    `SELECT p.k, x.* FROM ${PROBES}
       CROSS JOIN LATERAL (
         SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.finished_at, o.payer_reference, a.requisite_id,
                (SELECT c.id FROM credits c WHERE c.order_id = o.id) AS matched_credit_id
           FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
          WHERE a.requisite_id = ANY(p.requisite_ids) AND a.amount = p.amount AND a.currency = p.currency AND a.expires_at >= p.expires_from
            AND o.placement = 'placed' AND NOT o.sandbox AND o.created_at <= p.created_by AND o.amount = p.amount
         OFFSET 0) x
      ORDER BY p.k, x.created_at, x.id`,
    [probeJson(probes)],
  );
  return rows;
}

/** Credits that share their requisites and currency, read together: the widest window of any of them. */
export interface WaitingProbe {
  /** The caller's index of the group, answered on each row. */
  g: number;
  requisiteIds: string[];
  currency: string;
  createdBy: Date;
  expiresFrom: Date;
}

/**
 * For groups of credits in one statement: the placed orders issued the group's requisites in its
 * currency within its window that still wait for money (not Completed, no credit), whatever their
 * amount, each row with the group's `g`. Each order is read once per group, not once per credit:
 * the caller picks each credit's nearest amounts from them.
 */
export async function waitingOrders(q: Queryable, groups: WaitingProbe[]): Promise<(MatchableOrderRow & { g: number })[]> {
  if (groups.length === 0) return [];
  // Planned for a hundred groups of thousands of assignments each (the planner cannot see into the
  // JSON), this statement's estimate is far above PostgreSQL's JIT threshold: compiling it cost
  // 150-200 ms a call at a million credits, for a read of a few hundred rows.
  await q.exec('SET LOCAL jit = off');
  const { rows } = await q.query<MatchableOrderRow & { g: number }>(
    // Group by group through the assignments' index on (requisite, expiry), as `sameAmountOrders` does,
    // then each assignment's order and credit by their keys (kept apart by OFFSET 0): joined as a
    // whole, the planner read every order created before the window's end (566,877 at 2,000,000).
    `SELECT w.g, x.* FROM jsonb_to_recordset($1::jsonb) AS w(g int, requisite_ids text[], currency text, created_by timestamptz, expires_from timestamptz)
       CROSS JOIN LATERAL (
         SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.finished_at, o.payer_reference, a.requisite_id, NULL::text AS matched_credit_id
           FROM requisite_assignments a
          CROSS JOIN LATERAL (SELECT o.* FROM orders o WHERE o.id = a.order_id AND NOT EXISTS (SELECT 1 FROM credits c WHERE c.order_id = o.id) OFFSET 0) o
          WHERE a.requisite_id = ANY(w.requisite_ids) AND a.currency = w.currency AND a.expires_at >= w.expires_from
            AND o.placement = 'placed' AND NOT o.sandbox AND o.created_at <= w.created_by AND o.status <> 'Completed'
         OFFSET 0) x`,
    [JSON.stringify(groups.map((w) => ({ g: w.g, requisite_ids: w.requisiteIds, currency: w.currency, created_by: w.createdBy.toISOString(), expires_from: w.expiresFrom.toISOString() })))],
  );
  return rows;
}

/** Locks orders in id order and answers them as they now stand (a locked row is read at its latest version). */
export async function lockedOrders(q: Queryable, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<OrderRow>('SELECT * FROM orders WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
  return rows;
}

// ---- reports

export interface DayRow {
  requisite_id: string | null;
  orders_issued: number;
  orders_completed: number;
  completed_amount: string;
  credits: number;
  credits_amount: string;
  matched: number;
  unmatched: number;
  ignored: number;
  completed_without_credit: number;
}

/**
 * One row per requisite of the provider for the UTC day [from, to): orders issued (given the
 * requisite that day, and placed), orders completed that day with their amounts and how many of them without a credit,
 * and every credit received on the requisite that day with how many are matched and unmatched.
 * Credits on no known requisite come as one row whose requisite_id is null.
 */
export async function dayRows(q: Queryable, providerId: string, from: Date, to: Date): Promise<DayRow[]> {
  const { rows } = await q.query<DayRow>(
    `WITH issued AS (
       -- Given out that day and placed, by the placement the assignment keeps of its order (0020);
       -- only an assignment whose copy is still empty (its order written after it, unchanged since)
       -- looks at its order. Not every order of the platform created that day (30,000 at
       -- 10,000,000 orders: 80 ms of a report).
       SELECT a.requisite_id, count(*)::int AS n FROM requisite_assignments a
        WHERE a.provider_id = $1 AND a.assigned_at >= $2 AND a.assigned_at < $3
          AND CASE WHEN a.order_placement IS NOT NULL THEN a.order_placement = 'placed'
                   ELSE EXISTS (SELECT 1 FROM orders o WHERE o.id = a.order_id AND o.placement = 'placed') END
        GROUP BY 1),
     completed AS (
       SELECT a.requisite_id, count(*)::int AS n, sum(COALESCE(o.paid_amount, o.amount)) AS amount,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM credits c WHERE c.order_id = o.id))::int AS without_credit
         FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
        -- The order's status and close time as its assignment keeps them (0020), by 0036's index.
        WHERE a.provider_id = $1 AND a.order_status = 'Completed' AND a.order_finished_at >= $2 AND a.order_finished_at < $3 GROUP BY 1),
     money AS (
       -- The day's credits as the database sums them while they are written (credit_days, 0038): a
       -- credit a person matched counts on its order's requisite, one on no requisite under ''.
       SELECT NULLIF(c.requisite_id, '') AS requisite_id, sum(c.credits)::int AS n, sum(c.amount) AS amount,
              COALESCE(sum(c.credits) FILTER (WHERE c.status = 'matched'), 0)::int AS matched,
              COALESCE(sum(c.credits) FILTER (WHERE c.status = 'unmatched'), 0)::int AS unmatched,
              COALESCE(sum(c.credits) FILTER (WHERE c.status = 'ignored'), 0)::int AS ignored
         FROM credit_days c
        WHERE c.provider_id = $1 AND c.day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND c.day < ($3::timestamptz AT TIME ZONE 'UTC')::date
        GROUP BY 1 HAVING sum(c.credits) > 0),
     keys AS (
       SELECT id AS requisite_id, seq FROM requisites WHERE provider_id = $1
       UNION ALL SELECT NULL, NULL WHERE EXISTS (SELECT 1 FROM money WHERE requisite_id IS NULL))
     SELECT k.requisite_id, COALESCE(i.n, 0) AS orders_issued, COALESCE(d.n, 0) AS orders_completed, COALESCE(d.amount, 0)::numeric AS completed_amount,
            COALESCE(m.n, 0) AS credits, COALESCE(m.amount, 0)::numeric AS credits_amount, COALESCE(m.matched, 0) AS matched,
            COALESCE(m.unmatched, 0) AS unmatched, COALESCE(m.ignored, 0) AS ignored, COALESCE(d.without_credit, 0) AS completed_without_credit
       FROM keys k
       LEFT JOIN issued i ON i.requisite_id = k.requisite_id
       LEFT JOIN completed d ON d.requisite_id = k.requisite_id
       LEFT JOIN money m ON m.requisite_id IS NOT DISTINCT FROM k.requisite_id
      ORDER BY k.seq NULLS LAST`,
    [providerId, from, to],
  );
  return rows;
}

// ---- the back office's queue

/**
 * Credits in a status, counted up to `cap` (the queue's count in the navigation, on every page of
 * the back office: `credits_status_seq` reads at most `cap` entries, where counting a queue of
 * 176,000 took 50–80 ms).
 */
export async function countCredits(q: Queryable, status: CreditStatus, cap: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT 1 FROM credits WHERE status = $1 LIMIT $2) c', [status, cap]);
  return rows[0]?.n ?? 0;
}

/** Marks the credits of these ids that are unmatched as ignored with the reason: the ids ignored. */
export async function ignoreUnmatched(q: Queryable, ids: readonly string[], reason: string, at: Date): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `UPDATE credits SET status = 'ignored', reason = $2, updated_at = $3 WHERE id = ANY($1::text[]) AND status = 'unmatched' RETURNING id`,
    [[...new Set(ids)], reason, at],
  );
  return rows.map((r) => r.id);
}

/** The requisite an order was given, when a pool gave it one. */
export async function requisiteOfOrder(q: Queryable, orderId: string): Promise<string | null> {
  const { rows } = await q.query<{ requisite_id: string }>('SELECT requisite_id FROM requisite_assignments WHERE order_id = $1', [orderId]);
  return rows[0]?.requisite_id ?? null;
}

/** Unmatched credits per provider. */
export async function unmatchedByProvider(q: Queryable, cap: number): Promise<{ provider_id: string; n: number }[]> {
  // Per pool, up to `cap`, through the index of unmatched credits (0037).
  const { rows } = await q.query<{ provider_id: string; n: number }>(
    `SELECT p.id AS provider_id, (SELECT count(*)::int FROM (SELECT 1 FROM credits c WHERE c.provider_id = p.id AND c.status = 'unmatched' LIMIT $1) x) AS n
       FROM providers p WHERE p.kind = 'pool'`,
    [cap],
  );
  return rows;
}

export interface OrderBriefRow {
  id: string;
  amount: string;
  currency: string;
  status: string;
  created_at: Date;
  expires_at: Date;
  merchant_id: string;
}

/** What a person weighs a credit's candidate orders by. */
export async function orderBriefs(q: Queryable, ids: readonly string[]): Promise<OrderBriefRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<OrderBriefRow>('SELECT id, amount, currency, status, created_at, expires_at, merchant_id FROM orders WHERE id = ANY($1::text[])', [ids]);
  return rows;
}
