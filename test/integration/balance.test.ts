import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * The merchant balance equals the sum of its ledger entries, and both equal what the orders say was
 * credited minus what was reversed, also when many completions for one merchant commit at the same
 * time. On PostgreSQL the concurrent requests run in parallel transactions, so a lost update or a
 * double credit would show; on PGlite they are serialised and the same sums must hold.
 */

let h: Harness;
let tariffId: string;

beforeAll(async () => {
  h = await createHarness();
  const t = await admin(h.app, 'POST', '/tariffs', {
    name: 'Banded',
    bands: [
      { fromUsd: '0', toUsd: '5', ratePercent: '4.5' },
      { fromUsd: '5', toUsd: '50', ratePercent: '3.1' },
      { fromUsd: '50', toUsd: null, ratePercent: '1.75' },
    ],
  });
  tariffId = json(t).result.id;
});
afterAll(() => h.close());

/** Exact sums of 8-place decimal strings, with BigInt, independent of the code under test. */
const units = (s: string) => {
  const neg = s.startsWith('-');
  const [i, f = ''] = s.replace('-', '').split('.');
  const v = BigInt(i) * 100_000_000n + BigInt((f + '00000000').slice(0, 8));
  return neg ? -v : v;
};
const usd = (u: bigint) => {
  const neg = u < 0n;
  const a = neg ? -u : u;
  return `${neg ? '-' : ''}${a / 100_000_000n}.${(a % 100_000_000n).toString().padStart(8, '0')}`;
};
const sum = (xs: string[]) => usd(xs.reduce((a, x) => a + units(x), 0n));

async function create(d: DeskCreds, amount: number) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount, rail: 'Sbp' }) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
const balanceOf = async (d: DeskCreds) => json(await signed(h, d, '/gw/v1/balance')).result;
const merchantBalance = async (merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available as string;
async function ledger(merchantId: string) {
  const { rows } = await h.ctx.db.query<{ s: string; n: number }>(
    'SELECT COALESCE(sum(amount), 0)::numeric(24, 8)::text AS s, count(*)::int AS n FROM ledger_entries WHERE merchant_id = $1',
    [merchantId],
  );
  return { sum: rows[0].s, entries: rows[0].n };
}
async function creditedOfCompleted(merchantId: string) {
  const { rows } = await h.ctx.db.query<{ credited_amount: string }>(`SELECT credited_amount FROM orders WHERE merchant_id = $1 AND status = 'Completed'`, [merchantId]);
  return sum(rows.map((r) => r.credited_amount));
}

/** The invariant, read the way the merchant and the operator read it. */
async function expectBalanceIsLedger(d: DeskCreds, expected: string) {
  const l = await ledger(d.merchantId);
  expect(l.sum).toBe(expected);
  expect(await balanceOf(d)).toEqual({ currency: 'USD', available: expected, mode: 'sandbox' });
  expect(await merchantBalance(d.merchantId)).toBe(expected);
}

describe('balance = sum of ledger entries', () => {
  it('starts at zero and grows by exactly the credited amount of each completion', async () => {
    const d = await provisionDesk(h.app, { desk: { tariffId } });
    await expectBalanceIsLedger(d, '0.00000000');
    const amounts = [100, 459, 1234.56, 4590, 9180, 91800.01];
    const credited: string[] = [];
    for (const a of amounts) {
      const o = await create(d, a);
      const done = json(await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`)).result;
      expect(units(done.credited.amount) + units(done.commission.amount)).toBe(units(done.settled.amount));
      credited.push(done.credited.amount);
      await expectBalanceIsLedger(d, sum(credited));
    }
    expect(await creditedOfCompleted(d.merchantId)).toBe(sum(credited));
  });

  it('is shared by every desk of the merchant', async () => {
    const d1 = await provisionDesk(h.app, { desk: { tariffId }, currencies: {} });
    const res = await admin(h.app, 'POST', `/merchants/${d1.merchantId}/desks`, {
      method: 'Classic',
      rails: ['Sbp'],
      currencies: ['RUB'],
      minUsd: '0',
      maxUsd: '0',
      callbackUrl: 'https://merchant.example/cb2',
      tariffId: null,
    });
    const d2: DeskCreds = { key: json(res).result.key, secret: json(res).result.secret, id: json(res).result.id, merchantId: d1.merchantId };
    const a = await create(d1, 918); // 10 USD, 3.1 % → 9.69
    const b = await create(d2, 918); // no tariff → 10
    await admin(h.app, 'POST', `/orders/${a.id}/simulate-payment`);
    await admin(h.app, 'POST', `/orders/${b.id}/simulate-payment`);
    await expectBalanceIsLedger(d1, '19.69000000');
    expect(await balanceOf(d2)).toEqual({ currency: 'USD', available: '19.69000000', mode: 'sandbox' });
  });

  it('a reversal is an entry too: the balance drops by the credit and still equals the ledger', async () => {
    const d = await provisionDesk(h.app, { desk: { tariffId }, currencies: {} });
    const a = await create(d, 918);
    const b = await create(d, 4590);
    await admin(h.app, 'POST', `/orders/${a.id}/simulate-payment`);
    await admin(h.app, 'POST', `/orders/${b.id}/simulate-payment`);
    // 10 USD at 3.1 % → 9.69; 50 USD at 1.75 % (band [50, ∞)) → 49.125
    await expectBalanceIsLedger(d, '58.81500000');
    expect((await admin(h.app, 'POST', `/orders/${b.id}/reverse`, { reason: 'revoked' })).statusCode).toBe(200);
    await expectBalanceIsLedger(d, '9.69000000');
    expect((await ledger(d.merchantId)).entries).toBe(3);
  });
});

describe('under concurrent completions', () => {
  it('many sandbox orders of one merchant simulated at once: every credit lands exactly once', async () => {
    const d = await provisionDesk(h.app, { desk: { tariffId }, currencies: {} });
    const amounts = Array.from({ length: 24 }, (_, i) => 100 + i * 377.37);
    const orders = [];
    for (const a of amounts) orders.push(await create(d, a));
    const answers = await Promise.all(orders.map((o) => admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`)));
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
    const credited = answers.map((r) => json(r).result.credited.amount as string);
    await expectBalanceIsLedger(d, sum(credited));
    expect((await ledger(d.merchantId)).entries).toBe(orders.length);
    expect(await creditedOfCompleted(d.merchantId)).toBe(sum(credited));
    const { rows } = await h.ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE event = 'order.completed' AND order_id = ANY($1::text[])`,
      [orders.map((o) => o.id)],
    );
    expect(rows[0].n).toBe(orders.length);
  });

  it('two merchants completing at the same time keep separate, exact balances', async () => {
    const a = await provisionDesk(h.app, { currencies: {} });
    const b = await provisionDesk(h.app, { currencies: {} });
    const oa = [];
    const ob = [];
    for (let i = 0; i < 8; i++) {
      oa.push(await create(a, 918));
      ob.push(await create(b, 459));
    }
    const all = [...oa, ...ob].map((o) => admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`));
    for (const r of await Promise.all(all)) expect(r.statusCode, r.body).toBe(200);
    await expectBalanceIsLedger(a, '80.00000000');
    await expectBalanceIsLedger(b, '40.00000000');
  });

  it('the same order completed by several requests at once is credited once; the others are refused', async () => {
    const d = await provisionDesk(h.app, { currencies: {} });
    const o = await create(d, 918);
    const answers = await Promise.all(Array.from({ length: 6 }, () => admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`)));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.statusCode !== 200)) {
      expect(r.statusCode).toBe(409);
      expect(json(r).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    }
    await expectBalanceIsLedger(d, '10.00000000');
    expect((await ledger(d.merchantId)).entries).toBe(1);
  });

  it('a cancel racing a completion: exactly one wins, and the balance matches the outcome', async () => {
    const d = await provisionDesk(h.app, { currencies: {} });
    const orders = [];
    for (let i = 0; i < 6; i++) orders.push(await create(d, 918));
    const races = orders.map((o) =>
      Promise.all([admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`), signed(h, d, `/gw/v1/orders/${o.id}/cancel`, { method: 'POST' })]),
    );
    let completed = 0;
    for (const [sim, can] of await Promise.all(races)) {
      if (sim.statusCode === 200) {
        completed++;
        expect(can.statusCode).toBe(409);
        expect(json(can).fault.code).toBe('ORDER_ALREADY_COMPLETED');
      } else {
        expect(can.statusCode).toBe(200);
        expect(json(can).result.status).toBe('Canceled');
        expect(sim.statusCode).toBe(409);
      }
    }
    await expectBalanceIsLedger(d, usd(BigInt(completed) * 1_000_000_000n));
    const { rows } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE order_id = ANY($1::text[])`, [orders.map((o) => o.id)]);
    expect(rows[0].n).toBe(orders.length); // one event per order: completed or cancelled
  });

  it('concurrent reversals of one order reverse the credit once', async () => {
    const d = await provisionDesk(h.app, { currencies: {} });
    const o = await create(d, 918);
    await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    const answers = await Promise.all(Array.from({ length: 4 }, () => admin(h.app, 'POST', `/orders/${o.id}/reverse`, { reason: 'revoked' })));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(3);
    await expectBalanceIsLedger(d, '0.00000000');
  });
});
