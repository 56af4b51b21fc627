import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json } from '../helpers/harness.js';
import { DESKTOP, hasChromium, launch, PHONE, pageChecks as checkPage, serve, sharedFieldNames, watch, type Served } from './browser.js';
import { OFFICE_PASSWORD, seedOffice } from './officeData.js';

/*
 * The back office in headless Chromium: an admin accepts an appeal from the queue and the merchant
 * is credited; sets a tariff, a desk and an operator from their forms; every page passes axe, never
 * scrolls sideways at 390 px, and shows every column of its lists at 1280 px (a list that does not
 * fit its box is one card per row, never a table scrolling inside its box); a support operator sees
 * no approve button and is refused (403) when posting it. Screenshots for the docs come from
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
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(OFFICE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

/** Two animation frames: the script's resize observer has switched lists to cards or back. */
const settled = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * What the layout must hold at one width: the page does not scroll sideways, no element scrolls
 * sideways inside it, and every list is a table whose columns fit its box or one card per row.
 * Returns the lists shown as tables (by caption) and as cards.
 */
async function layout(page: Page, label: string) {
  await settled(page);
  const r = await page.evaluate(() => {
    const doc = document.documentElement;
    const scrolling = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => {
        const cs = getComputedStyle(el);
        return (cs.overflowX === 'auto' || cs.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1;
      })
      .map((el) => `${el.tagName}.${el.className}`);
    const lists = [...document.querySelectorAll<HTMLElement>('.rtable')].map((box) => {
      const table = box.querySelector('table')!;
      const cards = getComputedStyle(table).display === 'block';
      return { caption: table.caption?.textContent ?? '', cards, overflow: table.scrollWidth > box.clientWidth + 1 || box.getBoundingClientRect().right > doc.clientWidth + 1 };
    });
    return { pageWidth: doc.scrollWidth, viewport: window.innerWidth, scrolling, lists };
  });
  expect(r.pageWidth, `${label}: the page scrolls sideways`).toBeLessThanOrEqual(r.viewport);
  expect(r.scrolling, `${label}: an element scrolls sideways`).toEqual([]);
  expect(r.lists.filter((l) => l.overflow).map((l) => l.caption), `${label}: a list wider than its box`).toEqual([]);
  return { tables: r.lists.filter((l) => !l.cards).map((l) => l.caption), cards: r.lists.filter((l) => l.cards).map((l) => l.caption) };
}

/** axe, CSP and script checks at both widths (browser.ts), and the layout rules at each. */
async function pageChecks(page: Page, seen: ReturnType<typeof watch>, name: string, o: { desktopTables?: string[] } = {}) {
  await checkPage(page, seen, h.origin, `office-${name}`);
  await page.setViewportSize(PHONE);
  await layout(page, `${name} at 390 px`);
  await page.setViewportSize(DESKTOP);
  const desk = await layout(page, `${name} at 1280 px`);
  // The page's main lists keep every column visible as a table at desktop width.
  for (const caption of o.desktopTables ?? []) expect(desk.tables, `${name}: ${caption} is a table at 1280 px`).toContain(caption);
}

const balance = async (merchantId: string) => json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available as string;

describe.skipIf(!hasChromium)('back office in Chromium', () => {
  it('an admin accepts an appeal from the queue and the merchant is credited; every page passes axe and keeps its lists in view', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      expect(await page.locator('#chart-statuses svg').count()).toBe(1);
      expect(await page.locator('h1').textContent()).toBe('Live dashboard');
      await pageChecks(page, seen, 'dashboard');
      await page.getByRole('link', { name: 'Sandbox' }).click();
      await page.waitForURL(`${h.origin}/office?mode=sandbox`);
      expect(await page.locator('h1').textContent()).toBe('Sandbox dashboard');
      await pageChecks(page, seen, 'dashboard-sandbox');
      // The navigation keeps the mode: the orders list opens on sandbox orders.
      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Orders' }).click();
      expect(await page.locator('h1').textContent()).toBe('Sandbox orders');
      await pageChecks(page, seen, 'orders-sandbox', { desktopTables: ['Sandbox orders'] });

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
      await pageChecks(page, seen, 'payed');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('Payment confirmed').waitFor();

      const pages: [string, string, string[]][] = [
        ['merchants', '/office/merchants', ['Merchants']],
        ['merchant', `/office/merchants/${seed.shop.merchantId}`, []],
        ['merchant-warnings', `/office/merchants/${seed.korea.merchantId}`, []],
        ['desk', `/office/desks/${seed.shop.id}`, []],
        ['orders', '/office/orders?amountMin=100', ['Live orders']],
        ['order', `/office/orders/${seed.liveOrder}`, []],
        ['appeal-list', '/office/appeals?mode=sandbox', ['Appeals']],
        ['appeal', `/office/appeals/${seed.appeals[1]}`, []],
        ['providers', '/office/providers', []],
        ['rates', '/office/rates', ['Rates']],
        ['tariffs', '/office/tariffs', ['Tariffs']],
        ['tariff', `/office/tariffs/${seed.tariffId}`, []],
        ['caps', '/office/caps', ['Turnover caps']],
        ['operators', '/office/operators', ['Operators']],
        ['audit', '/office/audit', ['Audit entries']],
        ['queues-review', '/office/queues/review', ['Merchants under review']],
        ['queues-reconcile', '/office/queues/reconcile', []],
        ['queues-callbacks', '/office/queues/callbacks', []],
        ['two-factor', '/office/two-factor?setup=1', []],
      ];
      for (const [name, path, tables] of pages) {
        await page.goto(`${h.origin}${path}`);
        await pageChecks(page, seen, name, { desktopTables: tables });
      }

      await page.goto(`${h.origin}/office/merchants/${seed.korea.merchantId}`);
      expect(await page.locator('#live-warnings li').count()).toBe(1);
      // An order from a payment link shows the link's description.
      await page.goto(`${h.origin}/office/orders/${seed.linkOrder}`);
      expect(await page.locator('#order-description').textContent()).toBe('Espresso beans, 1 kg');
      await pageChecks(page, seen, 'order-link');
      // The back office's charts keep readable labels on a phone.
      await page.goto(`${h.origin}/office`);
      await page.setViewportSize(PHONE);
      const label = await page.locator('.chart-label').first().evaluate((el) => el.getBoundingClientRect().height);
      expect(label, 'chart labels on a phone').toBeGreaterThanOrEqual(10.5);
      await page.setViewportSize(DESKTOP);
      await page.goto(`${h.origin}/office/orders?q=UTR410233778812`);
      await page.getByRole('link', { name: seed.payedOrder }).click();
      await page.locator('h1 code').waitFor();
      expect(await page.locator('time + .muted').first().textContent()).toContain('local');
      // Ids come with a copy button that puts exactly the id on the clipboard.
      await page.getByRole('button', { name: `Copy the order id ${seed.payedOrder}` }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(seed.payedOrder);
    } finally {
      await context.close();
    }
  }, 420_000);

  it('an admin creates a tariff, a desk with its secret and an operator from their forms', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      await page.goto(`${h.origin}/office/tariffs`);
      // Every field of the band rows has a name of its own, and the fields post under the API's names.
      expect(await sharedFieldNames(page, '#new-tariff')).toEqual([]);
      await page.getByLabel('Name').fill('Marketplace');
      await page.getByLabel('Band 1: From (USD)').fill('0');
      await page.getByLabel('Band 1: To (USD)').fill('250');
      await page.getByLabel('Band 1: Fee (%)').fill('4');
      await page.getByLabel('Band 2: From (USD)').fill('250');
      await page.getByLabel('Band 2: Fee (%)').fill('3.25');
      expect(await page.getByLabel('Band 2: Fee (%)').getAttribute('name')).toBe('ratePercent2');
      expect(await page.getByLabel('Band 1: Fee (%)').getAttribute('name')).toBe('ratePercent');
      await page.getByRole('button', { name: 'Create the tariff' }).click();
      await page.getByText('Tariff created.').waitFor();
      expect(await sharedFieldNames(page, 'form')).toEqual([]);
      await pageChecks(page, seen, 'tariff-created');
      const tariff = json(await admin(h.app, 'GET', '/tariffs')).result.items.find((t: { name: string }) => t.name === 'Marketplace');
      expect(tariff.bands).toEqual([
        { fromUsd: '0.00000000', toUsd: '250.00000000', ratePercent: '4.0000' },
        { fromUsd: '250.00000000', toUsd: null, ratePercent: '3.2500' },
      ]);

      await page.goto(`${h.origin}/office/merchants/${seed.live.merchantId}`);
      await page.getByText(/New cash desk for/).click();
      await page.locator('#desk-name').fill('Mobile app');
      await page.locator('#desk-method').selectOption('CrossBorder');
      // The script shows the chosen method's rails only.
      expect(await page.locator('fieldset[data-method="Classic"]').isHidden()).toBe(true);
      await page.locator('fieldset[data-method="CrossBorder"]').getByLabel('Upi').check();
      await page.locator('#new-desk input[name=currencies][value=INR]').check();
      await page.locator('#desk-tariff').selectOption(tariff.id);
      await pageChecks(page, seen, 'merchant-new-desk');
      await page.getByRole('button', { name: 'Create the desk' }).click();
      await page.locator('#desk-secret').waitFor();
      await pageChecks(page, seen, 'desk-created');
      const deskId = (await page.locator('#desk-id').textContent())!;
      expect(json(await admin(h.app, 'GET', `/desks/${deskId}`)).result).toMatchObject({ name: 'Mobile app', method: 'CrossBorder', rails: ['Upi'], currencies: ['INR'], tariffId: tariff.id });

      await page.goto(`${h.origin}/office/operators`);
      await page.getByLabel('Email').fill('grace@paygate.example');
      await page.getByLabel(/^Password/).fill('another long passphrase 9');
      await page.getByLabel('Role').selectOption('admin');
      await page.getByRole('button', { name: 'Create the operator' }).click();
      await page.getByText('Operator created').waitFor();
      await pageChecks(page, seen, 'operators-created', { desktopTables: ['Operators'] });
      expect(json(await admin(h.app, 'GET', '/operators')).result.items.find((o: { email: string }) => o.email === 'grace@paygate.example')).toMatchObject({ role: 'admin', disabled: false });

      await page.goto(`${h.origin}/office/providers`);
      expect(await sharedFieldNames(page, '#new-provider')).toEqual([]);
      await page.getByLabel('Name', { exact: true }).fill('Second pool');
      await page.getByLabel('Capability 1: Method').selectOption('Classic');
      await page.getByLabel('Capability 1: Rail').selectOption('C2c');
      await page.getByLabel('Capability 1: Currency').fill('RUB');
      expect(await page.getByLabel('Capability 2: Currency').getAttribute('name')).toBe('currency2');
      await page.locator('#req-card').fill('2200700012345678');
      await page.getByRole('button', { name: 'Add the provider' }).click();
      await page.locator('#provider-secret').waitFor();
      await pageChecks(page, seen, 'provider-created');
    } finally {
      await context.close();
    }
  }, 300_000);

  it('the sign-in page passes the same checks as every other page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const page = await context.newPage();
      const seen = watch(page);
      await page.goto(`${h.origin}/office/sign-in`);
      await pageChecks(page, seen, 'sign-in');
    } finally {
      await context.close();
    }
  }, 60_000);

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
