import { systemClock } from './clock.js';
import { ConfigError, parseConfig, type Config } from './config.js';
import type { DemoSeed } from './seed.js';
import { migrate, SchemaTooNewError } from './store/migrate.js';
import { DataDirInUseError } from './store/dataDirLock.js';
import { startTracing, stopTracing } from './telemetry/index.js';
import type { RunningLoop } from './workers/loop.js';

// The runtime, the app and the workers are imported when a command needs them, not above: loading
// them (Fastify, every route, the workers) takes more than a second of CPU, which --help, a
// configuration error and a start refused on a DATA_DIR in use would otherwise spend for nothing.

type Role = 'api' | 'worker' | 'all';

function parseRole(argv: string[]): Role {
  const i = argv.indexOf('--role');
  const v = i >= 0 ? argv[i + 1] : 'all';
  if (v !== 'api' && v !== 'worker' && v !== 'all') throw new ConfigError('--role', 'must be api, worker or all');
  return v;
}

function banner(config: Config, seed: DemoSeed | null, adminToken: string | null): string {
  const lines: string[] = [];
  const base = config.publicBaseUrl;
  if (adminToken) {
    lines.push('', 'Operator API token (shown once; only its hash is stored):', `  ADMIN_TOKEN=${adminToken}`);
  }
  if (seed) {
    const ts = '$(date +%s)';
    lines.push(
      '',
      'Demo cash desk (sandbox merchant, method Classic, rails Sbp and C2c, currency RUB):',
      `  desk key:    ${seed.deskKey}`,
      `  desk secret: ${seed.deskSecret}   (shown once)`,
      '',
      'A signed call, ready to paste:',
      `  KEY='${seed.deskKey}' SECRET='${seed.deskSecret}'`,
      `  TS=${ts}; NONCE=$(openssl rand -hex 12); BODY=''`,
      `  SIG=$(printf '%s' "$TS.$NONCE.GET./gw/v1/methods.$(printf '%s' "$BODY" | sha256sum | cut -d' ' -f1)" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')`,
      `  curl -s ${base}/gw/v1/methods -H "X-Gate-Key: $KEY" -H "X-Gate-Ts: $TS" -H "X-Gate-Nonce: $NONCE" -H "X-Gate-Sign: $SIG"`,
      '',
    );
  }
  return lines.join('\n');
}

async function serve(config: Config, role: Role): Promise<void> {
  // Before the runtime is loaded: the instrumentations patch pg and ioredis as they are imported.
  // Without OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry is loaded.
  const tracing = await startTracing(process.env);
  const { batchedStdout, createLogger, createRuntime } = await import('./runtime.js');
  const log = createLogger(config.logLevel, batchedStdout());
  const runtime = await createRuntime(config, { clock: systemClock, log });
  const { ctx } = runtime;
  // Loaded once the database is open and ours: a start refused on a DATA_DIR in use never needs them.
  const [{ seedDemo }, { buildApp }, { buildMetricsApp }, { startWorkers }] = await Promise.all([
    import('./seed.js'),
    import('./app/buildApp.js'),
    import('./http/health.js'),
    import('./workers/index.js'),
  ]);
  const seed = config.seedDemo && !config.databaseUrl ? await seedDemo(ctx) : null;

  let loops: RunningLoop[] = [];
  let ready = false;
  let shuttingDown = false;
  const app = buildApp(ctx, { ready: () => ready, shuttingDown: () => shuttingDown, redis: runtime.redis });
  const metricsApp = config.metricsPort !== null ? buildMetricsApp(ctx) : null;
  if (role !== 'api') loops = startWorkers(ctx);
  await app.listen({ port: config.port, host: config.host });
  if (metricsApp) await metricsApp.listen({ port: config.metricsPort!, host: config.metricsHost });
  // Printed once the port is ours, so the example call it shows works as printed. Plain text on
  // stderr: it holds secrets, and stdout is the JSON log that collectors ship.
  const text = banner(config, seed, runtime.generatedAdminToken);
  if (text) process.stderr.write(text + '\n');
  ready = true;
  log.info({ role, port: config.port, host: config.host, metricsPort: config.metricsPort, db: ctx.db.kind, redis: !!runtime.redis, tracing }, 'paygate ready');

  let endDrain: (() => void) | null = null;
  const shutdown = async (signal: string) => {
    if (shuttingDown) {
      // Ctrl-C again: a person at a terminal, with no balancer to drain from, wants out now. A
      // repeated SIGTERM does not cut the drain short: supervisors may deliver it twice (systemd
      // signals every process of the unit, and `npm start` forwards its own copy to the server).
      if (signal === 'SIGINT' && endDrain) {
        log.info({ signal }, 'second SIGINT; ending the drain now');
        endDrain();
      }
      return;
    }
    shuttingDown = true;
    // A worker-only process gets no merchant traffic (its listener serves health checks), so it has nothing to drain.
    const drainMs = role === 'worker' ? 0 : config.shutdownDrainMs;
    log.info({ signal, drainMs, graceMs: config.shutdownGraceMs }, 'shutting down');
    // The drain: /readyz answers 503 from now on, so balancers take this instance out of rotation,
    // while the listener keeps accepting and serving what is still sent here meanwhile. Closing it
    // at once would reset the connections still waiting in the accept queue. Every answer from now
    // on closes its connection (app.ts), so keep-alive clients reconnect, through the balancer,
    // elsewhere, and none is left on a connection this process closes under it.
    if (drainMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        endDrain = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endDrain = null;
    }
    const deadline = Date.now() + config.shutdownGraceMs;
    const overdue = setTimeout(() => {
      log.error({ graceMs: config.shutdownGraceMs }, 'grace period over; exiting with work unfinished');
      process.exit(1);
    }, config.shutdownGraceMs);
    overdue.unref();
    try {
      // The listener stops accepting, idle keep-alive connections are closed, requests in flight finish.
      log.info('closing the listener');
      await Promise.all([app.close(), metricsApp?.close()]);
      // Sends still in flight near the deadline are recorded as interrupted and resent elsewhere.
      await Promise.all(loops.map((l) => l.stop(Math.max(0, deadline - Date.now() - 1_000))));
      await runtime.close();
      // The spans of the last requests and attempts are sent before the process ends.
      await stopTracing().catch((err) => log.warn({ err: (err as Error).message }, 'spans not sent at shutdown'));
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

const HELP = `Usage: paygate <command> [options]

Commands:
  serve [--role api|worker|all]   run the HTTP API and/or the background workers (default: all)
  migrate                         apply database migrations and exit
  help, --help, -h                print this help

Configuration comes from environment variables; see README.md (PORT, HOST, DATA_DIR,
DATABASE_URL, REDIS_URL, ADMIN_TOKEN, MASTER_KEY, METRICS_PORT, SHUTDOWN_DRAIN_SECONDS, SHUTDOWN_GRACE_SECONDS, ...).
`;

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  if (command === '--help' || command === '-h' || command === 'help' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const config = parseConfig(process.env);
  if (command === 'migrate') {
    const { openDatabase } = await import('./runtime.js');
    const db = await openDatabase(config);
    const applied = await migrate(db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
    await db.close();
    return;
  }
  if (command === 'serve') return serve(config, parseRole(rest));
  throw new ConfigError('command', `unknown command "${command}"; use serve [--role api|worker|all], migrate or --help`);
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof SchemaTooNewError || err instanceof DataDirInUseError) {
    process.stderr.write(`paygate: ${err.message}\n`);
  } else {
    process.stderr.write(`paygate: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
