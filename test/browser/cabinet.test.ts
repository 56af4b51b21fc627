import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, json, signed } from '../helpers/harness.js';
import { axeViolations, createdDesk, DESKTOP, fillClassicDeskForm, hasChromium, launch, pageChecks as checkPage, PHONE, screenshot, serve, sidewaysOverflow, watch, type Served } from './browser.js';

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
  await admin(h.app, 'PUT', '/currencies/INR', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/INR', { rate: '84.2' });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/**
 * The web spec's "Every page, in addition": nothing scrolls sideways at 390 px; at 1280 px every
 * column of every list shows, with no box that scrolls (a table scrolling in its own box hides
 * columns); on a phone each list row is a card whose fields all show.
 */
async function layoutChecks(page: Page, name: string): Promise<void> {
  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    const found = await page.evaluate(() => {
      const problems: string[] = [];
      const width = window.innerWidth;
      if (document.documentElement.scrollWidth > width) problems.push(`page is ${document.documentElement.scrollWidth}px wide`);
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('main *'))) {
        // Read by screen readers only: clipped to nothing, taking no room.
        if (el.closest('.visually-hidden, .skip, thead, caption')) continue;
        const style = getComputedStyle(el);
        if (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) problems.push(`${el.tagName}.${el.className} scrolls sideways`);
        const r = el.getBoundingClientRect();
        if (style.visibility !== 'hidden' && r.width > 0 && r.right > width + 1 && !el.closest('thead')) problems.push(`${el.tagName}.${el.className} ends at ${Math.round(r.right)}px`);
      }
      for (const table of Array.from(document.querySelectorAll<HTMLTableElement>('table.list'))) {
        const cards = getComputedStyle(table).display === 'block';
        if (width >= 1280 && cards) problems.push(`${table.id || 'a list'} is cards at ${width}px`);
        if (!cards) {
          for (const th of Array.from(table.querySelectorAll<HTMLElement>('thead th'))) {
            const r = th.getBoundingClientRect();
            if (r.width < 8 || r.left < 0 || r.right > width) problems.push(`column ${th.textContent} is not shown`);
          }
        }
        for (const cell of Array.from(table.querySelectorAll<HTMLElement>('tbody td, tbody th'))) {
          if (cell.textContent!.trim() === '') continue;
          const r = cell.getBoundingClientRect();
          if (r.width < 8 || r.height < 8) problems.push(`a cell of ${cell.dataset.label} is hidden`);
        }
      }
      return problems;
    });
    expect(found, `${name} at ${label} width`).toEqual([]);
  }
  await page.setViewportSize(DESKTOP);
}

const pageChecks = async (page: Page, seen: ReturnType<typeof watch>, name: string) => {
  await checkPage(page, seen, h.origin, `cabinet-${name}`);
  await layoutChecks(page, name);
};

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
      expect(text.split('\r\n')[0]).toBe('id,orderRef,createdAt,status,amount,currency,rate,settledUsd,commissionUsd,creditedUsd,deskId,method,rail,payerReference,finishedAt,paidAmount');
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
      // Both moneys, each labelled, the one the API answers marked.
      expect(await page.locator('#live-h').textContent()).toBe('Live balance');
      expect(await page.locator('#sandbox-h').textContent()).toBe('Sandbox balance API balance');
      expect(await page.locator('#sandbox-balance').textContent()).not.toBe('0.00 USD');
      // The chart's axis labels stay readable once it shrinks to a phone's width.
      await page.setViewportSize(PHONE);
      const tick = await page.locator('.chart-svg text').first().evaluate((el) => el.getBoundingClientRect().height);
      expect(tick, 'chart labels on a phone').toBeGreaterThanOrEqual(11);
      await page.setViewportSize(DESKTOP);
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

  it('names desks, refuses an impossible desk beside the form, sells through a payment link, shows what the customer was given, and shares the cabinet with a viewer', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
    const page = await context.newPage();
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-up`);
      await page.getByLabel('Company name').fill('Tea Links');
      await page.getByLabel('Work email').fill('owner@tealinks.example');
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);

      // an impossible desk: Upi takes INR only; the reason beside the form, what was typed kept
      await page.goto(`${h.origin}/cabinet/desks`);
      await page.getByLabel(/^Name/).fill('Rupee counter');
      await page.selectOption('select[name=method]', 'CrossBorder');
      await page.locator('fieldset[data-method=CrossBorder] input[value=Upi]').check();
      await page.locator('input[name=currencies][value=RUB]').check();
      await page.getByLabel(/Callback URL/).fill('https://tealinks.example/paygate');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      await page.locator('#new-desk-error').waitFor();
      expect(await page.locator('#new-desk-error').textContent()).toContain('Upi serves INR only');
      expect(await page.getByLabel(/^Name/).inputValue()).toBe('Rupee counter');
      expect(await page.locator('select[name=method]').inputValue()).toBe('CrossBorder');
      expect(await page.locator('fieldset[data-method=CrossBorder] input[value=Upi]').isChecked()).toBe(true);
      // The refusal is a 400 page, which Chromium reports on the console; nothing else may be there.
      expect(seen.problems).toEqual([expect.stringContaining('status of 400')]);
      seen.problems.length = 0;
      await pageChecks(page, seen, 'desk-impossible');

      await page.goto(`${h.origin}/cabinet/desks`);
      await page.getByLabel(/^Name/).fill('Tea counter');
      await fillClassicDeskForm(page, 'https://tealinks.example/paygate');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      const desk = await createdDesk(page);
      // the secret reads whole on a phone: monospace, every character inside its box
      await page.setViewportSize(PHONE);
      const secretBox = await page.locator('#desk-secret').evaluate((el) => ({ font: getComputedStyle(el).fontFamily, fits: el.scrollWidth <= el.clientWidth, text: el.textContent }));
      expect(secretBox.font).toMatch(/mono/i);
      expect(secretBox.fits).toBe(true);
      expect(secretBox.text).toBe(desk.secret);
      await page.setViewportSize(DESKTOP);
      await page.goto(`${h.origin}/cabinet/desks`);
      expect(await page.locator('table.list tbody tr').first().locator('td').first().textContent()).toBe('Tea counter');
      await pageChecks(page, seen, 'desks-named');

      // a payment link: created from the form, opened like a customer would
      await page.getByRole('link', { name: 'Payment links' }).click();
      await page.getByLabel(/What it is for/).fill('Darjeeling, 250 g');
      await page.getByLabel('Amount').fill('1234.5');
      await pageChecks(page, seen, 'links-empty');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.getByText('Link created').waitFor();
      const url = (await page.locator('#link-url').textContent())!;
      expect(url).toMatch(new RegExp(`^${h.origin}/l/lnk_[0-9a-z]{26}$`));
      await pageChecks(page, seen, 'link-created');

      const customer = await browser.newContext({ viewport: PHONE });
      const buyer = await customer.newPage();
      await buyer.goto(url);
      // Opening the link only shows it; the customer's press of the button makes the order.
      await buyer.getByRole('button', { name: 'Continue to payment' }).click();
      await buyer.waitForURL(/\/pay\/ord_/);
      expect(buyer.url()).toMatch(new RegExp(`^${h.origin}/pay/ord_[0-9a-z]{26}`));
      const orderId = /\/pay\/(ord_[0-9a-z]{26})/.exec(buyer.url())![1]!;
      // The customer sees what the link is for, on a page that passes axe and fits a phone.
      expect(await buyer.locator('#description').textContent()).toBe('Darjeeling, 250 g');
      expect(await buyer.getByText('Payment for:').isVisible()).toBe(true);
      expect(await axeViolations(buyer)).toEqual([]);
      expect(await sidewaysOverflow(buyer)).toBe(0);
      await screenshot(buyer, 'cabinet-link-payment-page-phone');
      await customer.close();

      await page.goto(`${h.origin}/cabinet/links`);
      expect(await page.getByRole('link', { name: orderId }).isVisible()).toBe(true);
      await pageChecks(page, seen, 'links');

      await page.getByRole('link', { name: orderId }).click();
      await page.getByText('What the customer was given').waitFor();
      expect(await page.getByRole('link', { name: 'Open the payment page' }).getAttribute('href')).toBe(`/pay/${orderId}`);
      expect(await page.getByText('Darjeeling, 250 g').isVisible()).toBe(true);
      expect(await page.locator('.money').first().textContent()).toBe('1,234.50 RUB');
      await pageChecks(page, seen, 'order-details');

      await page.goto(`${h.origin}/cabinet/orders`);
      await pageChecks(page, seen, 'orders-named');

      // the team: a viewer invited by link reads the cabinet and may change nothing
      await page.getByRole('link', { name: 'Team' }).click();
      await page.getByLabel('Email').fill('reader@tealinks.example');
      await page.locator('#invite select[name=role]').selectOption('viewer');
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      const invitation = (await page.locator('#invitation-link').textContent())!;
      expect(invitation).toMatch(new RegExp(`^${h.origin}/cabinet/invite/inv_[A-Za-z0-9_-]{43}$`));
      await pageChecks(page, seen, 'team-invited');

      const readerContext = await browser.newContext({ viewport: DESKTOP });
      const reader = await readerContext.newPage();
      const readerSeen = watch(reader);
      await reader.goto(invitation);
      await checkPage(reader, readerSeen, h.origin, 'cabinet-invitation');
      await reader.getByLabel(/Password/).fill('a reader passphrase 2026');
      await reader.getByRole('button', { name: 'Join and sign in' }).click();
      await reader.waitForURL(`${h.origin}/cabinet`);
      await reader.goto(`${h.origin}/cabinet/desks/${desk.id}`);
      expect(await reader.getByRole('button', { name: 'Issue a new secret' }).count()).toBe(0);
      await checkPage(reader, readerSeen, h.origin, 'cabinet-desk-viewer');
      await readerContext.close();

      await page.goto(`${h.origin}/cabinet/team`);
      expect(await page.locator('td[data-label=Email]', { hasText: 'reader@tealinks.example' }).isVisible()).toBe(true);
      await pageChecks(page, seen, 'team');

      // approved with a desk nothing live serves: a banner names it
      await page.goto(`${h.origin}/cabinet/desks`);
      await page.getByLabel(/^Name/).fill('Rupee counter');
      await page.selectOption('select[name=method]', 'CrossBorder');
      await page.locator('fieldset[data-method=CrossBorder] input[value=Upi]').check();
      await page.locator('input[name=currencies][value=INR]').check();
      await page.getByLabel(/Callback URL/).fill('https://tealinks.example/paygate');
      await page.getByRole('button', { name: 'Create cash desk' }).click();
      await createdDesk(page);
      const merchants = json(await admin(h.app, 'GET', '/merchants?limit=500')).result.items as { id: string; name: string }[];
      // Its desks were made while no default tariff existed: approval gives them the default, which must exist (TARIFF_REQUIRED).
      await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true });
      expect((await admin(h.app, 'POST', `/merchants/${merchants.find((m) => m.name === 'Tea Links')!.id}/approve`)).statusCode).toBe(200);
      await page.goto(`${h.origin}/cabinet`);
      expect(await page.getByRole('heading', { name: /cannot take live orders/ }).isVisible()).toBe(true);
      expect(await page.locator('.banner').textContent()).toContain('Rupee counter');
      // Approved, its orders are live: no "sandbox is on" notice any more.
      expect(await page.getByText('Sandbox is on').count()).toBe(0);
      expect(await page.getByText(/approved: new orders are live orders/).isVisible()).toBe(true);
      await pageChecks(page, seen, 'home-banner');
    } finally {
      await context.close();
    }
  }, 240_000);
});
