import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/context.js';
import { queueMail, type MailRequest } from '../../src/mail/outbox.js';
import { MAIL_MAX_ATTEMPTS, MailSender } from '../../src/mail/sender.js';
import { renderMail } from '../../src/mail/templates.js';
import { admin, createHarness, json, type Harness } from '../helpers/harness.js';
import { HttpBrowser } from '../helpers/httpBrowser.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/ports.js';
import { SilentServer, TestMailServer } from '../helpers/smtp.js';

/*
 * Mail through a real mail server (smtp-server on a loopback port): queued mails leave from the
 * outbox in the recipient's language, as text and HTML; a server that is down, slow or refusing is
 * retried or given up as it deserves, never sending a mail twice; without SMTP_URL every mail is
 * kept and shown to admins at /office/mail. The app listens on a socket and pages are read over
 * HTTP. Run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

const LOGIN = { user: 'paygate', pass: 's3cret pass:word' };
const SMTP_URL = (port: number, pass = LOGIN.pass) => `smtp://${LOGIN.user}:${encodeURIComponent(pass)}@127.0.0.1:${port}`;
const PASSWORD = 'operator passphrase 2026';

interface Served extends Harness {
  origin: string;
}

/** A harness listening on a loopback port, its public address that port, believing the loopback proxy's X-Forwarded-For. */
async function serve(env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createHarness({ env: { PUBLIC_BASE_URL: origin, TRUST_PROXY: 'loopback', OFFICE_REQUIRE_2FA: 'false', ...env } });
  await h.app.listen({ port, host: '127.0.0.1' });
  return { ...h, origin };
}

let smtp: TestMailServer;
let h: Served;

beforeAll(async () => {
  smtp = new TestMailServer({ login: LOGIN });
  const port = await smtp.start();
  h = await serve({ SMTP_URL: SMTP_URL(port), MAIL_FROM: 'Paygate Test <mail@pay.example.test>' });
}, 600_000);
afterAll(async () => {
  await h?.close();
  await smtp?.stop();
});

const CABINET = 'https://pay.example.test/cabinet';

async function queue(mail: MailRequest): Promise<string> {
  return h.ctx.db.tx((q) => queueMail(q, new Date(h.clock.now()), mail));
}

interface Row {
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  sent_at: Date | null;
  data: Record<string, unknown>;
}
async function row(id: string): Promise<Row> {
  return (await h.ctx.db.query<Row>('SELECT status, attempts, last_error, next_attempt_at, sent_at, data FROM mail_outbox WHERE id = $1', [id])).rows[0]!;
}

/** The context with the mail server at another port (or with another password). */
function pointedAt(port: number, password = LOGIN.pass): Ctx {
  return { ...h.ctx, config: { ...h.ctx.config, smtp: { ...h.ctx.config.smtp!, port, password } } };
}

async function signIn(served: Served, email: string): Promise<HttpBrowser> {
  const b = new HttpBrowser(served.origin);
  await b.get('/office/sign-in');
  const res = await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]]);
  expect(res.statusCode, res.body).toBe(303);
  expect(res.headers.location).toBe('/office');
  return b;
}

describe('sending through the mail server', () => {
  it('every kind of mail arrives in its recipient\'s language, as text and HTML, from MAIL_FROM, logged in with the URL\'s credentials', async () => {
    const mails: MailRequest[] = [
      { to: 'approved@shop.example', lang: 'ru', kind: 'application-approved', data: { merchantName: 'Чайная лавка', cabinetUrl: CABINET } },
      { to: 'rejected@shop.example', lang: 'kk', kind: 'application-rejected', data: { merchantName: 'Shop <One>', reason: 'No website & no contact', cabinetUrl: CABINET } },
      { to: 'requested@shop.example', lang: 'hi', kind: 'withdrawal-requested', data: { merchantName: 'Chai', requestId: 'wdr_1', amountUsd: '1500.50', destination: 'USDT TRC-20 TQ1', cabinetUrl: `${CABINET}/withdrawals` } },
      { to: 'paid@shop.example', lang: 'tr', kind: 'withdrawal-paid', data: { merchantName: 'Çay', requestId: 'wdr_2', amountUsd: '99.99', destination: 'TR33 0006 1005', reference: 'EFT-2026-1', cabinetUrl: `${CABINET}/withdrawals` } },
      { to: 'refused@shop.example', lang: 'az', kind: 'withdrawal-rejected', data: { merchantName: 'Çay', requestId: 'wdr_3', amountUsd: '10', destination: 'AZ21 NABZ', reason: 'Account closed', cabinetUrl: `${CABINET}/withdrawals` } },
      { to: 'invited@shop.example', lang: 'uz', kind: 'invitation', data: { merchantName: 'Choy', role: 'viewer', link: `${h.origin}/cabinet/invite/inv_x`, expiresAt: '2026-01-22T12:00:00Z' } },
      { to: 'reset@shop.example', lang: 'ko', kind: 'password-reset', data: { surface: 'cabinet', link: `${h.origin}/cabinet/password-reset/rst_x`, expiresAt: '2026-01-15T12:30:00Z' } },
    ];
    const ids = [];
    for (const m of mails) ids.push(await queue(m));
    // A mail queued in a transaction that rolls back never existed.
    await expect(
      h.ctx.db.tx(async (q) => {
        await queueMail(q, new Date(h.clock.now()), { to: 'ghost@shop.example', kind: 'application-approved', data: { merchantName: 'Ghost', cabinetUrl: CABINET } });
        throw new Error('the change this mail tells failed');
      }),
    ).rejects.toThrow(/failed/);

    const sender = new MailSender(h.ctx);
    try {
      expect(await sender.runOnce()).toBe(mails.length);
      expect(await sender.runOnce()).toBe(0);
    } finally {
      sender.close();
    }
    expect(smtp.to('ghost@shop.example')).toEqual([]);
    for (const [i, m] of mails.entries()) {
      const [got, ...more] = smtp.to(m.to);
      expect(more, m.to).toEqual([]);
      const expected = renderMail(m);
      expect(got!.subject).toBe(expected.subject);
      expect(got!.from).toBe('"Paygate Test" <mail@pay.example.test>');
      expect(got!.envelopeFrom).toBe('mail@pay.example.test');
      expect(got!.user).toBe(LOGIN.user);
      expect(got!.messageId).toBe(`<${ids[i]}@pay.example.test>`);
      expect(got!.language).toBe(m.lang);
      expect(got!.text.trim()).toBe(expected.text.trim());
      expect(got!.html).toContain(`<html lang="${m.lang}">`);
      const link = String((m.data as Record<string, unknown>).link ?? (m.data as Record<string, unknown>).cabinetUrl);
      expect(got!.text).toContain(link);
      expect(got!.html).toContain(`href="${link}"`);
      const r = await row(ids[i]!);
      expect(r).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
      expect(r.sent_at!.getTime()).toBe(h.clock.now());
    }
    // The reader's own words: a Russian subject, a Hindi amount, a Turkish reference, a person's words as text.
    expect(smtp.to('approved@shop.example')[0]!.subject).toBe('Чайная лавка: приём реальных платежей открыт');
    expect(smtp.to('requested@shop.example')[0]!.text).toMatch(/1,500\.50/);
    expect(smtp.to('paid@shop.example')[0]!.text).toContain('Transfer referansı: EFT-2026-1');
    expect(smtp.to('rejected@shop.example')[0]!.html).toContain('No website &amp; no contact');
    // A sent link is the recipient's alone: the outbox keeps where it led, not its token.
    expect((await row(ids[6]!)).data.link).toBe(`${h.origin}/cabinet/password-reset/…`);
  });

  it('a mail server that is down: the mail waits with a growing delay, leaves once the server is up, and only once', async () => {
    const port = await freePort();
    const id = await queue({ to: 'patient@shop.example', kind: 'application-approved', data: { merchantName: 'Patient Shop', cabinetUrl: CABINET } });
    const sender = new MailSender(pointedAt(port));
    const late = new TestMailServer();
    try {
      expect(await sender.runOnce()).toBe(1);
      let r = await row(id);
      expect(r).toMatchObject({ status: 'queued', attempts: 1 });
      expect(r.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
      expect(r.next_attempt_at.getTime()).toBe(h.clock.now() + 60_000);
      // Not due yet: nothing is tried.
      h.clock.advance(59_000);
      expect(await sender.runOnce()).toBe(0);
      await late.start(port);
      h.clock.advance(1_000);
      expect(await sender.runOnce()).toBe(1);
      r = await row(id);
      expect(r).toMatchObject({ status: 'sent', attempts: 2 });
      h.clock.advance(3_600_000);
      expect(await sender.runOnce()).toBe(0);
      expect(late.to('patient@shop.example')).toHaveLength(1);
    } finally {
      sender.close();
      await late.stop();
    }
  });

  it('two senders at once never send one mail twice', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await queue({ to: `crowd${i}@shop.example`, kind: 'application-approved', data: { merchantName: `Crowd ${i}`, cabinetUrl: CABINET } }));
    const a = new MailSender(h.ctx, { batchSize: 5 });
    const b = new MailSender(h.ctx, { batchSize: 5 });
    try {
      let taken = 0;
      for (;;) {
        const [x, y] = await Promise.all([a.runOnce(), b.runOnce()]);
        if (x + y === 0) break;
        taken += x + y;
      }
      expect(taken).toBe(24);
    } finally {
      a.close();
      b.close();
    }
    for (let i = 0; i < 24; i++) expect(smtp.to(`crowd${i}@shop.example`), `crowd${i}`).toHaveLength(1);
    const statuses = await h.ctx.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM mail_outbox WHERE id = ANY($1::text[])', [ids]);
    expect(statuses.rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('a slow mail server that never greets: the send is cut off within the timeout and tried again; sent once it answers', async () => {
    const silent = new SilentServer(() => smtp.port);
    const sender = new MailSender(pointedAt(await silent.start()), { connectTimeoutMs: 500, greetingTimeoutMs: 300, socketTimeoutMs: 500, sendDeadlineMs: 3_000 });
    const id = await queue({ to: 'slow@shop.example', kind: 'application-approved', data: { merchantName: 'Slow Shop', cabinetUrl: CABINET } });
    try {
      const started = performance.now();
      expect(await sender.runOnce()).toBe(1);
      expect(performance.now() - started).toBeLessThan(3_000);
      const r = await row(id);
      expect(r).toMatchObject({ status: 'queued', attempts: 1 });
      expect(r.last_error).toMatch(/greeting|timeout|timed out/i);
      silent.wake();
      h.clock.advance(60_000);
      expect(await sender.runOnce()).toBe(1);
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
      expect(smtp.to('slow@shop.example')).toHaveLength(1);
    } finally {
      sender.close();
      await silent.stop();
    }
  });

  it('a process that stops cuts its sends in flight off; they are tried again later', async () => {
    const silent = new SilentServer(() => smtp.port);
    const sender = new MailSender(pointedAt(await silent.start()), { greetingTimeoutMs: 60_000, socketTimeoutMs: 60_000, sendDeadlineMs: 120_000 });
    const id = await queue({ to: 'stopping@shop.example', kind: 'application-approved', data: { merchantName: 'Stopping Shop', cabinetUrl: CABINET } });
    try {
      const pass = sender.runOnce();
      await eventually('the sender has connected', () => silent.connections > 0);
      const started = performance.now();
      sender.abortSends();
      expect(await pass).toBe(1);
      expect(performance.now() - started).toBeLessThan(2_000);
      const r = await row(id);
      expect(r).toMatchObject({ status: 'queued', attempts: 1 });
      expect(r.last_error).toMatch(/cut off/);
      silent.wake();
      h.clock.advance(60_000);
      expect(await sender.runOnce()).toBe(1);
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    } finally {
      sender.close();
      await silent.stop();
    }
  });

  it('a recipient refused for good (550) fails at once and is never tried again; one refused for now (450) is tried again', async () => {
    let busy = true;
    smtp.rcpt = (address) =>
      address === 'nobody@shop.example' ? { code: 550, message: 'No such user here' }
      : address === 'busy@shop.example' && busy ? { code: 450, message: 'Mailbox busy, try later' }
      : null;
    const sender = new MailSender(h.ctx);
    try {
      const nobody = await queue({ to: 'nobody@shop.example', kind: 'application-approved', data: { merchantName: 'Gone', cabinetUrl: CABINET } });
      const later = await queue({ to: 'busy@shop.example', kind: 'application-approved', data: { merchantName: 'Busy', cabinetUrl: CABINET } });
      expect(await sender.runOnce()).toBe(2);
      const failed = await row(nobody);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
      expect(failed.last_error).toContain('550');
      expect(failed.last_error).toContain('No such user here');
      const retried = await row(later);
      expect(retried).toMatchObject({ status: 'queued', attempts: 1 });
      expect(retried.last_error).toContain('450');
      busy = false;
      h.clock.advance(2 * 3_600_000);
      expect(await sender.runOnce()).toBe(1);
      expect(await row(later)).toMatchObject({ status: 'sent', attempts: 2 });
      expect(await row(nobody)).toMatchObject({ status: 'failed', attempts: 1 });
      expect(smtp.to('nobody@shop.example')).toEqual([]);
      expect(smtp.to('busy@shop.example')).toHaveLength(1);
    } finally {
      smtp.rcpt = undefined;
      sender.close();
    }
  });

  it('a refused login is tried again (an operator can put it right), and the stored error holds no credential', async () => {
    const wrong = 'wrong pass:word 123';
    const bad = new MailSender(pointedAt(smtp.port, wrong));
    const good = new MailSender(h.ctx);
    try {
      const id = await queue({ to: 'login@shop.example', kind: 'application-approved', data: { merchantName: 'Login', cabinetUrl: CABINET } });
      expect(await bad.runOnce()).toBe(1);
      const r = await row(id);
      expect(r).toMatchObject({ status: 'queued', attempts: 1 });
      expect(r.last_error).toMatch(/535|EAUTH/);
      for (const secret of [wrong, encodeURIComponent(wrong), LOGIN.pass, Buffer.from(`\u0000${LOGIN.user}\u0000${wrong}`).toString('base64')]) expect(r.last_error).not.toContain(secret);
      h.clock.advance(60_000);
      expect(await good.runOnce()).toBe(1);
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    } finally {
      bad.close();
      good.close();
    }
  });

  it(`gives up after ${MAIL_MAX_ATTEMPTS} attempts when the server never comes back`, async () => {
    const sender = new MailSender(pointedAt(await freePort()));
    try {
      const id = await queue({ to: 'never@shop.example', kind: 'application-approved', data: { merchantName: 'Never', cabinetUrl: CABINET } });
      for (let i = 1; i <= MAIL_MAX_ATTEMPTS; i++) {
        expect(await sender.runOnce(), `attempt ${i}`).toBe(1);
        expect((await row(id)).attempts).toBe(i);
        h.clock.advance(3_600_000);
      }
      const r = await row(id);
      expect(r.status).toBe('failed');
      expect(r.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
      expect(await sender.runOnce()).toBe(0);
    } finally {
      sender.close();
    }
  });

  it('/office/mail lists the mails that went out for admins, without their text: a sent link is its recipient\'s', async () => {
    expect((await admin(h.app, 'POST', '/operators', { email: 'mail-admin@paygate.example', password: PASSWORD, role: 'admin' })).statusCode).toBe(201);
    const id = await queue({ to: 'listed@shop.example', kind: 'password-reset', data: { surface: 'cabinet', link: `${h.origin}/cabinet/password-reset/rst_secret`, expiresAt: '2026-01-15T12:30:00Z' } });
    const sender = new MailSender(h.ctx);
    try {
      await sender.runOnce();
    } finally {
      sender.close();
    }
    const b = await signIn(h, 'mail-admin@paygate.example');
    const list = await b.get('/office/mail');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="/office/mail/${id}"`);
    expect(list.body).toContain('listed@shop.example');
    expect(list.body).toContain('127.0.0.1:');
    expect(list.body).toContain('nobody@shop.example');
    expect(list.body).toContain('No such user here');
    const one = await b.get(`/office/mail/${id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain('id="mail-not-kept"');
    expect(one.body).not.toContain('rst_secret');
    expect((await b.get(`/office/mail/${id}/html`)).statusCode).toBe(404);
  });
});

describe('without SMTP_URL', () => {
  let dev: Served;
  beforeAll(async () => {
    dev = await serve({});
    for (const [email, role] of [['dev-admin@paygate.example', 'admin'], ['dev-support@paygate.example', 'support']]) {
      expect(json(await admin(dev.app, 'POST', '/operators', { email, password: PASSWORD, role })).status).toBe('ok');
    }
  }, 600_000);
  afterAll(() => dev?.close());

  it('every mail is kept, never sent, and an admin reads its text and HTML at /office/mail and follows its link', async () => {
    const link = `${dev.origin}/cabinet/password-reset/rst_dev`;
    const ids: string[] = [];
    for (const [to, lang] of [['first@shop.example', 'en'], ['second@shop.example', 'ru']] as const) {
      ids.push(await dev.ctx.db.tx((q) => queueMail(q, new Date(dev.clock.now()), { to, lang, kind: 'password-reset', data: { surface: 'cabinet', link, expiresAt: '2026-01-15T12:30:00Z' } })));
      dev.clock.advance(1_000);
    }
    const sender = new MailSender(dev.ctx);
    try {
      expect(await sender.runOnce()).toBe(2);
      expect(await sender.runOnce()).toBe(0);
    } finally {
      sender.close();
    }
    const rows = await dev.ctx.db.query<{ id: string; status: string; attempts: number; data: { link: string } }>('SELECT id, status, attempts, data FROM mail_outbox WHERE id = ANY($1::text[])', [ids]);
    expect(rows.rows.map((r) => [r.status, r.attempts, r.data.link])).toEqual([
      ['kept', 0, link],
      ['kept', 0, link],
    ]);

    const b = await signIn(dev, 'dev-admin@paygate.example');
    expect((await b.get('/office')).body).toContain('href="/office/mail"');
    const list = await b.get('/office/mail');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('id="no-mail-server"');
    // newest first
    expect(list.body.indexOf(ids[1]!)).toBeGreaterThan(-1);
    expect(list.body.indexOf(ids[1]!)).toBeLessThan(list.body.indexOf(ids[0]!));
    expect(list.body).toContain('Сброс пароля Paygate');
    expect(list.body).toContain('Reset your Paygate password');

    const one = await b.get(`/office/mail/${ids[0]}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain(`<a href="${link}" id="mail-link"`);
    expect(one.body).toContain('Someone asked to reset the password of your Paygate merchant cabinet account.');
    expect(one.body).toContain('&lt;html lang=&quot;en&quot;&gt;');
    const htmlVersion = await b.get(`/office/mail/${ids[0]}/html`);
    expect(htmlVersion.statusCode).toBe(200);
    expect(htmlVersion.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(htmlVersion.headers['content-security-policy']).toContain('sandbox');
    expect(htmlVersion.headers['content-security-policy']).not.toContain('script');
    expect(htmlVersion.body).toContain(`href="${link}"`);
    expect(htmlVersion.body).toBe(renderMail({ lang: 'en', kind: 'password-reset', data: { surface: 'cabinet', link, expiresAt: '2026-01-15T12:30:00Z' } }).html);
    expect((await b.get('/office/mail/mail_00000000000000000000000000')).statusCode).toBe(404);
    expect((await b.get('/office/mail/not-an-id')).statusCode).toBe(404);
    expect((await b.get('/office/mail?before=nonsense')).statusCode).toBe(400);

    // 50 a page, newest first; the next page starts after the last one shown
    for (let i = 0; i < 50; i++) {
      dev.clock.advance(1_000);
      await dev.ctx.db.tx((q) => queueMail(q, new Date(dev.clock.now()), { to: `bulk${i}@shop.example`, kind: 'application-approved', data: { merchantName: `Bulk ${i}`, cabinetUrl: CABINET } }));
    }
    const first = await b.get('/office/mail');
    expect(first.body).toContain('bulk49@shop.example');
    expect(first.body).not.toContain('first@shop.example');
    const older = /href="(\/office\/mail\?before=mail_[0-9a-z]{26})">Older mails/.exec(first.body)![1]!;
    const second = await b.get(older);
    expect(second.body).toContain('first@shop.example');
    expect(second.body).toContain('second@shop.example');
    expect(second.body).not.toContain('bulk49@shop.example');
  });

  it('is for admins only: a support operator gets 403 and no link to it; signed out, the sign-in page', async () => {
    const id = (await dev.ctx.db.query<{ id: string }>('SELECT id FROM mail_outbox LIMIT 1')).rows[0]!.id;
    const s = await signIn(dev, 'dev-support@paygate.example');
    expect((await s.get('/office')).body).not.toContain('href="/office/mail"');
    for (const path of ['/office/mail', `/office/mail/${id}`, `/office/mail/${id}/html`]) {
      const res = await s.get(path);
      expect(res.statusCode, path).toBe(403);
      expect(res.body, path).not.toContain('rst_dev');
    }
    const stranger = new HttpBrowser(dev.origin);
    const res = await stranger.get('/office/mail');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/office/sign-in');
  });
});
