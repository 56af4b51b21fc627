/**
 * ISO 20022 bank-to-customer cash management messages, read as a stream with saxes: account
 * reports (camt.052, `BkToCstmrAcctRpt/Rpt`), statements (camt.053, `BkToCstmrStmt/Stmt`) and
 * debit/credit notifications (camt.054, `BkToCstmrDbtCdtNtfctn/Ntfctn`), versions 001.02 to
 * 001.13. The three share their section (`Rpt`/`Stmt`/`Ntfctn`) and entry (`Ntry`) structures.
 *
 * Only the state of the section being read (its account, balances and sums) and of the entry
 * being read (its fields and transactions) is kept: an entry is turned into `StatementEntry`s
 * when its `</Ntry>` is read and then dropped, so a 50 MiB file costs the memory of its largest
 * entry, not of the file.
 *
 * The element paths read are the same in every version but these, checked against the
 * published schemas. Both shapes are read in every version: they cannot be mistaken for each
 * other, and keying them on the namespace would lose the status or payer of a file whose bank
 * writes one version's shapes under another version's namespace.
 *  - `Ntry/Sts` is a code (`<Sts>BOOK</Sts>`, EntryStatus2Code) up to 001.07 and a choice
 *    (`<Sts><Cd>BOOK</Cd></Sts>` or `<Sts><Prtry>…</Prtry></Sts>`, EntryStatus1Choice) from 001.08;
 *  - the debtor is `RltdPties/Dbtr/Nm` up to 001.07 and `RltdPties/Dbtr/Pty/Nm` from 001.08
 *    (Party40Choice, whose other branch `Dbtr/Agt` is the debtor's bank, not the payer);
 *  - `TxDtls/Amt` exists from 001.03; 001.02 has `TxDtls/AmtDtls/TxAmt/Amt` only.
 */
import { Decimal } from 'decimal.js';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { bookingDate, bookingDateTime, clip, currencyCode, positiveAmount, SectionTally, signedAmount, type BookingTime } from './fields.js';
import {
  statementProblem,
  type EntryKind,
  type StatementBalance,
  type StatementEntry,
  type StatementFormat,
  type StatementInvalidError,
  type StatementReader,
  type StatementSection,
  type StatementSummaryOfFile,
} from './types.js';

/** `urn:iso:std:iso:20022:tech:xsd:camt.053.001.08`: message and version, checked against the lists below. */
const CAMT_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.(\d{3})\.001\.(\d{2})$/;
/** 001.01 was the first generation, with other element names (`BkToCstmrAcctRptV01`); 001.13 is the newest read. */
const FIRST_VERSION = 2;
const LAST_VERSION = 13;

const MESSAGES = {
  '052': { format: 'camt.052', message: 'BkToCstmrAcctRpt', section: 'Rpt' },
  '053': { format: 'camt.053', message: 'BkToCstmrStmt', section: 'Stmt' },
  '054': { format: 'camt.054', message: 'BkToCstmrDbtCdtNtfctn', section: 'Ntfctn' },
} as const satisfies Record<string, { format: StatementFormat; message: string; section: string }>;

/** camt amounts have up to 5 fraction digits (`ActiveOrHistoricCurrencyAndAmount`). */
const CAMT_FRACTION_DIGITS = 5;
/**
 * The deepest element the reader reads is 9 levels below the root
 * (`Document/…/Stmt/Ntry/NtryDtls/TxDtls/RltdPties/Dbtr/Pty/Nm`); supplementary data may nest
 * further. The bound stops a hostile file from growing the element stack.
 */
const MAX_DEPTH = 100;
/**
 * The longest text the reader keeps from one element. ISO texts are at most 140 characters
 * (`Max140Text`; `AddtlNtryInf` 500); 4096 leaves room for banks that overfill them and stops a
 * hostile file from growing one string.
 */
const MAX_TEXT = 4096;

interface Located {
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

interface AmountText extends Located {
  /** The `Ccy` attribute, or null when it is missing. */
  readonly currency: string | null;
}

interface TxState {
  /** 1-based within its entry. */
  readonly number: number;
  readonly line: number;
  readonly column: number;
  acctSvcrRef: string | null;
  endToEndId: string | null;
  txId: string | null;
  amount: AmountText | null; // TxDtls/Amt (001.03 on)
  txAmount: AmountText | null; // TxDtls/AmtDtls/TxAmt/Amt
  payer: string | null;
  readonly unstructured: string[];
  readonly creditorRefs: string[];
}

interface EntryState {
  /** 1-based position of the `<Ntry>` in the file, as people count entries in the file. */
  readonly number: number;
  readonly line: number;
  readonly column: number;
  ntryRef: string | null;
  acctSvcrRef: string | null;
  amount: AmountText | null;
  creditDebit: Located | null;
  reversal: Located | null;
  /** `Sts` (001.02–001.07) or `Sts/Cd` (001.08 on); `Sts/Prtry` is kept as `Prtry:<code>`, which is never booked. */
  status: string | null;
  bookingDate: Located | null;
  bookingDateTime: Located | null;
  valueDate: Located | null;
  valueDateTime: Located | null;
  readonly txs: TxState[];
  /** The first problem met while reading the entry's elements (a text over the limit). */
  fault: string | null;
}

interface BalanceState {
  code: string | null;
  amount: AmountText | null;
  creditDebit: string | null;
  date: Located | null;
  dateTime: Located | null;
}

interface SectionState {
  /** 1-based among the file's sections. */
  readonly number: number;
  readonly depth: number;
  account: string | null;
  from: string | null;
  to: string | null;
  /** The first balance of each type the reader uses (`OPBD`, `PRCD`, `CLBD`). */
  readonly balances: Map<string, StatementBalance>;
  readonly tally: SectionTally;
  entries: number;
}

interface Frame {
  /** Local name in the message's namespace; null for an element of another namespace and all below it. */
  readonly local: string | null;
  /** Text kept for this element, or null when the reader does not need it. */
  text: string | null;
  readonly line: number;
  readonly column: number;
  readonly currency: string | null;
}

/** What an amount element reads as. */
interface Money {
  /** The positive 2-place amount, or null. */
  readonly amount: string | null;
  readonly currency: string | null;
  /** What the amount adds to the section's sums: the amount, or `0.00` for a zero (readable, though no entry amount). */
  readonly sum: string | null;
  readonly problem: string | null;
}

const SECTION_FIELDS = new Set(['Acct/Id/IBAN', 'Acct/Id/Othr/Id', 'FrToDt/FrDtTm', 'FrToDt/ToDtTm']);
const BALANCE_FIELDS = new Set(['Tp/CdOrPrtry/Cd', 'Amt', 'CdtDbtInd', 'Dt/Dt', 'Dt/DtTm']);
const ENTRY_FIELDS = new Set([
  'NtryRef',
  'Amt',
  'CdtDbtInd',
  'RvslInd',
  'Sts',
  'Sts/Cd',
  'Sts/Prtry',
  'BookgDt/Dt',
  'BookgDt/DtTm',
  'ValDt/Dt',
  'ValDt/DtTm',
  'AcctSvcrRef',
]);
const TX_FIELDS = new Set([
  'Refs/AcctSvcrRef',
  'Refs/EndToEndId',
  'Refs/TxId',
  'Amt',
  'AmtDtls/TxAmt/Amt',
  'RltdPties/Dbtr/Nm',
  'RltdPties/Dbtr/Pty/Nm',
  'RmtInf/Ustrd',
  'RmtInf/Strd/CdtrRefInf/Ref',
]);
/** Balance types read: opening booked, else the previous statement's closing; closing booked. */
const BALANCE_TYPES = new Set(['OPBD', 'PRCD', 'CLBD']);

/**
 * A push reader of camt.052, camt.053 and camt.054: `write` text as it arrives, `take` the
 * entries read so far, `close` at the end, then `summary`. `write` and `close` throw
 * `StatementInvalidError` for a file that is no camt message; an entry that cannot be read is
 * an entry with a `problem`.
 */
export class CamtReader implements StatementReader {
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private readonly path: Frame[] = [];
  private namespace: string | null = null;
  private format: StatementFormat | null = null;
  private version: string | null = null;
  private messageName = '';
  private sectionName = '';
  private sawMessage = false;
  private sawContent = false;
  private closed = false;

  private sectionCount = 0;
  private section: SectionState | null = null;
  private balanceDepth = -1;
  private balance: BalanceState | null = null;
  private entryCount = 0;
  private entryDepth = -1;
  private entry: EntryState | null = null;
  private txDepth = -1;
  private tx: TxState | null = null;

  private index = 0;
  private pending: StatementEntry[] = [];
  private readonly sections: StatementSection[] = [];

  constructor() {
    const p = this.parser;
    p.on('error', (err) => {
      throw this.problem(`the file is not well-formed XML: ${err.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')}`);
    });
    // saxes never loads a DTD, so an external entity is never fetched; a DOCTYPE is refused
    // outright, since no ISO 20022 message has one and internal entities would only add risk.
    p.on('doctype', () => {
      throw this.problem('a DOCTYPE is not accepted in a statement');
    });
    p.on('opentag', (tag) => this.openElement(tag));
    p.on('closetag', () => this.closeElement());
    p.on('text', (text) => this.addText(text));
    p.on('cdata', (text) => this.addText(text));
  }

  write(text: string): void {
    if (!this.sawContent && /\S/.test(text)) this.sawContent = true;
    this.parser.write(text);
  }

  /** Ends the document; throws when it is incomplete or no camt message at all. */
  close(): void {
    if (!this.sawContent) throw this.problem('the file is empty');
    this.parser.close();
    if (this.namespace === null) throw this.problem('the file has no root element');
    if (!this.sawMessage) throw this.problem(`the file has no <${this.messageName}> inside <Document>`);
    this.closed = true;
  }

  take(): StatementEntry[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  summary(): StatementSummaryOfFile {
    if (!this.closed || this.format === null) throw new Error('summary() is known only after close()');
    return { format: this.format, version: this.version, sections: [...this.sections] };
  }

  // -------------------------------------------------------------------------------------------
  // Events

  private openElement(tag: SaxesTagNS): void {
    const depth = this.path.length;
    if (depth >= MAX_DEPTH) throw this.problem(`elements are nested deeper than ${MAX_DEPTH} levels`);
    if (depth === 0) this.openRoot(tag);
    const parentOurs = depth === 0 || this.path[depth - 1].local !== null;
    const local = parentOurs && tag.uri === this.namespace ? tag.local : null;
    const frame: Frame = {
      local,
      text: null,
      line: this.parser.line,
      column: this.parser.column,
      currency: local === 'Amt' ? (tag.attributes.Ccy?.value ?? null) : null,
    };
    this.path.push(frame);
    if (local === null) return;

    const section = this.section;
    if (depth === 1) {
      if (local !== this.messageName) {
        throw this.problem(`<Document> holds <${local}>, expected <${this.messageName}> for a ${this.format}`);
      }
      this.sawMessage = true;
    } else if (depth === 2 && local === this.sectionName) {
      this.sectionCount += 1;
      this.section = {
        number: this.sectionCount,
        depth,
        account: null,
        from: null,
        to: null,
        balances: new Map(),
        tally: new SectionTally(),
        entries: 0,
      };
    } else if (section !== null && depth === section.depth + 1 && local === 'Ntry') {
      this.openEntry(section, depth, frame);
    } else if (section !== null && depth === section.depth + 1 && local === 'Bal') {
      this.balanceDepth = depth;
      this.balance = { code: null, amount: null, creditDebit: null, date: null, dateTime: null };
    } else if (this.entry !== null && this.tx === null && this.relative(this.entryDepth) === 'NtryDtls/TxDtls') {
      this.txDepth = depth;
      this.tx = {
        number: this.entry.txs.length + 1,
        line: frame.line,
        column: frame.column,
        acctSvcrRef: null,
        endToEndId: null,
        txId: null,
        amount: null,
        txAmount: null,
        payer: null,
        unstructured: [],
        creditorRefs: [],
      };
    }
    if (this.wanted()) frame.text = '';
  }

  private openRoot(tag: SaxesTagNS): void {
    const m = CAMT_NAMESPACE.exec(tag.uri);
    const message = m ? MESSAGES[m[1] as keyof typeof MESSAGES] : undefined;
    const version = m ? Number(m[2]) : 0;
    if (tag.local !== 'Document' || !message || version < FIRST_VERSION || version > LAST_VERSION) {
      const ns = tag.uri ? ` in namespace ${tag.uri}` : ' without a namespace';
      throw this.problem(
        `the root element is <${tag.local}>${ns}; a statement is a camt.052, camt.053 or camt.054 <Document>, versions 001.02 to 001.13`,
      );
    }
    this.namespace = tag.uri;
    this.format = message.format;
    this.version = `001.${m![2]}`;
    this.messageName = message.message;
    this.sectionName = message.section;
  }

  private openEntry(section: SectionState, depth: number, frame: Frame): void {
    this.entryCount += 1;
    section.entries += 1;
    if (section.account === null) {
      throw this.problem(`${this.sectionName} ${section.number} has no account (Acct/Id/IBAN or Acct/Id/Othr/Id) before its entries`, {
        element: `${this.sectionName}/Acct`,
      });
    }
    this.entryDepth = depth;
    this.entry = {
      number: this.entryCount,
      line: frame.line,
      column: frame.column,
      ntryRef: null,
      acctSvcrRef: null,
      amount: null,
      creditDebit: null,
      reversal: null,
      status: null,
      bookingDate: null,
      bookingDateTime: null,
      valueDate: null,
      valueDateTime: null,
      txs: [],
      fault: null,
    };
  }

  private addText(text: string): void {
    const frame = this.path.at(-1);
    if (!frame || frame.text === null) return;
    if (frame.text.length + text.length <= MAX_TEXT) {
      frame.text += text;
      return;
    }
    // Past the limit the element is dropped. Inside an entry only that entry is unreadable;
    // elsewhere (the account, a balance, a period) the file cannot be read for what it says.
    frame.text = null;
    const message = `<${frame.local}> holds more than ${MAX_TEXT} characters (line ${frame.line}, column ${frame.column})`;
    if (this.entry !== null) this.entry.fault ??= `Ntry ${this.entry.number}: ${message}`;
    else throw this.problem(`<${frame.local}> holds more than ${MAX_TEXT} characters`, { element: this.elementPath() });
  }

  private closeElement(): void {
    const depth = this.path.length - 1;
    const frame = this.path[depth];
    if (frame.text !== null) this.field(frame, frame.text.trim());
    if (depth === this.txDepth) {
      this.entry!.txs.push(this.tx!);
      this.tx = null;
      this.txDepth = -1;
    } else if (depth === this.entryDepth) {
      this.finishEntry(this.section!, this.entry!);
      this.entry = null;
      this.entryDepth = -1;
    } else if (depth === this.balanceDepth) {
      this.finishBalance(this.section!, this.balance!);
      this.balance = null;
      this.balanceDepth = -1;
    } else if (this.section !== null && depth === this.section.depth) {
      this.finishSection(this.section);
      this.section = null;
    }
    this.path.pop();
  }

  // -------------------------------------------------------------------------------------------
  // Fields

  /** The path of the open element below the element at `depth`, e.g. `NtryDtls/TxDtls`. */
  private relative(depth: number): string {
    return this.path
      .slice(depth + 1)
      .map((f) => f.local)
      .join('/');
  }

  /** Whether the element just opened is one whose text the reader keeps. */
  private wanted(): boolean {
    if (this.tx !== null) return TX_FIELDS.has(this.relative(this.txDepth));
    if (this.entry !== null) return ENTRY_FIELDS.has(this.relative(this.entryDepth));
    if (this.balance !== null) return BALANCE_FIELDS.has(this.relative(this.balanceDepth));
    if (this.section !== null) return SECTION_FIELDS.has(this.relative(this.section.depth));
    return false;
  }

  private field(frame: Frame, text: string): void {
    // An empty element says nothing: `<NtryRef/>` is no reference, `<Amt Ccy="EUR"/>` no amount.
    if (text === '') return;
    const located = { text, line: frame.line, column: frame.column };
    if (this.tx !== null) {
      const tx = this.tx;
      switch (this.relative(this.txDepth)) {
        case 'Refs/AcctSvcrRef':
          tx.acctSvcrRef ??= text;
          break;
        case 'Refs/EndToEndId':
          tx.endToEndId ??= text;
          break;
        case 'Refs/TxId':
          tx.txId ??= text;
          break;
        case 'Amt':
          tx.amount ??= { ...located, currency: frame.currency };
          break;
        case 'AmtDtls/TxAmt/Amt':
          tx.txAmount ??= { ...located, currency: frame.currency };
          break;
        case 'RltdPties/Dbtr/Nm':
        case 'RltdPties/Dbtr/Pty/Nm':
          tx.payer ??= text;
          break;
        case 'RmtInf/Ustrd':
          tx.unstructured.push(text);
          break;
        case 'RmtInf/Strd/CdtrRefInf/Ref':
          tx.creditorRefs.push(text);
          break;
      }
      return;
    }
    if (this.entry !== null) {
      const e = this.entry;
      switch (this.relative(this.entryDepth)) {
        case 'NtryRef':
          e.ntryRef ??= text;
          break;
        case 'AcctSvcrRef':
          e.acctSvcrRef ??= text;
          break;
        case 'Amt':
          e.amount ??= { ...located, currency: frame.currency };
          break;
        case 'CdtDbtInd':
          e.creditDebit ??= located;
          break;
        case 'RvslInd':
          e.reversal ??= located;
          break;
        case 'Sts':
          // From 001.08 <Sts><Cd>BOOK</Cd></Sts>: the outer element then has no text of its own.
          e.status ??= text;
          break;
        case 'Sts/Cd':
          e.status ??= text;
          break;
        case 'Sts/Prtry':
          e.status ??= `Prtry:${text}`;
          break;
        case 'BookgDt/Dt':
          e.bookingDate ??= located;
          break;
        case 'BookgDt/DtTm':
          e.bookingDateTime ??= located;
          break;
        case 'ValDt/Dt':
          e.valueDate ??= located;
          break;
        case 'ValDt/DtTm':
          e.valueDateTime ??= located;
          break;
      }
      return;
    }
    if (this.balance !== null) {
      const b = this.balance;
      switch (this.relative(this.balanceDepth)) {
        case 'Tp/CdOrPrtry/Cd':
          b.code ??= text;
          break;
        case 'Amt':
          b.amount ??= { ...located, currency: frame.currency };
          break;
        case 'CdtDbtInd':
          b.creditDebit ??= text;
          break;
        case 'Dt/Dt':
          b.date ??= located;
          break;
        case 'Dt/DtTm':
          b.dateTime ??= located;
          break;
      }
      return;
    }
    if (this.section !== null) {
      const s = this.section;
      switch (this.relative(s.depth)) {
        case 'Acct/Id/IBAN':
        case 'Acct/Id/Othr/Id':
          s.account ??= text;
          break;
        case 'FrToDt/FrDtTm':
          s.from ??= dayOf(text);
          break;
        case 'FrToDt/ToDtTm':
          s.to ??= dayOf(text);
          break;
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Entries

  private finishEntry(section: SectionState, e: EntryState): void {
    const where = `Ntry ${e.number}`;
    const account = section.account!;

    let direction: 'CRDT' | 'DBIT' | null = null;
    let fault = e.fault;
    if (e.creditDebit === null) fault ??= `${where} has no CdtDbtInd (line ${e.line}, column ${e.column})`;
    else if (e.creditDebit.text === 'CRDT' || e.creditDebit.text === 'DBIT') direction = e.creditDebit.text;
    else fault ??= `${where}: CdtDbtInd "${clip(e.creditDebit.text)}" is neither CRDT nor DBIT${at(e.creditDebit)}`;

    const money = readMoney(e.amount, where, 'Amt', e);
    fault ??= money.problem;
    const time = entryTime(e, where);
    fault ??= time.problem;

    // Absent `Sts` is booked: camt.054 notifications and some banks' statements leave it out.
    const booked = e.status === null || e.status === 'BOOK';
    const reversed = e.reversal !== null && (e.reversal.text === 'true' || e.reversal.text === '1');

    // The balance check needs every booked entry, reversal or not, by its Ntry amount.
    if (booked) {
      if (direction !== null && money.sum !== null) {
        if (direction === 'CRDT') section.tally.credit(money.sum);
        else section.tally.debit(money.sum);
      } else section.tally.unreadable();
      section.tally.day(time.day);
    }

    // A reversal (RvslInd) is money going back: a CRDT one undoes a debit, a DBIT one a credit.
    // Neither is a payment received or sent, so both are `other`.
    let kind: EntryKind = 'other';
    if (booked && !reversed && direction === 'CRDT') kind = 'credit';
    else if (booked && !reversed && direction === 'DBIT') kind = 'debit';

    if (kind === 'credit' && time.value === null) {
      fault ??= `${where} is a booked credit without a booking date or value date (BookgDt, ValDt) (line ${e.line}, column ${e.column})`;
    }
    const base = {
      kind,
      account,
      receivedAt: time.value?.receivedAt ?? null,
      dateOnly: time.value?.dateOnly ?? false,
    };

    if (kind === 'credit' && e.txs.length >= 2) {
      // A batch booked as one entry: each transaction is a payment of its own amount.
      for (const tx of e.txs) {
        const txWhere = `${where}, TxDtls ${tx.number}`;
        const own = tx.amount ?? tx.txAmount;
        const txMoney: Money =
          own === null
            ? { amount: null, currency: null, sum: null, problem: `${txWhere} has no amount (Amt or AmtDtls/TxAmt/Amt) (line ${tx.line}, column ${tx.column})` }
            : readMoney(own, txWhere, tx.amount ? 'Amt' : 'AmtDtls/TxAmt/Amt', own);
        this.emit({
          ...base,
          amount: txMoney.amount,
          currency: txMoney.currency,
          payer: tx.payer,
          reference: remittance(tx),
          bankReference: tx.acctSvcrRef ?? e.acctSvcrRef,
          sourceId: e.ntryRef ?? transactionRef(tx),
          problem: fault ?? txMoney.problem,
        });
      }
      return;
    }

    // One entry: the Ntry amount, with what its only transaction (if just one) tells.
    const tx = e.txs.length === 1 ? e.txs[0] : null;
    this.emit({
      ...base,
      amount: money.amount,
      currency: money.currency,
      payer: tx?.payer ?? null,
      reference: tx ? remittance(tx) : null,
      bankReference: tx?.acctSvcrRef ?? e.acctSvcrRef,
      sourceId: e.ntryRef ?? (tx ? transactionRef(tx) : null),
      problem: fault,
    });
  }

  private emit(entry: Omit<StatementEntry, 'index'>): void {
    this.index += 1;
    this.pending.push({ index: this.index, ...entry });
  }

  // -------------------------------------------------------------------------------------------
  // Balances and sections

  /**
   * Keeps the first `OPBD`, `PRCD` and `CLBD` balance of the section. A balance whose amount
   * cannot be read is taken as not stated: the balance check then says nothing rather than
   * something false.
   */
  private finishBalance(section: SectionState, b: BalanceState): void {
    if (b.code === null || !BALANCE_TYPES.has(b.code) || section.balances.has(b.code) || b.amount === null) return;
    const value = signedAmount(b.amount.text, CAMT_FRACTION_DIGITS);
    if (!value.ok) return;
    // CdtDbtInd is mandatory for a balance, but some banks leave it out of positive balances
    // (seen in Lithuanian camt.053.001.08); a wrong guess shows as an inconsistent check.
    let amount = new Decimal(value.value);
    if (b.creditDebit === 'DBIT') amount = amount.negated();
    else if (b.creditDebit !== null && b.creditDebit !== 'CRDT') return;
    const currency = b.amount.currency === null ? null : currencyCode(b.amount.currency);
    const date = b.date !== null ? (bookingDate(b.date.text).ok ? b.date.text : null) : b.dateTime !== null ? dayOf(b.dateTime.text) : null;
    section.balances.set(b.code, {
      amount: amount.isZero() ? '0.00' : amount.toFixed(2),
      currency: currency?.ok ? currency.value : null,
      date,
    });
  }

  private finishSection(s: SectionState): void {
    // A section without an account holds no entries (an entry before the account throws): it
    // says nothing about any account and is left out.
    if (s.account === null) return;
    this.sections.push(
      s.tally.section({
        account: s.account,
        from: s.from,
        to: s.to,
        opening: s.balances.get('OPBD') ?? s.balances.get('PRCD') ?? null,
        closing: s.balances.get('CLBD') ?? null,
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Failures

  private elementPath(): string {
    return this.path.map((f) => f.local ?? '*').join('/');
  }

  private problem(message: string, where: { entry?: number; element?: string } = {}): StatementInvalidError {
    const line = this.parser.line;
    const column = this.parser.column;
    return statementProblem(`${message} (line ${line}, column ${column})`, { ...where, line, column });
  }
}

/** ` (line 12, column 9)`, where a field was found. */
function at(l: { line: number; column: number }): string {
  return ` (line ${l.line}, column ${l.column})`;
}

/**
 * An amount element as money. A zero amount is no entry amount (amounts are positive) but is
 * readable, so it still adds nothing to the sums instead of making them unknown.
 */
function readMoney(a: AmountText | null, where: string, element: string, missing: { line: number; column: number }): Money {
  if (a === null) return { amount: null, currency: null, sum: null, problem: `${where} has no ${element}${at(missing)}` };
  const value = positiveAmount(a.text, CAMT_FRACTION_DIGITS);
  let problem: string | null = null;
  let amount: string | null = null;
  let sum: string | null = null;
  if (value.ok) {
    amount = value.value;
    sum = value.value;
  } else {
    problem = `${where}: ${element} ${value.why}${at(a)}`;
    const zero = signedAmount(a.text, CAMT_FRACTION_DIGITS);
    if (zero.ok && /^\d/.test(a.text) && new Decimal(zero.value).isZero()) sum = '0.00';
  }
  let currency: string | null = null;
  if (a.currency === null) {
    problem ??= `${where}: ${element} has no Ccy attribute${at(a)}`;
    sum = null;
  } else {
    const code = currencyCode(a.currency);
    if (code.ok) currency = code.value;
    else {
      problem ??= `${where}: ${element} Ccy ${code.why}${at(a)}`;
      sum = null;
    }
  }
  return { amount, currency, sum, problem };
}

/**
 * When the money moved: the booking date-time, else the booking date, else the value date
 * (some banks give only that), and the day it stands for in the section's period. A date-time
 * without a zone is the bank's local time, whose instant is unknown: its date stands alone.
 */
function entryTime(e: EntryState, where: string): { value: BookingTime | null; day: string | null; problem: string | null } {
  const choices: [Located | null, string, boolean][] = [
    [e.bookingDateTime, 'BookgDt/DtTm', true],
    [e.bookingDate, 'BookgDt/Dt', false],
    [e.valueDateTime, 'ValDt/DtTm', true],
    [e.valueDate, 'ValDt/Dt', false],
  ];
  for (const [source, element, withTime] of choices) {
    if (source === null) continue;
    const time = withTime ? bookingDateTime(source.text, 'date') : bookingDate(source.text);
    if (!time.ok) return { value: null, day: null, problem: `${where}: ${element} ${time.why}${at(source)}` };
    return { value: time.value, day: source.text.slice(0, 10), problem: null };
  }
  return { value: null, day: null, problem: null };
}

/** The day (`YYYY-MM-DD`) a date-time or date is written for, in the bank's own time; null when it is neither. */
function dayOf(text: string): string | null {
  const day = text.slice(0, 10);
  if (text.length === 10) return bookingDate(text).ok ? text : null;
  return bookingDateTime(text, 'date').ok ? day : null;
}

/** How the payer's side named the transaction: `EndToEndId` unless `NOTPROVIDED`, else `TxId`. */
function transactionRef(tx: TxState): string | null {
  const endToEnd = tx.endToEndId;
  return (endToEnd && endToEnd.toUpperCase() !== 'NOTPROVIDED' ? endToEnd : null) ?? tx.txId;
}

/** `Ustrd` lines joined by a space, else the structured creditor references, else null. */
function remittance(tx: TxState): string | null {
  if (tx.unstructured.length > 0) return tx.unstructured.join(' ');
  if (tx.creditorRefs.length > 0) return tx.creditorRefs.join(' ');
  return null;
}
