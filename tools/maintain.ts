/**
 * `npm run maintain`: the maintenance the service's workers do, by hand, to the end of the
 * backlog. Delivered callbacks older than RETENTION_DAYS move to the archive (or are deleted with
 * RETENTION_ARCHIVE=false) in batches, each its own short transaction, so it can run beside a
 * serving instance; then the dashboard's order rollup of the last 31 days is made again. On the
 * database the service uses (DATABASE_URL, else the embedded one in DATA_DIR, which must not be
 * open in a running service). The last line on stdout is a JSON summary.
 */
import { systemClock } from '../src/clock.js';
import { ConfigError, parseConfig } from '../src/config.js';
import { openDatabase } from '../src/runtime.js';
import { DataDirInUseError } from '../src/store/dataDirLock.js';
import { loadMigrations, schemaVersion } from '../src/store/migrate.js';
import { maintainOnce } from '../src/workers/maintenance.js';

async function main(): Promise<number> {
  const config = parseConfig(process.env);
  const db = await openDatabase(config);
  try {
    // The tables this needs come with the migrations; the service applies them when it starts.
    const needed = loadMigrations().at(-1)!.version;
    const at = await schemaVersion(db).catch(() => 0);
    if (at < needed) {
      process.stderr.write(`maintain: the database schema is at version ${at}; start the service (or npm run migrate) to bring it to ${needed} first\n`);
      return 1;
    }
    const started = Date.now();
    const result = await maintainOnce(db, systemClock, config);
    process.stdout.write(`${JSON.stringify({ ...result, retentionDays: config.retentionDays, ms: Date.now() - started })}\n`);
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`maintain: ${err instanceof ConfigError || err instanceof DataDirInUseError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
