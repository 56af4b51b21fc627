import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCascade, type CascadeOptions } from '../../src/providers/cascade.js';
import { readCircuit } from '../../src/store/circuits.js';
import type { BreakerState } from '../../src/domain/breaker.js';
import { startMockProvider, type MockProvider } from '../../tools/mock-provider.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/**
 * Step 12 against real sockets: external providers are the reference mock (tools/mock-provider.ts),
 * created through the operator API as an operator would; orders go through POST /gw/v1/orders.
 * Time that the spec measures (160 s budget, breaker windows and cool-downs) is the harness's
 * manual clock; only the per-provider timeout is real time.
 */

const CAPABILITIES = [
  { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
  { method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
];

interface Prov {
  id: string;
  mock: MockProvider;
  /** Manual-clock milliseconds this provider "takes": added to the clock when a request reaches it. */
  takesMs: number;
}

let h: Harness;
let desk: DeskCreds;
let A: Prov;
let B: Prov;
let C: Prov;
let n = 0;

async function httpProvider(name: string, priority: number): Promise<Prov> {
  const key = `key_${name}_${++n}`;
  const secret = `secret_${name}_${n}_0123456789abcdef`;
  const prov = { id: '', takesMs: 0 } as Prov;
  prov.mock = await startMockProvider({
    key,
    secret,
    clock: h.clock,
    onRequest: () => {
      if (prov.takesMs) h.clock.advance(prov.takesMs);
    },
  });
  const res = await admin(h.app, 'POST', '/providers', { name, kind: 'http', priority, capabilities: CAPABILITIES, baseUrl: prov.mock.url, key, secret });
  expect(res.statusCode).toBe(201);
  prov.id = json(res).result.id;
  return prov;
}

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

// Every test gets its own merchant (and so its own order rate limit) and three fresh providers;
// the previous test's providers are paused, which takes them out of every cascade.
beforeEach(async () => {
  desk = await provisionDesk(h.app, { merchant: { name: 'Live shop', approve: true } });
  A = await httpProvider('A', 1);
  B = await httpProvider('B', 2);
  C = await httpProvider('C', 3);
});

afterEach(async () => {
  for (const p of [A, B, C]) await admin(h.app, 'POST', `/providers/${p.id}/pause`);
  await Promise.all([A.mock.close(), B.mock.close(), C.mock.close()]);
});

const order = (body: Record<string, unknown> = {}) =>
  signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, currency: 'RUB', rail: 'Sbp', ...body }) });

async function servedBy(res: Awaited<ReturnType<typeof order>>): Promise<string> {
  expect(res.statusCode, res.body).toBe(201);
  const o = json(await admin(h.app, 'GET', `/orders/${json(res).result.id}`)).result;
  return o.providerId;
}

async function circuitsOf(p: Prov): Promise<{ method: string; rail: string | null; state: string }[]> {
  const list = json(await admin(h.app, 'GET', '/providers')).result as { id: string; circuits: { method: string; rail: string | null; state: string }[] }[];
  return list.find((x) => x.id === p.id)!.circuits;
}

async function sbpState(p: Prov): Promise<string | undefined> {
  return (await circuitsOf(p)).find((c) => c.method === 'Classic' && c.rail === 'Sbp')?.state;
}

const storedCircuit = async (p: Prov) => (await readCircuit(h.ctx.db, p.id, 'Classic', 'Sbp')) as BreakerState | null;

/** The cascade alone, for the options orders never set (a deterministic half-open draw, a short per-provider timeout). */
const cascade = (opts: Partial<CascadeOptions> = {}) =>
  runCascade(
    h.ctx,
    { orderId: `ord_cascade${++n}`, method: 'Classic', rail: 'Sbp', amount: '1500.00', currency: 'RUB', operator: null, expiresAt: '2026-01-15T12:15:00Z' },
    { approved: true, ...opts },
  );

describe('provider cascade: order of providers and the served provider', () => {
  it('asks providers in priority order, a decline moves on, and the order records who served it', async () => {
    A.mock.behave({ kind: 'decline', reason: 'no capacity for this amount' });
    B.mock.behave({ kind: 'issue', payment: { phone: '+79005550101', holder: 'B HOLDER', bank: 'B Bank' } });
    const res = await order({ orderRef: 'served-1' });
    expect(await servedBy(res)).toBe(B.id);
    expect(json(res).result.payment).toEqual({ url: null, card: null, phone: '+79005550101', account: null, iban: null, upiId: null, holder: 'B HOLDER', bank: 'B Bank' });
    expect(C.mock.received).toHaveLength(0);

    // What A was asked: the documented fields, signed with A's own key and secret.
    expect(A.mock.received).toHaveLength(1);
    const asked = A.mock.received[0];
    expect(asked.signatureOk).toBe(true);
    expect(asked.path).toBe('/payments');
    expect(asked.body).toEqual({
      orderId: json(res).result.id,
      method: 'Classic',
      rail: 'Sbp',
      amount: '1500.00',
      currency: 'RUB',
      operator: null,
      expiresAt: '2026-01-15T12:15:00Z',
    });
  });

  it('a paused provider is not asked; after resume it is first again', async () => {
    await admin(h.app, 'POST', `/providers/${A.id}/pause`);
    expect(await servedBy(await order())).toBe(B.id);
    expect(A.mock.received).toHaveLength(0);
    await admin(h.app, 'POST', `/providers/${A.id}/resume`);
    expect(await servedBy(await order())).toBe(A.id);
  });

  it('no provider issues: 503 NO_AVAILABLE_METHOD after every provider was asked once', async () => {
    for (const p of [A, B, C]) p.mock.behave({ kind: 'decline' });
    const res = await order();
    expect(res.statusCode).toBe(503);
    expect(json(res).fault.code).toBe('NO_AVAILABLE_METHOD');
    expect([A, B, C].map((p) => p.mock.received.length)).toEqual([1, 1, 1]);
  });
});

describe('provider cascade: timing', () => {
  it('a provider that hangs past its per-provider timeout is left and the next one serves', async () => {
    A.mock.behave({ kind: 'hang' });
    const started = Date.now();
    const result = await cascade({ providerTimeoutMs: 300 });
    const took = Date.now() - started;
    expect(result).toMatchObject({ ok: true, providerId: B.id });
    expect(A.mock.received).toHaveLength(1);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5_000);
    // A timeout is the provider's failure: scored.
    expect((await storedCircuit(A))?.outcomes.map((o) => o.ok)).toEqual([false]);
    expect((await storedCircuit(B))?.outcomes.map((o) => o.ok)).toEqual([true]);
  });

  it('the 160 s budget: once spent, the remaining providers are never asked', async () => {
    // Each of the first two providers "takes" 80 s of the clock, so the budget is gone after them.
    A.takesMs = 80_000;
    B.takesMs = 80_000;
    A.mock.behave({ kind: 'fail', status: 500 });
    B.mock.behave({ kind: 'decline' });
    const res = await order();
    expect(res.statusCode).toBe(503);
    expect(json(res).fault.code).toBe('NO_AVAILABLE_METHOD');
    expect(A.mock.received).toHaveLength(1);
    expect(B.mock.received).toHaveLength(1);
    expect(C.mock.received).toHaveLength(0);
  });

  it('with budget left but under 10 s, the next provider is asked for what is left only, and that cut is not scored', async () => {
    A.takesMs = 80_000;
    B.takesMs = 79_700; // 300 ms of the 160 s remain when C is asked
    A.mock.behave({ kind: 'fail', status: 500 });
    B.mock.behave({ kind: 'decline' });
    C.mock.behave({ kind: 'hang' });
    const started = Date.now();
    const res = await order();
    const took = Date.now() - started;
    expect(res.statusCode).toBe(503);
    expect(C.mock.received).toHaveLength(1);
    expect(took).toBeLessThan(5_000); // not C's full 10 s
    expect((await storedCircuit(A))?.outcomes.map((o) => o.ok)).toEqual([false]);
    expect(await storedCircuit(B)).toBeNull(); // a decline is never scored
    expect(await storedCircuit(C)).toBeNull(); // our budget ran out, not C's time
  });

  it('a provider within its time serves even when it uses most of the budget', async () => {
    A.takesMs = 150_000;
    const res = await order();
    expect(await servedBy(res)).toBe(A.id);
  });
});

describe('circuit breaker (D21: ≥ 10 samples, < 50 % success, 60 s off, 10 % half-open, 5 to close)', () => {
  it('failures trip the circuit after 10 samples; it shows open and the provider is skipped', async () => {
    A.mock.behave({ kind: 'fail', status: 500 });
    for (let i = 0; i < 9; i++) expect(await servedBy(await order())).toBe(B.id);
    expect(await sbpState(A)).toBe('closed'); // 9 samples are too few, whatever their rate
    expect(await servedBy(await order())).toBe(B.id);
    expect(await sbpState(A)).toBe('open');
    expect(A.mock.received).toHaveLength(10);

    // Skipped while open; the circuit is per method and rail, so C2c still reaches A.
    expect(await servedBy(await order())).toBe(B.id);
    expect(A.mock.received).toHaveLength(10);
    A.mock.behave({ kind: 'issue' });
    expect(await servedBy(await order({ rail: 'C2c' }))).toBe(A.id);
    expect(await circuitsOf(A)).toEqual(
      expect.arrayContaining([
        { method: 'Classic', rail: 'Sbp', state: 'open' },
        { method: 'Classic', rail: 'C2c', state: 'closed' },
      ]),
    );
  });

  it('exactly 50 % success does not trip; one more failure below 50 % does', async () => {
    A.mock.behave({ kind: 'fail', status: 502 });
    A.mock.queue({ kind: 'issue' }, { kind: 'issue' }, { kind: 'issue' }, { kind: 'issue' }, { kind: 'issue' });
    const served: string[] = [];
    for (let i = 0; i < 10; i++) served.push(await servedBy(await order()));
    expect(served).toEqual([...Array(5).fill(A.id), ...Array(5).fill(B.id)]);
    expect(await sbpState(A)).toBe('closed'); // 5 of 10
    await order();
    expect(await sbpState(A)).toBe('open'); // 5 of 11
  });

  it('after the 60 s cool-down the circuit is half-open, lets 10 % through, and 5 successes close it', async () => {
    A.mock.behave({ kind: 'fail', status: 500 });
    for (let i = 0; i < 10; i++) await order();
    expect(await sbpState(A)).toBe('open');
    A.mock.behave({ kind: 'issue' });

    h.clock.advance(59_000);
    expect(await sbpState(A)).toBe('open');
    // Still skipped while cooling down, even with a draw that half-open would let through.
    expect(await cascade({ random: () => 0 })).toMatchObject({ ok: true, providerId: B.id });
    expect(A.mock.received).toHaveLength(10);
    h.clock.advance(1_000);
    expect(await sbpState(A)).toBe('half-open');

    // One draw per cascade (only A's circuit is half-open); one draw in ten falls under 10 %.
    let draw = 0;
    const oneInTen = () => (draw++ % 10 === 0 ? 0.05 : 0.95);
    const served: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await cascade({ random: oneInTen });
      served.push(r.ok ? r.providerId : 'none');
    }
    expect(draw).toBe(20);
    expect(served.filter((id) => id === A.id)).toHaveLength(2);
    expect(served.filter((id) => id === B.id)).toHaveLength(18);
    expect(await sbpState(A)).toBe('half-open');

    // Three more admitted successes make five: the circuit closes.
    for (let i = 0; i < 2; i++) expect(await cascade({ random: () => 0 })).toMatchObject({ ok: true, providerId: A.id });
    expect(await sbpState(A)).toBe('half-open');
    expect((await storedCircuit(A))?.halfOpenSuccesses).toBe(4);
    expect(await cascade({ random: () => 0 })).toMatchObject({ ok: true, providerId: A.id });
    expect(await sbpState(A)).toBe('closed');

    // Closed again: every order reaches A, whatever the draw.
    expect(await servedBy(await order())).toBe(A.id);
  });

  it('a failure while half-open opens the circuit again with a fresh cool-down', async () => {
    A.mock.behave({ kind: 'fail', status: 500 });
    for (let i = 0; i < 10; i++) await order();
    h.clock.advance(60_000);
    expect(await sbpState(A)).toBe('half-open');
    expect(await cascade({ random: () => 0 })).toMatchObject({ ok: true, providerId: B.id });
    expect(A.mock.received).toHaveLength(11);
    expect(await sbpState(A)).toBe('open');
    h.clock.advance(59_000);
    expect(await sbpState(A)).toBe('open');
    h.clock.advance(1_000);
    expect(await sbpState(A)).toBe('half-open');
  });

  it('own-side failures (401 or 403 from the provider) are not scored', async () => {
    A.mock.behave({ kind: 'auth-error' });
    for (let i = 0; i < 10; i++) expect(await servedBy(await order())).toBe(B.id);
    A.mock.behave({ kind: 'fail', status: 403 });
    for (let i = 0; i < 10; i++) expect(await servedBy(await order())).toBe(B.id);
    expect(A.mock.received).toHaveLength(20);
    expect(A.mock.received.every((r) => r.signatureOk)).toBe(true);
    expect(await circuitsOf(A)).toEqual([]);
    // Still asked first: with the credential fixed it serves at once.
    A.mock.behave({ kind: 'issue' });
    expect(await servedBy(await order())).toBe(A.id);
  });

  it('declines move on without a penalty', async () => {
    A.mock.behave({ kind: 'decline', reason: 'daily limit' });
    for (let i = 0; i < 12; i++) expect(await servedBy(await order())).toBe(B.id);
    expect(A.mock.received).toHaveLength(12);
    expect(await circuitsOf(A)).toEqual([]);
  });

  it('answers that break the protocol are scored like errors', async () => {
    A.mock.behave({ kind: 'fail', status: 200, body: '{"status":"maybe"}' });
    for (let i = 0; i < 5; i++) await order();
    A.mock.behave({ kind: 'issue', payment: { holder: 'nobody' } }); // nothing payable
    for (let i = 0; i < 5; i++) expect(await servedBy(await order())).toBe(B.id);
    expect(await sbpState(A)).toBe('open');
  });
});
