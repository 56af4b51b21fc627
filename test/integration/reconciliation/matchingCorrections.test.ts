import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, creditDaysDifferences, feed, getOrder, placed, pools, sendCredit } from './helpers.js';

/**
 * Matching as banks write accounts, the window closing at an order's cancel, live money for live
 * orders only, requisites a person cannot mix up by mistake, many credits ignored at once, and the
 * day report's ignored credits and hand-matched credits (reconciliation contract, "Matching" and
 * "Reports", changed 2026-11-28).
 */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;
const minutes = (n: number) => n * 60_000;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

describe('accounts as banks write them', () => {
  it('a phone written with its country code, its trunk prefix or brackets is one phone', async () => {
    const p = await pool([{ phone: '+7 900 000-00-01', holder: 'A' }]);
    for (const [i, written] of ['+7 (900) 000-00-01', '8 900 000 00 01', '79000000001'].entries()) {
      const o = await placed(h, desk, 3100 + i, { rail: 'Sbp' });
      const c = await sendCredit(h, p, credit(h, written, `${3100 + i}.00`));
      expect(c, written).toMatchObject({ status: 'matched', orderId: o.id, requisiteId: p.requisites[0].id });
    }
  });

  it('a masked card names the one requisite it ends with; a tail two requisites share is an unknown account with both as candidates', async () => {
    const p = await pool([{ card: '2200 1500 0000 1234' }, { card: '2200 1500 0000 5678' }, { card: '4000 0000 0000 5678' }]);
    const o = await placed(h, desk, 3200);
    expect(o.payment.card).toBe('2200 1500 0000 1234');
    for (const [i, masked] of ['*1234', '2200 **** **** 1234', '…1234', '2200XXXXXXXX1234'].entries()) {
      const c = await sendCredit(h, p, credit(h, masked, i === 0 ? '3200.00' : `${i}.00`));
      expect(c.requisiteId, masked).toBe(p.requisites[0].id);
    }
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    const shared = await sendCredit(h, p, credit(h, '*5678', '9.00'));
    expect(shared).toMatchObject({ status: 'unmatched', reason: 'unknown account', requisiteId: null });
    expect([...shared.candidates].sort()).toEqual([p.requisites[1].id, p.requisites[2].id].sort());
  });
});

describe('the window closes at an order\'s cancel', () => {
  it('money after an order was cancelled pays the next order of that amount on the requisite, not "ambiguous"', async () => {
    const p = await pool([{ card: card(301) }]);
    const first = await placed(h, desk, 3300, { lifetimeMinutes: 60 });
    const cancelled = await signed(h, desk, `/gw/v1/orders/${first.id}/cancel`, { body: '{}' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    h.clock.advance(minutes(16)); // past the requisite's quarantine, long before the first order's expiresAt
    const second = await placed(h, desk, 3300, { lifetimeMinutes: 60 });
    expect(second.payment.card).toBe(first.payment.card);
    const c = await sendCredit(h, p, credit(h, card(301), '3300.00'));
    expect(c).toMatchObject({ status: 'matched', orderId: second.id, matchedBy: 'amount' });
  });
});

describe('by hand', () => {
  it('live money never pays a sandbox order: SANDBOX_ORDER, even forced', async () => {
    const p = await pool([{ card: card(311) }]);
    const test = await provisionDesk(h.app, { merchant: { name: 'Not approved yet' } });
    const res = await signed(h, test, '/gw/v1/orders', { body: JSON.stringify({ amount: 3400, currency: 'RUB', rail: 'C2c' }) });
    expect(res.statusCode, res.body).toBe(201);
    const sandboxOrder = json(res).result;
    const c = await sendCredit(h, p, credit(h, card(311), '3400.00'));
    expect(c).toMatchObject({ status: 'unmatched' });
    for (const force of [false, true]) {
      const r = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: sandboxOrder.id, force });
      expect(r.statusCode).toBe(409);
      expect(json(r).fault.code).toBe('SANDBOX_ORDER');
    }
    expect((await getOrder(h, sandboxOrder.id)).status).toBe('Created');
  });

  it('an order given another requisite is REQUISITE_MISMATCH unless force; the credit then counts on the order\'s requisite in the day report', async () => {
    const p = await pool([{ card: card(321) }, { card: card(322) }]);
    const o = await placed(h, desk, 3500);
    const other = o.payment.card === card(321) ? card(322) : card(321);
    const otherRequisite = p.requisites.find((r: any) => r.payment.card === other).id;
    const orderRequisite = p.requisites.find((r: any) => r.payment.card === o.payment.card).id;
    h.clock.advance(minutes(1));
    const c = await sendCredit(h, p, credit(h, other, '3499.00'));
    expect(c.requisiteId).toBe(otherRequisite);
    const refused = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: o.id });
    expect(json(refused).fault.code).toBe('AMOUNT_MISMATCH');
    const same = await sendCredit(h, p, credit(h, other, '3500.00'));
    const mismatch = await admin(h.app, 'POST', `/credits/${same.id}/match`, { orderId: o.id });
    expect(mismatch.statusCode).toBe(409);
    expect(json(mismatch).fault.code).toBe('REQUISITE_MISMATCH');
    const forced = await admin(h.app, 'POST', `/credits/${same.id}/match`, { orderId: o.id, force: true });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(await getOrder(h, o.id)).toMatchObject({ status: 'Completed', paidAmount: '3500.00' });
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const report = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=${day}`)).result;
    const row = (id: string) => report.requisites.find((r: any) => r.requisiteId === id);
    expect(row(orderRequisite)).toMatchObject({ credits: 1, matched: 1, ordersCompleted: 1, completedAmount: '3500.00', creditsAmount: '3500.00' });
    expect(row(otherRequisite)).toMatchObject({ credits: 1, unmatched: 1 });
  });

  it('many credits are ignored at once with one reason; matched ones and unknown ids are named as not ignored; the report counts them', async () => {
    const p = await pool([{ card: card(331) }]);
    const o = await placed(h, desk, 3600);
    const items = [credit(h, card(331), '1.00'), credit(h, card(331), '2.00'), credit(h, card(331), '3600.00')];
    const fed = json(await feed(h, p, { credits: items })).result.credits;
    expect(fed[2]).toMatchObject({ status: 'matched', orderId: o.id });
    const ids = [fed[0].creditId, fed[1].creditId, fed[2].creditId, 'crd_nope'];
    const res = await admin(h.app, 'POST', '/credits/ignore', { ids, reason: 'test transfers' });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toEqual({ ignored: [fed[0].creditId, fed[1].creditId], notIgnored: [fed[2].creditId, 'crd_nope'] });
    expect(json(await admin(h.app, 'GET', `/credits/${fed[0].creditId}`)).result).toMatchObject({ status: 'ignored', reason: 'test transfers' });
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${fed[1].creditId}`)).result.items;
    expect(audit[0]).toMatchObject({ action: 'credit.ignore', outcome: 'ok' });
    for (const bad of [{ ids: [], reason: 'x' }, { ids: ['a'], reason: '' }, { ids: Array.from({ length: 501 }, (_, i) => `crd_${i}`), reason: 'x' }]) {
      expect((await admin(h.app, 'POST', '/credits/ignore', bad)).statusCode).toBe(400);
    }
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const report = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=${day}`)).result;
    expect(report.totals).toMatchObject({ credits: 3, matched: 1, unmatched: 0, ignored: 2 });
  });
});

describe('the day report\'s sums of credits', () => {
  it('are what the credits add up to after every match, forced match, decline and ignore above', async () => {
    // credit_days is kept by the database as credits are written and changed (migrations 0038, 0041); the
    // report reads it, so it must equal the credits themselves counted the report's way.
    expect(await creditDaysDifferences(h)).toEqual([]);
    const { rows: kinds } = await h.ctx.db.query<{ status: string; operator: boolean }>(
      `SELECT DISTINCT status, matched_by IS NOT DISTINCT FROM 'operator' AS operator FROM credits ORDER BY 1, 2`);
    // The cases the sums must have followed were all there.
    expect(kinds).toEqual(expect.arrayContaining([{ status: 'ignored', operator: false }, { status: 'matched', operator: true }, { status: 'matched', operator: false }, { status: 'unmatched', operator: false }]));
  });
});
