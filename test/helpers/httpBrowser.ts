import { cookieHeader, rememberPage } from './formBrowser.js';

/**
 * A browser over real HTTP (fetch on a socket to a listening app): a cookie jar, the CSRF token of
 * the last page it read, and a client address of its own told through `X-Forwarded-For` (the app
 * under test trusts the loopback proxy), so per-address limits see one client per browser. Links
 * taken from a mail are opened as they are, absolute.
 */

export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

let ipCounter = 0;

export class HttpBrowser {
  cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(
    private readonly origin: string,
    readonly ip = `198.18.0.${++ipCounter}`,
    private readonly lang: string | null = null,
  ) {}

  private url(path: string) {
    return /^https?:\/\//.test(path) ? path : `${this.origin}${path}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { 'x-forwarded-for': this.ip, ...extra };
    if (this.cookies.size) h.cookie = cookieHeader(this.cookies);
    if (this.lang) h['accept-language'] = this.lang;
    return h;
  }

  private async remember(res: Response): Promise<HttpAnswer> {
    const body = await res.text();
    this.csrf = rememberPage(this.cookies, res.headers.getSetCookie(), body) ?? this.csrf;
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body };
  }

  async get(path: string): Promise<HttpAnswer> {
    return this.remember(await fetch(this.url(path), { headers: this.headers(), redirect: 'manual' }));
  }

  /** Posts a form as a browser does; the last page's CSRF token goes with it unless `csrf` says otherwise (null: none). */
  async post(path: string, fields: [string, string][] = [], o: { csrf?: string | null } = {}): Promise<HttpAnswer> {
    const form = new URLSearchParams(fields);
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    if (token !== null) form.set('_csrf', token);
    return this.remember(
      await fetch(this.url(path), { method: 'POST', headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }), body: form.toString(), redirect: 'manual' }),
    );
  }
}
