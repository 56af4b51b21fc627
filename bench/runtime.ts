/**
 * The runtime a benchmark measures: on PostgreSQL (DATABASE_URL) in a throwaway database of its own,
 * dropped afterwards; otherwise on an embedded database in a temporary DATA_DIR, removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { createLogger, createRuntime, type Runtime } from '../src/runtime.js';

export interface BenchRuntime {
  runtime: Runtime;
  /** A temporary folder for the run's own files. */
  work: string;
  dispose(): Promise<void>;
}

/**
 * A database of the benchmark's own on the server named by DATABASE_URL, or null without one
 * (embedded database). `drop` removes it.
 */
export async function throwawayDatabase(name: string): Promise<{ url: string; drop(): Promise<void> } | null> {
  const serverUrl = process.env.DATABASE_URL || null;
  if (!serverUrl) return null;
  const db = `paygate_${name}_${process.pid}`;
  const adminSql = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await adminSql(`CREATE DATABASE ${db}`);
  const u = new URL(serverUrl);
  u.pathname = `/${db}`;
  return { url: u.toString(), drop: () => adminSql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`) };
}

export async function benchRuntime(name: string, env: Record<string, string> = {}): Promise<BenchRuntime> {
  const database = await throwawayDatabase(name);
  const databaseUrl = database?.url;
  const work = mkdtempSync(join(tmpdir(), `paygate-${name}-`));
  const config = parseConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(work, 'data'),
    SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
    MASTER_KEY: process.env.MASTER_KEY ?? randomBytes(32).toString('hex'),
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    ...env,
  });
  const runtime = await createRuntime(config, { clock: systemClock, log: createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent') });
  return {
    runtime,
    work,
    async dispose() {
      await runtime.close();
      rmSync(work, { recursive: true, force: true });
      await database?.drop();
    },
  };
}
