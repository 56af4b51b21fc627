/**
 * Simulated payment details for the sandbox provider.
 *
 * A merchant integrating against the sandbox should see details shaped exactly like live ones:
 * the same `payment` keys filled per rail (spec, Order `payment` and the CrossBorder table),
 * card numbers that pass Luhn, IBANs that pass mod-97, phones in E.164. Anything the merchant's
 * own checks or display code would reject live must already be rejected in the sandbox.
 *
 * `random` is injected (values in [0, 1)) so the same draws give the same details in tests.
 */

import type { Payment } from '../domain/payment.js';

export type { Payment };

export interface SandboxDetailsInput {
  method: string;
  rail: string | null;
  currency: string;
  hostedPageUrl: string;
  random: () => number;
}

const EMPTY: Readonly<Payment> = Object.freeze({
  url: null,
  card: null,
  phone: null,
  account: null,
  iban: null,
  upiId: null,
  holder: null,
  bank: null,
});

// ---------------------------------------------------------------------------------------------
// Checksums

/**
 * Luhn (mod 10) check over a string of decimal digits, the check digit last.
 * At least 2 digits: a lone digit "0" would pass trivially and is never a card number.
 */
export function isLuhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  return luhnSum(digits, false) % 10 === 0;
}

/**
 * Sum of the Luhn-weighted digits. `checkDigitMissing` shifts the doubling by one place, so the
 * same loop serves both validating a full number and computing the check digit of a prefix.
 */
function luhnSum(digits: string, checkDigitMissing: boolean): number {
  let sum = 0;
  for (let i = digits.length - 1, fromRight = checkDigitMissing ? 1 : 0; i >= 0; i--, fromRight++) {
    let d = digits.charCodeAt(i) - 48;
    if (fromRight % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum;
}

function luhnCheckDigit(withoutCheck: string): string {
  return String((10 - (luhnSum(withoutCheck, true) % 10)) % 10);
}

/**
 * Generic ISO 13616 IBAN check in electronic format (no spaces, upper case): 2 letters,
 * 2 check digits in 02–98, then 11–30 alphanumerics (15–34 characters overall: the shortest
 * national IBAN is 15, the standard's maximum 34), and the rearranged number mod 97 equals 1.
 * Check digits 00, 01 and 99 are never issued; 01 ≡ 98 and 99 ≡ 02 (mod 97) would otherwise pass.
 * Country-specific lengths are not checked here; callers that know the country check the length.
 */
export function isIbanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const check = Number(iban.slice(2, 4));
  if (check < 2 || check > 98) return false;
  return mod97(ibanDigits(iban.slice(4) + iban.slice(0, 4))) === 1;
}

/** Letters become two digits (A = 10 … Z = 35), as ISO 13616 rearrangement requires. */
function ibanDigits(s: string): string {
  let out = '';
  for (const ch of s) out += /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
  return out;
}

/** Digit-by-digit remainder: the numeric form of a 26-character IBAN has ~30 digits, beyond 2^53. */
function mod97(numeric: string): number {
  let r = 0;
  for (let i = 0; i < numeric.length; i++) r = (r * 10 + (numeric.charCodeAt(i) - 48)) % 97;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Draws

function draw(random: () => number, n: number): number {
  const x = random();
  // A value of 1 or more would index past the end of a list; better a clear error than undefined.
  if (!(x >= 0 && x < 1)) throw new RangeError(`random() must return a number in [0, 1), got ${x}`);
  return Math.floor(x * n);
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[draw(random, items.length)];
}

function randomDigits(random: () => number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(draw(random, 10));
  return out;
}

/** A 16-digit card number: the given prefix, random middle digits, a Luhn check digit. */
function cardNumber(random: () => number, prefix: string): string {
  const body = prefix + randomDigits(random, 15 - prefix.length);
  return body + luhnCheckDigit(body);
}

// ---------------------------------------------------------------------------------------------
// Countries. Holders are a given name and the family initial in Latin script ("Ivan P."), the
// way recipient names are masked in transfer confirmations, and readable in every merchant's UI.

function maskedHolder(random: () => number, givenNames: readonly string[], initials: string): string {
  return `${pick(random, givenNames)} ${initials[draw(random, initials.length)]}.`;
}

const RUSSIA = {
  givenNames: ['Ivan', 'Anna', 'Dmitry', 'Elena', 'Sergey', 'Olga', 'Alexey', 'Maria', 'Nikolay', 'Tatiana'],
  initials: 'ABDGKMNPRSTVZ',
  banks: ['Sberbank', 'T-Bank', 'Alfa-Bank', 'VTB', 'Gazprombank', 'Raiffeisenbank', 'Sovcombank'],
  /** Mir, the domestic scheme: Russian-issued cards start 2200–2204. */
  cardPrefix: (random: () => number) => `220${draw(random, 5)}`,
  /** Mobile numbers: +7 then 10 digits, of which the first (the 9xx code) is 9. */
  phone: (random: () => number) => `+79${randomDigits(random, 9)}`,
};

/** Visa starts 4, Mastercard 51–55: the schemes banks in Kazakhstan and Azerbaijan issue. */
function visaOrMastercardPrefix(random: () => number): string {
  return draw(random, 2) === 0 ? '4' : `5${1 + draw(random, 5)}`;
}

const KAZAKHSTAN = {
  givenNames: ['Aigerim', 'Nurlan', 'Dauren', 'Aliya', 'Yerlan', 'Dana', 'Askar', 'Madina', 'Timur', 'Saule'],
  initials: 'ABDKMNSTZ',
  banks: ['Kaspi Bank', 'Halyk Bank', 'Jusan Bank', 'Freedom Bank', 'ForteBank', 'Bank CenterCredit'],
  cardPrefix: visaOrMastercardPrefix,
  /** +7 then a 7xx mobile code: 700–708 and 747, 771, 775–778 are the mobile operators' codes. */
  phone: (random: () => number) =>
    `+7${pick(random, ['700', '701', '702', '705', '706', '707', '708', '747', '771', '775', '776', '777', '778'])}${randomDigits(random, 7)}`,
};

const AZERBAIJAN = {
  givenNames: ['Elvin', 'Leyla', 'Rashad', 'Aysel', 'Orkhan', 'Gunel', 'Tural', 'Nigar', 'Farid', 'Sabina'],
  initials: 'ABGHIMNQRS',
  banks: ['Kapital Bank', 'PASHA Bank', 'ABB', 'Bank Respublika', 'Unibank', 'Leobank'],
  cardPrefix: visaOrMastercardPrefix,
};

const UZBEKISTAN = {
  givenNames: ['Jasur', 'Dilnoza', 'Bekzod', 'Malika', 'Sardor', 'Nilufar', 'Otabek', 'Gulnora', 'Aziz', 'Kamola'],
  initials: 'ABGIKMNRSTUY',
  banks: ['Kapitalbank', 'Hamkorbank', 'Ipoteka Bank', 'Asaka Bank', 'Agrobank', 'NBU'],
};

/** The two local schemes: every card of the first starts 8600, of the second 9860. */
const UZBEK_SCHEME_PREFIX = { CardSchemeA: '8600', CardSchemeB: '9860' } as const;

const TURKEY = {
  givenNames: ['Mehmet', 'Ayşe', 'Mustafa', 'Fatma', 'Emre', 'Zeynep', 'Burak', 'Elif', 'Can', 'Merve'],
  initials: 'ABCDEGKOSTY',
  /** Names with their 5-digit EFT bank codes, the digits the IBAN carries after the check digits. */
  banks: [
    { name: 'Ziraat Bankası', code: '00010' },
    { name: 'Halkbank', code: '00012' },
    { name: 'VakıfBank', code: '00015' },
    { name: 'Akbank', code: '00046' },
    { name: 'Garanti BBVA', code: '00062' },
    { name: 'İş Bankası', code: '00064' },
    { name: 'Yapı Kredi', code: '00067' },
    { name: 'QNB', code: '00111' },
    { name: 'DenizBank', code: '00134' },
  ],
};

/**
 * Turkish IBAN: TR, 2 check digits, 5-digit bank code, 1 reserved digit (0), 16-digit account:
 * 26 characters. Check digits are 98 minus the mod-97 remainder of the rearranged number with
 * check digits 00 (ISO 7064 MOD 97-10).
 */
function turkishIban(random: () => number, bankCode: string): string {
  const bban = `${bankCode}0${randomDigits(random, 16)}`;
  const check = 98 - mod97(ibanDigits(`${bban}TR00`));
  return `TR${String(check).padStart(2, '0')}${bban}`;
}

const KOREA = {
  /** Account holder checks in Korean banking show the full name; romanised, family name first. */
  familyNames: ['Kim', 'Lee', 'Park', 'Choi', 'Jung', 'Kang', 'Cho', 'Yoon'],
  givenNames: ['Minjun', 'Seoyeon', 'Jiho', 'Haeun', 'Dohyun', 'Jiwoo', 'Yejun', 'Sua'],
  /**
   * Account numbers differ in length per bank (digits only, without the display hyphens):
   * a known personal-account prefix where there is one, otherwise a non-zero first digit.
   */
  banks: [
    { name: 'KB Kookmin Bank', length: 14, prefix: '' },
    { name: 'Shinhan Bank', length: 12, prefix: '110' },
    { name: 'Woori Bank', length: 13, prefix: '1002' },
    { name: 'Hana Bank', length: 14, prefix: '' },
    { name: 'NH NongHyup Bank', length: 13, prefix: '302' },
    { name: 'IBK Industrial Bank', length: 14, prefix: '' },
    { name: 'KakaoBank', length: 13, prefix: '3333' },
    { name: 'Toss Bank', length: 12, prefix: '1000' },
  ],
};

function koreanAccount(random: () => number, bank: { length: number; prefix: string }): string {
  const start = bank.prefix === '' ? String(1 + draw(random, 9)) : bank.prefix;
  return start + randomDigits(random, bank.length - start.length);
}

const INDIA = {
  givenNames: ['Rahul', 'Priya', 'Amit', 'Sneha', 'Vikram', 'Anjali', 'Rohan', 'Pooja', 'Arjun', 'Kavya'],
  initials: 'ABGJKMNPRSV',
  /** Handles of the largest UPI apps and banks (Axis, SBI, HDFC and ICICI via one app, PhonePe, Paytm). */
  handles: ['okaxis', 'oksbi', 'okhdfcbank', 'okicici', 'ybl', 'paytm', 'ibl', 'axl'],
};

// ---------------------------------------------------------------------------------------------
// Rails

const RAILLESS_METHODS = new Set(['BankApp', 'Counterparty', 'NationalQr']);

/** The currency each CrossBorder rail serves: the country follows from the currency (spec). */
const CROSS_BORDER_CURRENCIES: Record<string, readonly string[]> = {
  Upi: ['INR'],
  Account: ['KRW'],
  Iban: ['TRY'],
  Havale: ['TRY'],
  C2c: ['AZN', 'KZT'],
  Phone: ['KZT'],
  WalletCombo: ['KZT'],
  CardSchemeA: ['UZS'],
  CardSchemeB: ['UZS'],
};

/**
 * Payment details for one sandbox order. Only the keys the rail uses are filled (spec tables).
 * A method, rail or currency outside the spec's tables throws: order validation refuses those
 * first (D11, D15, D16), so reaching here with one is a bug, not a business outcome.
 */
export function sandboxPaymentDetails(input: SandboxDetailsInput): Payment {
  const { method, rail, currency, hostedPageUrl, random } = input;

  if (RAILLESS_METHODS.has(method)) {
    if (rail !== null) throw new Error(`method ${method} has no rails (D11), got rail ${rail}`);
    if (hostedPageUrl === '') throw new Error(`method ${method} needs a hosted page URL`);
    // The page carries everything the customer needs (bank app hand-off, the legal entity's
    // requisites, the QR code); none of those fit the other keys, so only `url` is filled.
    return { ...EMPTY, url: hostedPageUrl };
  }

  if (method === 'Classic' || method === 'WhiteTriangle') {
    // Both methods are Russian P2P; they differ in the pool of details, not in their shape.
    if (rail === 'Sbp') {
      return { ...EMPTY, phone: RUSSIA.phone(random), holder: russianHolder(random), bank: pick(random, RUSSIA.banks) };
    }
    if (rail === 'C2c') {
      return {
        ...EMPTY,
        card: cardNumber(random, RUSSIA.cardPrefix(random)),
        holder: russianHolder(random),
        bank: pick(random, RUSSIA.banks),
      };
    }
    throw new Error(`method ${method} has no rail ${String(rail)}`);
  }

  if (method === 'MobileCommerce') {
    if (rail !== 'Phone') throw new Error(`method ${method} has no rail ${String(rail)}`);
    // The customer pays this number from the mobile balance through the operator: no bank takes
    // part, so `bank` would name nothing, and a holder name is nothing the customer could check
    // in that flow. Only `phone` is filled. Russian numbers are portable between operators, so
    // the 9xx code need not match the order's `operator`.
    return { ...EMPTY, phone: RUSSIA.phone(random) };
  }

  if (method === 'CrossBorder') return crossBorder(rail, currency, random);

  throw new Error(`unknown method ${method}`);
}

function russianHolder(random: () => number): string {
  return maskedHolder(random, RUSSIA.givenNames, RUSSIA.initials);
}

function crossBorder(rail: string | null, currency: string, random: () => number): Payment {
  const currencies = rail === null ? undefined : CROSS_BORDER_CURRENCIES[rail];
  if (currencies === undefined) throw new Error(`method CrossBorder has no rail ${String(rail)}`);
  if (!currencies.includes(currency)) {
    throw new Error(`rail ${rail} serves ${currencies.join(', ')}, not ${currency} (D15)`);
  }

  switch (rail) {
    case 'Upi': {
      const given = pick(random, INDIA.givenNames);
      const initial = INDIA.initials[draw(random, INDIA.initials.length)] as string;
      // Personal UPI ids are commonly the name plus digits; 2 digits keep the id short.
      const upiId = `${given.toLowerCase()}.${initial.toLowerCase()}${randomDigits(random, 2)}@${pick(random, INDIA.handles)}`;
      return { ...EMPTY, upiId, holder: `${given} ${initial}.` };
    }
    case 'Account': {
      const bank = pick(random, KOREA.banks);
      return {
        ...EMPTY,
        account: koreanAccount(random, bank),
        holder: `${pick(random, KOREA.familyNames)} ${pick(random, KOREA.givenNames)}`,
        bank: bank.name,
      };
    }
    case 'Iban':
    case 'Havale': {
      // Havale is a transfer within one bank: `bank` is always the bank the IBAN's code names.
      const bank = pick(random, TURKEY.banks);
      return {
        ...EMPTY,
        iban: turkishIban(random, bank.code),
        holder: maskedHolder(random, TURKEY.givenNames, TURKEY.initials),
        bank: bank.name,
      };
    }
    case 'C2c': {
      const country = currency === 'AZN' ? AZERBAIJAN : KAZAKHSTAN;
      return {
        ...EMPTY,
        card: cardNumber(random, country.cardPrefix(random)),
        holder: maskedHolder(random, country.givenNames, country.initials),
        bank: pick(random, country.banks),
      };
    }
    case 'Phone':
      return {
        ...EMPTY,
        phone: KAZAKHSTAN.phone(random),
        holder: maskedHolder(random, KAZAKHSTAN.givenNames, KAZAKHSTAN.initials),
        bank: pick(random, KAZAKHSTAN.banks),
      };
    case 'WalletCombo':
      // One recipient's card and phone shown together (spec); the table leaves `bank` empty.
      return {
        ...EMPTY,
        card: cardNumber(random, KAZAKHSTAN.cardPrefix(random)),
        phone: KAZAKHSTAN.phone(random),
        holder: maskedHolder(random, KAZAKHSTAN.givenNames, KAZAKHSTAN.initials),
      };
    case 'CardSchemeA':
    case 'CardSchemeB':
      return {
        ...EMPTY,
        card: cardNumber(random, UZBEK_SCHEME_PREFIX[rail]),
        holder: maskedHolder(random, UZBEKISTAN.givenNames, UZBEKISTAN.initials),
        bank: pick(random, UZBEKISTAN.banks),
      };
    default:
      throw new Error(`method CrossBorder has no rail ${rail}`);
  }
}
