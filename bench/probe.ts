/**
 * Probes of a running server while something heavy runs on it, from a process of their own so the
 * heavy work's reader never delays them: `GET /healthz` and a signed `GET /gw/v1/balance`, each at
 * `rate` per second, one after another (a probe that is late is not joined by the next). It probes
 * from the start (so its connections and code are warm) but counts only from the first line on its
 * standard input, the moment the heavy work starts; when its input closes it prints one JSON line:
 * each probe's count, p50, p99 and max in milliseconds, and answers that were not 200.
 *
 *   tsx bench/probe.ts '{"url":…,"desk":{"key":…,"secret":…},"rate":20}'
 */
import { randomBytes } from 'node:crypto';
import { signRequest } from '../src/signing.js';

interface Job {
  url: string;
  desk: { key: string; secret: string };
  /** Probes per second of each kind. */
  rate: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
let on = true;
let counting = false;
process.stdin.on('data', () => (counting = true));
process.stdin.on('end', () => (on = false));
process.stdin.on('close', () => (on = false));
process.stdin.resume();

async function timed(get: () => Promise<Response>): Promise<{ ms: number; ok: boolean }> {
  const t = performance.now();
  try {
    const res = await get();
    await res.arrayBuffer();
    return { ms: performance.now() - t, ok: res.status === 200 };
  } catch {
    return { ms: performance.now() - t, ok: false };
  }
}

function balance(): Promise<Response> {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const sign = signRequest(job.desk.secret, ts, nonce, 'GET', '/gw/v1/balance', '');
  return fetch(`${job.url}/gw/v1/balance`, { headers: { 'x-gate-key': job.desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sign } });
}

async function loop(get: () => Promise<Response>): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  const every = 1000 / job.rate;
  let next = performance.now();
  while (on) {
    const counted = counting;
    const r = await timed(get);
    if (counted) {
      ms.push(r.ms);
      if (!r.ok) failed++;
    }
    next += every;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    else next = performance.now();
  }
  return { ms, failed };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : 0;
};
const summary = (r: { ms: number[]; failed: number }) => ({ n: r.ms.length, p50: pct(r.ms, 50), p99: pct(r.ms, 99), max: r.ms.length ? Math.max(...r.ms) : 0, failed: r.failed });

const [health, bal] = await Promise.all([loop(() => fetch(`${job.url}/healthz`)), loop(balance)]);
process.stdout.write(`${JSON.stringify({ health: summary(health), balance: summary(bal) })}\n`);
