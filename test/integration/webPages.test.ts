import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

/*
 * The payment page and the pages around it over HTTP, without a browser: headers, assets,
 * languages, the no-JavaScript reference form, the sandbox bank, closed orders and the weight budget.
 * The same behaviour in a real browser is in test/browser.
 */

let h: Harness;
let classic: DeskCreds;
let upi: DeskCreds;
let bankApp: DeskCreds;

beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' } });
  classic = await provisionDesk(h.app, { merchant: { name: 'Coffee Corner' } });
  upi = await provisionDesk(h.app, { merchant: { name: 'Chai Point' }, desk: { method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] }, currencies: { INR: '83.2' } });
  bankApp = await provisionDesk(h.app, { merchant: { name: 'Book Shop' }, desk: { method: 'BankApp', rails: [] } });
});
afterAll(() => h.close());

async function order(desk: DeskCreds, body: Record<string, unknown>) {
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
let ip = 0;
const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers, remoteAddress: `198.51.100.${++ip % 250}` });
const postForm = (url: string, form: string) =>
  h.app.inject({ method: 'POST', url, payload: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: `203.0.113.${++ip % 250}` });

describe('payment page over HTTP', () => {
  it('is served with a strict CSP and loads only its own hashed, long-cached assets', async () => {
    const o = await order(classic, { amount: 1500.5, rail: 'C2c' });
    const res = await get(`/pay/${o.id}`);
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(res.body).not.toMatch(/\sstyle=|<style/);
    const assets = [...res.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(3);
    for (const a of assets) {
      expect(a).toMatch(/^\/assets\/[a-z]+\.[0-9a-f]{10}\.(css|js|svg)$/);
      const file = await get(a);
      expect(file.statusCode).toBe(200);
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await get('/assets/pay.0000000000.js')).statusCode).toBe(404);
    // every absolute URL in the page is the shop's or ours: nothing loads from elsewhere
    expect(res.body).not.toMatch(/(?:src|href)="https?:/);
  });

  it('speaks ?lang= first, then Accept-Language, then English', async () => {
    const o = await order(classic, { amount: 10, rail: 'Sbp' });
    expect((await get(`/pay/${o.id}?lang=ru`, { 'accept-language': 'tr' })).body).toContain('<html lang="ru">');
    const tr = await get(`/pay/${o.id}`, { 'accept-language': 'de-DE,tr;q=0.8,en;q=0.5' });
    expect(tr.body).toContain('<html lang="tr">');
    expect(tr.body).toContain('Nasıl ödenir');
    expect((await get(`/pay/${o.id}?lang=xx`, { 'accept-language': 'de' })).body).toContain('<html lang="en">');
    const notFound = await get('/pay/ord_00000000000000000000000000?lang=kk');
    expect(notFound.statusCode).toBe(404);
    expect(notFound.body).toContain('Төлем табылмады');
  });

  it('takes the UTR from a plain form post, shows it back, and refuses a malformed one; other rails take their reference', async () => {
    const o = await order(upi, { amount: 832.5, currency: 'INR' });
    const page = await get(`/pay/${o.id}`);
    expect(page.body).toContain('name="payerReference"');
    expect(page.body).toContain('<svg role="img"');
    const bad = await postForm(`/pay/${o.id}?lang=en`, 'payerReference=12%2034');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="utr-error"');
    expect(bad.body).toContain('value="12 34"');
    const ok = await postForm(`/pay/${o.id}?lang=hi`, 'payerReference=412345678901');
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/pay/${o.id}?lang=hi`);
    expect((await get(ok.headers.location as string)).body).toContain('412345678901');
    expect(json(await get(`/api/pay/${o.id}`)).result.payerReference).toBe('412345678901');
    const sbp = await order(classic, { amount: 10, rail: 'Sbp' });
    expect((await postForm(`/pay/${sbp.id}`, 'payerReference=412345678901')).statusCode).toBe(303);
    expect((await postForm('/pay/ord_00000000000000000000000000', 'payerReference=412345678901')).statusCode).toBe(404);
  });

  it('shows no payment details once the order is closed, and says expired rather than cancelled', async () => {
    const o = await order(classic, { amount: 10, rail: 'C2c', lifetimeMinutes: 5 });
    expect((await get(`/pay/${o.id}`)).body).toContain(o.payment.card);
    h.clock.advance(6 * 60_000);
    const { expireDueOrders } = await import('../../src/services/orderActions.js');
    await expireDueOrders(h.ctx, 100);
    const res = await get(`/pay/${o.id}`);
    expect(res.body).not.toContain(o.payment.card);
    expect(res.body).not.toContain(o.payment.holder);
    expect(res.body).toContain('This payment has expired');
    // what the customer reads (the status in a data attribute for the script is the API's word)
    expect(res.body.replace(/<[^>]*>/g, '')).not.toMatch(/Cancel/i);
  });

  it('a paid order being confirmed says so, hides the details, shows the UTR on record and takes no new one', async () => {
    const live = await provisionDesk(h.app, { merchant: { name: 'Live Chai', approve: true, sandbox: false }, desk: { method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'] }, currencies: { INR: '83.2' } });
    const p = await admin(h.app, 'POST', '/providers', { name: 'UPI pool', kind: 'pool', capabilities: [{ method: 'CrossBorder', rail: 'Upi', currency: 'INR', min: '0', max: '0' }], requisites: [{ upiId: 'store@upi', holder: 'Store Owner' }] });
    expect(p.statusCode, p.body).toBe(201);
    const o = await order(live, { amount: 832, currency: 'INR' });
    await admin(h.app, 'POST', `/orders/${o.id}/report-payment`, { payerReference: '412345678901' });
    const res = await get(`/pay/${o.id}`);
    expect(res.body).toContain('Confirming your payment');
    expect(res.body).not.toContain('store@upi');
    expect(res.body).not.toContain('class="sandbox"');
    expect(res.body).toContain('412345678901');
    expect(res.body).not.toContain('name="payerReference"');
    const late = await postForm(`/pay/${o.id}?lang=en`, 'payerReference=512345678901');
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('this order is already paid');
    // the data endpoint still carries them while the money may be on its way
    expect(json(await get(`/api/pay/${o.id}`)).result.payment.upiId).toBe('store@upi');
  });

  it('weighs under 50 KB with its stylesheet, script and QR code', async () => {
    const o = await order(upi, { amount: 99999.99, currency: 'INR' });
    const res = await get(`/pay/${o.id}`);
    let total = Buffer.byteLength(res.body);
    for (const m of res.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) total += (await get(m[1]!)).rawPayload.length;
    expect(total).toBeLessThan(50 * 1024);
  });
});

describe('sandbox bank page', () => {
  it('is where a sandbox bank-app order leads; "pay" completes the order and returns to the payment page', async () => {
    const o = await order(bankApp, { amount: 1200 });
    expect(o.payment.url).toBe(`https://pay.example.test/sandbox/bank/${o.id}`);
    const pageHtml = (await get(`/pay/${o.id}`)).body;
    expect(pageHtml).toContain(`href="${o.payment.url}"`);
    const bank = await get(`/sandbox/bank/${o.id}`);
    expect(bank.statusCode).toBe(200);
    expect(bank.body).toContain(`action="/sandbox/bank/${o.id}/pay?lang=en"`);
    const paid = await postForm(`/sandbox/bank/${o.id}/pay?lang=ru`, '');
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(`/pay/${o.id}?lang=ru`);
    expect(json(await get(`/api/pay/${o.id}`)).result).toMatchObject({ status: 'Completed', payment: { url: null } });
    // paying twice changes nothing
    expect((await postForm(`/sandbox/bank/${o.id}/pay`, '')).statusCode).toBe(303);
  });

  it('does not exist for live orders or unknown ids', async () => {
    const live = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true, sandbox: false }, desk: { method: 'BankApp', rails: [] } });
    await admin(h.app, 'POST', '/providers', { name: 'Bank pool', kind: 'pool', capabilities: [{ method: 'BankApp', rail: null, currency: 'RUB', min: '0', max: '0' }], requisites: [{ url: 'https://bank.example/pay/1' }] });
    const res = await signed(h, live, '/gw/v1/orders', { body: JSON.stringify({ amount: 100 }) });
    expect(res.statusCode, res.body).toBe(201);
    const id = json(res).result.id;
    expect(json(res).result.payment.url).toBe('https://bank.example/pay/1');
    expect((await get(`/sandbox/bank/${id}`)).statusCode).toBe(404);
    expect((await postForm(`/sandbox/bank/${id}/pay`, '')).statusCode).toBe(404);
    expect((await get('/sandbox/bank/ord_00000000000000000000000000')).statusCode).toBe(404);
  });
});
