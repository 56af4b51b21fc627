/**
 * The credit feed's load generator, run as its own process so it never shares an event loop with
 * the server it measures: autocannon sends each prepared credit once, `batch` to a request, signed
 * like a bank poller signs them (`X-Gate-*` with the pool provider's key and secret). Prints one
 * JSON line: requests, credits sent, the seconds it took and the answers that were not 200.
 *
 *   tsx bench/feedgen.ts '{"url":…,"providerId":…,"key":…,"secret":…,"creditsFile":…,"batch":100,"connections":4}'
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { newProviderMessageId, signProviderRequestHeaders } from '../src/providers/providerMessages.js';

interface Job {
  url: string;
  providerId: string;
  key: string;
  secret: string;
  /** JSON array of `{account, amount}`: each becomes one credit, received now. */
  creditsFile: string;
  batch: number;
  connections: number;
  /** Prefix of the transaction ids, so two runs on one database never collide. */
  run: string;
}

const job = JSON.parse(process.argv[2]) as Job;
const credits = JSON.parse(readFileSync(job.creditsFile, 'utf8')) as { account: string; amount: string }[];
const requests = Math.ceil(credits.length / job.batch);
const path = `/providers/v1/${job.providerId}/credits`;
let next = 0;
let refusals = 0;

const started = process.hrtime.bigint();
// The time of the last answer: autocannon calls back on its next one-second tick after the last
// request of a fixed amount, which would add up to a second to every run.
let lastAnswer = started;
autocannon(
  {
    url: job.url,
    connections: job.connections,
    amount: requests,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest(req: any) {
          const from = (next++ % requests) * job.batch;
          const receivedAt = new Date().toISOString();
          const items = credits.slice(from, from + job.batch).map((c, i) => ({
            transactionId: `${job.run}-${from + i}`,
            account: c.account,
            amount: c.amount,
            currency: 'RUB',
            receivedAt,
            payer: 'IVAN I.',
            reference: null,
          }));
          const body = JSON.stringify({ credits: items });
          const headers = signProviderRequestHeaders(job.key, job.secret, newProviderMessageId(), Date.now() / 1000, body);
          return { ...req, path, headers: { 'content-type': 'application/json', ...headers }, body };
        },
        onResponse(status: number, body: string) {
          lastAnswer = process.hrtime.bigint();
          if (status !== 200 && refusals++ < 3) process.stderr.write(`feed answered ${status}: ${body.slice(0, 300)}\n`);
        },
      },
    ],
  },
  (err, r) => {
    if (err) throw err;
    const seconds = Number(lastAnswer - started) / 1e9;
    process.stdout.write(
      JSON.stringify({ requests: r.requests.total, credits: credits.length, seconds, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx }) + '\n',
    );
  },
);
