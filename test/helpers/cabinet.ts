import { expect } from 'vitest';
import { FormBrowser } from './formBrowser.js';
import { json, signed, type DeskCreds, type Harness } from './harness.js';

/*
 * The cabinet as a browser uses it, for the suites that drive it over HTTP: cookies, forms with
 * their CSRF token, redirects, and multipart uploads.
 */

export const PASSWORD = 'correct horse battery staple';

export const DESK_FORM: [string, string][] = [
  ['method', 'Classic'],
  ['rails', 'Sbp'],
  ['rails', 'C2c'],
  ['currencies', 'RUB'],
  ['minUsd', '0'],
  ['maxUsd', '0'],
  ['callbackUrl', 'https://merchant.example/callbacks'],
  ['callbacksEnabled', 'true'],
];

let ipCounter = 0;
let emailCounter = 0;

export { multipartBody, type UploadPart } from './formBrowser.js';

export function cabinetKit(harness: () => Harness) {
  /** A browser: a cookie jar, one client address, the CSRF token of the last page it read. */
  class Browser extends FormBrowser {
    constructor() {
      super(harness().app, `198.51.100.${++ipCounter}`);
    }
  }

  async function signUp(company: string): Promise<{ b: Browser; email: string }> {
    const b = new Browser();
    const email = `owner${++emailCounter}@${company.toLowerCase().replace(/\W/g, '')}.example`;
    expect((await b.get('/cabinet/sign-up')).statusCode).toBe(200);
    const res = await b.post('/cabinet/sign-up', [['company', company], ['email', email], ['password', PASSWORD]]);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/cabinet');
    await b.get('/cabinet');
    return { b, email };
  }

  async function createDesk(b: Browser, form = DESK_FORM): Promise<DeskCreds> {
    await b.get('/cabinet/desks');
    const res = await b.post('/cabinet/desks', form);
    expect(res.statusCode, res.body).toBe(201);
    const pick = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]+)<`).exec(res.body)![1]!;
    return { id: pick('desk-id'), key: pick('desk-key'), secret: pick('desk-secret'), merchantId: '' };
  }

  async function order(desk: { key: string; secret: string }, body: Record<string, unknown> = { amount: 1500, rail: 'Sbp' }) {
    const res = await signed(harness(), desk, '/gw/v1/orders', { body: JSON.stringify(body) });
    expect(res.statusCode, res.body).toBe(201);
    return json(res).result as { id: string };
  }

  return { Browser, signUp, createDesk, order };
}

/** One browser of the kit, for variables declared before the suite signs up. */
export type CabinetBrowser = InstanceType<ReturnType<typeof cabinetKit>['Browser']>;
