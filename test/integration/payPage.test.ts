import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { formatAmount } from '../../src/web/format.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * GET /api/pay/{id}: the unsigned data the customer's payment page needs. It must show the order
 * and the payment details, name the merchant by its display name only, and leak nothing else
 * about the merchant, the desk or the provider.
 */

let h: Harness;
let desk: DeskCreds;

const PAGE_KEYS = ['id', 'orderRef', 'status', 'subStatus', 'amount', 'currency', 'method', 'rail', 'payment', 'payerReference', 'expiresAt', 'successUrl', 'failUrl', 'backUrl', 'merchant', 'sandbox', 'description'];

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
      orderRef: null,
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
      description: null,
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

describe('the payment reference, per rail and per state', () => {
  let upi: DeskCreds;
  beforeAll(async () => {
    upi = await provisionDesk(h.app, { merchant: { name: 'Chai Point' }, desk: { method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] }, currencies: { INR: '83.2' } });
  });
  let ip = 0;
  const report = (id: string, payerReference: unknown) =>
    h.app.inject({ method: 'POST', url: `/api/pay/${id}/payer-reference`, payload: { payerReference }, remoteAddress: `198.51.100.${++ip % 250}` });
  const postForm = (id: string, lang: string, value: string) =>
    h.app.inject({ method: 'POST', url: `/pay/${id}?lang=${lang}`, payload: `payerReference=${encodeURIComponent(value)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: `203.0.113.${++ip % 250}` });
  const html = async (id: string, lang = 'en') => (await h.app.inject({ method: 'GET', url: `/pay/${id}?lang=${lang}`, remoteAddress: `192.0.2.${++ip % 250}` })).body;
  /** What the customer reads: the markup without tags and attributes. */
  const text = (body: string) => body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

  it('a Upi order takes exactly 12 digits; other rails 4 to 40 letters, digits, "-" or "/", trimmed', async () => {
    const u = await create({ amount: 832.5, currency: 'INR' }, upi);
    for (const bad of ['41234567890', '4123456789012', 'A12345678901', '4123-45678901', 'ABCD']) {
      const res = await report(u.id, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
    }
    expect(json(await report(u.id, ' 412345678901 ')).result.payerReference).toBe('412345678901');
    const sbp = await create({ amount: 10, rail: 'Sbp' });
    for (const bad of ['abc', 'x'.repeat(41), 'ab cd', 'A1_23', 'ab.cd', 'Ӓ123']) {
      const res = await report(sbp.id, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
    }
    for (const good of ['ab-1', 'x'.repeat(40), 'B4/2026-000123', '412345678901']) expect(json(await report(sbp.id, `  ${good}\t`)).result.payerReference).toBe(good);
  });

  it('the page answers a bad reference with the form again, the value kept and the rail’s rule in the page’s language', async () => {
    const sbp = await create({ amount: 10, rail: 'Sbp' });
    const bad = await postForm(sbp.id, 'ru', 'ab cd');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<html lang="ru">');
    expect(bad.body).toContain('id="utr-error"');
    expect(bad.body).toContain('от 4 до 40 латинских букв');
    expect(bad.body).toContain('value="ab cd"');
    const u = await create({ amount: 832.5, currency: 'INR' }, upi);
    const badUtr = await postForm(u.id, 'hi', 'ABCD-1234');
    expect(badUtr.statusCode).toBe(400);
    expect(badUtr.body).toContain('UTR ठीक 12 अंकों का होता है');
    expect(badUtr.body).toContain('value="ABCD-1234"');
    expect(json(await page(u.id)).result.payerReference).toBeNull();
    // a valid one is stored and shown, and the next replaces it
    expect((await postForm(sbp.id, 'en', 'SBP-0001')).statusCode).toBe(303);
    expect((await postForm(sbp.id, 'en', 'SBP-0002')).statusCode).toBe(303);
    const shown = text(await html(sbp.id));
    expect(shown).toContain('Reference on record: SBP-0002');
    expect(shown).not.toContain('SBP-0001');
  });

  it('an expired or cancelled order’s page shows the order id, takes a reference and never shows the payment details', async () => {
    const u = await create({ amount: 832.5, currency: 'INR', orderRef: 'INV 7/2026', lifetimeMinutes: 5 }, upi);
    expect(await html(u.id)).toContain('upi://pay?');
    h.clock.advance(6 * 60_000);
    await expireDueOrders(h.ctx, 100);
    const c = await create({ amount: 2750, rail: 'C2c' });
    await signed(h, desk, `/gw/v1/orders/${c.id}/cancel`, { method: 'POST', body: '{}' });
    for (const [o, secret] of [[u, u.payment.upiId], [c, c.payment.card]] as const) {
      const body = await html(o.id);
      expect(text(body)).toContain(o.id);
      expect(body).toContain(`data-copy="${o.id}"`);
      expect(body).toContain('name="payerReference"');
      expect(body).toContain('I have paid');
      for (const gone of [secret, o.payment.holder, 'upi://', '<svg role="img"', 'id="detail-']) expect(body).not.toContain(gone);
    }
    expect((await postForm(u.id, 'en', '412345678901')).statusCode).toBe(303);
    expect(text(await html(u.id))).toContain('UTR on record: 412345678901');
    expect(json(await report(u.id, '512345678901')).result).toMatchObject({ status: 'Canceled', subStatus: 'Expired', payerReference: '512345678901' });
    expect(json(await report(c.id, 'C2C/991')).result).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled', payerReference: 'C2C/991' });
    expect(text(await html(c.id, 'kk'))).toContain('Сақталған операция нөмірі: C2C/991');
  });

  it('once paid the reference stands: Payed, Completed and Dispute refuse a new one with their 409, and the page says so in its language', async () => {
    const completed = await create({ amount: 10, rail: 'Sbp' });
    await report(completed.id, 'SBP-1234');
    await admin(h.app, 'POST', `/orders/${completed.id}/simulate-payment`);
    const refused = await report(completed.id, 'SBP-5678');
    expect(refused.statusCode).toBe(409);
    expect(json(refused).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    const onPage = await postForm(completed.id, 'tr', 'SBP-5678');
    expect(onPage.statusCode).toBe(409);
    expect(onPage.body).toContain('bu sipariş zaten ödendi');
    expect(onPage.body).not.toContain('name="payerReference"');
    expect(text(await html(completed.id))).toContain('Reference on record: SBP-1234');
    expect(json(await page(completed.id)).result.payerReference).toBe('SBP-1234');

    const disputed = await create({ amount: 10, rail: 'Sbp' });
    await signed(h, desk, `/gw/v1/orders/${disputed.id}/cancel`, { method: 'POST', body: '{}' });
    await report(disputed.id, 'LATE-1');
    expect((await signed(h, desk, '/gw/v1/appeals', { body: JSON.stringify({ orderId: disputed.id }) })).statusCode).toBe(201);
    const inDispute = await report(disputed.id, 'LATE-2');
    expect(inDispute.statusCode).toBe(409);
    expect(json(inDispute).fault.code).toBe('ORDER_IN_DISPUTE');
    const disputePage = await postForm(disputed.id, 'ko', 'LATE-2');
    expect(disputePage.statusCode).toBe(409);
    expect(disputePage.body).toContain('이미 결제된 주문');
    expect(json(await page(disputed.id)).result.payerReference).toBe('LATE-1');
  });

  it('the UPI button and the QR code carry one link, with tn the orderRef (else the order id) and tr the order id', async () => {
    const withRef = await create({ amount: 832.5, currency: 'INR', orderRef: 'INV 7/2026 & co' }, upi);
    expect(json(await page(withRef.id)).result.orderRef).toBe('INV 7/2026 & co');
    const link = `upi://pay?pa=${withRef.payment.upiId}&pn=${encodeURIComponent(withRef.payment.holder)}&am=832.50&cu=INR&tn=INV%207%2F2026%20%26%20co&tr=${withRef.id}`;
    expect(await html(withRef.id)).toContain(`id="upi-link" href="${link.replace(/&/g, '&amp;')}"`);
    const without = await create({ amount: 100, currency: 'INR' }, upi);
    expect(await html(without.id)).toContain(`&amp;tn=${without.id}&amp;tr=${without.id}"`);
  });

  it('formats amounts for the page’s language in every state: grouping, separators, the currency’s own decimals', async () => {
    const u = await create({ amount: 123456.5, currency: 'INR', lifetimeMinutes: 5 }, upi);
    expect(await html(u.id, 'hi')).toContain('₹1,23,456.50');
    expect(await html(u.id, 'en')).toContain('₹123,456.50');
    const rub = await create({ amount: 2750, rail: 'C2c', lifetimeMinutes: 5 });
    expect(formatAmount('ru', '2750.00', 'RUB')).toBe('2\u00a0750,00\u00a0₽');
    expect(await html(rub.id, 'ru')).toContain('2\u00a0750,00\u00a0₽');
    h.clock.advance(6 * 60_000);
    await expireDueOrders(h.ctx, 100);
    expect(await html(u.id, 'hi')).toContain('₹1,23,456.50');
    expect(await html(rub.id, 'ru')).toContain('2\u00a0750,00\u00a0₽');
    expect(await html(rub.id, 'tr')).toContain('₽2.750,00');
  });
});
