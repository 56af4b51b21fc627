import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { earnLiveMoney } from '../helpers/liveMoney.js';

/*
 * Sandbox money and live money (web.md): sandbox orders move sandbox money only; GET /gw/v1/balance
 * answers the sandbox balance before approval and the live one after; withdrawals draw on live
 * money only; a reversal of a sandbox order never touches live money.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
});
afterAll(() => h.close());

const gatewayBalance = async (d: DeskCreds) => {
  const res = await signed(h, d, '/gw/v1/balance');
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result;
};
const operatorBalance = async (merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance;

async function sandboxCredit(d: DeskCreds): Promise<{ orderId: string; credited: string }> {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 9180, rail: 'Sbp' }) });
  expect(res.statusCode, res.body).toBe(201);
  const id = json(res).result.id as string;
  const done = json(await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).result;
  return { orderId: id, credited: done.credited.amount };
}

async function withdraw(merchantId: string, amountUsd: string) {
  return admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd, reference: `wire ${amountUsd}` });
}

describe('while the merchant is in the sandbox', () => {
  it('GET /gw/v1/balance answers the sandbox money with mode sandbox; the operator sees both moneys apart', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Playing Shop' } });
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: '0.00000000', mode: 'sandbox' });
    const { credited } = await sandboxCredit(d);
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: credited, mode: 'sandbox' });
    expect(await operatorBalance(d.merchantId)).toEqual({ currency: 'USD', available: credited, mode: 'sandbox', live: '0.00000000', sandbox: credited });
    const { rows } = await h.ctx.db.query<{ sandbox: boolean }>('SELECT sandbox FROM ledger_entries WHERE merchant_id = $1', [d.merchantId]);
    expect(rows).toEqual([{ sandbox: true }]);
  });

  it('sandbox money is never withdrawable: 409 INSUFFICIENT_BALANCE, nothing recorded', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Withdrawing Player' } });
    const { credited } = await sandboxCredit(d);
    const res = await withdraw(d.merchantId, '1');
    expect(res.statusCode, res.body).toBe(409);
    expect(json(res).fault.code).toBe('INSUFFICIENT_BALANCE');
    expect(await operatorBalance(d.merchantId)).toMatchObject({ live: '0.00000000', sandbox: credited });
    const { rows } = await h.ctx.db.query('SELECT 1 FROM withdrawals WHERE merchant_id = $1', [d.merchantId]);
    expect(rows).toEqual([]);
  });
});

describe('once approved', () => {
  it('the balance is the live money, which starts at zero; the sandbox money stays apart and still is not withdrawable', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Growing Shop' } });
    const sandbox = await sandboxCredit(d);
    expect((await admin(h.app, 'POST', `/merchants/${d.merchantId}/approve`)).statusCode).toBe(200);
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: '0.00000000', mode: 'live' });
    expect(await operatorBalance(d.merchantId)).toEqual({ currency: 'USD', available: '0.00000000', mode: 'live', live: '0.00000000', sandbox: sandbox.credited });
    expect((await withdraw(d.merchantId, '0.01')).statusCode).toBe(409);

    const live = await earnLiveMoney(h, { merchant: 'Growing Shop', desk: d });
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: live.credited, mode: 'live' });
    // A withdrawal of more than the live money is refused even though both together would cover it.
    const both = dec(live.credited).plus(sandbox.credited).minus('0.01').toFixed(8);
    expect((await withdraw(d.merchantId, both)).statusCode).toBe(409);
    const ok = await withdraw(d.merchantId, '1.5');
    expect(ok.statusCode, ok.body).toBe(201);
    const left = dec(live.credited).minus('1.5').toFixed(8);
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: left, mode: 'live' });
    expect(await operatorBalance(d.merchantId)).toMatchObject({ live: left, sandbox: sandbox.credited });

    // Reversing the old sandbox order takes back sandbox money only.
    const rev = await admin(h.app, 'POST', `/orders/${sandbox.orderId}/reverse`, { reason: 'test data' });
    expect(rev.statusCode, rev.body).toBe(200);
    expect(await operatorBalance(d.merchantId)).toMatchObject({ live: left, sandbox: '0.00000000' });
    expect(await gatewayBalance(d)).toEqual({ currency: 'USD', available: left, mode: 'live' });

    // Each balance is the sum of its own money's entries.
    const { rows } = await h.ctx.db.query<{ sandbox: boolean; s: string }>(
      'SELECT sandbox, sum(amount)::numeric(24, 8)::text AS s FROM ledger_entries WHERE merchant_id = $1 GROUP BY sandbox ORDER BY sandbox',
      [d.merchantId],
    );
    expect(rows).toEqual([{ sandbox: false, s: left }, { sandbox: true, s: '0.00000000' }]);
  });

  it('the merchant statement holds live money only, and closes at GET /gw/v1/balance', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Statement Shop' } });
    await sandboxCredit(d);
    await admin(h.app, 'POST', `/merchants/${d.merchantId}/approve`);
    const live = await earnLiveMoney(h, { merchant: 'Statement Shop', desk: d });
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const s = json(await admin(h.app, 'GET', `/merchants/${d.merchantId}/statement?from=${day}&to=${day}`)).result;
    expect(s.openingBalance).toBe('0.00000000');
    expect(s.entries.map((e: { type: string; orderId: string }) => [e.type, e.orderId])).toEqual([['credit', live.orderId]]);
    expect(s.closingBalance).toBe((await gatewayBalance(d)).available);
  });

  it('a blocked merchant that was approved keeps answering its live money', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Blocked Shop', approve: true } });
    const live = await earnLiveMoney(h, { merchant: 'Blocked Shop', desk: d });
    expect((await admin(h.app, 'POST', `/merchants/${d.merchantId}/block`, { reason: 'review' })).statusCode).toBe(200);
    expect(await operatorBalance(d.merchantId)).toMatchObject({ available: live.credited, mode: 'live' });
  });
});

describe('migration of a ledger that held both moneys together', () => {
  let t: TestDb | null = null;
  afterEach(async () => {
    await t?.drop();
    t = null;
  });

  it('marks the entries of sandbox orders and moves their sum from the live balance to the sandbox one', async () => {
    t = await createTestDb({ migrated: false });
    const { db } = t;
    await migrate(db, loadMigrations().filter((m) => m.version < 16));
    await db.exec(`
      INSERT INTO merchants (id, name, status, sandbox, balance, created_at) VALUES ('mer_a', 'A', 'Active', false, 42.5, '2026-01-01Z');
      INSERT INTO desks (id, merchant_id, key, secret_enc, method, rails, currencies, created_at, name)
        VALUES ('dsk_a', 'mer_a', 'shp_a', 'x', 'Classic', '[]', '[]', '2026-01-01Z', 'Desk 1');
      INSERT INTO orders (id, desk_id, merchant_id, amount, currency, rate, settled_amount, method, status, sub_status, placement, sandbox, lifetime_minutes, created_at, expires_at, updated_at)
        VALUES ('ord_play', 'dsk_a', 'mer_a', 1000, 'RUB', 80, 12.5, 'Classic', 'Completed', 'SuccessfullyPaid', 'placed', true, 15, '2026-01-01Z', '2026-01-01Z', '2026-01-01Z'),
               ('ord_live', 'dsk_a', 'mer_a', 4000, 'RUB', 80, 50, 'Classic', 'Completed', 'SuccessfullyPaid', 'placed', false, 15, '2026-01-02Z', '2026-01-02Z', '2026-01-02Z');
      INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, created_at) VALUES
        ('mer_a', 'ord_play', 'credit', 12.5, 'simulated', '2026-01-01Z'),
        ('mer_a', 'ord_live', 'credit', 50, 'confirmed', '2026-01-02Z'),
        ('mer_a', NULL, 'withdrawal', -20, 'wire', '2026-01-03Z');`);
    await migrate(db);
    const m = await db.query<{ balance: string; sandbox_balance: string }>(`SELECT balance::text, sandbox_balance::text FROM merchants WHERE id = 'mer_a'`);
    expect(m.rows).toEqual([{ balance: '30.00000000', sandbox_balance: '12.50000000' }]);
    const e = await db.query<{ order_id: string | null; sandbox: boolean }>('SELECT order_id, sandbox FROM ledger_entries ORDER BY id');
    expect(e.rows).toEqual([
      { order_id: 'ord_play', sandbox: true },
      { order_id: 'ord_live', sandbox: false },
      { order_id: null, sandbox: false },
    ]);
  }, 60_000);
});
