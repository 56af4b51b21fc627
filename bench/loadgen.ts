/**
 * The load generator, run as its own process so it never shares an event loop with the servers it
 * measures: autocannon with per-request signing over a pool of desks. Prints one JSON line.
 *
 *   tsx bench/loadgen.ts '{"url":…,"method":"GET","path":"/gw/v1/balance","body":"","desksFile":…}'
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { signRequest } from '../src/signing.js';

interface Job {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  /** `{i}` in the body is replaced by a counter, so each order gets its own reference where wanted. */
  body: string;
  /** Desks to sign with, taken in turn; none for an unsigned baseline. */
  desksFile?: string;
  connections: number;
  seconds: number;
  /** Requests per second over all connections, when the load is paced rather than as fast as the server answers. */
  overallRate?: number;
}

const job = JSON.parse(process.argv[2]) as Job;
const desks: { key: string; secret: string; orderId?: string }[] = job.desksFile ? JSON.parse(readFileSync(job.desksFile, 'utf8')) : [];
let n = 0;

const opts: autocannon.Options = {
  url: job.url,
  connections: job.connections,
  duration: job.seconds,
  ...(job.overallRate ? { overallRate: job.overallRate } : {}),
  requests: [
    {
      method: job.method,
      path: job.path,
      setupRequest(req: any) {
        const i = n++;
        const body = job.body.replace('{i}', String(i));
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        let path = job.path;
        if (desks.length) {
          const desk = desks[i % desks.length];
          path = path.replace('{order}', desk.orderId ?? '');
          const ts = String(Math.floor(Date.now() / 1000));
          const nonce = randomBytes(12).toString('hex');
          headers['x-gate-key'] = desk.key;
          headers['x-gate-ts'] = ts;
          headers['x-gate-nonce'] = nonce;
          headers['x-gate-sign'] = signRequest(desk.secret, ts, nonce, job.method, path.split('?')[0], body);
        }
        return { ...req, path, headers, body: job.method === 'GET' ? undefined : body };
      },
    },
  ],
};

autocannon(opts, (err, r) => {
  if (err) throw err;
  process.stdout.write(JSON.stringify({ rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx }) + '\n');
});
