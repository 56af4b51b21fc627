import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../src/providers/providerMessages.js';
import { admin, json } from '../helpers/harness.js';
import { card, pools, type Pool } from '../integration/reconciliation/helpers.js';
import { DESKTOP, PHONE, hasChromium, launch, pageChecks as checkPage, serve, watch, type Served } from './browser.js';

/*
 * Device messages in the back office, in headless Chromium: an admin finds an unread message by
 * the navigation's count, makes a template from it with the preview (a form post, no script
 * needed), saves it, tries the templates on a text, enters another message's money by hand and
 * reads the pool's devices. Every page passes axe and scrolls no sideways at 390 px; each is
 * screenshotted at both widths when PAYGATE_SCREENSHOTS is set.
 */

const PASSWORD = 'operator passphrase 2026';
let h: Served;
let browser: Browser;
let p: Pool;
let dev: any;

/** Messages through the signed endpoint, as a phone's relay sends them. */
async function forward(messages: unknown[]): Promise<any[]> {
  const raw = JSON.stringify({ messages });
  const headers = signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw);
  const res = await h.app.inject({ method: 'POST', url: `/providers/v1/${p.id}/messages`, headers: { 'content-type': 'application/json', ...headers }, payload: raw });
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result.messages;
}

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  expect((await admin(h.app, 'POST', '/operators', { email: 'ada@paygate.example', password: PASSWORD, role: 'admin' })).statusCode).toBe(201);
  p = await pools(h)([{ card: card(21), holder: 'Anna K', bank: 'Bank X' }], { name: 'Phones pool' });
  dev = json(await admin(h.app, 'POST', `/providers/${p.id}/devices`, { name: 'Redmi 12', requisiteIds: [p.requisites[0].id] })).result;
  const at = new Date(h.clock.now()).toISOString();
  const r = await forward([
    { id: 'm-1', deviceId: dev.id, sender: 'BANKX', text: 'BANK X: +1 250,00 RUB received from IVAN P. Card *0021. Balance 9 000,00 RUB', receivedAt: at },
    { id: 'm-2', deviceId: dev.id, sender: 'BANKY', text: 'Вам перевели 3 400 ₽ — Мария С. (Bank Y)', receivedAt: at },
  ]);
  expect(r.map((x) => x.outcome)).toEqual(['unread', 'unread']);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill('ada@paygate.example');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

async function pageChecks(page: Page, seen: ReturnType<typeof watch>, name: string, status?: 400): Promise<void> {
  if (status) seen.problems.splice(0, seen.problems.length, ...seen.problems.filter((m) => !m.includes(`status of ${status}`)));
  await checkPage(page, seen, h.origin, `messages-${name}`);
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${name} scrolls sideways`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('device messages in Chromium', () => {
  it('an admin makes a template from an unread message with its preview, then credits another by hand', async () => {
    const { context, page, seen } = await signIn();
    try {
      const nav = page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /Unread messages/ });
      expect(await nav.textContent()).toContain('2');
      await nav.click();
      await page.waitForURL(`${h.origin}/office/messages`);
      await pageChecks(page, seen, 'unread');

      // A template from the first message: the form comes pre-filled, the preview reads the amount.
      await page.locator('li.card', { hasText: 'BANK X' }).getByRole('link', { name: 'Make a template from it' }).click();
      await page.waitForURL(/\/office\/message-templates\/new\?from=msg_/);
      expect(await page.getByLabel('Text pattern').inputValue()).toContain('(?<amount>');
      await page.getByLabel('Text pattern').fill('received from (?<payer>[A-Z .]+?)\\. Card (?<account>\\*\\d{4})');
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.locator('#try-result').waitFor();
      expect(await page.locator('#try-result').innerText()).toContain('unread');
      await pageChecks(page, seen, 'template-preview-problem');
      await page.getByLabel('Text pattern').fill('\\+(?<amount>[\\d ,]+) (?<currency>RUB) received from (?<payer>[A-Z .]+?)\\. Card (?<account>\\*\\d{4})');
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.locator('#try-result').waitFor();
      const preview = await page.locator('#try-result').innerText();
      expect(preview).toContain('a credit');
      expect(preview).toContain('1250.00 RUB');
      expect(preview).toContain('*0021');
      await pageChecks(page, seen, 'template-preview');
      // The preview follows the typing (office.js posts the same form): another sample, no click.
      await page.getByLabel('Message text').fill('BANK X: +77,50 RUB received from OLGA T. Card *0021. Balance 1 RUB');
      await page.locator('#try-result', { hasText: '77.50 RUB' }).waitFor();
      await page.getByLabel('Message text').fill('BANK X: +1 250,00 RUB received from IVAN P. Card *0021. Balance 9 000,00 RUB');
      await page.locator('#try-result', { hasText: '1250.00 RUB' }).waitFor();
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText('Template saved').waitFor();
      await pageChecks(page, seen, 'templates');

      // Trying a text on the list page: the new template reads it.
      await page.getByLabel('Sender').first().fill('BANKX');
      await page.getByLabel('Message text').fill('BANK X: +990,00 RUB received from OLGA T. Card *0021. Balance 1 RUB');
      await page.getByRole('button', { name: 'Try' }).click();
      await page.locator('#try-result').waitFor();
      expect(await page.locator('#try-result').innerText()).toContain('990.00 RUB');
      await pageChecks(page, seen, 'templates-try');

      // The second message's money entered by hand.
      await page.goto(`${h.origin}/office/messages`);
      const second = page.locator('li.card', { hasText: 'Мария' });
      await second.getByText('Enter the credit by hand').click();
      await second.getByLabel('Account it arrived on').fill(card(21));
      await second.getByLabel('Amount').fill('3 400');
      await second.getByLabel('Currency').fill('₽');
      await second.getByRole('button', { name: 'Record the credit' }).click();
      await page.getByText('Credit recorded').waitFor();
      const credits = json(await admin(h.app, 'GET', `/credits?providerId=${p.id}`)).result.items;
      expect(credits.map((c: any) => [c.amount, c.currency, c.source])).toContainEqual(['3400.00', 'RUB', 'operator']);
      await pageChecks(page, seen, 'unread-after');

      // The pool's devices.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      await page.getByRole('link', { name: 'Devices' }).click();
      await page.waitForURL(`${h.origin}/office/pools/${p.id}/devices`);
      expect(await page.locator('#devices').innerText()).toContain('Redmi 12');
      await pageChecks(page, seen, 'devices');
    } finally {
      await context.close();
    }
  }, 180_000);
});
