/**
 * `npm run seed:volume -- --orders N [--merchants M] [--months K] [--seed S] [--pool] [--credits C]
 * [--requisites R]`; `--help` prints what each option does (args.ts `HELP`).
 *
 * Fills the database the service would use (DATABASE_URL, else the embedded one in DATA_DIR),
 * migrating it first, with K months of a platform's history ending now. Refuses a database that
 * holds data, and bad arguments, without changing anything. Progress goes to stderr; the last
 * line on stdout is one JSON object: the large merchant's cabinet user with one of its desks
 * (key and secret), an admin operator, sample order ids, orderRefs and payer references, and
 * days that hold the large merchant's orders (and, with a pool, its id, feed credentials and samples).
 *
 * VOLUME_PROVIDER_URL: where the live providers' connector is (default http://127.0.0.1:9090,
 * where `npx tsx tools/mock-provider.ts --port 9090 --key prv_key --secret prv_secret` answers).
 * RETENTION_DAYS and RETENTION_ARCHIVE, as the service reads them, decide where the old delivered
 * callbacks are written. VOLUME_EXPLAIN=events,paths (labels of the bulk statements, as the
 * progress lines name them) runs those under EXPLAIN ANALYZE and prints their plans.
 */
import { parseConfig, ConfigError } from '../../src/config.js';
import { openDatabase, resolveMasterKey } from '../../src/runtime.js';
import { SecretBox } from '../../src/secretbox.js';
import { migrate, SchemaTooNewError } from '../../src/store/migrate.js';
import { DataDirInUseError } from '../../src/store/dataDirLock.js';
import { HELP, parseVolumeArgs, USAGE, UsageError, wantsHelp } from './args.js';
import { BULK_TABLES, generateVolume, nonEmptyReason, NotEmptyError } from './generate.js';

async function main(): Promise<number> {
  // Before the arguments are checked: `--help` with anything else prints the help, not a refusal.
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  let args;
  try {
    args = parseVolumeArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`seed:volume: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  const config = parseConfig(process.env);
  const db = await openDatabase(config);
  try {
    // Checked before migrating: a database in use is left exactly as it was.
    const reason = await nonEmptyReason(db);
    if (reason) throw new NotEmptyError(reason);
    const applied = await migrate(db);
    if (applied.length) process.stderr.write(`migrated: ${applied.join(', ')}\n`);
    const box = new SecretBox(resolveMasterKey(config));
    const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `the embedded database in ${config.dataDir}`;
    const pool = args.credits ? `, a pool of ${args.requisites} requisites with ${args.credits.toLocaleString('en')} credits` : '';
    process.stderr.write(`seed:volume: ${args.orders.toLocaleString('en')} orders, ${args.merchants} merchants, ${args.months} months${pool}, seed ${args.seed}, into ${where}\n`);
    const result = await generateVolume(db, {
      ...args,
      nowMs: Date.now(),
      box,
      scryptLog2N: config.passwordScryptLog2N,
      retentionDays: config.retentionDays,
      retentionArchive: config.retentionArchive,
      providerBaseUrl: process.env.VOLUME_PROVIDER_URL || undefined,
      explain: process.env.VOLUME_EXPLAIN?.split(',').filter(Boolean),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    // Settles what a bulk load leaves behind (hint bits, the visibility map) now rather than
    // under the first requests; the embedded database has no concurrent readers to care.
    if (db.kind === 'pg') {
      const t = Date.now();
      await db.exec(`VACUUM (ANALYZE) ${BULK_TABLES.join(', ')}`);
      process.stderr.write(`vacuum: ${Date.now() - t} ms\n`);
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof NotEmptyError) {
      process.stderr.write(`seed:volume: refusing to write into a database that is not empty (${err.message}); nothing was changed. Use an empty database.\n`);
      return 1;
    }
    if (err instanceof SchemaTooNewError) {
      process.stderr.write(`seed:volume: ${err.message}; nothing was changed\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ConfigError || err instanceof DataDirInUseError) process.stderr.write(`seed:volume: ${err.message}\n`);
    else process.stderr.write(`seed:volume: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
