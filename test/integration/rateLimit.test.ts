import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createRateLimits, ORDER_CREATE_LIMIT, PAY_PAGE_LIMIT, type Admission } from '../../src/services/rateLimits.js';
import { createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * Rate limits (spec Limits, D6): POST /gw/v1/orders 30 per 10 s per desk key with 5 queued, GET
 * /api/pay/{id} 100 per 10 s per client IP with 10 queued, then 429 with an empty body and
 * Retry-After in whole seconds. The limiter takes its time from the injected clock, windows and
 * queue waits alike, so these tests move a manual clock by hand: no test sleeps.
 */

/** Lets pending promise callbacks and I/O run. */
const turn = () => new Promise<void>((r) => setImmediate(r));

/** Moves the clock, then lets what that woke (queued admissions and their requests) run. */
async function advance(clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  for (let i = 0; i < 10; i++) await turn();
}

/** Waits (in real time, by event-loop turns) until the condition holds; fails after a few seconds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await turn();
  }
}

/** Starts every call at once and records each answer as it settles. */
function burst<T>(n: number, start: (i: number) => Promise<T>) {
  const done: (T | undefined)[] = new Array(n).fill(undefined);
  let settled = 0;
  const all = Promise.all(
    Array.from({ length: n }, (_, i) =>
      start(i).then((v) => {
        done[i] = v;
        settled++;
        return v;
      }),
    ),
  );
  return { done, all, settled: () => settled };
}

describe('the limiter (createRateLimits without Redis)', () => {
  it('order creation: 30 pass at once, 5 wait, the 36th is refused with the time to the next window', async () => {
    const clock = new ManualClock();
    const limits = createRateLimits(null, {}, clock);
    const { points, queued, durationSec } = ORDER_CREATE_LIMIT;
    expect({ points, queued, durationSec }).toEqual({ points: 30, queued: 5, durationSec: 10 });
    const b = burst(36, () => limits.orderCreate.take('shp_desk_a'));
    await until(() => b.settled() >= 31, '30 admissions and one refusal');
    for (let i = 0; i < 30; i++) expect(b.done[i]).toEqual({ ok: true });
    expect(b.done.slice(30, 35)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(b.done[35]).toEqual({ ok: false, retryAfterMs: 10_000 });

    // the key is per desk: another desk is not held up by this one
    expect(await limits.orderCreate.take('shp_desk_b')).toEqual({ ok: true });

    await advance(clock, 9_999);
    expect(b.settled()).toBe(31);
    await advance(clock, 1);
    const answers = (await b.all) as Admission[];
    expect(answers.filter((a) => a.ok)).toHaveLength(35);
    // the queued five used the new window: 25 remain in it, then the queue takes over again
    const next = burst(30, () => limits.orderCreate.take('shp_desk_a'));
    await until(() => next.settled() >= 25, 'the rest of the new window');
    expect(next.done.slice(0, 25).every((a) => a?.ok === true)).toBe(true);
    expect(next.settled()).toBe(25);
    await advance(clock, 10_000);
    expect(((await next.all) as Admission[]).every((a) => a.ok)).toBe(true);
  });

  it('payment page: 100 pass at once, 10 wait, the 111th is refused; each client IP has its own budget', async () => {
    const clock = new ManualClock();
    const limits = createRateLimits(null, {}, clock);
    expect({ points: PAY_PAGE_LIMIT.points, queued: PAY_PAGE_LIMIT.queued }).toEqual({ points: 100, queued: 10 });
    const b = burst(111, () => limits.payPage.take('198.51.100.7'));
    await until(() => b.settled() >= 101, '100 admissions and one refusal');
    expect(b.done.filter((a) => a?.ok === true)).toHaveLength(100);
    expect(b.done.filter((a) => a !== undefined && !a.ok)).toEqual([{ ok: false, retryAfterMs: 10_000 }]);
    expect(await limits.payPage.take('198.51.100.8')).toEqual({ ok: true });
    await advance(clock, 4_000);
    expect(b.settled()).toBe(101);
    // a refusal later in the window says how long is left
    expect(await limits.payPage.take('198.51.100.7')).toEqual({ ok: false, retryAfterMs: 6_000 });
    await advance(clock, 6_000);
    expect(((await b.all) as Admission[]).filter((a) => a.ok)).toHaveLength(110);
  });
});

describe('memory per key', () => {
  it('idle keys hold no queue: a thousand visitors from different IPs leave nothing behind, a busy key only while it waits', async () => {
    const clock = new ManualClock();
    const limits = createRateLimits(null, {}, clock);
    const visits = await Promise.all(Array.from({ length: 1000 }, (_, i) => limits.payPage.take(`2001:db8::${i.toString(16)}`)));
    expect(visits.every((a) => a.ok)).toBe(true);
    expect(limits.payPage.activeKeys()).toBe(0);
    const b = burst(105, () => limits.payPage.take('2001:db8::ffff'));
    await until(() => b.settled() >= 100, 'the first hundred');
    expect(limits.payPage.activeKeys()).toBe(1);
    await advance(clock, 10_000);
    expect(((await b.all) as Admission[]).every((a) => a.ok)).toBe(true);
    expect(limits.payPage.activeKeys()).toBe(0);
    expect(limits.orderCreate.activeKeys()).toBe(0);
  });
});

describe('through the HTTP API', () => {
  let h: Harness;
  let desk: DeskCreds;

  beforeAll(async () => {
    h = await createHarness();
    desk = await provisionDesk(h.app);
  });
  afterAll(() => h.close());

  it('POST /gw/v1/orders: 30 created, 5 queued until the window frees up and then created, the 36th is 429 with an empty body and Retry-After', async () => {
    const b = burst(36, (i) => signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 100 + i, rail: 'Sbp' }) }));
    await until(() => b.settled() >= 31, '30 creates and one refusal');
    const now = b.done.filter((r) => r !== undefined);
    expect(now.filter((r) => r!.statusCode === 201)).toHaveLength(30);
    const tooMany = now.filter((r) => r!.statusCode === 429);
    expect(tooMany).toHaveLength(1);
    expect(tooMany[0]!.body).toBe('');
    expect(tooMany[0]!.headers['retry-after']).toBe('10');
    expect(tooMany[0]!.headers['x-trace-id']).toBeTruthy();

    // other desks are not affected while this one is queued
    const other = await provisionDesk(h.app, { currencies: {} });
    expect((await signed(h, other, '/gw/v1/orders', { body: JSON.stringify({ amount: 1, rail: 'Sbp' }) })).statusCode).toBe(201);
    // reads are not limited
    expect((await signed(h, desk, '/gw/v1/balance')).statusCode).toBe(200);

    expect(b.settled()).toBe(31);
    await advance(h.clock, 10_000);
    const all = await b.all;
    expect(all.filter((r) => r.statusCode === 201)).toHaveLength(35);
    const { rows } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE desk_id = $1 AND placement = 'placed'`, [desk.id]);
    expect(rows[0].n).toBe(35);
  });

  it('GET /api/pay/{id}: 100 answered, 10 queued, the 111th is 429; another client IP is served meanwhile', async () => {
    const d = await provisionDesk(h.app, { currencies: {} });
    const o = json(await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 10, rail: 'Sbp' }) })).result;
    const page = (ip: string) => h.app.inject({ method: 'GET', url: `/api/pay/${o.id}`, remoteAddress: ip });
    const b = burst(111, () => page('203.0.113.50'));
    await until(() => b.settled() >= 101, '100 pages and one refusal');
    const now = b.done.filter((r) => r !== undefined);
    expect(now.filter((r) => r!.statusCode === 200)).toHaveLength(100);
    const tooMany = now.filter((r) => r!.statusCode === 429);
    expect(tooMany).toHaveLength(1);
    expect(tooMany[0]!.body).toBe('');
    expect(tooMany[0]!.headers['retry-after']).toBe('10');

    expect((await page('203.0.113.51')).statusCode).toBe(200);
    expect(b.settled()).toBe(101);
    await advance(h.clock, 10_000);
    expect((await b.all).filter((r) => r.statusCode === 200)).toHaveLength(110);
  });
});
