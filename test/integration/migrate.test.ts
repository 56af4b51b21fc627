import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, SchemaTooNewError } from '../../src/store/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb | null = null;
afterEach(async () => {
  await t?.drop();
  t = null;
});

const fresh = async () => (t = await createTestDb({ migrated: false }));
/**
 * A database `migrate` already brought up to date from empty (the one every other suite gets), for
 * the tests whose subject is what a later run does with it.
 */
const migrated = async () => (t = await createTestDb());
const codeVersion = () => loadMigrations().at(-1)!.version;

async function tableExists(db: TestDb['db'], name: string): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name = $1`,
    [name],
  );
  return rows[0].n === 1;
}

describe('migrate', () => {
  it('the migrations on disk are numbered, in order, without gaps or duplicates', () => {
    const ms = loadMigrations();
    expect(ms.length).toBeGreaterThan(0);
    expect(ms.map((m) => m.version)).toEqual(ms.map((_, i) => i + 1));
    for (const m of ms) expect(m.name).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
  });

  it('applies every migration once; a second run applies nothing', async () => {
    const { db } = await fresh();
    expect(await tableExists(db, 'merchants')).toBe(false);
    const names = loadMigrations().map((m) => m.name);
    expect(await migrate(db)).toEqual(names);
    expect(await tableExists(db, 'merchants')).toBe(true);
    expect(await migrate(db)).toEqual([]);
    // The built-in sandbox provider is created once, not once per run.
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM providers WHERE kind = 'sandbox'`);
    expect(rows[0].n).toBe(1);
  });

  it('records each applied migration in schema_migrations', async () => {
    const { db } = await fresh();
    await migrate(db);
    const { rows } = await db.query<{ version: number; name: string; applied_at: Date }>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => ({ version: r.version, name: r.name }))).toEqual(loadMigrations().map((m) => ({ version: m.version, name: m.name })));
    for (const r of rows) expect(r.applied_at).toBeInstanceOf(Date);
  });

  it('two instances starting at once: one applies, the other finds nothing to do', async () => {
    const { db } = await fresh();
    const results = await Promise.all([migrate(db), migrate(db)]);
    expect(results.map((r) => r.length).sort()).toEqual([0, loadMigrations().length]);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0].n).toBe(loadMigrations().length);
  });

  it('a migration that fails leaves nothing of itself behind and is not recorded', async () => {
    const { db } = await migrated();
    const next = codeVersion() + 1;
    const broken = { version: next, name: `${String(next).padStart(4, '0')}_broken.sql`, sql: 'CREATE TABLE half_done (id int);\nSELECT no_such_column FROM merchants;' };
    await expect(migrate(db, [...loadMigrations(), broken])).rejects.toThrow();
    expect(await tableExists(db, 'half_done')).toBe(false);
    const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations WHERE version = $1', [next]);
    expect(rows).toEqual([]);
    // The schema that was there still works.
    expect(await migrate(db)).toEqual([]);
  });

  it('a later migration is applied on top of an existing schema', async () => {
    const { db } = await migrated();
    const next = codeVersion() + 1;
    const added = { version: next, name: `${String(next).padStart(4, '0')}_added.sql`, sql: 'CREATE TABLE added_later (id int);' };
    expect(await migrate(db, [...loadMigrations(), added])).toEqual([added.name]);
    expect(await tableExists(db, 'added_later')).toBe(true);
  });

  it('refuses a database whose schema is newer than the code', async () => {
    const { db } = await migrated();
    const newer = codeVersion() + 1;
    await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [newer, `${newer}_from_a_newer_release.sql`]);
    const err = await migrate(db).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect(err).toMatchObject({ databaseVersion: newer, codeVersion: codeVersion() });
    expect((err as Error).message).toContain(String(newer));
  });
});
