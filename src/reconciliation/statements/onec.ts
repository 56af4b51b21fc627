/**
 * The 1C:Enterprise client-bank exchange file (`1CClientBankExchange`), as Russian banks (and
 * many Kazakh ones) export statements for 1C: «Формат обмена данными между системой «Клиент
 * банка» и программами 1С:Предприятие», versions 1.01–1.03, published by 1C at
 * https://v8.1c.ru/tekhnologii/obmen-dannymi-i-integratsiya/standarty-i-formaty/standart-obmena-s-sistemami-klient-banka/formaty-obmena/
 * (formerly http://v8.1c.ru/edi/edi_stnd/100/101.htm). The key names below were checked against
 * that table and against two independent implementations that copy it field by field
 * (Xini1/client-bank-exchange, Java; kilylabs/client-bank-exchange-php).
 *
 * Why a reader of our own: npm has no package for the format (`npm view` of `1c-client-bank`,
 * `client-bank-exchange`, `1cclientbankexchange`, `1c-exchange`, `client-bank` and
 * `1c-bank-statement` all answer 404 in 2026-11); the maintained parsers are PHP (kilylabs),
 * Python (odoo-ru/client-bank-1c), Go (dronm/clbnk) and Java, all of which read the whole file
 * into memory. The format is simple enough to read line by line.
 *
 * The file: text (the caller decodes it: `Кодировка=Windows` is windows-1251, `DOS` is cp866,
 * some banks write UTF-8), lines ending CRLF or LF, the first line `1CClientBankExchange`, then
 * `Key=Value` lines:
 *
 *   header      ВерсияФормата, Кодировка, Отправитель, Получатель, ДатаСоздания, ДатаНачала,
 *               ДатаКонца, РасчСчет (one line per account the file covers)
 *   СекцияРасчСчет … КонецРасчСчет, one per account (some banks: one per account and day):
 *               ДатаНачала, ДатаКонца, РасчСчет, НачальныйОстаток, ВсегоПоступило,
 *               ВсегоСписано, КонечныйОстаток
 *   СекцияДокумент=<kind> … КонецДокумента, one per payment: Номер, Дата, Сумма,
 *               ПлательщикСчет, ДатаСписано (day debited from the payer's account), Плательщик,
 *               Плательщик1, ПолучательСчет, ДатаПоступило (day credited to the recipient's
 *               account), Получатель1, НазначениеПлатежа (and НазначениеПлатежа1…6), …
 *   КонецФайла
 *
 * Dates are `DD.MM.YYYY`, amounts `1000.00` (a comma is accepted too). A document carries no
 * direction of its own: like 1C itself, the reader compares its accounts with the file's own
 * (the sections' `РасчСчет`, else the header's). Money to one of them is a credit on it, money
 * from one of them a debit, anything else (a document about an account the file does not cover)
 * is `other`.
 *
 * Leniencies, each seen in published bank files:
 *  - keys are matched without regard to case: Halyk and Jusan (Kazakhstan) write `РАСЧСЧЕТ`,
 *    `СЕКЦИЯРАСЧСЧЕТ`, `НАЧАЛЬНЫЙОСТАТОК`;
 *  - the Kazakh variant (`ВерсияФормата=2.00`, 1С:Бухгалтерия для Казахстана; Kaspi, BCC,
 *    Jusan) names a document's fields `НомерДокумента`, `ДатаДокумента`, `ДатаОперации`,
 *    `СуммаПриход`/`СуммаРасход`, `ПлательщикИИК`/`ПолучательИИК`, `ПлательщикНаименование`:
 *    they are read as `Номер`, `Дата`, the booking day, `Сумма`, the accounts and the payer;
 *  - a payment through a correspondent account names the customer's account in
 *    `ПлательщикРасчСчет`/`ПолучательРасчСчет`: those are compared with the file's accounts too.
 *
 * Memory: the reader keeps the current line (at most 64 KiB), the few fields it uses of the
 * current document, and per account section its stated values and sums; nothing grows with the
 * number of documents.
 */
import { SectionTally, clip, currencyCode, positiveAmount, signedAmount, type Checked } from './fields.js';
import {
  statementProblem,
  type EntryKind,
  type StatementBalance,
  type StatementEntry,
  type StatementReader,
  type StatementSection,
  type StatementSummaryOfFile,
} from './types.js';

const FIRST_LINE = '1CClientBankExchange';
/** The longest line read. The widest real field, `НазначениеПлатежа`, holds 210 characters; 64 KiB leaves room for any bank's extension. */
export const ONEC_MAX_LINE = 64 * 1024;
/** Accounts named in the header; a real file names one to a few dozen. */
const MAX_HEADER_ACCOUNTS = 10_000;
/** Account sections; one per account and day for a year over 50 accounts is 18 250. */
const MAX_SECTIONS = 50_000;
/** (account, day) sums of documents whose section has not been read yet (see `bucket`). */
const MAX_PENDING_DAYS = 100_000;
/** 1C writes 2 decimal places; the reader reads no more than that (nothing here rounds money). */
const PLACES = 2;

/**
 * ISO 4217 numeric codes as the 6th–8th digits of a Russian account number carry them (Bank of
 * Russia chart of accounts, Положение 809-П: `40702 810 …` is a rouble account, `40702 840 …` a
 * dollar one; 810 is the pre-1998 rouble code the chart keeps). Codes of the currencies Russian
 * and Kazakh banks keep accounts in; any other code falls to the default below.
 */
const NUMERIC_CURRENCIES: Readonly<Record<string, string>> = {
  '810': 'RUB',
  '643': 'RUB',
  '840': 'USD',
  '978': 'EUR',
  '156': 'CNY',
  '398': 'KZT',
  '933': 'BYN',
  '051': 'AMD',
  '417': 'KGS',
  '860': 'UZS',
  '972': 'TJS',
  '944': 'AZN',
  '981': 'GEL',
  '826': 'GBP',
  '756': 'CHF',
  '392': 'JPY',
  '344': 'HKD',
  '949': 'TRY',
  '784': 'AED',
  '356': 'INR',
};
/**
 * The currency of an account that states none. The format was made for rouble accounts (1C
 * exchanges foreign-currency accounts through other documents) and names no currency anywhere,
 * so: a Russian 20-digit account number says its currency in digits 6–8; a Kazakh IBAN (`KZ…`)
 * does not, and its default is the tenge; anything else is taken as roubles, the format's own.
 */
const DEFAULT_CURRENCY = 'RUB';
const KAZAKH_CURRENCY = 'KZT';

const RUSSIAN_ACCOUNT = /^\d{20}$/;
/** `D.M.YYYY`/`DD.MM.YYYY`, optionally followed by a time that is ignored (`01.06.2023 0:00:00`). */
const DAY_MONTH_YEAR = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?: [\d:]{1,8})?$/;

/** Upper-cased keys the reader uses, with the spelling used in messages. */
const K = {
  version: 'ВЕРСИЯФОРМАТА',
  account: 'РАСЧСЧЕТ',
  from: 'ДАТАНАЧАЛА',
  to: 'ДАТАКОНЦА',
  opening: 'НАЧАЛЬНЫЙОСТАТОК',
  closing: 'КОНЕЧНЫЙОСТАТОК',
  currency: 'ВАЛЮТА',
  currencyCode: 'КОДВАЛЮТЫ',
} as const;
const MARK = {
  sectionStart: 'СЕКЦИЯРАСЧСЧЕТ',
  sectionEnd: 'КОНЕЦРАСЧСЧЕТ',
  documentStart: 'СЕКЦИЯДОКУМЕНТ',
  documentEnd: 'КОНЕЦДОКУМЕНТА',
  fileEnd: 'КОНЕЦФАЙЛА',
} as const;
const KNOWN_KEYS = new Set<string>([...Object.values(K), ...Object.values(MARK)]);

/** Document fields read, by upper-cased key, each with the spelling used in messages. */
const DOCUMENT_FIELDS = new Map<string, string>(
  [
    'Номер',
    'НомерДокумента',
    'Дата',
    'ДатаДокумента',
    'Сумма',
    'СуммаПриход',
    'СуммаРасход',
    'ПлательщикСчет',
    'ПлательщикРасчСчет',
    'ПлательщикИИК',
    'Плательщик1',
    'Плательщик',
    'ПлательщикНаименование',
    'ПолучательСчет',
    'ПолучательРасчСчет',
    'ПолучательИИК',
    'ДатаПоступило',
    'ДатаСписано',
    'ДатаОперации',
    'НазначениеПлатежа',
    'НазначениеПлатежа1',
    'НазначениеПлатежа2',
    'НазначениеПлатежа3',
    'НазначениеПлатежа4',
    'НазначениеПлатежа5',
    'НазначениеПлатежа6',
  ].map((name) => [name.toUpperCase(), name]),
);

/** A document field found under one of several names (`Сумма` or `СуммаПриход`), with the name, for messages. */
type Field = { readonly name: string; readonly value: string } | null;

interface DocumentState {
  /** 1-based entry index. */
  readonly index: number;
  readonly line: number;
  /** The `СекцияДокумент` value (`Платежное поручение`, `Банковский ордер`, …), for messages. */
  readonly kind: string;
  /** Non-empty values of the fields read, by their spelling in `DOCUMENT_FIELDS`; the first occurrence wins. */
  readonly fields: Map<string, string>;
  /** A line of the document that could not be read (too long), which makes it unreadable. */
  lineProblem: string | null;
}

interface SectionFields {
  readonly number: number;
  readonly line: number;
  readonly values: Map<string, { value: string; line: number }>;
}

interface Section {
  readonly account: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly opening: string | null;
  readonly closing: string | null;
  /** The currency the section states, checked; null when it states none. */
  readonly currency: Checked<string> | null;
  readonly tally: SectionTally;
}

type State = 'start' | 'header' | 'section' | 'document' | 'end';

/**
 * A push reader of one `1CClientBankExchange` file. `write` and `close` throw
 * `StatementInvalidError` for a file that is no 1C statement; a document that cannot be read is
 * an entry with a `problem`.
 */
export class OneCReader implements StatementReader {
  private state: State = 'start';
  private lineNumber = 0;
  /** The unfinished last line of what was written so far. */
  private partial = '';
  /** The unfinished line is longer than `ONEC_MAX_LINE`: the rest of it is dropped. */
  private partialTooLong = false;
  private sawText = false;
  private recognisedKeys = 0;

  private version: string | null = null;
  private readonly headerAccounts = new Set<string>();
  /** The header's accounts and the sections' accounts: a document is a credit or debit when it names one. */
  private readonly ownAccounts = new Set<string>();
  private readonly headerValues = new Map<string, { value: string; line: number }>();
  private readonly sections: Section[] = [];
  private readonly sectionsByAccount = new Map<string, Section[]>();
  private sectionFields: SectionFields | null = null;
  private document: DocumentState | null = null;
  private entryCount = 0;
  private pending: StatementEntry[] = [];
  /** Sums of booked documents whose account has no section covering their day yet, by account and day. */
  private readonly pendingDays = new Map<string, { account: string; day: string | null; tally: SectionTally }>();
  private summaryOfFile: StatementSummaryOfFile | null = null;

  write(text: string): void {
    if (this.summaryOfFile) throw new Error('the reader is closed');
    let from = 0;
    for (;;) {
      const end = text.indexOf('\n', from);
      if (end < 0) break;
      const piece = text.slice(from, end);
      if (this.partialTooLong || this.partial.length + piece.length > ONEC_MAX_LINE) this.tooLongLine();
      else this.line(this.partial + piece);
      this.partial = '';
      this.partialTooLong = false;
      from = end + 1;
    }
    const rest = text.slice(from);
    if (this.partialTooLong) return;
    if (this.partial.length + rest.length > ONEC_MAX_LINE) {
      this.partial = '';
      this.partialTooLong = true;
      // Outside a document a line this long ends the file at once, not when its newline comes.
      if (this.state !== 'document' && this.state !== 'end') this.tooLongLine(this.lineNumber + 1);
      return;
    }
    this.partial += rest;
  }

  take(): StatementEntry[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  close(): void {
    if (this.summaryOfFile) return;
    if (this.partialTooLong) this.tooLongLine();
    else if (this.partial !== '') this.line(this.partial);
    this.partial = '';
    this.partialTooLong = false;

    if (this.state === 'start') throw statementProblem(this.sawText ? `the file does not begin with ${FIRST_LINE}` : 'the file is empty');
    // A file read in the wrong encoding has its first line (Latin) right and every key garbled.
    if (this.recognisedKeys === 0) throw this.noAccount();
    if (this.state === 'section') {
      const s = this.sectionFields!;
      throw this.fault(`the file ends inside СекцияРасчСчет ${s.number} (line ${s.line}): КонецРасчСчет is missing`, 'КонецРасчСчет');
    }
    if (this.state === 'document') {
      const d = this.document!;
      throw this.fault(`the file ends inside document ${d.index} (line ${d.line}): КонецДокумента is missing`, 'КонецДокумента', d.index);
    }
    if (this.state !== 'end') throw this.fault('the file ends without КонецФайла: it may have been cut short', 'КонецФайла');
    if (this.sections.length === 0 && this.headerAccounts.size === 0) throw this.noAccount();

    const headerFrom = this.headerDate(K.from);
    const headerTo = this.headerDate(K.to);
    // A file without account sections (a bank that writes none) has the header's accounts as
    // its sections, without balances; a file with sections gets one for a header account only
    // when documents were booked on it and it has no section of its own.
    const headerOnly: Section[] = [];
    const booked = new Set([...this.pendingDays.values()].map((p) => p.account));
    for (const account of this.headerAccounts) {
      if (this.sectionsByAccount.has(account)) continue;
      if (this.sections.length > 0 && !booked.has(account)) continue;
      const section: Section = { account, from: headerFrom, to: headerTo, opening: null, closing: null, currency: this.headerCurrency(), tally: new SectionTally() };
      headerOnly.push(section);
      this.sectionsByAccount.set(account, [section]);
    }
    for (const { account, day, tally } of this.pendingDays.values()) addTally(this.sectionFor(account, day, true)!.tally, tally);
    this.pendingDays.clear();

    this.summaryOfFile = {
      format: '1c',
      version: this.version,
      sections: [...this.sections, ...headerOnly].map((s) => summaryOf(s)),
    };
  }

  summary(): StatementSummaryOfFile {
    if (!this.summaryOfFile) throw new Error('summary() is only known after close()');
    return this.summaryOfFile;
  }

  // -------------------------------------------------------------------------------------------
  // Lines

  private line(raw: string): void {
    this.lineNumber += 1;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.state === 'start') {
      const first = text.replace(/^\uFEFF/, '').trim();
      if (first === '' && !this.sawText) return; // leading blank lines (before any text) are not the first line
      this.sawText = true;
      if (first !== FIRST_LINE) {
        throw this.fault(`the file does not begin with ${FIRST_LINE} (its first line is "${clip(first)}")`, FIRST_LINE);
      }
      this.state = 'header';
      return;
    }
    if (this.state === 'end') return; // anything after КонецФайла is not part of the exchange
    const trimmed = text.trim();
    if (trimmed === '') return;
    const eq = trimmed.indexOf('=');
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim().toUpperCase();
    const value = eq < 0 ? '' : trimmed.slice(eq + 1).trim();
    if (KNOWN_KEYS.has(key) || DOCUMENT_FIELDS.has(key)) this.recognisedKeys += 1;

    switch (this.state) {
      case 'header':
        return this.headerLine(key, value);
      case 'section':
        return this.sectionLine(key, value);
      case 'document':
        return this.documentLine(key, value);
    }
  }

  /** A line longer than `ONEC_MAX_LINE` (`at` when it has not ended yet): a document's problem, else a broken file. */
  private tooLongLine(at?: number): void {
    if (at === undefined) this.lineNumber += 1;
    const line = at ?? this.lineNumber;
    const why = `line ${line} is longer than ${ONEC_MAX_LINE} characters`;
    if (this.state === 'document') {
      this.document!.lineProblem ??= why;
      return;
    }
    if (this.state === 'end') return;
    if (this.state === 'start') throw statementProblem(`the file does not begin with ${FIRST_LINE}: ${why}`, { line });
    throw statementProblem(`${why}, which no 1C exchange file has`, { line });
  }

  private headerLine(key: string, value: string): void {
    switch (key) {
      case MARK.sectionStart:
        if (this.sections.length >= MAX_SECTIONS) throw this.fault(`the file has more than ${MAX_SECTIONS} account sections`, 'СекцияРасчСчет');
        this.sectionFields = { number: this.sections.length + 1, line: this.lineNumber, values: new Map() };
        this.state = 'section';
        return;
      case MARK.documentStart:
        this.entryCount += 1;
        this.document = { index: this.entryCount, line: this.lineNumber, kind: clip(value, 60), fields: new Map(), lineProblem: null };
        this.state = 'document';
        return;
      case MARK.fileEnd:
        this.state = 'end';
        return;
      case MARK.sectionEnd:
      case MARK.documentEnd:
        throw this.fault(`${key === MARK.sectionEnd ? 'КонецРасчСчет' : 'КонецДокумента'} without the section it ends`, key);
      case K.account:
        if (value === '' || this.headerAccounts.has(value)) return;
        if (this.headerAccounts.size >= MAX_HEADER_ACCOUNTS) throw this.fault(`the header names more than ${MAX_HEADER_ACCOUNTS} accounts`, 'РасчСчет');
        this.headerAccounts.add(value);
        this.ownAccounts.add(value);
        return;
      case K.version:
        if (value !== '') this.version ??= value;
        return;
      case K.from:
      case K.to:
      case K.currency:
      case K.currencyCode:
        if (value !== '' && !this.headerValues.has(key)) this.headerValues.set(key, { value, line: this.lineNumber });
        return;
    }
  }

  private sectionLine(key: string, value: string): void {
    const s = this.sectionFields!;
    switch (key) {
      case MARK.sectionEnd:
        this.finishSection(s);
        this.sectionFields = null;
        this.state = 'header';
        return;
      case MARK.sectionStart:
      case MARK.documentStart:
      case MARK.documentEnd:
      case MARK.fileEnd:
        throw this.fault(`СекцияРасчСчет ${s.number} (line ${s.line}) is not closed by КонецРасчСчет before line ${this.lineNumber}`, 'КонецРасчСчет', undefined, false);
      case K.account:
      case K.from:
      case K.to:
      case K.opening:
      case K.closing:
      case K.currency:
      case K.currencyCode:
        if (value !== '' && !s.values.has(key)) s.values.set(key, { value, line: this.lineNumber });
        return;
    }
  }

  private documentLine(key: string, value: string): void {
    const d = this.document!;
    switch (key) {
      case MARK.documentEnd:
        this.finishDocument(d);
        this.document = null;
        this.state = 'header';
        return;
      case MARK.sectionStart:
      case MARK.sectionEnd:
      case MARK.documentStart:
      case MARK.fileEnd:
        throw this.fault(`document ${d.index} (line ${d.line}) is not closed by КонецДокумента before line ${this.lineNumber}`, 'КонецДокумента', d.index, false);
    }
    const name = DOCUMENT_FIELDS.get(key);
    if (name !== undefined && value !== '' && !d.fields.has(name)) d.fields.set(name, value);
  }

  // -------------------------------------------------------------------------------------------
  // Account sections

  private finishSection(s: SectionFields): void {
    const where = `СекцияРасчСчет ${s.number} (line ${s.line})`;
    const account = s.values.get(K.account)?.value;
    if (account === undefined) throw this.fault(`${where} has no РасчСчет`, 'СекцияРасчСчет/РасчСчет');
    const day = (key: string, name: string): string | null => {
      const field = s.values.get(key);
      if (!field) return null;
      const d = calendarDay(field.value);
      if (!d.ok) throw statementProblem(`${where}: ${name} ${d.why}`, { element: `СекцияРасчСчет/${name}`, line: field.line });
      return d.value;
    };
    const balance = (key: string, name: string): string | null => {
      const field = s.values.get(key);
      if (!field) return null;
      const amount = signedAmount(decimalPoint(field.value), PLACES);
      if (!amount.ok) throw statementProblem(`${where}: ${name} ${amount.why}`, { element: `СекцияРасчСчет/${name}`, line: field.line });
      return amount.value;
    };
    const stated = s.values.get(K.currency) ?? s.values.get(K.currencyCode);
    const section: Section = {
      account,
      from: day(K.from, 'ДатаНачала'),
      to: day(K.to, 'ДатаКонца'),
      opening: balance(K.opening, 'НачальныйОстаток'),
      closing: balance(K.closing, 'КонечныйОстаток'),
      currency: stated ? statedCurrency(stated.value) : this.headerCurrency(),
      tally: new SectionTally(),
    };
    this.sections.push(section);
    this.ownAccounts.add(account);
    const same = this.sectionsByAccount.get(account);
    if (same) same.push(section);
    else this.sectionsByAccount.set(account, [section]);
  }

  /**
   * The section a document of `account` booked on `day` belongs to: the one whose period covers
   * the day (files with a section per day have several per account), else, when `last` (at the
   * end of the file, when no more sections can come), the latest one starting on or before the
   * day, else the account's first. Null while no section covers the day.
   */
  private sectionFor(account: string, day: string | null, last = false): Section | null {
    const candidates = this.sectionsByAccount.get(account);
    if (!candidates) return null;
    if (day !== null) {
      const covering = candidates.find((s) => (s.from === null || s.from <= day) && (s.to === null || day <= s.to));
      if (covering) return covering;
    } else if (candidates.length === 1) {
      return candidates[0];
    }
    if (!last) return null;
    if (day !== null) {
      const before = candidates.filter((s) => s.from !== null && s.from <= day).at(-1);
      if (before) return before;
    }
    return candidates[0];
  }

  /**
   * Where a booked document is summed: its section when one is known, else a sum per account
   * and day that `close` adds to the right section (a bank may write the account sections after
   * the documents, or a document outside every section's period).
   */
  private tallyFor(account: string, day: string | null): SectionTally {
    const section = this.sectionFor(account, day);
    if (section) return section.tally;
    const key = `${account}\u0000${day ?? ''}`;
    let bucket = this.pendingDays.get(key);
    if (!bucket) {
      if (this.pendingDays.size >= MAX_PENDING_DAYS) {
        throw this.fault(`more than ${MAX_PENDING_DAYS} (account, day) pairs of documents have no account section`, 'СекцияРасчСчет');
      }
      bucket = { account, day, tally: new SectionTally() };
      this.pendingDays.set(key, bucket);
    }
    return bucket.tally;
  }

  private headerCurrency(): Checked<string> | null {
    const stated = this.headerValues.get(K.currency) ?? this.headerValues.get(K.currencyCode);
    return stated ? statedCurrency(stated.value) : null;
  }

  private headerDate(key: string): string | null {
    const field = this.headerValues.get(key);
    if (!field) return null;
    const d = calendarDay(field.value);
    const name = key === K.from ? 'ДатаНачала' : 'ДатаКонца';
    if (!d.ok) throw statementProblem(`the header's ${name} ${d.why}`, { element: name, line: field.line });
    return d.value;
  }

  /**
   * The currency of entries booked on `account`: what its section (or the header) states, else
   * what the account number says, else the default (see `DEFAULT_CURRENCY`).
   */
  private currencyOf(account: string): Checked<string> {
    const stated = this.sectionsByAccount.get(account)?.find((s) => s.currency !== null)?.currency ?? this.headerCurrency();
    if (stated) return stated;
    if (RUSSIAN_ACCOUNT.test(account)) {
      const fromNumber = NUMERIC_CURRENCIES[account.slice(5, 8)];
      if (fromNumber) return { ok: true, value: fromNumber };
    }
    if (/^KZ/i.test(account)) return { ok: true, value: KAZAKH_CURRENCY };
    return { ok: true, value: DEFAULT_CURRENCY };
  }

  // -------------------------------------------------------------------------------------------
  // Documents into entries

  private finishDocument(d: DocumentState): void {
    const own = this.ownAccounts;
    if (own.size === 0) {
      throw statementProblem(
        `document ${d.index} (line ${d.line}) comes before any account: the file names no РасчСчет in its header or in a СекцияРасчСчет before it`,
        { entry: d.index, element: 'РасчСчет', line: d.line },
      );
    }
    const f = d.fields;
    const ours = (names: readonly string[]): string | null => {
      for (const name of names) {
        const account = f.get(name);
        if (account !== undefined && own.has(account)) return account;
      }
      return null;
    };
    // Money to one of the file's accounts is a credit even when it comes from another of them
    // (a transfer between own accounts): the entry is the credit, and the payer account's debit
    // is not summed, so a file holding both accounts of such a transfer once may not balance.
    const recipient = ours(['ПолучательСчет', 'ПолучательРасчСчет', 'ПолучательИИК']);
    const payerAccount = recipient === null ? ours(['ПлательщикСчет', 'ПлательщикРасчСчет', 'ПлательщикИИК']) : null;
    const kind: EntryKind = recipient !== null ? 'credit' : payerAccount !== null ? 'debit' : 'other';
    const account = recipient ?? payerAccount;

    const number = first(f, ['Номер', 'НомерДокумента']);
    const label = `document ${d.index} (${d.kind || 'СекцияДокумент'}${number ? ` № ${clip(number.value, 30)}` : ''}, line ${d.line})`;
    const problems: string[] = [];
    if (d.lineProblem) problems.push(d.lineProblem);

    const amountField = first(f, ['Сумма', 'СуммаПриход', 'СуммаРасход']);
    let amount: string | null = null;
    if (amountField === null) problems.push('has no Сумма');
    else {
      const checked = positiveAmount(decimalPoint(amountField.value), PLACES);
      if (checked.ok) amount = checked.value;
      else problems.push(`${amountField.name} ${checked.why}`);
    }

    const dateField = first(f, ['Дата', 'ДатаДокумента']);
    const documentDay = dateField ? calendarDay(dateField.value) : null;
    if (documentDay && !documentDay.ok) problems.push(`${dateField!.name} ${documentDay.why}`);
    // The day the money moved on the file's account: credited (ДатаПоступило) for a credit,
    // debited (ДатаСписано) for a debit; the document's own date when the bank leaves it out.
    const bookingNames =
      kind === 'credit'
        ? ['ДатаПоступило', 'ДатаОперации']
        : kind === 'debit'
          ? ['ДатаСписано', 'ДатаОперации']
          : ['ДатаПоступило', 'ДатаСписано', 'ДатаОперации'];
    const bookingField = first(f, bookingNames);
    let day: string | null = null;
    if (bookingField) {
      const checked = calendarDay(bookingField.value);
      if (checked.ok) day = checked.value;
      else problems.push(`${bookingField.name} ${checked.why}`);
    } else if (documentDay?.ok) {
      day = documentDay.value;
    } else if (kind === 'credit' && !documentDay) {
      problems.push('is a credit without a date (ДатаПоступило or Дата)');
    }

    let currency: string | null = null;
    if (account !== null) {
      const checked = this.currencyOf(account);
      if (checked.ok) currency = checked.value;
      else problems.push(`is booked on account ${account}, whose stated currency ${checked.why}`);
    }

    if (account !== null && kind !== 'other') {
      const tally = this.tallyFor(account, day);
      if (amount === null) tally.unreadable();
      else if (kind === 'credit') tally.credit(amount);
      else tally.debit(amount);
      tally.day(day);
    }

    // The bank's name of a 1C document is its number with its date: numbers restart every year
    // (and per payer), so the number alone names nothing.
    const bankReference = number && documentDay?.ok ? `${number.value}/${documentDay.value}` : null;
    const payer = first(f, ['Плательщик1', 'Плательщик', 'ПлательщикНаименование']);
    this.pending.push({
      index: d.index,
      kind,
      account,
      amount,
      currency,
      receivedAt: day === null ? null : `${day}T00:00:00.000Z`,
      dateOnly: day !== null,
      payer: payer ? payer.value : null,
      reference: purpose(f),
      bankReference,
      sourceId: bankReference ?? number?.value ?? null,
      problem: problems.length > 0 ? `${label}${sentence(problems[0])}` : null,
    });
  }

  // -------------------------------------------------------------------------------------------
  // Failures

  /** A whole-file fault at the current line; `say` adds the line to the message when it does not name it already. */
  private fault(message: string, element: string, entry?: number, say = true) {
    return statementProblem(say ? `${message} (line ${this.lineNumber})` : message, { element, entry: entry ?? null, line: this.lineNumber });
  }

  private noAccount() {
    const hint =
      this.recognisedKeys === 0
        ? '; no key of the format was recognised: is the text decoded with the encoding its Кодировка names (Windows is windows-1251, DOS is cp866)?'
        : '';
    return statementProblem(`the file names no account: no РасчСчет in its header and no СекцияРасчСчет${hint}`, { element: 'РасчСчет' });
  }
}

// ---------------------------------------------------------------------------------------------
// Values

/** The first of `names` (spelled as in `DOCUMENT_FIELDS`) the document gives. */
function first(fields: ReadonlyMap<string, string>, names: readonly string[]): Field {
  for (const name of names) {
    const value = fields.get(name);
    if (value !== undefined) return { name, value };
  }
  return null;
}

/** `НазначениеПлатежа`, else its parts `НазначениеПлатежа1`…`6` (older banks split it into lines) joined by a space. */
function purpose(fields: ReadonlyMap<string, string>): string | null {
  const whole = fields.get('НазначениеПлатежа');
  if (whole !== undefined) return whole;
  const parts = [1, 2, 3, 4, 5, 6].map((i) => fields.get(`НазначениеПлатежа${i}`)).filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(' ') : null;
}

/** `1000,50` as `1000.50`: the format writes a dot, some banks a comma. */
function decimalPoint(text: string): string {
  return text.includes('.') ? text : text.replace(',', '.');
}

/** `DD.MM.YYYY` as `YYYY-MM-DD`, refusing days that do not exist (`31.02.2026`). */
export function calendarDay(text: string): Checked<string> {
  const m = DAY_MONTH_YEAR.exec(text);
  if (!m) return { ok: false, why: `"${clip(text)}" is not a date DD.MM.YYYY` };
  const [, d, mo, y] = m;
  const day = Number(d);
  const month = Number(mo);
  const year = Number(y);
  const at = new Date(Date.UTC(year, month - 1, day));
  if (year < 1 || month < 1 || month > 12 || day < 1 || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) {
    return { ok: false, why: `"${clip(text)}" is not a day of the calendar` };
  }
  return { ok: true, value: `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}` };
}

/** A stated currency: an ISO 4217 code (`RUB`) or its number (`643`, or the chart-of-accounts `810`). */
function statedCurrency(text: string): Checked<string> {
  if (/^\d{3}$/.test(text)) {
    const code = NUMERIC_CURRENCIES[text];
    return code ? { ok: true, value: code } : { ok: false, why: `"${text}" is not a currency number this reader knows` };
  }
  const upper = currencyCode(text.toUpperCase());
  return upper.ok ? upper : currencyCode(text);
}

/** Adds the sums and days of a pending (account, day) tally to its section's. */
function addTally(into: SectionTally, from: SectionTally): void {
  const sums = from.section({ account: '', opening: null, closing: null });
  into.credit(sums.credits);
  into.debit(sums.debits);
  for (let i = 0; i < sums.unreadable; i += 1) into.unreadable();
  into.day(sums.from);
  into.day(sums.to);
}

function summaryOf(s: Section): StatementSection {
  const currency = s.currency?.ok ? s.currency.value : null;
  const balance = (amount: string | null, date: string | null): StatementBalance | null => (amount === null ? null : { amount, currency, date });
  return s.tally.section({
    account: s.account,
    from: s.from,
    to: s.to,
    opening: balance(s.opening, s.from),
    closing: balance(s.closing, s.to),
  });
}

/** The tail of `document N (…) has no Сумма` / `document N (…): Сумма "x" is not …`. */
function sentence(problem: string): string {
  return /^(has|is) /.test(problem) ? ` ${problem}` : `: ${problem}`;
}
