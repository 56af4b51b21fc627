import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { formatAmount } from '../../src/web/format.js';
import { admin, signed } from '../helpers/harness.js';
import { axeViolations, CASES, createOrder, decodeQr, deskFor, DESKTOP, hasChromium, launch, PHONE, screenshot, serve, watch, type Served } from './browser.js';

/*
 * The hosted payment page as a customer sees it, in headless Chromium: every rail and method at
 * phone and desktop widths, copy buttons, QR codes decoded from screenshots, languages, the UTR
 * form, the live switch to success, expired and cancelled states, accessibility, and that nothing
 * is requested from another origin and no script is inline.
 */

let h: Served;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve();
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(url: string, o: { viewport?: { width: number; height: number }; js?: boolean; headers?: Record<string, string>; fakeTimers?: boolean } = {}) {
  const context: BrowserContext = await browser.newContext({
    viewport: o.viewport ?? PHONE,
    javaScriptEnabled: o.js ?? true,
    extraHTTPHeaders: o.headers,
    // The customer's own zone: the deadline is shown in local time beside UTC.
    timezoneId: 'Asia/Almaty',
  });
  const page = await context.newPage();
  // The page's polls and redirects wait seconds of real time; a test moves the page's clock instead.
  if (o.fakeTimers) await page.clock.install();
  const seen = watch(page);
  const res = await page.goto(h.origin + url);
  return { context, page, seen, status: res?.status() };
}

/** Everything a page must hold whatever it shows. */
async function commonChecks(page: Page, seen: ReturnType<typeof watch>) {
  expect(await page.locator('script:not([src])').count(), 'no inline script').toBe(0);
  // the markup as served (the browser itself may add empty style attributes while filling inputs)
  const served = await (await page.request.get(page.url())).text();
  expect(served).not.toMatch(/<script(?![^>]*\bsrc=)/);
  expect(served).not.toMatch(/\sstyle=|<style/);
  expect(seen.requests.filter((u) => !u.startsWith(h.origin)), 'no request leaves the origin').toEqual([]);
  expect(seen.problems, 'no CSP violation or script error').toEqual([]);
  expect(await axeViolations(page)).toEqual([]);
}

const KEYS = ['card', 'phone', 'account', 'iban', 'upiId', 'holder', 'bank'] as const;

// Pages wait on 4 s polls and a 10 s move on to failUrl, on machines whose CPUs are shared.
const SLOW = 90_000;

describe.skipIf(!hasChromium)('payment page in Chromium', () => {
  for (const c of CASES) {
    it(`${c.name}: amount, details with copy buttons, instructions and countdown at phone and desktop widths`, async ({ expect }) => {
      const o = await createOrder(h, c);
      for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
        const { context, page, seen, status } = await open(`/pay/${o.id}`, { viewport });
        try {
          expect(status).toBe(200);
          await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/^(29|30):\d\d$/);
          expect(await page.locator('#amount').isVisible()).toBe(true);
          expect(await page.locator('.currency').textContent()).toContain(`${o.amount} ${o.currency}`);
          expect(await page.locator('.sandbox').isVisible()).toBe(true);
          expect(await page.locator('.steps li').count()).toBeGreaterThanOrEqual(3);
          // the deadline in the customer's zone (Almaty, UTC+5), UTC beside it
          expect(await page.locator('#deadline').textContent()).toMatch(/UTC/);
          for (const k of KEYS) {
            const row = page.locator(`#detail-${k}`);
            if (o.payment[k] === null) {
              expect(await row.count(), `${k} not shown`).toBe(0);
              continue;
            }
            expect(await row.locator('.value').isVisible(), `${k} shown`).toBe(true);
            expect(await row.locator('button.copy').isVisible(), `${k} copy button`).toBe(true);
            expect(await row.locator('button.copy').getAttribute('data-copy')).toBe(o.payment[k]);
            const shown = (await row.locator('.value').textContent())!;
            if (k === 'card') expect(shown).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
            if (k === 'phone') expect(shown).toMatch(/^\+7 \d{3} \d{3}-\d{2}-\d{2}$/);
            if (k === 'iban') expect(shown.replace(/ /g, '')).toBe(o.payment.iban);
          }
          if (o.payment.url !== null) {
            const href = await page.locator('#pay-link').getAttribute('href');
            expect(href).toBe(o.payment.url);
            expect(href).not.toContain(`/pay/${o.id}`);
            if (c.name !== 'Counterparty') expect(await decodeQr(page, '.qr svg')).toBe(o.payment.url);
          }
          if (c.name.includes('Upi')) {
            const link = `upi://pay?pa=${o.payment.upiId}&pn=${encodeURIComponent(o.payment.holder)}&am=${o.amount}&cu=INR`;
            expect(await decodeQr(page, '.qr svg')).toBe(link);
            expect(link).toContain('&am=832.50&');
            expect(await page.locator('input[name=payerReference]').isVisible()).toBe(true);
          }
          await commonChecks(page, seen);
          await screenshot(page, `open-${c.name}-${label}`);
        } finally {
          await context.close();
        }
      }
    }, SLOW);
  }

  it('a copy button puts the bare value on the clipboard and says so', async () => {
    const o = await createOrder(h, CASES[1]!);
    const { context, page } = await open(`/pay/${o.id}`);
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
      const button = page.locator('#detail-card button.copy');
      await button.click();
      await expect.poll(() => button.textContent()).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(o.payment.card);
    } finally {
      await context.close();
    }
  }, SLOW);

  it('speaks the language of ?lang=, then of Accept-Language, and switches by plain links', async () => {
    const o = await createOrder(h, CASES[0]!);
    const ru = await open(`/pay/${o.id}?lang=ru`, { headers: { 'Accept-Language': 'tr' } });
    try {
      expect(await ru.page.getAttribute('html', 'lang')).toBe('ru');
      expect(await ru.page.locator('#steps-h').textContent()).toContain('Как оплатить');
      expect(await ru.page.locator('#amount').textContent()).toBe(formatAmount('ru', '1500.50', 'RUB'));
      await screenshot(ru.page, 'lang-ru-phone');
      await ru.page.click('a[hreflang=ko]');
      expect(await ru.page.getAttribute('html', 'lang')).toBe('ko');
      await screenshot(ru.page, 'lang-ko-phone');
    } finally {
      await ru.context.close();
    }
    const tr = await open(`/pay/${o.id}`, { headers: { 'Accept-Language': 'tr-TR,tr;q=0.9,en;q=0.5' } });
    try {
      expect(await tr.page.getAttribute('html', 'lang')).toBe('tr');
      expect(await tr.page.locator('#steps-h').textContent()).toContain('Nasıl ödenir');
    } finally {
      await tr.context.close();
    }
    for (const lang of ['hi', 'kk', 'uz', 'az']) {
      const p = await open(`/pay/${o.id}?lang=${lang}`, { viewport: lang === 'hi' ? DESKTOP : PHONE });
      try {
        expect(await p.page.getAttribute('html', 'lang')).toBe(lang);
        await commonChecks(p.page, p.seen);
        await screenshot(p.page, `lang-${lang}-${lang === 'hi' ? 'desktop' : 'phone'}`);
      } finally {
        await p.context.close();
      }
    }
  }, SLOW);

  it('takes the UTR with and without JavaScript, shows it back, and refuses a malformed one', async () => {
    const upi = CASES.find((c) => c.name.includes('Upi'))!;
    const o = await createOrder(h, upi);
    for (const js of [true, false]) {
      const { context, page } = await open(`/pay/${o.id}?lang=en`, { js });
      try {
        await page.fill('input[name=payerReference]', 'not a utr!');
        // the browser's own pattern check would stop the form: post it as a customer's old browser would
        await page.evaluate(() => document.querySelector('form')!.setAttribute('novalidate', ''));
        await page.click('.utr button[type=submit]');
        expect(await page.locator('#utr-error').textContent()).toContain('letters and digits');
        const utr = js ? '412345678901' : '412345678902';
        await page.fill('input[name=payerReference]', utr);
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-reported');
        expect(await page.locator('#utr-reported').textContent()).toContain(utr);
        expect(page.url()).toBe(`${h.origin}/pay/${o.id}?lang=en`);
        await screenshot(page, `utr-reported-${js ? 'js' : 'nojs'}`);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('switches to success by itself after the payment, then leads on to successUrl', async () => {
    const successUrl = `${h.origin}/healthz?shop=thanks`;
    const o = await createOrder(h, CASES[0]!, { successUrl });
    const { context, page, seen } = await open(`/pay/${o.id}`, { viewport: DESKTOP, fakeTimers: true });
    try {
      await page.waitForSelector('#countdown');
      await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
      await page.clock.runFor(4_000);
      await page.waitForSelector('.state-completed', { timeout: 15_000 });
      expect(await page.locator('#state h2').textContent()).toBe('Payment received');
      expect(await page.locator('#detail-phone').count()).toBe(0);
      expect(await page.content()).not.toContain(o.payment.phone);
      await commonChecks(page, seen);
      await screenshot(page, 'completed-desktop');
      expect(page.url()).not.toBe(successUrl);
      await page.clock.runFor(10_000);
      await page.waitForURL(successUrl, { timeout: 15_000 });
    } finally {
      await context.close();
    }
  }, SLOW);

  it('a bank-app order leads to the sandbox bank, whose "pay" completes the order and returns to the page', async () => {
    const o = await createOrder(h, CASES.find((c) => c.name === 'BankApp')!);
    const { context, page, seen } = await open(`/pay/${o.id}?lang=en`);
    try {
      await page.click('#pay-link');
      expect(page.url()).toBe(`${o.payment.url}`);
      await screenshot(page, 'sandbox-bank-phone');
      await commonChecks(page, seen);
      await page.click('#bank-pay');
      await page.waitForSelector('.state-completed');
      await screenshot(page, 'completed-phone');
      expect(page.url()).toBe(`${h.origin}/pay/${o.id}?lang=en`);
    } finally {
      await context.close();
    }
  }, SLOW);

  it('says "expired" when time runs out, live and on a fresh load, and shows no details', async () => {
    const o = await createOrder(h, CASES[1]!, { lifetimeMinutes: 5 });
    const { context, page, seen } = await open(`/pay/${o.id}`, { fakeTimers: true });
    try {
      await page.waitForSelector('#countdown');
      h.clock.advance(6 * 60_000);
      await expireDueOrders(h.ctx, 100);
      await page.clock.runFor(4_000);
      await page.waitForSelector('.state-expired', { timeout: 15_000 });
      const text = (await page.locator('main').textContent())!;
      expect(text).toContain('expired');
      expect(text).not.toMatch(/Cancel/i);
      expect(await page.content()).not.toContain(o.payment.card);
      await commonChecks(page, seen);
      await screenshot(page, 'expired-phone');
    } finally {
      await context.close();
    }
    const again = await open(`/pay/${o.id}?lang=hi`);
    try {
      expect(await again.page.locator('.state-expired h2').textContent()).toContain('समाप्त');
      await screenshot(again.page, 'expired-hi-phone');
    } finally {
      await again.context.close();
    }
  }, SLOW);

  it('says a cancelled order is cancelled and leads on to failUrl', async () => {
    const failUrl = `${h.origin}/healthz?shop=failed`;
    const c = CASES[0]!;
    const o = await createOrder(h, c, { failUrl });
    const { context, page, seen } = await open(`/pay/${o.id}`, { viewport: DESKTOP, fakeTimers: true });
    try {
      await page.waitForSelector('#countdown');
      const cancelled = await signed(h, await deskFor(h, c), `/gw/v1/orders/${o.id}/cancel`, { method: 'POST', body: '{"reason":"out of stock"}' });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      await page.clock.runFor(4_000);
      await page.waitForSelector('.state-cancelled', { timeout: 15_000 });
      expect(await page.locator('#state h2').textContent()).toBe('This payment was cancelled');
      expect(await page.locator('#to-shop').getAttribute('href')).toBe(failUrl);
      await commonChecks(page, seen);
      await screenshot(page, 'cancelled-desktop');
      expect(page.url()).not.toBe(failUrl);
      await page.clock.runFor(10_000);
      await page.waitForURL(failUrl, { timeout: 20_000 });
    } finally {
      await context.close();
    }
  }, SLOW);

  it('works without JavaScript: no copy buttons to press, a refresh keeps it current', async () => {
    const o = await createOrder(h, CASES[0]!);
    const { context, page } = await open(`/pay/${o.id}`, { js: false });
    try {
      expect(await page.locator('#detail-phone .value').isVisible()).toBe(true);
      expect(await page.locator('button.copy').first().isVisible()).toBe(false);
      expect(await page.locator('noscript').first().innerHTML()).toContain('http-equiv="refresh"');
    } finally {
      await context.close();
    }
  }, SLOW);

  it('weighs under 50 KB with its stylesheet, script and QR code', async () => {
    const o = await createOrder(h, CASES.find((c) => c.name.includes('Upi'))!);
    const { context, page } = await open(`/pay/${o.id}`);
    try {
      const sizes = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => (e as PerformanceResourceTiming).encodedBodySize));
      const html = Buffer.byteLength(await page.content());
      const total = html + sizes.reduce((a, b) => a + b, 0);
      expect(total).toBeLessThan(50 * 1024);
    } finally {
      await context.close();
    }
  }, SLOW);
});

