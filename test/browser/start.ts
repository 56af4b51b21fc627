import { existsSync } from 'node:fs';
import { freePort } from '../helpers/ports.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * Starting a browser and a server for it, shared by the browser tests and the screenshot tools.
 * Nothing here imports vitest, so `npx tsx tools/…-screenshots.ts` runs it as a plain script.
 *
 * Debian's Chromium is driven through playwright-core; nothing downloads a browser. Without
 * /usr/bin/chromium (or CHROMIUM_PATH) the browser suites skip and the tools say so.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };
export const SCREENSHOTS = 'test-results/screenshots';

export function launch(): Promise<Browser> {
  if (!hasChromium) throw new Error(`no Chromium at ${CHROMIUM}: install chromium or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}


export interface Served extends Harness {
  origin: string;
}

/** A harness app listening on a local port, with PUBLIC_BASE_URL pointing at it (the sandbox bank link). */
export async function serve(env: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createHarness({ env: { PUBLIC_BASE_URL: origin, ...env } });
  await h.app.listen({ port, host: '127.0.0.1' });
  return { ...h, origin };
}

/** How far the page's content reaches past the viewport's width, in CSS pixels (0 when nothing scrolls sideways). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth);
}

/** Fills the cabinet's new-desk form for a Classic desk (Sbp and C2c, RUB), with a callback URL when one is given. */
export async function fillClassicDeskForm(page: Page, callbackUrl: string | null): Promise<void> {
  const classic = page.locator('fieldset', { has: page.locator('legend', { hasText: 'Classic rails' }) });
  await classic.getByLabel('Sbp').check();
  await classic.getByLabel('C2c').check();
  await page.locator('input[name=currencies][value=RUB]').check();
  if (callbackUrl !== null) await page.getByLabel(/Callback URL/).fill(callbackUrl);
}

/** The id, key and secret on the page that answers a desk's creation. */
export async function createdDesk(page: Page): Promise<{ id: string; key: string; secret: string }> {
  await page.locator('#desk-secret').waitFor();
  return {
    id: (await page.locator('#desk-id').textContent())!,
    key: (await page.locator('#desk-key').textContent())!,
    secret: (await page.locator('#desk-secret').textContent())!,
  };
}

/**
 * Runs a tool's main function and ends the process with its outcome: 0 once it finished, 1 (with
 * the error on stderr) when it threw. The embedded database of a run keeps the event loop busy
 * after it is closed, so a tool that only returned would never end.
 */
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
