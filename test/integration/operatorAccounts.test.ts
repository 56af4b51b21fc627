import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { earnLiveMoney } from '../helpers/liveMoney.js';

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

async function completedOrder(amount: number): Promise<string> {
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount, rail: 'Sbp' }) });
  expect(res.statusCode, res.body).toBe(201);
  const id = json(res).result.id;
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  return id;
}

describe('operator and cabinet accounts', () => {
  it('creates operators with a role, never echoing the password; a used email is 409 EMAIL_TAKEN whatever its case', async () => {
    const res = await admin(h.app, 'POST', '/operators', { email: 'ops@paygate.example', password: 'correct horse battery', role: 'support' });
    expect(res.statusCode, res.body).toBe(201);
    const o = json(res).result;
    expect(o).toMatchObject({ email: 'ops@paygate.example', role: 'support' });
    expect(o.id).toMatch(/^opr_[0-9a-z]{26}$/);
    expect(res.body).not.toContain('horse');
    const again = await admin(h.app, 'POST', '/operators', { email: 'OPS@paygate.example', password: 'another long password', role: 'admin' });
    expect(again.statusCode).toBe(409);
    expect(json(again).fault.code).toBe('EMAIL_TAKEN');
  });

  it('refuses short, common and malformed credentials naming the field, and unknown roles', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ email: 'a@b.example', password: 'short', role: 'admin' }, /^password:/],
      [{ email: 'a@b.example', password: 'password123', role: 'admin' }, /^password:/],
      [{ email: 'not-an-email', password: 'a fine long password', role: 'admin' }, /^email:/],
      [{ email: 'a@b.example', password: 'a fine long password', role: 'root' }, /^role:/],
    ];
    for (const [body, detail] of cases) {
      const res = await admin(h.app, 'POST', '/operators', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).fault.detail).toMatch(detail);
    }
  });

  it('adds several cabinet users to a merchant; an unknown merchant is 404', async () => {
    for (const email of ['owner@shop.example', 'dev@shop.example']) {
      const res = await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email, password: 'a fine long password' });
      expect(res.statusCode, res.body).toBe(201);
      expect(json(res).result).toMatchObject({ email, merchantId: desk.merchantId });
      expect(json(res).result.id).toMatch(/^usr_/);
    }
    expect(json(await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email: 'Owner@shop.example', password: 'a fine long password' })).fault.code).toBe('EMAIL_TAKEN');
    expect((await admin(h.app, 'POST', '/merchants/mer_unknown/users', { email: 'x@shop.example', password: 'a fine long password' })).statusCode).toBe(404);
  });
});

describe('withdrawals', () => {
  it('draw on live money only, shrink the balance at once and never beyond it, even when recorded concurrently', async () => {
    // Sandbox money is never withdrawable.
    await completedOrder(918);
    const play = await admin(h.app, 'POST', `/merchants/${desk.merchantId}/withdrawals`, { amountUsd: '4', reference: 'sandbox payout' });
    expect(play.statusCode, play.body).toBe(409);
    expect(json(play).fault.code).toBe('INSUFFICIENT_BALANCE');

    const live = await earnLiveMoney(h, { merchant: 'Withdrawing Shop' }); // 918 RUB at 91.8, no tariff: 10.00000000 USD
    const merchantId = live.desk.merchantId;
    const balance = async () => json(await signed(h, live.desk, '/gw/v1/balance')).result.available;
    expect(await balance()).toBe('10.00000000');

    const res = await admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd: '4', reference: 'payout 2026-01' });
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res).result).toMatchObject({ merchantId, amountUsd: '4.00000000', reference: 'payout 2026-01' });
    expect(json(res).result.id).toMatch(/^wdr_/);
    expect(await balance()).toBe('6.00000000');

    const racing = await Promise.all([1, 2, 3].map(() => admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd: '2.5', reference: 'race' })));
    const codes = racing.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 201, 409]);
    expect(json(racing.find((r) => r.statusCode === 409)!).fault.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance()).toBe('1.00000000');
    expect(json(await admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd: '0', reference: 'zero' })).fault.detail).toMatch(/^amountUsd:/);
  });
});

describe('audit', () => {
  it('records every operator action with its actor, object and outcome, newest first, filterable and paged', async () => {
    const approve = await admin(h.app, 'POST', `/merchants/${desk.merchantId}/approve`);
    expect(approve.statusCode).toBe(200);
    const refused = await admin(h.app, 'POST', `/merchants/${desk.merchantId}/withdrawals`, { amountUsd: '1000', reference: 'too much' });
    expect(refused.statusCode).toBe(409);

    const res = await admin(h.app, 'GET', `/audit?objectId=${desk.merchantId}&limit=2`);
    expect(res.statusCode, res.body).toBe(200);
    const page = json(res).result;
    expect(page.items.map((e: any) => [e.action, e.outcome])).toEqual([
      ['merchant.withdraw', 'INSUFFICIENT_BALANCE'],
      ['merchant.approve', 'ok'],
    ]);
    expect(page.items.every((e: any) => e.actor === 'token' && e.objectId === desk.merchantId)).toBe(true);
    expect(page.hasMore).toBe(true);
    const next = json(await admin(h.app, 'GET', `/audit?objectId=${desk.merchantId}&before=${page.next}&limit=100`)).result;
    expect(next.items.map((e: any) => e.action)).toContain('user.create');

    const everything = json(await admin(h.app, 'GET', '/audit?limit=500')).result.items.map((e: any) => e.action);
    expect(everything).toEqual(expect.arrayContaining(['merchant.create', 'desk.create', 'currency.update', 'rate.set', 'order.simulatePayment', 'operator.create']));
  });

  it('keeps entries out of reach of changes: the database refuses to update or delete them', async () => {
    await expect(h.ctx.db.query(`UPDATE audit_entries SET actor = 'someone else'`)).rejects.toThrow(/never updated or deleted/);
    await expect(h.ctx.db.query('DELETE FROM audit_entries')).rejects.toThrow(/never updated or deleted/);
  });

  it('an action and its entry commit together: a refused action leaves its effect out and says so', async () => {
    const before = json(await signed(h, desk, '/gw/v1/balance')).result.available;
    await admin(h.app, 'POST', `/merchants/${desk.merchantId}/withdrawals`, { amountUsd: '999', reference: 'refused' });
    expect(json(await signed(h, desk, '/gw/v1/balance')).result.available).toBe(before);
    const { rows } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM withdrawals WHERE reference = 'refused'`);
    expect(rows[0].n).toBe(0);
  });
});
