import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPg, openPglite, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

/** The PostgreSQL server to test against, when DATABASE_URL is set; PGlite in memory otherwise. */
export const serverUrl = process.env.DATABASE_URL || null;

export interface TestDb {
  db: Db;
  /** Connection string of the throwaway database (server mode only). */
  url: string | null;
  drop(): Promise<void>;
}

/** A throwaway, migrated database: an in-memory PGlite, or a fresh database on the server. */
export async function createTestDb(opts: { migrated?: boolean } = {}): Promise<TestDb> {
  if (!serverUrl) {
    const db = await openPglite(undefined);
    if (opts.migrated !== false) await migrate(db);
    return { db, url: null, drop: () => db.close() };
  }
  const name = `paygate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const db = openPg(u.toString(), { max: 12 });
  if (opts.migrated !== false) await migrate(db);
  return {
    db,
    url: u.toString(),
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
