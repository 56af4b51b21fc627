import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json, signed } from '../helpers/harness.js';
import { createdDesk, DESKTOP, fillClassicDeskForm, hasChromium, launch, pageChecks, PHONE, serve, sidewaysOverflow, watch, type Served } from './browser.js';

/*
 * Test desks in headless Chromium: an approved merchant chooses the test mode on the cabinet's
 * new-desk form, and the desk's pages, the list and the credentials say it is a test desk; its
 * order is a test order the cabinet pays by simulation. An operator does the same from the back
 * office's merchant page. Every page checked with axe at phone and desktop widths (screenshots
 * kept with PAYGATE_SCREENSHOTS set), none scrolling sideways at 390 px.
 */

let h: Served;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  // An approved merchant's desks need a tariff: the default one.
  await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '2' }], default: true });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function checks(page: Page, seen: ReturnType<typeof watch>, name: string): Promise<void> {
  await pageChecks(page, seen, h.origin, `test-desk-${name}`);
  await page.setViewportSize(PHONE);
  expect(await sidewaysOverflow(page), `${name} scrolls sideways at 390 px`).toBe(0);
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('test desks in Chromium', () => {
  it('an approved merchant creates a test desk from the form; its pages say so; its order is paid by simulation', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    // A step that cannot happen fails in seconds, naming what it waited for.
    page.setDefaultTimeout(10_000);
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-up`);
      await page.getByLabel('Company name').fill('Live Tea Shop');
      await page.getByLabel('Work email').fill('owner@livetea.example');
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);
      const merchants = json(await admin(h.app, 'GET', '/merchants')).result.items as { id: string; name: string }[];
      const merchantId = merchants.find((m) => m.name === 'Live Tea Shop')!.id;
      expect((await admin(h.app, 'POST', `/merchants/${merchantId}/approve`)).statusCode).toBe(200);

      await page.goto(`${h.origin}/cabinet/desks`);
      const mode = page.getByRole('group', { name: /Mode/ });
      const liveChoice = mode.getByLabel(/Live: real payments/);
      const testChoice = mode.getByLabel(/Test: always test orders/);
      // Live unless chosen: a new desk never turns a shop's traffic into test orders by accident.
      expect(await liveChoice.isChecked()).toBe(true);
      expect(await testChoice.isChecked()).toBe(false);
      await page.getByLabel('Name', { exact: false }).first().fill('Staging');
      await testChoice.check();
      await fillClassicDeskForm(page, 'https://livetea.example/paygate');
      await checks(page, seen, 'form');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      const desk = await createdDesk(page);
      expect(await page.locator('h1 .badge', { hasText: 'Test desk' }).isVisible()).toBe(true);
      expect(await page.locator('#test-desk-notice').textContent()).toContain('Never ship goods for them');
      await checks(page, seen, 'created');
      expect(json(await admin(h.app, 'GET', `/desks/${desk.id}`)).result).toMatchObject({ name: 'Staging', sandbox: true });

      await page.goto(`${h.origin}/cabinet/desks/${desk.id}`);
      expect(await page.locator('h1 .badge', { hasText: 'Test desk' }).isVisible()).toBe(true);
      expect(await page.locator('#desk-mode-value').textContent()).toBe('Test desk: sandbox orders only (fixed for life)');
      // Its settings form offers no mode to change.
      expect(await page.locator('#edit-desk input[name=sandbox]').count()).toBe(0);
      await checks(page, seen, 'page');

      await page.goto(`${h.origin}/cabinet/desks`);
      const row = page.locator('table.list tbody tr', { hasText: 'Staging' });
      expect(await row.locator('.badge', { hasText: 'Test desk' }).isVisible()).toBe(true);
      await checks(page, seen, 'list');

      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp' }) });
      expect(res.statusCode, res.body).toBe(201);
      const order = json(res).result;
      expect(order).toMatchObject({ sandbox: true, payPageUrl: `${h.origin}/pay/${order.id}` });
      await page.goto(`${h.origin}/cabinet/orders/${order.id}`);
      await page.getByRole('button', { name: /Simulate/ }).click();
      await page.waitForURL(/done=simulated/);
      expect(json(await signed(h, desk, `/gw/v1/orders/${order.id}`)).result).toMatchObject({ status: 'Completed', sandbox: true });
      expect(json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance).toMatchObject({ mode: 'live', live: '0.00000000', sandbox: '9.80000000' });
    } finally {
      await context.close();
    }
  }, 120_000);

  it("an operator creates a test desk from the merchant's page; the merchant's desk table and the desk's page mark it", async () => {
    const email = 'desks@paygate.example';
    const password = 'operator passphrase 2026';
    expect((await admin(h.app, 'POST', '/operators', { email, password, role: 'admin' })).statusCode).toBe(201);
    const m = json(await admin(h.app, 'POST', '/merchants', { name: 'Office Tea Shop' })).result;
    expect((await admin(h.app, 'POST', `/merchants/${m.id}/approve`)).statusCode).toBe(200);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/office/sign-in`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${h.origin}/office`);

      await page.goto(`${h.origin}/office/merchants/${m.id}`);
      await page.locator('#new-desk-details summary').click();
      const form = page.locator('#new-desk');
      await form.getByLabel('Name (optional)').fill('Office staging');
      expect(await form.getByLabel(/Live: follows the merchant/).isChecked()).toBe(true);
      await form.getByLabel(/Test: sandbox orders only/).check();
      await form.locator('fieldset[data-method=Classic]').getByLabel('Sbp').check();
      await form.locator('input[name=currencies][value=RUB]').check();
      await checks(page, seen, 'office-form');
      await form.getByRole('button', { name: 'Create the desk' }).click();
      await page.locator('#desk-secret').waitFor();
      const id = (await page.locator('#desk-id').textContent())!.trim();
      expect(json(await admin(h.app, 'GET', `/desks/${id}`)).result).toMatchObject({ name: 'Office staging', sandbox: true });

      await page.goto(`${h.origin}/office/desks/${id}`);
      expect(await page.locator('h1 .badge', { hasText: 'Test desk' }).isVisible()).toBe(true);
      expect(await page.locator('#desk-mode').textContent()).toContain('Test desk: its orders are sandbox orders');
      await checks(page, seen, 'office-desk');

      await page.goto(`${h.origin}/office/merchants/${m.id}`);
      const row = page.locator('tr', { hasText: 'Office staging' });
      expect(await row.locator('.badge', { hasText: 'Test desk' }).isVisible()).toBe(true);
      await checks(page, seen, 'office-merchant');
    } finally {
      await context.close();
    }
  }, 120_000);
});
