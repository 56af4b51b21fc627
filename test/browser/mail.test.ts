import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep } from '../../src/domain/totp.js';
import { MailSender } from '../../src/mail/sender.js';
import { beginEnrolment, confirmEnrolment } from '../../src/services/twoFactor.js';
import { admin, json } from '../helpers/harness.js';
import { axeViolations, DESKTOP, hasChromium, launch, pageChecks, PHONE, screenshot, serve, sidewaysOverflow, watch, type Served } from './browser.js';

/*
 * Forgotten passwords and kept mail in headless Chromium, on an install without a mail server: a
 * merchant asks for a link from the sign-in page, an admin finds the kept mail at /office/mail and
 * its link sets the new password; the back office's reset asks for the two-factor code. Every page
 * passes axe and never scrolls sideways at 390 and 1280 px.
 */

const PASSWORD = 'correct horse battery staple';
const OPERATOR_PASSWORD = 'operator passphrase 2026';

let h: Served;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  browser = await launch();
  expect(json(await admin(h.app, 'POST', '/operators', { email: 'mail-admin@paygate.example', password: OPERATOR_PASSWORD, role: 'admin' })).status).toBe('ok');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** What the worker would do by itself: every due mail kept (no mail server here). */
async function runSender(): Promise<void> {
  const sender = new MailSender(h.ctx);
  try {
    while ((await sender.runOnce()) > 0);
  } finally {
    sender.close();
  }
}

/** axe and the page rules at both widths, and nothing wider than the phone's screen. */
async function checks(page: Page, seen: ReturnType<typeof watch>, name: string): Promise<void> {
  await pageChecks(page, seen, h.origin, name);
  await page.setViewportSize(PHONE);
  expect(await sidewaysOverflow(page), `${name} at 390 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(DESKTOP);
}

async function officeAdmin() {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const seen = watch(page);
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill('mail-admin@paygate.example');
  await page.getByLabel('Password').fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

describe.skipIf(!hasChromium)('forgotten passwords and kept mail in a browser', () => {
  it('a merchant asks for a link; an admin finds the kept mail and its link sets the new password', async () => {
    const email = 'forgetful@teashop.example';
    const merchant = await browser.newContext({ viewport: DESKTOP, locale: 'ru-RU' });
    const m = await merchant.newPage();
    m.setDefaultTimeout(15_000);
    const ms = watch(m);
    await m.goto(`${h.origin}/cabinet/sign-up`);
    await m.getByLabel('Company name').fill('Forgetful Tea');
    await m.getByLabel('Work email').fill(email);
    await m.getByLabel(/Password/).fill(PASSWORD);
    await m.getByRole('button', { name: 'Create account' }).click();
    await m.waitForURL(`${h.origin}/cabinet`);

    // the team page lists an invitation that no mail server took
    await m.goto(`${h.origin}/cabinet/team`);
    await m.getByLabel('Email').fill('colleague@teashop.example');
    await m.getByRole('button', { name: 'Create invitation link' }).click();
    expect(await m.getByText('No mail server is set up here, so no mail leaves').isVisible()).toBe(true);
    await runSender();
    await m.goto(`${h.origin}/cabinet/team`);
    expect(await m.locator('td[data-label=Mail]').first().textContent()).toBe('Not mailed');
    await checks(m, ms, 'cabinet-team-mail');

    // signed out, the sign-in page leads to "Forgot password?"
    await m.getByRole('button', { name: 'Sign out' }).click();
    await m.waitForURL(`${h.origin}/cabinet/sign-in`);
    await m.getByRole('link', { name: 'Forgot password?' }).click();
    await m.waitForURL(`${h.origin}/cabinet/password-reset`);
    await checks(m, ms, 'cabinet-forgot-password');
    await m.getByLabel('Email').fill(email);
    await m.getByRole('button', { name: 'Mail me a link' }).click();
    await m.waitForURL(`${h.origin}/cabinet/password-reset/sent`);
    expect(await m.locator('#reset-sent').textContent()).toContain('on its way');
    await checks(m, ms, 'cabinet-reset-sent');
    await runSender();

    // the admin reads the kept mail (in Russian: the merchant signed up from a Russian browser) and hands over its link
    const a = await officeAdmin();
    await a.page.getByRole('link', { name: 'Mail', exact: true }).click();
    await a.page.waitForURL(`${h.origin}/office/mail`);
    expect(await a.page.locator('#no-mail-server').isVisible()).toBe(true);
    await checks(a.page, a.seen, 'office-mail');
    await a.page.getByRole('link', { name: 'Сброс пароля Paygate' }).click();
    await a.page.locator('#mail-text').waitFor();
    expect(await a.page.locator('#mail-text').textContent()).toContain('Здравствуйте!');
    await checks(a.page, a.seen, 'office-mail-one');
    await a.page.getByText('HTML source').click();
    await a.page.setViewportSize(PHONE);
    expect(await sidewaysOverflow(a.page), 'HTML source at 390 px').toBeLessThanOrEqual(0);
    await screenshot(a.page, 'office-mail-one-source-phone');
    await a.page.setViewportSize(DESKTOP);
    const link = (await a.page.locator('#mail-link').getAttribute('href'))!;
    expect(link).toMatch(new RegExp(`^${h.origin}/cabinet/password-reset/rst_[A-Za-z0-9_-]{43}$`));

    // the HTML version, as the recipient's mail client would show it. It is served in a sandbox
    // that runs no script at all, so axe looks at it from a context that sets the sandbox aside.
    const htmlPath = (await a.page.getByRole('link', { name: 'Open the HTML version' }).getAttribute('href'))!;
    const inspect = await browser.newContext({ viewport: DESKTOP, bypassCSP: true, storageState: await a.context.storageState() });
    const mailView = await inspect.newPage();
    mailView.setDefaultTimeout(15_000);
    await mailView.goto(`${h.origin}${htmlPath}`);
    await mailView.getByRole('link', { name: 'Задать новый пароль' }).waitFor();
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      await mailView.setViewportSize(viewport);
      expect(await axeViolations(mailView), `mail HTML at ${label} width`).toEqual([]);
      expect(await sidewaysOverflow(mailView), `mail HTML at ${label} width`).toBeLessThanOrEqual(0);
      await screenshot(mailView, `office-mail-html-${label}`);
    }
    await inspect.close();
    await a.context.close();

    await m.goto(link);
    expect(await m.getByText(`For ${email}.`).isVisible()).toBe(true);
    await checks(m, ms, 'cabinet-reset-form');
    await m.getByLabel(/New password/).fill('password123');
    await m.getByRole('button', { name: 'Save the new password' }).click();
    await m.locator('#reset-error').waitFor();
    expect(await m.locator('#reset-error').textContent()).toContain('too common');
    expect(ms.problems).toEqual([expect.stringContaining('status of 400')]);
    ms.problems.length = 0;
    await checks(m, ms, 'cabinet-reset-refused');
    await m.getByLabel(/New password/).fill('a fresh passphrase 2026');
    await m.getByRole('button', { name: 'Save the new password' }).click();
    await m.waitForURL(`${h.origin}/cabinet/sign-in?reset=1`);
    expect(await m.getByText('Your password is changed').isVisible()).toBe(true);
    await checks(m, ms, 'cabinet-sign-in-after-reset');
    await m.getByLabel('Email').fill(email);
    await m.getByLabel('Password').fill('a fresh passphrase 2026');
    await m.getByRole('button', { name: 'Sign in' }).click();
    await m.waitForURL(`${h.origin}/cabinet`);

    // the link, used, says so
    await m.goto(link);
    expect(await m.getByRole('heading', { name: 'This link is no longer valid' }).isVisible()).toBe(true);
    expect(ms.problems).toEqual([expect.stringContaining('status of 410')]);
    ms.problems.length = 0;
    await checks(m, ms, 'cabinet-reset-gone');
    await merchant.close();
  }, 240_000);

  it('the back office\'s reset asks for the two-factor code', async () => {
    const email = 'twofactor-admin@paygate.example';
    const id = json(await admin(h.app, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role: 'admin' })).result.id;
    const { secret } = await beginEnrolment(h.ctx, 'office', id, email);
    const code = () => hotp(base32Decode(secret)!, totpStep(h.clock.now()));
    expect(await confirmEnrolment(h.ctx, 'office', id, code())).toHaveLength(10);

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const seen = watch(page);
    await page.goto(`${h.origin}/office/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(`${h.origin}/office/password-reset`);
    await checks(page, seen, 'office-forgot-password');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.waitForURL(`${h.origin}/office/password-reset/sent`);
    await checks(page, seen, 'office-reset-sent');
    await runSender();
    const mailId = (await h.ctx.db.query<{ id: string }>("SELECT id FROM mail_outbox WHERE to_address = $1 AND kind = 'password-reset'", [email])).rows[0]!.id;

    const a = await officeAdmin();
    await a.page.goto(`${h.origin}/office/mail/${mailId}`);
    const link = (await a.page.locator('#mail-link').getAttribute('href'))!;
    await a.context.close();

    await page.goto(link);
    await checks(page, seen, 'office-reset-form');
    await page.getByLabel(/New password/).fill('a fresh operator passphrase');
    h.clock.advance(30_000);
    await page.getByLabel(/Two-factor code/).fill(code() === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await page.locator('#reset-error').waitFor();
    expect(seen.problems).toEqual([expect.stringContaining('status of 400')]);
    seen.problems.length = 0;
    await checks(page, seen, 'office-reset-wrong-code');
    await page.getByLabel(/New password/).fill('a fresh operator passphrase');
    await page.getByLabel(/Two-factor code/).fill(code());
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await page.waitForURL(`${h.origin}/office/sign-in?reset=1`);
    await checks(page, seen, 'office-sign-in-after-reset');
    await context.close();
  }, 240_000);
});
