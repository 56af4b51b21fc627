import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPg, openPglite, type Db } from '../../src/store/db.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { oncePerRun } from './runOnce.js';

/** The PostgreSQL server to test against, when DATABASE_URL is set; PGlite in memory otherwise. */
export const serverUrl = process.env.DATABASE_URL || null;

export interface TestDb {
  db: Db;
  /** Connection string of the throwaway database (server mode only). */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * Migrating a database anew for every test file is most of a file's set-up cost (initdb of an
 * embedded PostgreSQL takes seconds). A migrated template is made once per run (PGlite) or per
 * schema version (PostgreSQL), then copied: PGlite loads a dump of the template's data directory,
 * and PostgreSQL creates each database `TEMPLATE` the migrated one.
 */
const schemaHash = createHash('sha256')
  .update(loadMigrations().map((m) => `${m.name}\n${m.sql}`).join('\n'))
  .digest('hex')
  .slice(0, 12);

const pgliteTemplates = new Map<boolean, Promise<Blob>>();

async function makeDump(migrated: boolean): Promise<Blob> {
  // The migrated template starts from the empty one: loading a dump takes under a second, while
  // initialising a new embedded database takes several CPU-seconds.
  const db = migrated ? await openPglite(undefined, { loadDataDir: await pgliteTemplateDump(false) }) : await openPglite(undefined);
  if (migrated) await migrate(db);
  const dump = await db.dumpDataDir!();
  await db.close();
  return dump;
}

/**
 * A dump of a fresh embedded database, migrated or not. Under vitest it is made once per run, by
 * the first test process that needs it, and read from the run's directory by the others (making one
 * costs some 6 CPU-seconds); elsewhere (tools that use the harness) once per process.
 */
function pgliteTemplateDump(migrated: boolean): Promise<Blob> {
  let t = pgliteTemplates.get(migrated);
  if (!t) {
    t = (async () => {
      if (!process.env.VITEST) return makeDump(migrated);
      // Imported here: the test API exists only inside a test process.
      const { inject } = await import('vitest');
      const name = `pglite-${migrated ? 'migrated' : 'empty'}-${schemaHash}`;
      const dir = await oncePerRun(inject('runDir'), name, async (d) => {
        const dump = await makeDump(migrated);
        writeFileSync(join(d, 'dump'), Buffer.from(await dump.arrayBuffer()));
        // The loader tells a gzipped dump from a plain tar by its type.
        writeFileSync(join(d, 'type'), dump.type);
      });
      return new Blob([readFileSync(join(dir, 'dump'))], { type: readFileSync(join(dir, 'type'), 'utf8') });
    })();
    pgliteTemplates.set(migrated, t);
  }
  return t;
}

/**
 * Loading an embedded database from the dump still starts a PostgreSQL in WebAssembly (about a
 * second). A dropped migrated database is therefore put back to the template's exact contents
 * instead (every table emptied, the rows the migrations wrote put back, every sequence where it
 * was) and handed to the next test in this process; one whose tables or indexes a test changed
 * (the migration suites add some) is closed instead.
 */
interface TemplateContents {
  /** Every table, index, sequence and view, as `relationsOf` lists them. */
  relations: string;
  tables: string[];
  rows: { table: string; json: string }[];
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
}

let templateContents: Promise<TemplateContents> | null = null;
const idlePglite: Db[] = [];
const IDLE_MAX = 2;

/** The names and kinds of every relation of the public schema, one string to compare. */
async function relationsOf(db: Db): Promise<string> {
  const { rows } = await db.query<{ list: string | null }>(
    "SELECT string_agg(relkind::text || ':' || relname, ',' ORDER BY relname, relkind) AS list FROM pg_class WHERE relnamespace = 'public'::regnamespace",
  );
  return rows[0]?.list ?? '';
}

async function readContents(db: Db): Promise<TemplateContents> {
  const { rows: tables } = await db.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  const rows: TemplateContents['rows'] = [];
  for (const t of tables) {
    const { rows: r } = await db.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${t.name} t`);
    if (r[0]?.json) rows.push({ table: t.name, json: r[0].json });
  }
  const { rows: seqs } = await db.query<{ name: string; last_value: string | null; is_called: boolean }>(
    "SELECT quote_ident(sequencename) AS name, COALESCE(last_value, start_value)::text AS last_value, last_value IS NOT NULL AS is_called FROM pg_sequences WHERE schemaname = 'public'",
  );
  return { relations: await relationsOf(db), tables: tables.map((t) => t.name), rows, sequences: seqs.map((q) => ({ name: q.name, lastValue: q.last_value!, isCalled: q.is_called })) };
}

/** Puts the template's rows back; false (and nothing done) where the test changed the schema itself, a table or index more or less. */
async function resetToTemplate(db: Db, c: TemplateContents): Promise<boolean> {
  if ((await relationsOf(db)) !== c.relations) return false;
  await db.tx(async (q) => {
    // Replica mode: no triggers and no foreign-key checks while the contents are put back.
    await q.query('SET LOCAL session_replication_role = replica');
    await q.query(`TRUNCATE ${c.tables.join(', ')} RESTART IDENTITY CASCADE`);
    for (const r of c.rows) await q.query(`INSERT INTO ${r.table} SELECT * FROM json_populate_recordset(NULL::${r.table}, $1::json)`, [r.json]);
    for (const s of c.sequences) await q.query('SELECT setval($1::regclass, $2::bigint, $3)', [s.name, s.lastValue, s.isCalled]);
  });
  return true;
}

/** A handle on a pooled database for one test: its listeners end and it goes back to the pool on drop. */
function pooledPglite(db: Db): TestDb {
  const stops = new Set<() => Promise<void>>();
  let closed = false;
  const handle: Db = {
    kind: db.kind,
    query: (sql, params) => db.query(sql, params),
    exec: (sql) => db.exec(sql),
    tx: (fn) => db.tx(fn),
    async listen(channel, onNotify, onLost) {
      const stop = await db.listen(channel, onNotify, onLost);
      const once = async () => {
        stops.delete(once);
        await stop();
      };
      stops.add(once);
      return once;
    },
    async close() {
      closed = true;
    },
    dumpDataDir: () => db.dumpDataDir!(),
  };
  return {
    db: handle,
    url: null,
    async drop() {
      for (const stop of [...stops]) await stop();
      if (!closed && idlePglite.length < IDLE_MAX) {
        try {
          if (await resetToTemplate(db, await templateContents!)) {
            idlePglite.push(db);
            return;
          }
        } catch {
          // Not reusable: a fresh one is loaded next time.
        }
      }
      await db.close();
    },
  };
}

async function migratedPglite(): Promise<TestDb> {
  const reused = idlePglite.pop();
  if (reused) return pooledPglite(reused);
  const db = await openPglite(undefined, { loadDataDir: await pgliteTemplateDump(true) });
  templateContents ??= readContents(db);
  await templateContents;
  return pooledPglite(db);
}

let serverTemplate: Promise<string> | null = null;

/** The migrated template database on the server; made once, reused by every later run with the same migrations. */
async function serverTemplateName(): Promise<string> {
  serverTemplate ??= (async () => {
    const name = `paygate_tpl_${schemaHash}`;
    const admin = new pg.Client({ connectionString: serverUrl! });
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rows.length === 0) {
        // Built under another name and renamed at the end, so a concurrent process never copies a half-migrated template.
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        const db = openPg(urlFor(building), { max: 1 });
        await migrate(db);
        await db.close();
        try {
          await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } catch {
          // Another process finished its template first; theirs is as good as ours.
          await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        }
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return serverTemplate;
}

function urlFor(database: string): string {
  const u = new URL(serverUrl!);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * An embedded database as a new one starts, empty and not migrated, in memory, whatever DATABASE_URL
 * says: loaded from the run's empty template rather than initialised anew.
 */
export async function emptyPglite(): Promise<Db> {
  return openPglite(undefined, { loadDataDir: await pgliteTemplateDump(false) });
}

/** A throwaway, migrated database: an in-memory PGlite, or a fresh database on the server. */
export async function createTestDb(opts: { migrated?: boolean } = {}): Promise<TestDb> {
  const migrated = opts.migrated !== false;
  if (!serverUrl) {
    if (migrated) return migratedPglite();
    const db = await openPglite(undefined, { loadDataDir: await pgliteTemplateDump(false) });
    return { db, url: null, drop: () => db.close() };
  }
  const template = migrated ? await serverTemplateName() : null;
  const name = `paygate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  // Copying a template needs it to have no other session; several test processes copy it at once, so retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
      break;
    } catch (err) {
      if (attempt >= 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
  await admin.end();
  const url = urlFor(name);
  const db = openPg(url, { max: 12 });
  return {
    db,
    url,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
