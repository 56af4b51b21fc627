import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let a: DeskCreds;
let b: DeskCreds;
const orderIds: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  a = await provisionDesk(h.app, { merchant: { name: 'Alpha' } });
  h.clock.advance(1000);
  b = await provisionDesk(h.app, { merchant: { name: 'Beta' } });
  for (let i = 0; i < 5; i++) {
    h.clock.advance(1000);
    const res = await signed(h, i < 3 ? a : b, '/gw/v1/orders', { body: JSON.stringify({ amount: 100 + i, rail: 'Sbp', orderRef: `ref-${i}` }) });
    expect(res.statusCode, res.body).toBe(201);
    orderIds.push(json(res).result.id);
  }
});
afterAll(() => h.close());

async function all(path: string, cursor: 'before' | 'after', limit: number) {
  const seen: any[] = [];
  let next: string | null = null;
  for (let page = 0; page < 20; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await admin(h.app, 'GET', `${path}${sep}limit=${limit}${next ? `&${cursor}=${next}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const r = json(res).result;
    expect(Object.keys(r)).toEqual(['items', 'hasMore', 'next']);
    seen.push(...r.items);
    if (!r.hasMore) {
      expect(r.next).toBeNull();
      return seen;
    }
    next = r.next;
  }
  throw new Error('too many pages');
}

describe('operator lists', () => {
  it('orders: newest first, paged by before, filtered by merchant, desk, status and q', async () => {
    const items = await all('/orders', 'before', 2);
    expect(items.map((o) => o.id)).toEqual([...orderIds].reverse());
    const single = json(await admin(h.app, 'GET', `/orders/${orderIds[0]}`)).result;
    expect(items.at(-1)).toEqual(single);
    expect((await all(`/orders?merchantId=${a.merchantId}`, 'before', 10)).map((o) => o.id)).toEqual(orderIds.slice(0, 3).reverse());
    expect((await all(`/orders?deskId=${b.id}`, 'before', 10)).map((o) => o.id)).toEqual(orderIds.slice(3).reverse());
    expect((await all('/orders?q=ref-1', 'before', 10)).map((o) => o.id)).toEqual([orderIds[1]]);
    expect(await all('/orders?status=Completed', 'before', 10)).toEqual([]);
  });

  it('merchants and desks: newest first, items shaped like the single read', async () => {
    const merchants = await all('/merchants', 'before', 1);
    expect(merchants.map((m) => m.name)).toEqual(['Beta', 'Alpha']);
    expect(merchants[0]).toEqual(json(await admin(h.app, 'GET', `/merchants/${b.merchantId}`)).result);
    const desks = await all(`/desks?merchantId=${a.merchantId}`, 'before', 5);
    expect(desks).toEqual([json(await admin(h.app, 'GET', `/desks/${a.id}`)).result]);
    expect(desks[0].secret).toBeUndefined();
  });

  it('appeals: the open queue by slaDueAt oldest first, paged by after', async () => {
    for (const id of orderIds.slice(0, 3)) {
      expect((await signed(h, a, `/gw/v1/orders/${id}/cancel`, { body: '{}' })).statusCode).toBe(200);
    }
    for (const id of [orderIds[2], orderIds[0], orderIds[1]]) {
      h.clock.advance(60_000);
      expect((await signed(h, a, '/gw/v1/appeals', { body: JSON.stringify({ orderId: id }) })).statusCode).toBe(201);
    }
    const queue = await all('/appeals?status=Open', 'after', 2);
    expect(queue.map((x) => x.orderId)).toEqual([orderIds[2], orderIds[0], orderIds[1]]);
    expect(queue[0]).toEqual(json(await admin(h.app, 'GET', `/appeals/${queue[0].id}`)).result);
  });

  it('refuses a limit outside 1–500 naming the field', async () => {
    for (const limit of ['0', '501', 'x']) {
      const res = await admin(h.app, 'GET', `/orders?limit=${limit}`);
      expect(res.statusCode).toBe(400);
      expect(json(res).fault.detail).toMatch(/^limit:/);
    }
  });
});

describe('a merchant\'s orders among other merchants\' newer orders', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await createHarness();
  });
  afterAll(() => g.close());
  const pages = async (path: string, limit: number) => {
    const seen: any[] = [];
    let next: string | null = null;
    for (let page = 0; page < 20; page++) {
      const res = await admin(g.app, 'GET', `${path}&limit=${limit}${next ? `&before=${next}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const r = json(res).result;
      seen.push(...r.items);
      if (!r.hasMore) return seen;
      next = r.next;
    }
    throw new Error('too many pages');
  };

  it('a merchant\'s orders over several desks, among newer orders of others, page by page; a merchant without orders lists none', async () => {
    const c1 = await provisionDesk(g.app, { merchant: { name: 'Gamma' } });
    const c2 = json(await admin(g.app, 'POST', `/merchants/${c1.merchantId}/desks`, { method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: 'https://merchant.example/cb', tariffId: null })).result;
    const empty = await provisionDesk(g.app, { merchant: { name: 'Delta' } });
    const other = await provisionDesk(g.app, { merchant: { name: 'Epsilon' } });
    const other2 = await provisionDesk(g.app, { merchant: { name: 'Zeta' } });
    const gamma: string[] = [];
    // Gamma's newest order is on its second desk, and other merchants' orders are newer still.
    for (const [i, d] of [c1, other, c2, other2, c1, c2, other, other2, other].entries()) {
      g.clock.advance(1000);
      const desk = d === c2 ? { key: c2.key, secret: c2.secret } : d;
      const res = await signed(g, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 200 + i, rail: 'Sbp' }) });
      expect(res.statusCode, res.body).toBe(201);
      if (d === c1 || d === c2) gamma.push(json(res).result.id);
    }
    for (const limit of [1, 2, 10]) expect((await pages(`/orders?merchantId=${c1.merchantId}`, limit)).map((o) => o.id)).toEqual([...gamma].reverse());
    // Over a period too, whose end lies after the merchant's newest order.
    const period = `from=${new Date(g.clock.now() - 86_400_000).toISOString()}&to=${new Date(g.clock.now() + 86_400_000).toISOString()}`;
    for (const limit of [1, 3]) expect((await pages(`/orders?merchantId=${c1.merchantId}&${period}`, limit)).map((o) => o.id)).toEqual([...gamma].reverse());
    expect(await pages(`/orders?merchantId=${empty.merchantId}&${period}`, 10)).toEqual([]);
    expect(await pages(`/orders?merchantId=${empty.merchantId}`, 10)).toEqual([]);
  });

});
