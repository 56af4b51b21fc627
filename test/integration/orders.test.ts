import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let desk: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
});
afterAll(() => h.close());

const create = (body: Record<string, unknown>, d: DeskCreds = desk) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
const get = (id: string, d: DeskCreds = desk) => signed(h, d, `/gw/v1/orders/${id}`);

describe('POST /gw/v1/orders', () => {
  it('creates a sandbox order with exactly the create fields', async () => {
    const res = await create({ amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'inv-1' });
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(res.headers['x-trace-id']);
    const o = body.result;
    expect(Object.keys(o).sort()).toEqual(['amount', 'createdAt', 'currency', 'direction', 'expiresAt', 'id', 'method', 'orderRef', 'payment', 'rail', 'settled', 'status'].sort());
    expect(o.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(o.orderRef).toBeNull();
    expect(o).toMatchObject({ amount: '1500.50', currency: 'RUB', method: 'Classic', rail: 'Sbp', direction: 'In', status: 'Created' });
    expect(o.settled).toEqual({ amount: '16.34531590', currency: 'USD', rate: '91.80000000' });
    expect(Object.keys(o.payment).sort()).toEqual(['account', 'bank', 'card', 'holder', 'iban', 'phone', 'upiId', 'url']);
    expect(o.payment.phone).toMatch(/^\+79\d{9}$/);
    expect(o.createdAt).toBe('2026-01-15T12:00:00Z');
    expect(o.expiresAt).toBe('2026-01-15T12:15:00Z');
  });
});
