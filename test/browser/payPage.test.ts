import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/services/links.js';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { formatAmount } from '../../src/web/format.js';
import { admin, json, provisionDesk, signed } from '../helpers/harness.js';
import { axeViolations, CASES, createOrder, decodeQr, deskFor, DESKTOP, hasChromium, launch, PHONE, screenshot, SCREENSHOTS, serve, watch, type Served } from './browser.js';

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
  expect(await sideways(page), 'no sideways scroll').toBe(false);
  // every value with a copy button, and every reference shown, is set in a monospace face
  const fonts = await page.evaluate(() =>
    [...document.querySelectorAll('button.copy')].map((b) => getComputedStyle(b.parentElement!.querySelector('.value')!).fontFamily)
      .concat([...document.querySelectorAll('.mono')].map((e) => getComputedStyle(e).fontFamily)),
  );
  for (const f of fonts) expect(f).toMatch(/mono/i);
}

/** What the page reports while it answers a refused form with `status`: the browser logs that status as an error. */
function answeredWith(seen: ReturnType<typeof watch>, status: number): ReturnType<typeof watch> {
  return { ...seen, problems: seen.problems.filter((p) => !p.includes(`status of ${status}`)) };
}

/** The page is wider than the window: it scrolls sideways. */
async function sideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth || document.body.scrollWidth > window.innerWidth);
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
            // the button that opens the UPI app beside the QR code, both the same link: note (tn) and reference (tr) included
            const link = `upi://pay?pa=${o.payment.upiId}&pn=${encodeURIComponent(o.payment.holder)}&am=${o.amount}&cu=INR&tn=${o.id}&tr=${o.id}`;
            expect(await page.locator('#upi-link').isVisible()).toBe(true);
            expect(await page.locator('#upi-link').getAttribute('href')).toBe(link);
            expect(await decodeQr(page, '.qr svg')).toBe(link);
            expect(link).toContain('&am=832.50&');
            expect(await page.locator('#amount').textContent()).toBe('₹832.50');
          } else {
            expect(await page.locator('#upi-link').count()).toBe(0);
          }
          // every rail's page takes the payment's reference, and names the order
          expect(await page.locator('input[name=payerReference]').isVisible()).toBe(true);
          expect(await page.locator('#order-id').textContent()).toBe(o.id);
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
        await page.click('.utr button[type=submit]');
        expect(await page.locator('#utr-error').textContent()).toContain('exactly 12 digits');
        expect(await page.inputValue('input[name=payerReference]')).toBe('not a utr!');
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

  it('the UPI button and the QR code carry the same link in every language: orderRef as the note, the order id as the reference', async () => {
    const upi = CASES.find((c) => c.name.includes('Upi'))!;
    const o = await createOrder(h, upi, { amount: 123456.5, orderRef: 'INV 7/2026' });
    for (const [lang, viewport, label] of [['hi', PHONE, 'UPI ऐप में भुगतान करें'], ['ru', DESKTOP, 'Оплатить в приложении UPI']] as const) {
      const { context, page, seen } = await open(`/pay/${o.id}?lang=${lang}`, { viewport });
      try {
        const button = page.locator('#upi-link');
        expect(await button.textContent()).toBe(label);
        const href = await button.getAttribute('href');
        expect(href).toBe(`upi://pay?pa=${o.payment.upiId}&pn=${encodeURIComponent(o.payment.holder)}&am=123456.50&cu=INR&tn=INV%207%2F2026&tr=${o.id}`);
        expect(await decodeQr(page, '.qr svg')).toBe(href);
        expect(await page.locator('#amount').textContent()).toBe(lang === 'hi' ? '₹1,23,456.50' : formatAmount('ru', '123456.50', 'INR'));
        await commonChecks(page, seen);
        await screenshot(page, `upi-button-${lang}-${viewport === PHONE ? 'phone' : 'desktop'}`);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('takes a reference on every rail: the rail’s rule in the page’s language, the value kept, then the one on record', async () => {
    const o = await createOrder(h, CASES[0]!);
    const cases = [
      { lang: 'ru', js: true, viewport: PHONE, rule: 'от 4 до 40 латинских букв', recorded: 'Сохранённый номер операции', ref: 'A4-0012/77' },
      { lang: 'tr', js: false, viewport: DESKTOP, rule: '4 ila 40 Latin harf', recorded: 'Kayıtlı ödeme referansı', ref: 'B5-0013/78' },
    ] as const;
    for (const c of cases) {
      const { context, page, seen } = await open(`/pay/${o.id}?lang=${c.lang}`, { js: c.js, viewport: c.viewport });
      try {
        await page.fill('input[name=payerReference]', 'ab cd');
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-error');
        expect(await page.locator('#utr-error').textContent()).toContain(c.rule);
        expect(await page.inputValue('input[name=payerReference]')).toBe('ab cd');
        expect(await page.getAttribute('input[name=payerReference]', 'aria-invalid')).toBe('true');
        if (c.js) await commonChecks(page, answeredWith(seen, 400));
        await screenshot(page, `reference-invalid-${c.lang}-${c.js ? 'phone' : 'desktop-nojs'}`);
        await page.fill('input[name=payerReference]', ` ${c.ref} `);
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-reported');
        expect(await page.locator('#utr-reported').textContent()).toContain(`${c.recorded}: ${c.ref}`);
        expect(page.url()).toBe(`${h.origin}/pay/${o.id}?lang=${c.lang}`);
        await screenshot(page, `reference-recorded-${c.lang}-${c.js ? 'phone' : 'desktop-nojs'}`);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('an expired order’s page names the order with a copy button, takes a late reference and never shows the details again', async () => {
    const upi = CASES.find((c) => c.name.includes('Upi'))!;
    const o = await createOrder(h, upi, { lifetimeMinutes: 5, amount: 123456.5 });
    h.clock.advance(6 * 60_000);
    await expireDueOrders(h.ctx, 100);
    const cases = [
      { lang: 'en', viewport: PHONE, title: 'I have paid', recorded: 'UTR on record: 412345678901', utr: '412345678901' },
      { lang: 'hi', viewport: DESKTOP, title: 'मैंने भुगतान कर दिया है', recorded: 'दर्ज UTR: 512345678901', utr: '512345678901' },
    ] as const;
    for (const c of cases) {
      const { context, page, seen } = await open(`/pay/${o.id}?lang=${c.lang}`, { viewport: c.viewport });
      try {
        await page.waitForSelector('.state-expired');
        expect(await page.locator('#order-id').textContent()).toBe(o.id);
        expect(await page.locator('#order-id').isVisible()).toBe(true);
        expect(await page.locator('#amount').textContent()).toBe(formatAmount(c.lang, '123456.50', 'INR'));
        if (c.lang === 'hi') expect(await page.locator('#amount').textContent()).toBe('₹1,23,456.50');
        for (const gone of ['#upi-link', '.qr', '.details', '[id^=detail-]']) expect(await page.locator(gone).count(), gone).toBe(0);
        const content = await page.content();
        for (const secret of [o.payment.upiId, o.payment.holder, 'upi://']) expect(content).not.toContain(secret);
        expect(await page.locator('#utr-h').textContent()).toBe(c.title);
        if (c.lang === 'en') {
          await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
          await page.locator('.order-id button.copy').click();
          await expect.poll(() => page.locator('.order-id button.copy').textContent()).toBe('Copied');
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(o.id);
        }
        await commonChecks(page, seen);
        await screenshot(page, `expired-reference-${c.lang}-${c.viewport === PHONE ? 'phone' : 'desktop'}`);
        await page.fill('input[name=payerReference]', c.utr);
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-reported');
        expect(await page.locator('#utr-reported').textContent()).toContain(c.recorded);
        expect(await page.locator('.state-expired').isVisible()).toBe(true);
        await commonChecks(page, watch(page));
        await screenshot(page, `expired-recorded-${c.lang}-${c.viewport === PHONE ? 'phone' : 'desktop'}`);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('a cancelled order’s page takes a late reference, and a customer who starts on the form is not moved on to failUrl', async () => {
    const failUrl = `${h.origin}/healthz?shop=failed`;
    const c = CASES[1]!;
    const o = await createOrder(h, c, { failUrl });
    const cancelled = await signed(h, await deskFor(h, c), `/gw/v1/orders/${o.id}/cancel`, { method: 'POST', body: '{}' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    for (const [lang, viewport, recorded] of [['kk', PHONE, 'Сақталған операция нөмірі: 7741-99'], ['az', DESKTOP, 'Qeydə alınmış əməliyyat nömrəsi: 7741-99']] as const) {
      const { context, page, seen } = await open(`/pay/${o.id}?lang=${lang}`, { viewport, fakeTimers: true });
      try {
        await page.waitForSelector('.state-cancelled');
        expect(await page.locator('#order-id').textContent()).toBe(o.id);
        expect(await page.locator('[id^=detail-]').count()).toBe(0);
        expect(await page.content()).not.toContain(o.payment.card);
        expect(await page.locator('#amount').textContent()).toBe(formatAmount(lang, o.amount, 'RUB'));
        await commonChecks(page, seen);
        await screenshot(page, `cancelled-reference-${lang}-${viewport === PHONE ? 'phone' : 'desktop'}`);
        await page.focus('input[name=payerReference]');
        await page.clock.runFor(15_000);
        expect(page.url()).toBe(`${h.origin}/pay/${o.id}?lang=${lang}`);
        await page.fill('input[name=payerReference]', '7741-99');
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-reported');
        expect(await page.locator('#utr-reported').textContent()).toContain(recorded);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('a reference sent after the order was paid is refused, and the page says so in its language', async () => {
    for (const [lang, viewport, said] of [['tr', PHONE, 'bu sipariş zaten ödendi'], ['ko', DESKTOP, '이미 결제된 주문']] as const) {
      const o = await createOrder(h, CASES[0]!);
      const { context, page, seen } = await open(`/pay/${o.id}?lang=${lang}`, { viewport, fakeTimers: true });
      try {
        await page.fill('input[name=payerReference]', 'SBP-2026/1');
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-reported');
        await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
        // the page opened before the payment still has its form: the customer sends another
        await page.fill('input[name=payerReference]', 'SBP-2026/2');
        await page.click('.utr button[type=submit]');
        await page.waitForSelector('#utr-error');
        expect(await page.locator('#utr-error').textContent()).toContain(said);
        expect(await page.locator('.state-completed').isVisible()).toBe(true);
        expect(await page.locator('input[name=payerReference]').count()).toBe(0);
        expect(await page.locator('#utr-reported').textContent()).toContain('SBP-2026/1');
        expect(json(await h.app.inject({ method: 'GET', url: `/api/pay/${o.id}` })).result.payerReference).toBe('SBP-2026/1');
        await commonChecks(page, answeredWith(seen, 409));
        await screenshot(page, `reference-refused-paid-${lang}-${viewport === PHONE ? 'phone' : 'desktop'}`);
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

  it('a payment link’s page shows the amount, what it is for and a Pay button that works without JavaScript; it creates nothing until pressed', async () => {
    const desk = await deskFor(h, CASES[0]!);
    const link = await createLink(h.ctx, desk.merchantId, { amount: '1500.50', currency: 'RUB', deskId: desk.id, description: 'Darjeeling, 250 g', expiresAt: null, rail: 'Sbp' });
    const orders = async () => (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_link_orders WHERE link_id = $1', [link.id])).rows[0]!.n;
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const { context, page, seen, status } = await open(link.path, { viewport });
      try {
        expect(status).toBe(200);
        expect(await page.locator('h1').textContent()).toBe('Payment to Coffee Corner');
        expect(await page.locator('#description').textContent()).toBe('Darjeeling, 250 g');
        expect(await page.locator('#amount').textContent()).toBe(formatAmount('en', '1500.50', 'RUB'));
        expect(await page.locator('#exact-amount').textContent()).toBe('1500.50 RUB');
        expect(await page.locator('.sandbox').isVisible()).toBe(true);
        const button = page.getByRole('button', { name: 'Continue to payment' });
        expect(await button.isVisible()).toBe(true);
        expect(await page.locator('#pay-form').getAttribute('method')).toBe('post');
        expect(await page.locator('#pay-form').getAttribute('action')).toBe(link.path);
        // the whole width of the column on a phone, as the payment page's own buttons
        const box = (await button.boundingBox())!;
        if (label === 'phone') expect(box.width).toBeGreaterThan(300);
        expect(box.height).toBeGreaterThanOrEqual(44);
        await commonChecks(page, seen);
        await screenshot(page, `link-open-${label}`);
      } finally {
        await context.close();
      }
    }
    expect(await orders()).toBe(0);

    // In Russian and without JavaScript: the button posts, and the payment page follows in Russian.
    const ru = await open(`${link.path}?lang=ru`, { js: false, viewport: PHONE });
    try {
      expect(await ru.page.getAttribute('html', 'lang')).toBe('ru');
      expect(await ru.page.locator('.summary .label').textContent()).toBe('Сумма к оплате');
      await screenshot(ru.page, 'link-open-ru-phone-nojs');
      await ru.page.getByRole('button', { name: 'Перейти к оплате' }).click();
      await ru.page.waitForURL(/\/pay\/ord_[0-9a-z]{26}\?lang=ru$/);
      expect(await ru.page.locator('#steps-h').textContent()).toContain('Как оплатить');
      expect(await ru.page.locator('#description').textContent()).toBe('Darjeeling, 250 g');
    } finally {
      await ru.context.close();
    }
    expect(await orders()).toBe(1);

    // Two more from this address: three open, so the page lists them instead of the button.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(h.origin + link.path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(res.status).toBe(303);
    }
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const busy = await open(link.path, { viewport });
      try {
        expect(busy.status).toBe(200);
        expect(await busy.page.locator('#state h2').textContent()).toBe('You already have payments open for this link');
        expect(await busy.page.locator('#pay-form').count()).toBe(0);
        expect(await busy.page.locator('#open-payments a').count()).toBe(3);
        await commonChecks(busy.page, busy.seen);
        await screenshot(busy.page, `link-busy-${label}`);
        if (label === 'desktop') {
          await busy.page.locator('#open-payments a').first().click();
          await busy.page.waitForURL(/\/pay\/ord_[0-9a-z]{26}$/);
          expect(await busy.page.locator('#description').textContent()).toBe('Darjeeling, 250 g');
        }
      } finally {
        await busy.context.close();
      }
    }
    expect(await orders()).toBe(3);

    // A link that nothing can serve (an approved merchant's Sbp desk, and no live provider for it): no button.
    const live = await provisionDesk(h.app, { merchant: { name: 'Tea Terrace', approve: true }, desk: { rails: ['Sbp'] } });
    const none = await createLink(h.ctx, live.merchantId, { amount: '990', currency: 'RUB', deskId: live.id, description: 'Sencha, 100 g', expiresAt: null, rail: null });
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const { context, page, seen, status } = await open(`${none.path}?lang=${label === 'phone' ? 'en' : 'tr'}`, { viewport });
      try {
        expect(status).toBe(503);
        expect(await page.locator('#state h2').textContent()).toBe(label === 'phone' ? 'Payment through this link is not possible right now' : 'Bu bağlantıyla şu anda ödeme yapılamıyor');
        expect(await page.locator('form').count()).toBe(0);
        expect(await page.locator('#description').textContent()).toBe('Sencha, 100 g');
        await commonChecks(page, answeredWith(seen, 503));
        await screenshot(page, `link-unavailable-${label}`);
      } finally {
        await context.close();
      }
    }
  }, SLOW);

  it('a live order’s page at desktop width starts the amount level with the instructions, with no test banner', async () => {
    const desk = await provisionDesk(h.app, { merchant: { name: 'Linden Books', approve: true }, desk: { rails: ['C2c'] } });
    const pool = await admin(h.app, 'POST', '/providers', {
      name: 'Pool of Linden Books',
      kind: 'pool',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: '2200 1500 0000 0077', holder: 'Platform' }],
    });
    expect(pool.statusCode, pool.body).toBe(201);
    try {
      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1234, currency: 'RUB', rail: 'C2c' }) });
      expect(res.statusCode, res.body).toBe(201);
      const { context, page, seen } = await open(`/pay/${json(res).result.id}`, { viewport: DESKTOP });
      try {
        expect(await page.locator('.sandbox').count()).toBe(0);
        const summary = (await page.locator('header.summary').boundingBox())!;
        const first = (await page.locator('main.pay > :not(.summary)').first().boundingBox())!;
        expect(Math.abs(summary.y - first.y)).toBeLessThan(2);
        expect(summary.x).toBeLessThan(first.x);
        await page.screenshot({ path: `${SCREENSHOTS}/pay-live-desktop.png`, fullPage: true });
        await commonChecks(page, seen);
      } finally {
        await context.close();
      }
    } finally {
      await admin(h.app, 'POST', `/providers/${json(pool).result.id}/pause`);
    }
  });

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

