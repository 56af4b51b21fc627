import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { admin, json, provisionDesk, signed, type DeskCreds } from '../helpers/harness.js';
import { card, credit, pools, sendCredit, type Pool } from '../integration/reconciliation/helpers.js';
import { DESKTOP, PHONE, hasChromium, launch, pageChecks as checkPage, serve, watch, type Served } from './browser.js';

/*
 * The reconciliation pages of the back office in headless Chromium: an admin works the credits
 * queue (matches a candidate, forces a match whose amount differs, ignores a credit), uploads a
 * statement and reads its summary, changes a requisite and reads the day report; a support
 * operator sees the queue without its forms; the cabinet's balance page downloads the statement.
 * Every page passes axe and scrolls no sideways at 390 px, and shows every column at 1280 px.
 */

const PASSWORD = 'operator passphrase 2026';
const CABINET_PASSWORD = 'correct horse battery staple';
let h: Served;
let browser: Browser;
let desk: DeskCreds;
let p: Pool;
const seeded: Record<string, any> = {};

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false', REQUISITE_QUARANTINE_MINUTES: '0' });
  for (const [email, role] of [['ada@paygate.example', 'admin'], ['sam@paygate.example', 'support']]) {
    expect((await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role })).statusCode).toBe(201);
  }
  desk = await provisionDesk(h.app, { merchant: { name: 'Book Bazaar', approve: true } });
  p = await pools(h)(
    [
      { card: card(11), holder: 'Anna Karenina', bank: 'Sberbank' },
      { phone: '+7 900 555-66-77', holder: 'Boris Godunov', bank: 'Tinkoff' },
    ],
    { name: 'Platform pool' },
  );
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[0].id}`, { label: 'Main card', dailyLimit: '250000', maxAmount: '50000' });
  const order = async (amount: number, extra: Record<string, unknown> = {}) => {
    const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount, currency: 'RUB', rail: 'C2c', ...extra }) });
    expect(res.statusCode, res.body).toBe(201);
    return json(res).result;
  };
  // Paid and matched at once, so the requisite has money today.
  const paid = await order(918);
  await sendCredit(h, p, credit(h, paid.payment.card ?? paid.payment.phone, '918.00'));
  // Money on an account no requisite has.
  seeded.unknown = await sendCredit(h, p, credit(h, '4000 0000 0000 0002', '12500.00', { payer: 'OOO Romashka', reference: 'INV-2026-0142' }));
  // Money two expired orders of one amount could be (both on the main card: the other requisite rests meanwhile).
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[1].id}`, { state: 'paused' });
  const first = await order(700, { lifetimeMinutes: 5 });
  h.clock.advance(6 * 60_000);
  await expireDueOrders(h.ctx, 100);
  const second = await order(700, { lifetimeMinutes: 5 });
  h.clock.advance(6 * 60_000);
  await expireDueOrders(h.ctx, 100);
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[1].id}`, { state: 'active' });
  seeded.ambiguous = await sendCredit(h, p, credit(h, first.payment.card ?? first.payment.phone, '700.00', { payer: 'IVAN PETROV' }));
  expect(seeded.ambiguous.reason).toBe('ambiguous');
  seeded.late = [first, second];
  // Money near an open order's amount.
  seeded.near = await order(1500);
  seeded.differs = await sendCredit(h, p, credit(h, seeded.near.payment.card ?? seeded.near.payment.phone, '1499.50', { payer: 'MARIA S.' }));
  seeded.open = await order(2750);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
  const page = await context.newPage();
  const seen = watch(page);
  // Danger buttons ask once more (office.js): the operator says yes.
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

/**
 * axe at both widths and a screenshot of each, nothing sideways at 390 px, every list's columns
 * inside their box at 1280 px. A page answered with the status it is meant to have (a refusal's
 * 400 or 409) is logged by Chromium as a failed load: that line alone is expected.
 */
async function pageChecks(page: Page, seen: ReturnType<typeof watch>, name: string, status?: 400 | 409): Promise<void> {
  if (status) {
    const expected = `the server responded with a status of ${status}`;
    seen.problems.splice(0, seen.problems.length, ...seen.problems.filter((m) => !m.includes(expected)));
  }
  await checkPage(page, seen, h.origin, `reconciliation-${name}`);
  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      lists: [...document.querySelectorAll('.rc-list')].map((l) => ({ id: l.id, over: l.scrollWidth - l.clientWidth })).filter((l) => l.over > 0),
    }));
    expect(overflow.page, `${name} scrolls sideways at ${label} width`).toBeLessThanOrEqual(0);
    expect(overflow.lists, `${name}: a list wider than its box at ${label} width`).toEqual([]);
  }
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('reconciliation pages in Chromium', () => {
  it('an admin works the credits queue: a candidate matched, a differing amount forced, a credit ignored', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      const nav = page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /Unmatched credits/ });
      expect(await nav.textContent()).toContain('3');
      await nav.click();
      await page.waitForURL(`${h.origin}/office/credits`);
      await pageChecks(page, seen, 'credits');

      // The ambiguous credit: match it with the second of its two candidates.
      const ambiguous = page.locator(`#credit-${seeded.ambiguous.id}`);
      expect(await ambiguous.getByRole('link', { name: seeded.late[0].id }).count()).toBe(1);
      await ambiguous.getByRole('button', { name: `Match with ${seeded.late[1].id}` }).click();
      await page.getByText('Credit matched').waitFor();
      expect(await page.locator(`#credit-${seeded.ambiguous.id}`).count()).toBe(0);
      expect(json(await admin(h.app, 'GET', `/orders/${seeded.late[1].id}`)).result.status).toBe('Completed');

      // The differing amount: typed by hand, refused with the difference, then forced.
      const differs = page.locator(`#credit-${seeded.differs.id}`);
      await differs.getByLabel('Order this credit pays').fill(seeded.near.id);
      await differs.getByRole('button', { name: 'Match', exact: true }).click();
      await page.locator('#amount-mismatch').waitFor();
      expect(await page.locator('#difference').textContent()).toContain('-0.50 RUB');
      await pageChecks(page, seen, 'amount-mismatch', 409);
      await page.getByRole('button', { name: 'Match anyway' }).click();
      await page.getByText('Credit matched').waitFor();
      expect(json(await admin(h.app, 'GET', `/credits/${seeded.differs.id}`)).result).toMatchObject({ status: 'matched', difference: '-0.50' });

      // The unknown account: its own page, then ignored with a reason.
      await page.locator(`#credit-${seeded.unknown.id} h2 a`).click();
      await page.waitForURL(`${h.origin}/office/credits/${seeded.unknown.id}`);
      await pageChecks(page, seen, 'credit');
      await page.getByLabel(/Why it needs no order/).fill('Payment for an invoice outside the gateway');
      await page.getByRole('button', { name: 'Ignore' }).click();
      await page.getByText('Credit ignored').waitFor();
      expect(json(await admin(h.app, 'GET', `/credits/${seeded.unknown.id}`)).result.status).toBe('ignored');
      await page.goto(`${h.origin}/office/credits?status=any`);
      await pageChecks(page, seen, 'credits-all');
    } finally {
      await context.close();
    }
  }, 180_000);

  it('an admin keeps requisites, uploads a statement and reads the day report', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Reconciliation' }).click();
      await pageChecks(page, seen, 'pools');
      await page.getByRole('link', { name: 'Platform pool' }).click();
      await page.waitForURL(`${h.origin}/office/pools/${p.id}`);
      await pageChecks(page, seen, 'pool');

      // A statement with the open order's money and a stranger's.
      const account = seeded.open.payment.card ?? seeded.open.payment.phone;
      const at = new Date(h.clock.now()).toISOString();
      const csv = ['transactionId,account,amount,currency,receivedAt,payer,reference', `bank-1,${account},2750.00,RUB,${at},PAVEL D.,`, `bank-2,4000000000000077,99.00,RUB,${at},,`].join('\r\n');
      await page.getByLabel('Statement file').setInputFiles({ name: 'statement-2026-01-15.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Upload statement' }).click();
      await page.locator('#statement-summary').waitFor();
      const summary = await page.locator('#statement-summary dl').innerText();
      expect(summary.replace(/\s+/g, ' ')).toContain('Entries 2 Credits 2 Duplicates 0 Matched 1 Unmatched 1 Skipped 0');
      await pageChecks(page, seen, 'statement-summary');
      await page.getByLabel('Statement file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await page.getByRole('button', { name: 'Upload statement' }).click();
      await page.locator('#statement-error').waitFor();
      expect(await page.locator('#statement-error').textContent()).toContain('STATEMENT_INVALID');
      await pageChecks(page, seen, 'statement-invalid', 400);

      // A new requisite, then its limits changed and it paused.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      const form = page.locator('form[action$="/requisites"]');
      await form.getByLabel('Card number').fill('2200 1500 0000 0099');
      await form.getByLabel('Holder').fill('Vera S.');
      await form.getByLabel('Label', { exact: true }).fill('Spare card');
      await form.getByRole('button', { name: 'Add requisite' }).click();
      await page.getByText('Requisite added').waitFor();
      await page.getByRole('link', { name: 'Spare card', exact: true }).click();
      await pageChecks(page, seen, 'requisite');
      await page.getByLabel('Largest order').fill('40000');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Requisite saved').waitFor();
      await page.getByRole('button', { name: /^Pause/ }).click();
      await page.getByText('Requisite paused').waitFor();
      const spare = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((r: any) => r.label === 'Spare card');
      expect(spare).toMatchObject({ maxAmount: '40000.00', state: 'paused' });

      await page.goto(`${h.origin}/office/pools/${p.id}`);
      await page.getByRole('link', { name: 'Day report' }).click();
      await page.waitForURL(new RegExp(`/office/pools/${p.id}/report`));
      await pageChecks(page, seen, 'report');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      const text = await (await download.createReadStream()).toArray();
      const lines = Buffer.concat(text.map((c) => Buffer.from(c))).toString('utf8').trimEnd().split('\r\n');
      const api = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=2026-01-15`)).result;
      expect(lines).toHaveLength(api.requisites.length + 2);
      expect(lines[lines.length - 1]).toContain(`,${api.totals.completedAmount},${api.totals.credits},${api.totals.creditsAmount},`);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('a support operator reads the queue and the pool without their forms', async () => {
    const { context, page, seen } = await signIn('sam@paygate.example');
    try {
      await page.goto(`${h.origin}/office/credits?status=any`);
      expect(await page.getByRole('button', { name: /Match|Ignore/ }).count()).toBe(0);
      expect(await page.getByText('Matching and ignoring credits is for administrators.').count()).toBeGreaterThan(0);
      await pageChecks(page, seen, 'credits-support');
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      expect(await page.getByRole('button', { name: /Pause|Upload|Add requisite/ }).count()).toBe(0);
      await pageChecks(page, seen, 'pool-support');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('the cabinet\'s balance page downloads the statement of live money', async () => {
    const email = 'owner@bookbazaar.example';
    expect((await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email, password: CABINET_PASSWORD })).statusCode).toBe(201);
    const context = await browser.newContext({ viewport: PHONE, timezoneId: 'Asia/Kolkata', acceptDownloads: true });
    const page = await context.newPage();
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-in`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(CABINET_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);
      await page.goto(`${h.origin}/cabinet/balance`);
      await checkPage(page, seen, h.origin, 'cabinet-balance-statement');
      await page.setViewportSize(PHONE);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download statement (CSV)' }).click()]);
      expect(download.suggestedFilename()).toBe('statement-2026-01-01-2026-01-15.csv');
      const chunks = await (await download.createReadStream()).toArray();
      const rows = Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8').trimEnd().split('\r\n');
      expect(rows[0]).toBe('at,type,orderId,withdrawalId,amountUsd,balanceUsd');
      expect(rows[1]).toMatch(/^2026-01-01T00:00:00Z,opening,,,,0\.00000000$/);
      expect(rows[rows.length - 1]).toMatch(/^2026-01-15T23:59:59Z,closing,,,,\d+\.\d{8}$/);
      expect(rows.length).toBeGreaterThan(3);
    } finally {
      await context.close();
    }
  }, 120_000);
});
