import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../src/alerts/alerts.js';
import { admin } from '../helpers/harness.js';
import { card, credit, pools, sendCredit, type Pool } from '../integration/reconciliation/helpers.js';
import { DESKTOP, PHONE, hasChromium, launch, pageChecks as checkPage, serve, watch, type Served } from './browser.js';

/*
 * The alerts page of the back office in headless Chromium: an admin reads the open alerts (with
 * their count in the navigation), adds an email channel and a webhook channel (its secret shown
 * once), is refused a private address with the form kept, disables a channel, and reads the
 * resolved alerts; a support operator reads the page without the forms. axe-clean and nothing
 * sideways at 390 and 1280 px; screenshots when PAYGATE_SCREENSHOTS is set.
 */

const PASSWORD = 'operator passphrase 2026';
let h: Served;
let browser: Browser;
let p: Pool;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false', CALLBACK_ALLOWLIST: '' });
  for (const [email, role] of [['ada@paygate.example', 'admin'], ['sam@paygate.example', 'support']]) {
    expect((await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role })).statusCode).toBe(201);
  }
  p = await pools(h)([{ card: card(31), holder: 'Anna Karenina' }], { name: 'Platform pool' });
  await sendCredit(h, p, credit(h, card(31).replace(/ /g, ''), '1500.00'));
  await sendCredit(h, p, credit(h, card(31).replace(/ /g, ''), '275.50'));
  h.clock.advance(31 * 60_000);
  await evaluateAlerts(h.ctx);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

async function pageChecks(page: Page, seen: ReturnType<typeof watch>, name: string, status?: 400): Promise<void> {
  if (status) seen.problems.splice(0, seen.problems.length, ...seen.problems.filter((m) => !m.includes(`the server responded with a status of ${status}`)));
  await checkPage(page, seen, h.origin, `alerts-${name}`);
  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(over, `${name} scrolls sideways at ${label} width`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('the alerts page', () => {
  it('an admin reads the open alert, adds channels (a webhook\'s secret once), is refused a private address, disables one, and reads the resolved', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    const nav = page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /^Alerts/ });
    await expect(nav.textContent()).resolves.toMatch(/Alerts\s*1/);
    await nav.click();
    await page.waitForURL(`${h.origin}/office/alerts`);
    await expect(page.locator('#alerts tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#alerts').textContent()).resolves.toContain('2 credits of Platform pool unmatched for over 30 minutes');
    await expect(page.locator('#channels-empty').isVisible()).resolves.toBe(true);
    await pageChecks(page, seen, 'open');

    await page.getByLabel('Name').fill('Night desk');
    await page.getByLabel('Email address or webhook URL').fill('night@ops.example.test');
    await page.getByLabel('Language of the mails').selectOption('ru');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await expect(page.locator('.notice.ok').first().textContent()).resolves.toContain('Channel Night desk added');
    await expect(page.locator('#channels').textContent()).resolves.toContain('night@ops.example.test');

    await page.getByLabel('Webhook: signed JSON').check();
    await page.getByLabel('Name').fill('Inside');
    await page.getByLabel('Email address or webhook URL').fill('http://10.0.0.7/hook');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await expect(page.locator('#channel-error').textContent()).resolves.toMatch(/not allowed|private|10\.0\.0\.7/);
    await expect(page.getByLabel('Email address or webhook URL').inputValue()).resolves.toBe('http://10.0.0.7/hook');
    await pageChecks(page, seen, 'refused', 400);

    await page.getByLabel('Name').fill('Chat bot');
    await page.getByLabel('Email address or webhook URL').fill('https://hooks.example.com/paygate');
    await page.getByRole('button', { name: 'Add channel' }).click();
    const secret = await page.locator('#secret-value').textContent();
    expect(secret).toMatch(/^whs_[A-Za-z0-9_-]{43}$/);
    await pageChecks(page, seen, 'secret');
    // shown once: the next visit does not have it
    await page.goto(`${h.origin}/office/alerts`);
    expect(await page.content()).not.toContain(secret!);
    const channels = json2(await admin(h.app, 'GET', '/alert-channels'));
    expect(channels.map((c: any) => [c.kind, c.name, c.enabled])).toEqual([['email', 'Night desk', true], ['webhook', 'Chat bot', true]]);

    await page.locator(`#disable-${channels[0].id} button`).click();
    await page.waitForURL(/done=disabled/);
    await expect(page.locator('#channels').textContent()).resolves.toContain('disabled');

    // the queue worked: the alert resolves
    const queue = json2(await admin(h.app, 'GET', `/credits?providerId=${p.id}&status=unmatched`)).items;
    await admin(h.app, 'POST', '/credits/ignore', { ids: queue.map((c: any) => c.id), reason: 'test money' });
    await evaluateAlerts(h.ctx);
    await page.goto(`${h.origin}/office/alerts`);
    await expect(page.locator('#alerts-empty').isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'Resolved' }).click();
    await expect(page.locator('#alerts tbody tr').count()).resolves.toBe(1);
    await pageChecks(page, seen, 'resolved');
    await context.close();
  });

  it('a support operator reads alerts and channels, without the forms', async () => {
    const { context, page, seen } = await signIn('sam@paygate.example');
    await page.goto(`${h.origin}/office/alerts`);
    await expect(page.locator('#channels').textContent()).resolves.toContain('Chat bot');
    await expect(page.locator('#channel-form').count()).resolves.toBe(0);
    await expect(page.locator('#channels button').count()).resolves.toBe(0);
    await pageChecks(page, seen, 'support');
    await context.close();
  });
});

const json2 = (res: { body: string }) => JSON.parse(res.body).result;
