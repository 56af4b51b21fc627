import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
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
import { migrate } from './store/migrate.js';
import { parseAllowlist } from './callbacks/urlGuard.js';
import { getSetting, putSettingIfAbsent } from './store/settings.js';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'paygate' },
    // Defence in depth: signing headers, tokens and secrets never reach a log line even if an object holding them is logged.
    redact: {
      paths: ['secret', '*.secret', 'headers.authorization', 'headers["x-gate-sign"]', 'req.headers.authorization', 'req.headers["x-gate-sign"]', 'adminToken', 'masterKey'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export async function openDatabase(config: Config): Promise<Db> {
  if (config.databaseUrl) return openPg(config.databaseUrl);
  mkdirSync(config.dataDir, { recursive: true });
  return openPglite(join(config.dataDir, 'pg'));
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

export interface Runtime {
  ctx: Ctx;
  redis: Redis | null;
  generatedAdminToken: string | null;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, opts: { clock: Clock; log?: Logger; db?: Db }): Promise<Runtime> {
  const log = opts.log ?? createLogger(config.logLevel);
  const db = opts.db ?? (await openDatabase(config));
  await migrate(db);
  const box = new SecretBox(resolveMasterKey(config));
  const admin = await resolveAdminToken(config, db);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }) : null;
  if (redis) redis.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const ctx: Ctx = {
    config,
    db,
    clock: opts.clock,
    box,
    nonces: redis ? redisNonceStore(redis) : dbNonceStore(db, opts.clock),
    limits: createRateLimits(redis),
    metrics: createMetrics({ defaults: true }),
    log,
    adminTokenHash: admin.hash,
    callbackAllowlist: parseAllowlist(config.callbackAllowlist),
  };
  return {
    ctx,
    redis,
    generatedAdminToken: admin.generated,
    async close() {
      if (redis) redis.disconnect();
      await db.close();
    },
  };
}
