import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * POST /gw/v1/orders: the malformed-request rules (D3, D8–D10), each of the spec's twelve
 * validation steps with its code and detail, and the precedence of each step over the next, shown
 * with requests that fail two steps at once. Every refusal is checked with its HTTP status: 400 for
 * all the codes the spec leaves open (D2), 503 only for NO_AVAILABLE_METHOD.
 */

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app);
  // Platform currencies used below: EUR priceable, KZT and INR priceable, CHF enabled without any rate
  // source, GBP with a rate but switched off.
  for (const [code, rate] of [['EUR', '0.92'], ['KZT', '480'], ['INR', '83.2'], ['GBP', '0.79']]) {
    await admin(h.app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', `/rates/${code}`, { rate });
  }
  await admin(h.app, 'PUT', '/currencies/CHF', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/currencies/GBP', { enabled: false });
});
afterAll(() => h.close());

const post = (body: unknown, d: DeskCreds = desk) => signed(h, d, '/gw/v1/orders', { body: typeof body === 'string' ? body : JSON.stringify(body) });

async function refused(res: Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, code: string, status = 400) {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  const b = json(r as never);
  expect(b.status).toBe('error');
  expect(b.fault.code, r.body).toBe(code);
  expect(b.traceId).toBe(r.headers['x-trace-id']);
  return b.fault.detail as string | null;
}

async function created(res: Promise<{ statusCode: number; body: string }>) {
  const r = await res;
  expect(r.statusCode, r.body).toBe(201);
  return json(r as never).result;
}

/** A fresh desk per scenario, so switching one thing off never leaks into another test. */
const freshDesk = (o: Parameters<typeof provisionDesk>[1] = {}) => provisionDesk(h.app, { currencies: {}, ...o });

describe('malformed requests (D3): 400 VALIDATION_ERROR naming the field', () => {
  const cases: [string, unknown, string][] = [
    ['body is not JSON', '{"amount":', 'body'],
    ['body is an array', '[1,2]', 'body'],
    ['body is a JSON string', '"amount"', 'body'],
    ['amount missing', { rail: 'Sbp' }, 'amount'],
    ['amount null', { amount: null, rail: 'Sbp' }, 'amount'],
    ['amount as a JSON string (D8)', { amount: '100.00', rail: 'Sbp' }, 'amount'],
    ['amount a boolean', { amount: true, rail: 'Sbp' }, 'amount'],
    ['amount zero', { amount: 0, rail: 'Sbp' }, 'amount'],
    ['amount negative', { amount: -5, rail: 'Sbp' }, 'amount'],
    ['amount rounding to 0.00 (D8)', { amount: 0.004, rail: 'Sbp' }, 'amount'],
    ['currency a number', { amount: 10, currency: 643, rail: 'Sbp' }, 'currency'],
    ['rail a number', { amount: 10, rail: 1 }, 'rail'],
    ['lifetimeMinutes 0', { amount: 10, rail: 'Sbp', lifetimeMinutes: 0 }, 'lifetimeMinutes'],
    ['lifetimeMinutes 1441', { amount: 10, rail: 'Sbp', lifetimeMinutes: 1441 }, 'lifetimeMinutes'],
    ['lifetimeMinutes 1.5', { amount: 10, rail: 'Sbp', lifetimeMinutes: 1.5 }, 'lifetimeMinutes'],
    ['lifetimeMinutes a string', { amount: 10, rail: 'Sbp', lifetimeMinutes: '15' }, 'lifetimeMinutes'],
    ['orderRef over 255 characters', { amount: 10, rail: 'Sbp', orderRef: 'r'.repeat(256) }, 'orderRef'],
    ['orderRef a number', { amount: 10, rail: 'Sbp', orderRef: 42 }, 'orderRef'],
    ['unknown operator', { amount: 10, rail: 'Sbp', operator: 'OperatorZ' }, 'operator'],
    ['notifyUrl a number', { amount: 10, rail: 'Sbp', notifyUrl: 5 }, 'notifyUrl'],
    ['successUrl not a URL', { amount: 10, rail: 'Sbp', successUrl: 'thanks' }, 'successUrl'],
    ['direction neither In nor Out', { amount: 10, rail: 'Sbp', direction: 'Sideways' }, 'direction'],
  ];
  it.each(cases)('%s', async (_name, body, fieldName) => {
    const detail = await refused(post(body), 'VALIDATION_ERROR');
    expect(detail).toMatch(new RegExp(`^${fieldName}\\b`));
  });

  it('orderRef of exactly 255 characters and lifetimeMinutes 1 and 1440 are accepted', async () => {
    await created(post({ amount: 10, rail: 'Sbp', orderRef: 'r'.repeat(255), lifetimeMinutes: 1 }));
    await created(post({ amount: 10, rail: 'Sbp', lifetimeMinutes: 1440 }));
  });

  it('targetBank is accepted and ignored; direction In is the default and may be given', async () => {
    const o = await created(post({ amount: 10, rail: 'Sbp', targetBank: 'anything', direction: 'In' }));
    expect(o.direction).toBe('In');
  });
});

describe('amount rounding (D8)', () => {
  const cases: [number, string][] = [
    [1.005, '1.01'],
    [2.675, '2.68'],
    [0.005, '0.01'],
    [1500.499, '1500.50'],
    [1500.494, '1500.49'],
    [100, '100.00'],
    [0.1, '0.10'],
  ];
  it.each(cases)('%d is kept as "%s"', async (amount, expected) => {
    const o = await created(post({ amount, rail: 'Sbp' }));
    expect(o.amount).toBe(expected);
  });

  it('the number is read from the JSON text, not re-serialised: 1.005 in the body is 1.01 and settles from 1.01', async () => {
    const o = await created(post('{"amount":1.005,"rail":"Sbp"}'));
    expect(o.amount).toBe('1.01');
    expect(o.settled.amount).toBe('0.01100218'); // 1.01 / 91.8 = 0.011002178…
  });
});

describe('direction (D10) and currency code (D9)', () => {
  it('direction Out is 400 PAYOUTS_NOT_SUPPORTED', async () => {
    await refused(post({ amount: 10, rail: 'Sbp', direction: 'Out' }), 'PAYOUTS_NOT_SUPPORTED');
  });

  it.each(['rub', 'Rub', 'RU', 'RUBL', ' RUB', '', 'XYZ'])('currency "%s" is INVALID_CURRENCY', async (currency) => {
    await refused(post({ amount: 10, rail: 'Sbp', currency }), 'INVALID_CURRENCY');
  });

  it('currency defaults to RUB', async () => {
    expect((await created(post({ amount: 10, rail: 'Sbp' }))).currency).toBe('RUB');
  });
});

describe('step 7: currency checks (D15)', () => {
  it('known but never enabled on the platform, switched off, or without a rate source: CURRENCY_NOT_PAYABLE', async () => {
    const d = await freshDesk({ desk: { currencies: ['RUB', 'CHF', 'GBP', 'JPY'] } });
    await refused(post({ amount: 10, rail: 'Sbp', currency: 'JPY' }, d), 'CURRENCY_NOT_PAYABLE');
    await refused(post({ amount: 10, rail: 'Sbp', currency: 'CHF' }, d), 'CURRENCY_NOT_PAYABLE');
    await refused(post({ amount: 10, rail: 'Sbp', currency: 'GBP' }, d), 'CURRENCY_NOT_PAYABLE');
  });

  it('priceable but not allowed on the desk: CURRENCY_NOT_ENABLED', async () => {
    const detail = await refused(post({ amount: 10, rail: 'Sbp', currency: 'EUR' }), 'CURRENCY_NOT_ENABLED');
    expect(detail).toContain('EUR');
  });

  it('allowed on the desk but not served by the chosen rail (CrossBorder Upi with KZT): CURRENCY_NOT_ENABLED', async () => {
    const d = await freshDesk({ desk: { method: 'CrossBorder', rails: ['Upi', 'Phone'], currencies: ['INR', 'KZT'] } });
    await refused(post({ amount: 1000, rail: 'Upi', currency: 'KZT' }, d), 'CURRENCY_NOT_ENABLED');
    const ok = await created(post({ amount: 1000, rail: 'Upi', currency: 'INR' }, d));
    expect(ok).toMatchObject({ method: 'CrossBorder', rail: 'Upi', currency: 'INR' });
    expect(ok.payment.upiId).toEqual(expect.any(String));
    expect((await created(post({ amount: 1000, rail: 'Phone', currency: 'KZT' }, d))).payment.phone).toEqual(expect.any(String));
  });
});

describe('step 6: rail checks (D11, D16)', () => {
  it('several rails allowed and none given: RAIL_REQUIRED', async () => {
    await refused(post({ amount: 10 }), 'RAIL_REQUIRED');
  });

  it('a name that is not a rail of the method: INVALID_RAIL', async () => {
    await refused(post({ amount: 10, rail: 'Upi' }), 'INVALID_RAIL');
    await refused(post({ amount: 10, rail: 'sbp' }), 'INVALID_RAIL');
  });

  it('a rail of the method the desk does not allow: RAIL_NOT_ENABLED; the one allowed rail may be omitted', async () => {
    const d = await freshDesk({ desk: { rails: ['Sbp'] } });
    await refused(post({ amount: 10, rail: 'C2c' }, d), 'RAIL_NOT_ENABLED');
    expect((await created(post({ amount: 10 }, d))).rail).toBe('Sbp');
  });

  it('MobileCommerce Phone without operator is VALIDATION_ERROR naming operator; with one it is created', async () => {
    const d = await freshDesk({ desk: { method: 'MobileCommerce', rails: ['Phone'] } });
    const detail = await refused(post({ amount: 10 }, d), 'VALIDATION_ERROR');
    expect(detail).toMatch(/^operator\b/);
    const o = await created(post({ amount: 10, operator: 'OperatorC' }, d));
    expect(o).toMatchObject({ method: 'MobileCommerce', rail: 'Phone' });
  });

  it('a rail-less method: rail omitted or null gives rail null; any rail is INVALID_RAIL', async () => {
    const d = await freshDesk({ desk: { method: 'NationalQr', rails: [] } });
    expect((await created(post({ amount: 10 }, d))).rail).toBeNull();
    expect((await created(post({ amount: 10, rail: null }, d))).rail).toBeNull();
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'INVALID_RAIL');
  });
});

describe('steps 1–5: account, desk and callback URL', () => {
  it('a blocked merchant: MERCHANT_INACTIVE', async () => {
    const d = await freshDesk();
    await admin(h.app, 'POST', `/merchants/${d.merchantId}/block`, { reason: 'fraud review' });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'MERCHANT_INACTIVE');
    await admin(h.app, 'POST', `/merchants/${d.merchantId}/unblock`);
    await created(post({ amount: 10, rail: 'Sbp' }, d));
  });

  it('a desk disabled by the merchant: SHOP_INACTIVE', async () => {
    const d = await freshDesk();
    await admin(h.app, 'PATCH', `/desks/${d.id}`, { enabled: false });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'SHOP_INACTIVE');
  });

  it('a desk stopped by the platform: SHOP_STOPPED with the stop reason as detail', async () => {
    const d = await freshDesk();
    await admin(h.app, 'POST', `/desks/${d.id}/stop`, { reason: 'documents expired' });
    expect(await refused(post({ amount: 10, rail: 'Sbp' }, d), 'SHOP_STOPPED')).toBe('documents expired');
    await admin(h.app, 'POST', `/desks/${d.id}/resume`);
    await created(post({ amount: 10, rail: 'Sbp' }, d));
  });

  it('no notifyUrl and no desk URL: CALLBACK_URL_REQUIRED; a notifyUrl alone is enough', async () => {
    const d = await freshDesk({ desk: { callbackUrl: null } });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'CALLBACK_URL_REQUIRED');
    await created(post({ amount: 10, rail: 'Sbp', notifyUrl: 'https://hooks.example.net/cb' }, d));
  });

  it.each([
    'http://127.0.0.1/x',
    'http://10.1.2.3/x',
    'http://[::1]/x',
    'http://169.254.169.254/latest',
    'http://localhost/x',
    'ftp://merchant.example/x',
    'https://user:pw@merchant.example/x',
    'not a url',
  ])('notifyUrl %s: INVALID_CALLBACK_URL', async (notifyUrl) => {
    const detail = await refused(post({ amount: 10, rail: 'Sbp', notifyUrl }), 'INVALID_CALLBACK_URL');
    expect(detail).toMatch(/^notifyUrl\b/);
  });
});

describe('step 9: cash desk USD limits (bound in detail)', () => {
  it('below minUsd is AMOUNT_BELOW_MIN, above maxUsd AMOUNT_ABOVE_MAX; both bounds are inclusive', async () => {
    const d = await freshDesk({ desk: { minUsd: '10', maxUsd: '100' } });
    // 917 / 91.8 = 9.98910675 USD; 918 = 10 USD exactly; 9180 = 100 USD; 9180.01 = 100.00010893 USD
    expect(await refused(post({ amount: 917, rail: 'Sbp' }, d), 'AMOUNT_BELOW_MIN')).toContain('10.00000000');
    await created(post({ amount: 918, rail: 'Sbp' }, d));
    await created(post({ amount: 9180, rail: 'Sbp' }, d));
    expect(await refused(post({ amount: 9180.01, rail: 'Sbp' }, d), 'AMOUNT_ABOVE_MAX')).toContain('100.00000000');
  });

  it('0 means unbounded on either side', async () => {
    const d = await freshDesk({ desk: { minUsd: '0', maxUsd: '0' } });
    await created(post({ amount: 0.01, rail: 'Sbp' }, d));
    await created(post({ amount: 999999999, rail: 'Sbp' }, d));
  });
});

describe('step 10: turnover caps (D22)', () => {
  it('TRAFFIC_LIMIT_REACHED (400) with the scope, window and numbers in detail; reaching the cap exactly is allowed', async () => {
    const d = await freshDesk();
    const cap = json(await admin(h.app, 'POST', '/turnover-limits', { scope: 'merchant', scopeId: d.merchantId, window: 'day', capUsd: '10000', notifyOnly: false }));
    try {
      const big = await created(post({ amount: 913410, rail: 'Sbp' }, d)); // 9950 USD
      expect(big.settled.amount).toBe('9950.00000000');
      expect((await admin(h.app, 'POST', `/orders/${big.id}/simulate-payment`)).statusCode).toBe(200);
      const detail = await refused(post({ amount: 5508, rail: 'Sbp' }, d), 'TRAFFIC_LIMIT_REACHED'); // 60 USD
      expect(detail).toBe('merchant day cap 10000.00000000 USD: completed 9950.00000000 + order 60.00000000');
      await created(post({ amount: 4590, rail: 'Sbp' }, d)); // 50 USD: exactly the cap
    } finally {
      await admin(h.app, 'DELETE', `/turnover-limits/${cap.result.id}`);
    }
  });
});

describe('step 12: provider cascade', () => {
  it('an account under review with the sandbox off: 400 MERCHANT_NOT_APPROVED, and no order is left behind', async () => {
    const d = await freshDesk({ merchant: { sandbox: false } });
    await refused(post({ amount: 10, rail: 'Sbp', orderRef: 'not-approved-1' }, d), 'MERCHANT_NOT_APPROVED');
    expect((await signed(h, d, '/gw/v1/orders/not-approved-1')).statusCode).toBe(404);
  });

  it('an approved account with no live provider for the rail: 503 NO_AVAILABLE_METHOD, and no order is left behind', async () => {
    const d = await freshDesk({ merchant: { approve: true }, desk: { method: 'WhiteTriangle' } });
    await refused(post({ amount: 10, rail: 'Sbp', orderRef: 'no-provider-1' }, d), 'NO_AVAILABLE_METHOD', 503);
    expect((await signed(h, d, '/gw/v1/orders/no-provider-1')).statusCode).toBe(404);
    // the sandbox never serves an approved account
    const { rows } = await h.ctx.db.query(`SELECT 1 FROM orders WHERE desk_id = $1 AND placement = 'placed'`, [d.id]);
    expect(rows).toHaveLength(0);
  });
});

describe('precedence: of two failing steps, the earlier one answers', () => {
  it('D3 shape before step 1: a blocked merchant sending a string amount gets VALIDATION_ERROR', async () => {
    const d = await freshDesk();
    await admin(h.app, 'POST', `/merchants/${d.merchantId}/block`, { reason: 'x' });
    await refused(post({ amount: '10', rail: 'Sbp' }, d), 'VALIDATION_ERROR');
    await refused(post({ amount: 10, rail: 'Sbp', direction: 'Out' }, d), 'PAYOUTS_NOT_SUPPORTED');
  });

  it('1 before 2: blocked merchant and disabled desk → MERCHANT_INACTIVE', async () => {
    const d = await freshDesk();
    await admin(h.app, 'PATCH', `/desks/${d.id}`, { enabled: false });
    await admin(h.app, 'POST', `/merchants/${d.merchantId}/block`, { reason: 'x' });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'MERCHANT_INACTIVE');
  });

  it('2 before 3: disabled and stopped desk → SHOP_INACTIVE', async () => {
    const d = await freshDesk();
    await admin(h.app, 'PATCH', `/desks/${d.id}`, { enabled: false });
    await admin(h.app, 'POST', `/desks/${d.id}/stop`, { reason: 'stopped' });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'SHOP_INACTIVE');
  });

  it('3 before 4: stopped desk without any callback URL → SHOP_STOPPED', async () => {
    const d = await freshDesk({ desk: { callbackUrl: null } });
    await admin(h.app, 'POST', `/desks/${d.id}/stop`, { reason: 'stopped' });
    await refused(post({ amount: 10, rail: 'Sbp' }, d), 'SHOP_STOPPED');
  });

  it('4 before 6: no callback URL and no rail → CALLBACK_URL_REQUIRED', async () => {
    const d = await freshDesk({ desk: { callbackUrl: null } });
    await refused(post({ amount: 10 }, d), 'CALLBACK_URL_REQUIRED');
  });

  it('5 before 6: a loopback notifyUrl and an unknown rail → INVALID_CALLBACK_URL', async () => {
    await refused(post({ amount: 10, rail: 'Upi', notifyUrl: 'http://127.0.0.1/x' }), 'INVALID_CALLBACK_URL');
  });

  it('6 before 7: a rail not enabled and a lower-case currency → RAIL_NOT_ENABLED; rail missing and bad currency → RAIL_REQUIRED', async () => {
    const d = await freshDesk({ desk: { rails: ['Sbp'] } });
    await refused(post({ amount: 10, rail: 'C2c', currency: 'rub' }, d), 'RAIL_NOT_ENABLED');
    await refused(post({ amount: 10, currency: 'rub' }), 'RAIL_REQUIRED');
    await refused(post({ amount: 10, rail: 'Upi', currency: 'rub' }), 'INVALID_RAIL');
  });

  it('6 before 7: MobileCommerce without operator and an unknown currency → VALIDATION_ERROR (operator)', async () => {
    const d = await freshDesk({ desk: { method: 'MobileCommerce', rails: ['Phone'] } });
    expect(await refused(post({ amount: 10, currency: 'XYZ' }, d), 'VALIDATION_ERROR')).toMatch(/^operator\b/);
  });

  it('7 before 9: a currency not on the desk and an amount over the desk maximum → CURRENCY_NOT_ENABLED', async () => {
    const d = await freshDesk({ desk: { maxUsd: '1' } });
    await refused(post({ amount: 100000, rail: 'Sbp', currency: 'EUR' }, d), 'CURRENCY_NOT_ENABLED');
    await refused(post({ amount: 100000, rail: 'Sbp', currency: 'CHF' }, d), 'CURRENCY_NOT_PAYABLE');
  });

  it('9 before 10: over the desk maximum and over a turnover cap → AMOUNT_ABOVE_MAX', async () => {
    const d = await freshDesk({ desk: { maxUsd: '5' } });
    const cap = json(await admin(h.app, 'POST', '/turnover-limits', { scope: 'desk', scopeId: d.id, window: 'day', capUsd: '1', notifyOnly: false }));
    await refused(post({ amount: 918, rail: 'Sbp' }, d), 'AMOUNT_ABOVE_MAX');
    await refused(post({ amount: 183.6, rail: 'Sbp' }, d), 'TRAFFIC_LIMIT_REACHED'); // 2 USD: within the max, over the cap
    await admin(h.app, 'DELETE', `/turnover-limits/${cap.result.id}`);
  });

  it('10 before 11: a repeat of an open orderRef once a cap is reached → TRAFFIC_LIMIT_REACHED', async () => {
    const d = await freshDesk();
    const first = await created(post({ amount: 918, rail: 'Sbp', orderRef: 'cap-then-repeat' }, d)); // 10 USD
    const other = await created(post({ amount: 918, rail: 'Sbp' }, d));
    await admin(h.app, 'POST', `/orders/${other.id}/simulate-payment`);
    const cap = json(await admin(h.app, 'POST', '/turnover-limits', { scope: 'desk', scopeId: d.id, window: 'day', capUsd: '15', notifyOnly: false }));
    await refused(post({ amount: 918, rail: 'Sbp', orderRef: 'cap-then-repeat' }, d), 'TRAFFIC_LIMIT_REACHED');
    await admin(h.app, 'DELETE', `/turnover-limits/${cap.result.id}`);
    expect((await created(post({ amount: 918, rail: 'Sbp', orderRef: 'cap-then-repeat' }, d))).id).toBe(first.id);
  });

  it('11 before 12: a repeat of an open orderRef after the sandbox is switched off returns the order, a new reference is MERCHANT_NOT_APPROVED', async () => {
    const d = await freshDesk();
    const first = await created(post({ amount: 10, rail: 'Sbp', orderRef: 'repeat-before-cascade' }, d));
    await admin(h.app, 'PATCH', `/merchants/${d.merchantId}`, { sandbox: false });
    expect((await created(post({ amount: 10, rail: 'Sbp', orderRef: 'repeat-before-cascade' }, d))).id).toBe(first.id);
    await refused(post({ amount: 10, rail: 'Sbp', orderRef: 'something-new' }, d), 'MERCHANT_NOT_APPROVED');
  });
});

describe('step 8: a rate available now (market sources configured)', () => {
  let fx: Harness;
  beforeAll(async () => {
    fx = await createHarness({ env: { FX_SOURCES: 'ecb', RATE_MAX_AGE_SECONDS: '3600' } });
  });
  afterAll(() => fx.close());

  it('no fresh market rate is FX_RATE_UNAVAILABLE, after the currency checks and before the desk limits', async () => {
    const d = await provisionDesk(fx.app, { desk: { currencies: ['RUB', 'EUR'], maxUsd: '1' } });
    // EUR is enabled and has a source configured, but no rate was ever fetched
    await admin(fx.app, 'PUT', '/currencies/EUR', { enabled: true, spreadPercent: '0' });
    const send = (body: Record<string, unknown>, desk: DeskCreds = d) => signed(fx, desk, '/gw/v1/orders', { body: JSON.stringify(body) });
    const code = async (body: Record<string, unknown>, desk?: DeskCreds) => {
      const r = await send(body, desk);
      expect(r.statusCode, r.body).toBe(400);
      return json(r).fault.code;
    };
    expect(await code({ amount: 10, rail: 'Sbp', currency: 'EUR' })).toBe('FX_RATE_UNAVAILABLE');
    // 8 before 9: far above the desk maximum, still FX_RATE_UNAVAILABLE
    expect(await code({ amount: 1_000_000, rail: 'Sbp', currency: 'EUR' })).toBe('FX_RATE_UNAVAILABLE');
    // 7 before 8: a desk that does not allow EUR answers CURRENCY_NOT_ENABLED
    const rubOnly = await provisionDesk(fx.app, { currencies: {} });
    expect(await code({ amount: 10, rail: 'Sbp', currency: 'EUR' }, rubOnly)).toBe('CURRENCY_NOT_ENABLED');
    // a market rate that is too old is no rate either
    await fx.ctx.db.query(`INSERT INTO rates (code, market_rate, market_source, market_fetched_at, updated_at) VALUES ('EUR', 0.92, 'ecb', $1, $1)`, [
      new Date(fx.clock.now() - 3_601_000),
    ]);
    expect(await code({ amount: 10, rail: 'Sbp', currency: 'EUR' })).toBe('FX_RATE_UNAVAILABLE');
    await fx.ctx.db.query(`UPDATE rates SET market_fetched_at = $1 WHERE code = 'EUR'`, [new Date(fx.clock.now() - 60_000)]);
    const ok = await send({ amount: 0.92, rail: 'Sbp', currency: 'EUR' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(json(ok).result.settled).toEqual({ amount: '1.00000000', currency: 'USD', rate: '0.92000000' });
  });
});
