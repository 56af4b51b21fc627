import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, splitStatements, type Migration } from '../../src/store/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

/*
 * Migrations marked `--! no-transaction` (indexes built CONCURRENTLY, backfills that commit in
 * batches), applied to databases that already hold data.
 */

let t: TestDb | null = null;
afterEach(async () => {
  await t?.drop();
  t = null;
});

const next = () => loadMigrations().at(-1)!.version + 1;
const named = (version: number, name: string, sql: string): Migration => ({ version, name: `${String(version).padStart(4, '0')}_${name}.sql`, sql });

describe('splitStatements', () => {
  it('splits at the semicolons that end statements, not those in strings, quoted names, bodies or comments', () => {
    const script = `--! no-transaction
-- a comment; with a semicolon
CREATE TABLE "odd;name" (v text DEFAULT 'a;b');
/* a block; comment */
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END; $$;
DO $body$ BEGIN PERFORM 'it''s; fine'; END $body$;
SELECT 1`;
    expect(splitStatements(script)).toEqual([
      `--! no-transaction\n-- a comment; with a semicolon\nCREATE TABLE "odd;name" (v text DEFAULT 'a;b')`,
      `/* a block; comment */\nCREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END; $$`,
      `DO $body$ BEGIN PERFORM 'it''s; fine'; END $body$`,
      'SELECT 1',
    ]);
    expect(splitStatements('-- only a comment\n;\n')).toEqual([]);
  });
});

describe('migrations outside a transaction', () => {
  it('builds an index concurrently on a table that holds rows, records it, and does nothing the second time', async () => {
    t = await createTestDb();
    const { db } = t;
    await db.exec(`CREATE TABLE big (id int PRIMARY KEY, v text); INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 2000) g`);
    const m = named(next(), 'big_index', '--! no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS big_v ON big (v);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS big_v_id ON big (v, id);');
    expect(await migrate(db, [...loadMigrations(), m])).toEqual([m.name]);
    const { rows } = await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'big' ORDER BY indexname`);
    expect(rows.map((r) => r.indexname)).toEqual(['big_pkey', 'big_v', 'big_v_id']);
    expect(await migrate(db, [...loadMigrations(), m])).toEqual([]);
    const rec = await db.query('SELECT name FROM schema_migrations WHERE version = $1', [m.version]);
    expect(rec.rows).toEqual([{ name: m.name }]);
  }, 60_000);

  it('builds again an index whose build was interrupted, instead of taking the invalid one for done', async () => {
    t = await createTestDb();
    const { db } = t;
    await db.exec(`CREATE TABLE dup (v int); INSERT INTO dup VALUES (1), (1), (2)`);
    const m = named(next(), 'dup_unique', '--! no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS dup_v ON dup (v);');
    // The build fails on the duplicate and leaves an invalid index behind; the migration is not recorded.
    await expect(migrate(db, [...loadMigrations(), m])).rejects.toThrow();
    const invalid = await db.query<{ valid: boolean }>(`SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = 'dup_v'::regclass`);
    expect(invalid.rows).toEqual([{ valid: false }]);
    expect((await db.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version])).rows).toEqual([]);
    await db.exec(`DELETE FROM dup WHERE v = 1; INSERT INTO dup VALUES (1)`);
    expect(await migrate(db, [...loadMigrations(), m])).toEqual([m.name]);
    const valid = await db.query<{ valid: boolean }>(`SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = 'dup_v'::regclass`);
    expect(valid.rows).toEqual([{ valid: true }]);
    await expect(db.exec('INSERT INTO dup VALUES (2)')).rejects.toThrow();
  }, 60_000);

  it('fills the daily ledger rollup from the entries already there, and keeps it with every entry after', async () => {
    t = await createTestDb({ migrated: false });
    const { db } = t;
    await migrate(db, loadMigrations().filter((m) => m.version < 12));
    await db.exec(`
      INSERT INTO merchants (id, name, status, sandbox, created_at) VALUES ('mer_a', 'A', 'Active', false, '2026-01-01Z'), ('mer_b', 'B', 'UnderReview', true, '2026-01-01Z');
      INSERT INTO desks (id, merchant_id, key, secret_enc, method, rails, currencies, created_at, name)
        SELECT 'dsk_' || m, 'mer_' || m, 'shp_' || m, 'x', 'Classic', '[]', '[]', '2026-01-01Z', 'Desk 1' FROM unnest(ARRAY['a', 'b']) m`);
    await db.exec(`
      INSERT INTO orders (id, desk_id, merchant_id, amount, currency, rate, settled_amount, method, status, sub_status, placement, sandbox, lifetime_minutes, created_at, expires_at, updated_at)
      SELECT 'ord_' || g, CASE WHEN g % 3 = 0 THEN 'dsk_b' ELSE 'dsk_a' END, CASE WHEN g % 3 = 0 THEN 'mer_b' ELSE 'mer_a' END, 1000, 'RUB', 80, 12.5, 'Classic',
             'Completed', 'SuccessfullyPaid', 'placed', g % 3 = 0, 15, '2026-01-01Z'::timestamptz + g * interval '1 hour', '2026-01-01Z'::timestamptz + g * interval '1 hour', now()
        FROM generate_series(1, 6000) g;
      INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, created_at)
      SELECT o.merchant_id, o.id, 'credit', 12.25, 'confirm', o.created_at FROM orders o;
      INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, created_at)
      SELECT 'mer_a', NULL, 'withdrawal', -100, 'WD', '2026-01-01Z'::timestamptz + g * interval '1 day' FROM generate_series(1, 30) g`);
    const applied = await migrate(db);
    expect(applied[0]).toMatch(/^0012_/);
    const expected = `SELECT l.merchant_id, (l.created_at AT TIME ZONE 'UTC')::date AS day, coalesce(o.sandbox, false) AS sandbox,
                              coalesce(sum(o.settled_amount) FILTER (WHERE l.kind = 'credit'), 0) AS turnover,
                              coalesce(sum(l.amount) FILTER (WHERE l.kind = 'credit'), 0) AS credits, count(*) FILTER (WHERE l.kind = 'credit') AS credit_count,
                              coalesce(sum(l.amount) FILTER (WHERE l.kind = 'withdrawal'), 0) AS withdrawals, sum(l.amount) AS net, count(*) AS entries
                         FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id GROUP BY 1, 2, 3`;
    const differs = `SELECT * FROM (${expected}) x FULL JOIN ledger_daily d USING (merchant_id, day, sandbox)
                      WHERE x.net IS DISTINCT FROM d.net OR x.turnover IS DISTINCT FROM d.turnover OR x.credits IS DISTINCT FROM d.credits
                         OR x.credit_count IS DISTINCT FROM d.credit_count OR x.withdrawals IS DISTINCT FROM d.withdrawals OR x.entries IS DISTINCT FROM d.entries`;
    expect((await db.query(differs)).rows).toEqual([]);
    expect((await db.query(`SELECT count(*)::int AS n FROM ledger_daily`)).rows[0]!.n).toBeGreaterThan(250);
    // The backfill's own objects are gone; the trigger stays and adds each new entry to its day.
    expect((await db.query(`SELECT to_regclass('ledger_daily_backfill') AS t`)).rows).toEqual([{ t: null }]);
    await db.exec(`INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, created_at) VALUES
                   ('mer_a', 'ord_1', 'reversal', -12.25, 'chargeback', '2026-01-01T05:00Z'), ('mer_a', NULL, 'adjustment', 3.5, 'fix', '2031-01-01Z')`);
    expect((await db.query(differs)).rows).toEqual([]);
  }, 120_000);
});
