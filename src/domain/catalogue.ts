/** Methods, their rails and, for cross-border rails, the currencies each rail serves (spec "Methods and rails", D11). */

export const METHODS = ['Classic', 'WhiteTriangle', 'MobileCommerce', 'CrossBorder', 'BankApp', 'Counterparty', 'NationalQr'] as const;
export type Method = (typeof METHODS)[number];

/** What the customer does with each method, in a merchant's words (the desk form and the docs say the same). */
export const METHOD_SUMMARY: Readonly<Record<Method, string>> = {
  Classic: 'Customers in Russia transfer roubles by phone number (SBP) or to a card number.',
  WhiteTriangle: 'The same as Classic, paid to payment details from a separate pool.',
  MobileCommerce: 'Customers pay from their mobile phone balance; each order names the mobile operator.',
  CrossBorder: 'Customers outside Russia pay with their country’s own instrument: UPI, bank account, IBAN, Havale, card or phone.',
  BankApp: 'Customers pay in their bank’s app, opened from the payment page.',
  Counterparty: 'A business pays by bank transfer to a company account.',
  NationalQr: 'Customers scan a national QR code with their bank app.',
};

/** What each rail is, where its name alone says little. */
export const RAIL_SUMMARY: Readonly<Record<string, string>> = {
  Sbp: 'Faster Payments System: a transfer to a phone number',
  C2c: 'a transfer to a card number',
  Phone: 'a payment to a phone number',
  Upi: 'India’s Unified Payments Interface',
  Account: 'a transfer to a bank account number',
  Iban: 'a bank transfer to an IBAN',
  Havale: 'a transfer within one Turkish bank',
  WalletCombo: 'a transfer to a card or the phone number of the same wallet',
  CardSchemeA: 'a transfer to a card of Uzbekistan’s first local card scheme',
  CardSchemeB: 'a transfer to a card of Uzbekistan’s second local card scheme',
};

export const MOBILE_OPERATORS = ['OperatorA', 'OperatorB', 'OperatorC', 'OperatorD', 'OperatorE'] as const;

export interface RailInfo {
  rail: string;
  /** Countries and currencies this rail serves; null where the spec does not restrict the rail to a country. */
  currencies: readonly string[] | null;
  countries?: readonly string[];
}

const CROSS_BORDER: RailInfo[] = [
  { rail: 'Upi', currencies: ['INR'], countries: ['India'] },
  { rail: 'Account', currencies: ['KRW'], countries: ['Korea'] },
  { rail: 'Iban', currencies: ['TRY'], countries: ['Turkey'] },
  { rail: 'Havale', currencies: ['TRY'], countries: ['Turkey'] },
  { rail: 'C2c', currencies: ['AZN', 'KZT'], countries: ['Azerbaijan', 'Kazakhstan'] },
  { rail: 'Phone', currencies: ['KZT'], countries: ['Kazakhstan'] },
  { rail: 'WalletCombo', currencies: ['KZT'], countries: ['Kazakhstan'] },
  { rail: 'CardSchemeA', currencies: ['UZS'], countries: ['Uzbekistan'] },
  { rail: 'CardSchemeB', currencies: ['UZS'], countries: ['Uzbekistan'] },
];

export const CATALOGUE: Readonly<Record<Method, readonly RailInfo[]>> = {
  Classic: [
    { rail: 'Sbp', currencies: null },
    { rail: 'C2c', currencies: null },
  ],
  WhiteTriangle: [
    { rail: 'Sbp', currencies: null },
    { rail: 'C2c', currencies: null },
  ],
  MobileCommerce: [{ rail: 'Phone', currencies: null }],
  CrossBorder: CROSS_BORDER,
  BankApp: [],
  Counterparty: [],
  NationalQr: [],
};

export function isMethod(v: unknown): v is Method {
  return typeof v === 'string' && (METHODS as readonly string[]).includes(v);
}

export function railsOf(method: Method): readonly string[] {
  return CATALOGUE[method].map((r) => r.rail);
}

/** Methods whose orders carry no rail (D11). */
export function isRailless(method: Method): boolean {
  return CATALOGUE[method].length === 0;
}

/** Whether the rail can carry a payment in this currency (D15: e.g. Upi with KZT cannot). */
export function railServesCurrency(method: Method, rail: string | null, currency: string): boolean {
  if (rail === null) return true;
  const info = CATALOGUE[method].find((r) => r.rail === rail);
  return !!info && (info.currencies === null || info.currencies.includes(currency));
}

/**
 * Why a desk's rails and currencies cannot work together (web spec "Cabinet, in addition"), or
 * null: each rail must serve at least one of the desk's currencies, and each currency must be
 * served by at least one of its rails (`Upi` only with `INR`, `Havale` only with `TRY`, …). An
 * empty list is left to the order-time checks (no rail enabled, no currency allowed).
 */
export function deskFitProblem(method: Method, rails: readonly string[], currencies: readonly string[]): string | null {
  if (rails.length === 0 || currencies.length === 0) return null;
  for (const rail of rails) {
    const info = CATALOGUE[method].find((r) => r.rail === rail);
    if (info?.currencies && !currencies.some((c) => info.currencies!.includes(c))) {
      return `rails: ${rail} serves ${info.currencies.join(' or ')} only, and the desk takes ${currencies.join(', ')}`;
    }
  }
  for (const currency of currencies) {
    if (!rails.some((rail) => railServesCurrency(method, rail, currency))) {
      return `currencies: none of the desk's rails (${rails.join(', ')}) serves ${currency}`;
    }
  }
  return null;
}

let isoCodes: Set<string> | null = null;
/** ISO 4217 codes known to the runtime's ICU data. */
export function isIsoCurrency(code: string): boolean {
  isoCodes ??= new Set(Intl.supportedValuesOf('currency'));
  return isoCodes.has(code);
}
