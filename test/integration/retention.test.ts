import { afterEach, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { claimDueEvents, finishAttempts } from '../../src/store/outbox.js';
import { maintainOnce, orderStatsWorker, retentionWorker } from '../../src/workers/maintenance.js';
import { dashboard } from '../../src/services/office.js';
import { merchantProgress } from '../../src/store/merchants.js';
import { callbackStates, conversionByMethod, ordersByStatus, providerDailyOutcomes, turnoverSince } from '../../src/store/office.js';

/*
 * Retention of callback history ("Keeping a big database fast" in docs/configuration.md) and the dashboard's order
 * rollup, on the injected clock: time moves, nothing sleeps.
 */

const DAY = 86_400_000;
let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function setUp(env: Record<string, string> = {}) {
  h = await createHarness({ env, unlimitedOrders: true });
  const desk = await provisionDesk(h.app);
  return { h, desk };
}

async function order(h: Harness, desk: DeskCreds, ref: string) {
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, rail: 'Sbp', orderRef: ref }) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result.id as string;
}

/** Pays an order (sandbox) and delivers its event in two attempts (a 503, then 200), as the delivery worker records them. */
async function paidAndDelivered(h: Harness, desk: DeskCreds, ref: string, outcome: 'delivered' | 'rejected' = 'delivered') {
  const id = await order(h, desk, ref);
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  const now = () => new Date(h.clock.now());
  const [e] = await claimDueEvents(h.ctx.db, { me: 'w1', now: now(), staleBefore: new Date(0), limit: 10 });
  await finishAttempts(h.ctx.db, 'w1', [{ eventId: e!.id, orderId: id, attempt: 1, outcome: 'retry', httpCode: 503, response: 'busy', error: null, at: now(), nextAttemptAt: now() }]);
  const [again] = await claimDueEvents(h.ctx.db, { me: 'w1', now: now(), staleBefore: new Date(0), limit: 10 });
  await finishAttempts(h.ctx.db, 'w1', [{ eventId: again!.id, orderId: id, attempt: 2, outcome, httpCode: outcome === 'delivered' ? 200 : 410, response: 'ok', error: null, at: now(), nextAttemptAt: null }]);
  return { id, eventId: e!.id };
}

const count = async (h: Harness, table: string) => (await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

// The first test of a process also builds the migrated database template it copies.
describe('retention of callback history', { timeout: 120_000 }, () => {
  it('moves delivered events older than RETENTION_DAYS with their attempts to the archive, where the logs still find them', async () => {
    const { h, desk } = await setUp();
    const old = await paidAndDelivered(h, desk, 'old-1');
    const refused = await paidAndDelivered(h, desk, 'old-2', 'rejected');
    const logBefore = json(await admin(h.app, 'GET', `/orders/${old.id}/callbacks`)).result;
    expect(logBefore.map((a: any) => a.outcome)).toEqual(['retry', 'delivered']);
    h.clock.advance(60 * DAY);
    const recent = await paidAndDelivered(h, desk, 'recent-1');
    const untouched = { orders: await count(h, 'orders'), ledger: await count(h, 'ledger_entries'), transitions: await count(h, 'order_transitions'), audit: await count(h, 'audit_entries') };

    h.clock.advance(31 * DAY);
    // 91 days after the first two, 31 after the third: only the delivered old one goes.
    expect(await retentionWorker(h.ctx).runOnce()).toBe(1);
    expect(await retentionWorker(h.ctx).runOnce()).toBe(0);
    const hot = await h.ctx.db.query<{ id: string }>('SELECT id FROM outbox_events ORDER BY seq');
    expect(hot.rows.map((r) => r.id)).toEqual([refused.eventId, recent.eventId]);
    expect(await count(h, 'outbox_events_archive')).toBe(1);
    expect(await count(h, 'callback_attempts_archive')).toBe(2);
    expect((await h.ctx.db.query('SELECT 1 FROM callback_attempts WHERE event_id = $1', [old.eventId])).rows).toEqual([]);

    // The attempt log answers as before, from the archive: the operator API, the cabinet's scope, the desk's feed and the timeline.
    expect(json(await admin(h.app, 'GET', `/orders/${old.id}/callbacks`)).result).toEqual(logBefore);
    const feed = json(await signed(h, desk, '/gw/v1/events')).result;
    expect(feed.events.map((e: any) => e.id)).toEqual([old.eventId, refused.eventId, recent.eventId]);
    expect(json(await signed(h, desk, '/gw/v1/events', { query: `after=${old.eventId}` })).result.events.map((e: any) => e.id)).toEqual([refused.eventId, recent.eventId]);
    const orderEvents = json(await signed(h, desk, '/gw/v1/events', { query: `orderId=${old.id}` })).result.events;
    expect(orderEvents.map((e: any) => [e.id, e.delivery.state, e.delivery.attempts])).toEqual([[old.eventId, 'delivered', 2]]);

    // Orders, their history, the ledger and the audit trail are never touched.
    expect({ orders: await count(h, 'orders'), ledger: await count(h, 'ledger_entries'), transitions: await count(h, 'order_transitions'), audit: await count(h, 'audit_entries') }).toEqual(untouched);
  });

  it('drops them instead with RETENTION_ARCHIVE=false, and keeps everything with RETENTION_DAYS=0', async () => {
    const { h, desk } = await setUp({ RETENTION_ARCHIVE: 'false', RETENTION_DAYS: '30' });
    const a = await paidAndDelivered(h, desk, 'a');
    h.clock.advance(31 * DAY);
    expect(await retentionWorker(h.ctx).runOnce()).toBe(1);
    expect(await count(h, 'outbox_events') + (await count(h, 'outbox_events_archive')) + (await count(h, 'callback_attempts_archive'))).toBe(0);
    expect(json(await admin(h.app, 'GET', `/orders/${a.id}/callbacks`)).result).toEqual([]);
    expect(json(await admin(h.app, 'GET', `/orders/${a.id}`)).result.status).toBe('Completed');

    const keep = await setUpAnother({ RETENTION_DAYS: '0' });
    await paidAndDelivered(keep.h, keep.desk, 'b');
    keep.h.clock.advance(3650 * DAY);
    expect(await retentionWorker(keep.h.ctx).runOnce()).toBe(0);
    await keep.h.close();
  });

  it('works in batches, the backlog drained batch after batch, and by hand to the end', async () => {
    const { h, desk } = await setUp();
    for (let k = 0; k < 5; k++) await paidAndDelivered(h, desk, `b-${k}`);
    h.clock.advance(100 * DAY);
    const worker = retentionWorker(h.ctx, 2);
    expect([await worker.runOnce(), await worker.runOnce()]).toEqual([2, 2]);
    const done = await maintainOnce(h.ctx.db, h.clock, h.ctx.config);
    expect(done).toEqual({ retired: 1, archived: true, days: 32 });
    expect(await count(h, 'outbox_events_archive')).toBe(5);
    // Every delivered callback of the merchant is in the archive now: its first-run checklist still counts one.
    expect(await count(h, 'outbox_events')).toBe(0);
    expect(await merchantProgress(h.ctx.db, desk.merchantId)).toMatchObject({ hasDeliveredCallback: true });
  });
});

describe('retention when a batch fails half-way', { timeout: 120_000 }, () => {
  const snapshot = async (h: Harness) => ({
    hot: (await h.ctx.db.query<{ id: string }>('SELECT id FROM outbox_events ORDER BY id')).rows.map((r) => r.id),
    hotAttempts: (await h.ctx.db.query<{ id: string }>('SELECT id::text FROM callback_attempts ORDER BY id')).rows.map((r) => r.id),
    archived: (await h.ctx.db.query<{ id: string }>('SELECT id FROM outbox_events_archive ORDER BY id')).rows.map((r) => r.id),
    archivedAttempts: (await h.ctx.db.query<{ id: string }>('SELECT id::text FROM callback_attempts_archive ORDER BY id')).rows.map((r) => r.id),
  });

  it('loses and doubles nothing: the failed batch is undone whole, and the next run moves every event once', async () => {
    const { h, desk } = await setUp();
    const paid = [];
    for (let k = 0; k < 4; k++) paid.push(await paidAndDelivered(h, desk, `crash-${k}`));
    const logs = await Promise.all(paid.map(async (p) => json(await admin(h.app, 'GET', `/orders/${p.id}/callbacks`)).result));
    h.clock.advance(100 * DAY);
    const before = await snapshot(h);
    expect(before.hot).toHaveLength(4);
    expect(before.hotAttempts).toHaveLength(8);

    // The database gives out half-way through the batch: after the fourth of its eight attempts is
    // written to the archive (a sequence counts them, as it is outside every transaction).
    await h.ctx.db.exec(`
      CREATE SEQUENCE crash_count;
      CREATE FUNCTION crash_half_way() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('crash_count') = 4 THEN RAISE EXCEPTION 'the database went away'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER crash_half_way BEFORE INSERT ON callback_attempts_archive FOR EACH ROW EXECUTE FUNCTION crash_half_way()`);
    await expect(retentionWorker(h.ctx).runOnce()).rejects.toThrow('the database went away');
    expect((await h.ctx.db.query<{ n: string }>(`SELECT last_value::text AS n FROM crash_count`)).rows[0]!.n).toBe('4');
    // Nothing of the batch stayed: every event and attempt is where it was.
    expect(await snapshot(h)).toEqual(before);
    expect(json(await admin(h.app, 'GET', `/orders/${paid[0]!.id}/callbacks`)).result).toEqual(logs[0]);

    // The service is back: the next runs move each event and attempt exactly once.
    await h.ctx.db.exec('DROP TRIGGER crash_half_way ON callback_attempts_archive; DROP FUNCTION crash_half_way(); DROP SEQUENCE crash_count');
    expect(await maintainOnce(h.ctx.db, h.clock, h.ctx.config)).toMatchObject({ retired: 4 });
    const after = await snapshot(h);
    expect(after).toEqual({ hot: [], hotAttempts: [], archived: before.hot, archivedAttempts: before.hotAttempts });
    for (const [k, p] of paid.entries()) expect(json(await admin(h.app, 'GET', `/orders/${p.id}/callbacks`)).result).toEqual(logs[k]);
  });

  it('two instances retiring at once take different events, each moved once', async () => {
    const { h, desk } = await setUp();
    for (let k = 0; k < 6; k++) await paidAndDelivered(h, desk, `pair-${k}`);
    h.clock.advance(100 * DAY);
    const before = await snapshot(h);
    const [a, b] = await Promise.all([retentionWorker(h.ctx, 3).runOnce(), retentionWorker(h.ctx, 3).runOnce()]);
    expect(a).toBeLessThanOrEqual(3);
    expect(b).toBeLessThanOrEqual(3);
    // An event the other took meanwhile is skipped, not moved twice; what is left goes on the next pass.
    let rest = 0;
    for (let n; (n = await retentionWorker(h.ctx, 3).runOnce()) > 0; ) rest += n;
    expect(a + b + rest).toBe(6);
    expect(await snapshot(h)).toEqual({ hot: [], hotAttempts: [], archived: before.hot, archivedAttempts: before.hotAttempts });
  });
});

async function setUpAnother(env: Record<string, string>) {
  const other = await createHarness({ env, unlimitedOrders: true });
  return { h: other, desk: await provisionDesk(other.app) };
}

describe("the dashboard's order rollup", { timeout: 120_000 }, () => {
  it('counts past days from the rollup once rolled up, today live, and agrees with counting every order', async () => {
    const { h, desk } = await setUp();
    const paid: string[] = [];
    for (let day = 0; day < 5; day++) {
      for (let k = 0; k < 3; k++) {
        const id = await order(h, desk, `d${day}-${k}`);
        if (k === 0) {
          expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
          paid.push(id);
        }
      }
      h.clock.advance(DAY);
    }
    const since = new Date(h.clock.now() - 30 * DAY);
    const live = {
      statuses: await ordersByStatus(h.ctx.db, since, true),
      conversion: await conversionByMethod(h.ctx.db, since, null),
      providers: await providerDailyOutcomes(h.ctx.db, since, null, true),
    };
    expect(live.statuses.map((s) => [s.status, Number(s.n)])).toEqual([['Completed', 5], ['Created', 10]]);
    const worker = orderStatsWorker(h.ctx);
    await worker.runOnce();
    // The 31 days before today, and today.
    expect((await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM order_day_stats_days')).rows[0]!.n).toBe(32);
    // Rolled up: the same figures; a day's later changes show once its day is rolled up again.
    expect(await ordersByStatus(h.ctx.db, since, true)).toEqual(live.statuses);
    expect(await conversionByMethod(h.ctx.db, since, null)).toEqual(live.conversion);
    expect(await providerDailyOutcomes(h.ctx.db, since, null, true)).toEqual(live.providers);
    await order(h, desk, 'today-1');
    const created = async () => (await ordersByStatus(h.ctx.db, since, true)).find((s) => s.status === 'Created')!.n.toString();
    expect(await created()).toBe('10');
    // A minute later the worker has rolled today up again.
    h.clock.advance(60_000);
    await worker.runOnce();
    expect(await created()).toBe('11');
    expect(await ordersByStatus(h.ctx.db, since, false)).toEqual([]);
    // Turnover comes from the ledger's daily rollup: 1500 RUB at 91.8 per USD, credited today once.
    expect((await admin(h.app, 'POST', `/orders/${await order(h, desk, 'today-2')}/simulate-payment`)).statusCode).toBe(200);
    const now = h.clock.now();
    const t = await turnoverSince(h.ctx.db, new Date(Math.floor(now / DAY) * DAY), new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1)));
    expect(t).toEqual([{ sandbox: true, today: '16.33986928', month: expect.any(String), today_count: '1', month_count: '6' }]);
    // Callbacks of the day by mode, from each event's own flag.
    const day = new Date(now - DAY);
    expect((await callbackStates(h.ctx.db, day, true)).map((c) => [c.state, Number(c.n)])).toEqual([['pending', 1]]);
    expect(await callbackStates(h.ctx.db, day, false)).toEqual([]);
    // The dashboard reads them from the callback rollup, never from the events: a minute behind.
    const board = async (sandbox: boolean) => (await dashboard(h.ctx, sandbox)).callbacks;
    expect(await board(true)).toEqual([]);
    h.clock.advance(60_000);
    await worker.runOnce();
    expect(await board(true)).toEqual([{ state: 'pending', count: 1 }]);
    expect(await board(false)).toEqual([]);
    // Delivered (here: given up on at once, the desk's callbacks off): the next minute's pass says so.
    await h.ctx.db.query(`UPDATE outbox_events SET state = 'suppressed' WHERE state = 'pending'`);
    expect(await board(true)).toEqual([{ state: 'pending', count: 1 }]);
    h.clock.advance(60_000);
    await worker.runOnce();
    expect(await board(true)).toEqual([{ state: 'suppressed', count: 1 }]);
    // A day later the hour has left the window.
    h.clock.advance(DAY);
    await worker.runOnce();
    expect(await board(true)).toEqual([]);
  });
});
