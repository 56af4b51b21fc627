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
export type CreditSource = 'feed' | 'statement' | 'operator';
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
  source_id: string;
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
  sourceId: string;
  account: string;
  /** 2 places. */
  amount: string;
  currency: string;
  receivedAt: Date;
  dateOnly: boolean;
  payer: string | null;
  reference: string | null;
}

export interface NewCredit extends CreditTerms {
  id: string;
  providerId: string;
  source: CreditSource;
  at: Date;
}

/** A new credit with the outcome its matching gave it (its requisite: the account's, when known). */
export type SettledCredit = NewCredit & CreditOutcome & { requisiteId: string | null };

/**
 * Records credits with their outcomes, in one statement, skipping those whose `(providerId,
 * sourceId)` is recorded already: the rows recorded now, in no particular order. Rows go in sorted
 * by source id, so two transactions recording overlapping lists wait for each other in the same
 * order; a concurrent transaction inserting the same pair makes this one wait for its outcome.
 */
export async function insertCredits(q: Queryable, cs: readonly SettledCredit[]): Promise<CreditRow[]> {
  if (cs.length === 0) return [];
  const items = [...cs]
    .sort((a, b) => byKey(a.sourceId, b.sourceId))
    .map((c, n) => ({
      n,
      id: c.id, provider_id: c.providerId, account: c.account, amount: c.amount, currency: c.currency, received_at: c.receivedAt.toISOString(),
      date_only: c.dateOnly, payer: c.payer, reference: c.reference, source: c.source, source_id: c.sourceId, at: c.at.toISOString(),
      status: c.status, reason: c.reason, requisite_id: c.requisiteId, order_id: c.orderId, matched_by: c.matchedBy, candidates: c.candidates,
    }));
  const { rows } = await q.query<CreditRow>(
    `INSERT INTO credits (id, provider_id, account, amount, currency, received_at, date_only, payer, reference, source, source_id,
                          status, reason, requisite_id, order_id, matched_by, candidates, created_at, updated_at)
     SELECT i.id, i.provider_id, i.account, i.amount, i.currency, i.received_at, i.date_only, i.payer, i.reference, i.source, i.source_id,
            i.status, i.reason, i.requisite_id, i.order_id, i.matched_by, i.candidates, i.at, i.at
       FROM jsonb_to_recordset($1::jsonb) AS i(n int, id text, provider_id text, account text, amount numeric, currency text, received_at timestamptz,
            date_only boolean, payer text, reference text, source text, source_id text, at timestamptz,
            status text, reason text, requisite_id text, order_id text, matched_by text, candidates jsonb)
      ORDER BY i.n
     ON CONFLICT (provider_id, source_id) DO NOTHING RETURNING *`,
    [JSON.stringify(items)],
  );
  return rows;
}

export async function creditsBySources(q: Queryable, providerId: string, sourceIds: string[]): Promise<CreditRow[]> {
  if (sourceIds.length === 0) return [];
  // Each by the unique key, one lookup per source id (LATERAL, kept apart by OFFSET 0): a plan made
  // while the table was small may otherwise read every credit of the provider and filter them, a
  // read that grows with history.
  const { rows } = await q.query<CreditRow>(
    `SELECT c.* FROM unnest($2::text[]) AS s(source_id)
       CROSS JOIN LATERAL (SELECT * FROM credits WHERE provider_id = $1 AND source_id = s.source_id OFFSET 0) c`,
    [providerId, sourceIds],
  );
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
    `SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.payer_reference, a.requisite_id,
            (SELECT c.id FROM credits c WHERE c.order_id = o.id) AS matched_credit_id
       FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
      WHERE a.requisite_id = ANY($1::text[]) AND a.currency = $2 AND a.expires_at >= $4 AND o.placement = 'placed' AND o.created_at <= $3
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
         SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.payer_reference, a.requisite_id,
                (SELECT c.id FROM credits c WHERE c.order_id = o.id) AS matched_credit_id
           FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
          WHERE a.requisite_id = ANY(p.requisite_ids) AND a.amount = p.amount AND a.currency = p.currency AND a.expires_at >= p.expires_from
            AND o.placement = 'placed' AND o.created_at <= p.created_by AND o.amount = p.amount
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
  const { rows } = await q.query<MatchableOrderRow & { g: number }>(
    // Group by group through the assignments' index on (requisite, expiry), as `sameAmountOrders` does.
    `SELECT w.g, x.* FROM jsonb_to_recordset($1::jsonb) AS w(g int, requisite_ids text[], currency text, created_by timestamptz, expires_from timestamptz)
       CROSS JOIN LATERAL (
         SELECT o.id, o.amount, o.currency, o.status, o.created_at, o.expires_at, o.payer_reference, a.requisite_id, NULL::text AS matched_credit_id
           FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
          WHERE a.requisite_id = ANY(w.requisite_ids) AND a.currency = w.currency AND a.expires_at >= w.expires_from
            AND o.placement = 'placed' AND o.created_at <= w.created_by AND o.status <> 'Completed'
            AND NOT EXISTS (SELECT 1 FROM credits c WHERE c.order_id = o.id)
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
  completed_without_credit: number;
}

/**
 * One row per requisite of the provider for the UTC day [from, to): orders issued (placed, created
 * that day; an order is given its requisite within the cascade's 160 s of its creation, so the
 * assignments of the day and the hour after bound the scan), orders completed that day with their amounts and how many of them without a credit,
 * and every credit received on the requisite that day with how many are matched and unmatched.
 * Credits on no known requisite come as one row whose requisite_id is null.
 */
export async function dayRows(q: Queryable, providerId: string, from: Date, to: Date): Promise<DayRow[]> {
  const { rows } = await q.query<DayRow>(
    `WITH issued AS (
       SELECT a.requisite_id, count(*)::int AS n FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
        WHERE a.provider_id = $1 AND a.assigned_at >= $2 AND a.assigned_at < $3::timestamptz + interval '1 hour'
          AND o.placement = 'placed' AND o.created_at >= $2 AND o.created_at < $3 GROUP BY 1),
     completed AS (
       SELECT a.requisite_id, count(*)::int AS n, sum(o.amount) AS amount,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM credits c WHERE c.order_id = o.id))::int AS without_credit
         FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
        WHERE a.provider_id = $1 AND o.status = 'Completed' AND o.finished_at >= $2 AND o.finished_at < $3 GROUP BY 1),
     money AS (
       SELECT c.requisite_id, count(*)::int AS n, sum(c.amount) AS amount,
              count(*) FILTER (WHERE c.status = 'matched')::int AS matched, count(*) FILTER (WHERE c.status = 'unmatched')::int AS unmatched
         FROM credits c WHERE c.provider_id = $1 AND c.received_at >= $2 AND c.received_at < $3 GROUP BY 1),
     keys AS (
       SELECT id AS requisite_id, seq FROM requisites WHERE provider_id = $1
       UNION ALL SELECT NULL, NULL WHERE EXISTS (SELECT 1 FROM money WHERE requisite_id IS NULL))
     SELECT k.requisite_id, COALESCE(i.n, 0) AS orders_issued, COALESCE(d.n, 0) AS orders_completed, COALESCE(d.amount, 0)::numeric AS completed_amount,
            COALESCE(m.n, 0) AS credits, COALESCE(m.amount, 0)::numeric AS credits_amount, COALESCE(m.matched, 0) AS matched,
            COALESCE(m.unmatched, 0) AS unmatched, COALESCE(d.without_credit, 0) AS completed_without_credit
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

/** Credits in a status (the queue's count in the navigation: `credits_status_seq` answers it). */
export async function countCredits(q: Queryable, status: CreditStatus): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE status = $1', [status]);
  return rows[0]?.n ?? 0;
}

/** Unmatched credits per provider. */
export async function unmatchedByProvider(q: Queryable): Promise<{ provider_id: string; n: number }[]> {
  const { rows } = await q.query<{ provider_id: string; n: number }>(`SELECT provider_id, count(*)::int AS n FROM credits WHERE status = 'unmatched' GROUP BY provider_id`);
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
