import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

const post = (body: Record<string, unknown>) => admin(h.app, 'POST', '/turnover-limits', body);
const fault = async (body: Record<string, unknown>) => {
  const res = await post(body);
  expect(res.statusCode).toBe(400);
  return json(res).fault;
};

describe('operator turnover caps', () => {
  it('creates, lists and deletes a cap', async () => {
    const res = await post({ scope: 'desk', scopeId: desk.id, window: 'day', capUsd: '2500.5', notifyOnly: true });
    expect(res.statusCode).toBe(201);
    const cap = json(res).result;
    expect(cap).toEqual({ id: expect.stringMatching(/^lim_[0-9a-z]{26}$/), scope: 'desk', scopeId: desk.id, window: 'day', capUsd: '2500.50000000', notifyOnly: true });
    expect(json(await admin(h.app, 'GET', '/turnover-limits')).result).toContainEqual(cap);
    expect((await admin(h.app, 'DELETE', `/turnover-limits/${cap.id}`)).statusCode).toBe(200);
    const again = await admin(h.app, 'DELETE', `/turnover-limits/${cap.id}`);
    expect(again.statusCode).toBe(404);
    expect(json(again).fault.code).toBe('LIMIT_NOT_FOUND');
  });

  it('a platform cap has no scopeId; notifyOnly defaults to false', async () => {
    const res = await post({ scope: 'platform', scopeId: null, window: 'month', capUsd: '1000000' });
    expect(res.statusCode).toBe(201);
    expect(json(res).result).toMatchObject({ scope: 'platform', scopeId: null, notifyOnly: false });
  });

  it('refuses malformed caps, naming the field', async () => {
    expect((await fault({ scope: 'shop', scopeId: desk.id, window: 'day', capUsd: '1' })).detail).toMatch(/^scope:/);
    expect((await fault({ scope: 'platform', scopeId: desk.id, window: 'day', capUsd: '1' })).detail).toMatch(/^scopeId:/);
    expect((await fault({ scope: 'merchant', window: 'day', capUsd: '1' })).detail).toMatch(/^scopeId:/);
    expect((await fault({ scope: 'desk', scopeId: desk.id, window: 'week', capUsd: '1' })).detail).toMatch(/^window:/);
    expect((await fault({ scope: 'desk', scopeId: desk.id, window: 'day', capUsd: 100 })).detail).toMatch(/^capUsd:/);
    expect((await fault({ scope: 'desk', scopeId: desk.id, window: 'day', capUsd: '1', notifyOnly: 'yes' })).detail).toMatch(/^notifyOnly:/);
  });

  it('refuses a cap on a desk, merchant or provider that does not exist', async () => {
    for (const scope of ['desk', 'merchant', 'provider']) {
      const f = await fault({ scope, scopeId: `${scope}_missing`, window: 'hour', capUsd: '1' });
      expect(f).toEqual({ code: 'VALIDATION_ERROR', detail: `scopeId: no ${scope} ${scope}_missing` });
    }
    expect((await post({ scope: 'merchant', scopeId: desk.merchantId, window: 'hour', capUsd: '1' })).statusCode).toBe(201);
    expect((await post({ scope: 'provider', scopeId: 'prv_sandbox', window: 'hour', capUsd: '1' })).statusCode).toBe(201);
  });
});

describe('client IP behind a proxy', () => {
  it('with TRUST_PROXY the payment-page limit is per forwarded client, without it per connection', async () => {
    const proxied = await createHarness({ env: { TRUST_PROXY: 'true' } });
    // Without TRUST_PROXY: the file's own app, which sets no TRUST_PROXY (a third app would cost a
    // database of its own for nothing). Its limit is put back afterwards.
    const direct = h;
    const take = direct.ctx.limits.payPage.take;
    try {
      const ipOf = async (x: Harness, forwarded: string) => {
        let seen = '';
        x.ctx.limits.payPage.take = async (key: string) => {
          seen = key;
          return { ok: true };
        };
        await x.app.inject({ method: 'GET', url: '/api/pay/ord_x', headers: { 'x-forwarded-for': forwarded }, remoteAddress: '10.0.0.9' });
        return seen;
      };
      expect(await ipOf(proxied, '203.0.113.7')).toBe('203.0.113.7');
      expect(await ipOf(direct, '203.0.113.7')).toBe('10.0.0.9');
    } finally {
      direct.ctx.limits.payPage.take = take;
      await proxied.close();
    }
  });
});
