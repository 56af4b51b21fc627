/**
 * SWIFT MT940 customer statements and MT942 interim transaction reports, read as a stream of
 * lines.
 *
 * Why written here rather than taken from npm: the MT940 parsers on npm (`mt940js` 1.3.5, last
 * commit 2021, its issue #22 on bank header lines open since 2020; `mt940-js` 1.0.0, last commit
 * 2020; `@centrapay/swift-parser` 1.0.1, a fork of mt940js that added MT942 in 2020 and has had
 * only dependency updates since, and its forks `swiftmessageparser` and
 * `stitch-swiftmessageparser`) all take the whole file as one string or buffer and answer an
 * array of statements, so none can be pushed a 50 MiB file chunk by chunk. mt940js and mt940-js
 * hold amounts as JS numbers; mt940-js reads only bank references of exactly 16 letters and
 * digits; mt940js and the centrapay line throw on the first field they cannot read (mt940js also
 * on a balance that does not add up), where this contract wants that entry marked and the rest
 * read. None reads the Dutch `/ORDP//NAME/` or ING `/CNTP/` forms into a payer. The format itself
 * is small (a dozen fields, published by SWIFT in the MT940/MT942 field specifications and by the
 * German banking industry for the `?xx` structure of `:86:`), so the reader below is written
 * against those specifications and checked on banks' files from six countries (see
 * `test/fixtures/statements/real/mt940/SOURCES.md`).
 *
 * A file holds one or more messages, bare (`:20:` … `:62F:` and `-`) or in SWIFT blocks
 * (`{1:…}{2:O940…}{4:` … `-}{5:…}`), with CRLF or LF line ends, control characters (SOH/ETX)
 * framing messages, and bank header lines (`ABNANL2A`, `940`, `:940:`) between them. Each
 * message, or each `:25:` account within one, is a section. Each `:61:` statement line is one
 * entry; the `:86:` fields after it are its information to the account owner. Only the open
 * field, the open entry and the open section are kept, so a file costs the memory of its
 * largest field, not of the file.
 */
import { Decimal } from 'decimal.js';
import { clip, positiveAmount, SectionTally } from './fields.js';
import {
  statementProblem,
  type EntryKind,
  type StatementBalance,
  type StatementEntry,
  type StatementReader,
  type StatementSection,
  type StatementSummaryOfFile,
} from './types.js';

/**
 * SWIFT lines are at most 65 characters (field 86 is `6*65x`); some banks write longer ones
 * (Rabobank's old export pads `:61:` to 80). 16 KiB is far past any bank and stops a hostile
 * file (one endless line) from growing the line buffer.
 */
const MAX_LINE = 16 * 1024;
/**
 * One field's text, and all the `:86:` text of one entry: the standard allows 390 characters,
 * banks write up to a few thousand (ING's structured `:86:` runs to some 500).
 */
const MAX_FIELD = 64 * 1024;
/**
 * Lines outside any field that are skipped: bank headers between messages (ABN AMRO writes 3,
 * ING 3, Rabobank 1). More in a row than this is no MT940 file.
 */
const MAX_LINES_OUTSIDE = 10;
/** The width of a SWIFT text line: a `:86:` line this long was cut by width, not by meaning. */
const LINE_WIDTH = 65;
/** MT940 amounts carry as many fraction digits as the currency has: at most 3 (BHD, KWD, …). */
const AMOUNT_FRACTION_DIGITS = 3;
/** SWIFT allows 16 characters for the `:61:` bank reference; banks that write more stay below this. */
const MAX_BANK_REFERENCE = 35;

/** Statement-type SWIFT messages accepted in block 2 (`{2:O940…}`); MT950 is MT940 for banks. */
const STATEMENT_TYPES = new Set(['940', '942', '950']);

/**
 * Code words of the slash form of `:86:` (`/EREF/…/ORDP//NAME/…/REMI/…`) used by Dutch and
 * Belgian banks (Rabobank, ABN AMRO, ING, ASN, Triodos), the SWIFT MT940 usage guide's
 * structured narrative, and banks elsewhere (`/BAI/`, `/ACNO/`). A `/WORD/` that is not one of
 * these is text.
 */
const SLASH_CODES = new Set([
  'ACCW', 'ACNO', 'ADDR', 'BAI', 'BENM', 'BIC', 'BUSP', 'CDTRREF', 'CDTRREFTP', 'CHGS', 'CNTP', 'CREF', 'CSID',
  'EREF', 'EXCH', 'IBAN', 'ID', 'INIT', 'IREF', 'ISDT', 'KREF', 'MARF', 'NAME', 'OCMT', 'ORDP', 'PREF', 'PURP',
  'RCMT', 'REMI', 'RREF', 'RTRN', 'SUM', 'SVCL', 'TRCD', 'TRTP', 'ULTB', 'ULTC', 'ULTD',
]);
/** Parties of the slash form whose `/NAME/` follows them (`/ORDP//NAME/…`). */
const SLASH_PARTIES = new Set(['ORDP', 'BENM', 'INIT', 'ULTB', 'ULTC', 'ULTD']);

/** The `C`/`D` mark of a `:61:`: credit, debit, their reversals, and MT942's expected credit/debit. */
type Mark = 'C' | 'D' | 'RC' | 'RD' | 'EC' | 'ED';

interface Field {
  readonly tag: string;
  /** The field's lines; the first is the text after the tag. */
  readonly lines: string[];
  chars: number;
  /** 1-based line of the tag. */
  readonly line: number;
}

interface SectionState {
  account: string | null;
  currency: string | null;
  opening: StatementBalance | null;
  closing: StatementBalance | null;
  readonly tally: SectionTally;
  /** Whether a booking day was counted, to fall back to the balances' dates for an empty section. */
  booked: boolean;
}

interface EntryState {
  readonly index: number;
  readonly line: number;
  readonly account: string;
  readonly currency: string | null;
  mark: Mark | null;
  amount: string | null;
  /** The amount was read and is zero: the contract has no zero entry, but the balance is not touched. */
  zero: boolean;
  /** The day booked (`YYYY-MM-DD`): the entry date, else the value date. */
  date: string | null;
  customerReference: string | null;
  bankReference: string | null;
  problem: string | null;
  /** The lines of the `:86:` fields that follow. */
  readonly info: string[];
  infoChars: number;
}

/**
 * A push reader of MT940 and MT942: `write` text as it arrives, `take` the entries read so far,
 * `close` at the end, then `summary`. `write` and `close` throw `StatementInvalidError` for a
 * file that is no MT940/MT942; a `:61:` that cannot be read is an entry with a `problem`.
 */
export class Mt940Reader implements StatementReader {
  private partial = '';
  private lineNumber = 0;
  private sawContent = false;
  private closed = false;
  private failure: Error | null = null;

  private field: Field | null = null;
  /**
   * After a lone `-`: the lines read since, until the next field tells whether the dash ended
   * the message (a `:20:`, `:25:` or block follows; the lines held were bank headers) or was a
   * line of the open `:86:` text (any other field follows, as in Rabobank's files).
   */
  private afterDash: string[] | null = null;
  private linesOutside = 0;
  private mt942 = false;

  private section: SectionState | null = null;
  private entry: EntryState | null = null;
  private index = 0;
  private sawMessage = false;
  private pending: StatementEntry[] = [];
  private readonly sections: StatementSection[] = [];

  write(text: string): void {
    this.guard(() => {
      if (this.closed) throw new Error('write() after close()');
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        if (nl < 0) {
          // The text after the last line end waits for the rest of its line; the bound stops an endless one.
          this.partial += text.slice(start);
          if (this.partial.length > MAX_LINE) {
            throw statementProblem(`line ${this.lineNumber + 1} is longer than ${MAX_LINE} characters; MT940 lines are at most 65`, {
              line: this.lineNumber + 1,
            });
          }
          return;
        }
        const line = this.partial + text.slice(start, nl);
        this.partial = '';
        start = nl + 1;
        if (line.length > MAX_LINE) {
          throw statementProblem(`line ${this.lineNumber + 1} is longer than ${MAX_LINE} characters; MT940 lines are at most 65`, {
            line: this.lineNumber + 1,
          });
        }
        this.readLine(line);
      }
    });
  }

  close(): void {
    this.guard(() => {
      if (this.closed) return;
      if (this.partial !== '') {
        const line = this.partial;
        this.partial = '';
        this.readLine(line);
      }
      if (!this.sawContent) throw statementProblem('the file is empty');
      this.endMessage();
      if (!this.sawMessage) {
        throw statementProblem('the file holds no MT940 or MT942 message: it has no :20: or :25: field');
      }
      this.closed = true;
    });
  }

  take(): StatementEntry[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  summary(): StatementSummaryOfFile {
    if (!this.closed) throw new Error('summary() is known only after close()');
    return { format: this.mt942 ? 'mt942' : 'mt940', version: null, sections: [...this.sections] };
  }

  /** Runs `step`; after a fault the reader is spent and answers the same fault again. */
  private guard(step: () => void): void {
    if (this.failure) throw this.failure;
    try {
      step();
    } catch (err) {
      this.failure = err as Error;
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Lines

  private readLine(raw: string): void {
    this.lineNumber += 1;
    const text = stripControls(raw);
    const trimmed = text.trimEnd();
    if (trimmed !== '') this.sawContent = true;

    if (this.afterDash !== null) {
      const tag = tagOf(text);
      if (tag === null && !text.startsWith('{') && !text.startsWith('-')) {
        if (trimmed === '') return;
        this.afterDash.push(text);
        if (this.afterDash.length > MAX_LINES_OUTSIDE) this.outside(trimmed, this.afterDash.length);
        return;
      }
      const held = this.afterDash;
      this.afterDash = null;
      if (tag !== null && tag !== '20' && tag !== '25' && this.field !== null) {
        this.addToField('-');
        for (const line of held) this.addToField(line);
      } else {
        this.endMessage();
        this.linesOutside = held.length;
      }
    }

    if (text.startsWith('{')) {
      this.linesOutside = 0;
      this.blocks(text);
      return;
    }
    if (text.startsWith('-')) {
      if (text[1] === '}') {
        // `-}` ends block 4; what follows on the line is block 5 or the next message's blocks.
        this.endMessage();
        this.linesOutside = 0;
        this.blocks(text.slice(2));
        return;
      }
      if (trimmed === '-') {
        this.afterDash = [];
        return;
      }
      // A line that starts with a dash and goes on is text (ING wraps `:86:` dates as `-2014 …`).
    }
    const tag = tagOf(text);
    if (tag !== null) {
      this.linesOutside = 0;
      this.endField();
      this.field = { tag, lines: [text.slice(tag.length + 2)], chars: text.length, line: this.lineNumber };
      return;
    }
    if (this.field !== null) {
      this.addToField(text);
      return;
    }
    if (trimmed === '') return;
    this.linesOutside += 1;
    if (this.linesOutside > MAX_LINES_OUTSIDE) this.outside(trimmed, this.linesOutside);
  }

  private outside(trimmed: string, count: number): never {
    throw statementProblem(
      `line ${this.lineNumber} ("${clip(trimmed)}") is the ${count}th line in a row outside any MT940 field; the file is no MT940 or MT942 statement`,
      { line: this.lineNumber },
    );
  }

  private addToField(text: string): void {
    const field = this.field!;
    field.chars += text.length + 1;
    if (field.chars > MAX_FIELD) {
      throw statementProblem(`field :${field.tag}: on line ${field.line} is longer than ${MAX_FIELD} characters`, {
        element: `:${field.tag}:`,
        line: field.line,
      });
    }
    field.lines.push(text);
  }

  /**
   * A line of SWIFT blocks: `{1:F01…}{2:O940…}{3:{108:…}}{4:` opens a message whose fields
   * follow (on the same line or the next), `{5:{MAC:…}{CHK:…}}` is the trailer. Block 2 names the
   * message type; a block 2 of another type than a statement is refused.
   */
  private blocks(text: string): void {
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '}' || c === ' ' || c === '\t' || c === '-') {
        i += 1;
        continue;
      }
      if (c !== '{') break;
      const colon = text.indexOf(':', i + 1);
      if (colon < 0 || colon - i > 4) break;
      const id = text.slice(i + 1, colon);
      if (id === '4') {
        this.endMessage();
        const rest = text.slice(colon + 1);
        if (rest.trim() !== '') {
          // Fields right after `{4:` on the same line: read them as a line of their own.
          this.lineNumber -= 1;
          this.readLine(rest);
        }
        return;
      }
      let depth = 1;
      let j = colon + 1;
      while (j < text.length && depth > 0) {
        if (text[j] === '{') depth += 1;
        else if (text[j] === '}') depth -= 1;
        j += 1;
      }
      const content = text.slice(colon + 1, depth === 0 ? j - 1 : j);
      if (id === '1') this.endMessage();
      if (id === '2') this.messageType(content);
      i = j;
    }
  }

  /** Block 2: `I940…` (input) or `O940…` (output), then the type. */
  private messageType(content: string): void {
    const io = content[0];
    const type = content.slice(1, 4);
    if ((io !== 'I' && io !== 'O') || !/^\d{3}$/.test(type)) return;
    if (!STATEMENT_TYPES.has(type)) {
      throw statementProblem(`line ${this.lineNumber}: the SWIFT message is an MT${type}, not an MT940 or MT942 statement`, {
        element: '{2:}',
        line: this.lineNumber,
      });
    }
    if (type === '942') this.mt942 = true;
  }

  // -------------------------------------------------------------------------------------------
  // Fields

  private endField(): void {
    const field = this.field;
    if (field === null) return;
    this.field = null;
    const tag = field.tag;
    if (tag === '86') {
      this.addInformation(field);
      return;
    }
    if (tag === 'NS') return; // non-SWIFT bank data; it may stand between a `:61:` and its `:86:`
    this.flushEntry();
    switch (tag) {
      case '20':
        this.endSection();
        this.openSection();
        break;
      case '25': {
        const account = field.lines[0].trim();
        if (account === '') throw statementProblem(`the :25: account on line ${field.line} is empty`, { element: ':25:', line: field.line });
        if (this.section !== null && this.section.account !== null) this.endSection();
        if (this.section === null) this.openSection();
        this.section!.account = account;
        break;
      }
      case '60':
      case '60F':
      case '60M': {
        const balance = this.balance(field);
        const section = this.needSection(field);
        section.opening = balance;
        section.currency = balance.currency;
        break;
      }
      case '62':
      case '62F':
      case '62M':
        this.needSection(field).closing = this.balance(field);
        break;
      case '61':
        this.openEntry(field);
        break;
      case '34F': {
        // MT942's floor limit (`EURD0,00`) names the currency; MT942 states no balance to take it from.
        this.mt942 = true;
        const currency = field.lines[0].trim().slice(0, 3);
        if (this.section !== null && this.section.currency === null && /^[A-Z]{3}$/.test(currency)) this.section.currency = currency;
        break;
      }
      case '13D':
      case '90D':
      case '90C':
        this.mt942 = true;
        break;
      default:
        // :21:, :28:, :28C:, :64:, :65: and fields banks add: nothing the entries need.
        break;
    }
  }

  private needSection(field: Field): SectionState {
    if (this.section === null) {
      throw statementProblem(`field :${field.tag}: on line ${field.line} comes before any :20: or :25: of its message`, {
        element: `:${field.tag}:`,
        line: field.line,
      });
    }
    return this.section;
  }

  private openSection(): void {
    this.sawMessage = true;
    this.section = { account: null, currency: null, opening: null, closing: null, tally: new SectionTally(), booked: false };
  }

  private endSection(): void {
    const s = this.section;
    if (s === null) return;
    this.section = null;
    if (s.account === null) {
      throw statementProblem(`message ${this.sections.length + 1} of the file has no :25: account`, { element: ':25:', line: this.lineNumber });
    }
    const stated = s.closing?.date ?? s.opening?.date ?? null;
    this.sections.push(
      s.tally.section({
        account: s.account,
        from: s.booked ? undefined : stated,
        to: s.closing?.date ?? undefined,
        opening: s.opening,
        closing: s.closing,
      }),
    );
  }

  /** The end of a message (`-`, `-}`, a new `{1:`/`{4:`, the end of the file). */
  private endMessage(): void {
    this.afterDash = null;
    this.endField();
    this.flushEntry();
    this.endSection();
  }

  /** `:60F:`/`:62F:` and kin: `C` or `D`, YYMMDD, the currency, the amount with a decimal comma. */
  private balance(field: Field): StatementBalance {
    const text = field.lines[0].trim();
    const refuse = (why: string) =>
      statementProblem(`the :${field.tag}: balance on line ${field.line} ("${clip(text)}") ${why}`, { element: `:${field.tag}:`, line: field.line });
    const mark = text[0];
    if (mark !== 'C' && mark !== 'D') throw refuse('does not start with C or D');
    const date = calendarDate(text.slice(1, 7));
    if (date === null) throw refuse('has no date YYMMDD');
    const currency = text.slice(7, 10);
    if (!/^[A-Z]{3}$/.test(currency)) throw refuse('has no currency code of three capital letters');
    const amount = swiftDecimal(text.slice(10));
    if (amount === null) throw refuse('has no amount with a decimal comma');
    const value = new Decimal(amount);
    if (!value.equals(value.toDecimalPlaces(2))) throw refuse('has more than 2 decimal places');
    const signed = value.isZero() ? '0.00' : (mark === 'D' ? value.negated() : value).toFixed(2);
    return { amount: signed, currency, date };
  }

  // -------------------------------------------------------------------------------------------
  // Entries

  private openEntry(field: Field): void {
    const section = this.section;
    if (section === null || section.account === null) {
      throw statementProblem(`the :61: statement line on line ${field.line} comes before any :25: account`, { element: ':61:', line: field.line });
    }
    this.index += 1;
    const entry: EntryState = {
      index: this.index,
      line: field.line,
      account: section.account,
      currency: section.currency,
      mark: null,
      amount: null,
      zero: false,
      date: null,
      customerReference: null,
      bankReference: null,
      problem: null,
      info: [],
      infoChars: 0,
    };
    readStatementLine(field.lines[0].trimEnd(), entry);
    this.entry = entry;
  }

  private addInformation(field: Field): void {
    const entry = this.entry;
    if (entry === null) return; // the statement's own information, after its `:62F:`
    entry.infoChars += field.chars;
    if (entry.infoChars > MAX_FIELD) {
      throw statementProblem(`the :86: information of entry ${entry.index} is longer than ${MAX_FIELD} characters`, {
        entry: entry.index,
        element: ':86:',
        line: field.line,
      });
    }
    for (const line of field.lines) entry.info.push(line);
  }

  private flushEntry(): void {
    const e = this.entry;
    if (e === null) return;
    this.entry = null;
    const tally = this.section!.tally;
    const side = e.mark === 'C' || e.mark === 'RD' ? 'credit' : e.mark === 'D' || e.mark === 'RC' ? 'debit' : e.mark === null ? 'unknown' : 'none';
    // RC (reversal of a credit) books money out and RD (reversal of a debit) money in: both count
    // in the balance by that side. EC/ED (MT942's expected entries) are not booked yet.
    if (side === 'credit' || side === 'debit') {
      if (e.amount !== null) {
        if (side === 'credit') tally.credit(e.amount);
        else tally.debit(e.amount);
      } else if (!e.zero) tally.unreadable();
      if (e.date !== null) {
        tally.day(e.date);
        this.section!.booked = true;
      }
    } else if (side === 'unknown') tally.unreadable();

    const kind: EntryKind = e.mark === 'C' ? 'credit' : e.mark === 'D' ? 'debit' : 'other';
    let problem = e.problem;
    if (problem === null && e.currency === null) {
      problem = `entry ${e.index} (:61: on line ${e.line}) has no currency: its section states no readable :60F:/:60M: opening balance (nor an MT942 :34F:) before it`;
    }
    const { payer, reference } = information(e.info, e.mark === 'C' || e.mark === 'RD' || e.mark === 'EC');
    this.pending.push({
      index: e.index,
      kind,
      account: e.account,
      amount: e.amount,
      currency: e.currency,
      receivedAt: e.date === null ? null : `${e.date}T00:00:00.000Z`,
      dateOnly: e.date !== null,
      payer,
      reference,
      bankReference: e.bankReference,
      sourceId: e.customerReference,
      problem,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The `:61:` statement line

/**
 * `6!n[4!n]2a[1!a]15d1!a3!c16x[//16x]` read left to right without a regular expression over the
 * whole (so no backtracking): value date YYMMDD, entry date MMDD, mark (C, D, RC, RD; MT942 also
 * EC, ED), funds code (a letter), amount with a decimal comma, transaction type (N, F or S and 3
 * characters), customer reference, `//` bank reference. The supplementary details on the next
 * line are not needed. The first fault is kept as the entry's problem; what was read before it
 * stays.
 */
function readStatementLine(s: string, e: EntryState): void {
  const where = `entry ${e.index} (:61: on line ${e.line})`;
  const fail = (why: string) => {
    e.problem ??= `${where}: ${why}`;
  };
  const value = s.slice(0, 6);
  if (!/^\d{6}$/.test(value)) {
    fail(`the value date "${clip(value)}" is not YYMMDD`);
    return;
  }
  let p = 6;
  let entryDate: string | null = null;
  if (/^\d{4}/.test(s.slice(p, p + 4))) {
    entryDate = s.slice(p, p + 4);
    p += 4;
  } else if (s.slice(p, p + 4) === '    ') p += 4; // an entry date left blank
  else if (isDigit(s[p])) {
    fail(`the entry date "${clip(s.slice(p, p + 4))}" is not MMDD`);
    return;
  }

  const two = s.slice(p, p + 2);
  if (two === 'RC' || two === 'RD' || two === 'EC' || two === 'ED') {
    e.mark = two;
    p += 2;
  } else if (s[p] === 'C' || s[p] === 'D') {
    e.mark = s[p] as Mark;
    p += 1;
  } else {
    fail(`"${clip(s.slice(p, p + 2))}" is not a debit/credit mark (C, D, RC or RD)`);
  }

  // Dates: the booking day is the entry date, else the value date.
  const day = bookingDay(value, entryDate);
  if (typeof day === 'string') e.date = day;
  else fail(day.why);
  if (e.mark === null) return;

  // Funds code: a letter right before the amount's digits (the third letter of the currency).
  if (isLetter(s[p]) && (isDigit(s[p + 1]) || s[p + 1] === ',')) p += 1;
  const start = p;
  while (p < s.length && (isDigit(s[p]) || s[p] === ',')) p += 1;
  const amountText = s.slice(start, p);
  const amount = swiftDecimal(amountText);
  if (amount === null) {
    fail(`the amount "${clip(amountText || s.slice(start, start + 15))}" is not an amount with a decimal comma`);
  } else {
    const checked = positiveAmount(amount, AMOUNT_FRACTION_DIGITS);
    if (checked.ok) e.amount = checked.value;
    else if (new Decimal(amount).isZero()) {
      e.zero = true;
      fail(`the amount "${amountText}" is zero`);
    } else fail(`the amount "${amountText}": ${checked.why}`);
  }
  if (amount === null) return;

  // Transaction type: one letter and three characters (`NTRF`, `N062`, `FMSC`, Sberbank's `S   `).
  while (s[p] === ' ') p += 1;
  if (isLetter(s[p])) p = Math.min(s.length, p + 4);

  const rest = s.slice(p);
  const slashes = rest.indexOf('//');
  let customer: string;
  if (slashes >= 0) {
    customer = rest.slice(0, slashes);
    const bank = firstWord(rest.slice(slashes + 2));
    if (bank !== '' && bank.toUpperCase() !== 'NONREF') {
      if (bank.length > MAX_BANK_REFERENCE) fail(`the bank reference "${clip(bank)}" is longer than ${MAX_BANK_REFERENCE} characters`);
      else e.bankReference = bank;
    }
  } else {
    // SWIFT gives the customer reference 16 characters. Rabobank's old export pads it to 16 and
    // writes the counterparty's name after it on the same line; ASN Bank writes an 18-character
    // IBAN there. A reference is cut at 16 only where the 16th character is padding.
    customer = rest.length > 16 && rest[15] === ' ' ? rest.slice(0, 16) : rest;
  }
  customer = customer.trim();
  e.customerReference = customer === '' || customer.toUpperCase() === 'NONREF' ? null : customer;
}

/**
 * The booking day: the entry date MMDD in the value date's year, or the year next to it when the
 * two straddle a new year (a value date of 31 December booked on 2 January, or the reverse);
 * without an entry date, the value date. Value dates may be 30 February (German banks date
 * interest so); only the date used must be a calendar date.
 */
function bookingDay(value: string, entry: string | null): string | { why: string } {
  const yy = Number(value.slice(0, 2));
  const year = yy < 70 ? 2000 + yy : 1900 + yy;
  if (entry === null) return calendarDate(value) ?? { why: `the value date "${value}" is not a calendar date` };
  const valueMonth = Number(value.slice(2, 4));
  const valueDay = Number(value.slice(4, 6));
  if (valueMonth < 1 || valueMonth > 12 || valueDay < 1 || valueDay > 31) return { why: `the value date "${value}" is not a date YYMMDD` };
  const month = Number(entry.slice(0, 2));
  const day = Number(entry.slice(2, 4));
  const valueTime = Date.UTC(year, valueMonth - 1, valueDay);
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const y of [year - 1, year, year + 1]) {
    const date = isoDate(y, month, day);
    if (date === null) continue;
    const distance = Math.abs(Date.parse(`${date}T00:00:00Z`) - valueTime);
    if (distance < bestDistance) {
      best = date;
      bestDistance = distance;
    }
  }
  return best ?? { why: `the entry date "${entry}" is not a calendar date` };
}

/** YYMMDD as `YYYY-MM-DD` (years 70–99 are 19xx, 00–69 20xx), or null when it is no calendar date. */
function calendarDate(text: string): string | null {
  if (!/^\d{6}$/.test(text)) return null;
  const yy = Number(text.slice(0, 2));
  return isoDate(yy < 70 ? 2000 + yy : 1900 + yy, Number(text.slice(2, 4)), Number(text.slice(4, 6)));
}

function isoDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const at = new Date(Date.UTC(year, month - 1, day));
  if (at.getUTCMonth() !== month - 1) return null;
  return at.toISOString().slice(0, 10);
}

/**
 * A SWIFT amount (`1234,56`, `500,`, `0,5`, and `500` as Knab writes it) as a plain decimal
 * (`1234.56`), or null. The integer part must have a digit; there is at most one comma.
 */
function swiftDecimal(text: string): string | null {
  if (!/^\d+(,\d*)?$/.test(text) || text.length > 32) return null;
  const [whole, fraction = ''] = text.split(',');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

// ---------------------------------------------------------------------------------------------
// The `:86:` information to the account owner

/**
 * The payer and the remittance text from the `:86:` lines, in the three forms banks write:
 *  - the German structure of the DFÜ agreement (`166?00GUTSCHRIFT?20…?32…?33…`), also with `>`
 *    (Triodos): `?20`–`?29` and `?60`–`?63` are the purpose in 27-character pieces, `?32`+`?33`
 *    the counterparty's name; a SEPA purpose keeps only its `SVWZ+` text;
 *  - the slash form (`/EREF/…/ORDP//NAME/…/REMI/…`, ING's `/CNTP/account/BIC/name/city/`);
 *  - free text, which is the reference whole.
 * The counterparty is the payer only of money in (`C`, `RD`, `EC`): of a debit it is the payee.
 */
function information(lines: readonly string[], moneyIn: boolean): { payer: string | null; reference: string | null } {
  if (lines.length === 0) return { payer: null, reference: null };
  // Structured forms are cut at the line width anywhere, even inside a code: join them as written.
  const joined = lines.join('').trim();
  const german = germanStructure(joined);
  if (german !== null) return { payer: moneyIn ? german.payer : null, reference: german.reference };
  const slash = slashStructure(joined);
  if (slash !== null) return { payer: moneyIn ? slash.payer : null, reference: slash.reference };
  return { payer: null, reference: tidy(freeText(lines)) };
}

function germanStructure(text: string): { payer: string | null; reference: string | null } | null {
  let sep: string;
  if (/^\d{3}[?>]\d\d/.test(text)) sep = text[3];
  else if (/^[?>]\d\d/.test(text)) sep = text[0];
  else return null;
  const purpose: string[] = [];
  const name: string[] = [];
  let i = text.indexOf(sep);
  while (i >= 0 && i < text.length) {
    const code = text.slice(i + 1, i + 3);
    let next = i + 3;
    // The next subfield starts at the separator followed by two digits.
    for (;;) {
      next = text.indexOf(sep, next);
      if (next < 0 || /^\d\d$/.test(text.slice(next + 1, next + 3))) break;
      next += 1;
    }
    const value = text.slice(i + 3, next < 0 ? text.length : next);
    if (/^\d\d$/.test(code)) {
      const n = Number(code);
      if ((n >= 20 && n <= 29) || (n >= 60 && n <= 63)) purpose.push(value);
      else if (n === 32 || n === 33) name.push(value);
    }
    i = next;
  }
  const text20 = purpose.join('');
  let reference = text20;
  const svwz = text20.indexOf('SVWZ+');
  if (svwz >= 0) {
    reference = text20.slice(svwz + 5);
    const ends = ['ABWA+', 'ABWE+'].map((k) => reference.indexOf(k)).filter((k) => k >= 0);
    if (ends.length > 0) reference = reference.slice(0, Math.min(...ends));
  }
  return { payer: tidy(name.join('')), reference: tidy(reference) };
}

function slashStructure(text: string): { payer: string | null; reference: string | null } | null {
  if (text[0] !== '/') return null;
  // The codes and what follows each, up to the next code. `i` is always at a slash; each step
  // moves it to a later slash, so the scan is linear.
  const parts: { code: string; value: string }[] = [];
  let open: { code: string; start: number } | null = null;
  let i = 0;
  while (i >= 0) {
    const end = text.indexOf('/', i + 1);
    if (end < 0) break;
    const code = text.slice(i + 1, end);
    if (code.length <= 9 && SLASH_CODES.has(code)) {
      if (open !== null) parts.push({ code: open.code, value: text.slice(open.start, i) });
      open = { code, start: end + 1 };
      // The next code starts at the next slash after this one's closing slash: at once for
      // `/ORDP//NAME/`, whose party value is empty.
      i = text.indexOf('/', end + 1);
    } else {
      if (open === null) return null; // text before any code: not the slash form
      i = end;
    }
  }
  if (open === null) return null;
  parts.push({ code: open.code, value: text.slice(open.start) });

  let owner: string | null = null;
  let ordpName: string | null = null;
  let ordpOwn: string | null = null;
  let counterparty: string | null = null;
  let freeName: string | null = null;
  let remittance: string | null = null;
  let creditorRef: string | null = null;
  for (const { code, value } of parts) {
    if (SLASH_PARTIES.has(code)) {
      owner = code;
      if (code === 'ORDP' && ordpOwn === null) ordpOwn = partyName(value);
    } else if (code === 'NAME') {
      const name = tidy(value.replace(/^\/+|\/+$/g, ''));
      if (owner === 'ORDP') ordpName ??= name;
      else if (owner === null) freeName ??= name;
      owner = null;
    } else if (code === 'CNTP') {
      counterparty ??= partyName(value);
    } else if (code === 'REMI') {
      remittance ??= remittanceText(value);
    } else if (code === 'CDTRREF') {
      creditorRef ??= tidy(value.replace(/^\/+|\/+$/g, ''));
    }
  }
  return { payer: ordpOwn ?? ordpName ?? counterparty ?? freeName, reference: remittance ?? creditorRef };
}

/**
 * A party's own value: a name alone (`/ORDP/ACME LTD/`), or ING's `account/BIC/name/city`, of
 * which the name is the third piece (and may be empty).
 */
function partyName(value: string): string | null {
  if (!value.includes('/')) return tidy(value);
  return tidy(value.split('/')[2] ?? '');
}

/** `/REMI/` text: `USTD//text/` (unstructured), `STRD/CUR/RF…/` (a creditor reference), or plain. */
function remittanceText(value: string): string | null {
  let v = value.replace(/^\/+/, '');
  if (v.startsWith('USTD')) v = v.slice(4);
  else if (v.startsWith('STRD/CUR/')) v = v.slice(9);
  return tidy(v.replace(/^\/+|\/+$/g, ''));
}

/**
 * Free text lines joined: a line that filled the SWIFT width of 65 characters with text to its
 * last column was cut by width (ASN's `Betaling aan I` / `CS 9999…`), so the next line follows
 * it directly; any other line ends a word.
 */
function freeText(lines: readonly string[]): string {
  let out = '';
  let previous: string | null = null;
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (previous === null) out = line;
    else out += previous.length >= LINE_WIDTH && previous[LINE_WIDTH - 1] !== ' ' ? line : ` ${line}`;
    previous = line;
  }
  return out;
}

/** Runs of white space as one space, trimmed; null when nothing is left. */
function tidy(text: string): string | null {
  let out = '';
  let space = false;
  for (const ch of text) {
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') space = true;
    else {
      if (space && out !== '') out += ' ';
      space = false;
      out += ch;
    }
  }
  return out === '' ? null : out;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

/** `:20:` → `20`, `:60F:` → `60F`, `:NS:` → `NS`; null for any other line. */
function tagOf(text: string): string | null {
  if (text[0] !== ':') return null;
  if (text.startsWith(':NS:')) return 'NS';
  if (!isDigit(text[1]) || !isDigit(text[2])) return null;
  if (text[3] === ':') return text.slice(1, 3);
  if (text[3] >= 'A' && text[3] <= 'Z' && text[4] === ':') return text.slice(1, 4);
  return null;
}

/** Drops the control characters that frame messages (SOH before, ETX after, SUB at the end) and a CR. */
function stripControls(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isControl(text.charCodeAt(start))) start += 1;
  while (end > start && isControl(text.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** C0 controls but the tab, which banks leave inside `:86:` text. */
function isControl(code: number): boolean {
  return code < 0x20 && code !== 0x09;
}

function firstWord(text: string): string {
  const t = text.trim();
  const space = t.search(/\s/);
  return space < 0 ? t : t.slice(0, space);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && ch >= 'A' && ch <= 'Z';
}
