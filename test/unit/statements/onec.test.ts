import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { ONEC_MAX_LINE, OneCReader, calendarDay } from '../../../src/reconciliation/statements/onec.js';
import { StatementInvalidError } from '../../../src/reconciliation/statements/types.js';
import { balanceCheckOf, countsOf, readAll, realFiles } from './readAll.js';

const OURS = '40702810200000000001';
const THEIRS = '40702810500001455357';

/** A 1C exchange file of `lines` (CRLF, as banks write it), with the first line and `КонецФайла` around them. */
function file(lines: readonly string[], options: { eol?: string; first?: string; end?: boolean } = {}): string {
  const all = [options.first ?? '1CClientBankExchange', ...lines, ...(options.end === false ? [] : ['КонецФайла'])];
  return all.join(options.eol ?? '\r\n') + (options.eol ?? '\r\n');
}

const header = (...accounts: string[]) => ['ВерсияФормата=1.03', 'Кодировка=Windows', 'ДатаНачала=01.03.2026', 'ДатаКонца=02.03.2026', ...accounts.map((a) => `РасчСчет=${a}`)];

function section(parts: { account?: string; from?: string; to?: string; opening?: string; closing?: string; extra?: string[] } = {}): string[] {
  return [
    'СекцияРасчСчет',
    `ДатаНачала=${parts.from ?? '01.03.2026'}`,
    `ДатаКонца=${parts.to ?? '02.03.2026'}`,
    `РасчСчет=${parts.account ?? OURS}`,
    ...(parts.opening === undefined ? ['НачальныйОстаток=1000.00'] : parts.opening === '' ? [] : [`НачальныйОстаток=${parts.opening}`]),
    'ВсегоПоступило=0.00',
    'ВсегоСписано=0.00',
    ...(parts.closing === undefined ? ['КонечныйОстаток=1000.00'] : parts.closing === '' ? [] : [`КонечныйОстаток=${parts.closing}`]),
    ...(parts.extra ?? []),
    'КонецРасчСчет',
  ];
}

/** A payment order; `fields` replace or add keys (`undefined` removes one). */
function doc(fields: Record<string, string | undefined> = {}, kind = 'Платежное поручение'): string[] {
  const base: Record<string, string | undefined> = {
    Номер: '17',
    Дата: '01.03.2026',
    Сумма: '918.00',
    ПлательщикСчет: THEIRS,
    Плательщик: '7700000000, ООО "Ромашка"',
    Плательщик1: 'ООО "Ромашка"',
    ПолучательСчет: OURS,
    ДатаПоступило: '02.03.2026',
    Получатель1: 'ООО "Наша"',
    НазначениеПлатежа: 'Оплата по счету ORD-7Q2M-118',
    ...fields,
  };
  return [`СекцияДокумент=${kind}`, ...Object.entries(base).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`])), 'КонецДокумента'];
}

function read(text: string, chunk?: number) {
  return readAll(new OneCReader(), text, chunk);
}

function refusal(text: string, chunk?: number): StatementInvalidError {
  try {
    read(text, chunk);
  } catch (err) {
    expect(err).toBeInstanceOf(StatementInvalidError);
    return err as StatementInvalidError;
  }
  throw new Error('expected the file to be refused');
}

describe('1C exchange: documents into entries', () => {
  it('a payment to the section account is a credit with every field, and the section states its period and balances', () => {
    const { entries, summary } = read(file([...header(OURS), ...section({ closing: '1918.00' }), ...doc()]));
    expect(entries).toEqual([
      {
        index: 1,
        kind: 'credit',
        account: OURS,
        amount: '918.00',
        currency: 'RUB', // 40702 810 …: the account number's currency digits
        receivedAt: '2026-03-02T00:00:00.000Z', // ДатаПоступило, not the document's Дата
        dateOnly: true,
        payer: 'ООО "Ромашка"', // Плательщик1 before Плательщик
        reference: 'Оплата по счету ORD-7Q2M-118',
        bankReference: '17/2026-03-01',
        sourceId: '17/2026-03-01',
        problem: null,
      },
    ]);
    expect(summary).toEqual({
      format: '1c',
      version: '1.03',
      sections: [
        {
          account: OURS,
          from: '2026-03-01',
          to: '2026-03-02',
          opening: { amount: '1000.00', currency: null, date: '2026-03-01' },
          closing: { amount: '1918.00', currency: null, date: '2026-03-02' },
          credits: '918.00',
          debits: '0.00',
          unreadable: 0,
        },
      ],
    });
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('a payment from the account is a debit (ДатаСписано), one naming neither is other; both are in file order', () => {
    const { entries, summary } = read(
      file([
        ...header(OURS),
        ...section({ closing: '900.00' }),
        ...doc({ Номер: '5', ПлательщикСчет: OURS, ПолучательСчет: THEIRS, ДатаПоступило: undefined, ДатаСписано: '01.03.2026', Сумма: '100,00' }),
        ...doc({ Номер: '6', ПлательщикСчет: '40702810999999999999', ПолучательСчет: THEIRS }),
      ]),
    );
    expect(entries.map((e) => [e.index, e.kind, e.account, e.amount, e.currency, e.receivedAt])).toEqual([
      [1, 'debit', OURS, '100.00', 'RUB', '2026-03-01T00:00:00.000Z'],
      [2, 'other', null, '918.00', null, '2026-03-02T00:00:00.000Z'],
    ]);
    expect(countsOf(entries)).toEqual({ entries: 2, credits: 0, debits: 1, other: 1, unreadable: 0 });
    expect(summary.sections[0]).toMatchObject({ credits: '0.00', debits: '100.00' });
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('falls back to Дата, Плательщик and НазначениеПлатежа1…6 when the bank leaves the first choice out', () => {
    const { entries } = read(
      file([
        ...header(OURS),
        ...section(),
        ...doc({ ДатаПоступило: '', Плательщик1: undefined, НазначениеПлатежа: undefined, НазначениеПлатежа1: 'Оплата по счету 12', НазначениеПлатежа3: 'НДС не облагается' }),
      ]),
    );
    expect(entries[0]).toMatchObject({
      kind: 'credit',
      receivedAt: '2026-03-01T00:00:00.000Z',
      payer: '7700000000, ООО "Ромашка"',
      reference: 'Оплата по счету 12 НДС не облагается',
      problem: null,
    });
  });

  it('compares ПолучательРасчСчет too (a payment through a correspondent account), and reads a transfer between own accounts as the credit', () => {
    const second = '40702810300000000002';
    const { entries } = read(
      file([
        ...header(OURS, second),
        ...doc({ ПолучательСчет: '30101810400000000225', ПолучательРасчСчет: OURS }),
        ...doc({ ПлательщикСчет: second, ПолучательСчет: OURS }),
      ]),
    );
    expect(entries.map((e) => [e.kind, e.account])).toEqual([
      ['credit', OURS],
      ['credit', OURS],
    ]);
  });

  it('without account sections, the header accounts are the sections (no balances, the header period)', () => {
    const second = '40702810300000000002';
    const { entries, summary } = read(file([...header(OURS, second), ...doc(), ...doc({ Номер: '18', ПлательщикСчет: second, ПолучательСчет: THEIRS })]));
    expect(countsOf(entries)).toMatchObject({ credits: 1, debits: 1 });
    expect(summary.sections).toEqual([
      { account: OURS, from: '2026-03-01', to: '2026-03-02', opening: null, closing: null, credits: '918.00', debits: '0.00', unreadable: 0 },
      { account: second, from: '2026-03-01', to: '2026-03-02', opening: null, closing: null, credits: '0.00', debits: '918.00', unreadable: 0 },
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('not stated');
  });

  it('with sections, a header account that has none gets one only when documents were booked on it', () => {
    const second = '40702810300000000002';
    const third = '40702810300000000003';
    const { summary } = read(file([...header(OURS, second, third), ...section({ closing: '1000.00' }), ...doc({ ПолучательСчет: second })]));
    expect(summary.sections.map((s) => [s.account, s.opening?.amount ?? null, s.credits])).toEqual([
      [OURS, '1000.00', '0.00'],
      [second, null, '918.00'],
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('a section per account and day: each document is summed into the section of its booking day', () => {
    const { summary } = read(
      file([
        ...header(OURS),
        ...section({ from: '01.03.2026', to: '01.03.2026', opening: '1000.00', closing: '1100.00' }),
        ...section({ from: '02.03.2026', to: '02.03.2026', opening: '1100.00', closing: '1050.00' }),
        ...doc({ Сумма: '100.00', ДатаПоступило: '01.03.2026' }),
        ...doc({ Сумма: '50.00', ПлательщикСчет: OURS, ПолучательСчет: THEIRS, ДатаПоступило: undefined, ДатаСписано: '02.03.2026' }),
      ]),
    );
    expect(summary.sections.map((s) => [s.from, s.credits, s.debits])).toEqual([
      ['2026-03-01', '100.00', '0.00'],
      ['2026-03-02', '0.00', '50.00'],
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('sections written after the documents, and a document outside every period, still land in the account section', () => {
    const { summary } = read(
      file([
        ...header(OURS),
        ...doc({ ДатаПоступило: '15.04.2026' }),
        ...section({ closing: '1918.00' }),
      ]),
    );
    expect(summary.sections[0]).toMatchObject({ credits: '918.00', from: '2026-03-01', to: '2026-03-02' });
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('balances that do not close over the booked documents are inconsistent', () => {
    const { summary } = read(file([...header(OURS), ...section({ closing: '1000.00' }), ...doc()]));
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
    const negative = read(file([...header(OURS), ...section({ opening: '-500,5', closing: '417.50' }), ...doc()])).summary;
    expect(negative.sections[0].opening).toEqual({ amount: '-500.50', currency: null, date: '2026-03-01' });
    expect(balanceCheckOf(negative.sections)).toBe('consistent');
  });

  it('a section that states one balance only is not part of the check', () => {
    const { summary } = read(file([...header(OURS), ...section({ closing: '' }), ...doc()]));
    expect(summary.sections[0].closing).toBeNull();
    expect(balanceCheckOf(summary.sections)).toBe('not stated');
  });
});

describe('1C exchange: currency', () => {
  it('is what the section states (code or number), else the account number’s digits 6–8, else KZT for a Kazakh IBAN, else RUB', () => {
    const cases: [string, string[], string][] = [
      [OURS, ['Валюта=EUR'], 'EUR'],
      [OURS, ['КодВалюты=840'], 'USD'],
      ['40702840500000000007', [], 'USD'],
      ['40702978500000000007', [], 'EUR'],
      ['KZ79722S000001674774', [], 'KZT'],
      ['00000000000000000001', [], 'RUB'],
    ];
    for (const [account, extra, currency] of cases) {
      const { entries, summary } = read(file([...header(account), ...section({ account, extra, closing: '1918.00' }), ...doc({ ПолучательСчет: account })]));
      expect(entries[0]).toMatchObject({ kind: 'credit', currency, problem: null });
      expect(summary.sections[0].opening?.currency).toBe(extra.length > 0 ? currency : null);
    }
  });

  it('a stated currency that cannot be read makes the section’s credits unreadable, not the file', () => {
    const { entries } = read(file([...header(OURS), ...section({ extra: ['Валюта=рубли'] }), ...doc()]));
    expect(entries[0].currency).toBeNull();
    expect(entries[0].problem).toMatch(/^document 1 \(Платежное поручение № 17, line \d+\) is booked on account 40702810200000000001, whose stated currency "рубли" is not an ISO 4217 code/);
  });
});

describe('1C exchange: unreadable documents are entries with a problem, and reading goes on', () => {
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['an amount that is not one', { Сумма: '9l8.00' }, /: Сумма "9l8\.00" is not a decimal number$/],
    ['a zero amount', { Сумма: '0.00' }, /: Сумма "0\.00" is not positive$/],
    ['three decimal places', { Сумма: '918.005' }, /: Сумма "918\.005" has more than 2 decimal places$/],
    ['no amount', { Сумма: undefined }, / has no Сумма$/],
    ['a day that does not exist', { ДатаПоступило: '31.02.2026' }, /: ДатаПоступило "31\.02\.2026" is not a day of the calendar$/],
    ['a date in another form', { Дата: '2026-03-01' }, /: Дата "2026-03-01" is not a date DD\.MM\.YYYY$/],
    ['a credit without any date', { Дата: undefined, ДатаПоступило: undefined }, / is a credit without a date \(ДатаПоступило or Дата\)$/],
  ];
  it.each(cases)('%s', (_name, fields, message) => {
    const { entries, summary } = read(file([...header(OURS), ...section(), ...doc(fields), ...doc({ Номер: '18' })]));
    expect(entries).toHaveLength(2);
    expect(entries[0].kind).toBe('credit');
    expect(entries[0].problem).toMatch(/^document 1 \(Платежное поручение(?: № 17)?, line 16\)/);
    expect(entries[0].problem).toMatch(message);
    expect(entries[1]).toMatchObject({ index: 2, kind: 'credit', problem: null, bankReference: '18/2026-03-01' });
    expect(countsOf(entries)).toMatchObject({ credits: 1, unreadable: 1 });
    // A booked entry whose amount could not be read keeps the section from closing.
    const amountUnread = entries[0].amount === null;
    expect(summary.sections[0].unreadable).toBe(amountUnread ? 1 : 0);
  });

  it('fields it could read are still filled', () => {
    const { entries } = read(file([...header(OURS), ...section(), ...doc({ Сумма: 'abc' })]));
    expect(entries[0]).toMatchObject({ amount: null, currency: 'RUB', receivedAt: '2026-03-02T00:00:00.000Z', payer: 'ООО "Ромашка"', bankReference: '17/2026-03-01' });
  });
});

describe('1C exchange: files that are no statement', () => {
  const cases: [string, string, RegExp][] = [
    ['an empty file', '', /^the file is empty$/],
    ['another first line', file([...header(OURS)], { first: '<?xml version="1.0"?>' }), /^the file does not begin with 1CClientBankExchange \(its first line is "<\?xml version="1\.0"\?>"\)/],
    ['no account anywhere', file(['ВерсияФормата=1.03']), /^the file names no account: no РасчСчет in its header and no СекцияРасчСчет$/],
    ['a document before any account', file(['ВерсияФормата=1.03', ...doc()]), /^document 1 \(line 3\) comes before any account/],
    ['a section without РасчСчет', file([...header(OURS), 'СекцияРасчСчет', 'НачальныйОстаток=1.00', 'КонецРасчСчет']), /^СекцияРасчСчет 1 \(line 7\) has no РасчСчет/],
    ['a balance that is not a number', file([...header(OURS), ...section({ opening: 'много' })]), /^СекцияРасчСчет 1 \(line 7\): НачальныйОстаток "много" is not a decimal number$/],
    ['a document not closed at the end', file([...header(OURS), ...doc().slice(0, -1)], { end: false }), /^the file ends inside document 1 \(line 7\): КонецДокумента is missing/],
    ['a document not closed before the next', file([...header(OURS), ...doc().slice(0, -1), ...doc()]), /^document 1 \(line 7\) is not closed by КонецДокумента before line 18$/],
    ['a section not closed', file([...header(OURS), ...section().slice(0, -1), ...doc()]), /^СекцияРасчСчет 1 \(line 7\) is not closed by КонецРасчСчет before line 15$/],
    ['no КонецФайла (cut short)', file([...header(OURS), ...doc()], { end: false }), /^the file ends without КонецФайла: it may have been cut short/],
    ['a text decoded in the wrong encoding', iconv.decode(iconv.encode(file([...header(OURS), ...doc()]), 'windows-1251'), 'cp866'), /no key of the format was recognised: is the text decoded with the encoding its Кодировка names/],
  ];
  it.each(cases)('%s', (_name, text, message) => {
    const whole = refusal(text);
    expect(whole.message).toMatch(message);
    expect(whole.problem.kind).toBe('invalid');
    // The same answer whatever the chunking.
    expect(refusal(text, 1).message).toBe(whole.message);
  });
});

describe('1C exchange: lines', () => {
  it('LF and CRLF, blank lines, upper-case keys and text after КонецФайла read the same', () => {
    const lines = [...header(OURS), ...section({ closing: '1918.00' }), ...doc()];
    const crlf = read(file(lines));
    expect(read(file(lines, { eol: '\n' }))).toEqual(crlf);
    expect(read(file(lines.flatMap((l) => [l, '']), { eol: '\n' }))).toEqual(crlf);
    const upper = lines.map((l) => {
      const eq = l.indexOf('=');
      return eq < 0 ? l.toUpperCase() : l.slice(0, eq).toUpperCase() + l.slice(eq);
    });
    expect(read(file(upper))).toEqual(crlf);
    expect(read(file(lines) + 'ÐšÐ¾Ð½ÐµÑ†Ð¤Ð°Ð¹Ð»Ð°\r\nmore')).toEqual(crlf);
    expect(read(file(lines).replace(/\r\n$/, ''))).toEqual(crlf); // no newline after КонецФайла
  });

  it('1-character chunks give what the whole text gives', () => {
    const text = file([
      ...header(OURS),
      ...section({ closing: '1818.00' }),
      ...doc(),
      ...doc({ Номер: '2', Сумма: 'x' }),
      ...doc({ Номер: '3', ПлательщикСчет: OURS, ПолучательСчет: THEIRS, Сумма: '100.00', ДатаСписано: '02.03.2026' }),
    ]);
    const whole = read(text);
    expect(countsOf(whole.entries)).toEqual({ entries: 3, credits: 1, debits: 1, other: 0, unreadable: 1 });
    expect(read(text, 1)).toEqual(whole);
    expect(read(text, 7)).toEqual(whole);
  });

  it(`a line longer than ${ONEC_MAX_LINE} characters in a document makes that document unreadable, and the next one is read`, () => {
    const hostile = 'x'.repeat(ONEC_MAX_LINE * 4);
    const text = file([...header(OURS), ...section(), ...doc({ НазначениеПлатежа: hostile }), ...doc({ Номер: '18' })]);
    for (const chunk of [undefined, 1000]) {
      const { entries } = read(text, chunk);
      expect(entries).toHaveLength(2);
      expect(entries[0].problem).toBe(`document 1 (Платежное поручение № 17, line 16): line 26 is longer than ${ONEC_MAX_LINE} characters`);
      expect(entries[0].reference).toBeNull(); // the long line is dropped, not kept
      expect(entries[1]).toMatchObject({ problem: null, bankReference: '18/2026-03-01' });
    }
  });

  it('a line that long outside a document, or one that never ends, refuses the file without growing', () => {
    const inHeader = file([...header(OURS), `Отправитель=${'x'.repeat(ONEC_MAX_LINE + 1)}`]);
    expect(refusal(inHeader).message).toBe(`line 7 is longer than ${ONEC_MAX_LINE} characters, which no 1C exchange file has`);
    expect(refusal(inHeader, 4096).message).toBe(refusal(inHeader).message);

    // 8 MiB without a newline, pushed as a socket would: refused as soon as the line passes the bound.
    const reader = new OneCReader();
    reader.write('1CClientBankExchange\r\nОтправитель=');
    const piece = 'y'.repeat(64 * 1024);
    let thrown: unknown = null;
    let written = 0;
    try {
      for (; written < 128; written += 1) reader.write(piece);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StatementInvalidError);
    expect(written).toBeLessThanOrEqual(1);
    // The same inside a document, where it only marks the document: the reader keeps nothing of it.
    const inDocument = new OneCReader();
    inDocument.write(file([...header(OURS), ...section()], { end: false }) + 'СекцияДокумент=Платежное поручение\r\nНазначениеПлатежа=');
    for (let i = 0; i < 128; i += 1) inDocument.write(piece);
    inDocument.write('\r\n' + doc().slice(1).join('\r\n') + '\r\nКонецФайла\r\n');
    inDocument.close();
    const [entry] = inDocument.take();
    expect(entry.problem).toMatch(/^document 1 \(Платежное поручение № 17, line 16\): line 17 is longer than 65536 characters$/);
  });
});

describe('1C exchange: the Kazakh variant (1С:Бухгалтерия для Казахстана, ВерсияФормата 2.00)', () => {
  it('reads НомерДокумента, ДатаДокумента, ДатаОперации, СуммаПриход/СуммаРасход, the ИИК accounts and upper-case markers', () => {
    // Modelled on the Kaspi and Jusan files quoted in the tests of OSI.Core (see SOURCES.md), whose files could not be taken.
    const ours = 'KZ79722S000001674774';
    const text = file([
      'ВерсияФормата=2.00',
      'Кодировка=Windows',
      'ДатаНачала=01.06.2023',
      'ДатаКонца=30.06.2023',
      `РасчСчет=${ours}`,
      'СЕКЦИЯРАСЧСЧЕТ',
      'ДатаНачала=01.06.2023',
      'ДатаКонца=30.06.2023',
      `РасчСчет=${ours}`,
      'НачальныйОстаток=129464.83',
      'ВсегоПоступило=42531.32',
      'ВсегоСписано=4000.00',
      'КонечныйОстаток=167996.15',
      'КОНЕЦРАСЧСЧЕТ',
      'СЕКЦИЯДОКУМЕНТ=выписка',
      'НомерДокумента=47437099',
      'ДатаДокумента=30.06.2023',
      'ВидДокумента=Платежное поручение',
      'ПолучательНаименование=Получатель',
      'ПолучательИИК=KZ22722C000024901213',
      'ПлательщикНаименование=ОСИ "ЖК"',
      `ПлательщикИИК=${ours}`,
      'СуммаРасход=4000.00',
      'ДатаОперации=30.06.2023',
      'НазначениеПлатежа=Прочие переводы',
      'КОНЕЦДОКУМЕНТА',
      'СЕКЦИЯДОКУМЕНТ=выписка',
      'НомерДокумента=47437101',
      'ДатаДокумента=29.06.2023',
      'ПолучательНаименование=ОСИ "ЖК"',
      `ПолучательИИК=${ours}`,
      'ПлательщикНаименование=ЧСИ Иванов И.И.',
      'ПлательщикИИК=KZ11111111111111111111',
      'СуммаПриход=42531.32',
      'ДатаОперации=30.06.2023',
      'НазначениеПлатежа=Взносы',
      'КОНЕЦДОКУМЕНТА',
    ]);
    const { entries, summary } = read(text);
    expect(entries.map((e) => [e.kind, e.amount, e.currency, e.receivedAt, e.payer, e.bankReference])).toEqual([
      ['debit', '4000.00', 'KZT', '2023-06-30T00:00:00.000Z', 'ОСИ "ЖК"', '47437099/2023-06-30'],
      ['credit', '42531.32', 'KZT', '2023-06-30T00:00:00.000Z', 'ЧСИ Иванов И.И.', '47437101/2023-06-29'],
    ]);
    expect(summary.version).toBe('2.00');
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });
});

describe('calendarDay', () => {
  it('reads DD.MM.YYYY (and D.M.YYYY, a trailing time) and refuses days that do not exist', () => {
    expect(calendarDay('01.03.2026')).toEqual({ ok: true, value: '2026-03-01' });
    expect(calendarDay('1.3.2026')).toEqual({ ok: true, value: '2026-03-01' });
    expect(calendarDay('29.02.2024 0:00:00')).toEqual({ ok: true, value: '2024-02-29' });
    expect(calendarDay('29.02.2026').ok).toBe(false);
    expect(calendarDay('01.13.2026').ok).toBe(false);
    expect(calendarDay('01.03.26').ok).toBe(false);
  });
});

const { manifest, text: realText } = realFiles('onec');

describe('1C exchange: real bank files (test/fixtures/statements/real/onec)', () => {
  it('has at least 3 real files', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(3);
    expect(manifest.some((m) => m.encoding === 'windows-1251')).toBe(true);
  });

  it.each(manifest.map((m) => [m.file, m] as const))('%s', (_name, m) => {
    expect(m.format).toBe('1c');
    const text = realText(m);
    const { entries, summary } = read(text);
    expect(summary.format).toBe('1c');
    expect(summary.version).toBe(m.version);
    const { sections, balanceCheck: check, firstCredit, ...counts } = m.expected;
    expect(countsOf(entries)).toEqual(counts);
    expect(summary.sections).toHaveLength(sections);
    expect(balanceCheckOf(summary.sections)).toBe(check);
    const credit = entries.find((e) => e.kind === 'credit' && e.problem === null);
    expect(
      credit ? { amount: credit.amount, currency: credit.currency, receivedAt: credit.receivedAt, bankReference: credit.bankReference, payer: credit.payer } : null,
    ).toEqual(firstCredit);
    expect(read(text, 1)).toEqual({ entries, summary });
  });
});
