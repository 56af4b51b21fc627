import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * GET /api/pay/{id}: the unsigned data the customer's payment page needs. It must show the order
 * and the payment details, name the merchant by its display name only, and leak nothing else
 * about the merchant, the desk or the provider.
 */

let h: Harness;
let desk: DeskCreds;

const PAGE_KEYS = ['id', 'status', 'subStatus', 'amount', 'currency', 'method', 'rail', 'payment', 'payerReference', 'expiresAt', 'successUrl', 'failUrl', 'backUrl', 'merchant', 'sandbox'];

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app, { merchant: { name: 'Coffee Corner' } });
});
afterAll(() => h.close());

async function create(body: Record<string, unknown>, d: DeskCreds = desk) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
const page = (id: string, ip = '192.0.2.10') => h.app.inject({ method: 'GET', url: `/api/pay/${id}`, remoteAddress: ip });

describe('GET /api/pay/{id}', () => {
  it('shows what the page needs, without a signature', async () => {
    h.clock.set(Date.UTC(2026, 0, 20, 8, 30, 0));
    const o = await create({ amount: 1500.5, rail: 'Sbp', lifetimeMinutes: 30, successUrl: 'https://shop.example/ok', failUrl: 'https://shop.example/fail', backUrl: 'https://shop.example/' });
    const res = await page(o.id);
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.status).toBe('ok');
    expect(Object.keys(body.result)).toEqual(PAGE_KEYS);
    expect(body.result).toEqual({
      id: o.id,
      status: 'Created',
      subStatus: 'WaitingForPayment',
      amount: '1500.50',
      currency: 'RUB',
      method: 'Classic',
      rail: 'Sbp',
      payment: o.payment,
      payerReference: null,
      expiresAt: '2026-01-20T09:00:00Z',
      successUrl: 'https://shop.example/ok',
      failUrl: 'https://shop.example/fail',
      backUrl: 'https://shop.example/',
      merchant: { displayName: 'Coffee Corner' },
      sandbox: true,
    });
  });

  it('names the merchant by display name only: no ids, keys, callback URL, USD settlement, fee or provider', async () => {
    const o = await create({ amount: 918, rail: 'C2c', notifyUrl: 'https://hooks.example.net/secret-path' });
    await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    const res = await page(o.id);
    const text = res.body;
    for (const secret of [desk.merchantId, desk.id, desk.key, desk.secret, 'hooks.example.net', 'secret-path', 'prv_', 'settled', 'commission', 'credited', '91.8', '10.00000000']) {
      expect(text).not.toContain(secret);
    }
    expect(json(res).result.merchant).toEqual({ displayName: 'Coffee Corner' });
  });

  it('follows the order: completed after payment, and success/fail fall back to backUrl', async () => {
    const o = await create({ amount: 10, rail: 'Sbp', backUrl: 'https://shop.example/back' });
    expect(json(await page(o.id)).result).toMatchObject({ successUrl: 'https://shop.example/back', failUrl: 'https://shop.example/back', backUrl: 'https://shop.example/back' });
    await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    expect(json(await page(o.id)).result).toMatchObject({ status: 'Completed', subStatus: 'SuccessfullyPaid' });
    const none = await create({ amount: 10, rail: 'Sbp' });
    expect(json(await page(none.id)).result).toMatchObject({ successUrl: null, failUrl: null, backUrl: null });
  });

  it('shows an expired or cancelled order as such', async () => {
    const o = await create({ amount: 10, rail: 'Sbp' });
    await signed(h, desk, `/gw/v1/orders/${o.id}/cancel`, { method: 'POST', body: '{"reason":"internal note for the merchant"}' });
    const r = json(await page(o.id)).result;
    expect(r).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled' });
    // the merchant's cancel reason is not shown to the customer
    expect(JSON.stringify(r)).not.toContain('internal note');
  });

  it('a live order shows the pool details it was given and the reported payer reference', async () => {
    const live = await provisionDesk(h.app, { merchant: { name: 'Live Store', approve: true }, desk: { method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] }, currencies: { INR: '83.2' } });
    const p = await admin(h.app, 'POST', '/providers', {
      name: 'UPI pool',
      kind: 'pool',
      capabilities: [{ method: 'CrossBorder', rail: 'Upi', currency: 'INR', min: '0', max: '0' }],
      requisites: [{ upiId: 'store@upi', holder: 'Store Owner' }],
    });
    expect(p.statusCode, p.body).toBe(201);
    const o = await create({ amount: 832, currency: 'INR' }, live);
    await admin(h.app, 'POST', `/orders/${o.id}/report-payment`, { payerReference: '412345678901' });
    expect(json(await page(o.id)).result).toMatchObject({
      status: 'Payed',
      subStatus: 'WaitingAdminConfirmation',
      method: 'CrossBorder',
      rail: 'Upi',
      currency: 'INR',
      amount: '832.00',
      payment: { url: null, card: null, phone: null, account: null, iban: null, upiId: 'store@upi', holder: 'Store Owner', bank: null },
      payerReference: '412345678901',
      merchant: { displayName: 'Live Store' },
      sandbox: false,
    });
    expect((await page(o.id)).body).not.toContain(json(p).result.id);
  });

  it('unknown or malformed ids are 404 ORDER_NOT_FOUND in the error envelope', async () => {
    for (const id of ['ord_00000000000000000000000000', 'nothing', 'dsk_' + desk.id.slice(4)]) {
      const res = await page(id);
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'ORDER_NOT_FOUND' } });
    }
  });

  it('an order whose placement failed never shows', async () => {
    const d = await provisionDesk(h.app, { merchant: { name: 'Closed', sandbox: false }, currencies: {} });
    const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 10, rail: 'Sbp' }) });
    expect(json(res).fault.code).toBe('MERCHANT_NOT_APPROVED');
    const { rows } = await h.ctx.db.query<{ id: string }>(`SELECT id FROM orders WHERE desk_id = $1`, [d.id]);
    expect(rows).toHaveLength(1);
    expect((await page(rows[0].id)).statusCode).toBe(404);
  });
});

describe('hosted payment page', () => {
  it('renders the payment details escaped, says so in the sandbox, and 404s an unknown id', async () => {
    const x = await createHarness();
    try {
      const d = await provisionDesk(x.app, { merchant: { name: '<script>alert(1)</script> Shop' } });
      const o = json(await signed(x, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 1234.5, rail: 'C2c', backUrl: 'https://shop.example/back?a=1&b="2"' }) })).result;
      const res = await x.app.inject({ method: 'GET', url: `/pay/${o.id}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.body).toContain('1234.50 RUB');
      expect(res.body).toContain(o.payment.card.replace(/(\d{4})(?=\d)/g, '$1 '));
      expect(res.body).toContain('no money moves');
      expect(res.body).not.toContain('<script>alert(1)</script>');
      expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Shop');
      expect(res.body).toContain('href="https://shop.example/back?a=1&amp;b=&quot;2&quot;"');
      const missing = await x.app.inject({ method: 'GET', url: '/pay/ord_00000000000000000000000000' });
      expect(missing.statusCode).toBe(404);
    } finally {
      await x.close();
    }
  });
});

describe('closed orders', () => {
  it('carry every payment key null once completed or cancelled, while a Payed order still shows them', async () => {
    const EMPTY = { url: null, card: null, phone: null, account: null, iban: null, upiId: null, holder: null, bank: null };
    const paid = await create({ amount: 10, rail: 'C2c' });
    expect(json(await page(paid.id)).result.payment.card).toBe(paid.payment.card);
    await admin(h.app, 'POST', `/orders/${paid.id}/simulate-payment`);
    const done = await page(paid.id);
    expect(json(done).result.payment).toEqual(EMPTY);
    expect(done.body).not.toContain(paid.payment.card);
    const cancelled = await create({ amount: 10, rail: 'Sbp' });
    await signed(h, desk, `/gw/v1/orders/${cancelled.id}/cancel`, { method: 'POST', body: '{}' });
    expect(json(await page(cancelled.id)).result.payment).toEqual(EMPTY);
  });
});
