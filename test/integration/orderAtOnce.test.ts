import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { admin, createHarness, freshNonce, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

// Once an instance has read a desk, an order for it is created in one statement with
// authentication's last check: the nonce is claimed only while the desk, its merchant and the
// catalogues are as the order was validated against. These tests change them behind the
// instance's back (straight in the database, as another instance would) and expect exactly the
// answers the spec's order of checks gives, with nothing written that should not be.

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const body = (ref?: string, amount = 1500.5) => JSON.stringify({ amount, currency: 'RUB', rail: 'Sbp', ...(ref ? { orderRef: ref } : {}) });
const code = (res: { body: string }) => json(res as never)?.fault?.code;
const ordersOf = async (d: DeskCreds) =>
  (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE desk_id = $1', [d.id])).rows[0]!.n;
const nonceTaken = async (d: DeskCreds, nonce: string) =>
  (await h.ctx.db.query('SELECT 1 FROM nonces WHERE desk_key = $1 AND nonce = $2', [d.key, nonce])).rows.length === 1;

/** Starts n requests at once; all must be answered without the (stopped) limiter clock moving. */
async function answeredAtOnce<T>(n: number, start: (i: number) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  const all = Array.from({ length: n }, (_, i) => start(i).then((r) => done.push(r)));
  const deadline = performance.now() + 10_000;
  while (done.length < n && performance.now() < deadline) await new Promise<void>((r) => setImmediate(r));
  expect(done.length).toBe(n);
  await Promise.all(all);
  return done;
}

/** A desk this instance has already read (one signed request made). */
async function knownDesk(): Promise<DeskCreds> {
  const d = await provisionDesk(h.app);
  expect((await signed(h, d, '/gw/v1/balance')).statusCode).toBe(200);
  return d;
}

describe('an order created in one statement with authentication', () => {
  it('creates the order, placed, with its details, and claims the nonce', async () => {
    const d = await knownDesk();
    const nonce = freshNonce();
    const res = await signed(h, d, '/gw/v1/orders', { body: body('once-1'), nonce });
    expect(res.statusCode).toBe(201);
    const created = json(res).result;
    expect(created).toMatchObject({ orderRef: null, amount: '1500.50', currency: 'RUB', status: 'Created', method: 'Classic', rail: 'Sbp' });
    expect(created.settled).toEqual({ amount: '16.34531590', currency: 'USD', rate: '91.80000000' });
    expect(created.payment.phone ?? created.payment.card ?? created.payment.account).toBeTruthy();
    // the answer is the order as stored
    const read = json(await signed(h, d, `/gw/v1/orders/${created.id}`)).result;
    expect({ ...read, orderRef: null, subStatus: undefined, payerReference: undefined, commission: undefined, credited: undefined, finishedAt: undefined })
      .toMatchObject(created);
    expect(read.orderRef).toBe('once-1');
    expect(await nonceTaken(d, nonce)).toBe(true);
    expect(code(await signed(h, d, '/gw/v1/orders', { body: body('once-2'), nonce }))).toBe('REPLAY_DETECTED');
    expect(await ordersOf(d)).toBe(1);
  });

  it('a secret rotated on another instance: AUTH_FAILED, no order, the nonce left unused', async () => {
    const d = await knownDesk();
    const rotated = json(await admin(h.app, 'POST', `/desks/${d.id}/secret`)).result.secret as string;
    const nonce = freshNonce();
    const res = await signed(h, d, '/gw/v1/orders', { body: body('rot-1'), nonce });
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('AUTH_FAILED');
    expect(await ordersOf(d)).toBe(0);
    expect(await nonceTaken(d, nonce)).toBe(false);
    // and the same with a body that would fail validation: authentication answers first
    expect(code(await signed(h, d, '/gw/v1/orders', { body: '{"amount":-1}' }))).toBe('AUTH_FAILED');
    expect(code(await signed(h, d, '/gw/v1/orders', { body: '{not json' }))).toBe('AUTH_FAILED');
    expect((await signed(h, { key: d.key, secret: rotated }, '/gw/v1/orders', { body: body('rot-2'), nonce })).statusCode).toBe(201);
  });

  it('a desk stopped or disabled, or a merchant blocked, on another instance is refused on the very next order', async () => {
    const d = await knownDesk();
    expect((await signed(h, d, '/gw/v1/orders', { body: body('state-1') })).statusCode).toBe(201);
    await h.ctx.db.query("UPDATE desks SET stop_reason = 'stopped elsewhere' WHERE id = $1", [d.id]);
    expect(json(await signed(h, d, '/gw/v1/orders', { body: body('state-2') })).fault).toEqual({ code: 'SHOP_STOPPED', detail: 'stopped elsewhere' });
    await h.ctx.db.query('UPDATE desks SET stop_reason = NULL, enabled = false WHERE id = $1', [d.id]);
    expect(code(await signed(h, d, '/gw/v1/orders', { body: body('state-3') }))).toBe('SHOP_INACTIVE');
    await h.ctx.db.query('UPDATE desks SET enabled = true WHERE id = $1', [d.id]);
    await h.ctx.db.query("UPDATE merchants SET status = 'Blocked', block_reason = 'blocked elsewhere' WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
    expect(json(await signed(h, d, '/gw/v1/orders', { body: body('state-4') })).fault).toEqual({ code: 'MERCHANT_INACTIVE', detail: 'blocked elsewhere' });
    expect(await ordersOf(d)).toBe(1);
  });

  it('a limit changed on another instance applies to the very next order', async () => {
    const d = await knownDesk();
    expect((await signed(h, d, '/gw/v1/orders', { body: body('limit-1') })).statusCode).toBe(201);
    await h.ctx.db.query("UPDATE desks SET max_usd = '10' WHERE id = $1", [d.id]);
    expect(code(await signed(h, d, '/gw/v1/orders', { body: body('limit-2') }))).toBe('AMOUNT_ABOVE_MAX');
    expect(await ordersOf(d)).toBe(1);
  });

  it('a merchant balance moving does not stand in the way, and shows in the next balance', async () => {
    const d = await knownDesk();
    await h.ctx.db.query("UPDATE merchants SET balance = balance + 2 WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
    expect((await signed(h, d, '/gw/v1/orders', { body: body('bal-1') })).statusCode).toBe(201);
    expect(json(await signed(h, d, '/gw/v1/balance')).result.available).toBe('2.00000000');
  });

  it('a repeated orderRef within the hour answers the same order; another amount is ORDER_REF_CONFLICT', async () => {
    const d = await knownDesk();
    const first = json(await signed(h, d, '/gw/v1/orders', { body: body('again-1') })).result;
    const nonce = freshNonce();
    const again = await signed(h, d, '/gw/v1/orders', { body: body('again-1'), nonce });
    expect(again.statusCode).toBe(201);
    expect(json(again).result.id).toBe(first.id);
    expect(await nonceTaken(d, nonce)).toBe(true);
    expect(code(await signed(h, d, '/gw/v1/orders', { body: body('again-1', 99) }))).toBe('ORDER_REF_CONFLICT');
    expect(await ordersOf(d)).toBe(1);
  });

  it('replays never spend the desk order limit: after 40 replays, 29 more orders pass at once', async () => {
    const d = await knownDesk();
    const nonce = freshNonce();
    // The limiter keeps real time: with its clock stopped, a request over the limit would wait for
    // a window that never frees up instead of being answered.
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      expect((await signed(h, d, '/gw/v1/orders', { body: body('replayed'), nonce })).statusCode).toBe(201);
      const replays = await answeredAtOnce(40, () => signed(h, d, '/gw/v1/orders', { body: body('replayed'), nonce }));
      expect(replays.map(code)).toEqual(new Array(40).fill('REPLAY_DETECTED'));
      const fresh = await answeredAtOnce(29, (i) => signed(h, d, '/gw/v1/orders', { body: body(`fresh-${i}`) }));
      expect(fresh.map((r) => r.statusCode)).toEqual(new Array(29).fill(201));
    } finally {
      vi.useRealTimers();
    }
    expect(await ordersOf(d)).toBe(30);
  });

  it('a body that fails validation still consumes the nonce once authentication passed', async () => {
    const d = await knownDesk();
    const nonce = freshNonce();
    expect(code(await signed(h, d, '/gw/v1/orders', { body: '{"amount":-1,"rail":"Sbp"}', nonce }))).toBe('VALIDATION_ERROR');
    expect(await nonceTaken(d, nonce)).toBe(true);
    expect(code(await signed(h, d, '/gw/v1/orders', { body: body('after-invalid'), nonce }))).toBe('REPLAY_DETECTED');
  });
});

describe('an order read in one statement with authentication', () => {
  it('reads by id and by the newest orderRef, only the desk\'s own, and claims the nonce', async () => {
    const d = await knownDesk();
    const other = await knownDesk();
    const first = json(await signed(h, d, '/gw/v1/orders', { body: body('read-1') })).result;
    const nonce = freshNonce();
    const byId = await signed(h, d, `/gw/v1/orders/${first.id}`, { nonce });
    expect(json(byId).result).toMatchObject({ id: first.id, orderRef: 'read-1', status: 'Created', subStatus: 'WaitingForPayment' });
    expect(await nonceTaken(d, nonce)).toBe(true);
    expect(code(await signed(h, d, `/gw/v1/orders/${first.id}`, { nonce }))).toBe('REPLAY_DETECTED');
    expect(json(await signed(h, d, '/gw/v1/orders/read-1')).result.id).toBe(first.id);
    expect(json(await signed(h, other, `/gw/v1/orders/${first.id}`)).fault).toEqual({ code: 'ORDER_NOT_FOUND', detail: `no order ${first.id}` });
    expect(code(await signed(h, d, '/gw/v1/orders/no-such-ref'))).toBe('ORDER_NOT_FOUND');
    // an orderRef shaped like an id is found by reference when no order has that id
    const lookalike = json(await signed(h, d, '/gw/v1/orders', { body: body('ord_lookalike') })).result;
    expect(json(await signed(h, d, '/gw/v1/orders/ord_lookalike')).result.id).toBe(lookalike.id);
  });

  it('a secret rotated on another instance: AUTH_FAILED before anything is read, the nonce left unused', async () => {
    const d = await knownDesk();
    const order = json(await signed(h, d, '/gw/v1/orders', { body: body('read-rot') })).result;
    await admin(h.app, 'POST', `/desks/${d.id}/secret`);
    const nonce = freshNonce();
    expect(code(await signed(h, d, `/gw/v1/orders/${order.id}`, { nonce }))).toBe('AUTH_FAILED');
    expect(await nonceTaken(d, nonce)).toBe(false);
  });
});

describe('what orders name always exists', () => {
  it('a desk or a merchant cannot be deleted, even straight in the database', async () => {
    const d = await knownDesk();
    expect((await signed(h, d, '/gw/v1/orders', { body: body('kept-1') })).statusCode).toBe(201);
    await expect(h.ctx.db.query('DELETE FROM desks WHERE id = $1', [d.id])).rejects.toMatchObject({ code: '23001' });
    await expect(h.ctx.db.query('DELETE FROM merchants WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)', [d.id])).rejects.toMatchObject({ code: '23001' });
    const { rows } = await h.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM orders o JOIN desks d ON d.id = o.desk_id JOIN merchants m ON m.id = o.merchant_id WHERE o.desk_id = $1',
      [d.id],
    );
    expect(rows[0]!.n).toBe(1);
  });
});
