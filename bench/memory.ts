/**
 * Memory under mixed load: the real server in a process of its own, started as `npm start` starts
 * it (src/ turned into plain JavaScript under dist/, then `node dist/main.js serve`), provisioned through the operator API, then driven for
 * MEMORY_SECONDS (default 300) by load generators in their own processes, all at once: balance,
 * methods, rates, order reads and order creation. The server's resident set size
 * is sampled every 5 s from /proc; the run prints it per minute, the peak, and the growth from the
 * end of the second minute to the end of the run.
 *
 *   DATABASE_URL=postgres://… npm run bench:memory      # PostgreSQL, in a throwaway database
 *   npm run bench:memory                                 # embedded database in a temporary DATA_DIR
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwawayDatabase } from './runtime.js';
import { provisionDesks, ROOT, startPaygate } from './server.js';

const SECONDS = Number(process.env.MEMORY_SECONDS ?? 300);
const DESKS = Number(process.env.BENCH_DESKS ?? 400);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'paygate-memory-'));
  const database = await throwawayDatabase('memory');
  const databaseUrl = database?.url;
  const paygate = await startPaygate({ databaseUrl, dataDir: join(work, 'data') });
  const server = paygate.process;
  const base = paygate.base;
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    for (const c of children) c.kill('SIGTERM');
    await paygate.stop();
    rmSync(work, { recursive: true, force: true });
    await database?.drop().catch(() => {});
  };
  try {
    const desks = await provisionDesks(base, DESKS);
    const desksFile = join(work, 'desks.json');
    writeFileSync(desksFile, JSON.stringify(desks));

    const orderBody = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"memory-{i}"}';
    const jobs = [
      { method: 'GET', path: '/gw/v1/balance', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/methods', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/rates', body: '', desksFile, connections: 4 },
      { method: 'GET', path: '/gw/v1/orders/{order}', body: '', desksFile, connections: 4 },
      { method: 'POST', path: '/gw/v1/orders', body: orderBody, desksFile, connections: 4 },
    ];
    const started = Date.now();
    const samples: { t: number; mb: number }[] = [{ t: 0, mb: rssMb(server.pid!) }];
    const loads = jobs.map(
      (job) =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/loadgen.ts'), JSON.stringify({ url: base, seconds: SECONDS, ...job })], { stdio: ['ignore', 'pipe', 'inherit'] });
          children.push(child);
          let out = '';
          child.stdout!.on('data', (c) => (out += c));
          child.on('exit', () => resolve(`${job.method} ${job.path}: ${out.trim()}`));
        }),
    );
    const sampler = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(server.pid!) }), 5000);
    const results = await Promise.all(loads);
    clearInterval(sampler);
    samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(server.pid!) });

    // Per minute of load: the mean and the peak of that minute's samples (one sample is too noisy:
    // a collection just before it can hide tens of megabytes).
    const minute = (m: number) => samples.filter((x) => x.t > (m - 1) * 60 && x.t <= m * 60).map((x) => x.mb);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`database: ${database ? 'pg' : 'pglite'}; ${SECONDS} s of mixed load, ${DESKS} desks, 20 connections over 5 load generators`);
    for (const r of results) console.log(r);
    console.log(`RSS at the start of the load: ${samples[0]!.mb.toFixed(1)} MB`);
    for (let m = 1; m * 60 <= SECONDS + 5; m++) {
      const xs = minute(m);
      if (xs.length) console.log(`RSS in minute ${m}: mean ${mean(xs).toFixed(1)} MB, peak ${Math.max(...xs).toFixed(1)} MB`);
    }
    console.log(`every sample (s:MB): ${samples.map((x) => `${Math.round(x.t)}:${x.mb.toFixed(0)}`).join(' ')}`);
    if (SECONDS >= 300) console.log(`growth of the mean from minute 2 to minute 5: ${(mean(minute(5)) - mean(minute(2))).toFixed(1)} MB`);
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
