import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches, replayCsv, sendBatch, type FeedCredit } from '../../../examples/credit-feed/replay.js';
import { createHarness, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { ROOT } from '../../helpers/process.js';
import { card, getOrder, placed, pools, type Pool } from './helpers.js';

/** examples/credit-feed: replaying a CSV into the feed over a real socket. */

let h: Harness;
let base: string;
let desk: DeskCreds;
let p: Pool;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  // The example signs with the real clock, as a sender does.
  h.clock.set(Math.floor(Date.now() / 1000) * 1000);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  p = await pools(h)([{ card: card(1) }, { phone: '+7 900 000-00-02' }]);
});
afterAll(() => h.close());

const cfg = () => ({ baseUrl: base, providerId: p.id, key: p.key, secret: p.secret });
const header = 'transactionId,account,amount,currency,receivedAt,payer,reference';

describe('examples/credit-feed/replay.ts', () => {
  it('replays a CSV: orders paid, unknown transfers unmatched, a second run changes nothing', async () => {
    const a = await placed(h, desk, 918);
    const b = await placed(h, desk, 1500, { rail: 'Sbp' });
    const at = new Date(h.clock.now()).toISOString();
    const csv = [
      header,
      `R-1,${a.payment.card ?? a.payment.phone},918.00,RUB,${at},IVAN I.,`,
      `R-2,${b.payment.card ?? b.payment.phone},1500.00,RUB,${at},"PETR, P.",UTR-1`,
      `R-3,0000,5.00,RUB,${at},,`,
    ].join('\n');
    const first = await replayCsv(cfg(), csv);
    expect(first.map((r) => [r.transactionId, r.status, r.orderId, r.duplicate])).toEqual([
      ['R-1', 'matched', a.id, false],
      ['R-2', 'matched', b.id, false],
      ['R-3', 'unmatched', null, false],
    ]);
    expect((await getOrder(h, a.id)).status).toBe('Completed');
    const second = await replayCsv(cfg(), csv);
    expect(second.map((r) => [r.creditId, r.duplicate])).toEqual(first.map((r) => [r.creditId, true]));
  });

  it('splits into requests of at most 500 credits and under 1 MiB', () => {
    const c = (i: number, pad = 0): FeedCredit => ({ transactionId: `B-${i}`, account: 'x'.repeat(pad || 10), amount: '1.00', currency: 'RUB', receivedAt: '2026-01-15T12:00:00Z', payer: null, reference: null });
    expect(batches(Array.from({ length: 1201 }, (_, i) => c(i))).map((b) => b.length)).toEqual([500, 500, 201]);
    const wide = batches(Array.from({ length: 400 }, (_, i) => c(i, 5000)));
    expect(wide.length).toBeGreaterThan(1);
    for (const b of wide) expect(Buffer.byteLength(JSON.stringify({ credits: b }))).toBeLessThan(1024 * 1024);
  });

  it('retries a request on 5xx, 429 and network errors, and gives up on a 400', async () => {
    const waits: number[] = [];
    let calls = 0;
    const flaky: typeof fetch = async (url, init) => {
      calls++;
      if (calls === 1) throw new TypeError('connection reset');
      if (calls === 2) return new Response('', { status: 503 });
      if (calls === 3) return new Response('', { status: 429 });
      return fetch(url, init);
    };
    const credit: FeedCredit = { transactionId: 'retry-1', account: card(1), amount: '3.00', currency: 'RUB', receivedAt: new Date(h.clock.now()).toISOString(), payer: null, reference: null };
    const [r] = await sendBatch(cfg(), [credit], { fetch: flaky, sleep: async (ms) => void waits.push(ms) });
    expect(r).toMatchObject({ transactionId: 'retry-1', duplicate: false });
    expect(waits).toEqual([1000, 2000, 4000]);
    await expect(sendBatch(cfg(), [{ ...credit, amount: '3.001' }], { sleep: async () => {} })).rejects.toThrow(/400/);
  });

  it('runs as a script', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credit-feed-'));
    const file = join(dir, 'transfers.csv');
    await writeFile(file, `${header}\nS-1,${card(1)},7.00,RUB,${new Date(h.clock.now()).toISOString()},,\n`);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/credit-feed/replay.ts', file], {
      cwd: ROOT,
      env: { ...process.env, PAYGATE_BASE_URL: base, PROVIDER_ID: p.id, PROVIDER_KEY: p.key, PROVIDER_SECRET: p.secret },
    });
    expect(stdout).toMatch(/^S-1\tcrd_\w+\tunmatched\t-\n1 credits: 0 matched, 1 unmatched, 0 recorded before\n$/);
  }, 30_000);
});
