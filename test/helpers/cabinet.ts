import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
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

export interface UploadPart {
  name: string;
  value?: string;
  file?: { name: string; type: string; content: Buffer };
}

/** A multipart/form-data body as a browser writes it. */
export function multipartBody(parts: UploadPart[], boundary = `----pgtest${Math.random().toString(16).slice(2)}`): { body: Buffer; type: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if (p.file) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.file.name}"\r\nContent-Type: ${p.file.type}\r\n\r\n`));
      chunks.push(p.file.content, Buffer.from('\r\n'));
    } else chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value ?? ''}\r\n`));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

export function cabinetKit(harness: () => Harness) {
  /** A browser: a cookie jar, one client address, the CSRF token of the last page it read. */
  class Browser {
    cookies = new Map<string, string>();
    csrf: string | null = null;
    readonly ip = `198.51.100.${++ipCounter}`;

    private remember(res: LightMyRequestResponse) {
      const set = res.headers['set-cookie'];
      for (const line of ([] as string[]).concat(set ?? [])) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        const value = pair!.slice(eq + 1);
        if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
      if (token) this.csrf = token[1]!;
      return res;
    }

    private cookieHeader() {
      return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }

    async get(url: string) {
      return this.remember(await harness().app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() }, remoteAddress: this.ip }));
    }

    /** Posts a multipart form; the page's token goes first unless `csrf` says otherwise. */
    async upload(url: string, parts: UploadPart[], o: { csrf?: string | null } = {}) {
      const token = o.csrf === undefined ? this.csrf : o.csrf;
      const { body, type } = multipartBody(token === null ? parts : [{ name: '_csrf', value: token! }, ...parts]);
      return this.remember(await harness().app.inject({ method: 'POST', url, headers: { cookie: this.cookieHeader(), 'content-type': type }, payload: body, remoteAddress: this.ip }));
    }

    /** Posts a form; the page's token is added unless `csrf` says otherwise. */
    async post(url: string, fields: [string, string][] = [], o: { csrf?: string | null; header?: string } = {}) {
      const form = new URLSearchParams(fields);
      const token = o.csrf === undefined ? this.csrf : o.csrf;
      if (token !== null && o.header === undefined) form.set('_csrf', token!);
      const headers: Record<string, string> = { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' };
      if (o.header !== undefined) headers['x-csrf-token'] = o.header;
      return this.remember(await harness().app.inject({ method: 'POST', url, headers, payload: form.toString(), remoteAddress: this.ip }));
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
