/**
 * The CSV statement of the reconciliation contract: RFC 4180 (fields with commas, quotes or line
 * breaks are quoted, a quote inside is doubled), a byte order mark allowed, and exactly this
 * header, with an optional eighth column `bankReference`:
 *
 *   transactionId,account,amount,currency,receivedAt,payer,reference
 *
 * Every data row is one entry: a positive amount is money in (`credit`), a negative one
 * (`-12.00`) money out (`debit`). A row that cannot be read (a bad value, the wrong number of
 * fields, a broken quote, a row over 64 KiB) is an entry with a `problem` naming the row, its
 * line and the field, and reading goes on; only a file whose first row is not the header throws.
 *
 * The file is cut into records here (`CsvRecords`, shared with the bank profiles of
 * csvProfile.ts) and each record's fields are read by csv-parse. csv-parse's own streaming keeps
 * an unfinished record in a buffer that only its `max_record_size` bounds, and a record that
 * passes that bound, like most of its errors, stops the parser for good; so the records are cut
 * first by a small state machine that knows the quoting rules, that bounds each record, and that
 * carries its state across chunks (a chunk may end inside a quoted field or between `\r` and
 * `\n`), and csv-parse's synchronous `parse` reads the complete records, a batch at a time.
 */
import { Decimal } from 'decimal.js';
import { CsvError, parse, type Options } from 'csv-parse/sync';
import { bookingDate, bookingDateTime, clip, currencyCode, SectionTally, signedAmount, type BookingTime, type Checked } from './fields.js';
import { statementProblem, type EntryKind, type StatementEntry, type StatementReader, type StatementSummaryOfFile } from './types.js';

export const CSV_COLUMNS = ['transactionId', 'account', 'amount', 'currency', 'receivedAt', 'payer', 'reference'] as const;
/** The optional eighth column: the bank's own reference of the booking. */
export const CSV_BANK_REFERENCE_COLUMN = 'bankReference';

/**
 * The longest record kept, in characters: a statement row is a few hundred, so a longer one is a
 * quote left open or no statement, and the bound keeps one hostile row from holding the memory.
 */
export const MAX_RECORD_CHARS = 64 * 1024;
/**
 * Distinct accounts a file may name, each with its section's sums. A provider's statement names
 * one account or a few; 10 000 still costs only a few megabytes.
 */
export const MAX_SECTIONS = 10_000;
/** Complete records are handed to csv-parse in batches of about this many characters. */
const BATCH_CHARS = 256 * 1024;

// -------------------------------------------------------------------------------------------
// Records

/** How a CSV text is written: its delimiter, its quote (or none), and the lines before its header. */
export interface CsvDialect {
  /** One character. */
  readonly delimiter: string;
  /** One character, or null when values are never quoted. */
  readonly quote: string | null;
  /** Physical lines skipped before anything is read (a bank's preamble); quotes in them mean nothing. */
  readonly skipLines: number;
}

/** One record of the text: its fields, or why they cannot be read. */
export interface CsvRecord {
  /** The values as written (unquoted, untrimmed), or null when `fault` is set. */
  readonly fields: string[] | null;
  /** Why the record cannot be read, as the end of a sentence (`a quoted value is never closed`). */
  readonly fault: string | null;
  /** First and last line of the file the record spans (a quoted value may hold line breaks). */
  readonly line: number;
  readonly lastLine: number;
}

const enum S {
  /** At the start of a field: a quote here opens a quoted value. */
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted value: the next character tells whether it closes or is doubled. */
  QuoteInQuoted,
  /** Blanks after a closing quote, before the delimiter. */
  AfterQuote,
  /** A preamble line the dialect skips. */
  SkipLine,
}

const CR = 0x0d;
const LF = 0x0a;

/** Blanks csv-parse trims around a quoted value (its `ltrim`/`rtrim`), less line ends. */
function isBlank(c: number): boolean {
  return (
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0b ||
    c === 0x0c ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isBlankText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isBlank(text.charCodeAt(i))) return false;
  return true;
}

interface Pending {
  readonly text: string | null;
  readonly fault: string | null;
  readonly line: number;
  readonly lastLine: number;
}

/**
 * Cuts a CSV text pushed in chunks into records, bounded to `MAX_RECORD_CHARS` each, and reads
 * their fields with csv-parse. `write` and `end` answer the records completed so far, in order.
 * Blank lines are no records. A record that never ends because a quote is never closed is, at the
 * end, one record with a fault that names the lines it swallowed.
 */
export class CsvRecords {
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly options: Options;
  private state: S;
  /** The line of the character being read, 1-based. */
  private line = 1;
  /** The last character was a CR: a LF right after it ends nothing and counts no line. */
  private afterCr = false;
  /** The last character read ended a line: the file's last line is then the one before `line`. */
  private afterLineEnd = false;
  private atFileStart = true;

  /** The current record: its text read so far (from earlier chunks), its size, its first line. */
  private carry = '';
  private size = 0;
  private oversize = false;
  private recordLine = 1;

  private batch: Pending[] = [];
  private batchChars = 0;
  private out: CsvRecord[] = [];

  constructor(private readonly dialect: CsvDialect) {
    if (dialect.delimiter.length !== 1) throw new Error('a CSV delimiter is one character');
    if (dialect.quote !== null && dialect.quote.length !== 1) throw new Error('a CSV quote is one character');
    this.delimiter = dialect.delimiter.charCodeAt(0);
    this.quote = dialect.quote === null ? -1 : dialect.quote.charCodeAt(0);
    this.state = dialect.skipLines > 0 ? S.SkipLine : S.FieldStart;
    this.options = {
      delimiter: dialect.delimiter,
      quote: dialect.quote,
      escape: dialect.quote,
      record_delimiter: '\n',
      relax_column_count: true,
      relax_quotes: false,
      ltrim: true,
      rtrim: true,
      bom: false,
      skip_empty_lines: false,
      raw: true,
    };
  }

  write(text: string): CsvRecord[] {
    this.scan(text);
    this.flush();
    return this.drain();
  }

  /** The end of the text: the last record, and a quote never closed. */
  end(): CsvRecord[] {
    if (this.state === S.Quoted) {
      const last = this.afterLineEnd ? this.line - 1 : this.line;
      const lines = last === this.recordLine ? `line ${last}` : `lines ${this.recordLine}–${last}`;
      this.pend({ text: null, fault: `a quoted value opened in it is never closed, so the rest of the file (${lines}) is inside it`, line: this.recordLine, lastLine: last });
    } else if (this.state !== S.SkipLine && this.size > 0) {
      this.endRecord('', 0, 0);
    }
    this.carry = '';
    this.size = 0;
    this.flush();
    return this.drain();
  }

  private drain(): CsvRecord[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private scan(text: string): void {
    const d = this.delimiter;
    const q = this.quote;
    let start = 0; // where the current record's text begins in this chunk
    let i = 0;
    if (this.atFileStart && text.length > 0) {
      this.atFileStart = false;
      if (text.charCodeAt(0) === 0xfeff) start = i = 1;
    }
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === LF && this.afterCr) {
        // The LF of a CRLF: the CR counted the line (and ended the record, outside quotes).
        this.afterCr = false;
        if (this.state !== S.Quoted) {
          if (this.size === 0) start = i + 1;
          continue;
        }
        this.grow();
        continue;
      }
      this.afterCr = c === CR;
      const lineEnd = c === CR || c === LF;
      this.afterLineEnd = lineEnd;
      switch (this.state) {
        case S.SkipLine:
          if (lineEnd) {
            this.line += 1;
            start = i + 1;
            if (this.line > this.dialect.skipLines) {
              this.state = S.FieldStart;
              this.recordLine = this.line;
            }
          }
          continue;
        case S.Quoted:
          if (c === q) this.state = S.QuoteInQuoted;
          else if (lineEnd) this.line += 1;
          this.grow();
          continue;
        case S.QuoteInQuoted:
          if (c === q) {
            this.state = S.Quoted;
            this.grow();
            continue;
          }
          this.state = S.AfterQuote;
          break;
        default:
          break;
      }
      // FieldStart, Unquoted, AfterQuote (and a quote just closed).
      if (lineEnd) {
        this.endRecord(text, start, i);
        this.line += 1;
        this.recordLine = this.line;
        start = i + 1;
        continue;
      }
      if (c === d) this.state = S.FieldStart;
      else if (this.state === S.FieldStart) this.state = c === q ? S.Quoted : isBlank(c) ? S.FieldStart : S.Unquoted;
      else if (this.state === S.AfterQuote && !isBlank(c)) this.state = S.Unquoted; // csv-parse refuses it; the record says so
      this.grow();
    }
    if (this.state === S.SkipLine) return;
    if (!this.oversize && start < text.length) this.carry += text.slice(start);
  }

  /** One more character of the current record. */
  private grow(): void {
    this.size += 1;
    if (!this.oversize && this.size > MAX_RECORD_CHARS) {
      // Past the bound the text is dropped; the record's end is still looked for.
      this.oversize = true;
      this.carry = '';
    }
  }

  /** The record ends at `end` (a line end, not part of it). */
  private endRecord(text: string, start: number, end: number): void {
    const lastLine = this.line;
    if (this.oversize) {
      this.pend({ text: null, fault: `it is longer than ${MAX_RECORD_CHARS} characters (is a quote left open?)`, line: this.recordLine, lastLine });
    } else if (this.size > 0) {
      const record = this.carry + text.slice(start, end);
      // A line of blanks is a blank line (csv-parse would give no record for it).
      if (!isBlankText(record)) this.pend({ text: record, fault: null, line: this.recordLine, lastLine });
    }
    this.carry = '';
    this.size = 0;
    this.oversize = false;
    this.state = S.FieldStart;
  }

  private pend(p: Pending): void {
    this.batch.push(p);
    this.batchChars += p.text?.length ?? 0;
    if (this.batchChars >= BATCH_CHARS) this.flush();
  }

  /** Reads the fields of the records cut so far: a run of good records in one csv-parse call. */
  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    this.batchChars = 0;
    let run: Pending[] = [];
    for (const p of batch) {
      if (p.text === null) {
        this.readRun(run);
        run = [];
        this.out.push({ fields: null, fault: p.fault, line: p.line, lastLine: p.lastLine });
      } else {
        run.push(p);
      }
    }
    this.readRun(run);
  }

  private readRun(run: Pending[]): void {
    if (run.length === 0) return;
    const together = this.parseRun(run);
    if (together !== null) {
      run.forEach((p, k) => this.out.push({ fields: together[k], fault: null, line: p.line, lastLine: p.lastLine }));
      return;
    }
    // Some record of the run is bad: each is read alone to say which.
    for (const p of run) {
      const alone = this.parseRun([p]);
      this.out.push(
        alone !== null
          ? { fields: alone[0], fault: null, line: p.line, lastLine: p.lastLine }
          : { fields: null, fault: this.faultOf(p.text!), line: p.line, lastLine: p.lastLine },
      );
    }
  }

  /**
   * The fields of each record of the run, or null when csv-parse refuses one or cuts the run
   * otherwise than this class did (each record's raw text must be its own, with its line end).
   */
  private parseRun(run: Pending[]): string[][] | null {
    let parsed: { record: string[]; raw: string }[];
    try {
      parsed = parse(run.map((p) => p.text).join('\n'), this.options) as unknown as { record: string[]; raw: string }[];
    } catch {
      return null;
    }
    if (parsed.length !== run.length) return null;
    for (let k = 0; k < run.length; k++) {
      if (parsed[k].raw.length !== run[k].text!.length + (k < run.length - 1 ? 1 : 0)) return null;
    }
    return parsed.map((r) => r.record);
  }

  /** What is wrong with a record csv-parse refuses alone, in words that need no CSV manual. */
  private faultOf(text: string): string {
    try {
      parse(text, this.options);
    } catch (err) {
      if (err instanceof CsvError) {
        switch (err.code) {
          case 'INVALID_OPENING_QUOTE':
            return 'a quote stands inside a value that is not quoted (quote the whole value and double the quote)';
          case 'CSV_INVALID_CLOSING_QUOTE':
          case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
            return 'a quoted value is followed by other text before the delimiter';
          case 'CSV_QUOTE_NOT_CLOSED':
            return 'a quoted value is never closed';
          default:
            return `it is not valid CSV (${err.code})`;
        }
      }
      return 'it is not valid CSV';
    }
    return 'it is not valid CSV';
  }
}

/** True when every value of the record is blank: a separator row, not an entry. */
export function isEmptyRecord(fields: readonly string[]): boolean {
  return fields.every((f) => f.trim() === '');
}

// -------------------------------------------------------------------------------------------
// The native CSV

type Column = (typeof CSV_COLUMNS)[number] | typeof CSV_BANK_REFERENCE_COLUMN;

const HEADER = CSV_COLUMNS.join(',');

/** The sections of a CSV file, one per account in order of first appearance. */
export class CsvSections {
  private readonly tallies = new Map<string, SectionTally>();

  /** The account's section; throws past `MAX_SECTIONS`. */
  of(account: string, line: number): SectionTally {
    let tally = this.tallies.get(account);
    if (tally === undefined) {
      if (this.tallies.size >= MAX_SECTIONS) {
        throw statementProblem(`the file names more than ${MAX_SECTIONS} accounts (line ${line} adds "${clip(account)}"); split it by account`, { line });
      }
      tally = new SectionTally();
      this.tallies.set(account, tally);
    }
    return tally;
  }

  list() {
    return [...this.tallies].map(([account, tally]) => tally.section({ account, opening: null, closing: null }));
  }
}

/**
 * The push reader of the native CSV. `write` throws only for the header (not the contract's, or
 * unreadable), `close` for a file without one; every row after it is an entry.
 */
export class CsvReader implements StatementReader {
  private readonly records = new CsvRecords({ delimiter: ',', quote: '"', skipLines: 0 });
  private readonly sections = new CsvSections();
  /** 7 or 8 once the header is read. */
  private width = 0;
  private entries = 0;
  private pending: StatementEntry[] = [];
  private closed = false;

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
    if (this.width === 0) throw statementProblem(`the CSV file is empty; its first line must be the header ${HEADER}`, { line: 1, element: 'header' });
  }

  summary(): StatementSummaryOfFile {
    return { format: 'csv', version: null, sections: this.sections.list() };
  }

  private onRecord(r: CsvRecord): void {
    if (r.fields !== null && isEmptyRecord(r.fields)) return;
    if (this.width === 0) {
      this.header(r);
      return;
    }
    this.entries += 1;
    this.pending.push(this.entryOf(r, this.entries));
  }

  private header(r: CsvRecord): void {
    if (r.fields === null) {
      throw statementProblem(`the CSV header on line ${r.line} cannot be read: ${r.fault}; it must be exactly ${HEADER}`, { line: r.line, element: 'header' });
    }
    const names = r.fields.map((f) => f.trim());
    const found = names.join(',');
    if (found === HEADER || found === `${HEADER},${CSV_BANK_REFERENCE_COLUMN}`) {
      this.width = names.length;
      return;
    }
    throw statementProblem(`the CSV header must be exactly ${HEADER} (optionally with ,${CSV_BANK_REFERENCE_COLUMN}); line ${r.line} is ${clip(found, 120)}`, { line: r.line, element: 'header' });
  }

  private entryOf(r: CsvRecord, row: number): StatementEntry {
    const where = `row ${row} (line ${r.line})`;
    const blank: StatementEntry = {
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
      sourceId: null,
      problem: null,
    };
    if (r.fields === null) return { ...blank, problem: `${where}: ${r.fault}` };
    if (r.fields.length !== this.width) {
      return { ...blank, problem: `${where}: it has ${r.fields.length} fields where the header has ${this.width} (quote a value that holds a comma)` };
    }
    const values = r.fields.map((v) => v.trim());
    const value = (c: Column) => values[c === CSV_BANK_REFERENCE_COLUMN ? 7 : CSV_COLUMNS.indexOf(c)];
    const problems: string[] = [];
    const fail = (c: Column, why: string) => problems.push(`${c} ${why}`);

    const nul = values.findIndex((v) => v.includes('\u0000'));
    if (nul >= 0) fail(nul === 7 ? CSV_BANK_REFERENCE_COLUMN : CSV_COLUMNS[nul], 'contains a NUL character');
    const transactionId = value('transactionId');
    const account = value('account');
    if (!transactionId) fail('transactionId', 'is empty');
    if (!account) fail('account', 'is empty');

    const amountText = value('amount');
    const amount = nativeAmount(amountText);
    if (!amount.ok) fail('amount', amount.why);
    const kind: EntryKind = amount.ok ? amount.value.kind : amountText.startsWith('-') ? 'debit' : 'credit';

    const currency = currencyCode(value('currency'));
    if (!currency.ok) fail('currency', currency.why);

    const receivedAtText = value('receivedAt');
    const time: Checked<BookingTime> = /^\d{4}-\d{2}-\d{2}$/.test(receivedAtText) ? bookingDate(receivedAtText) : bookingDateTime(receivedAtText, 'refuse');
    if (!time.ok) fail('receivedAt', time.why);

    if (account) {
      const tally = this.sections.of(account, r.line);
      if (amount.ok) {
        if (kind === 'credit') tally.credit(amount.value.amount);
        else tally.debit(amount.value.amount);
      } else {
        tally.unreadable();
      }
      if (time.ok) tally.day(time.value.receivedAt.slice(0, 10));
    }
    const bankReference = this.width === 8 ? value(CSV_BANK_REFERENCE_COLUMN) : '';
    return {
      index: row,
      kind,
      account: account || null,
      amount: amount.ok ? amount.value.amount : null,
      currency: currency.ok ? currency.value : null,
      receivedAt: time.ok ? time.value.receivedAt : null,
      dateOnly: time.ok ? time.value.dateOnly : false,
      payer: value('payer') || null,
      reference: value('reference') || null,
      bankReference: bankReference || null,
      sourceId: transactionId || null,
      // The first fault found, in column order: one sentence naming the row and the field.
      problem: problems.length ? `${where}: ${problems[0]}` : null,
    };
  }
}

/**
 * The amount column: a plain decimal, at most 2 places, with a minus for money out (`-12.00`).
 * A plus sign, a zero, exponents and separators are refused.
 */
function nativeAmount(text: string): Checked<{ kind: EntryKind; amount: string }> {
  if (text.startsWith('+')) return { ok: false, why: `"${clip(text)}" is not a decimal number` };
  const signed = signedAmount(text, 2);
  if (!signed.ok) return signed;
  const value = new Decimal(signed.value);
  if (value.isZero()) return { ok: false, why: `"${clip(text)}" is zero (a row is money in, positive, or money out, negative)` };
  return { ok: true, value: { kind: value.isNegative() ? 'debit' : 'credit', amount: value.abs().toFixed(2) } };
}
