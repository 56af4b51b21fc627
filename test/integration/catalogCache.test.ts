import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

// Providers, currencies and turnover caps are kept in memory between requests and checked against the catalogue
// versions that authentication reads. A change written by any instance (here: straight into the
// database, as another instance would) must show on the very next request.

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

const order = (ref: string) => JSON.stringify({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: ref });

describe('providers and currencies kept between requests', () => {
  it('a provider paused by another instance is gone from the methods picture and the cascade at once', async () => {
    expect(json(await signed(h, desk, '/gw/v1/methods')).result.available).toBe(true);
    expect(json(await signed(h, desk, '/gw/v1/methods')).result.available).toBe(true);
    expect((await signed(h, desk, '/gw/v1/orders', { body: order('cache-1') })).statusCode).toBe(201);

    await h.ctx.db.query('UPDATE providers SET paused_manual = true');
    const picture = json(await signed(h, desk, '/gw/v1/methods')).result;
    expect(picture).toMatchObject({ available: false, reason: 'no provider currently offers this method' });
    expect(json(await signed(h, desk, '/gw/v1/orders', { body: order('cache-2') })).fault.code).toBe('NO_AVAILABLE_METHOD');

    await h.ctx.db.query('UPDATE providers SET paused_manual = false');
    expect(json(await signed(h, desk, '/gw/v1/methods')).result.available).toBe(true);
    expect((await signed(h, desk, '/gw/v1/orders', { body: order('cache-3') })).statusCode).toBe(201);
  });

  it('a rate or currency changed by another instance shows in the next /rates answer', async () => {
    expect(json(await signed(h, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '91.80000000', priceable: true }]);
    await h.ctx.db.query("UPDATE rates SET manual_rate = '95.5' WHERE code = 'RUB'");
    expect(json(await signed(h, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: '95.50000000', priceable: true }]);
    await h.ctx.db.query("UPDATE currencies SET enabled = false WHERE code = 'RUB'");
    expect(json(await signed(h, desk, '/gw/v1/rates')).result.rates).toEqual([{ code: 'RUB', rate: null, priceable: false }]);
    await h.ctx.db.query("UPDATE currencies SET enabled = true WHERE code = 'RUB'");
    expect(json(await signed(h, desk, '/gw/v1/rates')).result.rates[0].rate).toBe('95.50000000');
  });

  it('a rate, a currency and a turnover cap changed by another instance apply to the very next order', async () => {
    const settled = async (ref: string) => json(await signed(h, desk, '/gw/v1/orders', { body: order(ref) })).result.settled;
    await h.ctx.db.query("UPDATE rates SET manual_rate = '91.8' WHERE code = 'RUB'");
    expect(await settled('cache-rate-1')).toEqual({ amount: '16.34531590', currency: 'USD', rate: '91.80000000' });
    expect(await settled('cache-rate-2')).toMatchObject({ rate: '91.80000000' });
    await h.ctx.db.query("UPDATE rates SET manual_rate = '100' WHERE code = 'RUB'");
    expect(await settled('cache-rate-3')).toEqual({ amount: '15.00500000', currency: 'USD', rate: '100.00000000' });
    await h.ctx.db.query("UPDATE currencies SET enabled = false WHERE code = 'RUB'");
    expect(json(await signed(h, desk, '/gw/v1/orders', { body: order('cache-rate-4') })).fault.code).toBe('CURRENCY_NOT_PAYABLE');
    await h.ctx.db.query("UPDATE currencies SET enabled = true WHERE code = 'RUB'");
    await h.ctx.db.query("UPDATE rates SET manual_rate = '91.8' WHERE code = 'RUB'");

    // A desk cap of 10 USD a day, below the 16.35 USD this order settles at, written by another instance.
    await h.ctx.db.query(
      "INSERT INTO turnover_limits (id, scope, scope_id, win, cap_usd, notify_only, created_at) VALUES ('lim_cache', 'desk', $1, 'day', '10', false, now())",
      [desk.id],
    );
    expect(json(await signed(h, desk, '/gw/v1/orders', { body: order('cache-cap-1') })).fault.code).toBe('TRAFFIC_LIMIT_REACHED');
    await h.ctx.db.query("DELETE FROM turnover_limits WHERE id = 'lim_cache'");
    expect((await signed(h, desk, '/gw/v1/orders', { body: order('cache-cap-2') })).statusCode).toBe(201);
  });

  it('every change to providers, circuits, currencies, rates and caps moves its catalogue version in the same transaction', async () => {
    const versions = async () => Object.fromEntries((await h.ctx.db.query<{ name: string; version: number }>('SELECT name, version FROM catalog_versions')).rows.map((r) => [r.name, Number(r.version)]));
    const before = await versions();
    await h.ctx.db.tx(async (q) => {
      await q.query("UPDATE rates SET manual_rate = '96' WHERE code = 'RUB'");
      await q.query('UPDATE providers SET priority = priority');
      await q.query('DELETE FROM turnover_limits WHERE false');
    });
    const after = await versions();
    expect(after.currencies).toBeGreaterThan(before.currencies!);
    expect(after.providers).toBeGreaterThan(before.providers!);
    expect(after.limits).toBeGreaterThan(before.limits!);
    await h.ctx.db.tx(async (q) => {
      await q.query("UPDATE currencies SET spread_percent = spread_percent WHERE code = 'RUB'");
      throw new Error('rolled back');
    }).catch(() => {});
    expect((await versions()).currencies).toBe(after.currencies);
  });
});
