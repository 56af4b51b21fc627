import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, CLASSIC_DESK, createHarness, json, signed, type Harness } from '../helpers/harness.js';

// Approving a merchant whose desks no live provider can serve still approves, and says which
// desks; their live orders answer NO_AVAILABLE_METHOD with a detail that says why.

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  for (const [code, rate] of [['RUB', '91.8'], ['INR', '84.2']]) {
    await admin(h.app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', `/rates/${code}`, { rate });
  }
  const pool = await admin(h.app, 'POST', '/providers', {
    name: 'RUB pool',
    kind: 'pool',
    priority: 10,
    capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
    requisites: [{ phone: '+79990000001', holder: 'Ivan P.', bank: 'Bank' }],
  });
  expect(pool.statusCode, pool.body).toBe(201);
});
afterAll(() => h.close());

async function merchantWithDesks() {
  const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Shop', sandbox: true })).result;
  const desk = async (body: Record<string, unknown>) => json(await admin(h.app, 'POST', `/merchants/${m.id}/desks`, { ...CLASSIC_DESK, ...body })).result;
  const classic = await desk({ name: 'Roubles', rails: ['Sbp'] });
  const upi = await desk({ name: 'Rupees', method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] });
  return { m, classic, upi };
}

describe('approval with desks nothing live serves', () => {
  it('approves, and the answer warns about each desk no live provider serves, by name and id', async () => {
    const { m, upi } = await merchantWithDesks();
    const res = await admin(h.app, 'POST', `/merchants/${m.id}/approve`);
    expect(res.statusCode, res.body).toBe(200);
    const result = json(res).result;
    expect(result.status).toBe('Active');
    expect(result.warnings).toEqual([`Rupees (${upi.id}): no live provider serves CrossBorder Upi in INR, so its live orders answer NO_AVAILABLE_METHOD`]);
  });

  it('a merchant whose desks are all served gets no warnings', async () => {
    const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Covered', sandbox: true })).result;
    await admin(h.app, 'POST', `/merchants/${m.id}/desks`, { ...CLASSIC_DESK, rails: ['Sbp'] });
    expect(json(await admin(h.app, 'POST', `/merchants/${m.id}/approve`)).result.warnings).toEqual([]);
  });

  it('a live order on the unserved desk answers 503 NO_AVAILABLE_METHOD saying no live provider serves it; the served desk places its order', async () => {
    const { m, classic, upi } = await merchantWithDesks();
    await admin(h.app, 'POST', `/merchants/${m.id}/approve`);
    const unserved = await signed(h, upi, '/gw/v1/orders', { body: JSON.stringify({ amount: 5000, currency: 'INR', notifyUrl: 'https://shop.example/cb' }) });
    expect(unserved.statusCode, unserved.body).toBe(503);
    expect(json(unserved).fault).toEqual({ code: 'NO_AVAILABLE_METHOD', detail: 'no live provider serves CrossBorder Upi in INR; the platform has to connect one before this desk can take live orders' });
    const served = await signed(h, classic, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, currency: 'RUB', notifyUrl: 'https://shop.example/cb' }) });
    expect(served.statusCode, served.body).toBe(201);
  });
});
