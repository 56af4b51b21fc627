import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * Turnover caps (spec Limits, D22) with the fake clock: calendar windows in UTC that reset at the
 * hour, at midnight and on the first of the month (not rolling), only completed orders counting,
 * reaching a cap exactly allowed, and notify-only caps that never refuse and leave one notification.
 * RUB is priced at 91.8, so 918 RUB is exactly 10 USD.
 */

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await provisionDesk(h.app); // sets up RUB at 91.8
});
afterAll(() => h.close());

const TEN_USD = 918;
const post = (d: DeskCreds, body: Record<string, unknown>) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
async function create(d: DeskCreds, amount = TEN_USD) {
  const res = await post(d, { amount, rail: 'Sbp' });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
async function complete(d: DeskCreds, amount = TEN_USD) {
  const o = await create(d, amount);
  const res = await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
  expect(res.statusCode, res.body).toBe(200);
  return o;
}
async function expectRefused(d: DeskCreds, detail: string, amount = TEN_USD) {
  const res = await post(d, { amount, rail: 'Sbp' });
  expect(res.statusCode, res.body).toBe(400);
  expect(json(res).fault).toEqual({ code: 'TRAFFIC_LIMIT_REACHED', detail });
}
async function addCap(scope: string, scopeId: string | null, window: string, capUsd: string, notifyOnly = false): Promise<string> {
  const res = await admin(h.app, 'POST', '/turnover-limits', { scope, scopeId, window, capUsd, notifyOnly });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result.id;
}
const at = (iso: string) => h.clock.set(new Date(iso));
const newDesk = () => provisionDesk(h.app, { currencies: {} });

let counterpartyPool = false;
/** An approved merchant's rail-less desk, served by a pool provider; its orders complete through report-payment and confirm. */
async function liveDesk(): Promise<DeskCreds> {
  if (!counterpartyPool) {
    const p = await admin(h.app, 'POST', '/providers', {
      name: 'Counterparty pool',
      kind: 'pool',
      capabilities: [{ method: 'Counterparty', rail: null, currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ account: '40702810900000000001', holder: 'Payee LLC', bank: 'Bank C' }],
    });
    expect(p.statusCode, p.body).toBe(201);
    counterpartyPool = true;
  }
  return provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, desk: { method: 'Counterparty', rails: [] }, currencies: {} });
}
async function completeLive(d: DeskCreds, amount = TEN_USD) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount }) });
  expect(res.statusCode, res.body).toBe(201);
  const o = json(res).result;
  expect((await admin(h.app, 'POST', `/orders/${o.id}/report-payment`)).statusCode).toBe(200);
  expect((await admin(h.app, 'POST', `/orders/${o.id}/confirm`)).statusCode).toBe(200);
  return o;
}
async function expectLiveRefused(d: DeskCreds, detail: string, amount = TEN_USD) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount }) });
  expect(res.statusCode, res.body).toBe(400);
  expect(json(res).fault).toEqual({ code: 'TRAFFIC_LIMIT_REACHED', detail });
}

describe('calendar windows', () => {
  it('an hourly cap resets at the top of the hour, not 60 minutes after the completions', async () => {
    const d = await newDesk();
    await addCap('desk', d.id, 'hour', '20');
    at('2026-02-10T10:40:00Z');
    await complete(d);
    await complete(d);
    await expectRefused(d, 'desk hour cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    at('2026-02-10T10:59:59.999Z');
    await expectRefused(d, 'desk hour cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    at('2026-02-10T11:00:00Z'); // a rolling window would still hold both completions
    await complete(d);
    await expectRefused(d, 'desk hour cap 20.00000000 USD: completed 10.00000000 + order 20.00000000', 2 * TEN_USD);
  });

  it('a daily cap resets at midnight UTC', async () => {
    const d = await newDesk();
    await addCap('merchant', d.merchantId, 'day', '20');
    at('2026-02-20T00:00:00Z');
    await complete(d);
    at('2026-02-20T23:30:00Z');
    await complete(d);
    at('2026-02-20T23:59:59Z');
    await expectRefused(d, 'merchant day cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    at('2026-02-21T00:00:00Z');
    await complete(d);
  });

  it('a monthly cap resets on the first of the month (also across a year end)', async () => {
    const d = await newDesk();
    await addCap('desk', d.id, 'month', '20');
    at('2026-03-01T00:00:00Z');
    await complete(d);
    at('2026-03-31T23:00:00Z');
    await complete(d);
    at('2026-03-31T23:59:59Z');
    await expectRefused(d, 'desk month cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    at('2026-04-01T00:00:00Z');
    await complete(d);
    await complete(d);
    at('2026-12-31T12:00:00Z');
    await complete(d);
    await complete(d);
    await expectRefused(d, 'desk month cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    at('2027-01-01T00:00:00Z');
    await complete(d);
  });

  it('each window of one scope counts separately: the day cap still holds after the hour resets', async () => {
    const d = await newDesk();
    await addCap('desk', d.id, 'hour', '20');
    await addCap('desk', d.id, 'day', '30');
    at('2027-02-03T09:10:00Z');
    await complete(d);
    await complete(d);
    at('2027-02-03T10:00:00Z');
    await complete(d);
    await expectRefused(d, 'desk day cap 30.00000000 USD: completed 30.00000000 + order 10.00000000');
  });
});

describe('what counts', () => {
  it('only completed orders count: open, cancelled and expired ones do not; reaching the cap exactly is allowed', async () => {
    const d = await newDesk();
    await addCap('desk', d.id, 'day', '30');
    at('2027-03-01T08:00:00Z');
    const open = [await create(d), await create(d), await create(d), await create(d)];
    await signed(h, d, `/gw/v1/orders/${open[0].id}/cancel`, { method: 'POST' });
    await complete(d);
    await complete(d, 2 * TEN_USD); // 30 of 30 USD: allowed
    await expectRefused(d, 'desk day cap 30.00000000 USD: completed 30.00000000 + order 0.01089325', 1);
  });

  it('a cap of one scope does not touch another desk or merchant', async () => {
    const a = await newDesk();
    const b = await newDesk();
    await addCap('desk', a.id, 'day', '10');
    await addCap('merchant', a.merchantId, 'day', '10');
    at('2027-03-02T08:00:00Z');
    await complete(a);
    await expectRefused(a, 'desk day cap 10.00000000 USD: completed 10.00000000 + order 10.00000000');
    await complete(b);
    await complete(b);
  });

  it('a platform cap counts every live merchant together; removing it lets traffic through again', async () => {
    const a = await liveDesk();
    const b = await liveDesk();
    at('2027-03-03T08:00:00Z');
    const id = await addCap('platform', null, 'hour', '20');
    try {
      await completeLive(a);
      await completeLive(b);
      await expectLiveRefused(a, 'platform hour cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
      await expectLiveRefused(b, 'platform hour cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
    } finally {
      expect((await admin(h.app, 'DELETE', `/turnover-limits/${id}`)).statusCode).toBe(200);
    }
    await completeLive(a);
  });

  it('sandbox completions (no money) neither count against nor are refused by a platform cap', async () => {
    const sandbox = await newDesk();
    const live = await liveDesk();
    at('2027-03-03T12:00:00Z');
    const id = await addCap('platform', null, 'hour', '20');
    try {
      // a sandbox merchant simulates far more than the platform cap
      await complete(sandbox, 100 * TEN_USD);
      await complete(sandbox, 100 * TEN_USD);
      // live traffic is untouched by it
      await completeLive(live);
      await completeLive(live);
      await expectLiveRefused(live, 'platform hour cap 20.00000000 USD: completed 20.00000000 + order 10.00000000');
      // and the live cap being reached does not stop sandbox testing
      await complete(sandbox);
    } finally {
      await admin(h.app, 'DELETE', `/turnover-limits/${id}`);
    }
  });

  it('sandbox completions still count for their own desk and merchant caps', async () => {
    const d = await newDesk();
    await addCap('merchant', d.merchantId, 'hour', '10');
    at('2027-03-03T13:00:00Z');
    await complete(d);
    await expectRefused(d, 'merchant hour cap 10.00000000 USD: completed 10.00000000 + order 10.00000000');
  });

  it('a provider cap skips that provider: with no other provider the order is TRAFFIC_LIMIT_REACHED', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, desk: { method: 'WhiteTriangle', rails: ['Sbp'] }, currencies: {} });
    const p = json(
      await admin(h.app, 'POST', '/providers', {
        name: 'Pool',
        kind: 'pool',
        capabilities: [{ method: 'WhiteTriangle', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
        requisites: [{ phone: '+79000000077', holder: 'Holder', bank: 'Bank' }],
      }),
    ).result;
    await addCap('provider', p.id, 'day', '10');
    at('2027-03-04T08:00:00Z');
    const o = await create(d);
    await admin(h.app, 'POST', `/orders/${o.id}/report-payment`);
    expect((await admin(h.app, 'POST', `/orders/${o.id}/confirm`)).statusCode).toBe(200);
    await expectRefused(d, 'provider day cap 10.00000000 USD: completed 10.00000000 + order 10.00000000');
    at('2027-03-05T00:00:00Z');
    await create(d);
  });
});

describe('notify-only caps', () => {
  it('never stop traffic and leave one platform notification per window', async () => {
    const d = await newDesk();
    const capId = await addCap('merchant', d.merchantId, 'day', '15', true);
    at('2027-04-01T10:00:00Z');
    for (let i = 0; i < 4; i++) await complete(d);
    const notes = async () =>
      (await h.ctx.db.query<{ kind: string; detail: string }>(`SELECT kind, detail FROM platform_notifications WHERE dedupe_key LIKE $1 ORDER BY id`, [`cap:${capId}:%`])).rows;
    expect(await notes()).toEqual([{ kind: 'turnover_cap', detail: 'merchant day cap 15.00000000 USD crossed: completed 20.00000000' }]);
    // the operator sees it
    const listed = json(await admin(h.app, 'GET', '/notifications')).result;
    expect(listed.some((n: { detail: string }) => n.detail === 'merchant day cap 15.00000000 USD crossed: completed 20.00000000')).toBe(true);
    // a new day is a new window: crossing again leaves a second notification
    at('2027-04-02T10:00:00Z');
    await complete(d);
    expect(await notes()).toHaveLength(1);
    await complete(d);
    expect(await notes()).toHaveLength(2);
  });

  it('a notify-only cap next to a hard cap: the hard cap refuses, the notify-only one does not', async () => {
    const d = await newDesk();
    await addCap('desk', d.id, 'day', '10', true);
    await addCap('desk', d.id, 'day', '30');
    at('2027-04-05T10:00:00Z');
    await complete(d);
    await complete(d);
    await complete(d);
    await expectRefused(d, 'desk day cap 30.00000000 USD: completed 30.00000000 + order 10.00000000');
  });
});
