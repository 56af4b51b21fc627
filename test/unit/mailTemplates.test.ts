import { describe, expect, it } from 'vitest';
import type { MailContent, MailKind } from '../../src/mail/outbox.js';
import { MAIL_KINDS, MAIL_LANGUAGES, MAIL_WORDS, MailTemplateError, renderMail } from '../../src/mail/templates.js';
import { LANGUAGES } from '../../src/web/i18n/index.js';

/*
 * Every mail in every language: the eight languages of the pages, each with its words for every
 * kind of mail, rendered into a subject, a text and an HTML body that say the same thing and carry
 * the one link.
 */

const LINK = 'https://pay.example.test/cabinet/password-reset/rst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const CABINET = 'https://pay.example.test/cabinet/withdrawals/wdr_0123456789abcdefghjkmnpqrs';
const ALERTS = 'https://pay.example.test/office/alerts';

const SAMPLES: Record<MailKind, MailContent> = {
  invitation: { kind: 'invitation', data: { merchantName: 'Teapot & Co <Ltd>', role: 'developer', link: LINK, expiresAt: '2026-01-22T12:00:00Z' } },
  'password-reset': { kind: 'password-reset', data: { surface: 'office', link: LINK, expiresAt: '2026-01-15T12:30:00Z' } },
  'application-approved': { kind: 'application-approved', data: { merchantName: 'Teapot & Co <Ltd>', cabinetUrl: CABINET } },
  'application-rejected': { kind: 'application-rejected', data: { merchantName: 'Teapot & Co <Ltd>', reason: 'The website <b>does not</b> load', cabinetUrl: CABINET } },
  'withdrawal-requested': { kind: 'withdrawal-requested', data: { merchantName: 'Teapot & Co <Ltd>', requestId: 'wdr_1', amountUsd: '1234567.89', destination: 'USDT TRC-20 TXyz', cabinetUrl: CABINET } },
  'withdrawal-paid': { kind: 'withdrawal-paid', data: { merchantName: 'Teapot & Co <Ltd>', requestId: 'wdr_1', amountUsd: '1234567.89', destination: 'USDT TRC-20 TXyz', reference: 'TX-777', cabinetUrl: CABINET } },
  'withdrawal-rejected': { kind: 'withdrawal-rejected', data: { merchantName: 'Teapot & Co <Ltd>', requestId: 'wdr_1', amountUsd: '1234567.89', destination: 'USDT TRC-20 TXyz', reason: 'Destination closed', cabinetUrl: CABINET } },
  'webhook-disabled': { kind: 'webhook-disabled', data: { merchantName: 'Teapot & Co <Ltd>', url: 'https://erp.example.test/hooks?a=1&b=2', reason: 'The receiver answered 410 Gone', cabinetUrl: CABINET } },
  alert: {
    kind: 'alert',
    data: { event: 'raised', alertKind: 'requisite-limit', subject: 'rqs_1', summary: 'Teapot & Co <Ltd>: 9500.00 RUB of 10000.00 RUB received today', at: '2026-01-15T12:30:00Z', link: ALERTS },
  },
};

describe('mail templates', () => {
  it('cover the languages of the pages, and every kind of mail the outbox takes', () => {
    expect([...MAIL_LANGUAGES].sort()).toEqual(Object.keys(LANGUAGES).sort());
    expect([...MAIL_KINDS].sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const lang of MAIL_LANGUAGES) expect(Object.keys(MAIL_WORDS[lang].mails).sort(), lang).toEqual([...MAIL_KINDS].sort());
  });

  for (const lang of MAIL_LANGUAGES) {
    it(`${lang}: every kind renders a subject, a text and an HTML body in ${lang}, with its link and its values`, () => {
      for (const kind of MAIL_KINDS) {
        const m = renderMail({ ...SAMPLES[kind], lang });
        const what = `${lang} ${kind}`;
        expect(m.subject.length, what).toBeGreaterThan(5);
        expect(m.subject, what).not.toMatch(/[\r\n]|\$\{|undefined|null/);
        // the one link, as a button and as text, in both bodies
        const link = kind === 'invitation' || kind === 'password-reset' ? LINK : kind === 'alert' ? ALERTS : CABINET;
        expect(m.text, what).toContain(link);
        expect(m.html, what).toContain(`href="${link}"`);
        expect(m.html, what).toContain(`<html lang="${lang}">`);
        expect(`${m.text}${m.html}`, what).not.toMatch(/undefined|\$\{|\[object/);
        // a person's words are text, never markup
        if (kind !== 'password-reset') {
          expect(m.html, what).toContain('Teapot &amp; Co &lt;Ltd&gt;');
          expect(m.html, what).not.toContain('<Ltd>');
          expect(m.text, what).toContain('Teapot & Co <Ltd>');
        }
        if (kind === 'application-rejected') expect(m.html, what).toContain('The website &lt;b&gt;does not&lt;/b&gt; load');
        if (kind === 'withdrawal-paid') expect(m.text, what).toContain('TX-777');
        if (kind === 'withdrawal-rejected') expect(m.text, what).toContain('Destination closed');
        // the amount is the exact one, formatted for the reader: its digits all there
        if (kind.startsWith('withdrawal')) expect(m.text.replace(/[^\d]/g, ''), what).toContain('123456789');
        // every language but English has its own words
        if (lang !== 'en') expect(m.subject, what).not.toBe(renderMail({ ...SAMPLES[kind], lang: 'en' }).subject);
      }
    });
  }

  it('writes the reader\'s words: Russian, Hindi and Korean mails are in their scripts, dates in the reader\'s form', () => {
    const ru = renderMail({ ...SAMPLES['password-reset'], lang: 'ru' });
    expect(ru.subject).toBe('Сброс пароля Paygate');
    expect(ru.text).toContain('бэк-офиса');
    expect(ru.text).toContain('15 января 2026');
    expect(renderMail({ ...SAMPLES.invitation, lang: 'hi' }).text).toContain('डेवलपर');
    expect(renderMail({ ...SAMPLES['withdrawal-paid'], lang: 'ko' }).subject).toContain('출금');
    // (a no-break space between the code and the figures, as the reader's conventions have it)
    expect(renderMail({ ...SAMPLES['withdrawal-paid'], lang: 'en' }).subject).toMatch(/^Withdrawal of USD\s1,234,567\.89 paid$/u);
  });

  it('tells an alert raised and resolved apart, its kind in the reader\'s words', () => {
    const resolved = { kind: 'alert', data: { ...SAMPLES.alert.data, event: 'resolved' } } as const;
    expect(renderMail({ ...SAMPLES.alert, lang: 'en' }).subject).toBe('Alert: requisite near its daily limit (rqs_1)');
    expect(renderMail({ ...resolved, lang: 'en' }).subject).toBe('Resolved: requisite near its daily limit (rqs_1)');
    expect(renderMail({ ...resolved, lang: 'en' }).text).toContain('Resolved at January 15, 2026');
    expect(renderMail({ ...SAMPLES.alert, lang: 'ru' }).subject).toBe('Тревога: реквизит у дневного лимита (rqs_1)');
    expect(() => renderMail({ lang: 'en', kind: 'alert', data: { ...SAMPLES.alert.data, event: 'snoozed' } })).toThrow(/event/);
  });

  it('falls back to English for a language it does not know', () => {
    expect(renderMail({ ...SAMPLES['password-reset'], lang: 'xx' }).subject).toBe('Reset your Paygate password');
  });

  it('refuses data that cannot make the mail: an unknown kind, a missing field, a link that is not http(s)', () => {
    expect(() => renderMail({ lang: 'en', kind: 'newsletter', data: {} })).toThrow(MailTemplateError);
    expect(() => renderMail({ lang: 'en', kind: 'invitation', data: { merchantName: 'X', role: 'owner', expiresAt: '2026-01-01T00:00:00Z' } })).toThrow(/link/);
    expect(() => renderMail({ lang: 'en', kind: 'password-reset', data: { surface: 'office', link: 'javascript:alert(1)', expiresAt: '2026-01-01T00:00:00Z' } })).toThrow(/http/);
    expect(() => renderMail({ lang: 'en', kind: 'withdrawal-paid', data: { ...SAMPLES['withdrawal-paid'].data, amountUsd: '1e3' } })).toThrow(/amount/);
  });

  it('keeps a value typed by a person on one line: no header or paragraph break sneaks in', () => {
    const m = renderMail({ lang: 'en', kind: 'application-approved', data: { merchantName: 'Evil\r\nBcc: victim@example.com', cabinetUrl: CABINET } });
    expect(m.subject).toBe('Evil Bcc: victim@example.com is approved for live payments');
  });
});
