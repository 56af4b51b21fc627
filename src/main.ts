import { systemClock } from './clock.js';
import { ConfigError, parseConfig, type Config } from './config.js';
import { buildApp } from './http/app.js';
import { createLogger, createRuntime, openDatabase } from './runtime.js';
import { seedDemo, type DemoSeed } from './seed.js';
import { migrate, SchemaTooNewError } from './store/migrate.js';
import { startWorkers } from './workers/index.js';
import type { RunningLoop } from './workers/loop.js';

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
  const log = createLogger(config.logLevel);
  const runtime = await createRuntime(config, { clock: systemClock, log });
  const { ctx } = runtime;
  const seed = config.seedDemo && !config.databaseUrl ? await seedDemo(ctx) : null;

  let loops: RunningLoop[] = [];
  let ready = false;
  const app = buildApp(ctx, { ready: () => ready });
  if (role !== 'api') loops = startWorkers(ctx);
  await app.listen({ port: config.port, host: config.host });
  // Printed once the port is ours, so the example call it shows works as printed.
  const text = banner(config, seed, runtime.generatedAdminToken);
  if (text) process.stdout.write(text + '\n');
  ready = true;
  log.info({ role, port: config.port, host: config.host, db: ctx.db.kind, redis: !!runtime.redis }, 'paygate ready');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    ready = false;
    await app.close();
    await Promise.all(loops.map((l) => l.stop()));
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  const config = parseConfig(process.env);
  if (command === 'migrate') {
    const db = await openDatabase(config);
    const applied = await migrate(db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
    await db.close();
    return;
  }
  if (command === 'serve') return serve(config, parseRole(rest));
  throw new ConfigError('command', `unknown command "${command}"; use serve [--role api|worker|all] or migrate`);
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof SchemaTooNewError) {
    process.stderr.write(`paygate: ${err.message}\n`);
  } else {
    process.stderr.write(`paygate: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
