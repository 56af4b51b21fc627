import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Db, Queryable } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any fixed number: every instance starting at once takes the same lock, so one migrates and the others wait.
const MIGRATION_LOCK = 72_311_904;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

export class SchemaTooNewError extends Error {
  constructor(readonly databaseVersion: number, readonly codeVersion: number) {
    super(`database schema is at version ${databaseVersion}, newer than this code (${codeVersion}); run a newer release`);
  }
}

/** Applies every migration not yet recorded, all in one transaction under the lock; returns the names applied. */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<string[]> {
  const latest = migrations.at(-1)?.version ?? 0;
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await q.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    const applied = new Set(rows.map((r) => r.version));
    const newest = rows.at(-1)?.version ?? 0;
    if (newest > latest) throw new SchemaTooNewError(newest, latest);
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await q.exec(m.sql);
      await q.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      done.push(m.name);
    }
    return done;
  });
}

/** The version of the last migration applied (0 on an empty schema). */
export async function schemaVersion(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}
