import type { AddressInfo } from 'node:net';
import { signRequest } from '../../src/signing.js';
import { cookieHeader, rememberPage } from './formBrowser.js';
import { ADMIN_TOKEN, freshNonce, type Harness } from './harness.js';

/*
 * The app over real HTTP: the harness's app listening on a local port, and clients that speak to
 * it through sockets as deployment tooling, a merchant's server and a browser do (cookies, forms
 * with their CSRF token, redirects not followed).
 */

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  /** The parsed JSON body (null when empty). */
  json: any;
  location: string | null;
}

async function answer(res: Response): Promise<Answer> {
  const body = await res.text();
  let parsed: unknown = null;
  if (body !== '' && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(body);
  return { status: res.status, headers: res.headers, body, json: parsed, location: res.headers.get('location') };
}

/** Starts the harness's app on a free local port; `close()` of the harness stops it. */
export async function listen(h: Harness): Promise<string> {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** An operator API call with the bearer token. */
export async function adminCall(origin: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return answer(await fetch(`${origin}/admin/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' }));
}

/** A /gw/v1 call signed as the spec says, over the exact body bytes, at the harness clock's time. */
export async function signedCall(origin: string, h: Harness, desk: { key: string; secret: string }, path: string, body?: unknown): Promise<Answer> {
  const method = body === undefined ? 'GET' : 'POST';
  const raw = body === undefined ? '' : JSON.stringify(body);
  const ts = String(Math.floor(h.clock.now() / 1000));
  const nonce = freshNonce();
  const headers: Record<string, string> = { 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(desk.secret, ts, nonce, method, path, raw) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return answer(await fetch(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : raw, redirect: 'manual' }));
}

/** A browser: a cookie jar and the CSRF token of the last page it read. */
export class SocketBrowser {
  cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(readonly origin: string) {}

  private remember(a: Answer): Answer {
    this.csrf = rememberPage(this.cookies, a.headers.getSetCookie(), a.body) ?? this.csrf;
    return a;
  }

  private cookieHeader() {
    return cookieHeader(this.cookies);
  }

  async get(path: string): Promise<Answer> {
    return this.remember(await answer(await fetch(`${this.origin}${path}`, { headers: { cookie: this.cookieHeader() }, redirect: 'manual' })));
  }

  /** Posts a form as a browser does; the last page's CSRF token is added unless `csrf` says otherwise (null: none). */
  async post(path: string, fields: [string, string][] = [], o: { csrf?: string | null } = {}): Promise<Answer> {
    const form = new URLSearchParams(fields);
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    if (token !== null) form.set('_csrf', token);
    const res = await fetch(`${this.origin}${path}`, {
      method: 'POST',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      redirect: 'manual',
    });
    return this.remember(await answer(res));
  }
}
