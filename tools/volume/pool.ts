/**
 * The pool provider of the volume tool (`--pool`, `--credits C`, `--requisites R`): its requisites,
 * decided in TypeScript (a few hundred), and the SQL that writes, from the orders' paths, what a
 * pool leaves behind in a year: the requisite each of its orders was given (`requisite_assignments`),
 * the money seen arriving on its requisites (`credits`), the feed's and the operators' item ids
 * with their terms (`credit_items`), and weekly bank statements of a quarter of the requisites with
 * every entry (`statements`, `statement_entries`), all as the service records them
 * (src/reconciliation/credits.ts `recordItems`, `recordStatementEntries`; statementImport.ts).
 *
 * Which orders: a share of the live Classic RUB orders on the rails Sbp and C2c (SBP phones and
 * cards), chosen by hash so that about 85 % of the credits pay one of them. Such an order is never
 * reported paid by a provider: it is completed by the matcher the moment the feed brings its money
 * (within a minute of the money, before it expires), audited by `matcher` with the credit, or, for
 * 3 % of them, confirmed by hand without a credit. Every other credit matched none: an account that
 * names no requisite (8 %), or an amount of no order; those older than two weeks are mostly ignored
 * by an operator, with a reason and an audit entry.
 *
 * Where each credit came from: the feed (with its transaction id and terms in `credit_items`), an
 * operator by hand (3 % of the unmatched, `op_…` ids), or the weekly statement of its requisite (30 %
 * of the unmatched on those requisites). A statement is uploaded each Tuesday morning for the week
 * before, for every card requisite whose number is a multiple of 4, from the period's first week to
 * the last one uploaded by now: its entries are the week's credits on the account in time order
 * (`duplicate` for money the feed or an operator had recorded, `new` for money only it saw) and
 * the week's payout (a debit, `skipped`); its balances add up and continue the week before. A credit
 * a statement evidences carries the bank's reference it gave (`markInStatement`).
 *
 * Every decision is a hash of the order's or the credit's number, as in the rest of the tool.
 */
import { createHmac } from 'node:crypto';
import { checkRequisite } from '../../src/domain/requisites.js';
import { DAY_MS, hexId, HOUR_MS, prng, tsOf, type Draws } from './plan.js';

export const POOL_CAPABILITIES = [
  { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
  { method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
];

/** Share of the credits that pay an order, which the pool's share of the orders is sized for. */
export const MATCHED_SHARE = 0.85;
/** Of the orders the pool served, those completed with a credit: paid (71 %), less the 3 % confirmed by hand. */
const PAID_WITH_CREDIT = 0.71 * 0.97;
/** Accounts that name no requisite among the unmatched credits, in percent. */
const UNKNOWN_ACCOUNT_PERCENT = 8;
const WEEK_MS = 7 * DAY_MS;
/** The epoch was a Thursday: weeks start on Monday, 4 days later. */
const MONDAY_MS = 4 * DAY_MS;

export interface PoolRequisite {
  k: number;
  /** Position among the requisites of its kind. */
  n: number;
  id: string;
  kind: 'card' | 'phone';
  payment: Record<string, string>;
  /** The account as the feed writes it: a card's 16 digits, a phone with its country code. */
  account: string;
  /** The account as its bank statement writes it (cards only). */
  digits: string;
  /** Weekly statements are uploaded for it. */
  statements: boolean;
}

export interface PoolPlan {
  id: string;
  key: string;
  secret: string;
  requisites: PoolRequisite[];
  cards: number;
  phones: number;
}

const HOLDERS = ['Ivan P.', 'Olga S.', 'Pavel K.', 'Anna M.', 'Sergey V.', 'Maria N.', 'Dmitry T.', 'Elena L.'];
const BANKS = ['Bank Alfa', 'Bank Sever', 'Bank Volga', 'Bank Ural', 'Bank Neva'];
const PAYERS = ['IVAN I.', 'OLGA P.', 'ANNA S.', 'PAVEL K.', 'MARIA V.', 'DMITRY N.', 'ELENA T.', 'SERGEY L.', 'ARTEM M.'];
const IGNORE_REASONS = ['refund to the payer', 'not a customer payment', 'transfer between own accounts', 'duplicate of a payment already credited'];

/**
 * The requisites: even numbers cards, odd ones SBP phones; every account ends with the requisite's
 * number in four digits, so a masked account (`*0042`) names exactly one of them, as it must for
 * the service to resolve it.
 */
export function planPool(seed: number, count: number): PoolPlan {
  const rnd = prng(seed ^ 0x9001);
  const digits = (len: number) => Array.from({ length: len }, () => String(Math.floor(rnd() * 10))).join('');
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const requisites: PoolRequisite[] = [];
  for (let k = 0; k < count; k++) {
    const tail = String(k).padStart(4, '0');
    const holder = pick(HOLDERS);
    if (k % 2 === 0) {
      const card = `220077${digits(6)}${tail}`;
      requisites.push({
        k, n: k / 2, id: `rqs_${hexId(seed, `requisite:${k}`)}`, kind: 'card',
        payment: { card: card.replace(/(\d{4})(?=\d)/g, '$1 '), bank: pick(BANKS), holder },
        account: card, digits: card, statements: k % 4 === 0,
      });
    } else {
      const national = `9${digits(5)}${tail}`;
      requisites.push({
        k, n: (k - 1) / 2, id: `rqs_${hexId(seed, `requisite:${k}`)}`, kind: 'phone',
        payment: { phone: `+7 ${national.slice(0, 3)} ${national.slice(3, 6)}-${national.slice(6, 8)}-${national.slice(8)}`, bank: pick(BANKS), holder },
        account: `7${national}`, digits: `7${national}`, statements: false,
      });
    }
  }
  return {
    id: `prv_${hexId(seed, 'provider:pool')}`,
    key: `pvk_${hexId(seed, 'pool-key')}`,
    secret: `sk_${createHmac('sha256', `paygate-volume-${seed}`).update('pool-secret').digest('base64url')}`,
    requisites,
    cards: requisites.filter((r) => r.kind === 'card').length,
    phones: requisites.filter((r) => r.kind === 'phone').length,
  };
}

/** The requisite's terms as an operator would enter them (checked by the service's own rules). */
export const requisiteTerms = (r: PoolRequisite) =>
  checkRequisite({ payment: r.payment, currency: 'RUB', rails: [r.kind === 'card' ? 'C2c' : 'Sbp'], maxOpenOrders: 30, label: `${r.kind === 'card' ? 'Card' : 'SBP'} ${String(r.k).padStart(4, '0')}` }, POOL_CAPABILITIES);

/**
 * Of the eligible orders, the share (parts per million) the pool serves: enough for `MATCHED_SHARE`
 * of the credits to pay one, all of them at most. `eligibleShare`: the eligible orders' share of all.
 */
export function poolShare(orders: number, credits: number, eligibleShare: number): number {
  if (credits === 0 || eligibleShare === 0) return 0;
  return Math.min(1_000_000, Math.round((1_000_000 * MATCHED_SHARE * credits) / (orders * eligibleShare * PAID_WITH_CREDIT)));
}

/** The SQL of `_v_paths` that decides an order's pool, requisite and payment (see generate.ts `pathsSql`). */
export function poolPathSql(d: Draws, plan: PoolPlan | null, sharePpm: number): { columns: string; joins: string; provider: string; payment: string } {
  if (!plan || sharePpm === 0) return { columns: 'false AS pool, NULL::text AS requisite_id', joins: '', provider: '', payment: 'pay.payment' };
  return {
    columns: 'pl.pool, rq.id AS requisite_id',
    joins: `
                  CROSS JOIN LATERAL (SELECT (NOT dk.sandbox AND dk.method = 'Classic' AND dk.currency = 'RUB' AND x.rail IN ('Sbp', 'C2c')
                                              AND ${d.h('b.i', 28)} % 1000000 < ${sharePpm}) AS pool) pl
                  LEFT JOIN _v_req rq ON pl.pool AND rq.kind = CASE x.rail WHEN 'C2c' THEN 'card' ELSE 'phone' END
                                     AND rq.n = ${d.h('b.i', 29)} % CASE x.rail WHEN 'C2c' THEN ${plan.cards} ELSE ${plan.phones} END`,
    provider: `WHEN pl.pool THEN '${plan.id}' `,
    payment: 'CASE WHEN pl.pool THEN rq.payment ELSE pay.payment END',
  };
}

/** The working table of the requisites, for the statements in SQL. */
export async function writePoolTable(q: { exec(sql: string): Promise<unknown>; query(sql: string, params: unknown[]): Promise<unknown> }, plan: PoolPlan): Promise<void> {
  await q.exec(`CREATE TEMP TABLE _v_req (k int PRIMARY KEY, n int NOT NULL, id text NOT NULL UNIQUE, kind text NOT NULL, payment jsonb NOT NULL,
    account text NOT NULL, digits text NOT NULL, stmt boolean NOT NULL) ON COMMIT DROP`);
  const r = plan.requisites;
  await q.query(`INSERT INTO _v_req SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::boolean[])`, [
    r.map((x) => x.k), r.map((x) => x.n), r.map((x) => x.id), r.map((x) => x.kind), r.map((x) => JSON.stringify(x.payment)),
    r.map((x) => x.account), r.map((x) => x.digits), r.map((x) => x.statements),
  ]);
  await q.exec('ANALYZE _v_req');
}

/** The assignment of every order the pool served, with its order's state as the trigger keeps it (migration 0020). */
export function assignmentsSql(d: Draws, statusOfKind: string): string {
  return `
INSERT INTO requisite_assignments (order_id, requisite_id, provider_id, amount, currency, rail, expires_at, assigned_at, order_status, order_placement, order_finished_at)
SELECT id, requisite_id, provider_id, amount, currency, rail, ${tsOf('c + life * 60000')}, ${tsOf(`c + 40 + ${d.h('i', 30)} % 1500`)}, ${statusOfKind}, 'placed', ${tsOf('fin')}
  FROM _v_paths WHERE pool;
UPDATE requisites r SET last_used_at = s.at FROM (SELECT requisite_id, max(assigned_at) AS at FROM requisite_assignments GROUP BY 1) s WHERE r.id = s.requisite_id`;
}

/** The orders of the pool that were paid with a credit, in order (at most `credits` are given one). */
export const paidWithCreditSql = (d: Draws) => `_v_paths p WHERE p.pool AND p.kind = 'done' AND ${d.h('p.i', 16)} % 100 >= 3`;

/** When the statement of requisite `k` for the week starting at `week` (ms) is uploaded: the Tuesday after, 06:00–12:00 UTC. */
const uploadMs = (d: Draws, k: string, week: string) => `(${week} + ${WEEK_MS + DAY_MS + 6 * HOUR_MS} + ${d.h(`${k} * 100000 + ${week} / ${WEEK_MS}`, 80)} % ${6 * HOUR_MS})`;

export interface CreditCounts {
  orders: number;
  credits: number;
  /** Credits that pay an order: min(credits, the pool's orders paid with a credit). */
  matched: number;
  requisites: number;
  startMs: number;
  nowMs: number;
  cut: number;
}

/**
 * `_v_credits`: every credit, numbered (`n`): first those that paid an order (received when the
 * order was paid, recorded when it was completed), then the rest, received at the moments of the
 * orders spread evenly over them (so they follow the platform's daily and weekly rhythm and its
 * growth), with everything the rows written from it need.
 */
export function creditsSql(d: Draws, poolId: string, c: CreditCounts): string {
  const unmatched = c.credits - c.matched;
  const h = (s: number) => d.h('n', s);
  // Amounts as the orders' are drawn: 300–5,000 RUB mostly, up to 150,000; four in five whole roubles.
  const cents = (n: string) =>
    `CASE WHEN ${d.h(n, 78)} % 100 < 60 THEN 30000 + ${d.h(n, 79)} % 470000 WHEN ${d.h(n, 78)} % 100 < 90 THEN 500000 + ${d.h(n, 79)} % 2500000 ELSE 3000000 + ${d.h(n, 79)} % 12000000 END`;
  const unmatchedSql = unmatched === 0 ? '' : `
UNION ALL
SELECT u.n, NULL, CASE WHEN ${d.h('u.n', 71)} % 100 < ${UNKNOWN_ACCOUNT_PERCENT} THEN NULL ELSE rq.id END,
       (((CASE WHEN ${d.h('u.n', 77)} % 5 <> 0 THEN y.cents - y.cents % 100 ELSE y.cents END))::numeric / 100)::numeric(24, 2),
       least(b.c + ${d.h('u.n', 73)} % ${HOUR_MS}, ${c.cut}), NULL::int8, false
  FROM generate_series(${c.matched + 1}::int8, ${c.credits}::int8) AS u(n)
  CROSS JOIN LATERAL (SELECT ${cents('u.n')} AS cents) y
  JOIN _v_paths b ON b.i = 1 + ((u.n - ${c.matched + 1}) * ${c.orders}) / ${unmatched}
  JOIN _v_req rq ON rq.k = ${d.h('u.n', 72)} % ${c.requisites}`;
  return `
CREATE TEMP TABLE _v_cr ON COMMIT DROP AS
SELECT m.n, m.order_id, m.requisite_id, m.amount, m.received, m.made AS paid_made, true AS matched
  FROM (SELECT row_number() OVER (ORDER BY p.i) AS n, p.id AS order_id, p.requisite_id, p.amount, p.paid AS received, p.fin AS made
          FROM ${paidWithCreditSql(d)}) m
 WHERE m.n <= ${c.matched}${unmatchedSql};
CREATE TEMP TABLE _v_credits ON COMMIT DROP AS
SELECT z.*, 'crd_' || ${d.id('z.n', 110, 'z.made')} AS id, row_number() OVER (ORDER BY z.made, z.n) AS seq,
       (${tsOf('z.received')} AT TIME ZONE 'UTC')::date AS booking_day,
       CASE WHEN z.requisite_id IS NULL THEN 'raw:' || z.account ELSE z.requisite_id END AS account_key,
       CASE WHEN z.status = 'ignored' THEN least(z.made + ${HOUR_MS} + ${d.h('z.n', 76)} % ${3 * DAY_MS}, ${c.cut}) END AS ignored_at
  FROM (
    SELECT y.*,
           CASE WHEN y.source = 'statement' THEN y.up
                WHEN y.matched THEN y.paid_made
                -- Entered by hand within a day, so before the week's statement came (the Tuesday after).
                WHEN y.source = 'operator' THEN least(y.received + ${HOUR_MS} + ${h(81)} % ${23 * HOUR_MS}, ${c.cut})
                ELSE least(y.received + 5000 + ${h(81)} % 295000, ${c.cut}) END AS made,
           CASE WHEN y.source IN ('feed', 'operator') THEN
                  CASE WHEN y.source = 'operator' THEN 'op_' || substr(md5('${poolId}:' || y.n), 1, 26) ELSE 'tx-' || lpad(to_hex(${h(88)}), 16, '0') END
                ELSE y.bref END AS source_id,
           CASE WHEN y.evidenced OR ${h(87)} % 2 = 0 THEN y.bref END AS bank_reference,
           CASE WHEN y.matched THEN 'matched' WHEN y.received < ${c.nowMs - 14 * DAY_MS} AND ${h(75)} % 100 < 70 THEN 'ignored' ELSE 'unmatched' END AS status,
           CASE WHEN y.matched THEN NULL
                WHEN y.received < ${c.nowMs - 14 * DAY_MS} AND ${h(75)} % 100 < 70 THEN (ARRAY[${IGNORE_REASONS.map((r) => `'${r}'`).join(', ')}])[${h(82)} % ${IGNORE_REASONS.length} + 1]
                WHEN y.requisite_id IS NULL THEN 'unknown account' ELSE 'no order' END AS reason,
           CASE WHEN ${h(85)} % 10 = 0 THEN NULL ELSE (ARRAY[${PAYERS.map((p) => `'${p}'`).join(', ')}])[${h(86)} % ${PAYERS.length} + 1] END AS payer,
           CASE WHEN y.source = 'statement' THEN y.digits
                WHEN y.requisite_id IS NULL THEN '2202' || lpad((${h(83)} % 1000000000000)::text, 12, '0')
                WHEN y.kind = 'card' AND ${h(84)} % 100 < 3 THEN '2200 **** **** ' || right(y.digits, 4)
                WHEN y.kind = 'phone' AND ${h(84)} % 2 = 0 THEN '+' || y.digits
                ELSE y.digits END AS account
      FROM (
        SELECT x.*,
               CASE WHEN x.matched THEN 'feed'
                    WHEN x.evidenced AND ${d.h('x.n', 74)} % 10 < 3 THEN 'statement'
                    WHEN x.requisite_id IS NOT NULL AND ${d.h('x.n', 74)} % 100 >= 97 THEN 'operator'
                    ELSE 'feed' END AS source
          FROM (
            SELECT r.*, rq.k, rq.kind, rq.digits, w.week, w.up, coalesce(rq.stmt AND w.up <= ${c.cut}, false) AS evidenced,
                   upper(lpad(to_hex(${d.h('r.n', 89)}), 16, '0')) AS bref
              FROM _v_cr r
              LEFT JOIN _v_req rq ON rq.id = r.requisite_id
              CROSS JOIN LATERAL (SELECT r.received - (r.received - ${MONDAY_MS}) % ${WEEK_MS} AS week) w0
              CROSS JOIN LATERAL (SELECT w0.week, CASE WHEN rq.stmt THEN ${uploadMs(d, 'rq.k', 'w0.week')} END AS up) w
          ) x
      ) y
  ) z`;
}

/**
 * `_v_stmts`: the weekly statements of the statement requisites, each with its week's credits
 * summed, the payout, the balances carried from the week before, and its place in the upload order.
 */
export function statementsSql(d: Draws, c: CreditCounts, operatorIds: readonly string[]): string {
  const firstWeek = c.startMs - ((c.startMs - MONDAY_MS) % WEEK_MS);
  const lastWeek = c.cut - ((c.cut - MONDAY_MS) % WEEK_MS);
  return `
CREATE TEMP TABLE _v_stmts ON COMMIT DROP AS
SELECT t.*, 'stm_' || ${d.id('t.k * 100000 + t.week / ' + WEEK_MS, 111, 't.up')} AS id, row_number() OVER (ORDER BY t.up, t.k) AS seq,
       t.closing - t.credited + t.debit AS opening,
       t.n + (t.debit > 0)::int AS entries,
       t.up + 300 + (t.n + 1) * 3 AS finished,
       (ARRAY[${operatorIds.map((x) => `'${x}'`).join(', ')}])[${d.h('t.k * 100000 + t.week / ' + WEEK_MS, 90)} % ${operatorIds.length} + 1] AS uploaded_by
  FROM (
    SELECT s.*, 100000 + sum(s.credited - s.debit) OVER (PARTITION BY s.k ORDER BY s.week) AS closing,
           CASE WHEN row_number() OVER (PARTITION BY s.k ORDER BY s.week) = 1 THEN 'first' ELSE 'continuous' END AS continuity
      FROM (
        SELECT g.*, coalesce(e.n, 0) AS n, coalesce(e.dup, 0) AS dup, coalesce(e.credited, 0)::numeric(24, 2) AS credited,
               trunc(coalesce(e.credited, 0) * (80 + ${d.h('g.k * 100000 + g.week / ' + WEEK_MS, 91)} % 20) / 100, 2)::numeric(24, 2) AS debit
          FROM (
            SELECT rq.k, rq.id AS requisite_id, rq.digits, w AS week, ${uploadMs(d, 'rq.k', 'w')} AS up
              FROM _v_req rq CROSS JOIN generate_series(${firstWeek}::int8, ${lastWeek}::int8, ${WEEK_MS}::int8) AS w
             WHERE rq.stmt
          ) g
          LEFT JOIN (SELECT requisite_id, week, count(*)::int AS n, count(*) FILTER (WHERE source <> 'statement')::int AS dup, sum(amount) AS credited
                       FROM _v_credits WHERE evidenced GROUP BY 1, 2) e ON e.requisite_id = g.requisite_id AND e.week = g.week
         WHERE g.up <= ${c.cut}
      ) s
  ) t`;
}

/** Dates of a week: its Monday and Sunday, `YYYY-MM-DD`. */
const dayOf = (ms: string) => `to_char(${tsOf(ms)} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/** The rows: statements, credits, items, entries (in the order their keys need). */
export function poolRowsSql(poolId: string): string {
  const balance = (amount: string, day: string) => `jsonb_build_object('amount', (${amount})::numeric(24, 2)::text, 'currency', 'RUB', 'date', ${day})`;
  return `
INSERT INTO statements (id, seq, provider_id, filename, sha256, format, version, accounts, account_keys, period_from, period_to, sections,
                        balance_check, balance_difference, continuity, gap_from, gap_to, state, counts, uploaded_by, created_at, updated_at)
SELECT s.id, s.seq, '${poolId}', 'statement-' || right(s.digits, 4) || '-' || ${dayOf('s.week')} || '.xml',
       encode(sha256(convert_to(s.id, 'UTF8')), 'hex'), 'camt.053', '001.08', jsonb_build_array(s.digits), ARRAY[s.digits],
       ${tsOf('s.week')}::date, ${tsOf(`s.week + ${6 * DAY_MS}`)}::date,
       jsonb_build_array(jsonb_build_object('account', s.digits, 'accountKey', s.digits, 'from', ${dayOf('s.week')}, 'to', ${dayOf(`s.week + ${6 * DAY_MS}`)},
         'opening', ${balance('s.opening', dayOf('s.week'))}, 'closing', ${balance('s.closing', dayOf(`s.week + ${6 * DAY_MS}`))},
         'credits', s.credited::text, 'debits', s.debit::text, 'unreadable', 0, 'balanceCheck', 'consistent', 'difference', NULL,
         'continuity', s.continuity, 'gap', NULL)),
       'consistent', NULL, s.continuity, NULL, NULL, 'recorded',
       jsonb_build_object('entries', s.entries, 'credits', s.n, 'duplicates', s.dup, 'matched', 0, 'unmatched', s.n - s.dup,
                          'skipped', s.entries - s.n, 'unreadable', 0, 'recordedUpTo', s.entries),
       s.uploaded_by, ${tsOf('s.up')}, ${tsOf('s.finished')}
  FROM _v_stmts s;
INSERT INTO credits (id, seq, provider_id, requisite_id, account, amount, currency, received_at, date_only, payer, reference, source, source_id,
                     status, reason, order_id, matched_by, candidates, difference, created_at, updated_at,
                     account_key, booking_day, bank_reference, in_statement, legacy_statement, statement_id)
SELECT c.id, c.seq, '${poolId}', c.requisite_id, c.account, c.amount, 'RUB', ${tsOf('c.received')}, false, c.payer, NULL, c.source, c.source_id,
       c.status, c.reason, c.order_id, CASE WHEN c.matched THEN 'amount' END, '[]'::jsonb, NULL, ${tsOf('c.made')},
       ${tsOf('greatest(c.made, coalesce(s.finished, 0), coalesce(c.ignored_at, 0))')},
       c.account_key, c.booking_day, c.bank_reference, c.evidenced, false, CASE WHEN c.source = 'statement' THEN s.id END
  FROM _v_credits c LEFT JOIN _v_stmts s ON c.evidenced AND s.requisite_id = c.requisite_id AND s.week = c.week;
-- Their daily rollup as its trigger would have written it (no credit here is matched by a person).
INSERT INTO credit_days (provider_id, day, requisite_id, status, credits, amount)
SELECT '${poolId}', (${tsOf('c.received')} AT TIME ZONE 'UTC')::date, COALESCE(c.requisite_id, ''), c.status, count(*), sum(c.amount)
  FROM _v_credits c GROUP BY 2, 3, 4;
INSERT INTO credit_items (provider_id, source, source_id, account_key, currency, amount, booking_day, credit_id, created_at)
SELECT '${poolId}', c.source, c.source_id, c.account_key, 'RUB', c.amount, c.booking_day, c.id, ${tsOf('c.made')}
  FROM _v_credits c WHERE c.source IN ('feed', 'operator');
INSERT INTO statement_entries (statement_id, idx, kind, account, amount, currency, booking_date, received_at, bank_reference, source_ref, payer, reference, outcome, credit_id, problem)
SELECT s.id, row_number() OVER (PARTITION BY s.id ORDER BY c.received, c.n)::int, 'credit', s.digits, c.amount, 'RUB', c.booking_day, ${tsOf('c.received')},
       c.bank_reference, c.bank_reference, c.payer, 'Card transfer', CASE WHEN c.source = 'statement' THEN 'new' ELSE 'duplicate' END, c.id, NULL
  FROM _v_credits c JOIN _v_stmts s ON s.requisite_id = c.requisite_id AND s.week = c.week
 WHERE c.evidenced
UNION ALL
SELECT s.id, s.n + 1, 'debit', s.digits, s.debit, 'RUB', ${tsOf(`s.week + ${6 * DAY_MS}`)}::date, ${tsOf(`s.week + ${6 * DAY_MS + 20 * HOUR_MS}`)},
       'P' || upper(substr(s.id, 5, 15)), NULL, NULL, 'Payout to the pool', 'skipped', NULL, NULL
  FROM _v_stmts s WHERE s.debit > 0`;
}

/** The audit entries the pool's year leaves: the matcher's confirmations, ignored credits, statement uploads. */
export function poolAuditSql(d: Draws, poolId: string, actor: (expr: string) => string): string {
  return `
    UNION ALL
    SELECT ${tsOf('c.made')}, 'matcher', 'order.confirm', c.order_id, c.id FROM _v_credits c WHERE c.matched
    UNION ALL
    SELECT ${tsOf('c.ignored_at')}, ${actor('c.n')}, 'credit.ignore', c.id, c.reason FROM _v_credits c WHERE c.status = 'ignored'
    UNION ALL
    SELECT ${tsOf('s.finished')}, s.uploaded_by, 'provider.statement', '${poolId}',
           s.id || ' camt.053: entries ' || s.entries || ', credits ' || s.n || ', duplicates ' || s.dup || ', matched 0, unmatched ' || (s.n - s.dup)
             || ', skipped ' || (s.entries - s.n) || ', unreadable 0'
      FROM _v_stmts s`;
}
