import { describe, expect, it } from 'vitest';
import { formatAmount, formatPhone, formatRemaining, groupByFour } from '../../src/web/format.js';
import { html, raw } from '../../src/web/html.js';
import { en } from '../../src/web/i18n/en.js';
import { chooseLang, LANGUAGES, translator } from '../../src/web/i18n/index.js';
import { upiLink } from '../../src/web/pay/view.js';

describe('html templates', () => {
  it('escape every interpolated value unless it is a template or raw()', () => {
    const name = `<script>alert("x")</script> & 'co'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
    );
    expect(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.value).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
    expect(html`${raw('<b>ok</b>')}${null}${undefined}${false}${0}`.value).toBe('<b>ok</b>0');
  });
});

describe('languages', () => {
  const reference = Object.keys(en).sort();
  for (const [lang, messages] of Object.entries(LANGUAGES)) {
    it(`${lang} has every message of the page, no extra ones, none empty, and the same placeholders`, () => {
      expect(Object.keys(messages).sort()).toEqual(reference);
      for (const key of reference) {
        const text = (messages as Record<string, string>)[key]!;
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        const holes = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
        expect(holes(text), `${lang}.${key}`).toEqual(holes((en as Record<string, string>)[key]!));
      }
    });
  }

  it('covers the eight languages of the payment page', () => {
    expect(Object.keys(LANGUAGES).sort()).toEqual(['az', 'en', 'hi', 'kk', 'ko', 'ru', 'tr', 'uz']);
  });

  it('are chosen by ?lang=, then Accept-Language by weight and primary tag, then English', () => {
    expect(chooseLang('ru', 'tr')).toBe('ru');
    expect(chooseLang('xx', 'tr-TR,tr;q=0.9,en;q=0.5')).toBe('tr');
    expect(chooseLang(undefined, 'de-DE, ko;q=0.4, kk;q=0.8')).toBe('kk');
    expect(chooseLang(undefined, 'uz;q=0, az')).toBe('az');
    expect(chooseLang(['ru', 'ko'], 'de')).toBe('en');
    expect(chooseLang(undefined, undefined)).toBe('en');
    expect(translator('ru')('payTo', { merchant: 'Кофейня' })).toBe('Оплата: Кофейня');
  });
});

describe('formatting', () => {
  it('formats amounts per language from the decimal string, without float rounding', () => {
    expect(formatAmount('en', '1500.50', 'RUB')).toBe('₽1,500.50');
    expect(formatAmount('ru', '1500.50', 'RUB')).toBe('1\u00a0500,50\u00a0₽');
    expect(formatAmount('hi', '12345678.10', 'INR')).toBe('₹1,23,45,678.10');
    expect(formatAmount('ko', '65000.00', 'KRW')).toBe('₩65,000');
    expect(formatAmount('en', '90071992547409.93', 'USD')).toBe('$90,071,992,547,409.93');
  });

  it('shows the currency’s own minor units, and never rounds a fraction it has no units for', () => {
    expect(formatAmount('ru', '2750.00', 'RUB')).toBe('2\u00a0750,00\u00a0₽');
    expect(formatAmount('en', '2750.00', 'RUB')).toBe('₽2,750.00');
    expect(formatAmount('hi', '100000.00', 'INR')).toBe('₹1,00,000.00');
    expect(formatAmount('en', '100000.00', 'INR')).toBe('₹100,000.00');
    expect(formatAmount('tr', '1250.75', 'TRY')).toBe('₺1.250,75');
    expect(formatAmount('kk', '45000.00', 'KZT')).toBe('45\u00a0000,00\u00a0₸');
    expect(formatAmount('ko', '65000.50', 'KRW')).toBe('₩65,000.5');
  });

  it('groups cards and IBANs by four and lays phones out per country', () => {
    expect(groupByFour('2200123456789012')).toBe('2200 1234 5678 9012');
    expect(groupByFour('TR330006100519786457841326')).toBe('TR33 0006 1005 1978 6457 8413 26');
    expect(formatPhone('+79161234567')).toBe('+7 916 123-45-67');
    expect(formatPhone('+77011234567')).toBe('+7 701 123-45-67');
    expect(formatPhone('+919876543210')).toBe('+91 98765 43210');
    expect(formatPhone('+905321234567')).toBe('+90 532 123 45 67');
    expect(formatPhone('+998901234567')).toBe('+998 90 123 45 67');
    expect(formatPhone('+12025550123')).toBe('+12025550123');
    expect(formatRemaining(29 * 60_000 + 59_500)).toBe('29:59');
    expect(formatRemaining(3_900_000)).toBe('1:05:00');
    expect(formatRemaining(-5)).toBe('0:00');
  });

  it('builds the upi://pay link with encoded payee and name, the exact amount, INR, the note and the reference', () => {
    expect(upiLink({ upiId: 'rahul.k12@okaxis', holder: 'Rahul K.', amount: '832.50', note: 'Order #7 & co', reference: 'ord_01ABC' })).toBe(
      'upi://pay?pa=rahul.k12@okaxis&pn=Rahul%20K.&am=832.50&cu=INR&tn=Order%20%237%20%26%20co&tr=ord_01ABC',
    );
    expect(upiLink({ upiId: 'shop@upi', holder: null, amount: '10.00', note: 'ord_X', reference: 'ord_X' })).toBe('upi://pay?pa=shop@upi&am=10.00&cu=INR&tn=ord_X&tr=ord_X');
  });
});
