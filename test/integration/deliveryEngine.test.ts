import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { eventually } from '../helpers/eventually.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The delivery worker as a process runs it (start/stop), against real receivers on loopback.
// Names resolve to 127.0.0.1, so each receiver can be a host of its own.

let h: Harness;
let receivers: Receiver[] = [];
let workers: DeliveryWorker[] = [];

// A database of its own per test: each one starts with an empty outbox.
beforeEach(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' }, resolve: async () => ['127.0.0.1'] });
});
afterEach(async () => {
  for (const w of workers) await w.stop(0);
  for (const r of receivers) await r.close();
  workers = [];
  receivers = [];
  await h.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

function worker(opts: ConstructorParameters<typeof DeliveryWorker>[1] = {}): DeliveryWorker {
  const w = new DeliveryWorker(h.ctx, opts);
  workers.push(w);
  return w;
}

/** The receiver under a host name of its own (resolved to loopback by the test resolver). */
const urlAs = (r: Receiver, host: string, path = '/cb') => `http://${host}:${new URL(r.url).port}${path}`;

async function completedOrder(d: DeskCreds): Promise<string> {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp' }) });
  expect(res.statusCode).toBe(201);
  const id = json(res).result.id;
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  return id;
}

const attempts = async (orderId: string) => json(await admin(h.app, 'GET', `/orders/${orderId}/callbacks`)).result;

/** Waits for the worker's doing (real time; a bound, not a measurement). */
const until = (what: string, cond: () => boolean | Promise<boolean>, withinMs = 20_000) => eventually(what, cond, { withinMs, everyMs: 20 });

describe('delivery worker, running', () => {
  it('claims again as soon as slots free up, and a new event wakes it without waiting for the poll', async () => {
    const rx = await receiver();
    const d = await provisionDesk(h.app, { desk: { callbackUrl: urlAs(rx, 'backlog.example') } });
    for (let i = 0; i < 24; i++) await completedOrder(d);
    // Four slots and an idle poll of an hour: only claiming on free slots drains 24 events.
    const w = worker({ concurrency: 4, hostShare: 1, idlePollMs: 3_600_000 });
    w.start();
    await until('the backlog', () => rx.hits.length === 24);
    // Idle now; the outbox insert's NOTIFY brings the next event.
    await until('idle', () => w.busy === 0);
    const late = await completedOrder(d);
    await until('the new event', () => rx.hits.length === 25);
    await until('its record', async () => (await attempts(late)).length === 1);
    expect((await attempts(late))[0]).toMatchObject({ attempt: 1, outcome: 'delivered' });
    expect(new Set(rx.hits.map((r) => r.headers['x-gate-event-id'])).size).toBe(25);
    await w.stop();
  });

  it('one receiver holds at most its share of the slots: a hanging host does not delay another', async () => {
    const slow = await receiver();
    const fast = await receiver();
    slow.respond(() => 'hang');
    const ds = await provisionDesk(h.app, { desk: { callbackUrl: urlAs(slow, 'slow.example') } });
    const df = await provisionDesk(h.app, { desk: { callbackUrl: urlAs(fast, 'fast.example') } });
    for (let i = 0; i < 6; i++) await completedOrder(ds);
    const other = await completedOrder(df); // due after all six of the slow host's
    const w = worker({ concurrency: 4, hostShare: 0.5, idlePollMs: 3_600_000, timeoutMs: 60_000 });
    expect(w.perReceiver).toBe(2);
    w.start();
    await until('the other host', () => fast.hits.length === 1);
    expect(JSON.parse(fast.hits[0].body.toString()).id).toBe(other);
    await until('its record', async () => (await attempts(other)).length === 1);
    await until('the slow host share', () => slow.hits.length === 2);
    expect(slow.hits).toHaveLength(2); // its share, still hanging; no more
    await w.stop(0);
    // Cut short by the stop: recorded as interrupted, due again at once.
    const slowLogs = (await h.ctx.db.query<{ outcome: string }>(`SELECT outcome FROM callback_attempts a JOIN outbox_events e ON e.id = a.event_id WHERE e.desk_id = $1`, [ds.id])).rows;
    expect(slowLogs.map((r) => r.outcome)).toEqual(['interrupted', 'interrupted']);
  });

  it('a send lost with its worker is taken over after the 30 s lease and shows in the attempt log', async () => {
    const rx = await receiver();
    let n = 0;
    rx.respond(() => (++n === 1 ? 'hang' : { status: 200, body: 'ok' }));
    const d = await provisionDesk(h.app, { desk: { callbackUrl: urlAs(rx, 'crash.example') } });
    const id = await completedOrder(d);
    const dead = worker({ workerId: 'dw_dead' });
    expect(await dead.pump()).toBe(1);
    await until('the first send', () => rx.hits.length === 1);

    const heir = worker({ workerId: 'dw_heir' });
    h.clock.advance(30_000);
    expect(await heir.runOnce()).toBe(0); // the lease (15 s timeout + 15 s) still holds
    h.clock.advance(1);
    expect(await heir.runOnce()).toBe(1);
    expect(rx.hits).toHaveLength(2);
    expect(rx.hits[1].headers['x-gate-event-id']).toBe(rx.hits[0].headers['x-gate-event-id']);

    // The dead worker's send ends late (its connection drops); it cannot record over the heir's.
    await rx.close();
    await dead.drain();
    const log = await attempts(id);
    expect(log.map((a: any) => [a.attempt, a.outcome])).toEqual([
      [1, 'interrupted'],
      [2, 'delivered'],
    ]);
    expect(log[0].error).toMatch(/dw_dead/);
  });

  it('stop() lets sends finish within the grace period, then marks the rest interrupted for another worker', async () => {
    const rx = await receiver();
    let hang = true;
    rx.respond(() => (hang ? 'hang' : { status: 200, body: 'ok' }));
    const d = await provisionDesk(h.app, { desk: { callbackUrl: urlAs(rx, 'stop.example') } });
    const id = await completedOrder(d);
    const w = worker({ idlePollMs: 3_600_000, timeoutMs: 60_000 });
    w.start();
    await until('the send', () => rx.hits.length === 1);
    await w.stop(50);
    expect(await attempts(id)).toMatchObject([{ attempt: 1, outcome: 'interrupted' }]);
    hang = false;
    const next = worker();
    expect(await next.runOnce()).toBe(1); // due at once, no lease to wait for
    expect((await attempts(id)).map((a: any) => a.outcome)).toEqual(['interrupted', 'delivered']);

    // A send that finishes within the grace period is recorded as usual.
    const id2 = await completedOrder(d);
    const w2 = worker({ idlePollMs: 3_600_000 });
    let release!: () => void;
    const answered = new Promise<void>((r) => (release = r));
    rx.respond(() => {
      release();
      return { status: 200, body: 'ok' };
    });
    w2.start();
    await answered;
    await w2.stop(10_000);
    expect((await attempts(id2)).map((a: any) => a.outcome)).toEqual(['delivered']);
  });

  it('close() waits for the sends in flight, however long they take', async () => {
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.end('ok'), 300));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const d = await provisionDesk(h.app, { desk: { callbackUrl: `http://slowpoke.example:${(slow.address() as AddressInfo).port}/cb` } });
      const id = await completedOrder(d);
      const w = new DeliveryWorker(h.ctx);
      expect(await w.pump()).toBe(1);
      await w.close();
      expect((await attempts(id)).map((a: any) => a.outcome)).toEqual(['delivered']);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
