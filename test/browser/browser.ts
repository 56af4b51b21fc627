import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { json, provisionDesk, signed, type DeskCreds } from '../helpers/harness.js';
import { DESKTOP, PHONE, SCREENSHOTS, type Served } from './start.js';

/**
 * What the browser tests share: the start-up of a browser and a server lives in start.ts (no
 * vitest there, so the screenshot tools use it too); the checks that assert live here.
 */
export { CHROMIUM, createdDesk, DESKTOP, fillClassicDeskForm, hasChromium, launch, PHONE, SCREENSHOTS, serve, sidewaysOverflow, type Served } from './start.js';

/** One sandbox order per customer-facing way to pay: every rail of every method, and the rail-less methods. */
export interface Case {
  name: string;
  desk: Record<string, unknown>;
  currencies: Record<string, string>;
  order: Record<string, unknown>;
}

const CROSS = (rail: string, currency: string, rate: string, amount: string): Case => ({
  name: `CrossBorder-${rail}-${currency}`,
  desk: { method: 'CrossBorder', rails: [rail], currencies: [currency] },
  currencies: { [currency]: rate },
  order: { amount: Number(amount), currency, rail },
});

export const CASES: Case[] = [
  { name: 'Classic-Sbp', desk: {}, currencies: { RUB: '91.8' }, order: { amount: 1500.5, rail: 'Sbp' } },
  { name: 'Classic-C2c', desk: {}, currencies: { RUB: '91.8' }, order: { amount: 2750, rail: 'C2c' } },
  { name: 'WhiteTriangle-C2c', desk: { method: 'WhiteTriangle' }, currencies: { RUB: '91.8' }, order: { amount: 990, rail: 'C2c' } },
  { name: 'MobileCommerce-Phone', desk: { method: 'MobileCommerce', rails: ['Phone'] }, currencies: { RUB: '91.8' }, order: { amount: 500, rail: 'Phone', operator: 'OperatorB' } },
  CROSS('Upi', 'INR', '83.2', '832.5'),
  CROSS('Account', 'KRW', '1350', '65000'),
  CROSS('Iban', 'TRY', '32.5', '1250.75'),
  CROSS('Havale', 'TRY', '32.5', '980'),
  CROSS('C2c', 'AZN', '1.7', '85'),
  CROSS('C2c', 'KZT', '450', '45000'),
  CROSS('Phone', 'KZT', '450', '30000'),
  CROSS('WalletCombo', 'KZT', '450', '27500'),
  CROSS('CardSchemeA', 'UZS', '12500', '600000'),
  CROSS('CardSchemeB', 'UZS', '12500', '375000'),
  { name: 'BankApp', desk: { method: 'BankApp', rails: [] }, currencies: { RUB: '91.8' }, order: { amount: 1200 } },
  { name: 'Counterparty', desk: { method: 'Counterparty', rails: [] }, currencies: { RUB: '91.8' }, order: { amount: 45000 } },
  { name: 'NationalQr', desk: { method: 'NationalQr', rails: [] }, currencies: { RUB: '91.8' }, order: { amount: 640 } },
];

const desks = new Map<string, DeskCreds>();

/** Creates a sandbox order for a case (one desk per case, made once per server). */
export async function deskFor(h: Served, c: Case): Promise<DeskCreds> {
  const key = `${h.origin} ${c.name}`;
  let desk = desks.get(key);
  if (!desk) {
    desk = await provisionDesk(h.app, { merchant: { name: 'Coffee Corner' }, desk: c.desk, currencies: c.currencies });
    desks.set(key, desk);
  }
  return desk;
}

export async function createOrder(h: Served, c: Case, extra: Record<string, unknown> = {}): Promise<any> {
  const desk = await deskFor(h, c);
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ lifetimeMinutes: 30, ...c.order, ...extra }) });
  if (res.statusCode !== 201) throw new Error(`order for ${c.name}: ${res.body}`);
  return json(res).result;
}

/** Records every request the page makes, and every CSP violation or page error it reports. */
export function watch(page: Page) {
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  return { requests, problems };
}

const require = createRequire(import.meta.url);
// jsqr is CommonJS with a TypeScript default export: under NodeNext the function sits on `.default`.
type JsQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRModule as unknown as { default?: JsQr }).default ?? jsQRModule) as unknown as JsQr;
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core, injected through the DevTools protocol (an inline <script> would be blocked by our own CSP). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number; help: string }[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<any> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
  });
  return result.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Screenshots are for people reviewing a run, not assertions: written when PAYGATE_SCREENSHOTS is
 * set (CI sets it and keeps them), skipped otherwise so `npm test` stays fast.
 */
export const KEEP_SCREENSHOTS = !!process.env.PAYGATE_SCREENSHOTS;

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!KEEP_SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/** Decodes the QR code shown in an element, from a real screenshot of it. */
export async function decodeQr(page: Page, selector: string): Promise<string | null> {
  const png = PNG.sync.read(await page.locator(selector).screenshot());
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  return code?.data ?? null;
}

/**
 * The accessible names that more than one form field inside `scope` shares (text fields, selects
 * and text areas; radios and checkboxes are named within their fieldset). Each field needs a name
 * of its own, or a screen reader announces "From (USD)" three times and voice control cannot pick one.
 */
export async function sharedFieldNames(page: Page, scope: string): Promise<string[]> {
  return page.locator(scope).evaluateAll((roots) => {
    const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const nameOf = (f: HTMLElement): string => {
      const by = f.getAttribute('aria-labelledby');
      if (by) return by.split(/\s+/).map((id) => text(document.getElementById(id))).join(' ');
      const aria = f.getAttribute('aria-label');
      if (aria) return aria.trim();
      const label = (f.id && document.querySelector(`label[for="${CSS.escape(f.id)}"]`)) || f.closest('label');
      if (!label) return '';
      const own = label.contains(f) ? text(f) : '';
      return text(label).replace(own, '').trim();
    };
    const fields = roots.flatMap((r) => [...r.querySelectorAll<HTMLElement>('input:not([type=hidden]):not([type=radio]):not([type=checkbox]):not([type=submit]):not([type=button]), select, textarea')]);
    const names = fields.map(nameOf);
    return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  });
}

/**
 * What every page of the cabinet and back office must hold: no inline script, nothing requested
 * from another origin, no CSP violation or script error, and no serious axe finding at phone and
 * desktop widths (a screenshot of each when they are kept).
 */
export async function pageChecks(page: Page, seen: ReturnType<typeof watch>, origin: string, name: string): Promise<void> {
  expect(await page.locator('script:not([src])').count(), 'no inline script').toBe(0);
  expect(seen.requests.filter((u) => !u.startsWith(origin)), 'no request leaves the origin').toEqual([]);
  expect(seen.problems, 'no CSP violation or script error').toEqual([]);
  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    expect(await axeViolations(page), `${name} at ${label} width`).toEqual([]);
    await screenshot(page, `${name}-${label}`);
  }
  await page.setViewportSize(DESKTOP);
}
