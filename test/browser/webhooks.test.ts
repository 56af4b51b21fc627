import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WebhookSender } from '../../src/callbacks/webhookSender.js';
import { admin, json, signed } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createdDesk, DESKTOP, fillClassicDeskForm, hasChromium, launch, pageChecks, PHONE, serve, sidewaysOverflow, watch, type Served } from './browser.js';

/*
 * The cabinet's webhook pages in headless Chromium, with the real forms, check boxes, the
 * datetime field and redirects: an endpoint created with a refusal on the way, its secret shown
 * once, a test event delivered to a receiver on loopback and shown in the attempt log, the secret
 * rotated, the endpoint disabled and enabled, and missed events recovered. Every page checked
 * with axe at phone and desktop widths (screenshots kept with PAYGATE_SCREENSHOTS set), none
 * scrolling sideways at 390 px.
 */

let h: Served;
let browser: Browser;
let rx: Receiver;
let sender: WebhookSender;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ CALLBACK_ALLOWLIST: '127.0.0.1' });
  // The receiver checks signatures against the real clock: the fake one starts at real time.
  h.clock.set(Date.now());
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  rx = await startReceiver();
  sender = new WebhookSender(h.ctx, { timeoutMs: 1000, random: () => 0.5 });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sender?.stop(1000);
  await rx?.close();
  await h?.close();
});

async function sendDue() {
  while ((await sender.runOnce()) > 0);
}

async function checks(page: Page, seen: ReturnType<typeof watch>, name: string): Promise<void> {
  await pageChecks(page, seen, h.origin, `cabinet-webhooks-${name}`);
  await page.setViewportSize(PHONE);
  expect(await sidewaysOverflow(page), `${name} scrolls sideways at 390 px`).toBe(0);
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('cabinet webhooks in Chromium', () => {
  it('creates an endpoint, shows its secret once, sends a test event, rotates, disables, enables and recovers', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-up`);
      await page.getByLabel('Company name').fill('Hook Tea');
      await page.getByLabel('Work email').fill('owner@hooktea.example');
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);
      await page.getByRole('link', { name: 'Cash desks' }).click();
      await page.getByLabel('Name', { exact: false }).first().fill('Main shop');
      await fillClassicDeskForm(page, 'https://hooktea.example/paygate');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      const desk = await createdDesk(page);

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL(`${h.origin}/cabinet/webhooks`);
      expect(await page.getByText('No webhook endpoint yet').isVisible()).toBe(true);
      await checks(page, seen, 'empty');

      // a refusal first: chosen desks, none ticked; the form comes back as typed, with the reason
      const form = page.locator('#new-endpoint');
      await form.getByLabel('URL').fill(`${rx.url}/erp`);
      await form.getByLabel('All events').uncheck();
      await form.getByLabel(/order\.completed/).check();
      await form.getByLabel(/order\.cancelled/).check();
      await form.getByLabel('Only the desks ticked below').check();
      await form.getByLabel('Description').fill('ERP import');
      await form.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('alert').first().waitFor();
      expect(await page.locator('#new-endpoint-error').textContent()).toContain('Desks: tick at least one desk, or choose every desk. (VALIDATION_ERROR)');
      expect(await form.getByLabel('URL').inputValue()).toBe(`${rx.url}/erp`);
      expect(await form.getByLabel(/order\.cancelled/).isChecked()).toBe(true);
      // The refusal's 400 is the one message the browser logs; nothing else went wrong.
      expect(seen.problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
      seen.problems.length = 0;
      await checks(page, seen, 'refused');

      await form.getByLabel(/Main shop/).check();
      await form.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('#endpoint-secret').waitFor();
      const id = (await page.locator('#endpoint-id').textContent())!.trim();
      const secret = (await page.locator('#endpoint-secret').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      expect(await page.getByText('Copy it now: it is not shown again.').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Copy the secret' }).isVisible()).toBe(true);
      expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toMatchObject({ events: ['order.completed', 'order.cancelled'], desks: [desk.id], description: 'ERP import' });
      await checks(page, seen, 'created');

      await page.getByRole('link', { name: 'Go to the endpoint' }).click();
      await page.waitForURL(`${h.origin}/cabinet/webhooks/${id}`);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText(/Test event evt_\w+ is queued/).waitFor();
      await sendDue();
      expect(rx.hits).toHaveLength(1);
      const hit = rx.hits[0]!;
      const headers = { 'webhook-id': String(hit.headers['webhook-id']), 'webhook-timestamp': String(hit.headers['webhook-timestamp']), 'webhook-signature': String(hit.headers['webhook-signature']) };
      expect((new Webhook(secret).verify(hit.body.toString('utf8'), headers) as { type: string }).type).toBe('webhook.test');
      await page.reload();
      const row = page.locator('#attempt-log tbody tr').first();
      expect(await row.locator('.badge').textContent()).toBe('delivered');
      expect(await row.locator('td[data-label="Status code"]').textContent()).toBe('200');
      await checks(page, seen, 'endpoint');

      // rotation: the box first, then the new secret once
      await page.getByLabel(/I will put the new secret on my server within 24 hours/).check();
      await page.getByRole('button', { name: 'Rotate the secret' }).click();
      await page.locator('#endpoint-secret').waitFor();
      expect((await page.locator('#endpoint-secret').textContent())!.trim()).not.toBe(secret);
      expect(await page.locator('#rotation-note').textContent()).toContain('The old secret keeps working for 24 hours');
      await checks(page, seen, 'rotated');

      // disabled while an order completes; enabled again and recovered since an hour ago
      await page.goto(`${h.origin}/cabinet/webhooks/${id}`);
      await page.getByRole('button', { name: 'Disable the endpoint' }).click();
      await page.locator('#disabled-note').waitFor();
      const order = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp' }) })).result.id as string;
      expect((await admin(h.app, 'POST', `/orders/${order}/simulate-payment`)).statusCode).toBe(200);
      await sendDue();
      expect(rx.hits).toHaveLength(1);
      await checks(page, seen, 'disabled');
      await page.getByRole('button', { name: 'Enable the endpoint' }).click();
      await page.getByText('The endpoint is enabled').waitFor();
      await page.getByLabel('Since (UTC)').fill(new Date(h.clock.now() - 3_600_000).toISOString().slice(0, 16));
      await page.getByRole('button', { name: 'Recover' }).click();
      await page.getByText('1 event is queued again for this endpoint').waitFor();
      await sendDue();
      expect(rx.hits).toHaveLength(2);
      expect(JSON.parse(rx.hits[1]!.body.toString('utf8')).data.id).toBe(order);
      await page.reload();
      expect(await page.locator('#attempt-log tbody tr').count()).toBe(2);
      await checks(page, seen, 'recovered');

      await page.getByRole('link', { name: 'All endpoints' }).click();
      const line = page.locator('#endpoints tbody tr').first();
      expect(await line.locator('.badge').textContent()).toBe('Enabled');
      expect(await line.textContent()).toContain('order.completed, order.cancelled');
      await checks(page, seen, 'list');
    } finally {
      await context.close();
    }
  }, 180_000);
});
