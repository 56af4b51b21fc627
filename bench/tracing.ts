/**
 * What tracing costs the order path: `POST /gw/v1/orders` on the real server with tracing off and
 * with tracing on (every span exported over OTLP/HTTP to a receiver here that counts and discards
 * them), in turns (off, on, off, on …) so a change in the machine's load falls on both, beside the
 * bare INSERT endpoint as the yardstick. Each server takes orders as fast as it answers, then at a
 * steady BENCH_RATE; besides throughput, the server's own CPU time per order is read from /proc,
 * which moves far less than throughput on a machine shared with other work. Prints each run and
 * the ratios on/off.
 *
 *   npx tsx bench/tracing.ts                        # embedded database (PGlite)
 *   DATABASE_URL=postgres://… npx tsx bench/tracing.ts   # PostgreSQL, in a throwaway database
 *
 * BENCH_ROUNDS (2) pairs of runs, each BENCH_SECONDS (8) with BENCH_CONNECTIONS (32), BENCH_DESKS (400).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwawayDatabase } from './runtime.js';
import { provisionDesks, startBare, startPaygate } from './server.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** The paced runs' requests per second: below what the machine serves, so nothing queues or drops. */
const RATE = Number(process.env.BENCH_RATE ?? 50);

interface Result {
  /** The server's CPU time (user and system) per request answered, in ms, export of its spans included. */
  cpuMs?: number;
  rps: number;
  total: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function loadgen(job: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./loadgen.ts', import.meta.url).pathname, JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, ...job })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load generator exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
}

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/{pid}/stat's CPU times. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time the process has used, user and system, in clock ticks. On a machine shared with other
 * work, throughput moves with everyone's load; the CPU an order costs the server moves much less.
 */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, utime field 14 and stime field 15 (1-based, name counted).
  return Number(fields[11]) + Number(fields[12]);
}

/** An OTLP/HTTP receiver that reads every export, counts its spans and throws them away. */
async function discardingReceiver(): Promise<{ url: string; spans(): number; close(): Promise<void> }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function main() {
  const database = await throwawayDatabase('bench_tracing');
  const work = mkdtempSync(join(tmpdir(), 'paygate-bench-tracing-'));
  const receiver = await discardingReceiver();
  const bare = await startBare({ databaseUrl: database?.url, dataDir: join(work, 'bare') });
  const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"bench-{i}"}';
  const rows: { name: string; r: Result; spans?: number }[] = [];
  // The yardstick hashes and signs every request as the gateway does, with a secret of its own.
  const bareDesks = join(work, 'desks-bare.json');
  writeFileSync(bareDesks, JSON.stringify([{ key: 'bare', secret: 'secret' }]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      rows.push({ name: 'yardstick: POST hash + HMAC + INSERT', r: await loadgen({ url: bare.base, method: 'POST', path: '/bare', body: orderBody, desksFile: bareDesks }) });
      for (const traced of [false, true]) {
        const dataDir = join(work, `data-${round}-${traced ? 'on' : 'off'}`);
        // The batch processor's defaults (a batch every 5 s or every 512 spans), as in production.
        const paygate = await startPaygate({ databaseUrl: database?.url, dataDir, env: traced ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : {} });
        try {
          const desksFile = join(work, `desks-${round}-${traced}.json`);
          writeFileSync(desksFile, JSON.stringify(await provisionDesks(paygate.base, DESKS)));
          // As fast as the server answers, then paced at RATE: at saturation the batch processor
          // drops what it cannot send in time (it never holds the requests up), so the paced run is
          // the one that exports every span and shows what they cost.
          for (const rate of [0, RATE]) {
            const before = receiver.spans();
            const cpuBefore = cpuTicks(paygate.process.pid!);
            const r = await loadgen({ url: paygate.base, method: 'POST', path: '/gw/v1/orders', body: orderBody, desksFile, ...(rate ? { overallRate: rate } : {}) });
            // What the last batches hold leaves within the 5 s schedule; both runs wait as long, so
            // the workers' idle polling costs both the same (and the desks' order windows pass).
            await new Promise((res) => setTimeout(res, 10_000));
            r.cpuMs = ((cpuTicks(paygate.process.pid!) - cpuBefore) * 1000) / TICKS_PER_SECOND / Math.max(1, r.total);
            rows.push({ name: `orders${rate ? ` at ${rate}/s` : ''}, tracing ${traced ? 'on' : 'off'}`, r, spans: traced ? (receiver.spans() - before) / Math.max(1, r.total) : undefined });
          }
        } finally {
          await paygate.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await bare.stop();
    await receiver.close();
    rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }

  console.log(`database: ${database ? 'pg' : 'pglite'}; ${CONNECTIONS} connections, ${SECONDS} s each, ${DESKS} desks, ${ROUNDS} rounds, load generator in its own process`);
  console.log('run'.padEnd(40), 'req/s'.padStart(8), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), 'errors'.padStart(7), 'non-2xx'.padStart(8), 'CPU ms/req'.padStart(11), 'spans/req'.padStart(10));
  for (const { name, r, spans } of rows) {
    const perRequest = spans === undefined ? '' : spans.toFixed(1);
    const cpu = r.cpuMs === undefined ? '' : r.cpuMs.toFixed(2);
    console.log(name.padEnd(40), r.rps.toFixed(0).padStart(8), String(r.p50).padStart(7), String(r.p99).padStart(7), String(r.errors).padStart(7), String(r.non2xx).padStart(8), cpu.padStart(11), perRequest.padStart(10));
  }
  const mean = (paced: boolean, on: boolean, of: (r: Result) => number) => {
    const runs = rows.filter((x) => x.name === `orders${paced ? ` at ${RATE}/s` : ''}, tracing ${on ? 'on' : 'off'}`);
    return runs.reduce((s, x) => s + of(x.r), 0) / runs.length;
  };
  const rps = (r: Result) => r.rps;
  const cpu = (r: Result) => r.cpuMs!;
  const yard = rows.filter((x) => x.name.startsWith('yardstick')).reduce((s, x) => s + x.r.rps, 0) / ROUNDS;
  console.log(`saturated, mean req/s: tracing off ${mean(false, false, rps).toFixed(0)} (${(mean(false, false, rps) / yard).toFixed(2)} of the yardstick), on ${mean(false, true, rps).toFixed(0)} (${(mean(false, true, rps) / yard).toFixed(2)}); on/off ${(mean(false, true, rps) / mean(false, false, rps)).toFixed(2)}`);
  for (const paced of [false, true]) {
    console.log(`${paced ? `at ${RATE}/s` : 'saturated'}, mean server CPU per order: tracing off ${mean(paced, false, cpu).toFixed(2)} ms, on ${mean(paced, true, cpu).toFixed(2)} ms; on/off ${(mean(paced, true, cpu) / mean(paced, false, cpu)).toFixed(2)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
