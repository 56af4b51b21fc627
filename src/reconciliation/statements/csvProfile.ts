/**
 * A bank's own CSV export, read by a profile that says how the bank writes it: the delimiter and
 * quote, the lines before the header, which column holds what (by header name or position), how
 * amounts are written (`1.234,56`, `(12,00)`, `12,00-`, a credit and a debit column) and dates
 * (`DD.MM.YYYY HH:mm` in the bank's own time zone).
 *
 * This is our code because no library does it: CSV libraries (csv-parse among them) cut text into
 * fields and stop there, and the bank-statement converters that map columns (csv2ofx, bank2ynab,
 * hledger's CSV rules, the ofxstatement plugins) are Python or Haskell programs, the last two
 * under the GPL, each with its own mapping language, and none reads pushed chunks into this
 * contract's entries (a bad row an entry that says what is wrong, and reading going on). What is not ours is
 * used: csv-parse reads the fields (through `CsvRecords` of csv.ts, which cuts and bounds the
 * records), iconv-lite's `encodingExists` checks the encoding's name (the caller decodes the
 * bytes with iconv-lite before the text reaches this reader), `Intl.DateTimeFormat` checks the
 * IANA zone and places a local time on the UTC line, across daylight-saving changes, and
 * decimal.js keeps the amounts exact.
 */
import { Decimal } from 'decimal.js';
import iconv from 'iconv-lite';
import { CsvRecords, CsvSections, isEmptyRecord, type CsvRecord } from './csv.js';
import { clip, currencyCode, signedAmount, type BookingTime, type Checked } from './fields.js';
import {
  StatementInvalidError,
  statementProblem,
  type EntryKind,
  type StatementEntry,
  type StatementProblem,
  type StatementReader,
  type StatementSummaryOfFile,
} from './types.js';

/** What a profile's columns may hold. */
export const CSV_PROFILE_COLUMNS = ['account', 'amount', 'credit', 'debit', 'currency', 'receivedAt', 'payer', 'reference', 'bankReference'] as const;
export type CsvProfileColumn = (typeof CSV_PROFILE_COLUMNS)[number];

/** A column: its header name (compared trimmed and without regard to case) or its 1-based position. */
export type CsvColumnRef = string | number;

export interface CsvProfileColumns {
  account?: CsvColumnRef;
  /** A signed amount: negative is money out. */
  amount?: CsvColumnRef;
  /** Money in and money out in two columns, instead of `amount`. */
  credit?: CsvColumnRef;
  debit?: CsvColumnRef;
  currency?: CsvColumnRef;
  receivedAt: CsvColumnRef;
  payer?: CsvColumnRef;
  reference?: CsvColumnRef;
  /** The bank's own reference of the booking (never the payer's reference). */
  bankReference?: CsvColumnRef;
}

export interface CsvProfile {
  name: string;
  /** One of `,` `;` tab `|`. */
  delimiter: string;
  /** The quote character (`"` by default), or null when the bank never quotes. */
  quote: string | null;
  /** The file's character set (`utf-8`, `windows-1251`, `iso-8859-1`…): the caller decodes with it. */
  encoding: string;
  /** Lines before the header (the bank's preamble). */
  skipRows: number;
  decimalSeparator: '.' | ',';
  /** One of space, `.`, `,`, `'`, no-break space, or null for none. */
  thousandsSeparator: string | null;
  /** Tokens DD, MM, YYYY, YY, HH, mm, ss with any separators between (`DD.MM.YYYY HH:mm`). */
  dateFormat: string;
  /** The IANA zone of times the file writes (`Europe/Moscow`); `UTC` by default. */
  timeZone: string;
  columns: CsvProfileColumns;
  /** The account of every row when the file has no account column. */
  fixedAccount: string | null;
  /** The currency of every row when the file has no currency column. */
  fixedCurrency: string | null;
}

const DELIMITERS = [',', ';', '\t', '|'];
const THOUSANDS = [' ', '.', ',', "'", '\u00a0'];
const PROFILE_KEYS = ['name', 'delimiter', 'quote', 'encoding', 'skipRows', 'decimalSeparator', 'thousandsSeparator', 'dateFormat', 'timeZone', 'columns', 'fixedAccount', 'fixedCurrency'];
const MAX_NAME = 100;
const MAX_COLUMN_NAME = 200;
/** No bank writes more columns than this; a larger position is a typing slip. */
const MAX_POSITION = 1000;
const MAX_SKIP_ROWS = 1000;
const MAX_DATE_FORMAT = 40;
const MAX_FIXED = 200;

// -------------------------------------------------------------------------------------------
// Checking a profile

const show = (c: string) => (c === '\t' ? 'a tab' : c === ' ' ? 'a space' : c === '\u00a0' ? 'a no-break space' : `"${c}"`);

/**
 * The profile as given, checked, with defaults for what it leaves out (a comma, `"`, UTF-8, no
 * lines skipped, a decimal point, no thousands separator, UTC, no fixed account or currency).
 * Every refusal names the field.
 */
export function checkCsvProfile(input: unknown): Checked<CsvProfile> {
  const no = (why: string): Checked<CsvProfile> => ({ ok: false, why });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return no('a CSV profile must be an object');
  const p = input as Record<string, unknown>;
  const unknown = Object.keys(p).filter((k) => !PROFILE_KEYS.includes(k));
  if (unknown.length) return no(`unknown field ${unknown.slice(0, 5).map((k) => `"${clip(k)}"`).join(', ')}; a profile has ${PROFILE_KEYS.join(', ')}`);
  const given = <T>(key: string, fallback: T): unknown => (p[key] === undefined ? fallback : p[key]);

  const name = p.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME) return no(`name must be a non-empty text of at most ${MAX_NAME} characters`);

  const delimiter = given('delimiter', ',');
  if (typeof delimiter !== 'string' || !DELIMITERS.includes(delimiter)) {
    return no(`delimiter must be ",", ";", "|" or a tab; got ${typeof delimiter === 'string' ? show(clip(delimiter)) : String(delimiter)}`);
  }
  const quote = given('quote', '"');
  if (quote !== null && (typeof quote !== 'string' || quote.length !== 1 || /[\p{L}\p{N}\s]/u.test(quote) || quote === delimiter)) {
    return no('quote must be one character that is not the delimiter, a letter, a digit or a blank, or null when values are never quoted');
  }
  const encoding = given('encoding', 'utf-8');
  if (typeof encoding !== 'string' || encoding.length > 40 || !iconv.encodingExists(encoding)) {
    return no(`encoding ${typeof encoding === 'string' ? `"${clip(encoding)}"` : String(encoding)} is not a character set name iconv-lite knows (such as utf-8, windows-1251, iso-8859-1)`);
  }
  const skipRows = given('skipRows', 0);
  if (typeof skipRows !== 'number' || !Number.isInteger(skipRows) || skipRows < 0 || skipRows > MAX_SKIP_ROWS) {
    return no(`skipRows must be a whole number from 0 to ${MAX_SKIP_ROWS}`);
  }
  const decimalSeparator = given('decimalSeparator', '.');
  if (decimalSeparator !== '.' && decimalSeparator !== ',') return no('decimalSeparator must be "." or ","');
  const thousandsSeparator = given('thousandsSeparator', null);
  if (thousandsSeparator !== null && (typeof thousandsSeparator !== 'string' || !THOUSANDS.includes(thousandsSeparator))) {
    return no('thousandsSeparator must be a space, ".", ",", "\'", a no-break space, or null for none');
  }
  if (thousandsSeparator === decimalSeparator) return no(`thousandsSeparator and decimalSeparator are both ${show(decimalSeparator)}`);
  // A separator may be the delimiter only inside quoted values (`"1,50"`), as Dutch banks write.
  if (quote === null && decimalSeparator === delimiter) return no(`decimalSeparator ${show(decimalSeparator)} is also the delimiter, which needs quoted amounts: quote cannot be null`);
  if (quote === null && thousandsSeparator === delimiter) return no(`thousandsSeparator ${show(delimiter)} is also the delimiter, which needs quoted amounts: quote cannot be null`);

  const dateFormat = p.dateFormat;
  if (typeof dateFormat !== 'string' || dateFormat.length === 0 || dateFormat.length > MAX_DATE_FORMAT) return no(`dateFormat must be a text of 1 to ${MAX_DATE_FORMAT} characters such as DD.MM.YYYY`);
  const tokens = dateTokens(dateFormat);
  if (!tokens.ok) return no(tokens.why);

  const timeZone = given('timeZone', 'UTC');
  if (typeof timeZone !== 'string' || timeZone.length > 64 || !isTimeZone(timeZone)) {
    return no(`timeZone ${typeof timeZone === 'string' ? `"${clip(timeZone)}"` : String(timeZone)} is not an IANA time zone (such as UTC, Europe/Moscow, Asia/Kolkata)`);
  }

  const rawColumns = p.columns;
  if (typeof rawColumns !== 'object' || rawColumns === null || Array.isArray(rawColumns)) return no('columns must be an object naming the column of each field');
  const c = rawColumns as Record<string, unknown>;
  const unknownColumns = Object.keys(c).filter((k) => !(CSV_PROFILE_COLUMNS as readonly string[]).includes(k));
  if (unknownColumns.length) return no(`unknown field ${unknownColumns.slice(0, 5).map((k) => `"columns.${clip(k)}"`).join(', ')}; columns may name ${CSV_PROFILE_COLUMNS.join(', ')}`);
  const columns: Partial<Record<CsvProfileColumn, CsvColumnRef>> = {};
  for (const key of CSV_PROFILE_COLUMNS) {
    const ref = c[key];
    if (ref === undefined || ref === null) continue;
    if (typeof ref === 'string') {
      if (ref.trim() === '' || ref.length > MAX_COLUMN_NAME) return no(`columns.${key} must be a header name of 1 to ${MAX_COLUMN_NAME} characters or a column number`);
    } else if (typeof ref !== 'number' || !Number.isInteger(ref) || ref < 1 || ref > MAX_POSITION) {
      return no(`columns.${key} must be a header name or a column number from 1 to ${MAX_POSITION}`);
    }
    columns[key] = ref;
  }
  if (columns.receivedAt === undefined) return no('columns.receivedAt is required: the column of the booking date');

  const fixedAccount = given('fixedAccount', null);
  if (fixedAccount !== null && (typeof fixedAccount !== 'string' || fixedAccount.trim() === '' || fixedAccount.length > MAX_FIXED)) {
    return no(`fixedAccount must be a non-empty text of at most ${MAX_FIXED} characters, or null`);
  }
  if ((columns.account === undefined) === (fixedAccount === null)) return no('give exactly one of columns.account and fixedAccount: where each row\'s account is');

  if (columns.amount !== undefined) {
    if (columns.credit !== undefined || columns.debit !== undefined) return no('give columns.amount or columns.credit with columns.debit, not both');
  } else {
    if (columns.credit === undefined && columns.debit === undefined) return no('give columns.amount (a signed amount) or columns.credit with columns.debit');
    if (columns.credit === undefined) return no('columns.debit needs columns.credit');
    if (columns.debit === undefined) return no('columns.credit needs columns.debit');
    if (sameColumn(columns.credit, columns.debit)) return no('columns.credit and columns.debit name the same column');
  }

  const fixedCurrency = given('fixedCurrency', null);
  if (fixedCurrency !== null) {
    const code = typeof fixedCurrency === 'string' ? currencyCode(fixedCurrency) : ({ ok: false, why: 'is not a text' } as const);
    if (!code.ok) return no(`fixedCurrency ${code.why}`);
  }
  if ((columns.currency === undefined) === (fixedCurrency === null)) return no('give exactly one of columns.currency and fixedCurrency: where each row\'s currency is');

  return {
    ok: true,
    value: {
      name,
      delimiter,
      quote: quote as string | null,
      encoding,
      skipRows,
      decimalSeparator,
      thousandsSeparator: thousandsSeparator as string | null,
      dateFormat,
      timeZone,
      columns: columns as CsvProfileColumns,
      fixedAccount: fixedAccount as string | null,
      fixedCurrency: fixedCurrency as string | null,
    },
  };
}

function sameColumn(a: CsvColumnRef, b: CsvColumnRef): boolean {
  return typeof a === 'string' && typeof b === 'string' ? a.trim().toLowerCase() === b.trim().toLowerCase() : a === b;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// -------------------------------------------------------------------------------------------
// Dates

type DateField = 'year4' | 'year2' | 'month' | 'day' | 'hour' | 'minute' | 'second';
type DateToken = { readonly field: DateField } | { readonly literal: string };

const TOKENS: readonly [string, DateField][] = [
  ['YYYY', 'year4'],
  ['YY', 'year2'],
  ['MM', 'month'],
  ['DD', 'day'],
  ['HH', 'hour'],
  ['mm', 'minute'],
  ['ss', 'second'],
];
const TIME_FIELDS: ReadonlySet<DateField> = new Set(['hour', 'minute', 'second']);

/** The tokens of a date format, with its rules: a year, a month and a day once each; minutes need hours, seconds minutes. */
function dateTokens(format: string): Checked<DateToken[]> {
  const tokens: DateToken[] = [];
  const seen = new Set<DateField>();
  let i = 0;
  while (i < format.length) {
    const match = TOKENS.find(([t]) => format.startsWith(t, i));
    if (match) {
      const [text, field] = match;
      const kind = field === 'year2' ? 'year4' : field;
      if (seen.has(kind)) return { ok: false, why: `dateFormat "${format}" has ${text === 'YY' || text === 'YYYY' ? 'a year' : text} twice` };
      seen.add(kind);
      tokens.push({ field });
      i += text.length;
      continue;
    }
    const ch = format[i];
    if ('YMDHms'.includes(ch)) {
      return { ok: false, why: `dateFormat "${format}" has "${ch}" at position ${i + 1}, which is no token: use DD, MM, YYYY, YY, HH, mm, ss` };
    }
    const last = tokens[tokens.length - 1];
    if (last !== undefined && 'literal' in last) tokens[tokens.length - 1] = { literal: last.literal + ch };
    else tokens.push({ literal: ch });
    i += 1;
  }
  if (!seen.has('year4')) return { ok: false, why: `dateFormat "${format}" has no year (YYYY or YY)` };
  if (!seen.has('month')) return { ok: false, why: `dateFormat "${format}" has no month (MM)` };
  if (!seen.has('day')) return { ok: false, why: `dateFormat "${format}" has no day (DD)` };
  if (seen.has('minute') && !seen.has('hour')) return { ok: false, why: `dateFormat "${format}" has minutes (mm) without hours (HH)` };
  if (seen.has('second') && !seen.has('minute')) return { ok: false, why: `dateFormat "${format}" has seconds (ss) without minutes (mm)` };
  return { ok: true, value: tokens };
}

const DAY_MS = 86_400_000;

/**
 * Reads dates of one format written in one zone. A date alone stays a date alone; a time is
 * placed on the UTC line with the zone's offset at that moment, which `Intl` knows from the IANA
 * database. A local time that does not exist (skipped when clocks go forward) or exists twice
 * (when they go back) cannot be placed: its date is then taken alone, as the contract says.
 */
class DateReader {
  private readonly tokens: DateToken[];
  private readonly wall: Intl.DateTimeFormat | null;
  /** The zone's offsets a day before and two days after each local day seen, in ms. */
  private readonly offsets = new Map<number, readonly [number, number]>();

  constructor(
    private readonly format: string,
    zone: string,
  ) {
    const tokens = dateTokens(format);
    if (!tokens.ok) throw new Error(tokens.why);
    this.tokens = tokens.value;
    this.wall =
      zone.toUpperCase() === 'UTC'
        ? null
        : new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  }

  read(text: string): Checked<BookingTime> {
    const v: Partial<Record<DateField, number>> = {};
    let pos = 0;
    for (let k = 0; k < this.tokens.length; k++) {
      const token = this.tokens[k];
      // The time may be left out (`02.03.2026` read as `DD.MM.YYYY HH:mm`): the date stands alone.
      if (pos === text.length && v.hour === undefined && this.tokens.slice(k).every((t) => 'literal' in t || TIME_FIELDS.has(t.field))) break;
      if ('literal' in token) {
        if (!text.startsWith(token.literal, pos)) return this.mismatch(text);
        pos += token.literal.length;
        continue;
      }
      const [min, max] = token.field === 'year4' ? [4, 4] : token.field === 'year2' ? [2, 2] : [1, 2];
      let end = pos;
      while (end < text.length && end - pos < max && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end += 1;
      if (end - pos < min) return this.mismatch(text);
      v[token.field] = Number(text.slice(pos, end));
      pos = end;
    }
    if (pos !== text.length) return this.mismatch(text);
    const year = v.year4 ?? 2000 + v.year2!;
    const month = v.month!;
    const day = v.day!;
    if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
      return { ok: false, why: `"${clip(text)}" is not a day of the calendar (read as ${this.format})` };
    }
    const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    const dateOnly = { ok: true, value: { receivedAt: `${date}T00:00:00.000Z`, dateOnly: true } } as const;
    if (v.hour === undefined) return dateOnly;
    const [hour, minute, second] = [v.hour, v.minute ?? 0, v.second ?? 0];
    if (hour > 23 || minute > 59 || second > 59) return { ok: false, why: `"${clip(text)}" is not a time of day (read as ${this.format})` };
    const local = Date.UTC(year, month - 1, day, hour, minute, second);
    const at = this.wall === null ? local : this.instantOf(local);
    if (at === null) return dateOnly;
    return { ok: true, value: { receivedAt: new Date(at).toISOString(), dateOnly: false } };
  }

  private mismatch(text: string): Checked<BookingTime> {
    return { ok: false, why: `"${clip(text)}" is not a date written as ${this.format}` };
  }

  /** The instant of a local wall-clock time (given as if it were UTC), or null when there is none or two. */
  private instantOf(local: number): number | null {
    const day = Math.floor(local / DAY_MS);
    let around = this.offsets.get(day);
    if (around === undefined) {
      // Offsets change at most twice a year; a day before and two after bracket any change on this day.
      around = [this.offsetAt((day - 1) * DAY_MS), this.offsetAt((day + 2) * DAY_MS)];
      if (this.offsets.size >= 4096) this.offsets.clear();
      this.offsets.set(day, around);
    }
    if (around[0] === around[1]) return local - around[0];
    const found = new Set<number>();
    for (const offset of around) {
      const at = local - offset;
      if (this.offsetAt(at) === offset) found.add(at);
    }
    return found.size === 1 ? [...found][0] : null;
  }

  /** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
  private offsetAt(at: number): number {
    const parts: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
    for (const part of this.wall!.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
    return wall - Math.floor(at / 1000) * 1000;
  }
}

// -------------------------------------------------------------------------------------------
// Amounts

function separatorsOf(thousands: string | null): string[] {
  if (thousands === ' ' || thousands === '\u00a0') return [' ', '\u00a0', '\u202f'];
  if (thousands === "'") return ["'", '\u2019'];
  return thousands === null ? [] : [thousands];
}

const DIGITS = /^\d+$/;

/**
 * A bank's amount as a signed decimal with 2 places: `1.234,56`, `-12,00`, `+12,00`, `12,00-`
 * and `(12,00)` (negative), with the profile's separators; thousands in groups of three.
 */
function bankAmount(text: string, decimal: string, thousands: readonly string[]): Checked<string> {
  const why = `"${clip(text)}" is not an amount written with the decimal separator ${show(decimal)}${thousands.length ? ` and the thousands separator ${show(thousands[0])}` : ''}`;
  const refuse = (): Checked<string> => ({ ok: false, why });
  let t = text;
  let negative = false;
  if (t.startsWith('(') && t.endsWith(')')) {
    negative = true;
    t = t.slice(1, -1).trim();
  }
  if (t.endsWith('-')) {
    if (negative) return refuse();
    negative = true;
    t = t.slice(0, -1).trimEnd();
  } else if (t.startsWith('-') || t.startsWith('+')) {
    if (negative) return refuse();
    negative = t.startsWith('-');
    t = t.slice(1).trimStart();
  }
  const at = t.indexOf(decimal);
  const whole = at < 0 ? t : t.slice(0, at);
  const fraction = at < 0 ? '' : t.slice(at + 1);
  if (at >= 0 && !DIGITS.test(fraction)) return refuse();
  let digits = whole;
  if (!DIGITS.test(whole)) {
    if (thousands.length === 0) return refuse();
    const groups = splitBy(whole, thousands);
    if (groups.length < 2 || !DIGITS.test(groups[0]) || groups[0].length > 3 || groups.slice(1).some((g) => g.length !== 3 || !DIGITS.test(g))) return refuse();
    digits = groups.join('');
  }
  const signed = signedAmount(`${negative ? '-' : ''}${digits}${fraction ? `.${fraction}` : ''}`, 6);
  if (!signed.ok) {
    return { ok: false, why: signed.why.includes('decimal places') ? `"${clip(text)}" has more than 2 decimal places` : signed.why.includes('too large') ? `"${clip(text)}" is too large` : why };
  }
  return signed;
}

function splitBy(text: string, separators: readonly string[]): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (separators.includes(text[i])) {
      out.push(text.slice(from, i));
      from = i + 1;
    }
  }
  out.push(text.slice(from));
  return out;
}

// -------------------------------------------------------------------------------------------
// The reader

/**
 * The push reader of a bank's CSV by its profile. `write` throws when the header is missing or
 * lacks a column the profile names; every row after the header is an entry.
 */
export class CsvProfileReader implements StatementReader {
  private readonly profile: CsvProfile;
  private readonly records: CsvRecords;
  private readonly dates: DateReader;
  private readonly thousands: string[];
  private readonly sections = new CsvSections();
  /** Where each field is (0-based), once the header is read. */
  private where: Partial<Record<CsvProfileColumn, number>> | null = null;
  private names: string[] | null = null;
  /** Fields a row needs: the last column the profile reads. */
  private need = 0;
  private entries = 0;
  private pending: StatementEntry[] = [];
  private closed = false;

  constructor(profile: CsvProfile) {
    const checked = checkCsvProfile(profile);
    if (!checked.ok) throw new TypeError(`the CSV profile is not valid: ${checked.why}`);
    this.profile = checked.value;
    this.records = new CsvRecords({ delimiter: this.profile.delimiter, quote: this.profile.quote, skipLines: this.profile.skipRows });
    this.dates = new DateReader(this.profile.dateFormat, this.profile.timeZone);
    this.thousands = separatorsOf(this.profile.thousandsSeparator);
  }

  /** The header's names as written (trimmed), once it is read. */
  get header(): readonly string[] | null {
    return this.names;
  }

  write(text: string): void {
    for (const r of this.records.write(text)) this.onRecord(r);
  }

  take(): StatementEntry[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.records.end()) this.onRecord(r);
    if (this.where === null) {
      const after = this.profile.skipRows ? ` after the ${this.profile.skipRows} line${this.profile.skipRows === 1 ? '' : 's'} the profile skips` : '';
      throw statementProblem(`the file has no header row${after} (profile "${clip(this.profile.name)}")`, { element: 'header' });
    }
  }

  summary(): StatementSummaryOfFile {
    return { format: 'csv-profile', version: null, sections: this.sections.list() };
  }

  private onRecord(r: CsvRecord): void {
    if (r.fields !== null && isEmptyRecord(r.fields)) return;
    if (this.where === null) {
      this.readHeader(r);
      return;
    }
    this.entries += 1;
    this.pending.push(this.entryOf(r, this.entries));
  }

  private readHeader(r: CsvRecord): void {
    const of = `profile "${clip(this.profile.name)}"`;
    if (r.fields === null) throw statementProblem(`the header on line ${r.line} cannot be read (${of}): ${r.fault}`, { line: r.line, element: 'header' });
    const names = r.fields.map((f) => f.trim());
    const folded = names.map((n) => n.toLowerCase());
    const where: Partial<Record<CsvProfileColumn, number>> = {};
    for (const key of CSV_PROFILE_COLUMNS) {
      const ref = this.profile.columns[key];
      if (ref === undefined) continue;
      if (typeof ref === 'number') {
        if (ref > names.length) {
          throw statementProblem(`columns.${key} of ${of} is column ${ref}, but the header on line ${r.line} has ${names.length}`, { line: r.line, element: key });
        }
        where[key] = ref - 1;
        continue;
      }
      const wanted = ref.trim().toLowerCase();
      const first = folded.indexOf(wanted);
      if (first < 0) {
        throw statementProblem(`the header on line ${r.line} has no column "${clip(ref)}" (columns.${key} of ${of}); it has ${clip(names.map((n) => `"${n}"`).join(', '), 300)}`, {
          line: r.line,
          element: key,
        });
      }
      const again = folded.indexOf(wanted, first + 1);
      if (again >= 0) {
        throw statementProblem(`the header on line ${r.line} has the column "${clip(ref)}" twice (columns ${first + 1} and ${again + 1}); give columns.${key} of ${of} as a number`, {
          line: r.line,
          element: key,
        });
      }
      where[key] = first;
    }
    this.where = where;
    this.names = names;
    this.need = Math.max(...Object.values(where)) + 1;
  }

  /** How a message names the column of a field: `amount ("Betrag")`. */
  private label(key: CsvProfileColumn): string {
    const at = this.where![key]!;
    const name = this.names![at];
    return name ? `${key} ("${clip(name)}")` : `${key} (column ${at + 1})`;
  }

  private entryOf(r: CsvRecord, row: number): StatementEntry {
    const place = `row ${row} (line ${r.line})`;
    const entry: { -readonly [K in keyof StatementEntry]: StatementEntry[K] } = {
      index: row,
      kind: 'credit',
      account: null,
      amount: null,
      currency: null,
      receivedAt: null,
      dateOnly: false,
      payer: null,
      reference: null,
      bankReference: null,
      sourceId: `line ${r.line}`,
      problem: null,
    };
    if (r.fields === null || r.fields.length < this.need) {
      // Nothing of the row can be trusted; with a fixed account its section still counts it.
      const fixed = this.profile.fixedAccount;
      if (fixed !== null) this.sections.of(fixed, r.line).unreadable();
      const why = r.fields === null ? r.fault : `it has ${r.fields.length} fields, and the profile reads column ${this.need}`;
      return { ...entry, account: fixed, problem: `${place}: ${why}` };
    }
    const fields = r.fields;
    const get = (key: CsvProfileColumn): string | null => {
      const at = this.where![key];
      return at === undefined ? null : fields[at].trim();
    };
    const problems: string[] = [];
    const fail = (key: CsvProfileColumn, why: string) => problems.push(`${this.label(key)} ${why}`);

    const nul = fields.findIndex((f) => f.includes('\u0000'));
    if (nul >= 0) problems.push(`column ${nul + 1} contains a NUL character`);

    const account = this.profile.fixedAccount ?? get('account');
    if (account) entry.account = account;
    else fail('account', 'is empty');

    const signed = this.amountOf(get, fail);
    if (signed !== null) {
      const value = new Decimal(signed);
      entry.kind = value.isZero() ? 'other' : value.isNegative() ? 'debit' : 'credit';
      entry.amount = value.isZero() ? null : value.abs().toFixed(2);
    } else {
      entry.kind = this.guessKind(get);
    }

    const currencyText = this.profile.fixedCurrency ?? get('currency')!.toUpperCase();
    const currency = currencyCode(currencyText);
    if (currency.ok) entry.currency = currency.value;
    else fail('currency', currency.why);

    const dateText = get('receivedAt')!;
    const time = dateText === '' ? ({ ok: false, why: 'is empty' } as const) : this.dates.read(dateText);
    if (time.ok) {
      entry.receivedAt = time.value.receivedAt;
      entry.dateOnly = time.value.dateOnly;
    } else {
      fail('receivedAt', time.why);
    }

    entry.payer = get('payer') || null;
    entry.reference = get('reference') || null;
    entry.bankReference = get('bankReference') || null;

    if (account && entry.kind !== 'other') {
      const tally = this.sections.of(account, r.line);
      if (entry.amount === null) tally.unreadable();
      else if (entry.kind === 'credit') tally.credit(entry.amount);
      else tally.debit(entry.amount);
      if (time.ok) tally.day(time.value.receivedAt.slice(0, 10));
    }
    // The first fault found: one sentence naming the row and the field.
    if (problems.length) entry.problem = `${place}: ${problems[0]}`;
    return entry;
  }

  /** The row's signed amount (2 places), from `amount` or from `credit` and `debit`; null when unreadable. */
  private amountOf(get: (key: CsvProfileColumn) => string | null, fail: (key: CsvProfileColumn, why: string) => void): string | null {
    const read = (key: CsvProfileColumn, text: string): string | null => {
      const checked = bankAmount(text, this.profile.decimalSeparator, this.thousands);
      if (checked.ok) return checked.value;
      fail(key, checked.why);
      return null;
    };
    if (this.where!.amount !== undefined) {
      const text = get('amount')!;
      if (text === '') {
        fail('amount', 'is empty');
        return null;
      }
      return read('amount', text);
    }
    const creditText = get('credit')!;
    const debitText = get('debit')!;
    const credit = creditText === '' ? '0.00' : read('credit', creditText);
    const debit = debitText === '' ? '0.00' : read('debit', debitText);
    if (credit === null || debit === null) return null;
    if (creditText === '' && debitText === '') {
      fail('credit', `and ${this.label('debit')} are both empty`);
      return null;
    }
    const money = { in: new Decimal(credit), out: new Decimal(debit).abs() };
    if (!money.in.isZero() && !money.out.isZero()) {
      fail('credit', `"${clip(creditText)}" and ${this.label('debit')} "${clip(debitText)}" both hold an amount`);
      return null;
    }
    // Money out is the debit column's amount whatever its sign; the credit column's is as written.
    return money.out.isZero() ? money.in.toFixed(2) : money.out.negated().toFixed(2);
  }

  /** The kind of a row whose amount cannot be read, from how it is written. */
  private guessKind(get: (key: CsvProfileColumn) => string | null): EntryKind {
    if (this.where!.amount !== undefined) {
      const text = get('amount')!;
      return text.startsWith('-') || text.endsWith('-') || text.startsWith('(') ? 'debit' : 'credit';
    }
    return get('credit') === '' && get('debit') !== '' ? 'debit' : 'credit';
  }
}

// -------------------------------------------------------------------------------------------
// Preview

export interface CsvProfilePreview {
  /** The header's names as the file writes them, once found. */
  readonly header: readonly string[] | null;
  /** The first rows as the entries they would be. */
  readonly entries: StatementEntry[];
  /** Why the file (or the profile) cannot be read this way, or null. */
  readonly problem: StatementProblem | null;
}

/**
 * The first `rows` entries of a sample text read with a profile, for the back office to show
 * before the profile is saved. The text is the decoded file (or its start). A profile or a file
 * that cannot be read gives its problem instead of throwing.
 */
export function previewCsvProfile(profile: CsvProfile, text: string, rows = 20): CsvProfilePreview {
  const checked = checkCsvProfile(profile);
  if (!checked.ok) {
    return { header: null, entries: [], problem: { kind: 'invalid', message: `the profile is not valid: ${checked.why}`, entry: null, element: null, line: null, column: null } };
  }
  const reader = new CsvProfileReader(checked.value);
  const entries: StatementEntry[] = [];
  const step = 64 * 1024;
  try {
    for (let i = 0; i < text.length && entries.length < rows; i += step) {
      reader.write(text.slice(i, i + step));
      entries.push(...reader.take());
    }
    if (entries.length < rows) {
      reader.close();
      entries.push(...reader.take());
    }
  } catch (err) {
    if (err instanceof StatementInvalidError) return { header: reader.header, entries: entries.slice(0, rows), problem: err.problem };
    throw err;
  }
  return { header: reader.header, entries: entries.slice(0, rows), problem: null };
}
