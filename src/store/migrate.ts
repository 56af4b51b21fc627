import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Db, Queryable } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any fixed number: every instance starting at once takes the same lock, so one migrates and the others wait.
const MIGRATION_LOCK = 72_311_904;

/**
 * A migration whose first line is this marker runs outside a transaction, one statement at a time
 * (`CREATE INDEX CONCURRENTLY`, `CALL` of a procedure that commits in batches): work on big tables
 * that must not hold a lock for its whole duration. Every statement in it must be safe to run
 * again after an interruption (`IF NOT EXISTS`, a procedure that resumes where it stopped): a
 * process killed half-way leaves the migration unrecorded and the next start runs it again.
 */
export const NO_TRANSACTION_MARKER = '--! no-transaction';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** False for a migration marked `--! no-transaction`. */
  transactional?: boolean;
}

export const isTransactional = (m: Migration): boolean => m.transactional ?? !m.sql.trimStart().startsWith(NO_TRANSACTION_MARKER);

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const sql = readFileSync(join(dir, f), 'utf8');
      return { version: Number(f.slice(0, 4)), name: f, sql, transactional: !sql.trimStart().startsWith(NO_TRANSACTION_MARKER) };
    });
}

export class SchemaTooNewError extends Error {
  constructor(readonly databaseVersion: number, readonly codeVersion: number) {
    super(`database schema is at version ${databaseVersion}, newer than this code (${codeVersion}); run a newer release`);
  }
}

/**
 * The statements of a script, split at the semicolons that end them: not those inside quotes,
 * quoted identifiers, dollar-quoted bodies or comments. Empty statements are dropped.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is an escaped quote: skipping to the next one and going on handles it.
      const end = script.indexOf(c, i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i, i + 64));
      if (tag) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
      } else i++;
    } else if (c === ';') {
      out.push(script.slice(start, i));
      start = ++i;
    } else i++;
  }
  out.push(script.slice(start));
  // A piece holding nothing but comments and blanks is no statement.
  return out.map((s) => s.trim()).filter((s) => s.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() !== '');
}

const CONCURRENT_INDEX = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+("?)([A-Za-z_][A-Za-z0-9_]*)\1/i;

/**
 * A `CREATE INDEX CONCURRENTLY` that was interrupted leaves an invalid index behind, which
 * `IF NOT EXISTS` would then take for done. Such an index is dropped first, unless a build of it
 * is running right now in another session (another instance migrating: its build is waited for by
 * the statement itself, which then finds the index there).
 */
async function dropInterruptedIndex(q: Queryable, statement: string): Promise<void> {
  const m = CONCURRENT_INDEX.exec(statement.replace(/^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/, ''));
  if (!m) return;
  const { rows } = await q.query<{ invalid: boolean; building: boolean }>(
    `SELECT NOT i.indisvalid AS invalid,
            EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = c.oid AND p.pid <> pg_backend_pid()) AS building
       FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
      WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`,
    [m[2]],
  );
  if (rows[0]?.invalid && !rows[0].building) await q.exec(`DROP INDEX CONCURRENTLY IF EXISTS "${m[2]}"`);
}

/** How often an instance waiting for another one's migrations asks for the lock again. */
const LOCK_POLL_MS = 200;

/**
 * The session lock that lets one instance migrate at a time. Waited for by asking again and again
 * rather than in one blocking statement: a waiting statement holds a snapshot, and a concurrent
 * index build in the instance that has the lock would wait for that snapshot: a deadlock.
 */
async function takeMigrationLock(session: Queryable): Promise<void> {
  for (;;) {
    const { rows } = await session.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK]);
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/**
 * Applies every migration not yet recorded, in order, each in a transaction of its own (or, for
 * one marked `--! no-transaction`, statement by statement) and recorded with it; returns the names
 * applied. The whole run holds a session lock on one connection of its own, so instances starting
 * at once migrate one after the other, and the connection holds no transaction while a
 * non-transactional statement runs (a concurrent index build waits for every older transaction).
 */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<string[]> {
  const latest = migrations.at(-1)?.version ?? 0;
  return db.tx(async (session) => {
    // `tx` hands over a connection inside a transaction; end it, and the connection is ours to
    // use statement by statement. A transaction is open again before handing it back.
    await session.exec('COMMIT');
    let inTx = false;
    const begin = async () => {
      await session.exec('BEGIN');
      inTx = true;
    };
    const commit = async () => {
      await session.exec('COMMIT');
      inTx = false;
    };
    await takeMigrationLock(session);
    try {
      await session.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await session.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      const applied = new Set(rows.map((r) => r.version));
      const newest = rows.at(-1)?.version ?? 0;
      if (newest > latest) throw new SchemaTooNewError(newest, latest);
      const done: string[] = [];
      for (const m of migrations) {
        if (applied.has(m.version)) continue;
        if (isTransactional(m)) {
          await begin();
          await session.exec(m.sql);
          await session.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await commit();
        } else {
          for (const statement of splitStatements(m.sql)) {
            await dropInterruptedIndex(session, statement);
            await session.exec(statement);
          }
          await session.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING', [m.version, m.name]);
        }
        done.push(m.name);
      }
      return done;
    } finally {
      if (inTx) await session.exec('ROLLBACK');
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await session.exec('BEGIN');
    }
  });
}

/** The version of the last migration applied (0 on an empty schema). */
export async function schemaVersion(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}
