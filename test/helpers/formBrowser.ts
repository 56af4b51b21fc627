import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

let ipCounter = 0;

/**
 * What a browser keeps from a page it read: the cookies its `Set-Cookie` lines set or clear (in
 * `jar`), and the CSRF token of its forms, returned (null when the page has none). Shared by the
 * browsers of the tests, over `inject()` and over sockets.
 */
export function rememberPage(jar: Map<string, string>, setCookies: readonly string[], body: string): string | null {
  for (const line of setCookies) {
    const pair = line.split(';')[0]!;
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
  return /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? null;
}

/** The `Cookie` header of the jar. */
export function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

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
    this.csrf = rememberPage(this.cookies, ([] as string[]).concat(res.headers['set-cookie'] ?? []), res.body) ?? this.csrf;
    return res;
  }

  private cookieHeader() {
    return cookieHeader(this.cookies);
  }

  async get(url: string) {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() }, remoteAddress: this.ip }));
  }

  /**
   * Posts a form; the last page's token is added unless `csrf` says otherwise (null: none), or
   * sent in the `X-CSRF-Token` header instead when `header` is given.
   */
  async post(url: string, fields: [string, string][] = [], o: { csrf?: string | null; header?: string } = {}) {
    const form = new URLSearchParams(fields);
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    if (token !== null && o.header === undefined) form.set('_csrf', token);
    const headers: Record<string, string> = { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' };
    if (o.header !== undefined) headers['x-csrf-token'] = o.header;
    return this.remember(await this.app.inject({ method: 'POST', url, headers, payload: form.toString(), remoteAddress: this.ip }));
  }

  /** Posts a multipart form; the page's token goes first unless `csrf` says otherwise. */
  async upload(url: string, parts: UploadPart[], o: { csrf?: string | null } = {}) {
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    const { body, type } = multipartBody(token === null ? parts : [{ name: '_csrf', value: token }, ...parts]);
    return this.remember(await this.app.inject({ method: 'POST', url, headers: { cookie: this.cookieHeader(), 'content-type': type }, payload: body, remoteAddress: this.ip }));
  }
}

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
