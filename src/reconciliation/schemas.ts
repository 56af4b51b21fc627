/**
 * The shapes of the reconciliation routes' requests and answers (the reconciliation contract), for
 * validation, serialisation and the OpenAPI document.
 */
import Type from 'typebox';
import { REQUISITE_STATES } from '../domain/requisites.js';
import { PageOf } from '../schemas/admin.js';
import { Amount2, CurrencyCode, DecimalInput, docOnly, Nullable, Timestamp, Usd8 } from '../schemas/common.js';

const opt = Type.Optional;
const str = (description: string) => Type.String({ description });
const nstr = (description: string) => Nullable(Type.String({ description }));

const PaymentKeys = Type.Record(Type.String(), Nullable(Type.String()), {
  description: 'payment keys (`card`, `phone`, `account`, `iban`, `upiId`, `url`, `holder`, `bank`); at least one payable detail',
});
const AmountInput = (description: string) => DecimalInput(2, `${description}; customer currency; "0" = unbounded`);
const RequisiteState = Type.Unsafe<string>({ type: 'string', enum: [...REQUISITE_STATES], title: 'RequisiteState', description: 'only `active` requisites take new orders' });

export const CreateRequisiteBody = Type.Object(
  {
    payment: PaymentKeys,
    currency: opt(Nullable(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, one the provider serves; null = any of them', 'x-message': 'must be an ISO 4217 code' }))),
    rails: opt(Nullable(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 32, description: 'rails the provider serves; null = all of them; [] = rail-less orders only' }))),
    minAmount: opt(AmountInput('smallest order')),
    maxAmount: opt(AmountInput('largest order')),
    dailyLimit: opt(AmountInput('money per UTC day: today\'s matched credits plus the open orders\' amounts')),
    maxOpenOrders: opt(Type.Integer({ minimum: 1, maximum: 10_000, description: 'default 10' })),
    label: opt(Nullable(Type.String({ maxLength: 200 }))),
  },
  { title: 'CreateRequisiteRequest' },
);

export const PatchRequisiteBody = Type.Object(
  {
    minAmount: opt(AmountInput('smallest order')),
    maxAmount: opt(AmountInput('largest order')),
    dailyLimit: opt(AmountInput('money per UTC day')),
    maxOpenOrders: opt(Type.Integer({ minimum: 1, maximum: 10_000 })),
    label: opt(Nullable(Type.String({ maxLength: 200 }))),
    state: opt(RequisiteState),
  },
  { title: 'PatchRequisiteRequest' },
);

export const Requisite = Type.Object(
  {
    id: str('`rqs_` id'),
    providerId: Type.String(),
    payment: PaymentKeys,
    currency: Nullable(CurrencyCode),
    rails: Nullable(Type.Array(Type.String())),
    minAmount: Amount2,
    maxAmount: Amount2,
    dailyLimit: Amount2,
    maxOpenOrders: Type.Integer(),
    label: Nullable(Type.String()),
    state: RequisiteState,
    openOrders: Type.Integer({ description: 'orders Created or Payed before their expiresAt' }),
    receivedToday: { ...Amount2, description: 'matched credits received this UTC day, customer currency' },
    lastUsedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'Requisite' },
);

export const RequisiteIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description: '`rqs_` id' }) });

// ---- credits

export const CREDIT_STATUSES = ['matched', 'unmatched', 'ignored'] as const;
const CreditStatus = Type.Unsafe<string>({ type: 'string', enum: [...CREDIT_STATUSES], title: 'CreditStatus' });

export const Credit = Type.Object(
  {
    id: str('`crd_` id'),
    providerId: Type.String(),
    requisiteId: nstr('null when the account names no requisite of the provider'),
    account: str('as the sender wrote it'),
    amount: Amount2,
    currency: CurrencyCode,
    receivedAt: Timestamp,
    payer: Nullable(Type.String()),
    reference: nstr('remittance information or a UTR: what the payer\'s side wrote'),
    bankReference: nstr('the bank\'s own reference of the booking, when a statement or the sender gave one'),
    source: Type.Unsafe<string>({ type: 'string', enum: ['feed', 'statement', 'operator'] }),
    sourceId: nstr('the sender\'s id of the item (feed `transactionId`, hand entry `sourceId`); for a statement credit how the file names the entry, kept for people'),
    status: CreditStatus,
    reason: nstr('why unmatched or ignored: `unknown account`, `no order`, `ambiguous`, `amount differs`, `already paid`, or the operator\'s text'),
    orderId: Nullable(Type.String()),
    matchedBy: Nullable(Type.Unsafe<string>({ type: 'string', enum: ['reference', 'amount', 'operator'] })),
    candidates: Type.Array(Type.String(), { description: 'order ids a person should look at' }),
    difference: Nullable({ ...Amount2, description: 'credit less order, when an operator matched them although the amounts differ' }),
    createdAt: Timestamp,
  },
  { title: 'Credit' },
);
export const CreditPage = PageOf(Credit);
export const CreditWithEvidence = Type.Object(
  {
    ...Credit.properties,
    statementEntries: Type.Array(
      Type.Object({ statementId: Type.String(), index: Type.Integer(), outcome: Type.String({ description: '`new`: the entry recorded the credit; `duplicate`: it found it' }), bankReference: Nullable(Type.String()) }),
      { description: 'the statement entries that evidence the credit, oldest statement first' },
    ),
  },
  { title: 'CreditWithEvidence' },
);
export const CreditIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description: '`crd_` id' }) });

const limitQ = Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1–500, default 100', 'x-message': 'must be an integer from 1 to 500' });
export const ListCreditsQuery = Type.Object({
  status: opt(Type.Unsafe<string>({ type: 'string', enum: [...CREDIT_STATUSES] })),
  providerId: opt(Type.String()),
  requisiteId: opt(Type.String()),
  before: opt(Type.String({ description: 'the `next` of the previous page' })),
  limit: opt(limitQ),
});

const ReceivedAtInput = Type.String({ maxLength: 64, description: 'ISO 8601 with a zone; not more than 5 minutes in the future', ...docOnly({ format: 'date-time' }) });
const CreditAmountInput = Type.String({ maxLength: 32, description: 'decimal string, at most 2 places, greater than zero', examples: ['918.00'] });

export const CreateCreditBody = Type.Object(
  {
    providerId: str('`prv_` id of a pool provider'),
    account: Type.String({ minLength: 1, maxLength: 255, description: 'the requisite\'s payable detail as the bank shows it (spaces, dashes and letter case ignored)' }),
    amount: CreditAmountInput,
    currency: Type.String({ maxLength: 3, description: 'ISO 4217 code' }),
    receivedAt: ReceivedAtInput,
    payer: opt(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    reference: opt(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    bankReference: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the bank\'s own reference of the booking, when known' }))),
    sourceId: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the entry\'s id; repeating it with the same terms answers the credit already recorded, with other terms records another credit; generated when left out' }))),
  },
  { title: 'CreateCreditRequest' },
);

export const MatchCreditBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 128, description: '`ord_` id' }),
    force: opt(Type.Boolean({ description: 'match although the amounts or the requisites differ: the order completes for the money that arrived (`paidAmount`) and the difference stays on the credit' })),
  },
  { title: 'MatchCreditRequest' },
);
export const IgnoreCreditBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { title: 'IgnoreCreditRequest' });
export const IgnoreCreditsBody = Type.Object(
  {
    ids: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 500, description: '`crd_` ids' }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { title: 'IgnoreCreditsRequest' },
);
export const IgnoreCreditsResult = Type.Object(
  {
    ignored: Type.Array(Type.String(), { description: 'the credits ignored now' }),
    notIgnored: Type.Array(Type.String(), { description: 'the ids that were not unmatched credits (matched, ignored already, or unknown)' }),
  },
  { title: 'IgnoreCreditsResult' },
);

/** The feed's body: documented here, checked by the service after the signature. */
export const CreditFeedBody = Type.Object(
  {
    credits: Type.Array(
      Type.Object(
        {
          transactionId: Type.String({ minLength: 1, maxLength: 255, description: 'the sender\'s id of the item: repeated with the same terms it is answered `duplicate: true`; with other terms it is another credit, answered with the warning `TRANSACTION_ID_REUSED`' }),
          account: Type.String({ minLength: 1, maxLength: 255, description: 'the requisite\'s payable detail as the bank shows it' }),
          amount: { ...CreditAmountInput, pattern: '^\\d{1,16}(\\.\\d{1,2})?$' },
          currency: CurrencyCode,
          receivedAt: ReceivedAtInput,
          payer: opt(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
          reference: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'a UTR or the remittance text' }))),
          bankReference: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the bank\'s own reference of the booking, when the sender knows it' }))),
        },
        { title: 'FeedCredit' },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { title: 'CreditFeedRequest', description: 'checked by the service once the signature passed; one bad item refuses the whole request; at most 1 MiB' },
);

export const CreditFeedResult = Type.Object(
  {
    credits: Type.Array(
      Type.Object(
        {
          transactionId: Type.String(),
          creditId: Type.String(),
          status: CreditStatus,
          orderId: Nullable(Type.String()),
          duplicate: Type.Boolean({ description: 'the money was recorded before (this item, or a statement entry of the same terms); nothing changed now' }),
          duplicateOf: nstr('the credit a duplicate repeats'),
          warnings: Type.Array(Type.String(), { description: '`TRANSACTION_ID_REUSED`: the id came before with other terms, so this is another credit' }),
        },
        { title: 'FeedCreditResult' },
      ),
      { description: 'one per item, in order' },
    ),
  },
  { title: 'CreditFeedResult' },
);

const Day = Type.String({ description: 'YYYY-MM-DD', ...docOnly({ format: 'date' }) });
const BalanceCheck = Type.Unsafe<string>({ type: 'string', enum: ['consistent', 'inconsistent', 'not stated'], description: 'opening + credits − debits = closing over all entries, where the file states both balances' });
const Continuity = Type.Unsafe<string>({ type: 'string', enum: ['continuous', 'gap', 'first', 'not stated'], description: 'whether the opening balance continues the account\'s previous statement' });
const Gap = Nullable(Type.Object({ from: Nullable(Day), to: Nullable(Day) }, { description: 'the days missing between the previous statement and this one' }));

export const StatementSummary = Type.Object(
  {
    statementId: str('`stm_` id'),
    sameAs: nstr('the statement already recorded from the same bytes; nothing was recorded now'),
    format: Type.Unsafe<string>({ type: 'string', enum: ['camt.052', 'camt.053', 'camt.054', 'mt940', 'mt942', '1c', 'csv', 'csv-profile'] }),
    version: nstr('camt message version (`001.08`), 1C format version'),
    entries: Type.Integer({ description: 'entries of the file: credits (one per transaction of a batch), debits and the rest' }),
    credits: Type.Integer({ description: 'readable credit entries' }),
    duplicates: Type.Integer({ description: 'of them, money recorded before' }),
    matched: Type.Integer({ description: 'new credits matched to an order' }),
    unmatched: Type.Integer({ description: 'new credits waiting for a person' }),
    skipped: Type.Integer({ description: 'debits and entries that are not booked credits' }),
    unreadable: Type.Integer({ description: 'entries that could not be read: listed in `problems`' }),
    balanceCheck: BalanceCheck,
    balanceDifference: Nullable({ ...Amount2, description: 'opening + credits − debits − closing, when inconsistent' }),
    continuity: Continuity,
    gap: Gap,
    problems: Type.Array(Type.Object({ index: Type.Integer(), problem: Type.String() }), { description: 'unreadable entries, the first 100' }),
  },
  { title: 'StatementSummary' },
);

const Balance = Nullable(Type.Object({ amount: Type.String({ description: 'signed, 2 places' }), currency: Nullable(Type.String()), date: Nullable(Day) }));
const StatementSection = Type.Object(
  {
    account: Type.String(),
    from: Nullable(Day),
    to: Nullable(Day),
    opening: Balance,
    closing: Balance,
    credits: Type.String({ description: 'sum of booked credits' }),
    debits: Type.String({ description: 'sum of booked debits' }),
    unreadable: Type.Integer(),
    balanceCheck: BalanceCheck,
    difference: Nullable(Type.String()),
    continuity: Continuity,
    gap: Nullable(Type.Object({ from: Nullable(Day), to: Nullable(Day), previousStatementId: Type.String(), previousClosing: Type.String() })),
  },
  { title: 'BankStatementSection' },
);
export const Statement = Type.Object(
  {
    id: str('`stm_` id'),
    providerId: Type.String(),
    filename: Nullable(Type.String()),
    sha256: Type.String(),
    format: Type.String(),
    version: Nullable(Type.String()),
    accounts: Type.Array(Type.String()),
    periodFrom: Nullable(Day),
    periodTo: Nullable(Day),
    state: Type.Unsafe<string>({ type: 'string', enum: ['importing', 'recorded'] }),
    balanceCheck: BalanceCheck,
    balanceDifference: Nullable(Type.String()),
    continuity: Continuity,
    gap: Gap,
    sections: Type.Array(StatementSection),
    counts: Type.Object({
      entries: Type.Integer(), credits: Type.Integer(), duplicates: Type.Integer(), matched: Type.Integer(),
      unmatched: Type.Integer(), skipped: Type.Integer(), unreadable: Type.Integer(),
    }),
    uploadedBy: Type.String(),
    createdAt: Timestamp,
  },
  { title: 'BankStatement' },
);
export const StatementPage = PageOf(Statement);
export const StatementEntry = Type.Object(
  {
    index: Type.Integer(),
    kind: Type.Unsafe<string>({ type: 'string', enum: ['credit', 'debit', 'other'] }),
    account: Nullable(Type.String()),
    amount: Nullable(Amount2),
    currency: Nullable(Type.String()),
    bookingDate: Nullable(Day),
    bankReference: Nullable(Type.String()),
    sourceRef: nstr('how the file names the entry (NtryRef, end-to-end id, row id), kept for people'),
    payer: Nullable(Type.String()),
    reference: Nullable(Type.String()),
    outcome: Type.Unsafe<string>({ type: 'string', enum: ['new', 'duplicate', 'skipped', 'unreadable'] }),
    creditId: nstr('the credit the entry evidences'),
    duplicateOf: nstr('the credit recorded before, when `duplicate`'),
    problem: nstr('why it could not be read'),
  },
  { title: 'BankStatementEntry' },
);
export const StatementWithEntries = Type.Object(
  {
    ...Statement.properties,
    entries: Type.Object({ items: Type.Array(StatementEntry), hasMore: Type.Boolean(), next: Nullable(Type.Integer({ description: 'pass as `after` for the next page' })) }),
  },
  { title: 'BankStatementWithEntries' },
);
export const StatementIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description: '`stm_` id' }) });
export const ListStatementsQuery = Type.Object({
  providerId: opt(Type.String()),
  account: opt(Type.String({ maxLength: 255, description: 'an account as the bank writes it (spaces, dashes and case ignored)' })),
  before: opt(Type.String({ description: 'the `next` of the previous page' })),
  limit: opt(limitQ),
});
export const StatementEntriesQuery = Type.Object({
  after: opt(Type.Integer({ minimum: 0, description: 'the `entries.next` of the previous page' })),
  outcome: opt(Type.Unsafe<string>({ type: 'string', enum: ['new', 'duplicate', 'skipped', 'unreadable'] })),
  limit: opt(limitQ),
});

// ---- CSV profiles

const ColumnRef = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Integer({ minimum: 1, maximum: 1000 })], { description: 'a header name, or a 1-based position' });
const ProfileColumns = {
  account: opt(ColumnRef),
  amount: opt({ ...ColumnRef, description: 'signed amount: negative is money out' }),
  credit: opt({ ...ColumnRef, description: 'money in, when the bank writes credits and debits in two columns' }),
  debit: opt({ ...ColumnRef, description: 'money out' }),
  currency: opt(ColumnRef),
  receivedAt: opt(ColumnRef),
  payer: opt(ColumnRef),
  reference: opt(ColumnRef),
  bankReference: opt(ColumnRef),
};
const ProfileFields = {
  name: opt(Type.String({ minLength: 1, maxLength: 200 })),
  delimiter: opt(Type.String({ minLength: 1, maxLength: 1, description: '`,` (default), `;`, a tab or `|`' })),
  quote: opt(Nullable(Type.String({ maxLength: 1, description: '`"` (default); null: values are never quoted' }))),
  encoding: opt(Type.String({ maxLength: 40, description: '`utf-8` (default), `windows-1251`, `iso-8859-1`, …' })),
  skipRows: opt(Type.Integer({ minimum: 0, maximum: 100, description: 'lines before the header row' })),
  decimalSeparator: opt(Type.Unsafe<string>({ type: 'string', enum: ['.', ','] })),
  thousandsSeparator: opt(Nullable(Type.String({ maxLength: 1 }))),
  dateFormat: opt(Type.String({ minLength: 1, maxLength: 40, description: 'e.g. `DD.MM.YYYY`, `DD.MM.YYYY HH:mm`, `YYYY-MM-DD`' })),
  timeZone: opt(Type.String({ maxLength: 64, description: 'IANA zone the bank writes times in; `UTC` by default' })),
  columns: opt(Type.Object(ProfileColumns, { additionalProperties: false, description: 'which column holds what; the same keys may be given at the top level' })),
  fixedAccount: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the account of every row, when the file has no account column' }))),
  fixedCurrency: opt(Nullable(Type.String({ pattern: '^[A-Z]{3}$', description: 'the currency of every row, when the file has no currency column' }))),
  ...ProfileColumns,
};
export const CreateProfileBody = Type.Object({ ...ProfileFields, name: Type.String({ minLength: 1, maxLength: 200 }), dateFormat: Type.String({ minLength: 1, maxLength: 40 }) }, { title: 'CreateStatementProfileRequest', additionalProperties: false });
export const PatchProfileBody = Type.Object(ProfileFields, { title: 'PatchStatementProfileRequest', additionalProperties: false });
export const StatementProfile = Type.Object(
  {
    id: str('`csp_` id'),
    providerId: Type.String(),
    name: Type.String(),
    delimiter: Type.String(),
    quote: Nullable(Type.String()),
    encoding: Type.String(),
    skipRows: Type.Integer(),
    decimalSeparator: Type.String(),
    thousandsSeparator: Nullable(Type.String()),
    dateFormat: Type.String(),
    timeZone: Type.String(),
    columns: Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()])),
    fixedAccount: Nullable(Type.String()),
    fixedCurrency: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'StatementProfile' },
);
export const ProfileIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description: '`csp_` id' }) });

// ---- reports

const DateQ = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, 'x-message': 'must be a date YYYY-MM-DD', ...docOnly({ format: 'date' }) });

export const ReconciliationQuery = Type.Object({
  providerId: str('`prv_` id'),
  date: opt(DateQ('UTC day; today by default')),
});

const ReconciliationRow = Type.Object(
  {
    requisiteId: Nullable(Type.String()),
    ordersIssued: Type.Integer(),
    ordersCompleted: Type.Integer(),
    completedAmount: Amount2,
    credits: Type.Integer({ description: 'every credit received that day, matched or not' }),
    creditsAmount: Amount2,
    matched: Type.Integer(),
    unmatched: Type.Integer(),
    ignored: Type.Integer(),
    completedWithoutCredit: Type.Integer(),
  },
  { title: 'ReconciliationRow' },
);
export const Reconciliation = Type.Object(
  {
    providerId: Type.String(),
    date: Type.String(),
    requisites: Type.Array(ReconciliationRow),
    totals: { ...ReconciliationRow, description: 'the whole provider, credits on unknown accounts included; requisiteId null' },
    statements: Type.Array(
      Type.Object({
        id: Type.String(), filename: Nullable(Type.String()), format: Type.String(), accounts: Type.Array(Type.String()),
        periodFrom: Nullable(Type.String()), periodTo: Nullable(Type.String()),
        balanceCheck: Type.String(), balanceDifference: Nullable(Type.String()), continuity: Type.String(),
        gap: Nullable(Type.Object({ from: Nullable(Type.String()), to: Nullable(Type.String()) })),
      }),
      { description: 'the statements of the provider uploaded that day, with their balance check and continuity' },
    ),
    deviceSilences: Type.Array(
      Type.Object({
        deviceId: Type.String(),
        name: Type.String(),
        from: Type.String({ description: 'when the silence began: the last sighting plus `DEVICE_SILENCE_MINUTES`' }),
        to: Nullable(Type.String({ description: 'when the device was heard from again; null: still silent' })),
        minutes: Type.Integer({ description: 'the part of the silence inside the day (up to now while it goes on), in whole minutes' }),
      }, { title: 'DeviceSilence' }),
      { description: 'the provider\'s devices that were silent during the day (their requisites taking no new order), oldest first' },
    ),
  },
  { title: 'Reconciliation' },
);

export const MerchantStatementQuery = Type.Object({
  from: opt(DateQ('first UTC day, included; today by default')),
  to: opt(DateQ('last UTC day, included; today by default')),
});
export const MerchantStatement = Type.Object(
  {
    merchantId: Type.String(),
    from: Type.String(),
    to: Type.String(),
    currency: Type.Literal('USD'),
    openingBalance: Usd8,
    closingBalance: Usd8,
    entries: Type.Array(
      Type.Object(
        {
          at: Timestamp,
          type: Type.Unsafe<string>({ type: 'string', enum: ['credit', 'reversal', 'withdrawal'] }),
          orderId: Nullable(Type.String()),
          withdrawalId: Nullable(Type.String()),
          amountUsd: { ...Usd8, description: 'signed: negative for reversals and withdrawals' },
          balanceUsd: { ...Usd8, description: 'the balance after this entry' },
        },
        { title: 'StatementEntry' },
      ),
    ),
  },
  { title: 'MerchantStatement' },
);
