/**
 * Authentication on every route the app registers: a signed route or an operator route added later
 * is covered without anyone writing a test for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, freshNonce, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

const concrete = (url: string) => url.replace(/:(\w+)/g, (_, name: string) => (name === 'code' ? 'RUB' : `${name}_x`));
const bodyFor = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : '{}');

function routes(prefix: string) {
  const list = h.app.paygateRoutes.filter((r) => r.url.startsWith(prefix)).map((r) => ({ method: r.method as 'GET' | 'POST', url: concrete(r.url) }));
  expect(list.length).toBeGreaterThan(0);
  return list;
}

describe('every /gw/v1 route is signed', () => {
  it('refuses a request without the signing headers, with a wrong signature, and a replayed nonce', async () => {
    const list = routes('/gw/v1/');
    expect(list.length).toBeGreaterThanOrEqual(9);
    for (const r of list) {
      const where = `${r.method} ${r.url}`;
      const bare = await h.app.inject({ method: r.method, url: r.url, payload: bodyFor(r.method), headers: { 'content-type': 'application/json' } });
      expect(bare.statusCode, where).toBe(401);
      expect(json(bare).fault.code, where).toBe('AUTH_HEADERS_MISSING');
      expect(json(bare).traceId, where).toMatch(/^[0-9a-f]{24}$/);

      const forged = await signed(h, desk, r.url, { method: r.method, body: bodyFor(r.method), secret: 'sk_not_the_secret' });
      expect(forged.statusCode, where).toBe(401);
      expect(json(forged).fault.code, where).toBe('AUTH_FAILED');

      const nonce = freshNonce();
      await signed(h, desk, r.url, { method: r.method, body: bodyFor(r.method), nonce });
      const replay = await signed(h, desk, r.url, { method: r.method, body: bodyFor(r.method), nonce });
      expect(replay.statusCode, where).toBe(409);
      expect(json(replay).fault.code, where).toBe('REPLAY_DETECTED');
    }
  });
});

describe('every /admin/v1 route needs the operator token', () => {
  it('refuses a request without a token and with a wrong one', async () => {
    const list = routes('/admin/v1/');
    expect(list.length).toBeGreaterThanOrEqual(35);
    for (const r of list) {
      const where = `${r.method} ${r.url}`;
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}x`, ADMIN_TOKEN]) {
        const res = await h.app.inject({
          method: r.method as 'GET',
          url: r.url,
          payload: bodyFor(r.method),
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        });
        expect(res.statusCode, where).toBe(401);
        expect(json(res).fault.code, where).toBe('ADMIN_AUTH_FAILED');
      }
    }
  });
});
