import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json } from '../helpers/harness.js';
import { earnLiveMoney } from '../helpers/liveMoney.js';
import { DESKTOP, hasChromium, launch, PHONE, pageChecks as checkPage, serve, sharedFieldNames, sidewaysOverflow, watch, type Served } from './browser.js';

/*
 * Withdrawal requests in headless Chromium: an owner saves payout destinations (the form shows the
 * fields of the chosen kind; a bad checksum comes back beside the form with what was typed) and asks
 * for a withdrawal, which the withdrawals and balance pages show held; an admin pays one and
 * rejects another from the back office's queue. Every page passes axe at 390 and 1280 px, never
 * scrolls sideways, and keeps its lists' columns in view at 1280 px.
 */

let h: Served;
let browser: Browser;
const PASSWORD = 'correct horse battery staple';
const OPERATOR_PASSWORD = 'operator passphrase 2026';
let merchantId: string;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  const earned = await earnLiveMoney(h, { merchant: 'Samovar Trading', amountRub: 918_000 });
  merchantId = earned.desk.merchantId;
  expect((await admin(h.app, 'POST', `/merchants/${merchantId}/users`, { email: 'owner@samovar.example', password: PASSWORD, role: 'owner' })).statusCode).toBe(201);
  expect((await admin(h.app, 'POST', '/operators', { email: 'ada@paygate.example', password: OPERATOR_PASSWORD, role: 'admin' })).statusCode).toBe(201);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** Nothing scrolls sideways at 390 px; at 1280 px the cabinet's lists are tables with every column in view. */
async function layoutChecks(page: Page, name: string) {
  await page.setViewportSize(PHONE);
  expect(await sidewaysOverflow(page), `${name} at 390 px`).toBe(0);
  await page.setViewportSize(DESKTOP);
  expect(await sidewaysOverflow(page), `${name} at 1280 px`).toBe(0);
  const hidden = await page.evaluate(() => {
    const out: string[] = [];
    for (const table of Array.from(document.querySelectorAll<HTMLTableElement>('table.list, .rtable table'))) {
      if (getComputedStyle(table).display === 'block') out.push(`${table.id || table.caption?.textContent} is cards`);
      for (const th of Array.from(table.querySelectorAll<HTMLElement>('thead th'))) {
        const r = th.getBoundingClientRect();
        if (r.width < 8 || r.right > window.innerWidth) out.push(`column ${th.textContent} is not shown`);
      }
    }
    return out;
  });
  expect(hidden, `${name}: lists at 1280 px`).toEqual([]);
}

async function checks(page: Page, seen: ReturnType<typeof watch>, name: string) {
  await checkPage(page, seen, h.origin, name);
  await layoutChecks(page, name);
}

describe.skipIf(!hasChromium)('withdrawal requests in Chromium', () => {
  it('an owner saves destinations and asks for a withdrawal; an admin pays one and rejects another from the queue', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Istanbul' });
    const page = await context.newPage();
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-in`);
      await page.getByLabel('Email').fill('owner@samovar.example');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);

      await page.getByRole('link', { name: 'Balance', exact: true }).click();
      await page.getByRole('link', { name: /Request a withdrawal and manage payout destinations/ }).click();
      await page.waitForURL(`${h.origin}/cabinet/withdrawals`);
      expect(await page.locator('#available').textContent()).toBe('10,000.00 USD');
      await checks(page, seen, 'cabinet-withdrawals-empty');
      expect(await sharedFieldNames(page, '#new-destination')).toEqual([]);

      // The script shows the fields of the chosen kind only.
      const usdt = page.locator('fieldset[data-kinds="usdt-trc20 usdt-erc20"]');
      const bankFields = page.locator('fieldset[data-kinds=bank]');
      expect(await usdt.isVisible()).toBe(true);
      expect(await bankFields.isVisible()).toBe(false);
      await page.getByLabel('Bank account', { exact: true }).check();
      expect(await usdt.isVisible()).toBe(false);
      expect(await bankFields.isVisible()).toBe(true);
      await page.getByLabel(/^Label/).fill('Euro account');
      await page.getByLabel(/^IBAN/).fill('DE89 3704 0044 0532 0130 00');
      await page.getByLabel('Account holder').fill('Samovar Trading GmbH');
      await page.getByLabel(/^Bank/).fill('Commerzbank, COBADEFFXXX');
      await page.getByRole('button', { name: 'Save destination' }).click();
      await page.getByText('Payout destination saved.').waitFor();

      // A Tron address with one character wrong: refused beside the form, what was typed kept.
      await page.getByLabel('USDT on Tron (TRC-20)').check();
      await page.getByLabel(/^Label/).fill('Treasury wallet');
      await page.getByLabel(/^Address/).fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u');
      await page.getByRole('button', { name: 'Save destination' }).click();
      await page.locator('#destination-error').waitFor();
      expect(await page.locator('#destination-error').textContent()).toContain('fails its checksum');
      expect(await page.getByLabel(/^Address/).inputValue()).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u');
      expect(await page.getByLabel('USDT on Tron (TRC-20)').isChecked()).toBe(true);
      expect(seen.problems).toEqual([expect.stringContaining('status of 400')]);
      seen.problems.length = 0;
      await checks(page, seen, 'cabinet-destination-refused');
      await page.getByLabel(/^Address/).fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
      await page.getByRole('button', { name: 'Save destination' }).click();
      await page.getByText('Payout destination saved.').waitFor();
      expect(await page.locator('#destinations tbody tr').count()).toBe(2);

      // The request: held at once.
      await page.getByLabel(/^Amount, USD/).fill('2500.75');
      await page.getByLabel('Pay to').selectOption({ label: 'Treasury wallet (USDT on Tron (TRC-20))' });
      await checks(page, seen, 'cabinet-withdrawal-form');
      await page.getByRole('button', { name: 'Request withdrawal' }).click();
      await page.getByText('Withdrawal requested').waitFor();
      expect(await page.locator('#available').textContent()).toBe('7,499.25 USD');
      expect(await page.locator('#held').textContent()).toBe('2,500.75 USD');
      expect(await page.locator('#withdrawal-requests .badge').first().textContent()).toBe('Requested');
      h.clock.advance(60_000);
      await page.getByLabel(/^Amount, USD/).fill('120');
      await page.getByLabel('Pay to').selectOption({ label: 'Euro account (Bank account)' });
      await page.getByRole('button', { name: 'Request withdrawal' }).click();
      await page.getByText('Withdrawal requested').waitFor();
      await checks(page, seen, 'cabinet-withdrawals');

      await page.getByRole('link', { name: 'Balance', exact: true }).click();
      expect(await page.locator('#held').textContent()).toBe('2,620.75 USD');
      expect(await page.locator('#balance-withdrawals tbody tr').count()).toBe(2);
      await checks(page, seen, 'cabinet-balance-held');

      // The back office's queue: oldest first; an admin pays the first and rejects the second.
      const office = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
      const op = await office.newPage();
      const opSeen = watch(op);
      await op.goto(`${h.origin}/office/sign-in`);
      await op.getByLabel('Email').fill('ada@paygate.example');
      await op.getByLabel('Password').fill(OPERATOR_PASSWORD);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.waitForURL(`${h.origin}/office`);
      await op.getByRole('link', { name: /Withdrawals to pay/ }).click();
      await op.waitForURL(`${h.origin}/office/queues/withdrawals`);
      const items = op.locator('ul.queue > li');
      expect(await items.count()).toBe(2);
      expect(await items.first().textContent()).toContain('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
      expect(await items.nth(1).textContent()).toContain('DE89 3704 0044 0532 0130 00');
      await checks(op, opSeen, 'office-withdrawals');
      await items.first().getByLabel(/Transfer reference/).fill('5f1e0c9d2b7a4e38a1c6d0b9f2e7a4c1d8b3e6f09a2c5d7e1b4f8a3c6e9d0b2a');
      await items.first().getByRole('button', { name: 'Mark paid' }).click();
      await op.getByText('Withdrawal marked paid').waitFor();
      await op.locator('ul.queue > li').first().getByLabel(/Why not/).fill('We pay euro accounts from 500 USD: ask for it with your next withdrawal.');
      // The script asks before a danger button acts.
      op.once('dialog', (d) => void d.accept());
      await op.locator('ul.queue > li').first().getByRole('button', { name: 'Reject' }).click();
      await op.getByText('Withdrawal request rejected').waitFor();
      expect(await op.locator('ul.queue > li').count()).toBe(0);
      expect(await op.locator('table tbody tr').count()).toBe(2);
      await checks(op, opSeen, 'office-withdrawals-decided');
      await office.close();

      await page.goto(`${h.origin}/cabinet/withdrawals`);
      expect(await page.locator('#available').textContent()).toBe('7,499.25 USD');
      expect(await page.locator('#held').textContent()).toBe('0.00 USD');
      expect(await page.locator('#live').textContent()).toBe('7,499.25 USD');
      const badges = await page.locator('#withdrawal-requests .badge').allTextContents();
      expect(badges).toEqual(['Rejected', 'Paid']);
      await checks(page, seen, 'cabinet-withdrawals-decided');
      const requests = json(await admin(h.app, 'GET', `/withdrawal-requests?merchantId=${merchantId}`)).result.items;
      expect(requests.map((r: { status: string; amountUsd: string }) => [r.status, r.amountUsd])).toEqual([['rejected', '120.00000000'], ['paid', '2500.75000000']]);
    } finally {
      await context.close();
    }
  }, 180_000);
});
