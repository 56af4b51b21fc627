import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createBase58check } from '@scure/base';
import { electronicFormatIBAN, friendlyFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { fail, ok, type Result } from './errors.js';
import { dec, fmt2 } from './money.js';

/**
 * Withdrawal requests (web spec, "A money-right first day"): where a merchant's money may be paid
 * to, how each kind of destination is checked, and which statuses a request has and which
 * decisions each allows. Pure rules; the checksums are the maintained libraries' (`@scure/base`
 * base58check over `@noble/hashes` SHA-256, `@noble/hashes` keccak-256, `ibantools`).
 */

// ---- destinations

export const DESTINATION_KINDS = ['usdt-trc20', 'usdt-erc20', 'bank'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];
export const isDestinationKind = (v: unknown): v is DestinationKind => typeof v === 'string' && (DESTINATION_KINDS as readonly string[]).includes(v);

/** What each kind is, in a person's words. */
export const DESTINATION_KIND_LABEL: Readonly<Record<DestinationKind, string>> = {
  'usdt-trc20': 'USDT on Tron (TRC-20)',
  'usdt-erc20': 'USDT on Ethereum (ERC-20)',
  bank: 'Bank account',
};

export const DESTINATION_LABEL_MAX = 60;
export const HOLDER_MAX = 100;
export const BANK_MAX = 100;

/** What a destination holds once checked: an address for USDT, an IBAN or an account number with holder and bank for a bank. */
export interface DestinationFields {
  kind: DestinationKind;
  label: string;
  address: string | null;
  iban: string | null;
  account: string | null;
  holder: string | null;
  bank: string | null;
}

/** The form's or the body's values as typed (empty: not given). */
export interface DestinationInput {
  kind: string;
  label: string;
  address: string;
  iban: string;
  account: string;
  holder: string;
  bank: string;
}

const invalid = <T>(detail: string): Result<T> => fail('VALIDATION_ERROR', detail);

const tronCheck = createBase58check(sha256);

/**
 * A Tron address: base58check (the last 4 of its 25 bytes are the first 4 of SHA-256 twice over
 * the other 21) of 0x41 and the account's 20 bytes; it reads `T…`, 34 characters.
 */
export function checkTronAddress(text: string): Result<string> {
  const a = text.trim();
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a)) return invalid('address: a Tron (TRC-20) address is 34 characters starting with T, such as TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  let bytes: Uint8Array;
  try {
    bytes = tronCheck.decode(a);
  } catch {
    return invalid('address: this Tron address fails its checksum: a character is wrong or missing. Copy it from your wallet again');
  }
  if (bytes.length !== 21 || bytes[0] !== 0x41) return invalid('address: this is not a Tron account address');
  return ok(a);
}

/** The EIP-55 form of 40 hex digits: a letter is upper case where the keccak-256 of the lower-case hex has a nibble of 8 or more. */
export function eip55(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/**
 * An Ethereum address in its EIP-55 mixed case, checked against its checksum. All lower or all
 * upper case carries no checksum (EIP-55 reads it as unchecked), so a mistyped character would go
 * unnoticed: it is refused, asking for the form wallets show (decision P471). An address with no
 * letter at all is its own checksum.
 */
export function checkEthereumAddress(text: string): Result<string> {
  const a = text.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) return invalid('address: an Ethereum (ERC-20) address is 0x followed by 40 hexadecimal digits');
  const hex = a.slice(2);
  const letters = hex.replace(/[0-9]/g, '');
  if (letters !== '' && (letters === letters.toLowerCase() || letters === letters.toUpperCase())) {
    return invalid('address: this Ethereum address is all lower or all upper case, so it carries no checksum; copy it in its mixed-case (EIP-55) form, as your wallet shows it');
  }
  if (eip55(hex) !== a) return invalid('address: this Ethereum address fails its EIP-55 checksum: a character is wrong. Copy it from your wallet again');
  return ok(a);
}

/** An IBAN by its country's length and format and its check digits (ISO 13616), in its electronic form. */
export function checkIban(text: string): Result<string> {
  const iban = electronicFormatIBAN(text.trim()) ?? '';
  const r = validateIBAN(iban);
  if (r.valid) return ok(iban);
  if (r.errorCodes.includes(ValidationErrorsIBAN.NoIBANCountry)) return invalid('iban: starts with a country code we do not know as an IBAN country, such as DE or GB');
  if (r.errorCodes.includes(ValidationErrorsIBAN.WrongBBANLength)) return invalid('iban: has the wrong length for its country');
  if (r.errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum) || r.errorCodes.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return invalid('iban: fails its check digits: a character is wrong or two are swapped');
  }
  return invalid('iban: not an IBAN, such as DE89 3704 0044 0532 0130 00');
}

/** An IBAN as people read it, in groups of four. */
export const ibanForPeople = (iban: string): string => friendlyFormatIBAN(iban) ?? iban;

/** A local account number where no IBAN exists: 5 to 34 letters and digits, spaces and dashes ignored. */
export function checkAccountNumber(text: string): Result<string> {
  const account = text.trim().replace(/[\s-]/g, '').toUpperCase();
  if (!/^[0-9A-Z]{5,34}$/.test(account)) return invalid('account: 5 to 34 letters and digits (spaces and dashes are left out)');
  return ok(account);
}

const oneLine = (s: string) => s.trim().replace(/\s+/g, ' ');

/** The shortest form of an address or account for a label: its first and last characters. */
const shortened = (s: string) => (s.length > 14 ? `${s.slice(0, 6)}…${s.slice(-4)}` : s);

/**
 * A destination as typed, checked: the kind, then the fields that kind takes (and none of the
 * others), each by its own rule. Without a label, one is made of the kind and the address or
 * account's ends.
 */
export function checkDestination(input: DestinationInput): Result<DestinationFields> {
  if (!isDestinationKind(input.kind)) return invalid(`kind: must be one of ${DESTINATION_KINDS.join(', ')}`);
  const label = oneLine(input.label);
  if (label.length > DESTINATION_LABEL_MAX) return invalid(`label: at most ${DESTINATION_LABEL_MAX} characters`);
  const given = (v: string) => v.trim() !== '';
  if (input.kind === 'bank') {
    if (given(input.address)) return invalid('address: a bank destination takes an iban or an account, not an address');
    if (given(input.iban) === given(input.account)) return invalid('iban: a bank destination takes either an iban or an account number, one of them');
    const number = given(input.iban) ? checkIban(input.iban) : checkAccountNumber(input.account);
    if (!number.ok) return number;
    const holder = oneLine(input.holder);
    if (holder.length === 0 || holder.length > HOLDER_MAX) return invalid(`holder: the account holder's name, 1 to ${HOLDER_MAX} characters`);
    const bank = oneLine(input.bank);
    if (bank.length === 0 || bank.length > BANK_MAX) return invalid(`bank: the bank's name (and branch or SWIFT/BIC code where it helps), 1 to ${BANK_MAX} characters`);
    const iban = given(input.iban) ? number.value : null;
    return ok({
      kind: 'bank',
      label: label || `${bank} ${shortened(number.value)}`.slice(0, DESTINATION_LABEL_MAX),
      address: null,
      iban,
      account: iban === null ? number.value : null,
      holder,
      bank,
    });
  }
  for (const f of ['iban', 'account', 'holder', 'bank'] as const) {
    if (given(input[f])) return invalid(`${f}: a USDT destination takes an address only`);
  }
  if (!given(input.address)) return invalid('address: the USDT address to pay to');
  const address = input.kind === 'usdt-trc20' ? checkTronAddress(input.address) : checkEthereumAddress(input.address);
  if (!address.ok) return address;
  const chain = input.kind === 'usdt-trc20' ? 'USDT TRC-20' : 'USDT ERC-20';
  return ok({ kind: input.kind, label: label || `${chain} ${shortened(address.value)}`, address: address.value, iban: null, account: null, holder: null, bank: null });
}

/** Where a request's money goes, in one line for a mail or a list: the label, the kind, the address or account and the holder. */
export function describeDestination(d: Pick<DestinationFields, 'kind' | 'label' | 'address' | 'iban' | 'account' | 'holder' | 'bank'>): string {
  if (d.kind === 'bank') return `${d.label}: ${d.iban ? `IBAN ${ibanForPeople(d.iban)}` : `account ${d.account}`}, ${d.holder}, ${d.bank}`;
  return `${d.label}: ${DESTINATION_KIND_LABEL[d.kind]} ${d.address}`;
}

// ---- requests

/** A request's statuses: `requested` holds its amount until an operator decides. */
export const WITHDRAWAL_STATUSES = ['requested', 'paid', 'rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
export const isWithdrawalStatus = (v: unknown): v is WithdrawalStatus => typeof v === 'string' && (WITHDRAWAL_STATUSES as readonly string[]).includes(v);

/** How each status reads on a page. */
export const WITHDRAWAL_STATUS_LABEL: Readonly<Record<WithdrawalStatus, string>> = { requested: 'Requested', paid: 'Paid', rejected: 'Rejected' };

/** The statuses whose amount is held: what the balance less the holds leaves is what may be asked for. */
export const HOLDING_STATUSES: readonly WithdrawalStatus[] = ['requested'];

/**
 * The decisions on a request: each names the statuses it may be taken from and the status it leads
 * to. Paying writes the ledger's withdrawal; either releases the hold. A decided request stays as it is.
 */
export const WITHDRAWAL_ACTIONS = {
  pay: { from: ['requested'], to: 'paid' },
  reject: { from: ['requested'], to: 'rejected' },
} as const satisfies Record<string, { from: readonly WithdrawalStatus[]; to: WithdrawalStatus }>;
export type WithdrawalAction = keyof typeof WITHDRAWAL_ACTIONS;

export const withdrawalAllows = (action: WithdrawalAction, status: WithdrawalStatus): boolean => (WITHDRAWAL_ACTIONS[action].from as readonly WithdrawalStatus[]).includes(status);
/** The decisions a request in `status` still waits for (none once decided). */
export const withdrawalActionsIn = (status: WithdrawalStatus): WithdrawalAction[] =>
  (Object.keys(WITHDRAWAL_ACTIONS) as WithdrawalAction[]).filter((a) => withdrawalAllows(a, status));

/** An amount of a request: USD cents, positive, at most 16 digits before the point (decision P470). */
const WITHDRAWAL_AMOUNT = /^(?:0|[1-9]\d{0,15})(?:\.\d{1,2})?$/;

/** The amount of a request as typed, as a 2-place decimal string, or why not. */
export function checkWithdrawalAmount(text: string): Result<string> {
  const a = text.trim();
  if (a.startsWith('-')) return invalid('amountUsd: must be greater than zero');
  if (/^\d+\.\d{3,}$/.test(a)) return invalid('amountUsd: at most 2 decimal places (USD cents), such as 250.75');
  if (!WITHDRAWAL_AMOUNT.test(a)) return invalid('amountUsd: an amount in USD such as 250.75 (digits, a point, at most 2 decimals)');
  if (dec(a).lte(0)) return invalid('amountUsd: must be greater than zero');
  return ok(fmt2(dec(a)));
}

export const REFERENCE_MAX = 200;
export const REASON_MAX = 500;
