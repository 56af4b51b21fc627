import { describe, expect, it } from 'vitest';
import { BUILT_IN_TEMPLATES, readAll, readFirst, unnamed, type TemplateSpec } from '../../src/domain/messageText.js';

/*
 * What a message becomes is read with `readFirst`: templates tried a block at a time, a block
 * passed over when the union of its patterns finds nothing. It must always be the first of what
 * every template reads (`readAll`, the preview's answer), whatever the patterns look like.
 */

describe('unnamed', () => {
  it('makes named groups plain and leaves escapes and classes as they are', () => {
    expect(unnamed('Got (?<amount>[\\d,]+) (?P<currency>₽)')).toBe('Got (?:[\\d,]+) (?:₽)');
    // A literal parenthesis followed by `?<` is no group; nor is `(?<` inside a class.
    expect(unnamed('\\(?<amount>\\d+')).toBe('\\(?<amount>\\d+');
    expect(unnamed('[(?<x>](?<amount>\\d+)')).toBe('[(?<x>](?:\\d+)');
    expect(unnamed('[]a](?<payer>\\w+)[^]](?<amount>1)')).toBe('[]a](?:\\w+)[^]](?:1)');
    expect(unnamed('a\\\\(?<amount>\\d)')).toBe('a\\\\(?:\\d)');
  });
});

describe('readFirst', () => {
  const operators = (n: number): TemplateSpec[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `tpl_op_${i}`,
      name: `Op ${i}`,
      sender: i % 3 === 0 ? `^OP${i}$` : null,
      pattern: i === 37 ? String.raw`Bonus (?<amount>\d+) (?<currency>RUB) \(?<ref>` : String.raw`op${i}: (?<amount>[\d ,.]+) (?<currency>[A-Z]{3})(?: to \*(?<account>\d{4}))?`,
      kind: i % 5 === 0 ? 'debit' : 'credit',
      currency: null,
    }));
  const texts: [string, string][] = [
    ['900', 'СЧЁТ1017 14:05 зачисление 1 017,00р от Иван И. Баланс: 120 340,50р'],
    ['Alfa-Bank', 'Зачисление 1 500 ₽ по СБП от Мария С.'],
    ['OP30', 'op30: 1 500,00 RUB to *1234'],
    ['x', 'op30: 1 500,00 RUB to *1234'],
    ['x', 'OP61: 77.10 KZT and then op62: 5 USD'],
    ['x', 'Bonus 150 RUB (<ref>'],
    ['x', 'Bonus 150 RUB <ref>'],
    ['Unknown', 'Ваш перевод в обработке'],
    ['VM-SBIUPI', 'Dear SBI UPI User, ur A/cX1234 credited by Rs918 on 28Nov26 by  (Ref no 432112345678)'],
    ['Kaspi', 'Ваш код 1234. Перевод 500 ₸'],
  ];

  it('is the first of every reading, for any number of templates and any text', () => {
    for (const n of [0, 1, 24, 25, 26, 80, 200]) {
      const templates = [...operators(n), ...BUILT_IN_TEMPLATES];
      for (const [sender, text] of texts) {
        expect(readFirst(templates, sender, text), `${n} templates, ${text}`).toEqual(readAll(templates, sender, text).slice(0, 1));
      }
    }
  });

  it('reads the operator\'s template before the built-in ones, and a template whose sender does not match is passed over', () => {
    const templates = [...operators(50), ...BUILT_IN_TEMPLATES];
    expect(readFirst(templates, 'OP30', 'op30: 1 500,00 RUB to *1234')[0]).toMatchObject({ templateId: 'tpl_op_30', amount: '1500.00', account: '*1234' });
    expect(readFirst(templates, 'x', 'op30: 1 500,00 RUB to *1234')).toEqual([]);
    expect(readFirst(templates, 'x', 'Bonus 150 RUB <ref>')[0]).toMatchObject({ templateId: 'tpl_op_37', amount: '150.00' });
  });
});
