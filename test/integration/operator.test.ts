import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, createHarness, json, type Harness, CLASSIC_DESK } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const call = (method: Parameters<typeof admin>[1], url: string, body?: unknown) => admin(h.app, method, url, body);
const fault = (res: { body: string }) => json(res as never)?.fault;

async function newMerchant(body: Record<string, unknown> = { name: 'Shop' }): Promise<any> {
  const res = await call('POST', '/merchants', body);
  expect(res.statusCode).toBe(201);
  return json(res).result;
}

async function newTariff(): Promise<any> {
  const res = await call('POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }] });
  expect(res.statusCode).toBe(201);
  return json(res).result;
}

const CLASSIC = CLASSIC_DESK;

async function newDesk(body: Record<string, unknown> = {}): Promise<any> {
  const m = await newMerchant();
  const res = await call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}

/** Sends the request and expects 400 VALIDATION_ERROR whose detail starts with the field name. */
async function expectInvalid(res: Promise<{ statusCode: number; body: string }>, fieldName: string) {
  const r = await res;
  expect(r.statusCode, r.body).toBe(400);
  expect(fault(r).code).toBe('VALIDATION_ERROR');
  expect(fault(r).detail).toMatch(new RegExp(`^${fieldName.replace(/[[\]]/g, '\\$&')}\\b`));
}

describe('operator authentication', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a wrong bearer token', { authorization: 'Bearer wrong-token-0123456789' }],
    ['the right token with another scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
    ['the right token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
  ];
  it.each(cases)('401 ADMIN_AUTH_FAILED with %s', async (_name, headers) => {
    const res = await h.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...headers, 'content-type': 'application/json' }, payload: '{"name":"X"}' });
    expect(res.statusCode).toBe(401);
    expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'ADMIN_AUTH_FAILED' } });
    expect(json(res).traceId).toBe(res.headers['x-trace-id']);
  });

  it('a refused request changes nothing', async () => {
    const m = await newMerchant();
    const res = await h.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/approve`, headers: { authorization: 'Bearer nope-nope-nope-nope' } });
    expect(res.statusCode).toBe(401);
    expect(json(await call('GET', `/merchants/${m.id}`)).result.status).toBe('UnderReview');
  });
});

describe('merchants', () => {
  it('creates a merchant under review, sandbox by default, with a mer_ id and a second-precision timestamp', async () => {
    const res = await call('POST', '/merchants', { name: 'Acme' });
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(res.headers['x-trace-id']);
    expect(body.result).toMatchObject({ name: 'Acme', status: 'UnderReview', sandbox: true });
    expect(body.result.id).toMatch(/^mer_[0-9a-z]{26}$/);
    expect(body.result.createdAt).toMatch(TIMESTAMP);
    expect(body.result.createdAt).toBe('2026-01-15T12:00:00Z');
  });

  it('sandbox false is kept', async () => {
    expect((await newMerchant({ name: 'Live only', sandbox: false })).sandbox).toBe(false);
  });

  it('GET returns the merchant with its balance at 8 places', async () => {
    const m = await newMerchant();
    const res = await call('GET', `/merchants/${m.id}`);
    expect(res.statusCode).toBe(200);
    expect(json(res).result).toMatchObject({ id: m.id, name: 'Shop', status: 'UnderReview', sandbox: true, createdAt: m.createdAt });
    expect(json(res).result.balance).toMatchObject({ available: '0.00000000' });
  });

  it('approve makes the merchant Active', async () => {
    const m = await newMerchant();
    const res = await call('POST', `/merchants/${m.id}/approve`);
    expect(res.statusCode).toBe(200);
    expect(json(res).result.status).toBe('Active');
    expect(json(await call('GET', `/merchants/${m.id}`)).result.status).toBe('Active');
  });

  it('block with a reason, then unblock, returns an account under review to UnderReview', async () => {
    const m = await newMerchant();
    const blocked = await call('POST', `/merchants/${m.id}/block`, { reason: 'chargeback spike' });
    expect(blocked.statusCode).toBe(200);
    expect(json(blocked).result).toMatchObject({ status: 'Blocked', blockReason: 'chargeback spike' });
    const unblocked = await call('POST', `/merchants/${m.id}/unblock`);
    expect(unblocked.statusCode).toBe(200);
    expect(json(unblocked).result).toMatchObject({ status: 'UnderReview', blockReason: null });
  });

  it('block then unblock returns an approved account to Active, even when blocked twice', async () => {
    const m = await newMerchant();
    await call('POST', `/merchants/${m.id}/approve`);
    expect(json(await call('POST', `/merchants/${m.id}/block`, { reason: 'first' })).result.status).toBe('Blocked');
    expect(json(await call('POST', `/merchants/${m.id}/block`, { reason: 'second' })).result).toMatchObject({ status: 'Blocked', blockReason: 'second' });
    expect(json(await call('POST', `/merchants/${m.id}/unblock`)).result.status).toBe('Active');
  });

  it('approving a blocked account keeps the block; unblocking then makes it Active', async () => {
    const m = await newMerchant();
    await call('POST', `/merchants/${m.id}/block`, { reason: 'kyc' });
    expect(json(await call('POST', `/merchants/${m.id}/approve`)).result.status).toBe('Blocked');
    expect(json(await call('POST', `/merchants/${m.id}/unblock`)).result.status).toBe('Active');
  });

  it('unblocking an account that is not blocked changes nothing', async () => {
    const m = await newMerchant();
    await call('POST', `/merchants/${m.id}/approve`);
    const res = await call('POST', `/merchants/${m.id}/unblock`);
    expect(res.statusCode).toBe(200);
    expect(json(res).result.status).toBe('Active');
  });

  it('PATCH switches the sandbox off and on', async () => {
    const m = await newMerchant();
    const off = await call('PATCH', `/merchants/${m.id}`, { sandbox: false });
    expect(off.statusCode).toBe(200);
    expect(json(off).result).toMatchObject({ id: m.id, sandbox: false, status: 'UnderReview' });
    expect(json(await call('GET', `/merchants/${m.id}`)).result.sandbox).toBe(false);
    expect(json(await call('PATCH', `/merchants/${m.id}`, { sandbox: true })).result.sandbox).toBe(true);
  });

  it.each([
    ['GET', ''],
    ['POST', '/approve'],
    ['POST', '/block'],
    ['POST', '/unblock'],
    ['PATCH', ''],
    ['POST', '/desks'],
  ] as const)('404 MERCHANT_NOT_FOUND for %s /merchants/{unknown}%s', async (method, suffix) => {
    const body = method === 'GET' ? undefined : suffix === '/desks' ? CLASSIC : suffix === '/block' ? { reason: 'x' } : suffix === '' ? { sandbox: true } : {};
    const res = await call(method, `/merchants/mer_00000000000000000000000000${suffix}`, body);
    expect(res.statusCode).toBe(404);
    expect(fault(res).code).toBe('MERCHANT_NOT_FOUND');
  });

  it('VALIDATION_ERROR names the field: missing name, empty name, non-boolean sandbox', async () => {
    await expectInvalid(call('POST', '/merchants', {}), 'name');
    await expectInvalid(call('POST', '/merchants', { name: '' }), 'name');
    await expectInvalid(call('POST', '/merchants', { name: 42 }), 'name');
    await expectInvalid(call('POST', '/merchants', { name: 'X', sandbox: 'yes' }), 'sandbox');
    const m = await newMerchant();
    await expectInvalid(call('PATCH', `/merchants/${m.id}`, { sandbox: 1 }), 'sandbox');
    expect(json(await call('GET', `/merchants/${m.id}`)).result.sandbox).toBe(true);
  });

  it('a body that is not JSON, or not an object, is VALIDATION_ERROR and creates nothing', async () => {
    for (const payload of ['{"name": "X"', 'name=X', '["X"]', '"X"']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(fault(res).code).toBe('VALIDATION_ERROR');
      expect(fault(res).detail).toMatch(/^body /);
    }
  });
});

describe('tariffs', () => {
  it('creates a tariff with a trf_ id; amounts at 8 places, rates at 4', async () => {
    const res = await call('POST', '/tariffs', {
      name: 'Banded',
      bands: [
        { fromUsd: '1000', toUsd: null, ratePercent: '2.5' },
        { fromUsd: '0', toUsd: '1000', ratePercent: '3.25' },
      ],
    });
    expect(res.statusCode).toBe(201);
    const t = json(res).result;
    expect(t.id).toMatch(/^trf_[0-9a-z]{26}$/);
    expect(t.name).toBe('Banded');
    expect(t.bands).toEqual([
      { fromUsd: '0.00000000', toUsd: '1000.00000000', ratePercent: '3.2500' },
      { fromUsd: '1000.00000000', toUsd: null, ratePercent: '2.5000' },
    ]);
  });

  it('adjacent bands [0, 100) and [100, ∞) are accepted', async () => {
    const res = await call('POST', '/tariffs', {
      name: 'Two',
      bands: [
        { fromUsd: '0', toUsd: '100', ratePercent: '4' },
        { fromUsd: '100', toUsd: null, ratePercent: '3' },
      ],
    });
    expect(res.statusCode).toBe(201);
  });

  it('overlapping bands are refused', async () => {
    await expectInvalid(
      call('POST', '/tariffs', {
        name: 'Overlap',
        bands: [
          { fromUsd: '0', toUsd: '100', ratePercent: '4' },
          { fromUsd: '50', toUsd: null, ratePercent: '3' },
        ],
      }),
      'bands',
    );
    // An open-ended band followed by another overlaps it too.
    await expectInvalid(
      call('POST', '/tariffs', {
        name: 'Overlap',
        bands: [
          { fromUsd: '0', toUsd: null, ratePercent: '4' },
          { fromUsd: '500', toUsd: '600', ratePercent: '3' },
        ],
      }),
      'bands',
    );
  });

  it('toUsd at or below fromUsd is refused', async () => {
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '10', toUsd: '10', ratePercent: '1' }] }), 'bands[0].toUsd');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '10', toUsd: '5', ratePercent: '1' }] }), 'bands[0].toUsd');
  });

  it('JSON numbers, missing fields and too many places are refused with the band field named', async () => {
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: 0, toUsd: null, ratePercent: '1' }] }), 'bands[0].fromUsd');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '0', toUsd: 100, ratePercent: '1' }] }), 'bands[0].toUsd');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '0', toUsd: null, ratePercent: 1.5 }] }), 'bands[0].ratePercent');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '0', toUsd: null }] }), 'bands[0].ratePercent');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '1.23456' }] }), 'bands[0].ratePercent');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '-1', toUsd: null, ratePercent: '1' }] }), 'bands[0].fromUsd');
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '101' }] }), 'bands[0].ratePercent');
  });

  it('bands must be a non-empty array and the name is required', async () => {
    await expectInvalid(call('POST', '/tariffs', { name: 'X', bands: [] }), 'bands');
    await expectInvalid(call('POST', '/tariffs', { name: 'X' }), 'bands');
    await expectInvalid(call('POST', '/tariffs', { bands: [{ fromUsd: '0', toUsd: null, ratePercent: '1' }] }), 'name');
  });
});

describe('cash desks', () => {
  it('creates a desk: dsk_ id, shp_ key, secret once, the given fields, enabled, not stopped', async () => {
    const m = await newMerchant();
    const t = await newTariff();
    const res = await call('POST', `/merchants/${m.id}/desks`, {
      method: 'Classic',
      rails: ['Sbp'],
      currencies: ['RUB'],
      minUsd: '1.5',
      maxUsd: '2500',
      callbackUrl: 'https://merchant.example/hooks/paygate',
      callbacksEnabled: false,
      tariffId: t.id,
    });
    expect(res.statusCode).toBe(201);
    const d = json(res).result;
    expect(d.id).toMatch(/^dsk_[0-9a-z]{26}$/);
    expect(d.key).toMatch(/^shp_[0-9a-z]{26}$/);
    expect(typeof d.secret).toBe('string');
    expect(d.secret.length).toBeGreaterThanOrEqual(32);
    expect(d).toMatchObject({
      merchantId: m.id,
      method: 'Classic',
      rails: ['Sbp'],
      currencies: ['RUB'],
      minUsd: '1.50000000',
      maxUsd: '2500.00000000',
      callbackUrl: 'https://merchant.example/hooks/paygate',
      callbacksEnabled: false,
      tariffId: t.id,
      enabled: true,
      stopReason: null,
    });
    expect(d.createdAt).toMatch(TIMESTAMP);
  });

  it('defaults: callbacks on, no tariff, no limits', async () => {
    const m = await newMerchant();
    const res = await call('POST', `/merchants/${m.id}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'], callbackUrl: null });
    expect(res.statusCode).toBe(201);
    expect(json(res).result).toMatchObject({ callbacksEnabled: true, tariffId: null, minUsd: '0.00000000', maxUsd: '0.00000000', callbackUrl: null });
  });

  it('every desk gets its own key and secret', async () => {
    const a = await newDesk();
    const b = await newDesk();
    expect(a.key).not.toBe(b.key);
    expect(a.secret).not.toBe(b.secret);
  });

  it('the secret never appears again: not in GET, not in PATCH', async () => {
    const d = await newDesk();
    const got = await call('GET', `/desks/${d.id}`);
    expect(got.statusCode).toBe(200);
    expect(json(got).result).not.toHaveProperty('secret');
    expect(got.body).not.toContain(d.secret);
    const { secret: _secret, ...withoutSecret } = d;
    expect(json(got).result).toEqual(withoutSecret);
    const patched = await call('PATCH', `/desks/${d.id}`, { enabled: false });
    expect(json(patched).result).not.toHaveProperty('secret');
    expect(patched.body).not.toContain(d.secret);
  });

  it('the method must be one of the seven', async () => {
    const m = await newMerchant();
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method: 'Crypto' }), 'method');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method: 'classic' }), 'method');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method: undefined }), 'method');
    for (const method of ['Classic', 'WhiteTriangle', 'MobileCommerce', 'CrossBorder', 'BankApp', 'Counterparty', 'NationalQr']) {
      const rails = { Classic: ['Sbp'], WhiteTriangle: ['C2c'], MobileCommerce: ['Phone'], CrossBorder: ['Upi'] }[method as 'Classic'] ?? [];
      const currencies = method === 'CrossBorder' ? ['INR'] : ['RUB'];
      const res = await call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method, rails, currencies });
      expect(res.statusCode, `${method}: ${res.body}`).toBe(201);
      expect(json(res).result.method).toBe(method);
    }
  });

  it('rails must belong to the method', async () => {
    const m = await newMerchant();
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, rails: ['Sbp', 'Upi'] }), 'rails');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method: 'MobileCommerce', rails: ['Sbp'] }), 'rails');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method: 'CrossBorder', rails: ['Sbp'], currencies: ['INR'] }), 'rails');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, rails: 'Sbp' }), 'rails');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, rails: [1] }), 'rails');
  });

  it('rail-less methods take rails: [] and refuse any rail', async () => {
    const m = await newMerchant();
    for (const method of ['BankApp', 'Counterparty', 'NationalQr']) {
      await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method, rails: ['Sbp'] }), 'rails');
      const res = await call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, method, rails: [] });
      expect(res.statusCode).toBe(201);
      expect(json(res).result.rails).toEqual([]);
    }
  });

  it('currencies must be ISO 4217 codes in upper case', async () => {
    const m = await newMerchant();
    for (const bad of [['rub'], ['ABC'], ['RUB', 'RUBL'], ['US']]) {
      await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, currencies: bad }), 'currencies');
    }
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, currencies: 'RUB' }), 'currencies');
  });

  it('USD limits are decimal strings and min may not exceed a bounded max', async () => {
    const m = await newMerchant();
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, minUsd: 10 }), 'minUsd');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, maxUsd: '-5' }), 'maxUsd');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, minUsd: '100', maxUsd: '50' }), 'minUsd');
    // "0" is unbounded, so any minimum goes with it.
    expect((await call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, minUsd: '100', maxUsd: '0' })).statusCode).toBe(201);
  });

  it('tariffId must name an existing tariff', async () => {
    const m = await newMerchant();
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, tariffId: 'trf_00000000000000000000000000' }), 'tariffId');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, tariffId: '' }), 'tariffId');
    await expectInvalid(call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, tariffId: 7 }), 'tariffId');
  });

  it('the callback URL must pass the URL rules', async () => {
    const m = await newMerchant();
    for (const callbackUrl of ['http://127.0.0.1/cb', 'ftp://merchant.example/cb', '']) {
      const res = await call('POST', `/merchants/${m.id}/desks`, { ...CLASSIC, callbackUrl });
      expect(res.statusCode, callbackUrl).toBe(400);
      expect(fault(res).code).toBe('INVALID_CALLBACK_URL');
      expect(fault(res).detail).toMatch(/^callbackUrl\b/);
    }
    const d = await newDesk();
    expect(fault(await call('PATCH', `/desks/${d.id}`, { callbackUrl: 'http://10.0.0.5/cb' })).code).toBe('INVALID_CALLBACK_URL');
    expect(json(await call('GET', `/desks/${d.id}`)).result.callbackUrl).toBe(CLASSIC.callbackUrl);
  });

  it('GET /desks/{id} returns the desk', async () => {
    const d = await newDesk();
    const res = await call('GET', `/desks/${d.id}`);
    expect(res.statusCode).toBe(200);
    expect(json(res).result).toMatchObject({ id: d.id, key: d.key, method: 'Classic', rails: ['Sbp', 'C2c'], currencies: ['RUB'], enabled: true, stopReason: null });
  });

  it('PATCH changes each field and GET shows the change', async () => {
    const d = await newDesk();
    const t = await newTariff();
    const steps: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ enabled: false }, { enabled: false }],
      [{ enabled: true }, { enabled: true }],
      [{ rails: ['C2c'] }, { rails: ['C2c'] }],
      [{ currencies: ['RUB', 'KZT'] }, { currencies: ['RUB', 'KZT'] }],
      [{ minUsd: '5' }, { minUsd: '5.00000000' }],
      [{ maxUsd: '750.25' }, { maxUsd: '750.25000000' }],
      [{ callbackUrl: 'https://merchant.example/new' }, { callbackUrl: 'https://merchant.example/new' }],
      [{ callbackUrl: null }, { callbackUrl: null }],
      [{ callbacksEnabled: false }, { callbacksEnabled: false }],
      [{ tariffId: t.id }, { tariffId: t.id }],
      [{ tariffId: null }, { tariffId: null }],
    ];
    for (const [patch, expected] of steps) {
      const res = await call('PATCH', `/desks/${d.id}`, patch);
      expect(res.statusCode, `${JSON.stringify(patch)}: ${res.body}`).toBe(200);
      expect(json(res).result).toMatchObject(expected);
      expect(json(await call('GET', `/desks/${d.id}`)).result).toMatchObject(expected);
    }
    // Fields not patched keep their values.
    expect(json(await call('GET', `/desks/${d.id}`)).result).toMatchObject({ key: d.key, method: 'Classic', enabled: true, minUsd: '5.00000000' });
  });

  it('PATCH validates like create, and a refused PATCH changes nothing', async () => {
    const d = await newDesk();
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { rails: ['Upi'] }), 'rails');
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { currencies: ['XYZ1'] }), 'currencies');
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { tariffId: 'trf_00000000000000000000000000' }), 'tariffId');
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { enabled: 'no' }), 'enabled');
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { method: 'BankApp' }), 'method');
    expect(json(await call('GET', `/desks/${d.id}`)).result).toMatchObject({ method: 'Classic', rails: ['Sbp', 'C2c'], currencies: ['RUB'], enabled: true, tariffId: null });
  });

  it('PATCH of one limit is checked against the stored other limit', async () => {
    const d = await newDesk({ minUsd: '10', maxUsd: '100' });
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { maxUsd: '5' }), 'minUsd');
    await expectInvalid(call('PATCH', `/desks/${d.id}`, { minUsd: '500' }), 'minUsd');
    expect(json(await call('GET', `/desks/${d.id}`)).result).toMatchObject({ minUsd: '10.00000000', maxUsd: '100.00000000' });
    expect((await call('PATCH', `/desks/${d.id}`, { maxUsd: '0' })).statusCode).toBe(200);
    expect((await call('PATCH', `/desks/${d.id}`, { minUsd: '500' })).statusCode).toBe(200);
  });

  it('stop needs a reason, shows it on the desk, and resume clears it', async () => {
    const d = await newDesk();
    await expectInvalid(call('POST', `/desks/${d.id}/stop`, {}), 'reason');
    await expectInvalid(call('POST', `/desks/${d.id}/stop`, { reason: '' }), 'reason');
    expect(json(await call('GET', `/desks/${d.id}`)).result.stopReason).toBeNull();
    const stopped = await call('POST', `/desks/${d.id}/stop`, { reason: 'fraud review' });
    expect(stopped.statusCode).toBe(200);
    expect(json(stopped).result).toMatchObject({ id: d.id, stopReason: 'fraud review', enabled: true });
    expect(json(await call('GET', `/desks/${d.id}`)).result.stopReason).toBe('fraud review');
    const resumed = await call('POST', `/desks/${d.id}/resume`);
    expect(resumed.statusCode).toBe(200);
    expect(json(resumed).result.stopReason).toBeNull();
    expect(json(await call('GET', `/desks/${d.id}`)).result.stopReason).toBeNull();
  });

  it('rotating the secret answers { secret } with a new secret and nothing else', async () => {
    const d = await newDesk();
    const res = await call('POST', `/desks/${d.id}/secret`);
    expect(res.statusCode).toBe(200);
    const r = json(res).result;
    expect(Object.keys(r)).toEqual(['secret']);
    expect(typeof r.secret).toBe('string');
    expect(r.secret.length).toBeGreaterThanOrEqual(32);
    expect(r.secret).not.toBe(d.secret);
    expect(json(await call('GET', `/desks/${d.id}`)).result.key).toBe(d.key);
  });

  it.each([
    ['GET', ''],
    ['PATCH', ''],
    ['POST', '/stop'],
    ['POST', '/resume'],
    ['POST', '/secret'],
  ] as const)('404 DESK_NOT_FOUND for %s /desks/{unknown}%s', async (method, suffix) => {
    const body = method === 'PATCH' ? { enabled: false } : suffix === '/stop' ? { reason: 'x' } : undefined;
    const res = await call(method, `/desks/dsk_00000000000000000000000000${suffix}`, body);
    expect(res.statusCode).toBe(404);
    expect(fault(res).code).toBe('DESK_NOT_FOUND');
  });
});

describe('currencies and rates', () => {
  it('PUT /currencies/{code} enables a currency with a spread at 4 places', async () => {
    const res = await call('PUT', '/currencies/TRY', { enabled: true, spreadPercent: '1.5' });
    expect(res.statusCode).toBe(200);
    expect(json(res).result).toMatchObject({ code: 'TRY', enabled: true, spreadPercent: '1.5000' });
    const off = await call('PUT', '/currencies/TRY', { enabled: false });
    expect(json(off).result).toMatchObject({ code: 'TRY', enabled: false, spreadPercent: '1.5000' });
  });

  it('PUT /currencies validates the code and the fields', async () => {
    await expectInvalid(call('PUT', '/currencies/try', { enabled: true }), 'code');
    await expectInvalid(call('PUT', '/currencies/ABC', { enabled: true }), 'code');
    await expectInvalid(call('PUT', '/currencies/TRY', { enabled: 'yes' }), 'enabled');
    await expectInvalid(call('PUT', '/currencies/TRY', { spreadPercent: 1.5 }), 'spreadPercent');
    await expectInvalid(call('PUT', '/currencies/TRY', { spreadPercent: '-1' }), 'spreadPercent');
    await expectInvalid(call('PUT', '/currencies/TRY', { spreadPercent: '1.23456' }), 'spreadPercent');
  });

  it('PUT /rates/{code} sets a manual rate at 8 places; DELETE goes back to the market', async () => {
    const put = await call('PUT', '/rates/KZT', { rate: '478.5' });
    expect(put.statusCode).toBe(200);
    expect(json(put).result).toMatchObject({ code: 'KZT', rate: '478.50000000', manualRate: '478.50000000' });
    const again = await call('PUT', '/rates/KZT', { rate: '480.12345678' });
    expect(json(again).result.manualRate).toBe('480.12345678');
    const del = await call('DELETE', '/rates/KZT');
    expect(del.statusCode).toBe(200);
    expect(json(del).result).toMatchObject({ code: 'KZT', manualRate: null });
    const twice = await call('DELETE', '/rates/KZT');
    expect(twice.statusCode).toBe(404);
    expect(fault(twice).code).toBe('RATE_NOT_FOUND');
  });

  it('DELETE of a rate that was never set is 404 RATE_NOT_FOUND', async () => {
    const res = await call('DELETE', '/rates/AZN');
    expect(res.statusCode).toBe(404);
    expect(fault(res).code).toBe('RATE_NOT_FOUND');
  });

  it('PUT /rates validates the code and the rate', async () => {
    await expectInvalid(call('PUT', '/rates/kzt', { rate: '1' }), 'code');
    await expectInvalid(call('PUT', '/rates/QQQ', { rate: '1' }), 'code');
    await expectInvalid(call('DELETE', '/rates/QQQ'), 'code');
    await expectInvalid(call('PUT', '/rates/KZT', {}), 'rate');
    await expectInvalid(call('PUT', '/rates/KZT', { rate: 478.5 }), 'rate');
    await expectInvalid(call('PUT', '/rates/KZT', { rate: '0' }), 'rate');
    await expectInvalid(call('PUT', '/rates/KZT', { rate: '1.123456789' }), 'rate');
  });
});
