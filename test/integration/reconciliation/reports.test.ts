import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../../src/domain/money.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, feed, placed, pools, type Pool } from './helpers.js';

/** The reports (reconciliation contract, "Reports"): the provider's day and the merchant's statement. */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

const report = async (providerId: string, date?: string) => {
  const res = await admin(h.app, 'GET', `/reconciliation?providerId=${providerId}${date ? `&date=${date}` : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result;
};

describe('GET /admin/v1/reconciliation', () => {
  let p: Pool;
  it('one row per requisite and the totals: orders issued and completed against the money received', async () => {
    p = await pool([{ card: card(1) }, { card: card(2) }]);
    const [r1, r2] = p.requisites.map((r) => r.id);
    const a = await placed(h, desk, 100); // r1
    const b = await placed(h, desk, 200); // r2
    const c = await placed(h, desk, 300); // r1
    await placed(h, desk, 400); // r2, stays open
    await feed(h, p, { credits: [credit(h, card(1), '100.00'), credit(h, card(2), '200.00'), credit(h, card(2), '250.00'), credit(h, 'unknown', '5.00')] });
    await admin(h.app, 'POST', `/orders/${c.id}/confirm`);
    const res = await report(p.id, '2026-01-15');
    expect(res).toEqual({
      providerId: p.id,
      date: '2026-01-15',
      requisites: [
        { requisiteId: r1, ordersIssued: 2, ordersCompleted: 2, completedAmount: '400.00', credits: 1, creditsAmount: '100.00', matched: 1, unmatched: 0, ignored: 0, completedWithoutCredit: 1 },
        { requisiteId: r2, ordersIssued: 2, ordersCompleted: 1, completedAmount: '200.00', credits: 2, creditsAmount: '450.00', matched: 1, unmatched: 1, ignored: 0, completedWithoutCredit: 0 },
      ],
      totals: { requisiteId: null, ordersIssued: 4, ordersCompleted: 3, completedAmount: '600.00', credits: 4, creditsAmount: '555.00', matched: 2, unmatched: 2, ignored: 0, completedWithoutCredit: 1 },
      statements: [],
      deviceSilences: [],
    });
    expect([a.id, b.id]).toHaveLength(2);
    // The orders a credit completed add up to exactly their credits.
    const byCredit = dec('100.00').plus('200.00');
    expect(byCredit.eq(dec(res.totals.completedAmount).minus('300.00'))).toBe(true);
  });

  it('is per UTC day (today by default), and checks its query', async () => {
    expect((await report(p.id)).date).toBe('2026-01-15');
    const other = await report(p.id, '2026-01-14');
    expect(other.totals).toMatchObject({ ordersIssued: 0, credits: 0 });
    expect(other.requisites).toHaveLength(2);
    for (const bad of ['', `providerId=${p.id}&date=2026-02-30`, `providerId=${p.id}&date=15.01.2026`]) {
      expect((await admin(h.app, 'GET', `/reconciliation?${bad}`)).statusCode, bad).toBe(400);
    }
    expect(json(await admin(h.app, 'GET', '/reconciliation?providerId=prv_nope')).fault.code).toBe('PROVIDER_NOT_FOUND');
  });
});

describe('GET /admin/v1/merchants/{id}/statement', () => {
  it('opening + entries = closing, live money only, each withdrawal with its id; closing is the balance today', async () => {
    // A merchant that used the sandbox before approval: that money is not in its statement.
    const m = await provisionDesk(h.app, { merchant: { name: 'Grown', sandbox: true } });
    const sandboxOrder = json(await signed(h, m, '/gw/v1/orders', { body: JSON.stringify({ amount: 91.8, rail: 'Sbp' }) })).result;
    await admin(h.app, 'POST', `/orders/${sandboxOrder.id}/simulate-payment`);
    const sandboxMoney = json(await admin(h.app, 'GET', `/merchants/${m.merchantId}`)).result.balance.available;
    await admin(h.app, 'POST', `/merchants/${m.merchantId}/approve`);
    const p = await pool([{ card: card(10) }]);
    const day1 = await placed(h, m, 918); // 10 USD
    await feed(h, p, { credits: [credit(h, card(10), '918.00')] });
    h.clock.advance(24 * 3600_000); // 2026-01-16
    const day2 = await placed(h, m, 1836); // 20 USD
    await feed(h, p, { credits: [credit(h, card(10), '1836.00')] });
    const reversal = await admin(h.app, 'POST', `/orders/${day1.id}/reverse`, { reason: 'chargeback' });
    expect(reversal.statusCode, reversal.body).toBe(200);
    h.clock.advance(1999); // the withdrawal at 12:00:01.999: its line's time is cut to the second, not rounded
    const w = json(await admin(h.app, 'POST', `/merchants/${m.merchantId}/withdrawals`, { amountUsd: '5', reference: 'wire 1' })).result;

    const res = await admin(h.app, 'GET', `/merchants/${m.merchantId}/statement?from=2026-01-16&to=2026-01-16`);
    expect(res.statusCode, res.body).toBe(200);
    const s = json(res).result;
    expect(s).toMatchObject({ merchantId: m.merchantId, from: '2026-01-16', to: '2026-01-16', currency: 'USD', openingBalance: '10.00000000', closingBalance: '15.00000000' });
    expect(s.entries.map((e: any) => [e.type, e.orderId, e.withdrawalId, e.amountUsd, e.balanceUsd])).toEqual([
      ['credit', day2.id, null, '20.00000000', '30.00000000'],
      ['reversal', day1.id, null, '-10.00000000', '20.00000000'],
      ['withdrawal', null, w.id, '-5.00000000', '15.00000000'],
    ]);
    expect(s.entries[0].at).toBe('2026-01-16T12:00:00Z');
    expect(s.entries[2].at).toBe('2026-01-16T12:00:01Z');
    const both = json(await admin(h.app, 'GET', `/merchants/${m.merchantId}/statement?from=2026-01-15&to=2026-01-16`)).result;
    expect(both.openingBalance).toBe('0.00000000');
    expect(both.entries).toHaveLength(4);
    const sum = both.entries.reduce((t: any, e: any) => t.plus(e.amountUsd), dec(both.openingBalance));
    expect(sum.eq(both.closingBalance)).toBe(true);
    // Closing is the live balance GET /gw/v1/balance answers; the sandbox money stays apart.
    expect(json(await signed(h, m, '/gw/v1/balance')).result).toEqual({ currency: 'USD', available: both.closingBalance, mode: 'live' });
    expect(json(await admin(h.app, 'GET', `/merchants/${m.merchantId}`)).result.balance).toMatchObject({ live: both.closingBalance, sandbox: sandboxMoney });
    // Today by default.
    expect(json(await admin(h.app, 'GET', `/merchants/${m.merchantId}/statement`)).result).toMatchObject({ from: '2026-01-16', to: '2026-01-16' });
  });

  it('checks its query and the merchant', async () => {
    for (const bad of ['from=2026-01-16&to=2026-01-15', 'from=2026-13-01', 'to=x', 'from=2025-01-01&to=2026-01-16']) {
      const res = await admin(h.app, 'GET', `/merchants/${desk.merchantId}/statement?${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
    }
    expect(json(await admin(h.app, 'GET', '/merchants/mer_nope/statement')).fault.code).toBe('MERCHANT_NOT_FOUND');
    expect((await h.app.inject({ method: 'GET', url: `/admin/v1/merchants/${desk.merchantId}/statement` })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: `/admin/v1/reconciliation?providerId=x` })).statusCode).toBe(401);
  });
});
