import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

let ipCounter = 0;

/**
 * A browser over `inject()`: a cookie jar, one client address, and the CSRF token of the last page
 * it read, so signed-in surfaces are exercised the way a person uses them (forms and redirects).
 */
export class FormBrowser {
  cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(
    private readonly app: FastifyInstance,
    readonly ip = `203.0.113.${++ipCounter}`,
  ) {}

  private remember(res: LightMyRequestResponse) {
    for (const line of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
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
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() }, remoteAddress: this.ip }));
  }

  /** Posts a form; the last page's token is added unless `csrf` says otherwise (null: none). */
  async post(url: string, fields: [string, string][] = [], o: { csrf?: string | null } = {}) {
    const form = new URLSearchParams(fields);
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    if (token !== null) form.set('_csrf', token);
    const headers = { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.remember(await this.app.inject({ method: 'POST', url, headers, payload: form.toString(), remoteAddress: this.ip }));
  }
}
