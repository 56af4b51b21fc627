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
    reference: nstr('a UTR, the bank\'s reference'),
    source: Type.Unsafe<string>({ type: 'string', enum: ['feed', 'statement', 'operator'] }),
    sourceId: str('the sender\'s transaction id; unique per provider'),
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
    sourceId: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the transaction id; repeating one answers the credit already recorded; generated when left out' }))),
  },
  { title: 'CreateCreditRequest' },
);

export const MatchCreditBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 128, description: '`ord_` id' }),
    force: opt(Type.Boolean({ description: 'match although the amounts differ: the order completes at its own amount and the difference stays on the credit' })),
  },
  { title: 'MatchCreditRequest' },
);
export const IgnoreCreditBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { title: 'IgnoreCreditRequest' });

/** The feed's body: documented here, checked by the service after the signature. */
export const CreditFeedBody = Type.Object(
  {
    credits: Type.Array(
      Type.Object(
        {
          transactionId: Type.String({ minLength: 1, maxLength: 255, description: 'the sender\'s transaction id: a repeat is answered `duplicate: true`' }),
          account: Type.String({ minLength: 1, maxLength: 255, description: 'the requisite\'s payable detail as the bank shows it' }),
          amount: { ...CreditAmountInput, pattern: '^\\d{1,16}(\\.\\d{1,2})?$' },
          currency: CurrencyCode,
          receivedAt: ReceivedAtInput,
          payer: opt(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
          reference: opt(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'a UTR or the bank\'s reference' }))),
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
          duplicate: Type.Boolean({ description: 'recorded before; nothing changed now' }),
        },
        { title: 'FeedCreditResult' },
      ),
      { description: 'one per item, in order' },
    ),
  },
  { title: 'CreditFeedResult' },
);

export const StatementSummary = Type.Object(
  {
    entries: Type.Integer({ description: '`Ntry` elements (CSV: rows)' }),
    credits: Type.Integer({ description: 'credits the file yields' }),
    duplicates: Type.Integer({ description: 'of them, recorded before' }),
    matched: Type.Integer(),
    unmatched: Type.Integer(),
    skipped: Type.Integer({ description: 'entries that are not credits' }),
  },
  { title: 'StatementSummary' },
);

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
