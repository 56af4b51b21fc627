import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json } from '../helpers/harness.js';
import { DESKTOP, hasChromium, launch, pageChecks as checkPage, serve, watch, type Served } from './browser.js';
import { OFFICE_PASSWORD, seedOffice } from './officeData.js';

/*
 * The back office in headless Chromium: an admin accepts an appeal from the queue and the merchant
 * is credited; a support operator sees no approve button and is refused (403) when posting it;
 * axe on every main page at phone and desktop widths. Screenshots for the docs come from
 * tools/office-screenshots.ts, not from this run.
 */

let h: Served;
let browser: Browser;
let seed: Awaited<ReturnType<typeof seedOffice>>;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  seed = await seedOffice(h);
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(OFFICE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

const pageChecks = (page: Page, seen: ReturnType<typeof watch>, name: string) => checkPage(page, seen, h.origin, `office-${name}`);

const balance = async (merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available as string;

describe.skipIf(!hasChromium)('back office in Chromium', () => {
  it('an admin accepts an appeal from the queue and the merchant is credited; every main page passes axe', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      expect(await page.locator('#chart-statuses svg').count()).toBe(1);
      await pageChecks(page, seen, 'dashboard');

      await page.getByRole('link', { name: /Open appeals/ }).click();
      const before = await balance(seed.shop.merchantId);
      const card = page.locator(`#appeal-${seed.appeals[0]}`);
      expect(await card.getByText('Overdue').isVisible()).toBe(true);
      await pageChecks(page, seen, 'appeals');
      await card.getByLabel(/Comment/).fill('Statement matches the order');
      await card.getByRole('button', { name: 'Accept' }).click();
      await page.getByText('Appeal accepted').waitFor();
      expect(Number(await balance(seed.shop.merchantId))).toBeGreaterThan(Number(before));
      expect(await page.locator(`#appeal-${seed.appeals[0]}`).count()).toBe(0);
      const audit = json(await admin(h.app, 'GET', `/audit?objectId=${seed.appeals[0]}`)).result.items;
      expect(audit[0]).toMatchObject({ actor: seed.adminOp.id, action: 'appeal.accept', outcome: 'ok' });

      await page.getByRole('link', { name: /Payments to confirm/ }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('Payment confirmed').waitFor();

      await page.goto(`${h.origin}/office/merchants/${seed.shop.merchantId}`);
      await pageChecks(page, seen, 'merchant');
      await page.goto(`${h.origin}/office/providers`);
      await pageChecks(page, seen, 'providers');
      await page.goto(`${h.origin}/office/orders?q=UTR410233778812`);
      await page.getByRole('link', { name: seed.payedOrder }).click();
      expect(await page.locator('time + .muted').first().textContent()).toContain('local');
      await pageChecks(page, seen, 'order');
      for (const path of ['queues/review', 'rates']) {
        await page.goto(`${h.origin}/office/${path}`);
        await pageChecks(page, seen, path.replace('/', '-'));
      }
    } finally {
      await context.close();
    }
  }, 120_000);

  it('a support operator sees no approve button and posting approve answers 403', async () => {
    const { context, page } = await signIn('sam@paygate.example');
    try {
      await page.goto(`${h.origin}/office/queues/review`);
      expect(await page.getByText('Tea House').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      const csrf = await page.locator('input[name=_csrf]').first().inputValue();
      const tea = json(await admin(h.app, 'GET', '/merchants?status=UnderReview')).result.items.find((m: { name: string }) => m.name === 'Tea House');
      const res = await page.request.post(`${h.origin}/office/merchants/${tea.id}/approve`, { form: { _csrf: csrf } });
      expect(res.status()).toBe(403);
      expect(json(await admin(h.app, 'GET', `/merchants/${tea.id}`)).result.status).toBe('UnderReview');
    } finally {
      await context.close();
    }
  }, 60_000);
});
