/**
 * Screenshots of the back office's main pages for docs/back-office.md, on the data the browser test
 * uses: `npx tsx tools/office-screenshots.ts` (needs /usr/bin/chromium or CHROMIUM_PATH).
 */
import { DESKTOP, launch, PHONE, serve } from '../test/browser/browser.js';
import { OFFICE_PASSWORD, seedOffice } from '../test/browser/officeData.js';

const h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
const seed = await seedOffice(h);
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill('ada@paygate.example');
  await page.getByLabel('Password').fill(OFFICE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  const shots: [string, string][] = [
    ['dashboard', '/office'],
    ['appeals', '/office/queues/appeals?mode=sandbox'],
    ['merchant', `/office/merchants/${seed.shop.merchantId}`],
    ['providers', '/office/providers'],
    ['orders', '/office/orders'],
    ['tariffs', '/office/tariffs'],
  ];
  for (const [name, path] of shots) {
    await page.goto(`${h.origin}${path}`);
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await page.setViewportSize(viewport);
      // On a phone, a page with a list is shown at its list (one card per row), below the navigation and filters.
      if (label === 'phone' && (await page.locator('.rtable').count()) > 0) await page.locator('.rtable').first().evaluate((el) => el.scrollIntoView());
      await page.screenshot({ path: `docs/screenshots/office-${name}-${label}.png`, fullPage: label === 'desktop' });
    }
    await page.setViewportSize(DESKTOP);
  }
} finally {
  await browser.close();
  await h.close();
}
