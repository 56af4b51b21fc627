/**
 * Screenshots of the back office's main pages for docs/back-office.md, on the data the browser test
 * uses, at 1280 px (whole page) and 390 px (the first screen, at the page's list when it has one).
 * A plain script (tools/README.md):
 *
 *   npx tsx tools/office-screenshots.ts [output folder, default docs/screenshots]
 *
 * Needs Debian's Chromium at /usr/bin/chromium (or CHROMIUM_PATH). A page that scrolls sideways
 * at 390 px is named on stderr and the run ends with status 1.
 */
import { mkdirSync } from 'node:fs';
import { DESKTOP, launch, PHONE, runScript, serve, sidewaysOverflow } from '../test/browser/start.js';
import { OFFICE_PASSWORD, seedOffice } from '../test/browser/officeData.js';

const OUT = process.argv[2] ?? 'docs/screenshots';

runScript(async () => {
  mkdirSync(OUT, { recursive: true });
  const h = await serve({ OFFICE_REQUIRE_2FA: 'false' });
  const browser = await launch();
  const wide: string[] = [];
  try {
    const seed = await seedOffice(h);
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
      ['merchant-warnings', `/office/merchants/${seed.korea.merchantId}`],
      ['providers', '/office/providers'],
      ['operators', '/office/operators'],
      ['orders', '/office/orders'],
      ['order', `/office/orders/${seed.liveOrder}`],
      ['order-link', `/office/orders/${seed.linkOrder}`],
      ['tariffs', '/office/tariffs'],
      ['tariff', `/office/tariffs/${seed.tariffId}`],
    ];
    for (const [name, path] of shots) {
      await page.goto(`${h.origin}${path}`);
      for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
        await page.setViewportSize(viewport);
        if (label === 'phone' && (await sidewaysOverflow(page)) > 0) wide.push(`${path} scrolls sideways at ${PHONE.width} px`);
        // On a phone, a page with a list is shown at its list (one card per row), below the navigation and filters.
        if (label === 'phone' && (await page.locator('.rtable').count()) > 0) await page.locator('.rtable').first().evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: `${OUT}/office-${name}-${label}.png`, fullPage: label === 'desktop' });
      }
      await page.setViewportSize(DESKTOP);
    }
  } finally {
    await browser.close();
    await h.close();
  }
  if (wide.length > 0) throw new Error(wide.join('\n'));
});
