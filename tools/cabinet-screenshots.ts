/**
 * Screenshots of the main cabinet pages for docs/cabinet.md, taken in Debian's Chromium from a
 * throwaway in-memory instance with a few weeks of sandbox data. A plain script, not part of
 * `npm test` (tools/README.md):
 *
 *   npx tsx tools/cabinet-screenshots.ts [output folder, default docs/screenshots]
 *
 * A page that scrolls sideways at 390 px is named on stderr and the run ends with status 1.
 */
import { mkdirSync } from 'node:fs';
import { admin, json, signed } from '../test/helpers/harness.js';
import { createdDesk, DESKTOP, fillClassicDeskForm, launch, PHONE, runScript, serve, sidewaysOverflow } from '../test/browser/start.js';

const OUT = process.argv[2] ?? 'docs/screenshots';
const DAY = 86_400_000;

runScript(async () => {
  mkdirSync(OUT, { recursive: true });
  const h = await serve();
  const browser = await launch();
  const wide: string[] = [];
  try {
    await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
    await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
    // A default tariff, as on a platform set up: the desks made in the cabinet get it, so approving their merchant is possible.
    await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true });
    const start = h.clock.now();
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    const shot = async (name: string, phone = false) => {
      if (phone) {
        await page.setViewportSize(PHONE);
        if ((await sidewaysOverflow(page)) > 0) wide.push(`${page.url()} scrolls sideways at ${PHONE.width} px`);
      }
      await page.screenshot({ path: `${OUT}/cabinet-${name}${phone ? '-phone' : ''}.png`, fullPage: true });
      if (phone) await page.setViewportSize(DESKTOP);
    };

    await page.goto(`${h.origin}/cabinet/sign-up`);
    await page.getByLabel('Company name').fill('Coffee Corner');
    await page.getByLabel('Work email').fill('owner@coffee.example');
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${h.origin}/cabinet`);

    await page.goto(`${h.origin}/cabinet/desks`);
    await fillClassicDeskForm(page, 'https://coffee.example/paygate');
    await page.getByRole('button', { name: 'Create cash desk' }).click();
    const desk = await createdDesk(page);

    // Three weeks of orders: most paid, some cancelled, so the chart and the ledger have a shape.
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      h.clock.set(start - (21 - Math.floor(i * 0.9)) * DAY + (i % 5) * 3_600_000);
      const amount = 900 + ((i * 733) % 4100);
      const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount, rail: i % 3 ? 'Sbp' : 'C2c', orderRef: `cc-${1000 + i}` }) });
      const id = json(res).result.id as string;
      ids.push(id);
      if (i % 4 === 3) await signed(h, desk, `/gw/v1/orders/${id}/cancel`, { body: JSON.stringify({ reason: 'customer left' }) });
      else await admin(h.app, 'POST', `/orders/${id}/simulate-payment`);
    }
    h.clock.set(start);
    const open = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 2450, rail: 'Sbp', orderRef: 'cc-open' }) })).result.id as string;
    const merchantId = (json(await admin(h.app, 'GET', '/merchants')).result.items as { id: string }[])[0]!.id;

    await page.goto(`${h.origin}/cabinet`);
    await shot('home');
    await page.goto(`${h.origin}/cabinet/desks`);
    await shot('desks');
    await page.goto(`${h.origin}/cabinet/desks/${desk.id}`);
    await shot('desk');
    await page.goto(`${h.origin}/cabinet/orders`);
    await shot('orders');
    await page.goto(`${h.origin}/cabinet/orders/${ids[0]}`);
    await shot('order');
    await page.goto(`${h.origin}/cabinet/orders/${open}`);
    await shot('order-open', true);

    // An appeal with a receipt, from the cancelled order's page.
    await page.goto(`${h.origin}/cabinet/orders/${ids[3]}`);
    await page.getByLabel(/What happened/).fill('The customer paid 3,099 RUB at 14:05 from Sberbank; the order had been cancelled.');
    await page.getByLabel(/Evidence links/).fill('https://coffee.example/support/ticket/881');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
    await page.getByLabel(/Receipt/).setInputFiles({ name: 'sberbank-receipt.png', mimeType: 'image/png', buffer: png });
    await shot('appeal-form');
    await page.getByRole('button', { name: 'Open appeal' }).click();
    await page.getByText('Appeal opened').waitFor();
    await shot('appeal');
    await page.goto(`${h.origin}/cabinet/appeals`);
    await shot('appeals');

    await page.goto(`${h.origin}/cabinet/balance`);
    await shot('balance');
    await shot('balance', true);
    await page.goto(`${h.origin}/cabinet/account`);
    await shot('account');

    // A payment link, opened twice by customers; its order's page shows the description.
    await page.goto(`${h.origin}/cabinet/links`);
    await page.getByLabel(/What it is for/).fill('Espresso beans, 1 kg');
    await page.getByLabel('Amount').fill('1890');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByText('Link created').waitFor();
    const url = (await page.locator('#link-url').textContent())!;
    const customer = await browser.newContext({ viewport: PHONE });
    const buyer = await customer.newPage();
    await buyer.goto(url);
    // Opening the link only shows it; the customer's press of the button makes the order.
    await buyer.getByRole('button', { name: 'Continue to payment' }).click();
    await buyer.waitForURL(/\/pay\/ord_/);
    await buyer.screenshot({ path: `${OUT}/cabinet-link-payment-phone.png`, fullPage: true });
    const linkOrder = /\/pay\/(ord_[0-9a-z]{26})/.exec(buyer.url())![1]!;
    await buyer.goto(url);
    await customer.close();
    await page.goto(`${h.origin}/cabinet/links`);
    await shot('links');
    await shot('links', true);
    await page.goto(`${h.origin}/cabinet/orders/${linkOrder}`);
    await shot('order-link');
    await shot('order-link', true);

    // The team, with an invitation waiting.
    await page.goto(`${h.origin}/cabinet/team`);
    await page.getByLabel('Email').fill('barista@coffee.example');
    await page.locator('#invite select[name=role]').selectOption('developer');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.locator('#invitation-link').waitFor();
    await shot('team-invited', true);
    await page.goto(`${h.origin}/cabinet/team`);
    await shot('team');
    await shot('team', true);

    // A webhook endpoint for the shop's ERP: its secret shown once, the list, and its page.
    await page.goto(`${h.origin}/cabinet/webhooks`);
    const form = page.locator('#new-endpoint');
    await form.getByLabel('URL').fill('https://erp.coffee.example/paygate/webhooks');
    await form.getByLabel('All events').uncheck();
    await form.getByLabel(/order\.completed/).check();
    await form.getByLabel(/order\.cancelled/).check();
    await form.getByLabel('Description').fill('ERP import');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('#endpoint-secret').waitFor();
    const endpointId = (await page.locator('#endpoint-id').textContent())!.trim();
    await shot('webhook-created', true);
    await page.goto(`${h.origin}/cabinet/webhooks`);
    await shot('webhooks');
    await page.goto(`${h.origin}/cabinet/webhooks/${endpointId}`);
    await shot('webhook-endpoint');

    // Approved, with a desk no live provider serves: every page names it in a banner.
    await admin(h.app, 'POST', `/merchants/${merchantId}/approve`);
    await page.goto(`${h.origin}/cabinet`);
    await shot('home-banner');
    await page.goto(`${h.origin}/cabinet/balance`);
    await shot('balance-live');
    await shot('balance-live', true);
    await context.close();
  } finally {
    await browser.close();
    await h.close();
  }
  if (wide.length > 0) throw new Error(wide.join('\n'));
});
