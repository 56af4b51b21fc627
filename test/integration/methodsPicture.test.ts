import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../tools/mock-provider.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/**
 * GET /gw/v1/methods: the live picture under provider pauses, open circuits and capability windows.
 * Providers are http providers on the reference mock, created through the operator API; each test
 * pauses its providers at the end, which takes them out of every later picture.
 */

interface Cap {
  rail: string;
  currency: string;
  min: string;
  max: string;
}

let h: Harness;
let desk: DeskCreds;
let underReview: DeskCreds;
let made: { id: string; mock: MockProvider }[] = [];
let n = 0;

async function provider(caps: Cap[], priority = 10): Promise<{ id: string; mock: MockProvider }> {
  const key = `key_methods_${++n}`;
  const secret = `secret_methods_${n}_0123456789abcdef`;
  const mock = await startMockProvider({ key, secret, clock: h.clock });
  const res = await admin(h.app, 'POST', '/providers', {
    name: `P${n}`,
    kind: 'http',
    priority,
    capabilities: caps.map((c) => ({ method: 'Classic', ...c })),
    baseUrl: mock.url,
    key,
    secret,
  });
  expect(res.statusCode, res.body).toBe(201);
  const p = { id: json(res).result.id as string, mock };
  made.push(p);
  return p;
}

const methods = async (d: DeskCreds = desk) => {
  const res = await signed(h, d, '/gw/v1/methods');
  expect(res.statusCode).toBe(200);
  return json(res).result;
};
const railsOf = async (d: DeskCreds = desk) => (await methods(d)).rails;
const NONE = 'no provider currently offers this method';

beforeAll(async () => {
  h = await createHarness();
  const currencies = { RUB: '91.8', KZT: '520' };
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, currencies, desk: { currencies: ['RUB', 'KZT'] } });
  underReview = await provisionDesk(h.app, { merchant: { name: 'New' }, currencies, desk: { currencies: ['RUB', 'KZT'] } });
});
afterAll(() => h.close());

beforeEach(() => {
  made = [];
});
afterEach(async () => {
  for (const p of made) await admin(h.app, 'POST', `/providers/${p.id}/pause`);
  await Promise.all(made.map((p) => p.mock.close()));
});

describe('GET /gw/v1/methods: who serves the account', () => {
  it('an approved account with no live provider: unavailable, no rails', async () => {
    expect(await methods()).toEqual({ method: 'Classic', available: false, reason: NONE, rails: [] });
  });

  it('an account under review sees the sandbox: every allowed rail and currency, unbounded', async () => {
    await provider([{ rail: 'Sbp', currency: 'RUB', min: '100', max: '1000' }]);
    expect(await methods(underReview)).toEqual({
      method: 'Classic',
      available: true,
      reason: null,
      rails: [
        { rail: 'Sbp', currencies: [{ code: 'RUB', min: 0, max: 0 }, { code: 'KZT', min: 0, max: 0 }] },
        { rail: 'C2c', currencies: [{ code: 'RUB', min: 0, max: 0 }, { code: 'KZT', min: 0, max: 0 }] },
      ],
    });
  });
});

describe('GET /gw/v1/methods: capability windows', () => {
  it('lists only rails and desk currencies a provider offers, each with that provider’s window', async () => {
    await provider([
      { rail: 'Sbp', currency: 'RUB', min: '100.50', max: '50000' },
      { rail: 'Sbp', currency: 'EUR', min: '10', max: '500' }, // not allowed on the desk
    ]);
    expect(await methods()).toEqual({
      method: 'Classic',
      available: true,
      reason: null,
      rails: [{ rail: 'Sbp', currencies: [{ code: 'RUB', min: 100.5, max: 50000 }] }],
    });
  });

  it('two providers with different windows: the widest (smallest min, largest max), per rail and currency', async () => {
    await provider([
      { rail: 'Sbp', currency: 'RUB', min: '100', max: '50000' },
      { rail: 'C2c', currency: 'RUB', min: '500', max: '20000' },
    ]);
    await provider([
      { rail: 'Sbp', currency: 'RUB', min: '300', max: '150000' },
      { rail: 'Sbp', currency: 'KZT', min: '1000', max: '900000' },
    ]);
    expect(await railsOf()).toEqual([
      { rail: 'Sbp', currencies: [{ code: 'RUB', min: 100, max: 150000 }, { code: 'KZT', min: 1000, max: 900000 }] },
      { rail: 'C2c', currencies: [{ code: 'RUB', min: 500, max: 20000 }] },
    ]);
  });

  it('0 means unbounded: one provider without a bound makes that side of the window unbounded', async () => {
    await provider([{ rail: 'Sbp', currency: 'RUB', min: '100', max: '50000' }]);
    await provider([{ rail: 'Sbp', currency: 'RUB', min: '0', max: '1000' }]);
    expect((await railsOf())[0]).toEqual({ rail: 'Sbp', currencies: [{ code: 'RUB', min: 0, max: 50000 }] });
    await provider([{ rail: 'Sbp', currency: 'RUB', min: '5000', max: '0' }]);
    expect((await railsOf())[0]).toEqual({ rail: 'Sbp', currencies: [{ code: 'RUB', min: 0, max: 0 }] });
  });
});

describe('GET /gw/v1/methods: pauses', () => {
  it('a manually paused provider drops out of the picture until resumed', async () => {
    const p1 = await provider([{ rail: 'Sbp', currency: 'RUB', min: '100', max: '50000' }]);
    const p2 = await provider([
      { rail: 'Sbp', currency: 'RUB', min: '300', max: '150000' },
      { rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
    ]);
    expect((await railsOf()).map((r: { rail: string }) => r.rail)).toEqual(['Sbp', 'C2c']);

    const paused = json(await admin(h.app, 'POST', `/providers/${p2.id}/pause`)).result;
    expect(paused).toMatchObject({ id: p2.id, paused: true, pauseReasons: ['manual'] });
    expect(await railsOf()).toEqual([{ rail: 'Sbp', currencies: [{ code: 'RUB', min: 100, max: 50000 }] }]);

    await admin(h.app, 'POST', `/providers/${p1.id}/pause`);
    expect(await methods()).toEqual({ method: 'Classic', available: false, reason: NONE, rails: [] });

    expect(json(await admin(h.app, 'POST', `/providers/${p2.id}/resume`)).result).toMatchObject({ paused: false, pauseReasons: [] });
    expect(await railsOf()).toEqual([
      { rail: 'Sbp', currencies: [{ code: 'RUB', min: 300, max: 150000 }] },
      { rail: 'C2c', currencies: [{ code: 'RUB', min: 0, max: 0 }] },
    ]);
  });
});

describe('GET /gw/v1/methods: open circuits', () => {
  it('a provider whose circuit is open for a rail drops out of that rail only, and returns once the cool-down has passed', async () => {
    const failing = await provider(
      [
        { rail: 'Sbp', currency: 'RUB', min: '100', max: '50000' },
        { rail: 'C2c', currency: 'RUB', min: '500', max: '20000' },
      ],
      1,
    );
    await provider([{ rail: 'Sbp', currency: 'RUB', min: '300', max: '150000' }], 2);
    failing.mock.behave({ kind: 'fail', status: 500 });
    expect((await railsOf())[0]).toEqual({ rail: 'Sbp', currencies: [{ code: 'RUB', min: 100, max: 150000 }] });

    // Ten failed attempts on Sbp (each order then served by the second provider) open the circuit.
    for (let i = 0; i < 10; i++) {
      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, currency: 'RUB', rail: 'Sbp' }) });
      expect(res.statusCode).toBe(201);
    }
    const listed = json(await admin(h.app, 'GET', '/providers')).result.find((p: { id: string }) => p.id === failing.id);
    expect(listed.circuits).toEqual([{ method: 'Classic', rail: 'Sbp', state: 'open' }]);
    expect(await railsOf()).toEqual([
      { rail: 'Sbp', currencies: [{ code: 'RUB', min: 300, max: 150000 }] },
      { rail: 'C2c', currencies: [{ code: 'RUB', min: 500, max: 20000 }] },
    ]);

    h.clock.advance(60_000);
    // Half-open: it takes a share of the traffic again, so it is part of the picture again.
    expect((await railsOf())[0]).toEqual({ rail: 'Sbp', currencies: [{ code: 'RUB', min: 100, max: 150000 }] });
  });

  it('when every provider of a rail has an open circuit, the rail disappears; the method stays available through the others', async () => {
    const only = await provider(
      [
        { rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
        { rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
      ],
      1,
    );
    only.mock.behave({ kind: 'fail', status: 503 });
    for (let i = 0; i < 10; i++) {
      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, currency: 'RUB', rail: 'Sbp' }) });
      expect(res.statusCode).toBe(503);
    }
    expect(await methods()).toEqual({
      method: 'Classic',
      available: true,
      reason: null,
      rails: [{ rail: 'C2c', currencies: [{ code: 'RUB', min: 0, max: 0 }] }],
    });
  });
});
