import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { describeSendError, fromAddress, isPermanentRefusal, mailRetryDelayMs, MAIL_MAX_ATTEMPTS } from '../../src/mail/sender.js';

/*
 * The mail settings (SMTP_URL, MAIL_FROM) as the environment gives them, and the sender's pure
 * rules: which refusals are final, the retry schedule, and errors that never carry a credential.
 */

function refusal(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`${JSON.stringify(Object.keys(env))} should be refused`);
}

describe('SMTP_URL and MAIL_FROM', () => {
  it('without SMTP_URL no mail server is set (mails are kept), and MAIL_FROM defaults to no-reply at the public host', () => {
    expect(parseConfig({}).smtp).toBeNull();
    expect(parseConfig({}).mailFrom).toBe('Paygate <no-reply@localhost>');
    expect(parseConfig({ PUBLIC_BASE_URL: 'https://pay.example.com' }).mailFrom).toBe('Paygate <no-reply@pay.example.com>');
  });

  it('reads smtp:// and smtps:// with their credentials (percent-encoded) and default ports', () => {
    expect(parseConfig({ SMTP_URL: 'smtp://mailer:p%40ss%3Aword@mail.example.com' }).smtp).toEqual({ secure: false, host: 'mail.example.com', port: 587, user: 'mailer', password: 'p@ss:word' });
    expect(parseConfig({ SMTP_URL: 'smtps://mailer:secret@mail.example.com' }).smtp).toMatchObject({ secure: true, port: 465 });
    expect(parseConfig({ SMTP_URL: 'SMTP://127.0.0.1:2525' }).smtp).toEqual({ secure: false, host: '127.0.0.1', port: 2525, user: null, password: null });
    expect(parseConfig({ SMTP_URL: 'smtp://[::1]:25' }).smtp).toMatchObject({ host: '::1', port: 25 });
    expect(parseConfig({ MAIL_FROM: 'Teapot Payments <billing@teapot.example>' }).mailFrom).toBe('Teapot Payments <billing@teapot.example>');
    expect(parseConfig({ MAIL_FROM: 'billing@teapot.example' }).mailFrom).toBe('billing@teapot.example');
  });

  it('refuses other schemes and malformed values, naming SMTP_URL and never repeating the password', () => {
    for (const bad of ['https://user:hunter2hunter2@mail.example.com', 'mailto:user:hunter2hunter2@mail.example.com', 'user:hunter2hunter2@mail.example.com', 'smtp://user:hunter2hunter2@', 'smtp://user:hunter2hunter2@mail.example.com/path', 'smtp://user:hunter2%ZZhunter2@mail.example.com', 'smtp://:hunter2hunter2@mail.example.com']) {
      const err = refusal({ SMTP_URL: bad });
      expect(err.variable, bad).toBe('SMTP_URL');
      expect(err.message, bad).not.toContain('hunter2');
    }
    expect(refusal({ SMTP_URL: 'https://mail.example.com' }).message).toMatch(/smtp:\/\/ or smtps:\/\/, not https:\/\//);
  });

  it('refuses a MAIL_FROM that is no address, or that would break the header', () => {
    for (const bad of ['paygate', 'Paygate <>', 'a@b@c', 'Paygate <paygate@example.com>\r\nBcc: x@example.com']) expect(refusal({ MAIL_FROM: bad }).variable).toBe('MAIL_FROM');
    expect(fromAddress('Paygate <no-reply@pay.example.com>')).toBe('no-reply@pay.example.com');
  });
});

describe('the sender\'s rules', () => {
  it('gives up at once only on a 5xx to the recipient or the message', () => {
    expect(isPermanentRefusal(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' }))).toBe(true);
    expect(isPermanentRefusal(Object.assign(new Error('x'), { code: 'EMESSAGE', responseCode: 554, command: 'DATA' }))).toBe(true);
    expect(isPermanentRefusal(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 450, command: 'RCPT TO' }))).toBe(false);
    expect(isPermanentRefusal(Object.assign(new Error('x'), { code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' }))).toBe(false);
    expect(isPermanentRefusal(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 553, command: 'MAIL FROM' }))).toBe(false);
    expect(isPermanentRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' }))).toBe(false);
  });

  it('retries after 1, 2, 4 … minutes, at most an hour apart, 8 attempts in all', () => {
    expect([1, 2, 3, 4, 7, 10].map(mailRetryDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000, 3_600_000, 3_600_000]);
    expect(MAIL_MAX_ATTEMPTS).toBe(8);
  });

  it('never stores a credential in an error, in any spelling', () => {
    const smtp = { secure: false, host: 'h', port: 25, user: 'mailer', password: 'p@ss word' };
    const plain = Buffer.from('\u0000mailer\u0000p@ss word').toString('base64');
    const text = describeSendError(Object.assign(new Error(`Invalid login: 535 bad p@ss word / p%40ss%20word / ${plain} for mailer`), { code: 'EAUTH' }), smtp);
    expect(text).toMatch(/^EAUTH: Invalid login: 535/);
    for (const s of ['p@ss word', 'p%40ss%20word', plain, 'mailer']) expect(text).not.toContain(s);
    expect(describeSendError(Object.assign(new Error('aborted'), { name: 'AbortError' }), smtp)).toMatch(/^the send was cut off/);
  });
});
