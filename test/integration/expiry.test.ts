import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiryWorker, EXPIRY_BATCH } from '../../src/workers/index.js';
import { serverUrl } from '../helpers/db.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * The expiry worker against the injected clock: only orders whose expiresAt has been reached, only
 * Created ones, each closed once with exactly one order.cancelled event, also for a large backlog
 * and (on PostgreSQL, where locks are real) with two workers draining the same backlog.
 */

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

async function create(body: Record<string, unknown>, d: DeskCreds = desk) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
const getOrder = async (id: string, d: DeskCreds = desk) => json(await signed(h, d, `/gw/v1/orders/${id}`)).result;
const eventsOf = async (id: string) => (await h.ctx.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE order_id = $1 ORDER BY seq', [id])).rows.map((r) => r.event);

/** Runs passes until one finds nothing; returns how many orders the worker closed in all. */
async function drain(worker = expiryWorker(h.ctx)): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await worker.runOnce();
    if (n === 0) return total;
    total += n;
  }
}

describe('which orders expire', () => {
  it('only Created orders whose expiresAt has been reached; Payed, Completed and cancelled ones are left alone', async () => {
    h.clock.set(Date.UTC(2026, 1, 1, 9, 0, 0));
    await drain(); // nothing else of this file is due
    const one = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 });
    const five = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 5 });
    const ten = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 10 });
    const done = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 });
    await admin(h.app, 'POST', `/orders/${done.id}/simulate-payment`);
    const cancelled = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 });
    await signed(h, desk, `/gw/v1/orders/${cancelled.id}/cancel`, { method: 'POST', body: '{"reason":"not needed"}' });

    h.clock.advance(60_000 - 1);
    expect(await expiryWorker(h.ctx).runOnce()).toBe(0);
    h.clock.advance(1);
    expect(await expiryWorker(h.ctx).runOnce()).toBe(1);
    expect((await getOrder(one.id)).subStatus).toBe('Expired');
    h.clock.advance(4 * 60_000);
    expect(await drain()).toBe(1);
    expect(await getOrder(five.id)).toMatchObject({ status: 'Canceled', subStatus: 'Expired', cancelReason: 'expired' });
    expect(await getOrder(ten.id)).toMatchObject({ status: 'Created', subStatus: 'WaitingForPayment', cancelReason: null });
    expect(await getOrder(done.id)).toMatchObject({ status: 'Completed', cancelReason: null });
    expect(await getOrder(cancelled.id)).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled', cancelReason: 'not needed' });
    expect(await eventsOf(one.id)).toEqual(['order.cancelled']);
    expect(await eventsOf(done.id)).toEqual(['order.completed']);
    expect(await eventsOf(cancelled.id)).toEqual(['order.cancelled']);
    expect(await eventsOf(ten.id)).toEqual([]);
  });

  it('a live order reported as paid is not expired by the worker', async () => {
    const live = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, desk: { rails: ['C2c'] }, currencies: {} });
    await admin(h.app, 'POST', '/providers', {
      name: 'Pool',
      kind: 'pool',
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: '4111111111111111', holder: 'Holder', bank: 'Bank' }],
    });
    const o = await create({ amount: 100, lifetimeMinutes: 1 }, live);
    await admin(h.app, 'POST', `/orders/${o.id}/report-payment`);
    h.clock.advance(10 * 60_000);
    await drain();
    expect(await getOrder(o.id, live)).toMatchObject({ status: 'Payed', subStatus: 'WaitingAdminConfirmation' });
    expect(await eventsOf(o.id)).toEqual([]);
  });

  it('an expired order can no longer be cancelled by the merchant: the cancel is a no-op that shows it expired', async () => {
    const o = await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 });
    h.clock.advance(60_000);
    await drain();
    const res = await signed(h, desk, `/gw/v1/orders/${o.id}/cancel`, { method: 'POST', body: '{"reason":"late"}' });
    expect(res.statusCode).toBe(200);
    expect(json(res).result).toMatchObject({ status: 'Canceled', subStatus: 'Expired', cancelReason: 'expired' });
    expect(await eventsOf(o.id)).toEqual(['order.cancelled']);
  });

  it('a pass closes at most one batch and reports how many it closed', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1 })).id);
    h.clock.advance(60_000);
    const w = expiryWorker(h.ctx, 2);
    expect(await w.runOnce()).toBe(2);
    expect(await w.runOnce()).toBe(2);
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    for (const id of ids) expect((await getOrder(id)).subStatus).toBe('Expired');
  });
});

describe('a backlog of several batches of due orders', () => {
  // Four full batches and a part of one: enough to show every pass closes at most a batch and the
  // passes together close every order once. Each order costs its update and its event, and the
  // 10,000 this used to be proved nothing more for several seconds of CPU.
  const BACKLOG = 4 * EXPIRY_BATCH + 250;

  /** Inserts placed, due orders for one desk straight into the table; returns the id prefix. */
  async function insertBacklog(prefix: string): Promise<void> {
    const now = h.clock.now();
    await h.ctx.db.query(
      `INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status,
         placement, payment, provider_id, sandbox, notify_url, lifetime_minutes, created_at, expires_at, updated_at)
       SELECT $1 || lpad(g::text, 8, '0'), $2, $3, NULL, 918, 'RUB', 91.8, 10, 'Classic', 'Sbp', 'Created', 'WaitingForPayment',
         'placed', '{"phone":"+79000000000"}'::jsonb, 'prv_sandbox', true, 'https://merchant.example/callbacks', 15,
         $4::timestamptz - interval '15 minutes', $4::timestamptz - (g % 600) * interval '1 second', $4::timestamptz - interval '15 minutes'
       FROM generate_series(1, $5::int) g`,
      [prefix, desk.id, desk.merchantId, new Date(now), BACKLOG],
    );
  }

  async function expectAllExpiredOnce(prefix: string): Promise<void> {
    const like = `${prefix}%`;
    const { rows: states } = await h.ctx.db.query<{ status: string; sub_status: string; cancel_reason: string; n: number }>(
      `SELECT status, sub_status, cancel_reason, count(*)::int AS n FROM orders WHERE id LIKE $1 GROUP BY 1, 2, 3`,
      [like],
    );
    expect(states).toEqual([{ status: 'Canceled', sub_status: 'Expired', cancel_reason: 'expired', n: BACKLOG }]);
    const { rows: perOrder } = await h.ctx.db.query<{ events: number; orders: number }>(
      `SELECT count(*)::int AS orders, sum(n)::int AS events FROM (
         SELECT o.id, count(e.id) AS n FROM orders o LEFT JOIN outbox_events e ON e.order_id = o.id AND e.event = 'order.cancelled'
          WHERE o.id LIKE $1 GROUP BY o.id HAVING count(e.id) <> 1) bad`,
      [like],
    );
    expect(perOrder[0].orders).toBe(0);
    const { rows: total } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE order_id LIKE $1`, [like]);
    expect(total[0].n).toBe(BACKLOG);
  }

  it('drains completely in batches, each order closed once with one order.cancelled event', async () => {
    await drain();
    await insertBacklog('ord_backlogaaaa');
    const w = expiryWorker(h.ctx);
    let passes = 0;
    let total = 0;
    for (;;) {
      const n = await w.runOnce();
      expect(n).toBeLessThanOrEqual(EXPIRY_BATCH);
      if (n === 0) break;
      total += n;
      passes++;
    }
    expect(total).toBe(BACKLOG);
    expect(passes).toBeGreaterThanOrEqual(BACKLOG / EXPIRY_BATCH);
    await expectAllExpiredOnce('ord_backlogaaaa');
    // the events are the spec bodies of the closed orders
    const { rows } = await h.ctx.db.query<{ body: string; url: string }>(`SELECT body, url FROM outbox_events WHERE order_id = 'ord_backlogaaaa00000001'`);
    expect(JSON.parse(rows[0].body)).toMatchObject({ event: 'order.cancelled', id: 'ord_backlogaaaa00000001', status: 'Canceled', amount: { value: '918.00', currency: 'RUB' } });
    expect(rows[0].url).toBe('https://merchant.example/callbacks');
  }, 180_000);

  it.runIf(serverUrl)('two workers draining the same backlog at once never expire an order twice', async () => {
    await drain();
    await insertBacklog('ord_backlogbbbb');
    const [a, b] = await Promise.all([drain(expiryWorker(h.ctx)), drain(expiryWorker(h.ctx))]);
    expect(a + b).toBe(BACKLOG);
    await expectAllExpiredOnce('ord_backlogbbbb');
  }, 180_000);
});
