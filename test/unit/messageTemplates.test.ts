import { describe, expect, it } from 'vitest';
import { BUILT_IN_TEMPLATES, bankAmount, currencyOf, messageAccount, patternProblem, readAll, readWith } from '../../src/domain/messageText.js';

/*
 * Built-in templates of device messages, each on sample texts of its bank's messages.
 *
 * SOURCES: the samples below were written for these tests, in the layouts the banks were taken to
 * send, with names, numbers and amounts made up; they are not copies of published messages. They
 * test the amounts, accounts and edge cases; the evidence that each layout is a bank's own is in
 * test/unit/messageTemplateSources.test.ts: messages as banks' customers published them, each with
 * its source and licence, at least one for every built-in credit template (a template with none
 * published is not built in). A layout a bank changes is fixed there with a published sample of
 * the new one. The samples of the
 * templates added from published layouts (rub_sbp_zachisleno, inr_received, inr_ac_credited,
 * uzs_humo_sms, azn_transfer_in, try_transfer_in) are those of that file, anonymised the same way.
 */

const read = (sender: string, text: string) => readAll(BUILT_IN_TEMPLATES, sender, text)[0] ?? null;

interface Sample { sender: string; text: string; amount: string; currency: string; account?: string; payer?: string; bankReference?: string }

const CREDITS: Record<string, Sample[]> = {
  tpl_builtin_rub_sbp: [
    { sender: 'Alfa-Bank', text: 'Зачисление 1 500 ₽ по СБП от Иван И.', amount: '1500.00', currency: 'RUB', payer: 'Иван И' },
    { sender: 'VTB', text: 'Поступление 2 350,50 ₽ по СБП от Петр П. Баланс 10 000 ₽', amount: '2350.50', currency: 'RUB', payer: 'Петр П' },
  ],
  tpl_builtin_rub_sber: [
    { sender: '900', text: 'СЧЁТ1234 14:05 зачисление 1500р Баланс: 20340.50р', amount: '1500.00', currency: 'RUB', account: '*1234' },
    { sender: '900', text: 'MIR-5678 09:12 Перевод из Т-Банк +918р от Анна С. Баланс: 1000р', amount: '918.00', currency: 'RUB', account: '*5678', payer: 'Анна С' },
  ],
  tpl_builtin_rub_sbp_zachisleno: [
    { sender: 'DOM.RF', text: 'Перевод СБП от Петра Петровича П. Зачислено 3 000.00 руб.', amount: '3000.00', currency: 'RUB', payer: 'Петра Петровича П' },
  ],
  tpl_builtin_rub_tbank: [
    { sender: 'T-Bank', text: 'Пополнение, счет RUB. 1 500 ₽. Иван И. Доступно 12 340,10 ₽', amount: '1500.00', currency: 'RUB', payer: 'Иван И' },
  ],
  tpl_builtin_inr_upi_credited: [
    { sender: 'AX-KOTAKB', text: 'Rs.918.00 credited to a/c XX1234 by VPA ramesh@ybl on 28-11-26 (UPI Ref No 432112345678)', amount: '918.00', currency: 'INR', account: '*1234', payer: 'ramesh@ybl', bankReference: '432112345678' },
    { sender: 'VM-AXISBK', text: 'INR 1,500.00 credited to A/c no. XX5678 on 28-11-26 by UPI:432198765432', amount: '1500.00', currency: 'INR', account: '*5678', bankReference: '432198765432' },
    { sender: 'JD-PNBSMS', text: '₹1500 credited to your account XXXX4321. UPI Ref No. 432100001111', amount: '1500.00', currency: 'INR', account: '*4321', bankReference: '432100001111' },
  ],
  tpl_builtin_inr_sbi: [
    { sender: 'VM-SBIUPI', text: 'Dear SBI UPI User, ur A/cX1234 credited by Rs918 on 28Nov26 by  (Ref no 432112345678)', amount: '918.00', currency: 'INR', account: '*1234', bankReference: '432112345678' },
  ],
  tpl_builtin_inr_hdfc: [
    { sender: 'VM-HDFCBK', text: 'Money Received - INR 1,500.00 in your HDFC Bank A/c xx1234 on 28-11-26 by A/c linked to VPA payer@okaxis (UPI Ref No. 432112345678).', amount: '1500.00', currency: 'INR', account: '*1234', payer: 'payer@okaxis', bankReference: '432112345678' },
  ],
  // The «; NAME credited. UPI:» tail is ICICI's layout of a UPI *debit*; published ICICI credits are in messageTemplateSources.test.ts.
  tpl_builtin_inr_icici: [
    { sender: 'AD-ICICIB', text: 'ICICI Bank Acct XX123 credited:Rs. 1,500.00 on 28-Nov-26; RAMESH K credited. UPI:432112345678. Call 18002662 for dispute.', amount: '1500.00', currency: 'INR', account: '*123', payer: 'RAMESH K', bankReference: '432112345678' },
  ],
  tpl_builtin_inr_received: [
    { sender: 'AD-KOTAKB', text: 'Received Rs.250.00 in your Kotak Bank AC X3333 from john.doe@oksbi on 14-10-25.UPI Ref 2222222222. Not you, https://kotak.com/KBANKT/Fraud', amount: '250.00', currency: 'INR', account: '*3333', payer: 'john.doe@oksbi', bankReference: '2222222222' },
  ],
  tpl_builtin_inr_ac_credited: [
    { sender: 'JM-PNBSMS', text: 'Ac XX7582 Credited with Rs.4750.00 11-07-2025 08:53:21 thru UPI . Aval Bal Rs.82431.67 CR. (UPI Ref ID:714628305917) Helpline 18001800/18002021-PNB', amount: '4750.00', currency: 'INR', account: '*7582', bankReference: '714628305917' },
  ],
  tpl_builtin_kzt_kaspi: [
    { sender: 'Kaspi.kz', text: 'Перевод 15 000 ₸ от Айгерим С.', amount: '15000.00', currency: 'KZT', payer: 'Айгерим С' },
    { sender: 'Kaspi', text: 'Пополнение +5 250,50 ₸', amount: '5250.50', currency: 'KZT' },
  ],
  tpl_builtin_kzt_halyk: [
    { sender: 'HalykBank', text: 'Пополнение счета: KZT 15 000,00. Карта *4321. Доступно 120 000,00 KZT', amount: '15000.00', currency: 'KZT', account: '*4321' },
  ],
  tpl_builtin_uzs_humo_sms: [
    { sender: '13131', text: 'HUMOCARD *2087: popolnenie 1500000.00 UZS; UZUM BANK Visa to Hu; 26-03-20 02:39; Dostupno: 1509300.00 UZS', amount: '1500000.00', currency: 'UZS', account: '*2087' },
  ],
  tpl_builtin_uzs_card: [
    { sender: 'HUMO', text: '💸 Пополнение ➕ 500 000.00 UZS 💳 HUMOCARD *1234 📍 CLICK P2P 🕓 14:05 28.11.2026 💰 1 234 567.00 UZS', amount: '500000.00', currency: 'UZS', account: '*1234' },
    { sender: 'CardXabar', text: "Popolnenie: 1 500 000,00 so'm UZCARD *9876", amount: '1500000.00', currency: 'UZS', account: '*9876' },
  ],
  tpl_builtin_azn_medaxil: [
    { sender: 'Kapital Bank', text: 'Mədaxil: 150.00 AZN Kart: 4169****1234 28.11.26 14:05 Balans: 1 250.40 AZN', amount: '150.00', currency: 'AZN', account: '*1234' },
  ],
  tpl_builtin_azn_transfer_in: [
    { sender: 'Birbank', text: 'www.birbank.az Card: **5190 Balance: 30.49₼ ║ 💸 Transfer: +1.00₼', amount: '1.00', currency: 'AZN', account: '*5190' },
  ],
  tpl_builtin_try_transfer_in: [
    { sender: 'Enpara', text: 'Vadesiz TL hesabınıza 11/05/2026 tarihinde Ahmet Y tarafından yapılan para transferi (FAST) sonucunda 200,00 TL giriş oldu. İşlem sonrası hesap bakiyesi: 3.231,27 TL', amount: '200.00', currency: 'TRY', payer: 'Ahmet Y' },
  ],
  tpl_builtin_krw_deposit: [
    { sender: '15889999', text: '[KB]11/28 14:05 123456**789 홍길동 입금 150,000 잔액1,234,567', amount: '150000.00', currency: 'KRW', account: '*789', payer: '홍길동' },
    { sender: '15778000', text: '신한 11/28 14:05 110-***-123456 입금 50,000원 잔액 1,000,000', amount: '50000.00', currency: 'KRW', account: '*123456' },
  ],
};

const SKIPPED: { sender: string; text: string; kind: 'debit' | 'other' }[] = [
  { sender: '900', text: 'СЧЁТ1234 14:05 Покупка 500р Пятёрочка Баланс: 1000р', kind: 'debit' },
  { sender: '900', text: 'Код: 123456. Никому не сообщайте его.', kind: 'other' },
  { sender: 'VM-HDFCBK', text: 'Rs.500.00 debited from a/c XX1234 on 28-11-26 to VPA shop@ybl (UPI Ref No 432112345678)', kind: 'debit' },
  { sender: 'VM-HDFCBK', text: '123456 is your OTP for txn of INR 1,500.00. Do not share it with anyone.', kind: 'other' },
  { sender: 'Kapital Bank', text: 'Məxaric: 20.00 AZN Kart: 4169****1234', kind: 'debit' },
  { sender: 'AKBANK', text: 'Kartınızdan 250,00 TL harcama yapılmıştır.', kind: 'debit' },
  { sender: '15889999', text: '[KB]11/28 14:05 123456**789 출금 30,000 잔액1,204,567', kind: 'debit' },
  { sender: 'Sber', text: 'Баланс: 20 340,50 ₽', kind: 'other' },
];

describe('built-in templates', () => {
  for (const [id, samples] of Object.entries(CREDITS)) {
    it(`${id} reads its samples into credits`, () => {
      for (const s of samples) {
        const r = read(s.sender, s.text);
        expect(r?.templateId, s.text).toBe(id);
        expect(r!.problem, s.text).toBeNull();
        expect(r!.amount, s.text).toBe(s.amount);
        expect(r!.currency, s.text).toBe(s.currency);
        if (s.account !== undefined) expect(r!.account, s.text).toBe(s.account);
        if (s.payer !== undefined) expect(r!.fields.payer, s.text).toBe(s.payer);
        if (s.bankReference !== undefined) expect(r!.fields.bankReference, s.text).toBe(s.bankReference);
      }
    });
  }

  it('every built-in credit template has samples', () => {
    for (const t of BUILT_IN_TEMPLATES.filter((x) => x.kind === 'credit')) expect(Object.keys(CREDITS), t.id).toContain(t.id);
  });

  it('skips debits, balance notices and one-time codes', () => {
    for (const s of SKIPPED) {
      const r = read(s.sender, s.text);
      expect(r?.kind, s.text).toBe(s.kind);
    }
  });

  it('compile under the checks operators\' patterns pass', () => {
    for (const t of BUILT_IN_TEMPLATES) {
      expect(patternProblem(t.pattern, true), t.id).toBeNull();
      if (t.sender) expect(patternProblem(t.sender, false), t.id).toBeNull();
    }
  });
});

describe('amounts as banks write them', () => {
  it.each([
    ['1 500,00', '1500.00'], ['1,500.00', '1500.00'], ['Rs.1,500', '1500.00'], ['₹1500', '1500.00'], ['1.500,00 TL', '1500.00'], ['KZT 15 000', '15000.00'],
    ['1,00,000.50', '100000.50'], ['150,000', '150000.00'], ['1.500', '1500.00'], ['918.5', '918.50'], ['12\u00a0345,67', '12345.67'], ['1\u202f000', '1000.00'],
    ["1'250.40", '1250.40'], ['0.01', '0.01'], ['99999999999999.99', '99999999999999.99'],
  ])('%s is %s', (written, amount) => expect(bankAmount(written)).toBe(amount));

  it.each(['abc', '0', '0,00', '1.234.5678', '1,5555'])('%s is no amount', (written) => expect(bankAmount(written)).toBeNull());
});

describe('currencies and accounts', () => {
  it.each([['₽', 'RUB'], ['р.', 'RUB'], ['Rs.', 'INR'], ['₹', 'INR'], ['₸', 'KZT'], ["so'm", 'UZS'], ['₼', 'AZN'], ['TL', 'TRY'], ['원', 'KRW'], ['usd', 'USD'], ['XYZ', null]])('%s is %s', (w, c) => expect(currencyOf(w)).toBe(c));
  it.each([['XX1234', '*1234'], ['4169****1234', '*1234'], ['110-***-123456', '*123456'], ['1234', '*1234'], ['2200 1500 0000 0001', '2200 1500 0000 0001']])('%s is looked up as %s', (w, a) => expect(messageAccount(w)).toBe(a));
});

describe('operators\' patterns', () => {
  it('refuses lookarounds, back-references and groups that are no field', () => {
    expect(patternProblem('(?=a)b', true)).toMatch(/not a pattern/);
    expect(patternProblem('(a)\\1', true)).toMatch(/not a pattern/);
    expect(patternProblem('(?<sum>\\d+)', true)).toMatch(/no field: sum/);
    expect(patternProblem('(?<amount>\\d+)', true)).toBeNull();
  });

  it('runs a catastrophic pattern in linear time', () => {
    const t = { id: 't', name: 't', sender: null, pattern: '^(a+)+$(?<amount>\\d)', kind: 'credit' as const, currency: 'RUB' };
    const started = performance.now();
    expect(readWith(t, 's', `${'a'.repeat(1999)}!`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('a text that ends in its amount', () => {
  const t = { id: 'tpl_op', name: 'Operator template', sender: null, kind: 'credit' as const, currency: 'RUB', pattern: String.raw`Got (?<amount>\d[\d ,.]*\d|\d)` };

  it('may have been cut there: it waits for a person, with the reason, whatever template reads it', () => {
    for (const cut of ['Got 4750', 'Got 4 750', 'Got 4750.', 'Got 4750, ', 'Got 47…']) {
      expect(readWith(t, 's', cut)?.problem, cut).toBe('the text ends in its amount: it may have been cut off there');
    }
  });

  it('is read as before when anything follows the amount', () => {
    for (const whole of ['Got 4750 RUB', 'Got 4750 from Ivan', 'Got 4750.00 ₽']) {
      const r = readWith(t, 's', whole);
      expect(r?.problem, whole).toBeNull();
      expect(r?.amount, whole).toBe('4750.00');
    }
  });
});
