/**
 * ISO 20022 bank-to-customer statements (camt.053) and debit/credit notifications (camt.054),
 * versions 001.02 to 001.08, read as a stream with saxes.
 *
 * Only the state of the statement being read (its account) and of the entry being read (its
 * fields and transactions) is kept: an entry is turned into credits when its `</Ntry>` is read
 * and then dropped, so a 50 MiB file costs the memory of its largest entry, not of the file.
 *
 * Element paths used (relative to `Stmt` / `Ntfctn`, `Ntry` and `TxDtls`) are the same in every
 * version but two: `Sts` is a code (`<Sts>BOOK</Sts>`) up to 001.07 and a choice
 * (`<Sts><Cd>BOOK</Cd></Sts>`) in 001.08, and the debtor is `Dbtr/Nm` up to 001.07 and
 * `Dbtr/Pty/Nm` in 001.08. `TxDtls/Amt` exists from 001.03; 001.02 has `AmtDtls/TxAmt/Amt` only.
 */
import { createHash } from 'node:crypto';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { bookingDate, bookingDateTime, clip, currencyCode, positiveAmount, type BookingTime } from './fields.js';
import { statementProblem, type StatementCredit, type StatementFormat, type StatementInvalidError } from './types.js';

/** The namespaces accepted: `urn:iso:std:iso:20022:tech:xsd:camt.053.001.02` … `camt.054.001.08`. */
const CAMT_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.(053|054)\.001\.0([2-8])$/;

const MESSAGES = {
  '053': { format: 'camt.053', message: 'BkToCstmrStmt', report: 'Stmt' },
  '054': { format: 'camt.054', message: 'BkToCstmrDbtCdtNtfctn', report: 'Ntfctn' },
} as const;

/** camt amounts have up to 5 fraction digits (`ActiveOrHistoricCurrencyAndAmount`). */
const CAMT_FRACTION_DIGITS = 5;
/** Any plain decimal, checked on every amount of the file, credit or not. */
const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;
/**
 * The deepest path the reader follows is 11 levels (`…/TxDtls/RltdPties/Dbtr/Pty/PstlAdr/AdrLine`);
 * supplementary data may nest further. The bound stops a hostile file from growing the stack.
 */
const MAX_DEPTH = 100;
/** The longest text the reader keeps from one element (ISO texts are at most 140 or 500 characters). */
const MAX_TEXT = 4096;

/** `Refs` children read from a transaction; the first three name it, all of them feed the digest. */
const REF_NAMES = ['AcctSvcrRef', 'EndToEndId', 'TxId', 'MsgId', 'PmtInfId', 'InstrId', 'UETR', 'MndtId', 'ChqNb', 'ClrSysRef'] as const;
type RefName = (typeof REF_NAMES)[number];

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
  readonly refs: Partial<Record<RefName, string>>;
  amount: AmountText | null; // TxDtls/Amt
  txAmount: AmountText | null; // TxDtls/AmtDtls/TxAmt/Amt
  payer: string | null;
  debtorAccount: string | null;
  readonly unstructured: string[];
  readonly creditorRefs: string[];
  additionalInfo: string | null;
}

interface EntryState {
  /** 1-based, counted over the whole file. */
  readonly number: number;
  ntryRef: string | null;
  acctSvcrRef: string | null;
  amount: AmountText | null;
  creditDebit: Located | null;
  reversal: Located | null;
  /** `Sts` text (001.02–001.07) or `Sts/Cd` (001.08); `Sts/Prtry` is kept as `Prtry:<code>`. */
  status: string | null;
  bookingDate: Located | null;
  bookingDateTime: Located | null;
  valueDate: string | null;
  additionalInfo: string | null;
  readonly txs: TxState[];
}

interface Frame {
  /** Local name in the statement's namespace; null for an element of another namespace. */
  readonly local: string | null;
  /** Text kept for this element, or null when the reader does not need it. */
  text: string | null;
  readonly line: number;
  readonly column: number;
  readonly currency: string | null;
}

export interface CamtCounts {
  readonly format: StatementFormat | null;
  readonly entries: number;
  readonly skipped: number;
  readonly credits: number;
}

const STATEMENT_FIELDS = new Set(['Acct/Id/IBAN', 'Acct/Id/Othr/Id']);
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
  'AddtlNtryInf',
]);
const TX_FIELDS = new Set([
  ...REF_NAMES.map((r) => `Refs/${r}`),
  'Amt',
  'AmtDtls/TxAmt/Amt',
  'RltdPties/Dbtr/Nm',
  'RltdPties/Dbtr/Pty/Nm',
  'RltdPties/DbtrAcct/Id/IBAN',
  'RltdPties/DbtrAcct/Id/Othr/Id',
  'RmtInf/Ustrd',
  'RmtInf/Strd/CdtrRefInf/Ref',
  'AddtlTxInf',
]);

/**
 * A push reader: `write` text as it arrives, `take` the credits read so far, `close` at the end.
 * Any method throws `StatementInvalidError` at the first fault; the reader is then spent.
 */
export class CamtReader {
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private readonly path: Frame[] = [];
  private namespace: string | null = null;
  private format: StatementFormat | null = null;
  private messageName = '';
  private reportName = '';
  private sawMessage = false;
  private sawContent = false;

  private reportNumber = 0;
  private reportDepth = -1;
  private account: string | null = null;
  private entryDepth = -1;
  private entry: EntryState | null = null;
  private txDepth = -1;
  private tx: TxState | null = null;

  private entries = 0;
  private skipped = 0;
  private credits = 0;
  private pending: StatementCredit[] = [];
  /** How often each digest-named entry occurred, so identical entries in one file stay apart. */
  private readonly digestsSeen = new Map<string, number>();

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

  /** Ends the document; throws when it is incomplete or not a statement at all. */
  close(): void {
    if (!this.sawContent) throw this.problem('the file is empty');
    this.parser.close();
    if (this.namespace === null) throw this.problem('the file has no root element');
    if (!this.sawMessage) throw this.problem(`the file has no <${this.messageName}> inside <Document>`);
  }

  /** The credits read since the last call, in file order. */
  take(): StatementCredit[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  counts(): CamtCounts {
    return { format: this.format, entries: this.entries, skipped: this.skipped, credits: this.credits };
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

    if (depth === 1) {
      if (local !== this.messageName) {
        throw this.problem(`<Document> holds <${local}>, expected <${this.messageName}> for a ${this.format}`);
      }
      this.sawMessage = true;
    } else if (depth === 2 && local === this.reportName) {
      this.reportNumber += 1;
      this.reportDepth = depth;
      this.account = null;
    } else if (this.reportDepth >= 0 && depth === this.reportDepth + 1 && local === 'Ntry') {
      this.openEntry(depth);
    } else if (this.entry !== null && this.tx === null && this.relative(this.entryDepth) === 'NtryDtls/TxDtls') {
      this.txDepth = depth;
      this.tx = { refs: {}, amount: null, txAmount: null, payer: null, debtorAccount: null, unstructured: [], creditorRefs: [], additionalInfo: null };
    }
    if (this.wanted()) frame.text = '';
  }

  private openRoot(tag: SaxesTagNS): void {
    const m = CAMT_NAMESPACE.exec(tag.uri);
    if (tag.local !== 'Document' || !m) {
      const ns = tag.uri ? ` in namespace ${tag.uri}` : ' without a namespace';
      throw this.problem(
        `the root element is <${tag.local}>${ns}; a statement is a camt.053 or camt.054 <Document>, versions 001.02 to 001.08`,
      );
    }
    const message = MESSAGES[m[1] as '053' | '054'];
    this.namespace = tag.uri;
    this.format = message.format;
    this.messageName = message.message;
    this.reportName = message.report;
  }

  private openEntry(depth: number): void {
    const number = this.entries + 1;
    if (this.account === null) {
      throw this.problem(`${this.reportName} ${this.reportNumber} has no account (Acct/Id/IBAN or Acct/Id/Othr/Id) before its entries`, {
        entry: number,
        element: `${this.reportName}/Acct`,
      });
    }
    this.entryDepth = depth;
    this.entry = {
      number,
      ntryRef: null,
      acctSvcrRef: null,
      amount: null,
      creditDebit: null,
      reversal: null,
      status: null,
      bookingDate: null,
      bookingDateTime: null,
      valueDate: null,
      additionalInfo: null,
      txs: [],
    };
  }

  private addText(text: string): void {
    const frame = this.path.at(-1);
    if (!frame || frame.text === null) return;
    frame.text += text;
    if (frame.text.length > MAX_TEXT) {
      throw this.problem(`<${frame.local}> holds more than ${MAX_TEXT} characters`, { element: this.elementPath() });
    }
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
      this.finishEntry(this.entry!);
      this.entry = null;
      this.entryDepth = -1;
    } else if (depth === this.reportDepth) {
      if (this.account === null) {
        throw this.problem(`${this.reportName} ${this.reportNumber} has no account (Acct/Id/IBAN or Acct/Id/Othr/Id)`, {
          element: `${this.reportName}/Acct`,
        });
      }
      this.reportDepth = -1;
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
    if (this.reportDepth >= 0) return STATEMENT_FIELDS.has(this.relative(this.reportDepth));
    return false;
  }

  private field(frame: Frame, text: string): void {
    const located = { text, line: frame.line, column: frame.column };
    if (this.tx !== null) {
      const tx = this.tx;
      const rel = this.relative(this.txDepth);
      if (text === '') return;
      if (rel.startsWith('Refs/')) {
        const name = rel.slice(5) as RefName;
        tx.refs[name] ??= text;
      } else if (rel === 'Amt') tx.amount ??= { ...located, currency: frame.currency };
      else if (rel === 'AmtDtls/TxAmt/Amt') tx.txAmount ??= { ...located, currency: frame.currency };
      else if (rel === 'RltdPties/Dbtr/Nm' || rel === 'RltdPties/Dbtr/Pty/Nm') tx.payer ??= text;
      else if (rel.startsWith('RltdPties/DbtrAcct/')) tx.debtorAccount ??= text;
      else if (rel === 'RmtInf/Ustrd') tx.unstructured.push(text);
      else if (rel === 'RmtInf/Strd/CdtrRefInf/Ref') tx.creditorRefs.push(text);
      else if (rel === 'AddtlTxInf') tx.additionalInfo ??= text;
      return;
    }
    if (this.entry !== null) {
      const e = this.entry;
      switch (this.relative(this.entryDepth)) {
        case 'NtryRef':
          if (text) e.ntryRef ??= text;
          break;
        case 'AcctSvcrRef':
          if (text) e.acctSvcrRef ??= text;
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
          // 001.08 writes <Sts><Cd>BOOK</Cd></Sts>: the outer element then has no text of its own.
          if (text) e.status ??= text;
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
        case 'ValDt/DtTm':
          e.valueDate ??= text;
          break;
        case 'AddtlNtryInf':
          e.additionalInfo ??= text;
          break;
      }
      return;
    }
    // Acct/Id/IBAN or Acct/Id/Othr/Id of the statement.
    if (text) this.account ??= text;
  }

  // -------------------------------------------------------------------------------------------
  // Entries into credits

  private finishEntry(e: EntryState): void {
    this.entries += 1;
    const at = { entry: e.number };
    if (e.creditDebit === null) throw this.problem(`entry ${e.number} has no CdtDbtInd`, { ...at, element: 'Ntry/CdtDbtInd' });
    const direction = e.creditDebit.text;
    if (direction !== 'CRDT' && direction !== 'DBIT') {
      throw this.problemAt(e.creditDebit, `entry ${e.number}: CdtDbtInd "${clip(direction)}" is neither CRDT nor DBIT`, 'Ntry/CdtDbtInd', e.number);
    }
    if (e.amount === null) throw this.problem(`entry ${e.number} has no Amt`, { ...at, element: 'Ntry/Amt' });
    this.checkDecimal(e.amount, e.number, 'Ntry/Amt');
    for (const [i, tx] of e.txs.entries()) {
      if (tx.amount) this.checkDecimal(tx.amount, e.number, `Ntry/NtryDtls/TxDtls[${i + 1}]/Amt`);
      if (tx.txAmount) this.checkDecimal(tx.txAmount, e.number, `Ntry/NtryDtls/TxDtls[${i + 1}]/AmtDtls/TxAmt/Amt`);
    }

    const reversed = e.reversal !== null && (e.reversal.text === 'true' || e.reversal.text === '1');
    const booked = e.status === null || e.status === 'BOOK';
    if (direction !== 'CRDT' || !booked || reversed) {
      this.skipped += 1;
      return;
    }

    const time = this.bookingTime(e);
    if (e.txs.length <= 1) {
      const tx = e.txs[0] ?? null;
      const amount = this.amount(e.amount, e.number, 'Ntry/Amt');
      this.emit({
        sourceId: e.acctSvcrRef ?? e.ntryRef ?? (tx ? transactionRef(tx) : null) ?? this.digestName(e),
        account: this.account!,
        ...amount,
        ...time,
        payer: tx?.payer ?? null,
        reference: tx ? remittance(tx) : null,
        entry: e.number,
      });
      return;
    }
    const entryRef = e.acctSvcrRef ?? e.ntryRef ?? this.digestName(e);
    for (const [i, tx] of e.txs.entries()) {
      const element = `Ntry/NtryDtls/TxDtls[${i + 1}]`;
      const source = tx.amount ?? tx.txAmount;
      if (source === null) {
        throw this.problem(`entry ${e.number}: transaction ${i + 1} of ${e.txs.length} has no amount (Amt or AmtDtls/TxAmt/Amt)`, {
          entry: e.number,
          element,
        });
      }
      const amount = this.amount(source, e.number, tx.amount ? `${element}/Amt` : `${element}/AmtDtls/TxAmt/Amt`);
      this.emit({
        sourceId: transactionRef(tx) ?? `${entryRef}#${i + 1}`,
        account: this.account!,
        ...amount,
        ...time,
        payer: tx.payer,
        reference: remittance(tx),
        entry: e.number,
      });
    }
  }

  private emit(credit: StatementCredit): void {
    this.credits += 1;
    this.pending.push(credit);
  }

  private checkDecimal(amount: AmountText, entry: number, element: string): void {
    if (!DECIMAL_TEXT.test(amount.text)) {
      throw this.problemAt(amount, `entry ${entry}: ${element} "${clip(amount.text)}" is not a decimal number`, element, entry);
    }
  }

  private amount(amount: AmountText, entry: number, element: string): { amount: string; currency: string } {
    const value = positiveAmount(amount.text, CAMT_FRACTION_DIGITS);
    if (!value.ok) throw this.problemAt(amount, `entry ${entry}: ${element} ${value.why}`, element, entry);
    if (amount.currency === null) throw this.problemAt(amount, `entry ${entry}: ${element} has no Ccy attribute`, element, entry);
    const currency = currencyCode(amount.currency);
    if (!currency.ok) throw this.problemAt(amount, `entry ${entry}: ${element} Ccy ${currency.why}`, element, entry);
    return { amount: value.value, currency: currency.value };
  }

  private bookingTime(e: EntryState): BookingTime {
    const source = e.bookingDateTime ?? e.bookingDate;
    if (source === null) {
      throw this.problem(`entry ${e.number} is a booked credit without a booking date (BookgDt/DtTm or BookgDt/Dt)`, {
        entry: e.number,
        element: 'Ntry/BookgDt',
      });
    }
    const element = e.bookingDateTime ? 'Ntry/BookgDt/DtTm' : 'Ntry/BookgDt/Dt';
    const time = e.bookingDateTime ? bookingDateTime(source.text, 'date') : bookingDate(source.text);
    if (!time.ok) throw this.problemAt(source, `entry ${e.number}: ${element} ${time.why}`, element, e.number);
    return time.value;
  }

  /**
   * The name of an entry that carries no reference: a SHA-256 digest of what the bank says about
   * it, the same on every upload of the same entry. A second identical entry in the same file
   * (two equal transfers from the same payer on the same day, both without references) gets
   * `:2`, and so on, so that it is not taken for a repeat of the first.
   */
  private digestName(e: EntryState): string {
    const digest = createHash('sha256').update(canonicalEntry(this.account!, e)).digest('hex');
    const seen = (this.digestsSeen.get(digest) ?? 0) + 1;
    this.digestsSeen.set(digest, seen);
    return seen === 1 ? `sha256:${digest}` : `sha256:${digest}:${seen}`;
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

  private problemAt(at: Located, message: string, element: string, entry: number): StatementInvalidError {
    return statementProblem(`${message} (line ${at.line}, column ${at.column})`, { entry, element, line: at.line, column: at.column });
  }
}

/** A transaction's own name: `Refs/AcctSvcrRef`, else `EndToEndId` unless `NOTPROVIDED`, else `TxId`. */
function transactionRef(tx: TxState): string | null {
  const endToEnd = tx.refs.EndToEndId;
  return tx.refs.AcctSvcrRef ?? (endToEnd && endToEnd.toUpperCase() !== 'NOTPROVIDED' ? endToEnd : null) ?? tx.refs.TxId ?? null;
}

/** `Ustrd` lines joined by a space, else the structured creditor references, else null. */
function remittance(tx: TxState): string | null {
  if (tx.unstructured.length > 0) return tx.unstructured.join(' ');
  if (tx.creditorRefs.length > 0) return tx.creditorRefs.join(' ');
  return null;
}

/**
 * Everything the file says about an entry that names it, in a fixed order, as JSON: the account,
 * amount, direction, dates, texts and each transaction's references, amounts, debtor and
 * remittance. JSON keeps field boundaries unambiguous, so different entries never concatenate
 * to the same text.
 */
function canonicalEntry(account: string, e: EntryState): string {
  return JSON.stringify([
    'camt-entry-v1',
    account,
    e.amount?.text ?? null,
    e.amount?.currency ?? null,
    e.creditDebit?.text ?? null,
    e.bookingDateTime?.text ?? e.bookingDate?.text ?? null,
    e.valueDate,
    e.additionalInfo,
    e.txs.map((tx) => [
      REF_NAMES.map((r) => tx.refs[r] ?? null),
      tx.amount ? [tx.amount.text, tx.amount.currency] : null,
      tx.txAmount ? [tx.txAmount.text, tx.txAmount.currency] : null,
      tx.payer,
      tx.debtorAccount,
      tx.unstructured,
      tx.creditorRefs,
      tx.additionalInfo,
    ]),
  ]);
}
