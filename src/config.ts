import { isIP } from 'node:net';
import { Decimal } from 'decimal.js';
import { parseAllowlist } from './callbacks/urlGuard.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** Connections the process keeps open to DATABASE_URL at most. */
  readonly databasePoolSize: number;
  /**
   * DATABASE_READ_URL: a PostgreSQL streaming replica of DATABASE_URL that statements, exports,
   * reports and dashboards read from while it keeps up; null: they read from DATABASE_URL.
   */
  readonly databaseReadUrl: string | null;
  /** READ_REPLICA_MAX_LAG_SECONDS: a replica further behind than this is not read; the primary is. */
  readonly readReplicaMaxLagSeconds: number;
  readonly redisUrl: string | null;
  /** Given in the environment; when null, one is generated and stored on first start. */
  readonly adminToken: string | null;
  /** 32 bytes; when null (embedded mode only) one is generated and stored in DATA_DIR. */
  readonly masterKey: Buffer | null;
  /**
   * PUBLIC_URL (or its older name PUBLIC_BASE_URL): the address customers reach this server at, no
   * trailing slash. Payment pages (`payPageUrl`), payment links and the sandbox bank are given under it.
   */
  readonly publicBaseUrl: string;
  readonly callbackAllowlist: string;
  readonly seedDemo: boolean;
  /**
   * TRUST_PROXY, as Fastify's `trustProxy` takes it: the proxies whose X-Forwarded-For entries are
   * believed (addresses and CIDR ranges), or how many hops are, or every hop (`true`, where a client
   * can choose its own address) or none. The client IP (per-IP limits, sessions) is the last
   * address not trusted.
   */
  readonly trustProxy: boolean | number | readonly string[];
  readonly logLevel: string;
  readonly appealSlaHours: number;
  /** CABINET_SIGNUP: `open` lets anyone create a merchant account from /cabinet/sign-up; `closed` answers 404. */
  readonly cabinetSignup: 'open' | 'closed';
  /** OFFICE_REQUIRE_2FA: every operator (`admin` and `support`) must enrol TOTP at the first sign-in and cannot act before. */
  readonly officeRequire2fa: boolean;
  /** A market rate older than this makes its currency unpriceable. */
  readonly rateMaxAgeSeconds: number;
  /** log2 of scrypt's N for new password hashes (15: N = 32768). */
  readonly passwordScryptLog2N: number;
  /** A market move beyond this percentage is refused and the last good rate kept. */
  readonly rateMaxJumpPercent: Decimal;
  /** Market rate sources, in order of preference; none by default (manual rates only). */
  readonly fxSources: readonly string[];
  readonly fxCbrUrl: string;
  readonly fxEcbUrl: string;
  readonly fxTickerUrl: string;
  /** Callback sends in flight per worker process. */
  readonly callbackConcurrency: number;
  /** Share of those sends one receiving host may hold. */
  readonly callbackHostShare: number;
  /** Webhook endpoint deliveries in flight at once per endpoint, across every instance. */
  readonly webhookEndpointConcurrency: number;
  /** Webhook endpoints one merchant may have. */
  readonly webhookEndpointsPerMerchant: number;
  /** How long SIGTERM/SIGINT waits for requests and sends in flight before the process exits. */
  readonly shutdownGraceMs: number;
  /** After SIGTERM/SIGINT, how long the listener keeps accepting and serving (with /readyz at 503) before it closes; the grace period starts then. */
  readonly shutdownDrainMs: number;
  /** A request whose headers and body have not all arrived by then is answered 408 and its connection closed. */
  readonly requestTimeoutMs: number;
  /** After an order closes unpaid, a pool requisite takes no order of its amount for this long (0: off). */
  readonly requisiteQuarantineMinutes: number;
  /** A credit still matches an order that expired up to this many hours before the money arrived. */
  readonly reconcileLateHours: number;
  /** An unmatched credit recorded longer ago than this raises an alert (src/alerts). */
  readonly alertUnmatchedMinutes: number;
  /** A device not heard from for this long pauses its requisites for new orders (device messages). */
  readonly deviceSilenceMinutes: number;
  /** Device messages dealt with (a credit, skipped, handled by a person) are kept this many days; 0 keeps them for ever. */
  readonly messageRetentionDays: number;
  /** Unread device messages are kept until a person deals with them, or this many days; 0: until dealt with. */
  readonly messageUnreadRetentionDays: number;
  /** Delivered callback events (with their attempts) older than this many days leave the hot tables; 0 keeps every one. */
  readonly retentionDays: number;
  /** True: they move to the archive tables, where an order's callback log still finds them; false: they are deleted. */
  readonly retentionArchive: boolean;
  /** SMTP_URL: the mail server every mail leaves through; null: mails are kept and shown to admins at /office/mail. */
  readonly smtp: SmtpSettings | null;
  /** MAIL_FROM: the sender of every mail, `Name <address>` or an address. */
  readonly mailFrom: string;
  /**
   * Merchant statements read at once by this process (each holds a database read, on PostgreSQL a
   * connection of its own outside the pool, while its client downloads it), in total and per merchant.
   */
  readonly statementExports: { readonly perProcess: number; readonly perMerchant: number };
  /**
   * Other exports (the back office's CSV lists and reports, the cabinet's orders CSV) written at once
   * by this process, in total and per operator or merchant; statements have their own.
   */
  readonly exports: { readonly perProcess: number; readonly perOwner: number };
  /** Port of the separate metrics listener; null: metrics are not served. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  readonly breaker: {
    readonly windowSize: number;
    readonly minSamples: number;
    readonly successRateBelow: number;
    readonly coolDownMs: number;
    readonly halfOpenShare: number;
    readonly halfOpenSuccessesToClose: number;
  };
}

/** A mail server from SMTP_URL. The password is the server's credential: never logged, never in an error. */
export interface SmtpSettings {
  /** smtps://: TLS from the first byte (port 465 by default); smtp://: STARTTLS when the server offers it (587). */
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  readonly user: string | null;
  readonly password: string | null;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}

function fraction(env: Env, name: string, def: number): number {
  const v = str(env, name);
  if (v === undefined) return def;
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(v)) throw new ConfigError(name, `must be a fraction from 0 to 1, got "${v}"`);
  return Number(v);
}

function positiveFraction(env: Env, name: string, def: number): number {
  const v = fraction(env, name, def);
  if (v <= 0) throw new ConfigError(name, `must be a fraction above 0 and at most 1, got "${str(env, name)}"`);
  return v;
}

function allowlist(env: Env): string {
  const v = str(env, 'CALLBACK_ALLOWLIST') ?? '';
  try {
    parseAllowlist(v);
  } catch (err) {
    throw new ConfigError('CALLBACK_ALLOWLIST', (err as Error).message);
  }
  return v;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const v = str(env, name);
  if (v === undefined) return def;
  if (/^(true|1|yes)$/i.test(v)) return true;
  if (/^(false|0|no)$/i.test(v)) return false;
  throw new ConfigError(name, `must be true or false, got "${v}"`);
}

function httpUrl(env: Env, name: string, def: string): string {
  const v = str(env, name) ?? def;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${v}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
  return v.replace(/\/+$/, '');
}

/**
 * PUBLIC_URL, else its older name PUBLIC_BASE_URL (kept working), else `def`: an absolute http(s)
 * address without query or fragment, since order addresses are built by appending `/pay/{id}`.
 */
function publicUrl(env: Env, def: string): string {
  const name = str(env, 'PUBLIC_URL') !== undefined ? 'PUBLIC_URL' : 'PUBLIC_BASE_URL';
  const v = httpUrl(env, name, def);
  const u = new URL(v);
  if (u.search !== '' || u.hash !== '' || v.includes('?') || v.includes('#')) {
    throw new ConfigError(name, `must have no query or fragment (payment pages are at {${name}}/pay/{id}), got "${v}"`);
  }
  return v;
}

/** Parses a 32-byte key given as 64 hex characters or as base64. */
export function parseMasterKey(raw: string, variable = 'MASTER_KEY'): Buffer {
  const v = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) {
    const b = Buffer.from(v, 'base64');
    if (b.length === 32) return b;
  }
  throw new ConfigError(variable, 'must be 32 bytes as 64 hex characters or base64');
}

const SMTP_EXAMPLE = 'smtp://user:password@mail.example.com:587';

/**
 * SMTP_URL: `smtp://` or `smtps://`, the credentials in the URL (percent-encoded). A refusal names
 * the problem and never repeats the value, which holds a password.
 */
function smtpSettings(env: Env): SmtpSettings | null {
  const v = str(env, 'SMTP_URL');
  if (v === undefined) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v)?.[1]?.toLowerCase();
  if (scheme !== 'smtp' && scheme !== 'smtps') {
    throw new ConfigError('SMTP_URL', `must start with smtp:// or smtps://${scheme ? `, not ${scheme}://` : ''} (the credentials in the URL: ${SMTP_EXAMPLE})`);
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError('SMTP_URL', `is not a URL of the form ${SMTP_EXAMPLE}`);
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new ConfigError('SMTP_URL', `names no server: ${SMTP_EXAMPLE}`);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') throw new ConfigError('SMTP_URL', 'takes no path, query or fragment after the server and port');
  const secure = scheme === 'smtps';
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(u.username);
    password = decodeURIComponent(u.password);
  } catch {
    throw new ConfigError('SMTP_URL', 'has a user or password that is not percent-encoded correctly (write @ as %40, : as %3A)');
  }
  if (password !== '' && user === '') throw new ConfigError('SMTP_URL', 'has a password without a user');
  return Object.freeze({ secure, host, port: u.port === '' ? (secure ? 465 : 587) : Number(u.port), user: user || null, password: password || null });
}

const MAIL_ADDRESS = /^[^\s@<>()",;:]{1,64}@[^\s@<>()",;:\[\]]{1,253}$/;

/**
 * MAIL_FROM: `Name <address>` or an address; by default no-reply at the public address's host name
 * (`localhost` when that is an IP address, which no mail server would take as a domain).
 */
function mailFrom(env: Env, publicBaseUrl: string): string {
  const v = str(env, 'MAIL_FROM');
  if (v === undefined) {
    const host = new URL(publicBaseUrl).hostname;
    return `Paygate <no-reply@${isIP(host.replace(/^\[(.*)\]$/, '$1')) === 0 ? host : 'localhost'}>`;
  }
  const named = /^([^<>\r\n]*)<([^<>]*)>$/.exec(v);
  const address = named ? named[2]!.trim() : v;
  if (!MAIL_ADDRESS.test(address) || /[\r\n]/.test(v)) throw new ConfigError('MAIL_FROM', `must be an address (paygate@example.com) or a name and an address (Paygate <paygate@example.com>), got "${v}"`);
  return v;
}

/** The names proxy-addr knows for well-known ranges (loopback: 127.0.0.1/8 and ::1). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function proxyEntryProblem(entry: string): string | null {
  if (PROXY_RANGE_NAMES.includes(entry)) return null;
  const [addr, prefix, extra] = entry.split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || extra !== undefined) return `"${entry}" is not an address or a CIDR range`;
  if (prefix === undefined) return null;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `"${entry}" has a prefix length outside 0–${max}`;
  return null;
}

/**
 * TRUST_PROXY: `true`/`false`, a hop count, or the proxies' addresses and CIDR ranges separated by
 * commas. A number means hops, so the old `1` now trusts the one proxy in front, not every hop.
 */
function trustProxy(env: Env): boolean | number | readonly string[] {
  const v = str(env, 'TRUST_PROXY');
  if (v === undefined || /^(false|no)$/i.test(v)) return false;
  if (/^(true|yes)$/i.test(v)) return true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 20) throw new ConfigError('TRUST_PROXY', `a hop count must be from 0 to 20, got "${v}"`);
    return hops === 0 ? false : hops;
  }
  const entries = v.split(',').map((e) => e.trim());
  for (const e of entries) {
    const problem = e === '' ? 'has an empty entry' : proxyEntryProblem(e);
    if (problem) {
      throw new ConfigError('TRUST_PROXY', `${problem}; give the proxies' addresses or CIDR ranges separated by commas (10.0.0.5,10.1.0.0/16), a hop count, or true/false`);
    }
  }
  return Object.freeze(entries);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const FX_SOURCES = ['cbr', 'ecb', 'ticker'];

/** Reads the environment once into a frozen, typed configuration; a bad value names its variable. */
export function parseConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const databasePoolSize = int(env, 'DATABASE_POOL_SIZE', 10, 1, 500);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const databaseUrl = str(env, 'DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must start with postgres:// or postgresql://');
  }
  const databaseReadUrl = str(env, 'DATABASE_READ_URL') ?? null;
  if (databaseReadUrl !== null && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    throw new ConfigError('DATABASE_READ_URL', 'must start with postgres:// or postgresql://');
  }
  if (databaseReadUrl !== null && databaseUrl === null) {
    // The embedded database lives in this process alone: nothing can replicate it.
    throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL: a read replica is a streaming replica of a PostgreSQL server, and the embedded database has none');
  }
  const redisUrl = str(env, 'REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  }
  const adminToken = str(env, 'ADMIN_TOKEN') ?? null;
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }
  const rawKey = str(env, 'MASTER_KEY');
  const masterKey = rawKey === undefined ? null : parseMasterKey(rawKey);
  if (databaseUrl !== null && masterKey === null) {
    throw new ConfigError('MASTER_KEY', 'is required with DATABASE_URL (32 bytes, hex or base64)');
  }
  // A wildcard listen address is no address to hand to a customer: links then point at loopback.
  const hostForUrl = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const publicBaseUrl = publicUrl(env, `http://${hostForUrl}:${port}`);
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const jump = str(env, 'RATE_MAX_JUMP_PERCENT') ?? '10';
  if (!/^\d+(\.\d+)?$/.test(jump) || new Decimal(jump).lte(0)) {
    throw new ConfigError('RATE_MAX_JUMP_PERCENT', `must be a positive number, got "${jump}"`);
  }
  const fxSources = (str(env, 'FX_SOURCES') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of fxSources) {
    if (!FX_SOURCES.includes(s)) throw new ConfigError('FX_SOURCES', `unknown source "${s}"; known: ${FX_SOURCES.join(', ')}`);
  }
  const cabinetSignup = (str(env, 'CABINET_SIGNUP') ?? 'open').toLowerCase();
  if (cabinetSignup !== 'open' && cabinetSignup !== 'closed') throw new ConfigError('CABINET_SIGNUP', `must be open or closed, got "${cabinetSignup}"`);
  const config: Config = {
    port,
    host,
    dataDir: str(env, 'DATA_DIR') ?? './data',
    databaseUrl,
    databasePoolSize,
    databaseReadUrl,
    readReplicaMaxLagSeconds: int(env, 'READ_REPLICA_MAX_LAG_SECONDS', 30, 0, 86_400),
    redisUrl,
    adminToken,
    masterKey,
    publicBaseUrl,
    callbackAllowlist: allowlist(env),
    seedDemo: bool(env, 'SEED_DEMO', true),
    trustProxy: trustProxy(env),
    logLevel,
    cabinetSignup,
    officeRequire2fa: bool(env, 'OFFICE_REQUIRE_2FA', true),
    appealSlaHours: int(env, 'APPEAL_SLA_HOURS', 24, 1, 24 * 30),
    rateMaxAgeSeconds: int(env, 'RATE_MAX_AGE_SECONDS', 3600, 60, 30 * 86400),
    passwordScryptLog2N: int(env, 'PASSWORD_SCRYPT_LOG2N', 15, 10, 17),
    rateMaxJumpPercent: new Decimal(jump),
    fxSources: Object.freeze(fxSources),
    fxCbrUrl: httpUrl(env, 'FX_CBR_URL', 'https://www.cbr.ru/scripts/XML_daily.asp'),
    fxEcbUrl: httpUrl(env, 'FX_ECB_URL', 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml'),
    fxTickerUrl: httpUrl(env, 'FX_TICKER_URL', 'https://api.binance.com/api/v3/ticker/price'),
    callbackConcurrency: int(env, 'CALLBACK_CONCURRENCY', 256, 1, 10_000),
    callbackHostShare: positiveFraction(env, 'CALLBACK_HOST_SHARE', 0.25),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 64),
    webhookEndpointsPerMerchant: int(env, 'WEBHOOK_ENDPOINTS_PER_MERCHANT', 20, 1, 1000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_SECONDS', 10, 1, 3600) * 1000,
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_SECONDS', 5, 0, 3600) * 1000,
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 600) * 1000,
    requisiteQuarantineMinutes: int(env, 'REQUISITE_QUARANTINE_MINUTES', 15, 0, 1440),
    reconcileLateHours: int(env, 'RECONCILE_LATE_HOURS', 72, 0, 24 * 90),
    alertUnmatchedMinutes: int(env, 'ALERT_UNMATCHED_MINUTES', 30, 1, 10_080),
    deviceSilenceMinutes: int(env, 'DEVICE_SILENCE_MINUTES', 10, 1, 1440),
    messageRetentionDays: int(env, 'MESSAGE_RETENTION_DAYS', 90, 0, 36_500),
    messageUnreadRetentionDays: int(env, 'MESSAGE_UNREAD_RETENTION_DAYS', 365, 0, 36_500),
    retentionDays: int(env, 'RETENTION_DAYS', 90, 0, 36_500),
    retentionArchive: bool(env, 'RETENTION_ARCHIVE', true),
    smtp: smtpSettings(env),
    mailFrom: mailFrom(env, publicBaseUrl),
    statementExports: Object.freeze({
      perProcess: int(env, 'STATEMENT_EXPORTS_PER_PROCESS', 4, 1, 100),
      perMerchant: int(env, 'STATEMENT_EXPORTS_PER_MERCHANT', 2, 1, 100),
    }),
    exports: Object.freeze({
      perProcess: int(env, 'EXPORTS_PER_PROCESS', 4, 1, 100),
      perOwner: int(env, 'EXPORTS_PER_OWNER', 2, 1, 100),
    }),
    metricsPort: str(env, 'METRICS_PORT') === undefined ? null : int(env, 'METRICS_PORT', 0, 0, 65535),
    metricsHost: str(env, 'METRICS_HOST') ?? '127.0.0.1',
    breaker: Object.freeze({
      windowSize: int(env, 'BREAKER_WINDOW', 20, 1, 1000),
      minSamples: int(env, 'BREAKER_MIN_SAMPLES', 10, 1, 1000),
      successRateBelow: fraction(env, 'BREAKER_SUCCESS_RATE_BELOW', 0.5),
      coolDownMs: int(env, 'BREAKER_COOLDOWN_SECONDS', 60, 1, 86400) * 1000,
      halfOpenShare: fraction(env, 'BREAKER_HALF_OPEN_SHARE', 0.1),
      halfOpenSuccessesToClose: int(env, 'BREAKER_HALF_OPEN_SUCCESSES', 5, 1, 1000),
    }),
  };
  return Object.freeze(config);
}
