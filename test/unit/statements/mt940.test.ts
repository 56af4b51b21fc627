import { describe, expect, it } from 'vitest';
import { Mt940Reader } from '../../../src/reconciliation/statements/mt940.js';
import { StatementInvalidError, type StatementEntry } from '../../../src/reconciliation/statements/types.js';
import { balanceCheckOf, countsOf, readAll, realFiles } from './readAll.js';

const { manifest, text: realText } = realFiles('mt940');

function read(text: string, chunk?: number) {
  return readAll(new Mt940Reader(), text, chunk);
}

function refusal(text: string): StatementInvalidError {
  let caught: unknown = null;
  try {
    read(text);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(StatementInvalidError);
  // The same refusal whatever the chunking.
  expect(() => read(text, 3)).toThrow(StatementInvalidError);
  return caught as StatementInvalidError;
}

/** One bare MT940 message around `body` (the `:61:`/`:86:` lines), with its balances. */
function message(body: string, opts: { account?: string; opening?: string; closing?: string } = {}): string {
  return [
    ':20:STMT-1',
    `:25:${opts.account ?? 'DE89370400440532013000'}`,
    ':28C:1/1',
    `:60F:${opts.opening ?? 'C260301EUR1000,00'}`,
    body,
    `:62F:${opts.closing ?? 'C260302EUR1000,00'}`,
    '-',
    '',
  ].join('\n');
}

function brief(e: StatementEntry) {
  return { kind: e.kind, amount: e.amount, currency: e.currency, receivedAt: e.receivedAt, problem: e.problem };
}

describe('MT940/MT942 of real banks (test/fixtures/statements/real/mt940)', () => {
  it('has at least 6 files from at least 3 countries, with an MT942', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(6);
    expect(new Set(manifest.map((m) => m.country)).size).toBeGreaterThanOrEqual(3);
    expect(manifest.some((m) => m.format === 'mt942')).toBe(true);
  });

  it.each(manifest.map((m) => [m.file, m] as const))('%s reads as its manifest says, whatever the chunking', (_, item) => {
    const text = realText(item);
    const { entries, summary } = read(text);
    expect(summary.format).toBe(item.format);
    expect(summary.version).toBe(item.version);
    expect(countsOf(entries)).toEqual({
      entries: item.expected.entries,
      credits: item.expected.credits,
      debits: item.expected.debits,
      other: item.expected.other,
      unreadable: item.expected.unreadable,
    });
    expect(summary.sections).toHaveLength(item.expected.sections);
    expect(balanceCheckOf(summary.sections)).toBe(item.expected.balanceCheck);
    const first = entries.find((e) => e.kind === 'credit' && e.problem === null);
    expect(
      first ? { amount: first.amount, currency: first.currency, receivedAt: first.receivedAt, bankReference: first.bankReference, payer: first.payer } : null,
    ).toEqual(item.expected.firstCredit);
    // Entries are numbered 1… in file order, each on a section's account, each a date alone.
    expect(entries.map((e) => e.index)).toEqual(entries.map((_e, i) => i + 1));
    for (const e of entries) {
      expect(summary.sections.map((s) => s.account)).toContain(e.account);
      expect(e.dateOnly).toBe(true);
    }
    // 1-character chunks split every CRLF, tag and `?xx` code: the same entries and summary.
    expect(read(text, 1)).toEqual({ entries, summary });
    expect(read(text, 7)).toEqual({ entries, summary });
  });

  it('Dresdner Bank: German ?xx structure gives the payer from ?32+?33 and the SEPA purpose after SVWZ+', () => {
    const item = manifest.find((m) => m.file === 'de-dresdner-bank-sepa.sta')!;
    const { entries } = read(realText(item));
    expect(entries[7]).toMatchObject({
      kind: 'credit',
      amount: '15000.05',
      payer: 'Richter Renate 70 Zeichen Beginn Fuellzeichen xxxxxxxx',
      bankReference: '0724710290621954',
      sourceId: null,
    });
    expect(entries[7].reference).toMatch(/^TO 13 TFNr 20004 Eingangskanal Mint/);
    // `RCR204,88`: a reversal of a credit is `other`, and counts as a debit of its section.
    expect(entries[5]).toMatchObject({ kind: 'other', amount: '204.88', problem: null });
  });

  it('Rabobank: /ORDP//NAME/ gives the payer of a credit; /BENM//NAME/ of a debit is no payer', () => {
    const item = manifest.find((m) => m.file === 'nl-rabobank-structured-ordp.txt')!;
    const { entries } = read(realText(item));
    expect(entries.map((e) => [e.kind, e.payer, e.reference])).toEqual([
      ['debit', null, '674725433 1120000153447185 14144467636004962'],
      ['credit', 'Bedrijf B.V.', 'NR.201303-111/11.3.2013NR.201303-112/11.3.2013'],
      ['debit', null, 'Factuur 307472'],
      ['credit', 'DLN CONSULTING', 'factuurnummer 201303-128cursus certified PO'],
      ['debit', null, 'BETALINGSKENM. 231732INCASSO FACTUUR 231732INCASSO 02-04-2013INFRACOM INTERNET BV*ZWOLLE'],
      ['debit', null, 'KostenPeriode 01-01-2013 t/m 31-03-2013'],
      ['credit', 'Wehkamp BV04', null],
      ['credit', 'BEDRIJF NV', 'Ref: 201302-080'],
      ['credit', 'EVEREST BV', '12420/20001512 201303-088 XX201303-088XX ZILVERLINE TRAINING1098 TW AMSTERDAM'],
    ]);
  });

  it('ING: /CNTP/account/BIC/name/ names the payer; lines starting with a dash stay text', () => {
    const item = manifest.find((m) => m.file === 'nl-ing-cntp-structured.txt')!;
    const { entries } = read(realText(item));
    expect(entries[0]).toMatchObject({ kind: 'debit', payer: null, reference: '22-08-2014 Omschrijving', bankReference: '14237654096217' });
    expect(entries[2]).toMatchObject({ kind: 'credit', payer: 'BERTYU M', reference: '18-08-2014 Een opmschrijving' });
  });

  it('Rabobank legacy: the name after a padded 16-character customer reference is not part of it; several :86: join', () => {
    const item = manifest.find((m) => m.file === 'nl-rabobank-legacy.sta')!;
    const { entries } = read(realText(item));
    expect(entries[0]).toMatchObject({
      sourceId: '0121470966',
      reference: 'Terugboeking NIET AKKOORD MET AFSCHRIJVING KOSTEN KINDEROPVANG JUNI 20095731',
    });
  });

  it('ASN Bank: free text cut at 65 columns joins without a space; a shorter line ends a word', () => {
    const item = manifest.find((m) => m.file === 'nl-asn-bank-swift-blocks.txt')!;
    const { entries } = read(realText(item));
    expect(entries[2].reference).toBe(
      'NL08ABNA9999999999 international card services 000000000000000000000000000000000 0000000000000000 Betaling aan ICS 99999999999 ICS Referentie: 2020-01-05 19:47 000000000000000',
    );
    expect(entries[1].sourceId).toBe('NL56ASNB9999999999');
  });
});

describe('MT940 rules', () => {
  it('reads C as a credit, D as a debit, RC and RD as other; reversals count in the balance by their booking side', () => {
    const text = message(
      [
        ':61:2603020302C100,00NTRFORDER-1//BANKREF1',
        ':61:2603020302D30,00NTRFNONREF//BANKREF2',
        ':61:2603020302RC20,00NTRFNONREF//BANKREF3', // reversal of a credit: money out
        ':61:2603020302RD5,00NTRFNONREF//BANKREF4', // reversal of a debit: money in
      ].join('\n'),
      { closing: 'C260302EUR1055,00' },
    );
    const { entries, summary } = read(text);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['credit', '100.00'],
      ['debit', '30.00'],
      ['other', '20.00'],
      ['other', '5.00'],
    ]);
    expect(summary.sections[0]).toMatchObject({ credits: '105.00', debits: '50.00', unreadable: 0 });
    expect(balanceCheckOf(summary.sections)).toBe('consistent'); // 1000 + 105 − 50 = 1055
    expect(summary).toMatchObject({ format: 'mt940', version: null });
  });

  it('takes the booking day from the entry date, the year from the value date, across a new year', () => {
    const text = message(
      [
        ':61:2512310102C1,00NTRFNONREF', // value 31 Dec 2025, booked 2 Jan 2026
        ':61:2601021231C2,00NTRFNONREF', // value 2 Jan 2026, booked 31 Dec 2025
        ':61:260315C3,00NTRFNONREF', // no entry date: the value date
        ':61:1602300301D4,00N024NONREF', // value date 30 February (German interest dating), booked 1 March
      ].join('\n'),
      { opening: 'C251230EUR0,00', closing: 'C260315EUR2,00' },
    );
    const { entries, summary } = read(text);
    expect(entries.map((e) => [e.receivedAt, e.dateOnly, e.problem])).toEqual([
      ['2026-01-02T00:00:00.000Z', true, null],
      ['2025-12-31T00:00:00.000Z', true, null],
      ['2026-03-15T00:00:00.000Z', true, null],
      ['2016-03-01T00:00:00.000Z', true, null],
    ]);
    expect(summary.sections[0]).toMatchObject({ from: '2016-03-01', to: '2026-03-15' });
  });

  it('takes the currency from the opening balance, never from the funds code', () => {
    const { entries } = read(message(':61:2603020302CR918,00NTRFNONREF', { opening: 'C260301EUR0,00', closing: 'C260302EUR918,00' }));
    expect(entries.map(brief)).toEqual([{ kind: 'credit', amount: '918.00', currency: 'EUR', receivedAt: '2026-03-02T00:00:00.000Z', problem: null }]);
  });

  it('bankReference is the // reference unless NONREF; sourceId is the customer reference unless NONREF', () => {
    const { entries } = read(
      message(
        [
          ':61:2603020302C1,00NTRFINV-2026-77//0724710345313905',
          'supplementary details',
          ':61:2603020302C1,00NTRFNONREF//NONREF',
          ':61:2603020302C1,00NTRFNONREF',
          ':61:2603020302C1,00NMSC',
        ].join('\n'),
        { closing: 'C260302EUR1004,00' },
      ),
    );
    expect(entries.map((e) => [e.sourceId, e.bankReference])).toEqual([
      ['INV-2026-77', '0724710345313905'],
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it('reads the German ?xx :86: into payer (?32+?33) and reference (?20–?29, SVWZ+ part), joining lines as written', () => {
    const text = message(
      [
        ':61:2603020302C918,00NTRFNONREF//REF1',
        ':86:166?00GUTSCHRIFT?109251?20EREF+E2E-1?21SVWZ+ORD-7Q2M-1',
        '18 Rechnung 42?30COBADEFFXXX?31DE89370400440532013000?32Jürgen Mü',
        'ller Handels?33gesellschaft mbH',
        ':61:2603020302D18,00NTRFNONREF//REF2',
        ':86:177?00UEBERWEISUNG?20Miete?32Vermieter GmbH',
      ].join('\n'),
      { closing: 'C260302EUR1900,00' },
    );
    const { entries } = read(text);
    expect(entries.map((e) => [e.kind, e.payer, e.reference])).toEqual([
      ['credit', 'Jürgen Müller Handelsgesellschaft mbH', 'ORD-7Q2M-118 Rechnung 42'],
      ['debit', null, 'Miete'], // the name of a debit is the payee, not a payer
    ]);
  });

  it('reads the Dutch /NAME/…/REMI/… forms and free text', () => {
    const text = message(
      [
        ':61:2603020302C10,00N541EREF',
        ':86:/EREF/E2E-1/ORDP//NAME/Jan de Vries/ADDR/Straatweg 1/REMI/USTD//ORDER 4711/',
        ':61:2603020302C20,00NTRFNONREF',
        ':86:/TRTP/SEPA OVERBOEKING/IBAN/NL91ABNA0417164300/BIC/ABNANL2A/NAME/ACME BV/REMI/Invoice 12/EREF/NOTPROVIDED',
        ':61:2603020302C30,00NTRFNONREF',
        ':86:/ORDP/Kiwi Traders Ltd/ACNO/12-3011-0334122-37',
        ':61:2603020302C40,00NTRFNONREF',
        ':86:/REMI/STRD/CUR/RF18539007547034/',
        ':61:2603020302C50,00NTRFNONREF',
        ':86:GIRO 428428 KPN - DIGITENNE',
        'BETREFT FACTUUR',
      ].join('\n'),
      { closing: 'C260302EUR1150,00' },
    );
    const { entries } = read(text);
    expect(entries.map((e) => [e.payer, e.reference])).toEqual([
      ['Jan de Vries', 'ORDER 4711'],
      ['ACME BV', 'Invoice 12'],
      ['Kiwi Traders Ltd', null],
      [null, 'RF18539007547034'],
      [null, 'GIRO 428428 KPN - DIGITENNE BETREFT FACTUUR'],
    ]);
  });

  it('gives the balances signed with their dates', () => {
    const { summary } = read(message(':61:2603020302D50,NTRFNONREF', { opening: 'D260301EUR100,5', closing: 'D260302EUR150,50' }));
    expect(summary.sections).toEqual([
      {
        account: 'DE89370400440532013000',
        from: '2026-03-02',
        to: '2026-03-02',
        opening: { amount: '-100.50', currency: 'EUR', date: '2026-03-01' },
        closing: { amount: '-150.50', currency: 'EUR', date: '2026-03-02' },
        credits: '0.00',
        debits: '50.00',
        unreadable: 0,
      },
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('reports balances that do not close as they are', () => {
    const { summary } = read(message(':61:2603020302C50,00NTRFNONREF', { closing: 'C260302EUR1049,99' }));
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
  });

  it('marks an unreadable :61: among good ones and goes on', () => {
    const text = message(
      [
        ':61:2603020302C100,00NTRFNONREF',
        ':86:good one',
        ':61:2603020302C1,2,3NTRFNONREF', // two commas: no amount
        ':86:bad amount',
        ':61:2613450302C5,00NTRFNONREF', // value date month 13 and no calendar entry date
        ':61:2603020302X5,00NTRFNONREF', // no C/D mark
        ':61:garbage',
        ':61:2603020302C0,00NTRFNONREF', // zero: no entry of the contract, but the balance is not touched
        ':61:2603021302D40,00NTRFNONREF', // entry date 2 Mar… month 13: the amount still counts
        ':61:260230C1,00NTRFNONREF', // value date 30 February and no entry date
      ].join('\n'),
      { closing: 'C260302EUR1065,00' },
    );
    const { entries, summary } = read(text);
    expect(entries.map((e) => [e.kind, e.amount, e.problem === null ? null : e.problem.replace(/ \(:61: on line \d+\)/, '')])).toEqual([
      ['credit', '100.00', null],
      ['credit', null, 'entry 2: the amount "1,2,3" is not an amount with a decimal comma'],
      ['credit', '5.00', 'entry 3: the value date "261345" is not a date YYMMDD'],
      ['other', null, 'entry 4: "X5" is not a debit/credit mark (C, D, RC or RD)'],
      ['other', null, 'entry 5: the value date "garbag" is not YYMMDD'],
      ['credit', null, 'entry 6: the amount "0,00" is zero'],
      ['debit', '40.00', 'entry 7: the entry date "1302" is not a calendar date'],
      ['credit', '1.00', 'entry 8: the value date "260230" is not a calendar date'],
    ]);
    expect(entries[1].reference).toBe('bad amount');
    expect(countsOf(entries)).toEqual({ entries: 8, credits: 1, debits: 0, other: 0, unreadable: 7 });
    // Amounts read count in the balance even when the date could not be read; the entries whose
    // amount or direction could not be read (2, 4, 5) keep the balance check from closing.
    expect(summary.sections[0]).toMatchObject({ credits: '106.00', debits: '40.00', unreadable: 3 });
    expect(balanceCheckOf(summary.sections)).toBe('inconsistent');
  });

  it('names a missing currency as the entry problem', () => {
    const text = ':20:X\n:25:ACC-1\n:28C:1\n:61:2603020302C10,00NTRFNONREF\n-\n';
    const { entries } = read(text);
    expect(entries[0].problem).toMatch(/entry 1 \(:61: on line 4\) has no currency/);
    expect(entries[0].amount).toBe('10.00');
  });

  it('tells MT942 by :13D:/:34F: or a {2:…942} header, and takes its currency from :34F:', () => {
    const mt942 = ':20:R1\n:25:PL29114010810000267002001002\n:28C:1/1\n:34F:PLND0,\n:13D:2603021815+0100\n:61:2603020302C7,50NTRFNONREF\n:90D:0PLN0,00\n:90C:1PLN7,50\n-\n';
    const { entries, summary } = read(mt942);
    expect(summary.format).toBe('mt942');
    expect(summary.sections[0]).toMatchObject({ opening: null, closing: null, credits: '7.50' });
    expect(balanceCheckOf(summary.sections)).toBe('not stated');
    expect(entries.map(brief)).toEqual([{ kind: 'credit', amount: '7.50', currency: 'PLN', receivedAt: '2026-03-02T00:00:00.000Z', problem: null }]);
    const header = `{1:F01BANKXX2AXXX0000000000}{2:O942BANKXX2AXXXXN}{4:\n:20:R1\n:25:ACC\n:60F:C260301EUR0,\n:62F:C260301EUR0,\n-}`;
    expect(read(header).summary.format).toBe('mt942');
    expect(read(message('')).summary.format).toBe('mt940');
  });

  it('reads several messages and several :25: accounts, in SWIFT blocks or bare, with CRLF or LF and blank lines around', () => {
    const one = message(':61:2603020302C1,00NTRFNONREF', { account: 'NL91ABNA0417164300', closing: 'C260302EUR1001,00' });
    const blocks =
      '{1:F01ABNANL2AAXXX0000000000}{2:O940ABNANL2AXXXXN}{3:{108:B1}}{4:\r\n' +
      ':20:S2\r\n:25:ABNANL2A/123456789\r\n:28C:2\r\n:60F:C260302EUR5,00\r\n:61:2603030303D5,00NTRFNONREF\r\n:62F:C260303EUR0,00\r\n' +
      ':25:ABNANL2A/987654321\r\n:60F:C260302EUR0,00\r\n:61:2603030303C9,00NTRFNONREF\r\n:62F:C260303EUR9,00\r\n' +
      '-}{5:{MAC:00000000}}{1:F01ABNANL2AAXXX0000000000}{2:O940ABNANL2AXXXXN}{4::20:S3\r\n:25:LAST\r\n:60F:C260303EUR0,\r\n:62F:C260303EUR0,\r\n-}';
    const text = `\n\n\r\n${one}\r\n${blocks}\r\n\n\n`;
    const { entries, summary } = read(text);
    expect(summary.sections.map((s) => [s.account, s.credits, s.debits])).toEqual([
      ['NL91ABNA0417164300', '1.00', '0.00'],
      ['ABNANL2A/123456789', '0.00', '5.00'],
      ['ABNANL2A/987654321', '9.00', '0.00'],
      ['LAST', '0.00', '0.00'],
    ]);
    expect(entries.map((e) => [e.index, e.account])).toEqual([
      [1, 'NL91ABNA0417164300'],
      [2, 'ABNANL2A/123456789'],
      [3, 'ABNANL2A/987654321'],
    ]);
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
    expect(read(text, 1)).toEqual({ entries, summary });
  });

  it('takes a lone dash followed by more fields as :86: text (Rabobank), and skips bank header lines between messages', () => {
    const text = [
      'ABNANL2A',
      '940',
      'ABNANL2A',
      ':20:S1',
      ':25:NL84RABO0121212121',
      ':60F:C260301EUR0,00',
      ':61:2603020302C10,00N541EREF',
      ':86:/ORDP//NAME/Delta/REMI/kenmerk 408 -',
      '-',
      ':62F:C260302EUR10,00',
      '-',
      'ABNANL2A',
      '940',
      ':20:S2',
      ':25:NL84RABO0121212121',
      ':60F:C260302EUR10,00',
      ':62F:C260302EUR10,00',
      '-',
    ].join('\n');
    const { entries, summary } = read(text);
    expect(entries.map((e) => [e.payer, e.reference])).toEqual([['Delta', 'kenmerk 408 --']]);
    expect(summary.sections).toHaveLength(2);
    expect(balanceCheckOf(summary.sections)).toBe('consistent');
  });

  it('gives the same entries and summary for every chunking', () => {
    const text = message(
      [
        ':61:2603020302C918,00NTRFNONREF//REF1',
        ':86:166?00GUTSCHRIFT?20SVWZ+ORD-1?32Anna',
        ':61:2603020302C1,2,3NTRFNONREF',
        ':61:2603020302D18,00NTRFNONREF',
        ':86:/BENM//NAME/X/REMI/Y',
      ].join('\r\n'),
      { closing: 'C260302EUR1900,00' },
    );
    const whole = read(text);
    for (const size of [1, 2, 3, 5, 13, 64]) expect(read(text, size)).toEqual(whole);
  });
});

describe('MT940 files refused whole', () => {
  it('refuses an empty file, text that is no MT940, and a file without :20:/:25:', () => {
    expect(refusal('').message).toMatch(/empty/);
    expect(refusal('\n  \r\n').message).toMatch(/empty/);
    expect(refusal('<?xml version="1.0"?>\n<Document/>\n').message).toMatch(/no MT940 or MT942 message/);
    const csv = ['transactionId,account,amount', ...Array.from({ length: 20 }, (_, i) => `t${i},acc,1.00`)].join('\n');
    const problem = refusal(csv).problem;
    expect(problem.message).toMatch(/outside any MT940 field/);
    expect(problem.line).toBe(11);
  });

  it('refuses a :61: before any :25:, and a message with no :25:', () => {
    expect(refusal(':20:X\n:60F:C260301EUR0,\n:61:2603020302C1,00NTRFNONREF\n-\n').problem).toMatchObject({ element: ':61:', line: 3 });
    expect(refusal(':20:X\n:28C:1\n:60F:C260301EUR0,\n:62F:C260301EUR0,\n-\n').message).toMatch(/no :25: account/);
  });

  it('refuses a balance that cannot be read, and a SWIFT message of another type', () => {
    expect(refusal(message('', { opening: 'C260301EURABC' })).problem).toMatchObject({ element: ':60F:', line: 4 });
    expect(refusal(message('', { closing: 'X260301EUR1,00' })).message).toMatch(/does not start with C or D/);
    expect(refusal('{1:F01BANKXX2AXXX0000000000}{2:O103BANKXX2AXXXXN}{4:\n:20:X\n-}').message).toMatch(/MT103, not an MT940/);
  });

  it('refuses a 1 MB line without a line end as soon as it passes 16 KiB, without holding it', () => {
    const reader = new Mt940Reader();
    reader.write(':20:X\n:25:ACC\n:86:');
    let thrownAfter = -1;
    const piece = 'A'.repeat(4096);
    for (let written = 0; written < 1024 * 1024; written += piece.length) {
      try {
        reader.write(piece);
      } catch (err) {
        expect(err).toBeInstanceOf(StatementInvalidError);
        expect((err as StatementInvalidError).message).toMatch(/line 3 is longer than 16384 characters/);
        thrownAfter = written;
        break;
      }
    }
    expect(thrownAfter).toBeGreaterThan(0);
    expect(thrownAfter).toBeLessThanOrEqual(16 * 1024);
    // The reader is spent: it answers the same fault again.
    expect(() => reader.write('\n')).toThrow(/longer than 16384/);
    expect(refusal(`:20:X\n:25:ACC\n${'9'.repeat(1024 * 1024)}`).message).toMatch(/longer than/);
  });

  it('refuses a field that grows past 64 KiB over many short lines', () => {
    const text = `:20:X\n:25:ACC\n:60F:C260301EUR0,\n:61:2603020302C1,00NTRFNONREF\n:86:${'word of text\n'.repeat(6000)}:62F:C260302EUR1,00\n-\n`;
    expect(refusal(text).message).toMatch(/field :86: on line 5 is longer than 65536 characters/);
  });
});
