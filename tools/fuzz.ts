/**
 * `npm run fuzz`: the OpenAPI-driven fuzzer (tools/fuzz/engine.ts) at length, against a Paygate it
 * starts itself (`npm start`'s way, on an embedded database in a temporary folder) or against a
 * running one (`--base-url http://127.0.0.1:PORT --admin-token …`, loopback only). Fixtures are
 * made through the API first; a mock `http` provider runs in this process.
 *
 *   FUZZ_SEED=42 FUZZ_REQUESTS=20000 npm run fuzz
 *   npm run fuzz -- --base-url http://127.0.0.1:8080 --admin-token "$ADMIN_TOKEN"
 *
 * Environment: FUZZ_SEED (default: the time; printed, so a run can be repeated), FUZZ_REQUESTS
 * (default 5000, spread over the operations), FUZZ_TIME_SECONDS (default 300), FUZZ_CONCURRENCY
 * (default 1; only 1 repeats a run request for request), FUZZ_SKIP_CHECKS (comma-separated check
 * names, e.g. `nosniff`). Exit status 1 when anything was found.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startPaygate, type PaygateProcess } from '../bench/server.js';
import { CHECKS, type CheckName } from './fuzz/check.js';
import { formatFindings, fuzz, operationsOf } from './fuzz/engine.js';
import { loopbackPort } from './fuzz/http.js';
import { provisionFixtures } from './fuzz/provision.js';
import { startMockProvider } from './mock-provider.js';

const { values: args } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    'admin-token': { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

const int = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
};

const seed = int('FUZZ_SEED', Date.now() % 2_147_483_647);
const requests = int('FUZZ_REQUESTS', 5000);
const timeSeconds = int('FUZZ_TIME_SECONDS', 300);
const concurrency = Math.max(1, int('FUZZ_CONCURRENCY', 1));
const skip = (process.env.FUZZ_SKIP_CHECKS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
for (const c of skip) if (!(CHECKS as readonly string[]).includes(c)) throw new Error(`FUZZ_SKIP_CHECKS: unknown check "${c}"; known: ${CHECKS.join(', ')}`);

let server: PaygateProcess | null = null;
let dataDir: string | null = null;
let baseUrl = args['base-url'];
let adminToken = args['admin-token'] ?? process.env.ADMIN_TOKEN;
if (baseUrl) {
  loopbackPort(baseUrl);
  if (!adminToken) throw new Error('--base-url needs --admin-token (or ADMIN_TOKEN)');
} else {
  dataDir = mkdtempSync(join(tmpdir(), 'paygate-fuzz-'));
  adminToken = `fuzz-${randomBytes(12).toString('hex')}`;
  process.stdout.write(`starting Paygate on an embedded database in ${dataDir}\n`);
  // Callbacks may only go to this machine: the fixtures' desks call back to a closed loopback port.
  server = await startPaygate({ dataDir, env: { ADMIN_TOKEN: adminToken, CALLBACK_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn' } });
  baseUrl = server.base;
}

const providerKey = `prv_fuzz_${randomBytes(4).toString('hex')}`;
const providerSecret = randomBytes(24).toString('hex');
const mock = await startMockProvider({ key: providerKey, secret: providerSecret });
try {
  const fixtures = await provisionFixtures({
    baseUrl,
    adminToken: adminToken!,
    now: Date.now,
    httpProvider: { url: mock.url, key: providerKey, secret: providerSecret },
    callbackUrl: 'http://127.0.0.1:9/callbacks',
  });
  const document = (await (await request(`${baseUrl}/openapi.json`)).body.json()) as Record<string, any>;
  const ops = operationsOf(document);
  process.stdout.write(`fuzzing ${ops.length} operations of ${baseUrl}: seed ${seed}, ${requests} requests, at most ${timeSeconds} s\n`);
  let done = 0;
  const report = await fuzz({
    document,
    baseUrl,
    seed,
    requests,
    timeBudgetMs: timeSeconds * 1000,
    concurrency,
    credentials: fixtures.credentials,
    ids: fixtures.ids,
    hints: fixtures.hints,
    harvestIds: true,
    skipChecks: skip as CheckName[],
    onRequest: (e) => {
      done++;
      if (args.verbose) process.stdout.write(`${e.status ?? '---'} ${e.violations ? '!' : ' '} ${e.summary.slice(0, 200)}\n      → ${e.answer.slice(0, 200)}\n`);
      else if (done % 500 === 0) process.stdout.write(`  ${done} requests\n`);
    },
  });
  const statuses = Object.entries(report.statuses).sort().map(([s, n]) => `${s}×${n}`).join(' ');
  process.stdout.write(
    `\n${report.requests} requests (+${report.protocolRequests} protocol) over ${report.operations} operations in ${(report.elapsedMs / 1000).toFixed(1)} s` +
      `${report.stoppedByTime ? ' (stopped by the time limit)' : ''}; seed ${seed}\nstatuses: ${statuses}\nchecks: ${report.checks.join(', ')}\n`,
  );
  if (report.findings.length === 0) {
    process.stdout.write('no findings\n');
  } else {
    const byCheck = new Map<string, number>();
    for (const f of report.findings) byCheck.set(f.check, (byCheck.get(f.check) ?? 0) + 1);
    process.stdout.write(`\n${report.findings.length} findings (${[...byCheck].map(([c, n]) => `${c} ${n}`).join(', ')}):\n\n${formatFindings(report.findings)}\n`);
    process.exitCode = 1;
  }
} finally {
  await mock.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
