/**
 * The checks both readers share: an amount, a currency code, a booking time, and the byte
 * stream turned into checked UTF-8 text under the size limit. Each check answers a value or the
 * reason it refuses, and the reader puts the reason in its own words about where it was found.
 */
import { Decimal } from 'decimal.js';
import { Format } from 'typebox/format';
import { statementProblem, type StatementBalance, type StatementSection } from './types.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; why: string };

const UNSIGNED_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** numeric(18,2) holds 16 integer digits; no transfer comes near, and a longer one is a broken file. */
const MAX_INTEGER_DIGITS = 16;

/**
 * An unsigned plain decimal (`918`, `918.5`, `918.00`) as a positive amount with exactly 2 places.
 * `placesWritten` is how many fraction digits the format may write: the CSV takes at most 2, as
 * the feed does; camt writes up to 5 (`ActiveOrHistoricCurrencyAndAmount`), of which those past
 * the 2nd must be zeros, since a credit is 2 places and nothing here rounds money.
 */
export function positiveAmount(text: string, placesWritten: number): Checked<string> {
  const m = UNSIGNED_DECIMAL.exec(text);
  if (!m) return { ok: false, why: `"${clip(text)}" is not a decimal number` };
  const [, whole, fraction = ''] = m;
  if (whole.replace(/^0+(?=\d)/, '').length > MAX_INTEGER_DIGITS) return { ok: false, why: `"${clip(text)}" is too large` };
  if (fraction.length > placesWritten || /[1-9]/.test(fraction.slice(2))) {
    return { ok: false, why: `"${clip(text)}" has more than 2 decimal places` };
  }
  const amount = new Decimal(text);
  if (!amount.gt(0)) return { ok: false, why: `"${clip(text)}" is not positive` };
  return { ok: true, value: amount.toFixed(2) };
}

const CURRENCY = /^[A-Z]{3}$/;

export function currencyCode(text: string): Checked<string> {
  return CURRENCY.test(text) ? { ok: true, value: text } : { ok: false, why: `"${clip(text)}" is not an ISO 4217 code of three capital letters` };
}

export interface BookingTime {
  readonly receivedAt: string;
  readonly dateOnly: boolean;
}

/** A calendar date (`2026-03-02`): that day 00:00Z, standing for the whole day. */
export function bookingDate(text: string): Checked<BookingTime> {
  if (!Format.IsDate(text)) return { ok: false, why: `"${clip(text)}" is not a date YYYY-MM-DD` };
  return { ok: true, value: { receivedAt: `${text}T00:00:00.000Z`, dateOnly: true } };
}

/**
 * An RFC 3339 date-time with a zone, as the UTC instant. Without a zone (`2026-03-02T10:15:00`,
 * which ISO 20022 allows and means the bank's local time) the instant is unknown: with
 * `zoneless: 'date'` its date is taken as a date alone, otherwise it is refused.
 */
export function bookingDateTime(text: string, zoneless: 'date' | 'refuse'): Checked<BookingTime> {
  if (Format.IsDateTime(text) && !text.includes('[')) {
    const at = new Date(text);
    // RFC 3339 allows a leap second (23:59:60), which Date cannot represent.
    if (Number.isNaN(at.getTime())) return { ok: false, why: `"${clip(text)}" is not a time that can be represented` };
    return { ok: true, value: { receivedAt: at.toISOString(), dateOnly: false } };
  }
  const [date, time, ...rest] = text.split(/T/i);
  if (rest.length === 0 && time !== undefined && Format.IsDate(date) && Format.IsTime(time, false)) {
    if (zoneless === 'date') return bookingDate(date);
    return { ok: false, why: `"${clip(text)}" has no time zone (add Z or an offset such as +05:30)` };
  }
  return { ok: false, why: `"${clip(text)}" is not an ISO 8601 date-time` };
}

/** Keeps quoted file content in messages short. */
export function clip(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The body as UTF-8 text, chunk by chunk: counts bytes against `maxBytes` and refuses bytes that
 * are not UTF-8 (both statement formats are UTF-8: ISO 20022 messages by rule, the CSV by this
 * contract). A UTF-8 byte order mark is dropped. A character split across chunks is carried over.
 *
 * The body is read through its iterator without ever closing it: when reading stops early (a
 * fault in the file), a `for await` would destroy an HTTP request and with it the connection the
 * `400` has to go back on. The body belongs to the caller, who answers, then drains or closes it.
 */
export async function* utf8Chunks(body: AsyncIterable<Uint8Array | string>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const chunks = body[Symbol.asyncIterator]();
  let total = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done) break;
    const bytes = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    total += bytes.byteLength;
    if (total > maxBytes) throw statementProblem(`the file is larger than ${maxBytes} bytes`, {}, 'too-large');
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      throw statementProblem(`the file is not UTF-8 text (invalid bytes within the first ${total} bytes)`);
    }
    if (text) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    throw statementProblem('the file is not UTF-8 text (it ends inside a character)');
  }
  if (rest) yield rest;
}

const SIGNED_DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * A signed plain decimal (`-1200.5`, `+3.00`, `0`) with at most `placesWritten` fraction digits,
 * of which those past the 2nd must be zeros, as a balance with exactly 2 places (`"-1200.50"`).
 */
export function signedAmount(text: string, placesWritten: number): Checked<string> {
  const m = SIGNED_DECIMAL.exec(text);
  if (!m) return { ok: false, why: `"${clip(text)}" is not a decimal number` };
  const [, , whole, fraction = ''] = m;
  if (whole.replace(/^0+(?=\d)/, '').length > MAX_INTEGER_DIGITS) return { ok: false, why: `"${clip(text)}" is too large` };
  if (fraction.length > placesWritten || /[1-9]/.test(fraction.slice(2))) return { ok: false, why: `"${clip(text)}" has more than 2 decimal places` };
  return { ok: true, value: new Decimal(text).toFixed(2) };
}

/**
 * Sums one section's booked entries for the balance check, and the first and last booking day
 * seen, as a reader goes: `credit`/`debit` with a readable amount, `unreadable` for a booked entry
 * whose amount could not be read.
 */
export class SectionTally {
  private creditSum = new Decimal(0);
  private debitSum = new Decimal(0);
  private unreadableCount = 0;
  private first: string | null = null;
  private last: string | null = null;

  credit(amount: string): void {
    this.creditSum = this.creditSum.plus(amount);
  }

  debit(amount: string): void {
    this.debitSum = this.debitSum.plus(amount);
  }

  unreadable(): void {
    this.unreadableCount += 1;
  }

  /** A booking day (`YYYY-MM-DD`) of the section, to know its period when the file does not state it. */
  day(date: string | null): void {
    if (date === null) return;
    if (this.first === null || date < this.first) this.first = date;
    if (this.last === null || date > this.last) this.last = date;
  }

  section(s: { account: string; from?: string | null; to?: string | null; opening: StatementBalance | null; closing: StatementBalance | null }): StatementSection {
    return {
      account: s.account,
      from: s.from ?? this.first,
      to: s.to ?? this.last,
      opening: s.opening,
      closing: s.closing,
      credits: this.creditSum.toFixed(2),
      debits: this.debitSum.toFixed(2),
      unreadable: this.unreadableCount,
    };
  }
}
