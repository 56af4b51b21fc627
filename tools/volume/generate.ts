/**
 * A year of a busy platform's data, written the way the service writes it (`npm run
 * seed:volume`, described in bench/README.md). The small tables (merchants, desks, users, providers, tariffs, rates) go through
 * the store's own statements; the big ones (orders and everything that follows from them) are
 * made by set-based statements inside the database, with the big tables' indexes and keys dropped
 * first and built again at the end, as a bulk load is done. All of it is one transaction: a run
 * that fails leaves the database as it found it (migrated, and empty).
 */
import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import type { Db, Queryable } from '../../src/store/db.js';
import type { SecretBox } from '../../src/secretbox.js';
import { hashPassword } from '../../src/services/passwords.js';
import { insertMerchant, setMerchantStatus } from '../../src/store/merchants.js';
import { insertTariff } from '../../src/store/tariffs.js';
import { setManualRate, upsertCurrency } from '../../src/store/currencies.js';
import { insertOperator, insertUser } from '../../src/store/accounts.js';
import { insertProvider } from '../../src/store/providers.js';
import {
  DAY_MS,
  Draws,
  HOUR_MS,
  SETTLE_MS,
  SLOTS,
  apportion,
  hexId,
  REQUISITES_PER_KIND,
  lifetimeSql,
  msOf,
  periodStart,
  planDesks,
  planHours,
  planMerchants,
  planRequisites,
  times,
  tsOf,
  type DeskPlan,
  type MerchantPlan,
} from './plan.js';
import {
  assignmentsSql,
  creditsSql,
  paidWithCreditSql,
  planPool,
  POOL_CAPABILITIES,
  poolAuditSql,
  poolPathSql,
  poolRowsSql,
  poolShare,
  requisiteTerms,
  statementsSql,
  writePoolTable,
  type CreditCounts,
  type PoolPlan,
} from './pool.js';
import { insertRequisite } from '../../src/store/requisites.js';

export interface VolumeOptions {
  orders: number;
  merchants: number;
  months: number;
  seed: number;
  /** "Now": the history ends here (ms since the epoch). */
  nowMs: number;
  /** Seals the desk and provider secrets (the service's master key). */
  box: SecretBox;
  /** scrypt cost of the two accounts printed (the service's PASSWORD_SCRYPT_LOG2N). */
  scryptLog2N: number;
  /** Progress lines (stderr in the command). */
  log?: (line: string) => void;
  /** Where the live providers' connector listens (`tools/mock-provider.ts` by default). */
  providerBaseUrl?: string;
  /**
   * RETENTION_DAYS and RETENTION_ARCHIVE of the service the data is for (90, true by default):
   * delivered callbacks older than that are written where retention would have moved them.
   */
  retentionDays?: number;
  retentionArchive?: boolean;
  /** Labels of bulk statements to run under EXPLAIN ANALYZE, their plans logged (VOLUME_EXPLAIN). */
  explain?: readonly string[];
  /** Credits of a pool provider (tools/volume/pool.ts); 0 or none: no pool provider. */
  credits?: number;
  /** Requisites of the pool provider (200 by default). */
  requisites?: number;
}

export interface VolumeResult {
  orders: number;
  merchant: { id: string; email: string; password: string; deskId: string; deskKey: string; deskSecret: string };
  operator: { email: string; password: string };
  sampleOrderIds: string[];
  sampleOrderRefs: string[];
  samplePayerReferences: string[];
  days: string[];
  /** The pool provider, with `--pool` or `--credits`: its feed's credentials and samples; null without one. */
  pool: PoolResult | null;
}

export interface PoolResult {
  id: string;
  /** What the credit feed signs with (`POST /providers/v1/{id}/credits`). */
  key: string;
  secret: string;
  requisites: number;
  credits: number;
  matched: number;
  statements: number;
  /** Up to 100 credit ids spread over the period, in the order they were recorded. */
  sampleCreditIds: string[];
  /** Ten UTC days with credits, spread from the first to the last, for the day report. */
  days: string[];
}

export class NotEmptyError extends Error {}

/** Tables whose rows mean the database is in use; any row in one and the tool refuses. */
const IN_USE_TABLES = ['merchants', 'desks', 'orders', 'users', 'operators', 'ledger_entries', 'outbox_events', 'audit_entries', 'appeals', 'tariffs', 'withdrawals', 'credits'];

/** Why the database is not empty (a table with rows, or a schema newer than this code), or null. */
export async function nonEmptyReason(q: Queryable): Promise<string | null> {
  const { rows } = await q.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c WHERE c.relkind = 'r' AND c.relname = ANY($1::text[]) AND c.relnamespace = current_schema()::regnamespace`,
    [IN_USE_TABLES],
  );
  for (const { name } of rows) {
    const { rows: any } = await q.query(`SELECT 1 FROM ${name} LIMIT 1`);
    if (any.length > 0) return `table ${name} holds rows`;
  }
  return null;
}

/** The tables loaded in bulk: their indexes and keys are dropped before the load and built after it. */
export const BULK_TABLES = ['orders', 'order_refs', 'order_transitions', 'outbox_events', 'callback_attempts', 'outbox_events_archive', 'callback_attempts_archive', 'ledger_entries', 'audit_entries', 'appeals', 'turnover_counters', 'ledger_daily', 'credit_days',
  'requisite_assignments', 'credits', 'credit_items', 'statements', 'statement_entries'];

interface SavedSchema {
  constraints: { table: string; name: string; def: string; kind: string }[];
  indexes: { name: string; def: string }[];
}

/** Drops the bulk tables' indexes and keys (and the foreign keys that point at them), keeping their definitions. */
async function dropForLoad(q: Queryable): Promise<SavedSchema> {
  const { rows: constraints } = await q.query<{ table: string; name: string; def: string; kind: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS def, c.contype AS kind
       FROM pg_constraint c
      WHERE c.contype IN ('p', 'u', 'f')
        AND (c.conrelid = ANY($1::regclass[]) OR c.confrelid = ANY($1::regclass[]))
      ORDER BY c.contype = 'f' DESC, c.conname`,
    [BULK_TABLES],
  );
  const { rows: indexes } = await q.query<{ name: string; def: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'))`,
    [BULK_TABLES],
  );
  for (const c of constraints) await q.exec(`ALTER TABLE ${c.table} DROP CONSTRAINT ${c.name}`);
  for (const i of indexes) await q.exec(`DROP INDEX ${i.name}`);
  return { constraints, indexes };
}

async function restoreAfterLoad(q: Queryable, saved: SavedSchema, log: (s: string) => void): Promise<void> {
  const keys = saved.constraints.filter((c) => c.kind !== 'f');
  for (const c of keys) {
    const t = Date.now();
    await q.exec(`ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}`);
    log(`  ${c.name} ${Date.now() - t} ms`);
  }
  for (const i of saved.indexes) {
    const t = Date.now();
    await q.exec(i.def);
    log(`  ${i.name} ${Date.now() - t} ms`);
  }
  for (const c of saved.constraints.filter((x) => x.kind === 'f')) {
    const t = Date.now();
    await q.exec(`ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}`);
    log(`  ${c.name} ${Date.now() - t} ms`);
  }
}

const CURRENCIES: { code: string; base: string; factor: number }[] = [
  { code: 'RUB', base: '92.5', factor: 1 },
  { code: 'INR', base: '84.2', factor: 1 },
  { code: 'KZT', base: '478.5', factor: 5 },
];

const STANDARD_BANDS = [
  { fromUsd: '0', toUsd: '1000', ratePercent: '3.5' },
  { fromUsd: '1000', toUsd: null, ratePercent: '2.5' },
];
const LARGE_BANDS = [{ fromUsd: '0', toUsd: null, ratePercent: '2' }];

const LIVE_PROVIDERS = 4;

function capabilities(): { method: string; rail: string | null; currency: string; min: string; max: string }[] {
  const caps = [
    ['Classic', 'Sbp', 'RUB'],
    ['Classic', 'C2c', 'RUB'],
    ['MobileCommerce', 'Phone', 'RUB'],
    ['CrossBorder', 'Upi', 'INR'],
    ['CrossBorder', 'C2c', 'KZT'],
    ['NationalQr', null, 'RUB'],
  ] as const;
  return caps.map(([method, rail, currency]) => ({ method, rail, currency, min: '0', max: '0' }));
}

/** Where retention would have left the callbacks by now (RETENTION_DAYS, RETENTION_ARCHIVE). */
function retentionOf(o: VolumeOptions): { before: number; archive: boolean } {
  const days = o.retentionDays ?? 90;
  return { before: days === 0 ? Number.MIN_SAFE_INTEGER : o.nowMs - days * DAY_MS, archive: o.retentionArchive ?? true };
}

/** The credentials printed for the suites: derived from the seed, so two runs print the same. */
export const passwordsFor = (seed: number) => ({ merchant: `volume-${seed}-merchant`, operator: `volume-${seed}-operator` });

export async function generateVolume(db: Db, o: VolumeOptions): Promise<VolumeResult> {
  const log = o.log ?? (() => {});
  const started = Date.now();
  // With the server on this machine, its CPU seconds for this run too (a busy machine stretches the wall time).
  let backendPid: number | null = null;
  const cpu = () => {
    if (backendPid === null) return '';
    try {
      const f = readFileSync(`/proc/${backendPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return `, server CPU ${((Number(f[11]) + Number(f[12])) / 100).toFixed(1)} s`;
    } catch {
      return '';
    }
  };
  const step = (what: string) => log(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${what}${cpu()}`);
  const nowMs = o.nowMs;
  const startMs = periodStart(nowMs, o.months);
  const merchants = planMerchants(o.seed, o.merchants, startMs);
  const desks = planDesks(o.seed, merchants);
  const hours = planHours(o.orders, startMs, nowMs);
  const pw = passwordsFor(o.seed);
  const [merchantHash, operatorHash, othersHash] = await Promise.all([
    hashPassword(pw.merchant, o.scryptLog2N),
    hashPassword(pw.operator, o.scryptLog2N),
    // One hash for every other account: the cheapest allowed cost, as nobody signs in with them.
    hashPassword(`volume-${o.seed}-account`, 10),
  ]);
  const pg = db.kind === 'pg';
  const pool = o.credits ? planPool(o.seed, o.requisites ?? 200) : null;
  // The live Classic RUB orders (cards and SBP) are the ones a pool can serve: their share of all orders.
  const live = new Set(merchants.filter((m) => m.live).map((m) => m.idx));
  const eligible = desks.filter((dk) => live.has(dk.merchantIdx) && dk.method === 'Classic' && dk.currency === 'RUB').reduce((s, dk) => s + dk.weight, 0);
  const sharePpm = pool ? poolShare(o.orders, o.credits!, eligible) : 0;

  return db.tx(async (q) => {
    if (pg) backendPid = (await q.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    // Bulk work wants memory: sorts and hashes of millions of rows, index builds.
    await q.exec(`SET LOCAL work_mem = '${pg ? '1GB' : '64MB'}'`);
    await q.exec(`SET LOCAL maintenance_work_mem = '${pg ? '1GB' : '128MB'}'`);
    // Compiling these one-off statements costs seconds and saves nothing.
    await q.exec('SET LOCAL jit = off');
    // Index builds sort with help where the server has workers to give (none on the embedded database).
    if (pg) await q.exec('SET LOCAL max_parallel_maintenance_workers = 2');
    await q.exec(`SET LOCAL TimeZone = 'UTC'`);
    // The working tables (a row per order among them) stay in memory; allowed only before the
    // session's first temporary table, hence the savepoint.
    await q.exec('SAVEPOINT temp_buffers');
    try {
      await q.exec(`SET LOCAL temp_buffers = '${pg ? '1GB' : '256MB'}'`);
      await q.exec('RELEASE SAVEPOINT temp_buffers');
    } catch {
      await q.exec('ROLLBACK TO SAVEPOINT temp_buffers');
    }
    // The tables this run writes are locked for it: nothing else may write them meanwhile.
    await q.exec('LOCK TABLE merchants, orders IN EXCLUSIVE MODE');
    const reason = await nonEmptyReason(q);
    if (reason) throw new NotEmptyError(reason);

    step('accounts, desks, providers, rates');
    const setup = await writeSetup(q, o, merchants, desks, { merchantHash, operatorHash, othersHash }, pool);

    step('working tables');
    await writeWorkingTables(q, o, merchants, desks, hours, setup.providerIds);
    if (pool) await writePoolTable(q, pool);
    const saved = await dropForLoad(q);
    await q.exec('ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_daily');
    await q.exec('ALTER TABLE credits DISABLE TRIGGER credits_days_added');

    const run = async (label: string, statement: string) => {
      const t = Date.now();
      if (o.explain?.includes(label)) {
        const { rows } = await q.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement}`);
        for (const r of rows) log(`    ${r['QUERY PLAN']}`);
      } else await q.exec(statement);
      log(`  ${label} ${Date.now() - t} ms`);
    };
    const d = new Draws(o.seed);
    const cut = nowMs - SETTLE_MS;
    step(`orders (${o.orders.toLocaleString('en')})`);
    await run('paths', pathsSql(d, o.seed, nowMs, cut, pool, sharePpm));
    await q.exec('ANALYZE _v_paths');
    await run('orders', ordersSql());
    step('order references');
    await run('order_refs', `INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at)
                  SELECT desk_id, order_ref, id, amount, currency, ${tsOf('c')} FROM _v_paths WHERE order_ref IS NOT NULL`);
    step('status history');
    await run('transitions', transitionsSql());
    step('callback events and attempts');
    await run('events', eventsSql(d, retentionOf(o)));
    step('appeals');
    await run('appeals', appealsSql(d));
    let counts: CreditCounts | null = null;
    if (pool) {
      const { rows: paid } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${paidWithCreditSql(d)}`);
      counts = { orders: o.orders, credits: o.credits!, matched: Math.min(paid[0]!.n, o.credits!), requisites: pool.requisites.length, startMs: periodStart(nowMs, o.months), nowMs, cut };
      step(`the pool: requisites of its orders, ${o.credits!.toLocaleString('en')} credits (${counts.matched.toLocaleString('en')} paying an order), statements`);
      await run('assignments', assignmentsSql(d, STATUS_OF_KIND));
      await run('credits', creditsSql(d, pool.id, counts));
      await q.exec('ANALYZE _v_credits');
      await run('statements', statementsSql(d, counts, setup.operatorIds));
      await run('pool_rows', poolRowsSql(pool.id));
    }
    step('ledger, withdrawals, audit trail');
    await run('money', moneySql(d, o.seed, nowMs, cut));
    await run('ledger', ledgerSql());
    await run('audit', auditSql(d, setup.operatorIds, pool));
    step('balances, rollups, turnover counters');
    await run('balances', `UPDATE merchants m SET balance = s.b, sandbox_balance = s.sb FROM (SELECT merchant_id, coalesce(sum(amount) FILTER (WHERE NOT sandbox), 0) AS b, coalesce(sum(amount) FILTER (WHERE sandbox), 0) AS sb FROM _v_money GROUP BY 1) s WHERE m.id = s.merchant_id`);
    // The appeal guard's state as the service would have left it: paused at 10 open appeals.
    await q.exec(`UPDATE providers p SET paused_appeals = (SELECT count(*) FROM appeals a WHERE a.provider_id = p.id AND a.status = 'Open') >= 10 WHERE p.kind <> 'sandbox'`);
    await run('order_day_stats', orderDayStatsSql(nowMs));
    await run('turnover_counters', turnoverSql(nowMs));
    for (const [table, column] of [['orders', 'seq'], ['order_transitions', 'id'], ['outbox_events', 'seq'], ['callback_attempts', 'id'], ['ledger_entries', 'id'], ['audit_entries', 'id'],
      ['credits', 'seq'], ['statements', 'seq']] as const) {
      await q.exec(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), greatest((SELECT max(${column}) FROM ${table}), 1))`);
    }
    step('indexes and keys');
    await restoreAfterLoad(q, saved, log);
    await q.exec('ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_daily');
    await q.exec('ALTER TABLE credits ENABLE TRIGGER credits_days_added');
    step('statistics');
    await q.exec(`ANALYZE merchants, desks, requisites, requisite_accounts, ${BULK_TABLES.join(', ')}, withdrawals, order_day_stats, order_day_stats_days`);
    step('samples');
    const result = await samples(q, o, setup, pw, pool && counts ? { plan: pool, counts } : null);
    step('done');
    return result;
  });
}

interface Setup {
  merchantId: string;
  userEmail: string;
  desk: DeskPlan;
  operatorEmail: string;
  operatorIds: string[];
  providerIds: string[];
}

async function writeSetup(
  q: Queryable,
  o: VolumeOptions,
  merchants: readonly MerchantPlan[],
  desks: readonly DeskPlan[],
  hashes: { merchantHash: string; operatorHash: string; othersHash: string },
  pool: PoolPlan | null,
): Promise<Setup> {
  const setupAt = new Date(merchants[0]!.createdMs - DAY_MS);
  const lastMonth = new Date(Date.UTC(new Date(o.nowMs).getUTCFullYear(), new Date(o.nowMs).getUTCMonth(), 1));
  for (const c of CURRENCIES) {
    await upsertCurrency(q, { code: c.code, enabled: true, spreadPercent: '0', at: setupAt });
    await setManualRate(q, c.code, monthRate(c.base, monthIndex(lastMonth.getTime(), o)), lastMonth);
  }
  const standard = await insertTariff(q, { id: `trf_${hexId(o.seed, 'tariff:standard')}`, name: 'Standard', bands: STANDARD_BANDS, at: setupAt });
  const large = await insertTariff(q, { id: `trf_${hexId(o.seed, 'tariff:large')}`, name: 'Large volume', bands: LARGE_BANDS, at: setupAt });
  const providerIds: string[] = [];
  for (let k = 1; k <= LIVE_PROVIDERS; k++) {
    const p = await insertProvider(q, {
      id: `prv_${hexId(o.seed, `provider:${k}`)}`,
      name: `Acquirer ${String.fromCharCode(64 + k)}`,
      kind: 'http',
      priority: 10 * k,
      capabilities: capabilities(),
      baseUrl: o.providerBaseUrl ?? 'http://127.0.0.1:9090',
      // What `npx tsx tools/mock-provider.ts --port 9090 --key prv_key --secret prv_secret` expects.
      apiKey: 'prv_key',
      secretEnc: o.box.seal('prv_secret'),
      at: setupAt,
    });
    providerIds.push(p.id);
  }
  if (pool) {
    // A pool as an operator adds one (providersAdmin.ts `createProvider`): its feed's key and sealed
    // secret, then each requisite with its accounts, a millisecond apart.
    await insertProvider(q, {
      id: pool.id, name: 'Pool Sever', kind: 'pool', priority: 25, capabilities: POOL_CAPABILITIES, baseUrl: null,
      apiKey: pool.key, secretEnc: o.box.seal(pool.secret), at: setupAt,
    });
    for (const r of pool.requisites) await insertRequisite(q, { id: r.id, providerId: pool.id, ...requisiteTerms(r), at: new Date(setupAt.getTime() + 1 + r.k) });
  }
  const operatorIds: string[] = [];
  const operators = [
    { email: 'admin@paygate.example', role: 'admin' as const, hash: hashes.operatorHash },
    { email: 'support1@paygate.example', role: 'support' as const, hash: hashes.othersHash },
    { email: 'support2@paygate.example', role: 'support' as const, hash: hashes.othersHash },
  ];
  for (const [k, op] of operators.entries()) {
    const row = await insertOperator(q, { id: `opr_${hexId(o.seed, `operator:${k}`)}`, email: op.email, passwordHash: op.hash, role: op.role, at: setupAt });
    operatorIds.push(row!.id);
  }
  const { rows: deskColumns } = await q.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute WHERE attrelid = 'desks'::regclass AND attnum > 0 AND NOT attisdropped`,
  );
  const desksHaveNames = deskColumns.some((c) => c.name === 'name');
  for (const m of merchants) {
    await insertMerchant(q, { id: m.id, name: m.name, sandbox: !m.live, at: new Date(m.createdMs) });
    if (m.live) await setMerchantStatus(q, m.id, 'Active');
    await insertUser(q, {
      id: `usr_${hexId(o.seed, `user:${m.idx}`)}`,
      merchantId: m.id,
      email: m.email,
      passwordHash: m.idx === 1 ? hashes.merchantHash : hashes.othersHash,
      at: new Date(m.createdMs),
    });
    let n = 0;
    for (const d of desks.filter((x) => x.merchantIdx === m.idx)) {
      n++;
      // Written with the desks' own columns; a desk name (where the schema has one) as the cabinet numbers them.
      await q.query(
        `INSERT INTO desks (id, merchant_id, key, secret_enc, method, rails, currencies, min_usd, max_usd, callback_url, callbacks_enabled, tariff_id, created_at${desksHaveNames ? ', name' : ''})
         VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, $8, true, $9, $10${desksHaveNames ? ', $11' : ''})`,
        [d.id, m.id, d.key, o.box.seal(d.secret), d.method, JSON.stringify(d.rails), JSON.stringify([d.currency]), d.callbackUrl,
          d.tariff === 'large' ? large.id : standard.id, new Date(d.createdMs), ...(desksHaveNames ? [`Desk ${n}`] : [])],
      );
    }
  }
  const large0 = merchants[0]!;
  return { merchantId: large0.id, userEmail: large0.email, desk: desks[0]!, operatorEmail: operators[0]!.email, operatorIds, providerIds };
}

/** Months since the period's first month. */
function monthIndex(ms: number, o: VolumeOptions): number {
  const s = new Date(periodStart(o.nowMs, o.months));
  const d = new Date(ms);
  return (d.getUTCFullYear() - s.getUTCFullYear()) * 12 + d.getUTCMonth() - s.getUTCMonth();
}

/** The manual rate of a month: the base moved by up to ±2.5 %, a different step each month. */
function monthRate(base: string, index: number): string {
  return new Decimal(base).mul(new Decimal(1).plus(new Decimal(((index * 37) % 11) - 5).div(200))).toFixed(8);
}

async function writeWorkingTables(
  q: Queryable,
  o: VolumeOptions,
  merchants: readonly MerchantPlan[],
  desks: readonly DeskPlan[],
  hours: ReturnType<typeof planHours>,
  providerIds: readonly string[],
): Promise<void> {
  await q.exec(`CREATE TEMP TABLE _v_merchants (idx int PRIMARY KEY, id text NOT NULL, live boolean NOT NULL, reversals boolean NOT NULL) ON COMMIT DROP`);
  await q.query(`INSERT INTO _v_merchants SELECT * FROM unnest($1::int[], $2::text[], $3::boolean[], $4::boolean[])`, [
    merchants.map((m) => m.idx), merchants.map((m) => m.id), merchants.map((m) => m.live), merchants.map((m) => m.reversals),
  ]);
  await q.exec(`CREATE TEMP TABLE _v_desks (idx int PRIMARY KEY, id text NOT NULL, merchant_id text NOT NULL, method text NOT NULL, rails text[] NOT NULL,
    currency text NOT NULL, factor int NOT NULL, large boolean NOT NULL, sandbox boolean NOT NULL, url text NOT NULL, receiver text NOT NULL) ON COMMIT DROP`);
  const mById = new Map(merchants.map((m) => [m.idx, m]));
  await q.query(
    `INSERT INTO _v_desks SELECT d.idx, d.id, d.merchant_id, d.method, ARRAY(SELECT jsonb_array_elements_text(d.rails)), d.currency, d.factor, d.large, d.sandbox, d.url, d.receiver
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::int[], $8::boolean[], $9::boolean[], $10::text[], $11::text[])
         AS d(idx, id, merchant_id, method, rails, currency, factor, large, sandbox, url, receiver)`,
    [
      desks.map((d) => d.idx), desks.map((d) => d.id), desks.map((d) => mById.get(d.merchantIdx)!.id), desks.map((d) => d.method),
      desks.map((d) => JSON.stringify(d.rails)), desks.map((d) => d.currency), desks.map((d) => CURRENCIES.find((c) => c.code === d.currency)!.factor), desks.map((d) => d.tariff === 'large'),
      desks.map((d) => !mById.get(d.merchantIdx)!.live), desks.map((d) => d.callbackUrl), desks.map((d) => new URL(d.callbackUrl).hostname.toLowerCase()),
    ],
  );
  // Slot n belongs to the desk whose share of SLOTS covers it: an order's hash picks a slot.
  const slotsPerDesk = apportion(desks.map((d) => d.weight), SLOTS);
  const slotDesk: number[] = [];
  desks.forEach((d, k) => {
    for (let n = 0; n < slotsPerDesk[k]!; n++) slotDesk.push(d.idx);
  });
  await q.exec(`CREATE TEMP TABLE _v_slots (slot int PRIMARY KEY, desk_idx int NOT NULL) ON COMMIT DROP`);
  await q.query(`INSERT INTO _v_slots SELECT n - 1, d FROM unnest($1::int[]) WITH ORDINALITY AS s(d, n)`, [slotDesk]);
  // Each hour with the month it lies in, whose rate its orders were priced at.
  await q.exec(`CREATE TEMP TABLE _v_hours (start_ms int8 NOT NULL, span_ms int8 NOT NULL, lo int8 NOT NULL, cnt int8 NOT NULL, month timestamptz NOT NULL) ON COMMIT DROP`);
  const busy = hours.filter((h) => h.count > 0);
  await q.query(`INSERT INTO _v_hours SELECT s, span, lo, cnt, date_trunc('month', ${tsOf('s')}, 'UTC') FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::int8[]) AS h(s, span, lo, cnt)`, [
    busy.map((h) => h.startMs), busy.map((h) => h.spanMs), busy.map((h) => h.lo), busy.map((h) => h.count),
  ]);
  await q.exec(`CREATE TEMP TABLE _v_pay (kind text NOT NULL, n int NOT NULL, payment jsonb NOT NULL, PRIMARY KEY (kind, n)) ON COMMIT DROP`);
  const reqs = planRequisites(o.seed);
  await q.query(`INSERT INTO _v_pay SELECT * FROM unnest($1::text[], $2::int[], $3::jsonb[])`, [reqs.map((r) => r.kind), reqs.map((r) => r.n), reqs.map((r) => JSON.stringify(r.payment))]);
  // The rate each month's orders were priced at (the manual rate of that month, no spread).
  const months: { code: string; month: string; rate: string; factor: number }[] = [];
  const first = new Date(periodStart(o.nowMs, o.months));
  for (let k = 0; k <= o.months + 1; k++) {
    const m = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + k, 1));
    for (const c of CURRENCIES) months.push({ code: c.code, month: m.toISOString(), rate: monthRate(c.base, k), factor: c.factor });
  }
  await q.exec(`CREATE TEMP TABLE _v_rates (currency text NOT NULL, month timestamptz NOT NULL, rate numeric(24, 8) NOT NULL, factor int NOT NULL, PRIMARY KEY (currency, month)) ON COMMIT DROP`);
  await q.query(`INSERT INTO _v_rates SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::numeric[], $4::int[])`, [
    months.map((m) => m.code), months.map((m) => m.month), months.map((m) => m.rate), months.map((m) => m.factor),
  ]);
  await q.exec(`CREATE TEMP TABLE _v_const ON COMMIT DROP AS SELECT $1::text[] AS providers`.replace('$1', `ARRAY[${providerIds.map((id) => `'${id}'`).join(', ')}]`));
  await q.exec('ANALYZE _v_merchants, _v_desks, _v_slots, _v_hours, _v_pay, _v_rates');
}

/**
 * Every order's path, drawn from its number: about 71 % paid and credited, 27 % expired, 1 %
 * appealed after expiring (accepted or rejected, a few still open), the rest cancelled by the
 * merchant or, paid, rejected by the provider; of the last day's orders 40 % are still open. A
 * path whose next step would lie within SETTLE_MS of now stops where it is (an open or paid
 * order). The working table `_v_paths` keeps, per order, its row and the moments of its history
 * the row does not hold; the orders and everything that follows from them are written from it.
 */
function pathsSql(d: Draws, seed: number, nowMs: number, cut: number, pool: PoolPlan | null = null, sharePpm = 0): string {
  const t = times(d, 'i', 'c', 'life0', 'sandbox', 'pool');
  const h = (s: number) => d.h('i', s);
  const pl = poolPathSql(d, pool, sharePpm);
  return `
CREATE TEMP TABLE _v_paths ON COMMIT DROP AS
SELECT 'ord_' || ${d.id('i', 100, 'c')} AS id, i, c, desk_id, merchant_id,
       CASE WHEN ${h(20)} % 10 <> 0 THEN 'INV-' || lpad(i::text, 9, '0') END AS order_ref,
       amount, currency, rate, settled, method, rail, sandbox, provider_id, payment, operator, url, kind, life, fee_rate, pool, requisite_id,
       CASE WHEN kind IN ('done', 'app_acc') THEN round(settled * fee_rate / 100, 8) ELSE 0 END AS commission,
       CASE WHEN kind IN ('done', 'app_acc') THEN settled - round(settled * fee_rate / 100, 8) ELSE 0 END AS credited,
       CASE WHEN kind IN ('payed', 'done', 'reject') AND NOT sandbox AND NOT pool AND ${h(18)} % 10 < 9
            THEN lpad(((i * 982451653 + ${seed % 1_000_000}) % 900000000000 + 100000000000)::text, 12, '0') END AS payer_reference,
       fin, paid, expired AS ex, appealed AS app,
       CASE kind WHEN 'open' THEN c WHEN 'payed' THEN paid WHEN 'dispute' THEN appealed ELSE fin END AS upd
  FROM (
    SELECT k.*,
           CASE WHEN kind = 'open' AND forced THEN 1440 ELSE life0 END AS life,
           CASE kind WHEN 'done' THEN done WHEN 'reject' THEN rejected WHEN 'mcancel' THEN cancelled WHEN 'expire' THEN expired
                     WHEN 'app_acc' THEN resolved WHEN 'app_rej' THEN resolved END AS fin
      FROM (
        SELECT s.*,
               CASE
                 WHEN forced THEN 'open'
                 WHEN plan = 'done' AND done <= ${cut} THEN 'done'
                 WHEN plan = 'done' AND NOT sandbox AND NOT pool AND paid <= ${cut} THEN 'payed'
                 WHEN plan = 'reject' AND rejected <= ${cut} THEN 'reject'
                 WHEN plan = 'reject' AND paid <= ${cut} THEN 'payed'
                 WHEN plan = 'mcancel' AND cancelled <= ${cut} THEN 'mcancel'
                 WHEN plan = 'expire' AND expired <= ${cut} THEN 'expire'
                 WHEN plan = 'appeal' AND expired <= ${cut} THEN
                   CASE WHEN appealed > ${cut} THEN 'expire'
                        WHEN resolved0 > ${cut} AND ${h(11)} % 4 = 0 THEN 'dispute'
                        WHEN ${h(12)} % 100 < 65 THEN 'app_acc' ELSE 'app_rej' END
                 ELSE 'open'
               END AS kind,
               -- An appeal decided after "now" as planned is decided before it instead (most of them).
               CASE WHEN resolved0 <= ${cut} THEN resolved0 ELSE appealed + ${h(13)} % greatest(${cut} - appealed, 1) END AS resolved
          FROM (
            SELECT p.*,
                   ${t.paid} AS paid, ${t.done} AS done, ${t.rejected} AS rejected, ${t.cancelled} AS cancelled,
                   ${t.expired} AS expired, ${t.appealed} AS appealed, ${t.resolved} AS resolved0,
                   CASE WHEN sandbox THEN CASE WHEN r < 7100 THEN 'done' WHEN r < 7200 THEN 'mcancel' ELSE 'expire' END
                        -- A pool reports no payments, so rejects none: its orders the provider would have rejected expire.
                        ELSE CASE WHEN r < 100 THEN 'appeal' WHEN r < 7200 THEN 'done' WHEN r < 7250 THEN 'mcancel' WHEN r < 7255 AND NOT pool THEN 'reject' ELSE 'expire' END
                   END AS plan
              FROM (
                SELECT b.i, b.c, dk.id AS desk_id, dk.merchant_id, dk.method, dk.currency, dk.sandbox, dk.url,
                       ${lifetimeSql(d, 'b.i')} AS life0,
                       ${d.h('b.i', 2)} % 10000 AS r,
                       (b.c > ${nowMs - DAY_MS} AND ${d.h('b.i', 5)} % 100 < 40) AS forced,
                       x.rail, x.amount, rt.rate, x.settled,
                       CASE WHEN dk.large THEN 2 WHEN x.settled < 1000 THEN 3.5 ELSE 2.5 END::numeric(12, 4) AS fee_rate,
                       CASE WHEN dk.sandbox THEN 'prv_sandbox' ${pl.provider}ELSE (SELECT providers FROM _v_const)[${d.h('b.i', 24)} % ${LIVE_PROVIDERS} + 1] END AS provider_id,
                       ${pl.payment} AS payment, ${pl.columns},
                       CASE WHEN x.rail = 'Phone' THEN (ARRAY['OperatorA','OperatorB','OperatorC','OperatorD','OperatorE'])[${d.h('b.i', 26)} % 5 + 1] END AS operator
                  FROM (
                    SELECT i, h.month, h.start_ms + ((i - h.lo - 1) * h.span_ms) / h.cnt + ${d.h('i', 1)} % greatest(h.span_ms / h.cnt, 1) AS c
                      FROM _v_hours h CROSS JOIN LATERAL generate_series(h.lo + 1, h.lo + h.cnt) AS i
                  ) b
                  JOIN _v_slots sl ON sl.slot = ${d.h('b.i', 4)} % ${SLOTS}
                  JOIN _v_desks dk ON dk.idx = sl.desk_idx
                  JOIN _v_rates rt ON rt.currency = dk.currency AND rt.month = b.month
                  CROSS JOIN LATERAL (
                    SELECT y.rail, y.amount, round(y.amount::numeric(40, 20) / rt.rate, 8) AS settled
                      FROM (SELECT CASE WHEN cardinality(dk.rails) = 0 THEN NULL WHEN cardinality(dk.rails) = 1 OR ${d.h('b.i', 21)} % 100 < 60 THEN dk.rails[1] ELSE dk.rails[2] END AS rail,
                                   (((CASE WHEN ${d.h('b.i', 23)} % 5 <> 0 THEN cents - cents % 100 ELSE cents END) * dk.factor)::numeric / 100)::numeric(24, 2) AS amount
                              FROM (SELECT CASE WHEN ${d.h('b.i', 22)} % 100 < 60 THEN 30000 + ${d.h('b.i', 27)} % 470000
                                                WHEN ${d.h('b.i', 22)} % 100 < 90 THEN 500000 + ${d.h('b.i', 27)} % 2500000
                                                ELSE 3000000 + ${d.h('b.i', 27)} % 12000000 END AS cents) a) y
                  ) x
                  JOIN _v_pay pay ON pay.kind = CASE x.rail WHEN 'Sbp' THEN 'sbp' WHEN 'C2c' THEN 'card' WHEN 'Phone' THEN 'phone' WHEN 'Upi' THEN 'upi' ELSE 'qr' END
                                 AND pay.n = ${d.h('b.i', 25)} % ${REQUISITES_PER_KIND}${pl.joins}
                 OFFSET 0
              ) p
             OFFSET 0
          ) s
         OFFSET 0
      ) k
  ) z`;
}

const STATUS_OF_KIND = `CASE kind WHEN 'open' THEN 'Created' WHEN 'payed' THEN 'Payed' WHEN 'done' THEN 'Completed' WHEN 'app_acc' THEN 'Completed'
                 WHEN 'dispute' THEN 'Dispute' ELSE 'Canceled' END`;

/** The orders as the service leaves them after each path. */
function ordersSql(): string {
  return `
INSERT INTO orders (id, seq, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, direction, status, sub_status,
                    placement, payment, provider_id, sandbox, notify_url, operator, lifetime_minutes, commission_rate, commission_amount,
                    credited_amount, cancel_reason, payer_reference, paid_amount, created_at, expires_at, finished_at, updated_at)
SELECT id, i, desk_id, merchant_id, order_ref, amount, currency, rate, settled, method, rail, 'In', ${STATUS_OF_KIND},
       CASE kind WHEN 'open' THEN 'WaitingForPayment' WHEN 'payed' THEN 'WaitingAdminConfirmation' WHEN 'done' THEN 'SuccessfullyPaid'
                 WHEN 'app_acc' THEN 'SuccessfullyPaid' WHEN 'expire' THEN 'Expired' WHEN 'dispute' THEN 'Expired' ELSE 'Cancelled' END,
       'placed', payment, provider_id, sandbox, url, operator, life,
       CASE WHEN kind IN ('done', 'app_acc') THEN fee_rate ELSE 0 END, commission, credited,
       CASE kind WHEN 'reject' THEN 'rejected by provider' WHEN 'mcancel' THEN 'cancelled by merchant' WHEN 'app_rej' THEN 'appeal rejected'
                 WHEN 'expire' THEN 'expired' WHEN 'app_acc' THEN 'expired' WHEN 'dispute' THEN 'expired' END,
       payer_reference, CASE WHEN kind IN ('done', 'app_acc') THEN amount END, ${tsOf('c')}, ${tsOf('c + life * 60000')}, ${tsOf('fin')}, ${tsOf('upd')}
  FROM _v_paths`;
}

/**
 * The status changes each path makes, in order (k), as the orders_status_history trigger records
 * them (reason: the order's cancel reason at that moment), and which moment each happened at. The
 * second column: only for orders completed at once (true: a sandbox simulation, or a pool's order
 * its credit completed), only for those reported paid first (false), or for both (null).
 */
type Moment = 'paid' | 'fin' | 'ex' | 'app';
type TransitionRow = readonly [kind: string, sandbox: boolean | null, k: number, from: string, to: string, sub: string, reason: string | null, at: Moment];
const TRANSITIONS: readonly TransitionRow[] = [
  ['payed', false, 0, 'Created', 'Payed', 'WaitingAdminConfirmation', null, 'paid'],
  ['done', false, 0, 'Created', 'Payed', 'WaitingAdminConfirmation', null, 'paid'],
  ['done', false, 1, 'Payed', 'Completed', 'SuccessfullyPaid', null, 'fin'],
  ['done', true, 0, 'Created', 'Completed', 'SuccessfullyPaid', null, 'fin'],
  ['reject', false, 0, 'Created', 'Payed', 'WaitingAdminConfirmation', null, 'paid'],
  ['reject', false, 1, 'Payed', 'Canceled', 'Cancelled', 'rejected by provider', 'fin'],
  ['mcancel', null, 0, 'Created', 'Canceled', 'Cancelled', 'cancelled by merchant', 'fin'],
  ['expire', null, 0, 'Created', 'Canceled', 'Expired', 'expired', 'fin'],
  ...['app_acc', 'app_rej', 'dispute'].flatMap((kind): TransitionRow[] => [
    [kind, null, 0, 'Created', 'Canceled', 'Expired', 'expired', 'ex'],
    [kind, null, 1, 'Canceled', 'Dispute', 'Expired', 'expired', 'app'],
  ]),
  ['app_acc', null, 2, 'Dispute', 'Completed', 'SuccessfullyPaid', 'expired', 'fin'],
  ['app_rej', null, 2, 'Dispute', 'Canceled', 'Cancelled', 'appeal rejected', 'fin'],
];

const lit = (v: string | number | boolean | null) => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));
const valuesOf = (rows: readonly (readonly (string | number | boolean | null)[])[]) => rows.map((r) => `(${r.map(lit).join(', ')})`).join(',\n    ');
const momentOf = (at: string) => `CASE ${at} WHEN 'paid' THEN p.paid WHEN 'fin' THEN p.fin WHEN 'ex' THEN p.ex ELSE p.app END`;

function transitionsSql(): string {
  return `
INSERT INTO order_transitions (id, order_id, from_status, to_status, sub_status, reason, at)
SELECT p.i * 4 + x.k, p.id, x.f, x.t, x.sub, x.reason, ${tsOf(momentOf('x.at'))}
  FROM _v_paths p
  JOIN (VALUES
    ${valuesOf(TRANSITIONS)}
  ) AS x(kind, sandbox, k, f, t, sub, reason, at) ON x.kind = p.kind AND (x.sandbox IS NULL OR x.sandbox = (p.sandbox OR p.pool))`;
}

/** The callback each path's changes sent, in order (a report of payment sends none). */
type EventRow = readonly [kind: string, k: number, event: string, status: string, at: Moment];
const EVENTS: readonly EventRow[] = [
  ['done', 0, 'order.completed', 'Completed', 'fin'],
  ['reject', 0, 'order.cancelled', 'Canceled', 'fin'],
  ['mcancel', 0, 'order.cancelled', 'Canceled', 'fin'],
  ['expire', 0, 'order.cancelled', 'Canceled', 'fin'],
  ...['app_acc', 'app_rej', 'dispute'].flatMap((kind): EventRow[] => [
    [kind, 0, 'order.cancelled', 'Canceled', 'ex'],
    [kind, 1, 'order.appealed', 'Dispute', 'app'],
  ]),
  ['app_acc', 2, 'order.completed', 'Completed', 'fin'],
  ['app_rej', 2, 'order.cancelled', 'Canceled', 'fin'],
];

/**
 * The callback events every change sent, each with its exact body, and their attempts: one for
 * most, two or three after 5xx answers or timeouts for some, and a few refused for good (4xx).
 * Events are numbered in the order they were written; attempts after their event.
 */
function eventsSql(d: Draws, retention: { before: number; archive: boolean }): string {
  const a1 = `(y.at + 50 + ${d.h('y.ek', 32)} % 450)`;
  const a2 = `(${a1} + 10000 + ${d.h('y.ek', 33)} % 2000)`;
  const a3 = `(${a2} + 20000 + ${d.h('y.ek', 34)} % 2000)`;
  const iso = (ms: string) => `to_char(${tsOf(ms)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return `
WITH a AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY z.at, z.ek) AS seq, z.*
    FROM (
      SELECT y.*, 'evt_' || ${d.id('y.ek', 101, 'y.at')} AS event_id,
             CASE WHEN ${d.h('y.ek', 30)} % 1000 < 3 THEN 'rejected' ELSE 'delivered' END AS final,
             CASE WHEN ${d.h('y.ek', 31)} % 100 < 80 THEN 1 WHEN ${d.h('y.ek', 31)} % 100 < 95 THEN 2 ELSE 3 END AS n,
             ${a1} AS a1, ${a2} AS a2, ${a3} AS a3,
             -- Where retention would have put it by now: 0 the hot tables, 1 the archive, 2 nowhere.
             CASE WHEN y.at >= ${retention.before} OR ${d.h('y.ek', 30)} % 1000 < 3 THEN 0 WHEN ${retention.archive} THEN 1 ELSE 2 END AS place
        FROM (
          SELECT p.i * 4 + x.k AS ek, p.id AS order_id, p.desk_id, x.ev, x.st, ${momentOf('x.at')} AS at,
                 p.order_ref, p.amount, p.currency, p.settled, p.rate, p.method, p.rail, p.url, p.sandbox
            FROM _v_paths p
            JOIN (VALUES
              ${valuesOf(EVENTS)}
            ) AS x(kind, k, ev, st, at) ON x.kind = p.kind
        ) y
    ) z
),
${(['outbox_events', 'outbox_events_archive'] as const)
  .map(
    (table, k) => `${table === 'outbox_events' ? 'hot' : 'archived'} AS (
  INSERT INTO ${table} (id, seq, order_id, desk_id, event, body, url, receiver, state, attempts, next_attempt_at, locked_by, locked_at, created_at, finished_at, sandbox)
  SELECT a.event_id, a.seq, a.order_id, a.desk_id, a.ev,
         '{"event":"' || a.ev || '","id":"' || a.order_id || '","orderRef":' || coalesce(to_json(a.order_ref)::text, 'null')
           || ',"status":"' || a.st || '","amount":{"value":"' || a.amount::text || '","currency":"' || a.currency
           || '"},"settled":{"value":"' || a.settled::text || '","currency":"USD","rate":"' || a.rate::text
           -- What a completed order was paid: its amount (every order here is paid its own).
           || CASE WHEN a.st = 'Completed' THEN '"},"paidAmount":{"value":"' || a.amount::text || '","currency":"' || a.currency ELSE '' END
           || '"},"method":"' || a.method || '","rail":' || coalesce('"' || a.rail || '"', 'null')
           || ',"occurredAt":"' || ${iso('a.at')} || '","sandbox":' || CASE WHEN a.sandbox THEN 'true' ELSE 'false' END || '}',
         a.url, lower(substring(a.url FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^:/?#]*)')),
         a.final, a.n, NULL, NULL, NULL, ${tsOf('a.at')},
         ${tsOf('CASE a.n WHEN 1 THEN a.a1 WHEN 2 THEN a.a2 ELSE a.a3 END')}, a.sandbox
    FROM a WHERE a.place = ${k}
),`,
  )
  .join('\n')}
t AS MATERIALIZED (
  SELECT a.seq * 4 + g.n AS id, a.event_id, a.order_id, g.n AS attempt,
         CASE WHEN g.n < a.n THEN 'retry' ELSE a.final END AS outcome, g.code AS http_code,
         CASE g.code WHEN 200 THEN 'ok' WHEN 500 THEN 'Internal Server Error' WHEN 502 THEN 'Bad Gateway' WHEN 503 THEN 'Service Unavailable'
                     WHEN 404 THEN 'Not Found' WHEN 410 THEN 'Gone' WHEN 401 THEN 'Unauthorized' END AS response,
         CASE WHEN g.code IS NULL THEN 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error' END AS error,
         ${tsOf('CASE g.n WHEN 1 THEN a.a1 WHEN 2 THEN a.a2 ELSE a.a3 END')} AS at, a.place
    FROM a CROSS JOIN LATERAL (
      SELECT n,
             CASE WHEN n < a.n THEN (ARRAY[500, 502, 503, NULL])[${d.h('a.ek * 4 + n', 35)} % 4 + 1]
                  WHEN a.final = 'delivered' THEN 200 ELSE (ARRAY[404, 410, 401])[${d.h('a.ek', 36)} % 3 + 1] END AS code
        FROM generate_series(1, a.n) AS n
    ) g
   WHERE a.place < 2
),
archived_attempts AS (
  INSERT INTO callback_attempts_archive (id, event_id, order_id, attempt, outcome, http_code, response, error, at)
  SELECT id, event_id, order_id, attempt, outcome, http_code, response, error, at FROM t WHERE place = 1
)
INSERT INTO callback_attempts (id, event_id, order_id, attempt, outcome, http_code, response, error, at)
SELECT id, event_id, order_id, attempt, outcome, http_code, response, error, at FROM t WHERE place = 0`;
}

const APPEAL_REASONS = ['Paid, but the order expired first', 'The customer paid a few minutes late', 'Paid to the card shown; receipt attached', 'The bank shows the transfer as sent'];

function appealsSql(d: Draws): string {
  return `
INSERT INTO appeals (id, order_id, desk_id, merchant_id, provider_id, status, amount, reason, evidence_url, comment, sla_due_at, created_at, resolved_at)
SELECT 'apl_' || ${d.id('p.i', 102, 'p.app')}, p.id, p.desk_id, p.merchant_id, p.provider_id,
       CASE p.kind WHEN 'app_acc' THEN 'Accepted' WHEN 'app_rej' THEN 'Rejected' ELSE 'Open' END,
       p.settled,
       (ARRAY[${APPEAL_REASONS.map((r) => `'${r}'`).join(', ')}])[${d.h('p.i', 40)} % ${APPEAL_REASONS.length} + 1],
       CASE WHEN ${d.h('p.i', 41)} % 3 = 0 THEN 'https://files.example/receipts/' || lpad(to_hex(${d.h('p.i', 42)}), 16, '0') || '.pdf' END,
       CASE p.kind WHEN 'app_acc' THEN 'Payment found in the statement' WHEN 'app_rej' THEN 'No payment received' END,
       ${tsOf('p.app + 86400000')}, ${tsOf('p.app')}, CASE WHEN p.kind <> 'dispute' THEN ${tsOf('p.fin')} END
  FROM _v_paths p
 WHERE p.kind IN ('app_acc', 'app_rej', 'dispute')`;
}

/** A reversal (chargeback) of a few credits of the merchants that have them, a day or three after the credit. */
const reversalMs = (d: Draws) => `(p.fin + 3600000 + ${d.h('p.i', 15)} % 259200000)`;
const reversedSql = (d: Draws, cut: number) =>
  `(p.kind IN ('done', 'app_acc') AND NOT p.sandbox AND m.reversals AND ${d.h('p.i', 14)} % 1000 < 3 AND ${reversalMs(d)} <= ${cut})`;

/**
 * The money: credits, reversals and withdrawals in `_v_money` (every live merchant, on the 2nd of
 * each month, takes out 60 % of what the previous month's credits and reversals added, so the
 * balance never goes below zero), then the withdrawals themselves.
 */
function moneySql(d: Draws, seed: number, nowMs: number, cut: number): string {
  const thisMonth = Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), 1);
  return `
CREATE TEMP TABLE _v_money ON COMMIT DROP AS
SELECT p.merchant_id, p.id AS order_id, 'credit' AS kind, p.credited AS amount,
       CASE WHEN p.kind = 'app_acc' THEN 'appeal accepted' WHEN p.sandbox THEN 'simulate payment' ELSE 'confirm' END AS reason,
       p.fin AS at, p.settled, p.sandbox, p.i
  FROM _v_paths p WHERE p.kind IN ('done', 'app_acc')
UNION ALL
SELECT p.merchant_id, p.id, 'reversal', -p.credited, 'chargeback', ${reversalMs(d)}, p.settled, p.sandbox, p.i
  FROM _v_paths p JOIN _v_merchants m ON m.id = p.merchant_id WHERE ${reversedSql(d, cut)};
CREATE TEMP TABLE _v_withdrawals ON COMMIT DROP AS
SELECT 'wdr_' || substr(md5('${seed}:withdrawal:' || x.merchant_id || ':' || x.month), 1, 26) AS id, x.merchant_id,
       trunc(x.net * 0.6, 2) AS amount, 'WD-' || to_char(x.month, 'YYYYMM') || '-' || substr(x.merchant_id, 5, 6) AS reference,
       x.month + interval '1 month 1 day 10 hours' + (${d.h('hashtext(x.merchant_id)', 50)} % 3600000) * interval '1 millisecond' AS at
  FROM (
    SELECT y.merchant_id, date_trunc('month', ${tsOf('y.at')}, 'UTC') AS month, sum(y.amount) AS net
      FROM _v_money y JOIN _v_merchants m ON m.id = y.merchant_id
     WHERE m.live
     GROUP BY 1, 2
  ) x
 WHERE x.month < ${tsOf(String(thisMonth))} AND trunc(x.net * 0.6, 2) > 0
   AND x.month + interval '1 month 1 day 11 hours' <= ${tsOf(String(cut))};
INSERT INTO _v_money SELECT merchant_id, NULL, 'withdrawal', -amount, reference, ${msOf('at')}, 0, false, 0 FROM _v_withdrawals;
INSERT INTO withdrawals (id, merchant_id, amount_usd, reference, created_at) SELECT id, merchant_id, amount, reference, at FROM _v_withdrawals`;
}

/** The ledger, numbered in the order things happened, and its daily rollup as its trigger would have written it. */
function ledgerSql(): string {
  return `
INSERT INTO ledger_entries (id, merchant_id, order_id, kind, amount, reason, sandbox, created_at)
SELECT row_number() OVER (ORDER BY at, i, kind), merchant_id, order_id, kind, amount, reason, sandbox, ${tsOf('at')} FROM _v_money;
INSERT INTO ledger_daily (merchant_id, day, sandbox, turnover, credits, credit_count, reversals, withdrawals, adjustments, net, entries)
SELECT merchant_id, (${tsOf('at')} AT TIME ZONE 'UTC')::date, sandbox,
       coalesce(sum(settled) FILTER (WHERE kind = 'credit'), 0),
       coalesce(sum(amount) FILTER (WHERE kind = 'credit'), 0),
       count(*) FILTER (WHERE kind = 'credit'),
       coalesce(sum(amount) FILTER (WHERE kind = 'reversal'), 0),
       coalesce(sum(amount) FILTER (WHERE kind = 'withdrawal'), 0),
       0, sum(amount), count(*)
  FROM _v_money GROUP BY 1, 2, 3`;
}

/**
 * The operators' actions: setting the platform up (merchants, desks, approvals), the occasional
 * manual confirmation, every appeal decision, every reversal and withdrawal.
 */
function auditSql(d: Draws, operatorIds: readonly string[], pool: PoolPlan | null = null): string {
  const actor = (expr: string) => `(ARRAY[${operatorIds.map((x) => `'${x}'`).join(', ')}])[${d.h(expr, 60)} % ${operatorIds.length} + 1]`;
  // A pool's order is confirmed by hand when no credit paid it (the matcher's confirmations come with the pool's rows).
  const byHand = pool ? ` OR (p.pool AND p.id NOT IN (SELECT c.order_id FROM _v_credits c WHERE c.matched))` : '';
  return `
INSERT INTO audit_entries (id, at, actor, action, object_id, outcome, detail)
SELECT row_number() OVER (ORDER BY at, action, object_id, detail), at, actor, action, object_id, 'ok', detail
  FROM (
    SELECT m.created_at AS at, 'token' AS actor, 'merchant.create' AS action, m.id AS object_id, NULL::text AS detail FROM merchants m
    UNION ALL
    SELECT m.created_at + interval '2 hours', ${actor('hashtext(m.id)')}, 'merchant.approve', m.id, NULL FROM merchants m WHERE m.status = 'Active'
    UNION ALL
    SELECT dk.created_at, 'token', 'desk.create', dk.id, NULL FROM desks dk
    UNION ALL
    SELECT ${tsOf('p.fin')}, ${actor('p.i')}, 'order.confirm', p.id, NULL FROM _v_paths p
     WHERE p.kind = 'done' AND NOT p.sandbox AND (${d.h('p.i', 16)} % 100 < 3${byHand})
    UNION ALL
    SELECT a.resolved_at, ${actor('hashtext(a.id)')}, CASE a.status WHEN 'Accepted' THEN 'appeal.accept' ELSE 'appeal.reject' END, a.id, NULL
      FROM appeals a WHERE a.status <> 'Open'
    UNION ALL
    SELECT ${tsOf('y.at')}, ${actor('y.i')}, 'order.reverse', y.order_id, NULL FROM _v_money y WHERE y.kind = 'reversal'
    UNION ALL
    SELECT w.at, ${actor('hashtext(w.id)')}, 'merchant.withdraw', w.merchant_id, NULL FROM _v_withdrawals w${pool ? poolAuditSql(d, pool.id, actor) : ''}
  ) x`;
}

/** The dashboard's rollup of every day, today's so far included, as the maintenance worker keeps it. */
function orderDayStatsSql(nowMs: number): string {
  return `
INSERT INTO order_day_stats (day, sandbox, method, provider_id, status, orders)
SELECT (${tsOf('c')} AT TIME ZONE 'UTC')::date, sandbox, method, coalesce(provider_id, ''), ${STATUS_OF_KIND}, count(*)
  FROM _v_paths GROUP BY 1, 2, 3, 4, 5;
INSERT INTO order_day_stats_days (day, refreshed_at)
SELECT g::date, ${tsOf(String(nowMs))} FROM generate_series(${tsOf('(SELECT min(c) FROM _v_paths)')}::date, ${tsOf(String(nowMs))}::date, interval '1 day') g`;
}

/**
 * The turnover counters completion keeps (desk, merchant, platform for live orders, provider;
 * per hour, day and month): every day and month of the period, and the hours of its last week
 * (caps read only the windows that contain now).
 */
function turnoverSql(nowMs: number): string {
  const weekAgo = nowMs - 7 * DAY_MS;
  const hourStart = weekAgo - (weekAgo % HOUR_MS);
  // Summed per desk (with its merchant, provider and flag) and UTC day first: a few hundred
  // thousand rows however many orders, then per scope, and per month from the days.
  return `
WITH c AS MATERIALIZED (
  SELECT desk_id, merchant_id, provider_id, sandbox, fin / ${DAY_MS} * ${DAY_MS} AS day, sum(settled) AS usd
    FROM _v_paths WHERE kind IN ('done', 'app_acc')
   GROUP BY 1, 2, 3, 4, 5
),
h AS MATERIALIZED (
  SELECT desk_id, merchant_id, provider_id, sandbox, fin / ${HOUR_MS} * ${HOUR_MS} AS day, sum(settled) AS usd
    FROM _v_paths WHERE kind IN ('done', 'app_acc') AND fin >= ${hourStart}
   GROUP BY 1, 2, 3, 4, 5
),
scoped AS (
  SELECT w, scope, scope_id, day, sum(usd) AS usd
    FROM (
      SELECT 'day' AS w, * FROM c UNION ALL SELECT 'hour', * FROM h
    ) x CROSS JOIN LATERAL (VALUES ('desk', x.desk_id, true), ('merchant', x.merchant_id, true), ('platform', '', NOT x.sandbox),
                                   ('provider', x.provider_id, x.provider_id IS NOT NULL)) AS sc(scope, scope_id, applies)
   WHERE sc.applies
   GROUP BY 1, 2, 3, 4
),
months AS (
  SELECT scope, scope_id, date_trunc('month', ${tsOf('day')}, 'UTC') AS start, sum(usd) AS usd FROM scoped WHERE w = 'day' GROUP BY 1, 2, 3
)
INSERT INTO turnover_counters (scope, scope_id, win, window_start, completed_usd)
SELECT scope, scope_id, w, ${tsOf('day')}, usd FROM scoped
UNION ALL
SELECT scope, scope_id, 'month', start, usd FROM months`;
}

/** `count` positions spread evenly over 1..n (all of them when n is smaller). */
function spread(n: number, count: number): number[] {
  if (n <= count) return Array.from({ length: n }, (_, k) => k + 1);
  return Array.from({ length: count }, (_, k) => 1 + Math.floor((k * (n - 1)) / (count - 1)));
}

async function samples(q: Queryable, o: VolumeOptions, s: Setup, pw: ReturnType<typeof passwordsFor>, pool: { plan: PoolPlan; counts: CreditCounts } | null): Promise<VolumeResult> {
  /** Up to 100 values of `column`, spread evenly over the rows `where` selects, in the order they were written. */
  const pick = async (column: string, where: string, param: string): Promise<string[]> => {
    const { rows: c } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE ${where}`, [param]);
    const { rows } = await q.query<{ v: string }>(
      `SELECT v FROM (SELECT ${column} AS v, row_number() OVER (ORDER BY seq) AS rn FROM orders WHERE ${where}) x WHERE rn = ANY($2::int[]) ORDER BY rn`,
      [param, spread(c[0]!.n, 100)],
    );
    return rows.map((r) => r.v);
  };
  const sampleOrderIds = await pick('id', 'desk_id = $1', s.desk.id);
  const sampleOrderRefs = await pick('order_ref', 'desk_id = $1 AND order_ref IS NOT NULL', s.desk.id);
  const samplePayerReferences = await pick('payer_reference', 'merchant_id = $1 AND payer_reference IS NOT NULL', s.merchantId);
  // Ten UTC days of the large merchant's, spread from its first day to its last.
  const { rows: span } = await q.query<{ first: Date; last: Date }>(
    `SELECT min(created_at) AS first, max(created_at) AS last FROM orders WHERE merchant_id = $1`,
    [s.merchantId],
  );
  const firstDay = Math.floor(span[0]!.first.getTime() / DAY_MS);
  const lastDay = Math.floor(span[0]!.last.getTime() / DAY_MS);
  const candidates = spread(lastDay - firstDay + 1, 40).map((k) => new Date((firstDay + k - 1) * DAY_MS).toISOString().slice(0, 10));
  const days: string[] = [];
  for (const day of candidates) {
    const { rows } = await q.query(`SELECT 1 FROM orders WHERE merchant_id = $1 AND created_at >= $2 AND created_at < $3::timestamptz + interval '1 day' LIMIT 1`, [s.merchantId, day, day]);
    if (rows.length) days.push(day);
  }
  return {
    orders: o.orders,
    merchant: { id: s.merchantId, email: s.userEmail, password: pw.merchant, deskId: s.desk.id, deskKey: s.desk.key, deskSecret: s.desk.secret },
    operator: { email: s.operatorEmail, password: pw.operator },
    sampleOrderIds,
    sampleOrderRefs,
    samplePayerReferences,
    days: spread(days.length, 10).map((k) => days[k - 1]!),
    pool: pool && (await poolSamples(q, pool.plan, pool.counts)),
  };
}

/** The pool's credentials, its counts, credits spread over the period and ten days that hold credits. */
async function poolSamples(q: Queryable, plan: PoolPlan, c: CreditCounts): Promise<PoolResult> {
  const { rows: n } = await q.query<{ statements: number }>('SELECT count(*)::int AS statements FROM statements WHERE provider_id = $1', [plan.id]);
  const { rows: ids } = await q.query<{ id: string }>(
    `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY seq) AS rn FROM credits WHERE provider_id = $1) x WHERE rn = ANY($2::int[]) ORDER BY rn`,
    [plan.id, spread(c.credits, 100)],
  );
  const { rows: days } = await q.query<{ day: string }>(`SELECT DISTINCT to_char(booking_day, 'YYYY-MM-DD') AS day FROM credits WHERE provider_id = $1 ORDER BY 1`, [plan.id]);
  return {
    id: plan.id,
    key: plan.key,
    secret: plan.secret,
    requisites: plan.requisites.length,
    credits: c.credits,
    matched: c.matched,
    statements: n[0]!.statements,
    sampleCreditIds: ids.map((r) => r.id),
    days: spread(days.length, 10).map((k) => days[k - 1]!.day),
  };
}


/** The bulk statements, for reading them (EXPLAIN) apart from a run. */
export const volumeStatements = { writeWorkingTables, pathsSql, ordersSql, transitionsSql, eventsSql, appealsSql, moneySql, ledgerSql, auditSql, orderDayStatsSql, turnoverSql };
