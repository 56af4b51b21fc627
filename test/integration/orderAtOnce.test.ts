import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { admin, createHarness, freshNonce, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { serverUrl } from '../helpers/db.js';
import { openPg } from '../../src/store/db.js';
import { writeOrder, writeOrders, type OrderToWrite } from '../../src/store/orderWrites.js';
import { readCatalogVersions } from '../../src/store/catalogVersions.js';

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

/** Starts n requests at once; all must be answered without the (standing) clock moving. */
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

/** A builder of orders to place straight through the store, checked against the desk as it is now. */
async function placeableFor(d: DeskCreds) {
  const row = (await h.ctx.db.query<{ merchant_id: string; secret_enc: string; row_version: number; m_version: number }>(
    'SELECT d.merchant_id, d.secret_enc, d.row_version, m.row_version AS m_version FROM desks d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1',
    [d.id],
  )).rows[0]!;
  const versions = await readCatalogVersions(h.ctx.db);
  const now = new Date(h.clock.now());
  return (o: { id?: string; nonce?: string; ref?: string | null; amount?: string } = {}): OrderToWrite => ({
    order: { id: o.id ?? `ord_${randomBytes(12).toString('hex')}`, deskId: d.id, merchantId: row.merchant_id, orderRef: o.ref ?? null, amount: o.amount ?? '10.00',
      currency: 'RUB', rate: '91.80000000', settledAmount: '0.10893246', method: 'Classic', rail: 'Sbp', sandbox: true, notifyUrl: null, successUrl: null,
      failUrl: null, backUrl: null, operator: null, lifetimeMinutes: 30, createdAt: now, expiresAt: new Date(now.getTime() + 1_800_000) },
    issued: { payment: { phone: '+70000000000' }, providerId: 'sandbox' },
    claimRef: true,
    auth: { deskKey: d.key, nonce: o.nonce ?? freshNonce(), sealedSecret: row.secret_enc, deskVersion: row.row_version, merchantVersion: row.m_version, versions,
      now, nonceExpiresAt: new Date(now.getTime() + 600_000) },
  });
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
    await h.ctx.db.query("UPDATE merchants SET sandbox_balance = sandbox_balance + 2 WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
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
    // The limiter keeps the harness's clock, which stands still here: a request over the limit
    // would wait for a window that never frees up instead of being answered.
    expect((await signed(h, d, '/gw/v1/orders', { body: body('replayed'), nonce })).statusCode).toBe(201);
    const replays = await answeredAtOnce(40, () => signed(h, d, '/gw/v1/orders', { body: body('replayed'), nonce }));
    expect(replays.map(code)).toEqual(new Array(40).fill('REPLAY_DETECTED'));
    const fresh = await answeredAtOnce(29, (i) => signed(h, d, '/gw/v1/orders', { body: body(`fresh-${i}`) }));
    expect(fresh.map((r) => r.statusCode)).toEqual(new Array(29).fill(201));
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

/**
 * Statements made for several requests at once. Such a statement takes its items as a JSON array,
 * its first value; an item alone goes through the same statement as an array of one.
 */
const ofSeveral = (calls: unknown[][]) =>
  calls.filter(([sql, params]) => {
    const first = (params as unknown[] | undefined)?.[0];
    return String(sql).includes('jsonb_to_recordset') && typeof first === 'string' && (JSON.parse(first) as unknown[]).length > 1;
  }).length;

describe('orders arriving together', () => {
  const batchStatements = () => {
    const spy = vi.spyOn(h.ctx.db, 'query');
    return {
      count: () => ofSeveral(spy.mock.calls),
      restore: () => spy.mockRestore(),
    };
  };

  it('are placed in one statement, each answered as if it had come alone', async () => {
    const [a, b, c] = [await knownDesk(), await knownDesk(), await knownDesk()];
    expect((await signed(h, c, '/gw/v1/orders', { body: body('c-before') })).statusCode).toBe(201);
    await admin(h.app, 'POST', `/desks/${c.id}/secret`); // c's old secret no longer signs
    const shared = freshNonce();
    const batches = batchStatements();
    let answers;
    try {
      answers = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => signed(h, a, '/gw/v1/orders', { body: body(`a-${i}`, 1000 + i) })),
        signed(h, b, '/gw/v1/orders', { body: body('twin') }),
        signed(h, b, '/gw/v1/orders', { body: body('twin') }),
        signed(h, b, '/gw/v1/orders', { body: body('same-nonce-1'), nonce: shared }),
        signed(h, b, '/gw/v1/orders', { body: body('same-nonce-2'), nonce: shared }),
        signed(h, c, '/gw/v1/orders', { body: body('c-after') }),
      ]);
      expect(batches.count()).toBeGreaterThan(0);
    } finally {
      batches.restore();
    }
    const aOrders = answers.slice(0, 6).map((r) => json(r).result);
    expect(answers.slice(0, 6).map((r) => r.statusCode)).toEqual(new Array(6).fill(201));
    expect(aOrders.map((o) => o.amount)).toEqual(['1000.00', '1001.00', '1002.00', '1003.00', '1004.00', '1005.00']);
    expect(new Set(aOrders.map((o) => o.id)).size).toBe(6);
    expect(await ordersOf(a)).toBe(6);
    // the same reference twice: one order, both answered with it
    const [twin1, twin2] = answers.slice(6, 8);
    expect([twin1!.statusCode, twin2!.statusCode]).toEqual([201, 201]);
    expect(json(twin1!).result.id).toBe(json(twin2!).result.id);
    // the same nonce twice: one order, the other a replay
    expect(answers.slice(8, 10).map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(answers.slice(8, 10).map(code).filter(Boolean)).toEqual(['REPLAY_DETECTED']);
    expect(await ordersOf(b)).toBe(2);
    expect(code(answers[10]!)).toBe('AUTH_FAILED');
    expect(await ordersOf(c)).toBe(1);
  });

  it('one order the database refuses fails alone; the others are placed', async () => {
    const d = await knownDesk();
    const placeable = await placeableFor(d);
    const place = (id: string, amount: string) => writeOrder(h.ctx.db, placeable({ id, amount }));
    const batches = batchStatements();
    let results;
    try {
      // numeric(24, 2) cannot hold 10^30: the database refuses that order's value
      results = await Promise.allSettled([place('ord_batch_ok_1', '10.00'), place('ord_batch_bad', '1000000000000000000000000000000.00'), place('ord_batch_ok_2', '20.00')]);
      expect(batches.count()).toBe(1);
    } finally {
      batches.restore();
    }
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<unknown>).value).toEqual({ claimed: true, inserted: true });
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22003' });
    const { rows } = await h.ctx.db.query<{ id: string }>('SELECT id FROM orders WHERE desk_id = $1 ORDER BY id', [d.id]);
    expect(rows.map((r) => r.id)).toEqual(['ord_batch_ok_1', 'ord_batch_ok_2']);
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

describe('batches of two instances', () => {
  it.runIf(serverUrl)('sharing nonces and references in opposite orders wait for each other: no deadlock, each nonce claimed once', async () => {
    const d = await knownDesk();
    const other = openPg(h.testDb.url!, { max: 2 }); // another instance's pool
    try {
      const placeable = await placeableFor(d);
      const item = (nonce: string, ref: string) => placeable({ nonce, ref });
      for (let round = 0; round < 40; round++) {
        const nonces = Array.from({ length: 8 }, () => freshNonce());
        const mine = nonces.map((n, i) => item(n, `both-${round}-${i}`));
        const theirs = nonces.map((n, i) => item(n, `both-${round}-${i}`)).reverse();
        const [a, b] = await Promise.all([writeOrders(h.ctx.db, mine), writeOrders(other, theirs)]);
        // every nonce went to exactly one of the two, and its order with it
        const claimedBy = nonces.map((_, i) => Number(a[i]!.claimed) + Number(b[7 - i]!.claimed));
        expect(claimedBy).toEqual(new Array(8).fill(1));
        expect([...a, ...b].filter((x) => x.inserted).length).toBe(8);
      }
      expect(await ordersOf(d)).toBe(320);
    } finally {
      await other.close();
    }
  });
});

describe('order reads arriving together', () => {
  it('share one statement, each answered as if it had come alone', async () => {
    const [a, b, c] = [await knownDesk(), await knownDesk(), await knownDesk()];
    const aOrder = json(await signed(h, a, '/gw/v1/orders', { body: body('together-a') })).result;
    const bOrder = json(await signed(h, b, '/gw/v1/orders', { body: body('together-b', 2000) })).result;
    const cOrder = json(await signed(h, c, '/gw/v1/orders', { body: body('together-c') })).result;
    await admin(h.app, 'POST', `/desks/${c.id}/secret`);
    const shared = freshNonce();
    const spy = vi.spyOn(h.ctx.db, 'query');
    let answers;
    try {
      answers = await Promise.all([
        signed(h, a, `/gw/v1/orders/${aOrder.id}`),
        signed(h, a, '/gw/v1/orders/together-a'),
        signed(h, b, '/gw/v1/orders/together-b'),
        signed(h, b, `/gw/v1/orders/${aOrder.id}`), // another desk's order
        signed(h, b, '/gw/v1/orders/no-such-ref'),
        signed(h, b, `/gw/v1/orders/${bOrder.id}`, { nonce: shared }),
        signed(h, b, `/gw/v1/orders/${bOrder.id}`, { nonce: shared }),
        signed(h, c, `/gw/v1/orders/${cOrder.id}`),
      ]);
      expect(ofSeveral(spy.mock.calls)).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
    expect(json(answers[0]!).result).toMatchObject({ id: aOrder.id, orderRef: 'together-a', amount: '1500.50' });
    expect(json(answers[1]!).result.id).toBe(aOrder.id);
    expect(json(answers[2]!).result).toMatchObject({ id: bOrder.id, amount: '2000.00' });
    expect(json(answers[3]!).fault).toEqual({ code: 'ORDER_NOT_FOUND', detail: `no order ${aOrder.id}` });
    expect(code(answers[4]!)).toBe('ORDER_NOT_FOUND');
    expect(answers.slice(5, 7).map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.slice(5, 7).map(code).filter(Boolean)).toEqual(['REPLAY_DETECTED']);
    expect(code(answers[7]!)).toBe('AUTH_FAILED');
  });
});

describe('signed reads arriving together', () => {
  it('share one statement for their authentication, each answered as if it had come alone', async () => {
    const [a, b, c, e, f] = [await knownDesk(), await knownDesk(), await knownDesk(), await knownDesk(), await knownDesk()];
    await admin(h.app, 'POST', `/desks/${c.id}/secret`); // c's old secret no longer signs
    await h.ctx.db.query('UPDATE merchants SET sandbox_balance = sandbox_balance + 1.5 WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)', [e.id]);
    await h.ctx.db.query('UPDATE desks SET enabled = false WHERE id = $1', [f.id]); // f's version moved
    const shared = freshNonce();
    const spy = vi.spyOn(h.ctx.db, 'query');
    let answers;
    try {
      answers = await Promise.all([
        ...Array.from({ length: 4 }, () => signed(h, a, '/gw/v1/balance')),
        signed(h, b, '/gw/v1/rates', { nonce: shared }),
        signed(h, b, '/gw/v1/rates', { nonce: shared }),
        signed(h, c, '/gw/v1/balance'),
        signed(h, e, '/gw/v1/balance'),
        signed(h, f, '/gw/v1/methods'),
      ]);
      expect(ofSeveral(spy.mock.calls)).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
    expect(answers.slice(0, 4).map((r) => json(r).result)).toEqual(new Array(4).fill({ available: '0.00000000', currency: 'USD', mode: 'sandbox' }));
    expect(answers.slice(4, 6).map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.slice(4, 6).map(code).filter(Boolean)).toEqual(['REPLAY_DETECTED']);
    expect(code(answers[6]!)).toBe('AUTH_FAILED');
    expect(json(answers[7]!).result.available).toBe('1.50000000');
    expect(json(answers[8]!).result).toMatchObject({ available: false, reason: 'shop inactive' });
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
