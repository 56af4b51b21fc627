/**
 * The credit identity look-ups with their plans, on a database the volume tool filled with a pool
 * (`npm run seed:volume -- --orders N --credits C`): a feed request of 100 items and a statement
 * batch of 500 entries are recorded through the service's own functions (credits.ts `recordItems`,
 * `recordStatementEntries`, in a transaction rolled back), every statement they send is noted, and
 * the whole sequence is replayed under `EXPLAIN (ANALYZE, BUFFERS)`, in order, in one transaction
 * rolled back: once to warm the cache, once printed with the plan PostgreSQL makes for the values
 * (custom), and once as the service's connections end up running it (a prepared statement on a
 * generic plan, `plan_cache_mode = force_generic_plan`; but creditsByTerms, which the service
 * plans at each call).
 *
 *   DATABASE_URL=postgres://…/paygate_vol_credits MASTER_KEY=… npx tsx bench/credits-explain.ts
 *
 * The feed request: 40 items the feed sent before (ids and terms as recorded), 10 new ids for money
 * a statement recorded, 40 new credits on requisites' accounts (amounts of orders open now when
 * there are some), 5 masked cards and 5 accounts of no requisite. The statement batch, on one
 * statement requisite's account: 150 credits an earlier statement evidences (their bank
 * references), 150 the feed recorded and no statement evidences, 200 new. EXPLAIN_PLANS=1 prints
 * whole plans; otherwise each statement's scans and joins, its buffers and its time.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
// How the driver writes a value for the server (arrays as array literals, dates in ISO): the
// generic plans' EXECUTE takes the values as literals, as a utility statement takes no parameters.
// @ts-expect-error: the driver's helpers have no type declarations
import { prepareValue } from 'pg/lib/utils.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { recordItems, recordStatementEntries, type CreditInput } from '../src/reconciliation/credits.js';
import { insertStatement, zeroCounts } from '../src/reconciliation/statementStore.js';
import type { StatementEntry } from '../src/reconciliation/statements/types.js';
import { createLogger, createRuntime } from '../src/runtime.js';
import type { Db, Queryable } from '../src/store/db.js';

interface Noted {
  sql: string;
  params: readonly unknown[];
}

class Rollback extends Error {}

/** Runs `fn` in a transaction that is rolled back, noting every statement with parameters it sends. */
async function noted(db: Db, fn: (q: Queryable) => Promise<void>): Promise<Noted[]> {
  const out: Noted[] = [];
  const note = (sql: string, params: readonly unknown[] | undefined) => {
    if (!/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i.test(sql)) out.push({ sql, params: params ?? [] });
  };
  try {
    await db.tx(async (q) => {
      await fn({ query: (sql, params) => (note(sql, params), q.query(sql, params)), exec: (sql) => (note(sql, []), q.exec(sql)) });
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
  return out;
}

/** The function a statement comes from, by its text (src/reconciliation/store.ts, statementStore.ts). */
function nameOf(sql: string): string {
  const s = sql.replace(/\s+/g, ' ');
  const known: [RegExp, string][] = [
    [/pg_advisory_xact_lock/, 'lockTerms'],
    [/FROM credit_items WHERE provider_id = \$1 AND source = \$2 AND source_id/, 'itemsByIds'],
    [/entry_refs/, 'creditsByTerms'],
    [/FROM requisite_accounts a JOIN requisites r ON r.id = a.requisite_id WHERE a.provider_id = \$1 AND a.account = ANY/, 'requisitesByAccounts'],
    [/right\(a.account, length\(t.tail\)\)/, 'requisitesByTails'],
    [/INSERT INTO credits /, 'insertCredits'],
    [/INSERT INTO credit_items/, 'insertItems'],
    [/INSERT INTO statement_entries/, 'insertEntries (statement entry insert)'],
    [/UPDATE credits c SET in_statement = true/, 'markInStatement'],
    [/SELECT \* FROM credits WHERE id = ANY/, 'creditsByIds'],
    [/a.amount = p.amount/, 'sameAmountOrders'],
    [/NOT EXISTS \(SELECT 1 FROM credits c WHERE c.order_id = o.id\)/, 'waitingOrders'],
    [/FROM orders WHERE id = ANY\(\$1::text\[\]\) ORDER BY id FOR UPDATE/, 'lockedOrders'],
    [/INSERT INTO statements/, 'insertStatement'],
  ];
  return known.find(([re]) => re.test(s))?.[1] ?? s.slice(0, 70);
}

/** The lines of a plan worth keeping: scans, joins, sorts, the top node's buffers, the time. */
function keyLines(plan: string[]): string[] {
  if (process.env.EXPLAIN_PLANS) return plan;
  const out: string[] = [];
  let firstBuffers = true;
  for (const l of plan) {
    if (/Scan|Join|Nested Loop|Sort(?! Method)|Aggregate|Insert on|Update on|Function Scan|Result|Hash(?! Cond)|LockRows/.test(l) && !/Buffers|Sort Key|Cond|Filter/.test(l)) out.push(l.replace(/\(cost=[^)]*\)\s*/, ''));
    else if (/Buffers:/.test(l) && firstBuffers) {
      out.push(l);
      firstBuffers = false;
    } else if (/^(Planning|Execution) Time|Trigger /.test(l.trim())) out.push(l);
  }
  return out;
}

async function replay(client: pg.Client, statements: Noted[], how: 'custom' | 'generic', print: boolean): Promise<void> {
  await client.query('BEGIN');
  try {
    if (how === 'generic') await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    for (const [k, s] of statements.entries()) {
      const name = nameOf(s.sql);
      let plan: string[];
      if (/^\s*SET /i.test(s.sql)) {
        // A setting the function takes for its transaction (waitingOrders: no JIT; creditsByTerms:
        // planned at each call), taken here too; its end goes back to the plans asked for.
        await client.query(how === 'generic' && /plan_cache_mode = DEFAULT/.test(s.sql) ? 'SET LOCAL plan_cache_mode = force_generic_plan' : s.sql);
        if (print) console.log(`\n### ${s.sql}`);
        continue;
      } else if (s.params.length === 0) {
        plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
      } else if (how === 'custom') {
        plan = (await client.query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, values: s.params as unknown[] })).rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
      } else {
        const p = `explain_${k}`;
        await client.query(`PREPARE ${p} AS ${s.sql}`);
        const args = s.params.map((v) => {
          const text = prepareValue(v) as string | null;
          return text === null ? 'NULL' : client.escapeLiteral(text);
        }).join(', ');
        plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${p}(${args})`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
        await client.query(`DEALLOCATE ${p}`);
      }
      if (!print) continue;
      const time = plan.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
      console.log(`\n### ${name} (${how}): ${time}`);
      for (const l of keyLines(plan)) console.log(`    ${l.slice(0, 170)}`);
    }
  } finally {
    await client.query('ROLLBACK');
  }
}

async function main() {
  const config = parseConfig({ ...process.env, SEED_DEMO: 'false', ADMIN_TOKEN: 'explain-admin-token-0123456789' });
  if (!config.databaseUrl) throw new Error('DATABASE_URL: a PostgreSQL database the volume tool filled with a pool');
  const runtime = await createRuntime(config, { clock: systemClock, log: createLogger('silent') });
  const ctx = runtime.ctx;
  const db = ctx.db;
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
  const [pool] = await one<{ id: string }>(`SELECT id FROM providers WHERE kind = 'pool' ORDER BY created_at LIMIT 1`);
  if (!pool) throw new Error('no pool provider: generate with npm run seed:volume -- --orders N --credits C');
  const [size] = await one<{ credits: number; items: number; entries: number; statements: number; assignments: number }>(
    `SELECT (SELECT count(*)::int FROM credits) AS credits, (SELECT count(*)::int FROM credit_items) AS items, (SELECT count(*)::int FROM statement_entries) AS entries,
            (SELECT count(*)::int FROM statements) AS statements, (SELECT count(*)::int FROM requisite_assignments) AS assignments`,
  );
  console.log(`# credit identity look-ups: ${JSON.stringify(size)}`);
  const now = new Date(ctx.clock.now());
  const input = (c: { account: string; amount: string; received_at: Date; bank_reference: string | null }, sourceId: string): CreditInput => ({
    sourceId, account: c.account, amount: c.amount, currency: 'RUB', receivedAt: c.received_at, dateOnly: false, payer: 'IVAN I.', reference: null, bankReference: c.bank_reference,
  });
  type Row = { id: string; account: string; amount: string; received_at: Date; bank_reference: string | null; source_id: string };
  // Credits from all over the history, the same ones on every run.
  const spreadOf = (where: string, n: number) =>
    one<Row>(`SELECT c.id, c.account, c.amount::text AS amount, c.received_at, c.bank_reference, c.source_id FROM credits c WHERE ${where} ORDER BY md5(c.id) LIMIT ${n}`);

  // ---- the feed: 100 items
  const sentBefore = await spreadOf(`c.provider_id = '${pool.id}' AND c.source = 'feed' AND c.account NOT LIKE '%*%'`, 40);
  const statementMoney = await spreadOf(`c.provider_id = '${pool.id}' AND c.source = 'statement' AND NOT EXISTS (SELECT 1 FROM credit_items i WHERE i.credit_id = c.id)`, 10);
  const [card] = await one<{ account: string }>(`SELECT a.account FROM requisite_accounts a WHERE a.provider_id = $1 AND a.account ~ '^[0-9]{16}$' LIMIT 1`, [pool.id]);
  const open = await one<{ account: string; amount: string }>(
    `SELECT ra.account, a.amount::text AS amount FROM requisite_assignments a JOIN requisite_accounts ra ON ra.requisite_id = a.requisite_id AND ra.account ~ '^[0-9]+$'
      WHERE a.provider_id = $1 AND a.expires_at > now() AND a.order_status = 'Created' LIMIT 40`,
    [pool.id],
  );
  const accounts = await one<{ account: string }>(`SELECT DISTINCT ON (requisite_id) account FROM requisite_accounts WHERE provider_id = $1 AND account ~ '^[0-9]+$' ORDER BY requisite_id LIMIT 40`, [pool.id]);
  const run = randomBytes(4).toString('hex');
  const fresh = Array.from({ length: 40 }, (_, k) => open[k] ?? { account: accounts[k % accounts.length]!.account, amount: `${1000 + k}.00` });
  const items: CreditInput[] = [
    ...sentBefore.map((c) => input(c, c.source_id)),
    ...statementMoney.map((c, k) => input(c, `explain-${run}-found-${k}`)),
    ...fresh.map((c, k) => input({ ...c, received_at: now, bank_reference: null }, `explain-${run}-new-${k}`)),
    ...Array.from({ length: 5 }, (_, k) => input({ account: `2200 **** **** ${card!.account.slice(-4)}`, amount: `${2000 + k}.00`, received_at: now, bank_reference: null }, `explain-${run}-masked-${k}`)),
    ...Array.from({ length: 5 }, (_, k) => input({ account: `2202${String(k).padStart(12, '7')}`, amount: `${3000 + k}.00`, received_at: now, bank_reference: null }, `explain-${run}-unknown-${k}`)),
  ];
  const feed = await noted(db, async (q) => {
    await recordItems(q, ctx, pool.id, items, 'feed');
  });

  // ---- a statement batch: 500 entries on one statement requisite's account
  const [acct] = await one<{ account: string; requisite_id: string }>(
    `SELECT s.accounts->>0 AS account, ra.requisite_id FROM statements s JOIN requisite_accounts ra ON ra.account = s.accounts->>0 AND ra.provider_id = s.provider_id
      WHERE s.provider_id = $1 GROUP BY 1, 2 ORDER BY count(*) DESC, 1 LIMIT 1`,
    [pool.id],
  );
  const evidenced = await one<Row>(`SELECT id, account, amount::text AS amount, received_at, bank_reference, source_id FROM credits WHERE requisite_id = $1 AND in_statement ORDER BY seq DESC LIMIT 150`, [acct!.requisite_id]);
  // Money the feed recorded and no statement evidences: the account's latest weeks, then other accounts' (a statement of several accounts).
  const fedOnly = await one<Row>(`SELECT id, account, amount::text AS amount, received_at, bank_reference, source_id FROM credits WHERE provider_id = $1 AND NOT in_statement AND requisite_id IS NOT NULL
                                   ORDER BY requisite_id = $2 DESC, seq DESC LIMIT 150`, [pool.id, acct!.requisite_id]);
  const entryOf = (index: number, c: { account?: string; amount: string; received_at: Date; bank_reference: string | null }): StatementEntry => ({
    index, kind: 'credit', account: c.account ?? acct!.account, amount: c.amount, currency: 'RUB', receivedAt: c.received_at.toISOString(), dateOnly: false,
    payer: 'IVAN I.', reference: 'Card transfer', bankReference: c.bank_reference ?? `EXPLAIN-${run}-${index}`, sourceId: null, problem: null,
  });
  const known = [...evidenced, ...fedOnly];
  const entries: StatementEntry[] = [
    ...known.map((c, k) => entryOf(k + 1, c)),
    ...Array.from({ length: 500 - known.length }, (_, k) => entryOf(known.length + k + 1, { amount: `${4000 + k}.${String(k % 100).padStart(2, '0')}`, received_at: new Date(now.getTime() - 3_600_000), bank_reference: null })),
  ];
  const statement = await noted(db, async (q) => {
    const s = await insertStatement(q, {
      id: `stm_explain${run}${'0'.repeat(14)}`, providerId: pool.id, filename: 'explain.xml', sha256: randomBytes(32).toString('hex'), format: 'camt.053', version: '001.08',
      accounts: [acct!.account], accountKeys: [acct!.account], periodFrom: null, periodTo: null, sections: [], balanceCheck: 'not stated', balanceDifference: null,
      continuity: 'not stated', gapFrom: null, gapTo: null, counts: { ...zeroCounts(), entries: entries.length }, uploadedBy: 'explain', at: now,
    });
    await recordStatementEntries(q, ctx, pool.id, s!.id, entries);
  });
  console.log(`\nfeed request: ${items.length} items (${sentBefore.length} sent before, ${statementMoney.length} of statement money, ${fresh.length} new of which ${Math.min(open.length, 40)} of open orders' amounts, 5 masked, 5 unknown): ${feed.length} statements`);
  console.log(`statement batch: ${entries.length} entries on ${acct!.account} (${evidenced.length} evidenced before, ${fedOnly.length} fed only, ${entries.length - known.length} new): ${statement.length} statements`);

  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    for (const [title, statements] of [['feed request', feed], ['statement batch', statement]] as const) {
      await replay(client, statements, 'custom', false);
      for (const how of ['custom', 'generic'] as const) {
        console.log(`\n## ${title}, ${how} plans`);
        await replay(client, statements, how, true);
      }
    }
  } finally {
    await client.end();
    await runtime.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
