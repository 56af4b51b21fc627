import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isIbanValid, isLuhnValid, sandboxPaymentDetails, type Payment } from '../../src/providers/sandboxDetails.js';

/** Deterministic PRNG (mulberry32) so every run draws the same details for a seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALL_KEYS = ['url', 'card', 'phone', 'account', 'iban', 'upiId', 'holder', 'bank'] as const;
type Key = (typeof ALL_KEYS)[number];

const HOSTED = 'https://pay.example.test/sandbox/bank/ord_01HZX';

const RU_PHONE = /^\+79\d{9}$/;
const KZ_PHONE = /^\+77(0[0-8]|47|7[15678])\d{7}$/;
const VISA_OR_MC = /^(4\d{15}|5[1-5]\d{14})$/;
const MIR = /^220[0-4]\d{12}$/;
const UPI = /^[a-z0-9.]+@[a-z]+$/;
const HOLDER_MASKED = /^\p{Lu}\p{Ll}+ \p{Lu}\.$/u;

/** Expected filled keys and a check of their values, straight from the spec's tables. */
interface Case {
  method: string;
  rail: string | null;
  currency: string;
  filled: Key[];
  check: (p: Payment) => void;
}

const CASES: Case[] = [
  ...(['Classic', 'WhiteTriangle'] as const).flatMap((method): Case[] => [
    {
      method,
      rail: 'Sbp',
      currency: 'RUB',
      filled: ['phone', 'holder', 'bank'],
      check: (p) => {
        expect(p.phone).toMatch(RU_PHONE);
        expect(p.holder).toMatch(HOLDER_MASKED);
      },
    },
    {
      method,
      rail: 'C2c',
      currency: 'RUB',
      filled: ['card', 'holder', 'bank'],
      check: (p) => {
        expect(p.card).toMatch(MIR);
        expect(isLuhnValid(p.card!)).toBe(true);
        expect(p.holder).toMatch(HOLDER_MASKED);
      },
    },
  ]),
  {
    method: 'MobileCommerce',
    rail: 'Phone',
    currency: 'RUB',
    filled: ['phone'],
    check: (p) => expect(p.phone).toMatch(RU_PHONE),
  },
  {
    method: 'CrossBorder',
    rail: 'Upi',
    currency: 'INR',
    filled: ['upiId', 'holder'],
    check: (p) => {
      expect(p.upiId).toMatch(UPI);
      expect(p.upiId!.split('@')[1]).toMatch(/^(okaxis|oksbi|okhdfcbank|okicici|ybl|paytm|ibl|axl)$/);
      expect(p.holder).toMatch(HOLDER_MASKED);
    },
  },
  {
    method: 'CrossBorder',
    rail: 'Account',
    currency: 'KRW',
    filled: ['account', 'holder', 'bank'],
    check: (p) => {
      // Length per bank as printed on Korean passbooks, hyphens removed.
      const lengths: Record<string, number> = {
        'KB Kookmin Bank': 14,
        'Shinhan Bank': 12,
        'Woori Bank': 13,
        'Hana Bank': 14,
        'NH NongHyup Bank': 13,
        'IBK Industrial Bank': 14,
        KakaoBank: 13,
        'Toss Bank': 12,
      };
      expect(Object.keys(lengths)).toContain(p.bank);
      expect(p.account).toMatch(/^[1-9]\d+$/);
      expect(p.account).toHaveLength(lengths[p.bank!]!);
      expect(p.holder).toMatch(/^(Kim|Lee|Park|Choi|Jung|Kang|Cho|Yoon) [A-Z][a-z]+$/);
    },
  },
  ...(['Iban', 'Havale'] as const).map(
    (rail): Case => ({
      method: 'CrossBorder',
      rail,
      currency: 'TRY',
      filled: ['iban', 'holder', 'bank'],
      check: (p) => {
        expect(p.iban).toMatch(/^TR\d{7}0\d{16}$/);
        expect(p.iban).toHaveLength(26);
        expect(isIbanValid(p.iban!)).toBe(true);
        expect(bareMod97(p.iban!)).toBe(1n);
        // The bank name must be the bank the IBAN's 5-digit code names (Havale is same-bank).
        const codes: Record<string, string> = {
          'Ziraat Bankası': '00010',
          Halkbank: '00012',
          VakıfBank: '00015',
          Akbank: '00046',
          'Garanti BBVA': '00062',
          'İş Bankası': '00064',
          'Yapı Kredi': '00067',
          QNB: '00111',
          DenizBank: '00134',
        };
        expect(p.iban!.slice(4, 9)).toBe(codes[p.bank!]);
        expect(p.holder).toMatch(HOLDER_MASKED);
      },
    }),
  ),
  ...(['AZN', 'KZT'] as const).map(
    (currency): Case => ({
      method: 'CrossBorder',
      rail: 'C2c',
      currency,
      filled: ['card', 'holder', 'bank'],
      check: (p) => {
        expect(p.card).toMatch(VISA_OR_MC);
        expect(isLuhnValid(p.card!)).toBe(true);
        expect(p.holder).toMatch(HOLDER_MASKED);
        const banks =
          currency === 'AZN'
            ? ['Kapital Bank', 'PASHA Bank', 'ABB', 'Bank Respublika', 'Unibank', 'Leobank']
            : ['Kaspi Bank', 'Halyk Bank', 'Jusan Bank', 'Freedom Bank', 'ForteBank', 'Bank CenterCredit'];
        expect(banks).toContain(p.bank);
      },
    }),
  ),
  {
    method: 'CrossBorder',
    rail: 'Phone',
    currency: 'KZT',
    filled: ['phone', 'holder', 'bank'],
    check: (p) => {
      expect(p.phone).toMatch(KZ_PHONE);
      expect(p.holder).toMatch(HOLDER_MASKED);
    },
  },
  {
    method: 'CrossBorder',
    rail: 'WalletCombo',
    currency: 'KZT',
    filled: ['card', 'phone', 'holder'],
    check: (p) => {
      expect(p.card).toMatch(VISA_OR_MC);
      expect(isLuhnValid(p.card!)).toBe(true);
      expect(p.phone).toMatch(KZ_PHONE);
    },
  },
  {
    method: 'CrossBorder',
    rail: 'CardSchemeA',
    currency: 'UZS',
    filled: ['card', 'holder', 'bank'],
    check: (p) => {
      expect(p.card).toMatch(/^8600\d{12}$/);
      expect(isLuhnValid(p.card!)).toBe(true);
    },
  },
  {
    method: 'CrossBorder',
    rail: 'CardSchemeB',
    currency: 'UZS',
    filled: ['card', 'holder', 'bank'],
    check: (p) => {
      expect(p.card).toMatch(/^9860\d{12}$/);
      expect(isLuhnValid(p.card!)).toBe(true);
    },
  },
  ...(['BankApp', 'Counterparty', 'NationalQr'] as const).map(
    (method): Case => ({
      method,
      rail: null,
      currency: 'RUB',
      filled: ['url'],
      check: (p) => expect(p.url).toBe(HOSTED),
    }),
  ),
];

function details(c: Case, random: () => number): Payment {
  return sandboxPaymentDetails({ method: c.method, rail: c.rail, currency: c.currency, bankPageUrl: HOSTED, random });
}

function expectShape(c: Case, p: Payment): void {
  expect(Object.keys(p).sort()).toEqual([...ALL_KEYS].sort());
  for (const key of ALL_KEYS) {
    if (c.filled.includes(key)) {
      expect(typeof p[key], `${c.method}/${c.rail} ${key}`).toBe('string');
      expect((p[key] as string).length, `${c.method}/${c.rail} ${key}`).toBeGreaterThan(0);
    } else {
      expect(p[key], `${c.method}/${c.rail} ${key}`).toBeNull();
    }
  }
}

const label = (c: Case) => `${c.method} / ${c.rail ?? 'no rail'} / ${c.currency}`;

describe('sandboxPaymentDetails', () => {
  it.each(CASES.map((c) => [label(c), c] as const))('%s: all 8 keys, exactly the spec keys filled, values valid', (_, c) => {
    for (let seed = 1; seed <= 200; seed++) {
      const p = details(c, seeded(seed));
      expectShape(c, p);
      c.check(p);
    }
  });

  it('for every seed, every combination gives well-formed details (property)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(...CASES), (seed, c) => {
        const p = details(c, seeded(seed));
        expectShape(c, p);
        c.check(p);
      }),
      { numRuns: 2000 },
    );
  });

  it('copes with the extremes of random(): always 0 and always just below 1', () => {
    for (const r of [() => 0, () => 1 - Number.EPSILON / 2]) {
      for (const c of CASES) {
        const p = details(c, r);
        expectShape(c, p);
        c.check(p);
      }
    }
  });

  it('covers the whole Mir range 2200–2204 and both the 4 and 5x card schemes', () => {
    const mir = new Set<string>();
    const kz = new Set<string>();
    for (let seed = 1; seed <= 500; seed++) {
      mir.add(sandboxPaymentDetails({ method: 'Classic', rail: 'C2c', currency: 'RUB', bankPageUrl: HOSTED, random: seeded(seed) }).card!.slice(0, 4));
      kz.add(sandboxPaymentDetails({ method: 'CrossBorder', rail: 'C2c', currency: 'KZT', bankPageUrl: HOSTED, random: seeded(seed) }).card![0]!);
    }
    expect([...mir].sort()).toEqual(['2200', '2201', '2202', '2203', '2204']);
    expect([...kz].sort()).toEqual(['4', '5']);
  });

  it('is deterministic for a given random source and varies across sources', () => {
    const c = CASES.find((x) => x.rail === 'Iban')!;
    expect(details(c, seeded(42))).toEqual(details(c, seeded(42)));
    const ibans = new Set(Array.from({ length: 20 }, (_, i) => details(c, seeded(i)).iban));
    expect(ibans.size).toBe(20);
  });

  it('picks the country of a CrossBorder C2c card by currency', () => {
    const az = Array.from({ length: 50 }, (_, i) =>
      sandboxPaymentDetails({ method: 'CrossBorder', rail: 'C2c', currency: 'AZN', bankPageUrl: HOSTED, random: seeded(i) }).bank,
    );
    const kz = Array.from({ length: 50 }, (_, i) =>
      sandboxPaymentDetails({ method: 'CrossBorder', rail: 'C2c', currency: 'KZT', bankPageUrl: HOSTED, random: seeded(i) }).bank,
    );
    expect(az).toContain('Kapital Bank');
    expect(az).not.toContain('Kaspi Bank');
    expect(kz).toContain('Kaspi Bank');
    expect(kz).not.toContain('Kapital Bank');
  });

  it('throws on combinations order validation refuses first', () => {
    const call = (method: string, rail: string | null, currency: string, bankPageUrl = HOSTED) => () =>
      sandboxPaymentDetails({ method, rail, currency, bankPageUrl, random: seeded(1) });
    expect(call('Classic', 'Upi', 'RUB')).toThrow(/no rail Upi/);
    expect(call('Classic', null, 'RUB')).toThrow(/no rail null/);
    expect(call('MobileCommerce', 'Sbp', 'RUB')).toThrow(/no rail Sbp/);
    expect(call('CrossBorder', 'Sbp', 'KZT')).toThrow(/no rail Sbp/);
    expect(call('CrossBorder', 'Upi', 'KZT')).toThrow(/serves INR, not KZT/);
    expect(call('CrossBorder', 'C2c', 'UZS')).toThrow(/serves AZN, KZT, not UZS/);
    expect(call('BankApp', 'Sbp', 'RUB')).toThrow(/has no rails/);
    expect(call('NationalQr', null, 'RUB', '')).toThrow(/simulated bank page URL/);
    expect(call('Payout', null, 'RUB')).toThrow(/unknown method/);
  });

  it('rejects a random() outside [0, 1) instead of indexing past a list', () => {
    expect(() =>
      sandboxPaymentDetails({ method: 'Classic', rail: 'Sbp', currency: 'RUB', bankPageUrl: HOSTED, random: () => 1 }),
    ).toThrow(RangeError);
  });
});

describe('isLuhnValid', () => {
  it('accepts known-good numbers', () => {
    // Published test numbers of the card schemes, and the textbook example 79927398713.
    for (const n of ['4111111111111111', '5555555555554444', '2200000000000004', '79927398713']) {
      expect(isLuhnValid(n), n).toBe(true);
    }
  });

  it('rejects non-digits, spaces and lone digits', () => {
    for (const n of ['', '0', '4111 1111 1111 1111', '411111111111111a', '-4111111111111111']) {
      expect(isLuhnValid(n), n).toBe(false);
    }
  });

  it('rejects any single changed digit of a generated card (property)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(15), fc.integer({ min: 1, max: 9 }), (seed, position, delta) => {
        const card = sandboxPaymentDetails({ method: 'Classic', rail: 'C2c', currency: 'RUB', bankPageUrl: HOSTED, random: seeded(seed) }).card!;
        expect(isLuhnValid(card)).toBe(true);
        const changed = String((Number(card[position]) + delta) % 10);
        const corrupted = card.slice(0, position) + changed + card.slice(position + 1);
        expect(isLuhnValid(corrupted)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

/** Independent mod-97 with BigInt: rearrange, letters to 10–35, remainder. */
function bareMod97(iban: string): bigint {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const numeric = rearranged.replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55));
  return BigInt(numeric) % 97n;
}

describe('isIbanValid', () => {
  it('accepts published example IBANs of several countries', () => {
    for (const iban of ['TR330006100519786457841326', 'GB82WEST12345698765432', 'DE89370400440532013000', 'NO9386011117947']) {
      expect(isIbanValid(iban), iban).toBe(true);
    }
  });

  it('rejects wrong shapes: spaces, lower case, too short, empty', () => {
    for (const iban of ['TR33 0006 1005 1978 6457 8413 26', 'tr330006100519786457841326', 'TR33000610', '']) {
      expect(isIbanValid(iban), iban).toBe(false);
    }
  });

  it('rejects check digits 01 and 99 even where plain mod-97 would accept them', () => {
    // 01 ≡ 98 and 99 ≡ 02 (mod 97): find generated IBANs whose real check digits are 98 and 02,
    // swap in the alias, and confirm a bare remainder test passes but isIbanValid does not.
    const byCheck = new Map<string, string>();
    for (let seed = 0; byCheck.size < 2 && seed < 100_000; seed++) {
      const iban = sandboxPaymentDetails({ method: 'CrossBorder', rail: 'Iban', currency: 'TRY', bankPageUrl: HOSTED, random: seeded(seed) }).iban!;
      const check = iban.slice(2, 4);
      if ((check === '98' || check === '02') && !byCheck.has(check)) byCheck.set(check, iban);
    }
    const with98 = byCheck.get('98')!;
    const with02 = byCheck.get('02')!;
    expect(isIbanValid(with98)).toBe(true);
    expect(isIbanValid(with02)).toBe(true);
    const alias01 = `TR01${with98.slice(4)}`;
    const alias99 = `TR99${with02.slice(4)}`;
    expect(bareMod97(alias01)).toBe(1n);
    expect(bareMod97(alias99)).toBe(1n);
    expect(isIbanValid(alias01)).toBe(false);
    expect(isIbanValid(alias99)).toBe(false);
    expect(isIbanValid(`TR00${with98.slice(4)}`)).toBe(false);
  });

  it('rejects any single changed digit of a generated Turkish IBAN (property)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 2, max: 25 }), fc.integer({ min: 1, max: 9 }), (seed, position, delta) => {
        const iban = sandboxPaymentDetails({ method: 'CrossBorder', rail: 'Iban', currency: 'TRY', bankPageUrl: HOSTED, random: seeded(seed) }).iban!;
        expect(isIbanValid(iban)).toBe(true);
        const changed = String((Number(iban[position]) + delta) % 10);
        const corrupted = iban.slice(0, position) + changed + iban.slice(position + 1);
        expect(isIbanValid(corrupted)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
