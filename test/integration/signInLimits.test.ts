import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../../src/domain/totp.js';
import { createOperator, createUser } from '../../src/services/accounts.js';
import { beginEnrolment, confirmEnrolment } from '../../src/services/twoFactor.js';
import { createRateLimits } from '../../src/services/rateLimits.js';
import { accountLimitCases } from '../helpers/accountLimitCases.js';
import { createHarness, provisionDesk, type Harness } from '../helpers/harness.js';

/*
 * Sign-in that cannot be guessed behind a proxy. With TRUST_PROXY=true a client writes its own
 * X-Forwarded-For, so the per-IP limit is no guard: these suites change the address on every try.
 * What holds is the per-account lock (10 checks in 15 minutes, then 1, 2, 4 … minutes, cleared by
 * a success), the cap of 5 codes per second-factor challenge, and, with TRUST_PROXY naming the
 * proxies, an address a client cannot choose. Time moves on the injected clock.
 */

const PASSWORD = 'a long and proper passphrase';
const MIN = 60_000;
let counter = 0;
const email = (what: string) => `${what}${++counter}@limits.example`;

/** A browser over inject() whose every request may claim another address in X-Forwarded-For. */
class Client {
  cookies = new Map<string, string>();
  csrf: string | null = null;
  constructor(
    private readonly app: FastifyInstance,
    private readonly remoteAddress = '127.0.0.1',
  ) {}

  private remember(res: LightMyRequestResponse) {
    for (const line of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      if (pair.slice(eq + 1) === '' || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return res;
  }

  private headers(extra: Record<string, string>) {
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...extra };
  }

  async get(url: string, extra: Record<string, string> = {}) {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: this.headers(extra), remoteAddress: this.remoteAddress }));
  }

  async post(url: string, fields: [string, string][], extra: Record<string, string> = {}) {
    const form = new URLSearchParams(fields);
    if (this.csrf) form.set('_csrf', this.csrf);
    const headers = this.headers({ 'content-type': 'application/x-www-form-urlencoded', ...extra });
    return this.remember(await this.app.inject({ method: 'POST', url, headers, payload: form.toString(), remoteAddress: this.remoteAddress }));
  }
}

/** A new address for every request, as a client behind TRUST_PROXY=true can claim. */
const spoofed = (i: number) => ({ 'x-forwarded-for': `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}` });
let tries = 0;
const anyAddress = () => spoofed(++tries);

const challengeOf = (res: LightMyRequestResponse) => /name="challenge" value="([^"]+)"/.exec(res.body)![1]!;

/** A code no authenticator would show around `now` (the step before, the current one and the next are accepted). */
function wrongCode(key: Buffer, now: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totp(key, now + d)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

async function enrol(h: Harness, surface: 'cabinet' | 'office', accountId: string): Promise<Buffer> {
  const { secret } = await beginEnrolment(h.ctx, surface, accountId, 'x');
  const key = base32Decode(secret)!;
  expect(await confirmEnrolment(h.ctx, surface, accountId, totp(key, h.clock.now()))).toHaveLength(10);
  // the enrolment's code is spent: the sign-ins below use the next step's
  h.clock.advance(30_000);
  return key;
}

/** A harness behind TRUST_PROXY whose warnings land in `warnings`, with one merchant. */
async function harnessLoggingWarnings(trustProxy: string, warnings: string[]): Promise<{ h: Harness; merchantId: string }> {
  const lines = new Writable({
    write(chunk, _enc, done) {
      warnings.push(String(chunk));
      done();
    },
  });
  const h = await createHarness({ env: { TRUST_PROXY: trustProxy }, log: pino({ level: 'warn' }, lines) });
  return { h, merchantId: (await provisionDesk(h.app)).merchantId };
}

describe('behind TRUST_PROXY=true, where every client picks its own address', () => {
  let h: Harness;
  let merchantId: string;
  const warnings: string[] = [];
  beforeAll(async () => {
    ({ h, merchantId } = await harnessLoggingWarnings('true', warnings));
  });
  afterAll(() => h.close());

  const user = async () => {
    const e = email('owner');
    const u = await createUser(h.ctx, merchantId, { email: e, password: PASSWORD });
    return { email: e, id: u.id };
  };
  const cabinetSignIn = (c: Client, who: string, password: string, extra: Record<string, string> = anyAddress()) =>
    c.post('/cabinet/sign-in', [['email', who], ['password', password]], extra);

  it('warns at start that clients can then choose their address', () => {
    expect(warnings.join('')).toContain('TRUST_PROXY=true believes every X-Forwarded-For entry');
  });

  it('the 11th wrong password on one account answers 429 with Retry-After, whatever the address; the right one is refused too', async () => {
    const u = await user();
    const c = new Client(h.app);
    await c.get('/cabinet/sign-in');
    for (let i = 1; i <= 10; i++) expect((await cabinetSignIn(c, u.email, `wrong guess ${i}`)).statusCode, `guess ${i}`).toBe(401);
    const eleventh = await cabinetSignIn(c, u.email, 'wrong guess 11');
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.headers['retry-after']).toBe('60');
    expect(eleventh.headers['content-type']).toContain('text/html');
    expect(eleventh.body).toContain('Too many attempts');
    // the page says when: 12:01 UTC, a minute after the harness clock's 12:00
    expect(eleventh.body).toMatch(/<time datetime="2026-01-15T12:0\d:\d\d\.\d{3}Z">/);
    expect(eleventh.body).toContain('(1 min from now)');
    const right = await cabinetSignIn(c, u.email, PASSWORD);
    expect(right.statusCode).toBe(429);
    expect(c.cookies.has('pg_cabinet')).toBe(false);
    // a fresh browser at yet another address, and the email in other letters: the same account
    const other = new Client(h.app);
    await other.get('/cabinet/sign-in');
    expect((await cabinetSignIn(other, u.email.toUpperCase(), PASSWORD)).statusCode).toBe(429);
    // other accounts sign in as usual meanwhile
    const bystander = await user();
    expect((await cabinetSignIn(other, bystander.email, PASSWORD)).statusCode).toBe(303);
  });

  it('an email without an account is locked the same way, so the lock tells nothing', async () => {
    const real = await user();
    const ghost = email('ghost');
    const answers = async (who: string) => {
      const c = new Client(h.app);
      await c.get('/cabinet/sign-in');
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await cabinetSignIn(c, who, `wrong guess ${i}`)).statusCode);
      const last = await cabinetSignIn(c, who, 'wrong again');
      return { statuses, last: [last.statusCode, last.headers['retry-after']] };
    };
    const a = await answers(real.email);
    const b = await answers(ghost);
    expect(a).toEqual(b);
    expect(a.statuses).toEqual([...Array(10).fill(401), 429]);
    expect(a.last).toEqual([429, '60']);
  });

  it('the delay doubles with each lock (one more try between them), and a success clears it', async () => {
    const u = await user();
    const c = new Client(h.app);
    await c.get('/cabinet/sign-in');
    for (let i = 0; i < 10; i++) await cabinetSignIn(c, u.email, `wrong guess ${i}`);
    expect((await cabinetSignIn(c, u.email, 'wrong')).headers['retry-after']).toBe('60');
    h.clock.advance(MIN);
    expect((await cabinetSignIn(c, u.email, 'wrong after the first lock')).statusCode).toBe(401);
    const second = await cabinetSignIn(c, u.email, PASSWORD);
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('120');
    expect(second.body).toContain('(2 min from now)');
    h.clock.advance(2 * MIN);
    expect((await cabinetSignIn(c, u.email, 'wrong after the second lock')).statusCode).toBe(401);
    expect((await cabinetSignIn(c, u.email, PASSWORD)).headers['retry-after']).toBe('240');
    h.clock.advance(4 * MIN);
    // the owner, once the lock is over: signed in, and the count and the doubling are gone
    const ok = await cabinetSignIn(c, u.email, PASSWORD);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/cabinet');
    const again = new Client(h.app);
    await again.get('/cabinet/sign-in');
    for (let i = 1; i <= 10; i++) expect((await cabinetSignIn(again, u.email, `wrong guess ${i}`)).statusCode, `guess ${i} after the success`).toBe(401);
    expect((await cabinetSignIn(again, u.email, 'wrong')).headers['retry-after']).toBe('60');
  });

  it('nine wrong passwords, then the right one, then nine wrong again: never locked', async () => {
    const u = await user();
    const c = new Client(h.app);
    await c.get('/cabinet/sign-in');
    for (let i = 0; i < 9; i++) expect((await cabinetSignIn(c, u.email, `wrong guess ${i}`)).statusCode).toBe(401);
    expect((await cabinetSignIn(c, u.email, PASSWORD)).statusCode).toBe(303);
    const d = new Client(h.app);
    await d.get('/cabinet/sign-in');
    for (let i = 0; i < 9; i++) expect((await cabinetSignIn(d, u.email, `wrong guess ${i}`)).statusCode).toBe(401);
    expect((await cabinetSignIn(d, u.email, PASSWORD)).statusCode).toBe(303);
  });

  it('the 429 page is in the reader\'s language', async () => {
    const u = await user();
    const c = new Client(h.app);
    await c.get('/cabinet/sign-in');
    for (let i = 0; i < 10; i++) await cabinetSignIn(c, u.email, `wrong guess ${i}`);
    const ru = await cabinetSignIn(c, u.email, PASSWORD, { ...anyAddress(), 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.5' });
    expect(ru.statusCode).toBe(429);
    expect(ru.body).toContain('<html lang="ru">');
    expect(ru.body).toContain('Слишком много попыток');
    expect(ru.body).toContain('через 1 мин');
    const tr = await c.post('/cabinet/sign-in?lang=tr', [['email', u.email], ['password', PASSWORD]], anyAddress());
    expect(tr.body).toContain('Çok fazla deneme');
  });

  it('the back office: the same lock on operators, from any address', async () => {
    const e = email('operator');
    await createOperator(h.ctx, { email: e, password: PASSWORD, role: 'admin' });
    const c = new Client(h.app);
    await c.get('/office/sign-in');
    for (let i = 1; i <= 10; i++) expect((await c.post('/office/sign-in', [['email', e], ['password', `wrong guess ${i}`]], anyAddress())).statusCode).toBe(401);
    const eleventh = await c.post('/office/sign-in', [['email', e], ['password', PASSWORD]], anyAddress());
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.headers['retry-after']).toBe('60');
    expect(eleventh.body).toMatch(/\/assets\/office\.[^"]+\.css/);
    h.clock.advance(MIN);
    // required two-factor is not set up yet: the password alone opens the session (and the enrolment page)
    expect((await c.post('/office/sign-in', [['email', e], ['password', PASSWORD]], anyAddress())).statusCode).toBe(303);
  });

  describe('the second factor', () => {
    it('the 6th code on one challenge is refused, the right one included; a new password step gives a new challenge', async () => {
      const u = await user();
      const key = await enrol(h, 'cabinet', u.id);
      const c = new Client(h.app);
      await c.get('/cabinet/sign-in');
      const step = await cabinetSignIn(c, u.email, PASSWORD);
      expect(step.statusCode).toBe(200);
      const challenge = challengeOf(step);
      for (let i = 1; i <= 5; i++) {
        const res = await c.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', wrongCode(key, h.clock.now())]], anyAddress());
        expect(res.statusCode, `code ${i}`).toBe(401);
        expect(res.body).toContain('That code is not right');
      }
      const sixth = await c.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', totp(key, h.clock.now())]], anyAddress());
      expect(sixth.statusCode).toBe(401);
      expect(sixth.body).toContain('Too many codes were tried for this sign-in. Enter your password again.');
      expect(c.cookies.has('pg_cabinet')).toBe(false);
      expect((await c.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', totp(key, h.clock.now())]], anyAddress())).statusCode).toBe(401);
      // the right code still works on a new challenge: it was never tried on the spent one
      const next = challengeOf(await cabinetSignIn(c, u.email, PASSWORD));
      const ok = await c.post('/cabinet/sign-in/code', [['challenge', next], ['code', totp(key, h.clock.now())]], anyAddress());
      expect(ok.statusCode).toBe(303);
      expect(c.cookies.has('pg_cabinet')).toBe(true);
    });

    it('codes count against the account too: a known password buys a few guesses per lock, not a challenge after another', async () => {
      const u = await user();
      const key = await enrol(h, 'cabinet', u.id);
      const c = new Client(h.app);
      await c.get('/cabinet/sign-in');
      const statuses: number[] = [];
      for (let round = 0; round < 2; round++) {
        const step = await cabinetSignIn(c, u.email, PASSWORD);
        statuses.push(step.statusCode);
        if (step.statusCode !== 200) break;
        const challenge = challengeOf(step);
        for (let i = 0; i < 5; i++) statuses.push((await c.post('/cabinet/sign-in/code', [['challenge', challenge], ['code', wrongCode(key, h.clock.now())]], anyAddress())).statusCode);
      }
      // password, five codes, password, three codes: the tenth check locks the account
      expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 200, 401, 401, 401, 429, 429]);
      expect((await cabinetSignIn(c, u.email, PASSWORD)).statusCode).toBe(429);
    });

    it('the back office: 5 codes per challenge, then sign in again', async () => {
      const e = email('admin');
      const op = await createOperator(h.ctx, { email: e, password: PASSWORD, role: 'admin' });
      const key = await enrol(h, 'office', op.id);
      const c = new Client(h.app);
      await c.get('/office/sign-in');
      const challenge = challengeOf(await c.post('/office/sign-in', [['email', e], ['password', PASSWORD]], anyAddress()));
      for (let i = 0; i < 5; i++) expect((await c.post('/office/sign-in/code', [['challenge', challenge], ['code', wrongCode(key, h.clock.now())]], anyAddress())).statusCode).toBe(401);
      const sixth = await c.post('/office/sign-in/code', [['challenge', challenge], ['code', totp(key, h.clock.now())]], anyAddress());
      expect(sixth.statusCode).toBe(401);
      expect(sixth.body).toContain('Too many codes were tried for this sign-in');
      expect(c.cookies.has('pg_office')).toBe(false);
      const next = challengeOf(await c.post('/office/sign-in', [['email', e], ['password', PASSWORD]], anyAddress()));
      expect((await c.post('/office/sign-in/code', [['challenge', next], ['code', totp(key, h.clock.now())]], anyAddress())).statusCode).toBe(303);
    });
  });

  describe('passwords asked again inside a session', () => {
    const signedIn = async () => {
      const u = await user();
      const c = new Client(h.app);
      await c.get('/cabinet/sign-in');
      expect((await cabinetSignIn(c, u.email, PASSWORD)).statusCode).toBe(303);
      await c.get('/cabinet/account');
      return { u, c };
    };

    it('changing the password: the 11th wrong current password answers 429, and so do the right one and the sign-in form', async () => {
      const { u, c } = await signedIn();
      for (let i = 1; i <= 10; i++) {
        const res = await c.post('/cabinet/account/password', [['currentPassword', `wrong guess ${i}`], ['newPassword', 'a brand new passphrase']]);
        expect(res.statusCode, `guess ${i}`).toBe(400);
        expect(res.body).toContain('The current password is not right.');
      }
      const locked = await c.post('/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'a brand new passphrase']]);
      expect(locked.statusCode).toBe(429);
      expect(locked.headers['retry-after']).toBe('60');
      expect(locked.body).toContain('href="/cabinet/account"');
      // the count is the account's: sign-in is locked as well
      const other = new Client(h.app);
      await other.get('/cabinet/sign-in');
      expect((await cabinetSignIn(other, u.email, PASSWORD)).statusCode).toBe(429);
      h.clock.advance(MIN);
      await c.get('/cabinet/account');
      expect((await c.post('/cabinet/account/password', [['currentPassword', PASSWORD], ['newPassword', 'a brand new passphrase']])).statusCode).toBe(303);
    });

    it('turning two-factor off and new recovery codes count on the same account', async () => {
      const { u, c } = await signedIn();
      await enrol(h, 'cabinet', u.id);
      await c.get('/cabinet/account');
      for (let i = 0; i < 5; i++) expect((await c.post('/cabinet/account/two-factor/disable', [['password', `wrong guess ${i}`]])).statusCode).toBe(400);
      for (let i = 0; i < 5; i++) expect((await c.post('/cabinet/account/two-factor/recovery-codes', [['password', `wrong guess ${i}`]])).statusCode).toBe(400);
      const locked = await c.post('/cabinet/account/two-factor/disable', [['password', PASSWORD]]);
      expect(locked.statusCode).toBe(429);
      expect(locked.headers['retry-after']).toBe('60');
      expect((await c.post('/cabinet/account/two-factor/recovery-codes', [['password', PASSWORD]])).statusCode).toBe(429);
      h.clock.advance(MIN);
      await c.get('/cabinet/account');
      expect((await c.post('/cabinet/account/two-factor/disable', [['password', PASSWORD]])).headers.location).toBe('/cabinet/account?done=two-factor-off');
    });
  });
});

describe('TRUST_PROXY naming the proxies', () => {
  let h: Harness;
  let merchantId: string;
  const warnings: string[] = [];
  beforeAll(async () => {
    ({ h, merchantId } = await harnessLoggingWarnings('10.0.0.0/8, 192.0.2.1', warnings));
  });
  afterAll(() => h.close());

  it('logs no warning at start', () => {
    expect(warnings.join('')).not.toContain('TRUST_PROXY');
  });

  it('a spoofed X-Forwarded-For does not change the limited address: the 11th try through the proxy answers 429', async () => {
    // The proxy (10.0.0.7) appends the address it saw; whatever the client wrote stands before it.
    const c = new Client(h.app, '10.0.0.7');
    await c.get('/cabinet/sign-in', { 'x-forwarded-for': '203.0.113.77' });
    for (let i = 1; i <= 10; i++) {
      const res = await c.post('/cabinet/sign-in', [['email', email(`guess${i}-`)], ['password', 'wrong guess']], { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.77` });
      expect(res.statusCode, `try ${i}`).toBe(401);
    }
    const eleventh = await c.post('/cabinet/sign-in', [['email', email('guess11-')], ['password', 'wrong guess']], { 'x-forwarded-for': '198.51.100.11, 203.0.113.77' });
    expect(eleventh.statusCode).toBe(429);
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
    // another client behind the same proxy is served
    expect((await c.post('/cabinet/sign-in', [['email', email('guess12-')], ['password', 'wrong guess']], { 'x-forwarded-for': '198.51.100.11, 203.0.113.78' })).statusCode).toBe(401);
  });

  it('a client that reaches the gateway directly is its connection, whatever it forwards', async () => {
    const c = new Client(h.app, '198.51.100.200');
    await c.get('/cabinet/sign-in');
    for (let i = 1; i <= 10; i++) {
      expect((await c.post('/cabinet/sign-in', [['email', email('direct')], ['password', 'wrong guess']], { 'x-forwarded-for': `10.0.0.${i}` })).statusCode).toBe(401);
    }
    expect((await c.post('/cabinet/sign-in', [['email', email('direct')], ['password', 'wrong guess']], { 'x-forwarded-for': '10.0.0.99' })).statusCode).toBe(429);
  });

  it('a session records the address the proxy saw, not the one the client wrote', async () => {
    const e = email('owner');
    await createUser(h.ctx, merchantId, { email: e, password: PASSWORD });
    const c = new Client(h.app, '192.0.2.1');
    await c.get('/cabinet/sign-in');
    expect((await c.post('/cabinet/sign-in', [['email', e], ['password', PASSWORD]], { 'x-forwarded-for': '1.2.3.4, 10.9.9.9, 203.0.113.90' })).statusCode).toBe(303);
    const { rows } = await h.ctx.db.query<{ ip: string }>(`SELECT s.ip FROM sessions s JOIN users u ON u.id = s.account_id WHERE u.email = $1`, [e]);
    expect(rows.map((r) => r.ip)).toEqual(['203.0.113.90']);
  });
});

describe('TRUST_PROXY as a hop count', () => {
  it('1 believes the one proxy in front: the client is the last forwarded address', async () => {
    const h = await createHarness({ env: { TRUST_PROXY: '1' } });
    try {
      const merchantId = (await provisionDesk(h.app)).merchantId;
      const e = email('hops');
      await createUser(h.ctx, merchantId, { email: e, password: PASSWORD });
      const c = new Client(h.app, '10.0.0.7');
      await c.get('/cabinet/sign-in');
      expect((await c.post('/cabinet/sign-in', [['email', e], ['password', PASSWORD]], { 'x-forwarded-for': '1.2.3.4, 203.0.113.91' })).statusCode).toBe(303);
      const { rows } = await h.ctx.db.query<{ ip: string }>(`SELECT s.ip FROM sessions s JOIN users u ON u.id = s.account_id WHERE u.email = $1`, [e]);
      expect(rows.map((r) => r.ip)).toEqual(['203.0.113.91']);
    } finally {
      await h.close();
    }
  });
});

describe('the account lock and the challenge cap in one process', () => {
  const limits = createRateLimits(null);
  accountLimitCases(() => [limits, limits]);
});
