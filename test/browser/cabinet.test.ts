import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json, signed } from '../helpers/harness.js';
import { createdDesk, DESKTOP, fillClassicDeskForm, hasChromium, launch, pageChecks as checkPage, serve, watch, type Served } from './browser.js';

/*
 * The merchant cabinet in headless Chromium: from sign-up to the first simulated payment with
 * the real forms, cookies and redirects; accessibility (axe) of every page on the way; screenshots
 * of the main pages at phone and desktop widths.
 */

let h: Served;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve();
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const pageChecks = (page: Page, seen: ReturnType<typeof watch>, name: string) => checkPage(page, seen, h.origin, `cabinet-${name}`);

describe.skipIf(!hasChromium)('merchant cabinet in Chromium', () => {
  it('signs up, creates a desk, takes a signed order and simulates its payment', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Almaty' });
    const page = await context.newPage();
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-up`);
      await pageChecks(page, seen, 'sign-up');
      await page.getByLabel('Company name').fill('Coffee Corner');
      await page.getByLabel('Work email').fill('owner@coffee.example');
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);
      expect(await page.locator('h1').textContent()).toBe('Coffee Corner');
      await pageChecks(page, seen, 'home-new');

      await page.getByRole('link', { name: 'Cash desks' }).click();
      // the script shows only the chosen method's rails
      await page.selectOption('select[name=method]', 'CrossBorder');
      expect(await page.locator('fieldset[data-method=Classic]').isVisible()).toBe(false);
      await page.selectOption('select[name=method]', 'Classic');
      expect(await page.locator('fieldset[data-method=CrossBorder]').isVisible()).toBe(false);
      await fillClassicDeskForm(page, 'https://coffee.example/paygate');
      await pageChecks(page, seen, 'desks');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      const desk = await createdDesk(page);
      expect(desk.id).toMatch(/^dsk_/);
      expect(await page.getByRole('button', { name: 'Copy the secret' }).isVisible()).toBe(true);
      await pageChecks(page, seen, 'desk-created');

      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1500.5, rail: 'Sbp', orderRef: 'first-order' }) });
      expect(res.statusCode, res.body).toBe(201);
      const orderId = json(res).result.id as string;

      await page.goto(`${h.origin}/cabinet/desks/${desk.id}`);
      expect(await page.getByText('Taking orders').isVisible()).toBe(true);
      await pageChecks(page, seen, 'desk');

      await page.getByRole('link', { name: 'Orders', exact: true }).click();
      await pageChecks(page, seen, 'orders');
      await page.getByRole('link', { name: orderId }).click();
      await page.getByRole('button', { name: 'Simulate payment' }).click();
      await page.getByText('Payment simulated').waitFor();
      expect(await page.locator('h1 .badge').first().textContent()).toBe('Completed');
      // the script writes the local time beside the UTC one
      expect(await page.locator('time + .muted').first().textContent()).toContain('local');
      await pageChecks(page, seen, 'order');

      expect(json(await signed(h, desk, `/gw/v1/orders/${orderId}`)).result.status).toBe('Completed');
      await page.goto(`${h.origin}/cabinet`);
      expect(await page.locator('.checklist li.done').count()).toBeGreaterThanOrEqual(4);
      await pageChecks(page, seen, 'home');

      const download = page.waitForEvent('download');
      await page.goto(`${h.origin}/cabinet/orders`);
      await page.getByRole('link', { name: 'Export CSV' }).click();
      const csv = await (await download).path();
      const text = (await import('node:fs')).readFileSync(csv!, 'utf8');
      expect(text.split('\r\n')[0]).toBe('id,orderRef,createdAt,status,amount,currency,rate,settledUsd,commissionUsd,creditedUsd,deskId,method,rail,payerReference,finishedAt');
      expect(text).toContain(`${orderId},first-order,`);

      // an appeal with a real file input: a cancelled order, the form on its page, the receipt kept
      const cancelled = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 990, rail: 'Sbp', orderRef: 'paid-late' }) })).result.id as string;
      expect((await signed(h, desk, `/gw/v1/orders/${cancelled}/cancel`, { body: '{}' })).statusCode).toBeLessThan(300);
      await page.goto(`${h.origin}/cabinet/orders/${cancelled}`);
      await page.getByLabel(/What happened/).fill('Paid at 12:05 from Sberbank, the order had expired');
      await page.getByLabel(/Evidence links/).fill('https://bank.example/statement/1');
      const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
      await page.getByLabel(/Receipt/).setInputFiles({ name: 'statement.pdf', mimeType: 'application/pdf', buffer: png });
      await pageChecks(page, seen, 'order-appeal-form');
      await page.getByRole('button', { name: 'Open appeal' }).click();
      await page.getByText('Appeal opened').waitFor();
      expect(await page.locator('h1 .badge').textContent()).toBe('Open');
      expect(await page.getByText('image/png').isVisible()).toBe(true);
      await pageChecks(page, seen, 'appeal');
      expect(json(await signed(h, desk, `/gw/v1/orders/${cancelled}`)).result.status).toBe('Dispute');
      await page.getByRole('link', { name: 'Appeals', exact: true }).click();
      await pageChecks(page, seen, 'appeals');

      await page.getByRole('link', { name: 'Balance', exact: true }).click();
      expect(await page.locator('svg[role=img]').isVisible()).toBe(true);
      expect(await page.locator('.visually-hidden caption').textContent()).toContain('Turnover and credits');
      await pageChecks(page, seen, 'balance');

      await page.getByRole('link', { name: 'Callbacks', exact: true }).click();
      await pageChecks(page, seen, 'callbacks');

      await page.getByRole('link', { name: 'Account' }).click();
      expect(await page.getByText('this browser').isVisible()).toBe(true);
      await pageChecks(page, seen, 'account');
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      expect(await page.getByRole('img', { name: /QR code of the two-factor secret/ }).isVisible()).toBe(true);
      await pageChecks(page, seen, 'two-factor');

      await page.locator('header').getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${h.origin}/cabinet/sign-in`);
      await pageChecks(page, seen, 'sign-in');
    } finally {
      await context.close();
    }
  }, 120_000);
});
