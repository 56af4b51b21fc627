/**
 * Order-path benchmark: Paygate's signed endpoints against bare endpoints on the same database,
 * driven by an external load generator (bench/loadgen.ts, autocannon in its own process, signing
 * every request over a pool of 400 sandbox desks so the per-desk order limit never triggers).
 * Loopback only, bounded in time. Prints each scenario and its ratio to the baselines.
 *
 *   npm run bench                                   # embedded database (PGlite)
 *   DATABASE_URL=postgres://… npm run bench         # PostgreSQL, in a throwaway database
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwawayDatabase } from './runtime.js';
import { provisionDesks, startBare, startPaygate } from './server.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function loadgen(name: string, job: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./loadgen.ts', import.meta.url).pathname, JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, ...job })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator for ${name} exited ${code}`));
      resolve({ name, ...JSON.parse(out.trim().split('\n').at(-1)!) });
    });
  });
}

async function main() {
  const database = await throwawayDatabase('bench');
  const work = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const bare = await startBare({ databaseUrl: database?.url, dataDir: join(work, 'bare') });
  const paygate = await startPaygate({ databaseUrl: database?.url, dataDir: join(work, 'data') });
  const stop = async () => {
    await paygate.stop();
    await bare.stop();
    rmSync(work, { recursive: true, force: true });
    await database?.drop();
  };
  try {
    await measure(bare.base, paygate.base, join(work, 'desks.json'), database ? 'pg' : 'pglite');
    console.log(`the server wrote ${(paygate.logBytes() / 1e6).toFixed(1)} MB of log lines at its default level`);
  } finally {
    await stop();
  }
}

async function measure(bareUrl: string, url: string, desksFile: string, kind: string) {
  writeFileSync(desksFile, JSON.stringify(await provisionDesks(url, DESKS)));
  const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"bench-{i}"}';

  const results: Result[] = [];
  results.push(await loadgen('baseline: GET SELECT 1', { url: bareUrl, method: 'GET', path: '/select1', body: '' }));
  results.push(await loadgen('baseline: POST hash + HMAC + INSERT', { url: bareUrl, method: 'POST', path: '/bare', body: orderBody, desksFile }));
  // BENCH_ONLY=orders (or a path fragment) narrows the Paygate scenarios, e.g. for a CPU profile of one of them.
  const only = process.env.BENCH_ONLY;
  const pick = (name: string) => !only || name.includes(only);
  for (const path of ['/gw/v1/balance', '/gw/v1/methods', '/gw/v1/rates', '/gw/v1/orders/{order}']) {
    if (pick(`GET ${path}`)) results.push(await loadgen(`GET ${path}`, { url, method: 'GET', path, body: '', desksFile }));
  }
  if (pick('POST /gw/v1/orders')) results.push(await loadgen('POST /gw/v1/orders', { url, method: 'POST', path: '/gw/v1/orders', body: orderBody, desksFile }));

  const [select1, insert] = results;
  // The spec's order limit (30 per 10 s per desk, in fixed windows) caps the scenario itself.
  const orderCeiling = (DESKS * 30 * Math.ceil(SECONDS / 10)) / SECONDS;
  console.log(`database: ${kind}; ${CONNECTIONS} connections, ${SECONDS} s each, ${DESKS} desks, load generator in its own process`);
  console.log('scenario'.padEnd(38), 'req/s'.padStart(8), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), 'errors'.padStart(7), 'non-2xx'.padStart(8), 'vs INSERT'.padStart(10), 'vs SELECT 1'.padStart(12));
  for (const r of results) {
    console.log(
      r.name.padEnd(38), r.rps.toFixed(0).padStart(8), String(r.p50).padStart(7), String(r.p99).padStart(7), String(r.errors).padStart(7), String(r.non2xx).padStart(8),
      (r.rps / insert.rps).toFixed(2).padStart(10), (r.rps / select1.rps).toFixed(2).padStart(12),
    );
  }
  const created = results.find((r) => r.name.startsWith('POST /gw/v1/orders'));
  if (created && created.rps >= 0.95 * orderCeiling) {
    console.log(`POST /gw/v1/orders reached the per-desk order limit: ${DESKS} desks × 30 per 10 s allow at most ${orderCeiling.toFixed(0)}/s over ${SECONDS} s; BENCH_DESKS=1500 measures the path itself`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
