/**
 * A pool's requisites: what a requisite's payment keys and terms may be, how its accounts are
 * compared with a credit's, and which requisite may take an order, as pure rules over figures the
 * store reads.
 * The rules make a credit attributable: while an order is open on a requisite no other open order
 * there has its amount in its currency, and a requisite keeps an amount back for a while after an
 * order of that amount closed unpaid, so a payment made just before expiry cannot land on the next
 * customer's order.
 */
import type { Decimal } from 'decimal.js';
import { isIsoCurrency } from './catalogue.js';
import { AppError } from './errors.js';
import { dec, fmt2 } from './money.js';
import { hasPayableDetail, PAYABLE_KEYS, PAYMENT_KEYS, paymentOf } from './payment.js';
import type { Capability } from './providers.js';

export const REQUISITE_STATES = ['active', 'paused', 'retired'] as const;
export type RequisiteState = (typeof REQUISITE_STATES)[number];

/** The payable details a credit's account is compared with; a URL is payable but is no account. */
export const ACCOUNT_KEYS = PAYABLE_KEYS.filter((k) => k !== 'url');

/** An account as credits and requisites are compared: without spaces and dashes, lower case. */
export function normalizeAccount(account: string): string {
  return account.replace(/[\s-]/g, '').toLowerCase();
}

/** A card, account or phone number written with separators only: spaces, dashes, dots, slashes, brackets, a plus. */
const NUMBER_WRITTEN = /^[\d\s\-()./+]+$/;
const digitsOf = (v: string) => v.replace(/\D/g, '');

/**
 * A phone as banks write it, by its last 10 digits: `+7 (900) 000-00-01`, `8 900 000 00 01` and
 * `79000000001` are one phone (the country code or the trunk prefix 8 or 0 stand before the 10
 * digits of the national number in Russia, Kazakhstan and India alike).
 */
const phoneKey = (digits: string) => `tel:${digits.slice(-10)}`;

/**
 * The keys a requisite's account is found by: as written without spaces, dashes and case; by its
 * digits when it is a number; a phone also by its national number.
 */
export function accountsOf(payment: Readonly<Record<string, string | null>>): string[] {
  const out = new Set<string>();
  for (const k of ACCOUNT_KEYS) {
    const v = payment[k];
    if (typeof v !== 'string' || normalizeAccount(v) === '') continue;
    out.add(normalizeAccount(v));
    if (NUMBER_WRITTEN.test(v) && digitsOf(v) !== '') out.add(digitsOf(v));
    if (k === 'phone' && digitsOf(v).length >= 10) out.add(phoneKey(digitsOf(v)));
  }
  return [...out];
}

/** A masked account as bank messages show it: `*1234`, `2200 **** **** 1234`, `…1234`, `2200XXXXXXXX1234`. */
const MASK = /[*•…]|\.{3}|X{4,}/;

/**
 * How a credit's written account is looked up among the requisites: the keys it may be stored
 * under (see `accountsOf`), or, when it is masked, the digits it ends with (at least 4), which name
 * the one requisite whose account ends so.
 */
export function accountLookup(written: string): { keys: string[]; tail: string | null } {
  if (MASK.test(written)) {
    const tail = /(\d{4,})\D*$/.exec(written)?.[1] ?? null;
    return { keys: [], tail };
  }
  const keys = new Set([normalizeAccount(written)]);
  if (NUMBER_WRITTEN.test(written)) {
    const digits = digitsOf(written);
    if (digits !== '') keys.add(digits);
    if (digits.length >= 10 && digits.length <= 13) keys.add(phoneKey(digits));
  }
  return { keys: [...keys].filter((k) => k !== ''), tail: null };
}

/** The payment keys of one requisite: known keys only, strings or null, at least one payable detail. */
export function validatePayment(raw: unknown, at: string): Record<string, string | null> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AppError('VALIDATION_ERROR', `${at}: must be an object of payment keys`);
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!(PAYMENT_KEYS as readonly string[]).includes(k)) throw new AppError('VALIDATION_ERROR', `${at}.${k}: not a payment key (${PAYMENT_KEYS.join(', ')})`);
    if (v !== null && typeof v !== 'string') throw new AppError('VALIDATION_ERROR', `${at}.${k}: must be a string or null`);
    if (typeof v === 'string' && v.length > 255) throw new AppError('VALIDATION_ERROR', `${at}.${k}: must be at most 255 characters`);
    out[k] = v as string | null;
  }
  if (!hasPayableDetail(paymentOf(out))) throw new AppError('VALIDATION_ERROR', `${at}: needs at least one payable detail`);
  return out;
}

/** A requisite as an operator asks for it. */
export interface RequisiteInput {
  payment: unknown;
  currency?: string | null;
  rails?: string[] | null;
  minAmount?: string;
  maxAmount?: string;
  dailyLimit?: string;
  maxOpenOrders?: number;
  label?: string | null;
}

/** A requisite's terms, checked and in their stored form. */
export interface RequisiteTerms {
  payment: Record<string, string | null>;
  accounts: string[];
  currency: string | null;
  rails: string[] | null;
  minAmount: string;
  maxAmount: string;
  dailyLimit: string;
  maxOpenOrders: number;
  label: string | null;
}

export function checkBounds(minAmount: string, maxAmount: string, at = ''): void {
  if (dec(maxAmount).gt(0) && dec(minAmount).gt(maxAmount)) throw new AppError('VALIDATION_ERROR', `${at}minAmount: must not exceed maxAmount`);
}

/**
 * A new requisite of a provider with these capabilities: its currency one the provider serves (or
 * null, any of them), its rails ones the provider serves (or null, all), bounds in order. `at`
 * prefixes the field a refusal names (`requisites[2].`).
 */
export function checkRequisite(input: RequisiteInput, capabilities: readonly Capability[], at = ''): RequisiteTerms {
  const payment = validatePayment(input.payment, `${at}payment`);
  const currencies = [...new Set(capabilities.map((c) => c.currency))];
  const rails = [...new Set(capabilities.map((c) => c.rail).filter((r): r is string => r !== null))];
  const currency = input.currency ?? null;
  if (currency !== null) {
    if (!/^[A-Z]{3}$/.test(currency) || !isIsoCurrency(currency)) throw new AppError('VALIDATION_ERROR', `${at}currency: must be an ISO 4217 code or null`);
    if (!currencies.includes(currency)) throw new AppError('VALIDATION_ERROR', `${at}currency: the provider serves ${currencies.join(', ')}, not ${currency}`);
  }
  const railList = input.rails === undefined || input.rails === null ? null : [...new Set(input.rails)];
  const strange = railList?.find((r) => !rails.includes(r));
  if (strange !== undefined) throw new AppError('VALIDATION_ERROR', `${at}rails: the provider serves ${rails.join(', ') || 'no rails'}, not ${strange}`);
  const minAmount = fmt2(input.minAmount ?? '0');
  const maxAmount = fmt2(input.maxAmount ?? '0');
  checkBounds(minAmount, maxAmount, at);
  return {
    payment,
    accounts: accountsOf(payment),
    currency,
    rails: railList,
    minAmount,
    maxAmount,
    dailyLimit: fmt2(input.dailyLimit ?? '0'),
    maxOpenOrders: input.maxOpenOrders ?? 10,
    label: input.label ?? null,
  };
}

/** A requisite's terms and what is on it right now. */
export interface RequisiteLoad {
  id: string;
  state: RequisiteState;
  currency: string | null;
  rails: readonly string[] | null;
  minAmount: string;
  maxAmount: string;
  dailyLimit: string;
  maxOpenOrders: number;
  /** Orders Created or Payed before their expiresAt (an order still being placed counts). */
  openOrders: number;
  /** The amounts of those orders, summed. */
  openAmount: string;
  /** Matched credits received this UTC day. */
  receivedToday: string;
  /** Another open order has this order's amount in its currency. */
  sameAmountOpen: boolean;
  /** An order of this amount and currency closed unpaid within the quarantine. */
  quarantined: boolean;
  lastUsedAt: Date | null;
  seq: number;
}

export interface OrderTerms {
  amount: string;
  currency: string;
  rail: string | null;
}

/** Why the requisite cannot take the order, or null when it can. */
export function refusalOf(r: RequisiteLoad, o: OrderTerms): string | null {
  const amount = dec(o.amount);
  if (r.state !== 'active') return r.state;
  if (r.currency !== null && r.currency !== o.currency) return 'other currency';
  if (r.rails !== null && !(o.rail === null ? r.rails.length === 0 : r.rails.includes(o.rail))) return 'other rail';
  if (dec(r.minAmount).gt(0) && amount.lt(r.minAmount)) return 'below minAmount';
  if (dec(r.maxAmount).gt(0) && amount.gt(r.maxAmount)) return 'above maxAmount';
  if (r.openOrders >= r.maxOpenOrders) return 'maxOpenOrders reached';
  if (dec(r.dailyLimit).gt(0) && left(r).lt(amount)) return 'dailyLimit reached';
  if (r.sameAmountOpen) return 'same amount open';
  if (r.quarantined) return 'amount in quarantine';
  return null;
}

/** What is left of the daily limit: the limit less today's received money and the open orders' amounts. */
function left(r: RequisiteLoad): Decimal {
  return dec(r.dailyLimit).minus(r.receivedToday).minus(r.openAmount);
}

/**
 * The requisites that can take the order, best first: the fewest open orders, then the one used
 * least recently (never used first), then the oldest. When none can, `reason` says why each could
 * not, counted (`2 same amount open, 1 paused`), for the decline.
 */
export function rankRequisites(rs: readonly RequisiteLoad[], o: OrderTerms): { ranked: RequisiteLoad[]; reason: string } {
  const ranked: RequisiteLoad[] = [];
  const why = new Map<string, number>();
  for (const r of rs) {
    const refusal = refusalOf(r, o);
    if (refusal === null) ranked.push(r);
    else why.set(refusal, (why.get(refusal) ?? 0) + 1);
  }
  ranked.sort(
    (a, b) =>
      a.openOrders - b.openOrders ||
      (a.lastUsedAt?.getTime() ?? -Infinity) - (b.lastUsedAt?.getTime() ?? -Infinity) ||
      a.seq - b.seq,
  );
  const reason =
    rs.length === 0
      ? 'the pool has no requisites'
      : `no requisite can take ${o.amount} ${o.currency}: ${[...why].map(([w, n]) => `${n} ${w}`).join(', ')}`;
  return { ranked, reason };
}
