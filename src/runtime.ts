import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Clock } from './clock.js';
import { parseMasterKey, type Config } from './config.js';
import type { Ctx } from './context.js';
import { hashToken } from './http/adminAuth.js';
import { newAdminToken } from './ids.js';
import { createMetrics } from './metrics.js';
import { SecretBox } from './secretbox.js';
import { dbNonceStore, redisNonceStore } from './services/nonces.js';
import { createRateLimits } from './services/rateLimits.js';
import { openPg, openPglite, type Db } from './store/db.js';
import { openReadReplica, REPLICA_CONNECT_TIMEOUT_MS } from './store/readReplica.js';
import { migrate } from './store/migrate.js';
import { removeStaleSpools } from './reconciliation/statements/index.js';
import { lockDataDir } from './store/dataDirLock.js';
import { parseAllowlist } from './callbacks/urlGuard.js';
import { getSetting, putSettingIfAbsent } from './store/settings.js';
import { sampleBacklogsOnScrape } from './services/backlogGauges.js';
import { traceEmbeddedQueries } from './telemetry/index.js';

/** Log lines waiting for stdout beyond this are dropped (and said so on stderr) rather than held in memory. */
const LOG_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * The server's log destination: standard output written in batches of up to 4 KiB instead of one
 * system call per line (the server writes a line per request). The batch is written at least once a
 * second, so a line is at most a second late, and at exit, whatever the reason for it. When stdout
 * does not keep up, at most 16 MiB wait: later lines are dropped, and stderr says so once a minute.
 */
export function batchedStdout(): pino.DestinationStream {
  const dest = pino.destination({ dest: 1, minLength: 4096, maxLength: LOG_BACKLOG_BYTES, periodicFlush: 1000, sync: false });
  let dropped = 0;
  let lastWarning = 0;
  dest.on('drop', () => {
    dropped++;
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    process.stderr.write(`log lines dropped: stdout is not keeping up (${dropped} so far)\n`);
  });
  process.on('exit', () => {
    try {
      dest.flushSync();
    } catch {
      /* stdout already closed */
    }
  });
  return dest;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'paygate' },
    // Defence in depth: signing headers, tokens and secrets never reach a log line even if an object holding them is logged.
    redact: {
      paths: ['secret', '*.secret', 'headers.authorization', 'headers["x-gate-sign"]', 'req.headers.authorization', 'req.headers["x-gate-sign"]', 'adminToken', 'masterKey', 'smtp.password', '*.smtp.password'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export async function openDatabase(config: Config, opts: { onPoolWait?: (seconds: number) => void } = {}): Promise<Db> {
  if (config.databaseUrl) return openPg(config.databaseUrl, { max: config.databasePoolSize, onPoolWait: opts.onPoolWait });
  mkdirSync(config.dataDir, { recursive: true });
  // One process per embedded database: a second would see only its own writes, and lose them.
  const lock = lockDataDir(config.dataDir);
  let db: Db;
  try {
    db = await openPglite(join(config.dataDir, 'pg'));
  } catch (err) {
    lock.release();
    throw err;
  }
  // With tracing on, a span for each statement (pg's own instrumentation does not see PGlite).
  return traceEmbeddedQueries({
    ...db,
    async close() {
      try {
        await db.close();
      } finally {
        lock.release();
      }
    },
  });
}

/** MASTER_KEY from the environment, or (embedded mode) the one generated on first start and kept in DATA_DIR. */
export function resolveMasterKey(config: Config): Buffer {
  if (config.masterKey) return config.masterKey;
  const file = join(config.dataDir, 'master.key');
  if (existsSync(file)) return parseMasterKey(readFileSync(file, 'utf8'), `${file}`);
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}

/**
 * The operator token: ADMIN_TOKEN when given, otherwise generated on first start. Only its hash is
 * stored; the generated token is returned once so the caller can print it.
 */
export async function resolveAdminToken(config: Config, db: Db): Promise<{ hash: Buffer; generated: string | null }> {
  if (config.adminToken) return { hash: hashToken(config.adminToken), generated: null };
  const stored = await getSetting(db, 'admin_token_sha256');
  if (stored) return { hash: Buffer.from(stored, 'hex'), generated: null };
  const token = newAdminToken();
  const kept = await putSettingIfAbsent(db, 'admin_token_sha256', hashToken(token).toString('hex'));
  // Another instance may have generated one at the same moment; theirs was stored and printed there.
  if (kept !== hashToken(token).toString('hex')) return { hash: Buffer.from(kept, 'hex'), generated: null };
  return { hash: hashToken(token), generated: token };
}

/** Logs an outage once when it begins and once when it ends, not at every reconnect attempt. */
export function watchRedis(redis: Redis, log: Logger): void {
  let up = true;
  redis.on('error', (err: Error) => {
    if (!up) return;
    up = false;
    log.error({ err: err.message }, 'redis unavailable: signed calls answer 503 until it is back');
  });
  redis.on('ready', () => {
    if (up) return;
    up = true;
    log.info('redis available again');
  });
}

export interface Runtime {
  ctx: Ctx;
  redis: Redis | null;
  generatedAdminToken: string | null;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, opts: { clock: Clock; log?: Logger; db?: Db }): Promise<Runtime> {
  const log = opts.log ?? createLogger(config.logLevel);
  const metrics = createMetrics({ defaults: true });
  const db = opts.db ?? (await openDatabase(config, { onPoolWait: (s) => metrics.dbPoolWait.observe(s) }));
  await migrate(db);
  // A process killed while it read a statement leaves its temporary folder behind.
  const stale = await removeStaleSpools();
  if (stale > 0) log.info({ removed: stale }, 'temporary statement files of stopped processes removed');
  const box = new SecretBox(resolveMasterKey(config));
  const admin = await resolveAdminToken(config, db);
  // No offline queue: while Redis is down a command fails at once (503) instead of piling up; the
  // client reconnects by itself, backing off up to 2 s.
  // ioredis is loaded only when Redis is configured: the embedded setup never needs it.
  const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : null;
  if (redis) watchRedis(redis, log);
  // Its own pool of the same size: statements' snapshots are connections of their own besides.
  const readDb = config.databaseReadUrl
    ? openReadReplica(db, openPg(config.databaseReadUrl, { max: config.databasePoolSize, applicationName: 'paygate read', connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS }), {
        maxLagSeconds: config.readReplicaMaxLagSeconds,
        clock: opts.clock,
        log,
        metrics,
      })
    : db;
  const ctx: Ctx = {
    config,
    db,
    readDb,
    clock: opts.clock,
    box,
    nonces: redis ? redisNonceStore(redis) : dbNonceStore(db, opts.clock),
    limits: createRateLimits(redis, {}, opts.clock),
    metrics,
    log,
    adminTokenHash: admin.hash,
    callbackAllowlist: parseAllowlist(config.callbackAllowlist),
  };
  sampleBacklogsOnScrape(ctx);
  return {
    ctx,
    redis,
    generatedAdminToken: admin.generated,
    async close() {
      if (redis) redis.disconnect();
      if (readDb !== db) await readDb.close();
      await db.close();
    },
  };
}
