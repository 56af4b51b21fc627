import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMarketRate } from '../../src/store/currencies.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const get = async (desk: DeskCreds, path: string, query?: string) => {
  const res = await signed(h, desk, path, { query });
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result;
};
const methods = (desk: DeskCreds) => get(desk, '/gw/v1/methods');
const rates = (desk: DeskCreds, query?: string) => get(desk, '/gw/v1/rates', query);

const NO_PROVIDER = 'no provider currently offers this method';

describe('GET /gw/v1/methods', () => {
  it('a Classic desk of a sandbox merchant under review lists both rails with RUB, unbounded', async () => {
    const desk = await provisionDesk(h.app);
    expect(await methods(desk)).toEqual({
      method: 'Classic',
      available: true,
      reason: null,
      rails: [
        { rail: 'Sbp', currencies: [{ code: 'RUB', min: 0, max: 0 }] },
        { rail: 'C2c', currencies: [{ code: 'RUB', min: 0, max: 0 }] },
      ],
    });
  });

  it('only the rails the desk allows are listed', async () => {
    const desk = await provisionDesk(h.app, { desk: { rails: ['C2c'] } });
    expect((await methods(desk)).rails).toEqual([{ rail: 'C2c', currencies: [{ code: 'RUB', min: 0, max: 0 }] }]);
  });

  it('a desk the merchant switched off is unavailable with reason "shop inactive", and back on when enabled', async () => {
    const desk = await provisionDesk(h.app);
    await admin(h.app, 'PATCH', `/desks/${desk.id}`, { enabled: false });
    expect(await methods(desk)).toMatchObject({ method: 'Classic', available: false, reason: 'shop inactive' });
    await admin(h.app, 'PATCH', `/desks/${desk.id}`, { enabled: true });
    expect(await methods(desk)).toMatchObject({ available: true, reason: null });
  });

  it('a desk stopped by the platform shows the stop reason until resumed', async () => {
    const desk = await provisionDesk(h.app);
    await admin(h.app, 'POST', `/desks/${desk.id}/stop`, { reason: 'documents expired' });
    expect(await methods(desk)).toMatchObject({ available: false, reason: 'documents expired' });
    await admin(h.app, 'POST', `/desks/${desk.id}/resume`);
    expect(await methods(desk)).toMatchObject({ available: true, reason: null });
  });

  it('a rail-less method lists one entry with rail null (D11)', async () => {
    const desk = await provisionDesk(h.app, { desk: { method: 'BankApp', rails: [] } });
    expect(await methods(desk)).toEqual({
      method: 'BankApp',
      available: true,
      reason: null,
      rails: [{ rail: null, currencies: [{ code: 'RUB', min: 0, max: 0 }] }],
    });
  });

  it('an account under review with the sandbox off has no provider', async () => {
    const desk = await provisionDesk(h.app, { merchant: { sandbox: false } });
    expect(await methods(desk)).toEqual({ method: 'Classic', available: false, reason: NO_PROVIDER, rails: [] });
    await admin(h.app, 'PATCH', `/merchants/${desk.merchantId}`, { sandbox: true });
    expect(await methods(desk)).toMatchObject({ available: true, reason: null });
  });

  it('an approved account is no longer served by the sandbox: with no live provider, nothing is offered', async () => {
    const desk = await provisionDesk(h.app);
    expect((await methods(desk)).available).toBe(true);
    await admin(h.app, 'POST', `/merchants/${desk.merchantId}/approve`);
    expect(await methods(desk)).toEqual({ method: 'Classic', available: false, reason: NO_PROVIDER, rails: [] });
  });

  it('a blocked account offers nothing until it is unblocked', async () => {
    const desk = await provisionDesk(h.app);
    await admin(h.app, 'POST', `/merchants/${desk.merchantId}/block`, { reason: 'kyc' });
    expect(await methods(desk)).toMatchObject({ method: 'Classic', available: false, rails: [] });
    await admin(h.app, 'POST', `/merchants/${desk.merchantId}/unblock`);
    expect(await methods(desk)).toMatchObject({ available: true, reason: null });
  });

  it('a CrossBorder desk lists each rail only with the currencies it serves', async () => {
    const desk = await provisionDesk(h.app, {
      currencies: { INR: '84.2', KZT: '478.5' },
      desk: { method: 'CrossBorder', rails: ['Upi', 'C2c'], currencies: ['INR', 'KZT'] },
    });
    expect(await methods(desk)).toEqual({
      method: 'CrossBorder',
      available: true,
      reason: null,
      rails: [
        { rail: 'Upi', currencies: [{ code: 'INR', min: 0, max: 0 }] },
        { rail: 'C2c', currencies: [{ code: 'KZT', min: 0, max: 0 }] },
      ],
    });
  });

  it('the envelope carries the trace id of the X-Trace-Id header', async () => {
    const desk = await provisionDesk(h.app);
    const res = await signed(h, desk, '/gw/v1/methods');
    expect(json(res)).toMatchObject({ status: 'ok', traceId: res.headers['x-trace-id'] });
  });
});

describe('GET /gw/v1/rates', () => {
  let desk: DeskCreds;

  beforeAll(async () => {
    // RUB: manual rate with a spread; KZT: enabled without any rate; INR: has a rate but disabled;
    // AZN: never configured; TRY: configured but not allowed on the desk.
    desk = await provisionDesk(h.app, { desk: { currencies: ['RUB', 'KZT', 'INR', 'AZN'] } });
    await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '1.5' });
    await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
    await admin(h.app, 'PUT', '/currencies/KZT', { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'DELETE', '/rates/KZT');
    await admin(h.app, 'PUT', '/currencies/INR', { enabled: false, spreadPercent: '0' });
    await admin(h.app, 'PUT', '/rates/INR', { rate: '84.2' });
    await admin(h.app, 'PUT', '/currencies/TRY', { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', '/rates/TRY', { rate: '34.1' });
  });

  it('lists only the desk currencies, in the desk order, with settlement USD', async () => {
    const r = await rates(desk);
    expect(r.settlement).toBe('USD');
    expect(r.rates.map((x: { code: string }) => x.code)).toEqual(['RUB', 'KZT', 'INR', 'AZN']);
  });

  it('a manual rate is shown with the spread applied, at 8 places (91.8 × 1.015)', async () => {
    const r = await rates(desk);
    expect(r.rates[0]).toEqual({ code: 'RUB', rate: '93.17700000', priceable: true });
  });

  it('a currency without a rate, a disabled currency and an unconfigured one are not priceable', async () => {
    const r = await rates(desk);
    expect(r.rates.slice(1)).toEqual([
      { code: 'KZT', rate: null, priceable: false },
      { code: 'INR', rate: null, priceable: false },
      { code: 'AZN', rate: null, priceable: false },
    ]);
  });

  it('the currency filter narrows the list; the query string is not signed', async () => {
    expect(await rates(desk, 'currency=RUB')).toEqual({ settlement: 'USD', rates: [{ code: 'RUB', rate: '93.17700000', priceable: true }] });
    expect((await rates(desk, 'currency=KZT')).rates).toEqual([{ code: 'KZT', rate: null, priceable: false }]);
  });

  it('a currency filter given twice is VALIDATION_ERROR naming it', async () => {
    const res = await signed(h, desk, '/gw/v1/rates', { query: 'currency=RUB&currency=KZT' });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringMatching(/^currency\b/) });
  });

  it('filtering on a currency the desk does not allow lists nothing', async () => {
    expect((await rates(desk, 'currency=TRY')).rates).toEqual([]);
  });

  it('a changed spread or manual rate shows at once; removing the manual rate leaves the currency unpriceable', async () => {
    await admin(h.app, 'PUT', '/currencies/RUB', { spreadPercent: '0' });
    expect((await rates(desk, 'currency=RUB')).rates[0].rate).toBe('91.80000000');
    await admin(h.app, 'PUT', '/rates/RUB', { rate: '92.12345678' });
    expect((await rates(desk, 'currency=RUB')).rates[0].rate).toBe('92.12345678');
    await admin(h.app, 'DELETE', '/rates/RUB');
    expect((await rates(desk, 'currency=RUB')).rates[0]).toEqual({ code: 'RUB', rate: null, priceable: false });
    await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
    await admin(h.app, 'PUT', '/currencies/RUB', { spreadPercent: '1.5' });
  });

  it('enabling the disabled currency makes its rate visible', async () => {
    await admin(h.app, 'PUT', '/currencies/INR', { enabled: true });
    expect((await rates(desk, 'currency=INR')).rates).toEqual([{ code: 'INR', rate: '84.20000000', priceable: true }]);
    await admin(h.app, 'PUT', '/currencies/INR', { enabled: false });
  });
});

describe('GET /gw/v1/rates with a market source configured', () => {
  let m: Harness;
  let desk: DeskCreds;

  beforeAll(async () => {
    m = await createHarness({ env: { FX_SOURCES: 'cbr' } });
    desk = await provisionDesk(m.app, { desk: { currencies: ['RUB'] } });
    await admin(m.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '2' });
    await admin(m.app, 'DELETE', '/rates/RUB');
  });
  afterAll(() => m.close());

  const rub = async () => {
    const res = await signed(m, desk, '/gw/v1/rates', { query: 'currency=RUB' });
    expect(res.statusCode).toBe(200);
    return json(res).result.rates[0];
  };

  it('without any market rate yet, the currency is not priceable', async () => {
    expect(await rub()).toEqual({ code: 'RUB', rate: null, priceable: false });
  });

  it('a fresh market rate is used with the spread; a manual rate takes precedence; DELETE goes back to the market', async () => {
    await storeMarketRate(m.ctx.db, 'RUB', '90', 'cbr', new Date(m.clock.now()));
    expect(await rub()).toEqual({ code: 'RUB', rate: '91.80000000', priceable: true });
    await admin(m.app, 'PUT', '/rates/RUB', { rate: '100' });
    expect(await rub()).toEqual({ code: 'RUB', rate: '102.00000000', priceable: true });
    await admin(m.app, 'DELETE', '/rates/RUB');
    expect(await rub()).toEqual({ code: 'RUB', rate: '91.80000000', priceable: true });
  });

  it('a market rate older than RATE_MAX_AGE_SECONDS (3600 s by default) stops pricing', async () => {
    await storeMarketRate(m.ctx.db, 'RUB', '90', 'cbr', new Date(m.clock.now()));
    m.clock.advance(3600_000);
    expect((await rub()).priceable).toBe(true);
    m.clock.advance(1000);
    expect(await rub()).toEqual({ code: 'RUB', rate: null, priceable: false });
  });
});

describe('GET /gw/v1/balance', () => {
  it('a new merchant has 0 USD at 8 places, inside the ok envelope with the trace id', async () => {
    const desk = await provisionDesk(h.app);
    const res = await signed(h, desk, '/gw/v1/balance');
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toEqual({ status: 'ok', result: { currency: 'USD', available: '0.00000000', mode: 'sandbox' }, traceId: res.headers['x-trace-id'] });
    expect(body.traceId).toMatch(/\S/);
  });

  it('the balance matches what the operator sees on the merchant', async () => {
    const desk = await provisionDesk(h.app);
    const m = json(await admin(h.app, 'GET', `/merchants/${desk.merchantId}`)).result;
    expect((await get(desk, '/gw/v1/balance')).available).toBe(m.balance.available);
  });
});
