/**
 * Replays a CSV of incoming transfers into Paygate's credit feed, as a bank poller or a device that
 * forwards bank notifications would: `POST /providers/v1/{providerId}/credits`, signed with the
 * pool provider's key and secret, up to 500 credits (and under 1 MiB) per request, each request
 * retried with back-off until it is answered. The feed is idempotent by `transactionId`, so a
 * request sent twice, or the whole file replayed again, records each transfer once.
 *
 *   PAYGATE_BASE_URL=http://127.0.0.1:8080 PROVIDER_ID=prv_… PROVIDER_KEY=pvk_… PROVIDER_SECRET=sk_… \
 *     npx tsx examples/credit-feed/replay.ts transfers.csv
 *
 * The CSV has the header `transactionId,account,amount,currency,receivedAt,payer,reference`
 * (the statement upload's CSV): `amount` a decimal with at most 2 places, `receivedAt` ISO 8601
 * with a zone. Only node:crypto and csv-parse are used, so the file can be copied out as it is.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';

export interface FeedCredentials {
  baseUrl: string;
  providerId: string;
  key: string;
  secret: string;
}

export interface FeedCredit {
  transactionId: string;
  account: string;
  amount: string;
  currency: string;
  receivedAt: string;
  payer: string | null;
  reference: string | null;
}

export interface FeedAnswer {
  transactionId: string;
  creditId: string;
  status: 'matched' | 'unmatched' | 'ignored';
  orderId: string | null;
  duplicate: boolean;
}

/** The feed takes 1–500 credits and at most 1 MiB per request; stay a little under the byte limit. */
export const MAX_CREDITS = 500;
export const MAX_BYTES = 1024 * 1024 - 1024;

/**
 * The four headers: `X-Gate-Sign` is hex HMAC-SHA256 with the secret over
 * `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`, the body exactly as sent. The timestamp is the
 * sender's clock in Unix seconds and must be within 300 s of Paygate's: keep the clock synced (NTP).
 * A fresh event id per attempt is fine: idempotency comes from the transaction ids.
 */
export function signFeed(key: string, secret: string, body: string, nowMs = Date.now()): Record<string, string> {
  const ts = String(Math.floor(nowMs / 1000));
  const eventId = `feed_${randomBytes(12).toString('hex')}`;
  const sign = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.${eventId}.`).update(body, 'utf8').digest('hex');
  return { 'Content-Type': 'application/json', 'X-Gate-Key': key, 'X-Gate-Ts': ts, 'X-Gate-Event-Id': eventId, 'X-Gate-Sign': sign };
}

/** Splits credits into requests of at most 500 credits and MAX_BYTES of JSON. */
export function batches(credits: readonly FeedCredit[]): FeedCredit[][] {
  const out: FeedCredit[][] = [];
  let current: FeedCredit[] = [];
  let bytes = 16; // {"credits":[]}
  for (const c of credits) {
    const size = Buffer.byteLength(JSON.stringify(c)) + 1;
    if (current.length > 0 && (current.length === MAX_CREDITS || bytes + size > MAX_BYTES)) {
      out.push(current);
      current = [];
      bytes = 16;
    }
    current.push(c);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

export function readCsv(text: string): FeedCredit[] {
  const rows = parse(text, { columns: true, skip_empty_lines: true, bom: true, trim: true }) as Record<string, string>[];
  return rows.map((r) => ({
    transactionId: r.transactionId,
    account: r.account,
    amount: r.amount,
    currency: r.currency,
    receivedAt: r.receivedAt,
    payer: r.payer || null,
    reference: r.reference || null,
  }));
}

export class FeedRefused extends Error {
  constructor(readonly status: number, readonly body: string) {
    super(`the feed refused the request: ${status} ${body.slice(0, 300)}`);
  }
}

/**
 * Sends one request until it is answered: `200` is the answer; `5xx`, `429` and network errors
 * are retried after 1, 2, 4 … s (at most 60 s between tries); `401` is retried once with a fresh
 * timestamp (a clock that drifted mid-run) and is then final, like every other `4xx`: a `400`
 * names the bad item, which no retry repairs.
 */
export async function sendBatch(cfg: FeedCredentials, credits: readonly FeedCredit[], opts: { fetch?: typeof fetch; sleep?: (ms: number) => Promise<void>; maxTries?: number } = {}): Promise<FeedAnswer[]> {
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const body = JSON.stringify({ credits });
  const url = `${cfg.baseUrl.replace(/\/+$/, '')}/providers/v1/${encodeURIComponent(cfg.providerId)}/credits`;
  let unauthorized = 0;
  for (let attempt = 1; ; attempt++) {
    let status = 0;
    let text = '';
    try {
      const res = await doFetch(url, { method: 'POST', headers: signFeed(cfg.key, cfg.secret, body), body });
      status = res.status;
      text = await res.text();
      if (status === 200) return (JSON.parse(text) as { result: { credits: FeedAnswer[] } }).result.credits;
    } catch (err) {
      text = (err as Error).message;
    }
    const retryable = status === 0 || status === 429 || status >= 500 || (status === 401 && ++unauthorized === 1);
    if (!retryable || attempt >= (opts.maxTries ?? 10)) throw new FeedRefused(status, text);
    await sleep(Math.min(60_000, 1000 * 2 ** (attempt - 1)));
  }
}

/** Replays every credit of the CSV text, batch after batch; answers every credit's outcome in file order. */
export async function replayCsv(cfg: FeedCredentials, csv: string, opts: Parameters<typeof sendBatch>[2] = {}): Promise<FeedAnswer[]> {
  const out: FeedAnswer[] = [];
  for (const batch of batches(readCsv(csv))) out.push(...(await sendBatch(cfg, batch, opts)));
  return out;
}

async function main(): Promise<void> {
  const file = process.argv[2];
  const env = (name: string) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set`);
    return v;
  };
  if (!file) throw new Error('usage: replay.ts <transfers.csv>');
  const cfg = { baseUrl: process.env.PAYGATE_BASE_URL ?? 'http://127.0.0.1:8080', providerId: env('PROVIDER_ID'), key: env('PROVIDER_KEY'), secret: env('PROVIDER_SECRET') };
  const answers = await replayCsv(cfg, await readFile(file, 'utf8'));
  const count = (f: (a: FeedAnswer) => boolean) => answers.filter(f).length;
  for (const a of answers) process.stdout.write(`${a.transactionId}\t${a.creditId}\t${a.status}\t${a.orderId ?? '-'}${a.duplicate ? '\t(recorded before)' : ''}\n`);
  process.stdout.write(`${answers.length} credits: ${count((a) => a.status === 'matched')} matched, ${count((a) => a.status === 'unmatched')} unmatched, ${count((a) => a.duplicate)} recorded before\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
}
