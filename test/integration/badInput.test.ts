import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

let h: Harness;
let d: DeskCreds;
beforeAll(async () => {
  h = await createHarness();
  d = await provisionDesk(h.app);
});
afterAll(() => h.close());

const order = (body: Record<string, unknown>) => signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });

describe('bad input gets a clear error, never a 500', () => {
  it.each([
    ['NUL in an orderRef', () => order({ amount: 10, rail: 'Sbp', orderRef: 'a\u0000b' }), 400, 'VALIDATION_ERROR', /NUL/],
    ['NUL in a cancel reason', () => signed(h, d, '/gw/v1/orders/ord_x/cancel', { body: JSON.stringify({ reason: 'a\u0000' }) }), 400, 'VALIDATION_ERROR', /NUL/],
    ['NUL in a merchant name', () => admin(h.app, 'POST', '/merchants', { name: 'a\u0000' }), 400, 'VALIDATION_ERROR', /NUL/],
    ['NUL in a path parameter', () => signed(h, d, '/gw/v1/orders/ab%00cd'), 400, 'VALIDATION_ERROR', /characters/],
    ['NUL in an operator path parameter', () => admin(h.app, 'GET', '/merchants/a%00'), 400, 'VALIDATION_ERROR', /characters/],
    ['a path parameter over 2 KiB', () => signed(h, d, '/gw/v1/orders/' + 'x'.repeat(5000)), 400, 'VALIDATION_ERROR', /too long/],
    ['broken percent-encoding', () => signed(h, d, '/gw/v1/orders/%E0%A4%A'), 400, 'VALIDATION_ERROR', /malformed/],
    ['an amount beyond any currency', () => order({ amount: 1e300, rail: 'Sbp' }), 400, 'VALIDATION_ERROR', /amount/],
    ['a spread beyond 100 %', () => admin(h.app, 'PUT', '/currencies/RUB', { spreadPercent: '9999999999999999' }), 400, 'VALIDATION_ERROR', /spreadPercent/],
    ['a JSON array body', () => signed(h, d, '/gw/v1/orders', { body: '[1]' }), 400, 'VALIDATION_ERROR', /object/],
    ['an unparseable notifyUrl', () => order({ amount: 10, rail: 'Sbp', notifyUrl: 'http://[::1' }), 400, 'INVALID_CALLBACK_URL', /notifyUrl/],
  ])('%s', async (_name, call, status, code, detail) => {
    const res = await call();
    expect(res.statusCode).toBe(status);
    const body = json(res);
    expect(body).toMatchObject({ status: 'error', fault: { code } });
    expect(body.fault.detail).toMatch(detail);
    expect(body.traceId).toBe(res.headers['x-trace-id']);
  });

  it('an orderRef of 255 characters can be read back by reference', async () => {
    const ref = 'r'.repeat(255);
    const created = await order({ amount: 10, rail: 'Sbp', orderRef: ref });
    expect(created.statusCode).toBe(201);
    const got = await signed(h, d, `/gw/v1/orders/${ref}`);
    expect(got.statusCode).toBe(200);
    expect(json(got).result.orderRef).toBe(ref);
  });
});
