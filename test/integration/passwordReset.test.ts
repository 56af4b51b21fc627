import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep } from '../../src/domain/totp.js';
import { MailSender } from '../../src/mail/sender.js';
import { PASSWORD_RESET_TTL_MS } from '../../src/services/passwordResets.js';
import { CHALLENGE_ATTEMPTS, PASSWORD_RESET_ADDRESS_LIMIT, PASSWORD_RESET_CLIENT_LIMIT } from '../../src/services/rateLimits.js';
import { beginEnrolment, confirmEnrolment } from '../../src/services/twoFactor.js';
import { admin, createHarness, json, type Harness } from '../helpers/harness.js';
import { HttpBrowser, type HttpAnswer } from '../helpers/httpBrowser.js';
import { freePort } from '../helpers/ports.js';
import { TestMailServer, type ArrivedMail } from '../helpers/smtp.js';

/*
 * Forgotten passwords and invitations by mail, end to end: the app listens on a socket, a real
 * mail server (smtp-server) takes the mails, and the links in them are opened as they arrived.
 * "Forgot password?" answers the same whether the address has an account or not; the link works
 * once, for 30 minutes, signs out every session and in the back office needs the two-factor code.
 * Run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 2026';
const OPERATOR_PASSWORD = 'operator passphrase 2026';

let smtp: TestMailServer;
let h: Harness & { origin: string };

beforeAll(async () => {
  smtp = new TestMailServer();
  const smtpPort = await smtp.start();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const harness = await createHarness({
    env: { PUBLIC_BASE_URL: origin, TRUST_PROXY: 'loopback', OFFICE_REQUIRE_2FA: 'false', SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, MAIL_FROM: 'Paygate <no-reply@pay.example.test>' },
  });
  await harness.app.listen({ port, host: '127.0.0.1' });
  h = { ...harness, origin };
}, 600_000);
afterAll(async () => {
  await h?.close();
  await smtp?.stop();
});

/** The sender's pass, as the worker runs it: every due mail handed to the mail server. */
async function deliver(): Promise<void> {
  const sender = new MailSender(h.ctx);
  try {
    while ((await sender.runOnce()) > 0);
  } finally {
    sender.close();
  }
}

/** The one mail that arrived for an address since `before` mails had, and its link to `path`. */
function lastMail(address: string, path: 'cabinet/password-reset' | 'office/password-reset' | 'cabinet/invite', before: number): { mail: ArrivedMail; link: string } {
  const mails = smtp.to(address);
  expect(mails, `mails to ${address}`).toHaveLength(before + 1);
  const mail = mails[mails.length - 1]!;
  const token = path === 'cabinet/invite' ? 'inv_[A-Za-z0-9_-]{43}' : 'rst_[A-Za-z0-9_-]{43}';
  const link = new RegExp(`${h.origin}/${path}/${token}`).exec(mail.text)?.[0];
  expect(link, mail.text).toBeTruthy();
  expect(mail.html).toContain(`href="${link}"`);
  return { mail, link: link! };
}

let companyCounter = 0;
async function signUp(lang: string | null = null): Promise<{ b: HttpBrowser; email: string }> {
  const b = new HttpBrowser(h.origin, undefined, lang);
  const email = `owner${++companyCounter}@reset${companyCounter}.example`;
  await b.get('/cabinet/sign-up');
  const res = await b.post('/cabinet/sign-up', [['company', `Reset Shop ${companyCounter}`], ['email', email], ['password', PASSWORD]]);
  expect(res.statusCode, res.body).toBe(303);
  return { b, email };
}

async function signIn(surface: 'cabinet' | 'office', email: string, password: string): Promise<{ b: HttpBrowser; res: HttpAnswer }> {
  const b = new HttpBrowser(h.origin);
  await b.get(`/${surface}/sign-in`);
  return { b, res: await b.post(`/${surface}/sign-in`, [['email', email], ['password', password]]) };
}

async function askForReset(surface: 'cabinet' | 'office', email: string, b = new HttpBrowser(h.origin)): Promise<HttpAnswer> {
  const form = await b.get(`/${surface}/password-reset`);
  expect(form.statusCode).toBe(200);
  return b.post(`/${surface}/password-reset`, [['email', email]]);
}

const queuedFor = async (address: string) =>
  (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_outbox WHERE lower(to_address) = lower($1)', [address])).rows[0]!.n;

async function auditOf(objectId: string): Promise<string[]> {
  return (json(await admin(h.app, 'GET', `/audit?objectId=${objectId}`)).result.items as { action: string }[]).map((a) => a.action);
}

describe('forgotten passwords in the cabinet', () => {
  it('mails a link in the user\'s language that sets a new password once and signs out every session', async () => {
    const { b: owner, email } = await signUp('ru-RU,ru;q=0.9,en;q=0.5');
    const { b: elsewhere, res: signedIn } = await signIn('cabinet', email, PASSWORD);
    expect(signedIn.statusCode).toBe(303);
    expect((await elsewhere.get('/cabinet')).statusCode).toBe(200);

    const f = new HttpBrowser(h.origin);
    expect((await f.get('/cabinet/sign-in')).body).toContain('<a href="/cabinet/password-reset">Forgot password?</a>');
    const asked = await askForReset('cabinet', email, f);
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe('/cabinet/password-reset/sent');
    expect((await f.get('/cabinet/password-reset/sent')).body).toContain('a mail with a link to choose a new password is on its way');
    // Nothing is sent in the request's path: the mail waits for the sender.
    expect(smtp.to(email)).toEqual([]);

    await deliver();
    const { mail, link } = lastMail(email, 'cabinet/password-reset', 0);
    expect(mail.language).toBe('ru');
    expect(mail.subject).toBe('Сброс пароля Paygate');
    expect(mail.text).toContain('кабинета мерчанта');
    expect(mail.html).toContain('<html lang="ru">');
    // Only a hash of the link's token is kept.
    const token = link.split('/').pop()!;
    const stored = await h.ctx.db.query<{ token_hash: string }>('SELECT token_hash FROM password_resets WHERE token_hash IN ($1, $2)', [token, createHash('sha256').update(token).digest('hex')]);
    expect(stored.rows.map((r) => r.token_hash)).toEqual([createHash('sha256').update(token).digest('hex')]);

    const page = await f.get(link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`For ${email}.`);
    expect(page.body).not.toContain('name="code"');
    // The same password rules as sign-up; the link still works after a refusal.
    const weak = await f.post(link, [['username', email], ['password', 'password123']]);
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toContain('The new password is too common');
    const short = await f.post(link, [['password', 'short']]);
    expect(short.statusCode).toBe(400);
    const done = await f.post(link, [['username', email], ['password', NEW_PASSWORD]]);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/cabinet/sign-in?reset=1');
    expect((await f.get('/cabinet/sign-in?reset=1')).body).toContain('Your password is changed, and every session of your account is signed out.');

    // Every session ended: the one it signed up with and the one elsewhere.
    expect((await owner.get('/cabinet')).headers.location).toBe('/cabinet/sign-in');
    expect((await elsewhere.get('/cabinet')).headers.location).toBe('/cabinet/sign-in');
    expect((await signIn('cabinet', email, PASSWORD)).res.statusCode).toBe(401);
    expect((await signIn('cabinet', email, NEW_PASSWORD)).res.headers.location).toBe('/cabinet');

    // Used: the link opens nothing and changes nothing.
    const again = await f.get(link);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link is no longer valid');
    expect((await f.post(link, [['password', 'yet another passphrase 1']])).statusCode).toBe(410);
    expect((await signIn('cabinet', email, NEW_PASSWORD)).res.statusCode).toBe(303);

    const userId = (await h.ctx.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email])).rows[0]!.id;
    expect(await auditOf(userId)).toEqual(['user.password-reset', 'user.password-reset-requested']);
  });

  it('answers the same whether the address has an account or not, and mails only the one that has', async () => {
    const { email } = await signUp();
    const stranger = 'nobody-here@reset.example';
    const known = await askForReset('cabinet', email);
    const unknown = await askForReset('cabinet', stranger);
    for (const r of [known, unknown]) {
      expect(r.statusCode).toBe(303);
      expect(r.headers.location).toBe('/cabinet/password-reset/sent');
      expect(r.body).toBe('');
    }
    // Letter case and spaces do not matter to the account either.
    expect((await askForReset('cabinet', `  ${email.toUpperCase()} `)).headers.location).toBe('/cabinet/password-reset/sent');
    expect(await queuedFor(email)).toBe(2);
    expect(await queuedFor(stranger)).toBe(0);
    await deliver();
    expect(smtp.to(stranger)).toEqual([]);
    // An address of the back office is not one of the cabinet, and the other way round.
    expect((await askForReset('office', email)).headers.location).toBe('/office/password-reset/sent');
    expect(await queuedFor(email)).toBe(2);
  });

  it('refuses what is not an address with the form again, and a form without its CSRF token', async () => {
    const b = new HttpBrowser(h.origin);
    await b.get('/cabinet/password-reset');
    const bad = await b.post('/cabinet/password-reset', [['email', 'not an address']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="not an address"');
    expect(bad.body).toContain('Email: must be an email address.');
    expect((await b.post('/cabinet/password-reset', [['email', 'x@reset.example']], { csrf: null })).statusCode).toBe(403);
    expect((await b.post('/cabinet/password-reset', [['email', 'x@reset.example'], ['extra', '1']])).statusCode).toBe(400);
  });

  it('a link lapses after 30 minutes; an unknown or malformed one opens nothing', async () => {
    const { email } = await signUp();
    const before = smtp.to(email).length;
    await askForReset('cabinet', email);
    await deliver();
    const { link } = lastMail(email, 'cabinet/password-reset', before);
    const b = new HttpBrowser(h.origin);
    h.clock.advance(PASSWORD_RESET_TTL_MS - 1_000);
    expect((await b.get(link)).statusCode).toBe(200);
    h.clock.advance(2_000);
    expect((await b.get(link)).statusCode).toBe(410);
    expect((await b.post(link, [['password', NEW_PASSWORD]])).statusCode).toBe(410);
    expect((await signIn('cabinet', email, PASSWORD)).res.statusCode).toBe(303);
    for (const path of [`/cabinet/password-reset/rst_${'A'.repeat(43)}`, '/cabinet/password-reset/rst_short', '/cabinet/password-reset/%00']) {
      expect((await b.get(path)).statusCode, path).toBe(410);
    }
  });

  it(`mails at most ${PASSWORD_RESET_ADDRESS_LIMIT.points} links an hour per address (the same answer after), and takes ${PASSWORD_RESET_CLIENT_LIMIT.points} requests an hour per client`, async () => {
    const { email } = await signUp();
    for (let i = 0; i < PASSWORD_RESET_ADDRESS_LIMIT.points + 2; i++) {
      // From different clients: the limit is the address's.
      expect((await askForReset('cabinet', email)).headers.location).toBe('/cabinet/password-reset/sent');
    }
    expect(await queuedFor(email)).toBe(PASSWORD_RESET_ADDRESS_LIMIT.points);
    const one = new HttpBrowser(h.origin);
    for (let i = 0; i < PASSWORD_RESET_CLIENT_LIMIT.points; i++) {
      expect((await askForReset('cabinet', `someone${i}@limit.example`, one)).statusCode).toBe(303);
    }
    const refused = await askForReset('cabinet', 'one-more@limit.example', one);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    // Another client is not held back.
    expect((await askForReset('cabinet', 'one-more@limit.example')).statusCode).toBe(303);
    h.clock.advance(3_600_000);
    expect((await askForReset('cabinet', email, one)).statusCode).toBe(303);
    expect(await queuedFor(email)).toBe(PASSWORD_RESET_ADDRESS_LIMIT.points + 1);
    await deliver();
  });
});

describe('forgotten passwords in the back office', () => {
  const codeAt = (secret: string, shift = 0) => hotp(base32Decode(secret)!, totpStep(h.clock.now()) + shift);
  let secret: string;
  let operatorId: string;
  const email = 'reset-admin@paygate.example';

  beforeAll(async () => {
    const created = await admin(h.app, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role: 'admin' });
    operatorId = json(created).result.id;
    ({ secret } = await beginEnrolment(h.ctx, 'office', operatorId, email));
    expect(await confirmEnrolment(h.ctx, 'office', operatorId, codeAt(secret))).toHaveLength(10);
  });

  async function officeSignIn(password: string): Promise<HttpBrowser> {
    const { b, res } = await signIn('office', email, password);
    expect(res.statusCode, res.body).toBe(200);
    h.clock.advance(30_000);
    const done = await b.post('/office/sign-in/code', [['challenge', /name="challenge" value="([^"]+)"/.exec(res.body)![1]!], ['code', codeAt(secret)]]);
    expect(done.headers.location).toBe('/office');
    return b;
  }

  it('the new password needs the two-factor code; every session ends, and sign-in asks for the code as before', async () => {
    const session = await officeSignIn(OPERATOR_PASSWORD);
    expect((await session.get('/office')).statusCode).toBe(200);
    const f = new HttpBrowser(h.origin);
    expect((await f.get('/office/sign-in')).body).toContain('<a href="/office/password-reset">Forgot password?</a>');
    expect((await askForReset('office', email, f)).headers.location).toBe('/office/password-reset/sent');
    await deliver();
    const { mail, link } = lastMail(email, 'office/password-reset', 0);
    expect(mail.language).toBe('en');
    expect(mail.subject).toBe('Reset your Paygate password');
    expect(mail.text).toContain('Someone asked to reset the password of your Paygate back office account.');

    const page = await f.get(link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="code"');
    const noCode = await f.post(link, [['password', NEW_PASSWORD]]);
    expect(noCode.statusCode).toBe(400);
    expect(noCode.body).toContain('Enter the code from your authenticator app');
    h.clock.advance(30_000);
    const right = codeAt(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await f.post(link, [['password', NEW_PASSWORD], ['code', wrong]]);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('That code is not valid');
    // Nothing changed yet.
    expect((await session.get('/office')).statusCode).toBe(200);

    const done = await f.post(link, [['password', NEW_PASSWORD], ['code', right]]);
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe('/office/sign-in?reset=1');
    expect((await session.get('/office')).headers.location).toBe('/office/sign-in');
    expect((await signIn('office', email, OPERATOR_PASSWORD)).res.statusCode).toBe(401);
    await officeSignIn(NEW_PASSWORD);
    expect((await f.get(link)).statusCode).toBe(410);
    expect(await auditOf(operatorId)).toEqual(expect.arrayContaining(['operator.password-reset', 'operator.password-reset-requested']));
  });

  it(`a link takes ${CHALLENGE_ATTEMPTS} wrong codes; then it is void, the right code included`, async () => {
    const before = smtp.to(email).length;
    await askForReset('office', email);
    await deliver();
    const { link } = lastMail(email, 'office/password-reset', before);
    const f = new HttpBrowser(h.origin);
    await f.get(link);
    h.clock.advance(30_000);
    const right = codeAt(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < CHALLENGE_ATTEMPTS; i++) expect((await f.post(link, [['password', 'never this passphrase'], ['code', wrong]])).statusCode).toBe(400);
    const spent = await f.post(link, [['password', 'never this passphrase'], ['code', right]]);
    expect(spent.statusCode).toBe(410);
    expect(spent.body).toContain('Too many wrong codes were tried with it.');
    expect((await f.get(link)).statusCode).toBe(410);
    // The password stands; the account's lock clears once its owner signs in.
    h.clock.advance(30_000);
    await officeSignIn(NEW_PASSWORD);
  });

  it('a disabled operator gets the same answer and no mail', async () => {
    const off = 'disabled-op@paygate.example';
    const id = json(await admin(h.app, 'POST', '/operators', { email: off, password: OPERATOR_PASSWORD, role: 'support' })).result.id;
    expect((await admin(h.app, 'PATCH', `/operators/${id}`, { disabled: true })).statusCode).toBe(200);
    const r = await askForReset('office', off);
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('/office/password-reset/sent');
    expect(await queuedFor(off)).toBe(0);
  });
});

describe('team invitations by mail', () => {
  it('the invitation link goes by mail in the inviting browser\'s language; the page shows it once; the list says when it is mailed', async () => {
    const { b: owner } = await signUp('tr-TR,tr;q=0.9');
    const invitee = 'new.member@reset.example';
    await owner.get('/cabinet/team');
    const res = await owner.post('/cabinet/team', [['email', invitee], ['role', 'developer']]);
    expect(res.statusCode, res.body).toBe(201);
    const shown = new RegExp(`${h.origin}/cabinet/invite/inv_[A-Za-z0-9_-]{43}`).exec(res.body)![0];
    expect(res.body).toContain(`A mail with this link is on its way to ${invitee}.`);
    const waiting = (await owner.get('/cabinet/team')).body;
    expect(waiting).toContain('Invited (UTC)');
    expect(waiting).toContain('>Mailing<');
    expect(waiting).not.toContain('>Mailed<');

    await deliver();
    const { mail, link } = lastMail(invitee, 'cabinet/invite', 0);
    expect(link).toBe(shown);
    expect(mail.language).toBe('tr');
    expect(mail.subject).toMatch(/^Paygate: Reset Shop \d+ ekibine davet$/);
    expect(mail.text).toContain('"geliştirici" rolüyle');
    expect((await owner.get('/cabinet/team')).body).toContain('>Mailed<');

    // The invitee opens the mailed link in a Kazakh browser and joins: their own mails are in Kazakh.
    const joiner = new HttpBrowser(h.origin, undefined, 'kk');
    expect((await joiner.get(link)).statusCode).toBe(200);
    const joined = await joiner.post(link, [['username', invitee], ['password', PASSWORD]]);
    expect(joined.statusCode, joined.body).toBe(303);
    expect(joined.headers.location).toBe('/cabinet');
    expect((await joiner.get('/cabinet')).statusCode).toBe(200);
    await askForReset('cabinet', invitee);
    await deliver();
    expect(lastMail(invitee, 'cabinet/password-reset', 1).mail.subject).toBe('Paygate құпиясөзін қалпына келтіру');
  });
});
