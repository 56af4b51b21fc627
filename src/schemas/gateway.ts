import Type, { type Static } from 'typebox';
import { MOBILE_OPERATORS } from '../domain/catalogue.js';
import { PAYMENT_KEYS } from '../domain/payment.js';
import { APPEAL_STATUSES } from '../domain/appealGuard.js';
import { EVENT_KINDS, ORDER_STATUSES as DOMAIN_ORDER_STATUSES, RESERVED_ORDER_STATUSES, SUB_STATUSES } from '../domain/orders.js';
import { Amount2, CurrencyCode, docOnly, Nullable, Percent4, Timestamp, UrlString, Usd8 } from './common.js';

const URL_MAX = 2048;
const str = (description: string) => Type.String({ description });
const nstr = (description: string) => Nullable(Type.String({ description }));

/** Every status the API may name: those orders take, and the reserved ones. */
export const ORDER_STATUSES = [...DOMAIN_ORDER_STATUSES, ...RESERVED_ORDER_STATUSES] as const;

export const OrderStatus = Type.Unsafe<(typeof ORDER_STATUSES)[number]>({
  type: 'string',
  enum: [...ORDER_STATUSES],
  title: 'OrderStatus',
  description: '`CompletedOnDispute` and `WaitingPayment` are reserved and never assigned (D18)',
});
export const OrderSubStatus = Type.Unsafe<(typeof SUB_STATUSES)[number]>({ type: 'string', enum: [...SUB_STATUSES], title: 'OrderSubStatus', description: 'for display; branch on `status`' });
export const AppealStatus = Type.Unsafe<(typeof APPEAL_STATUSES)[number]>({ type: 'string', enum: [...APPEAL_STATUSES], title: 'AppealStatus', description: '`Cancelled` is reserved' });
export const EventKind = Type.Unsafe<(typeof EVENT_KINDS)[number]>({ type: 'string', enum: [...EVENT_KINDS], title: 'EventKind' });

// ---- requests

/**
 * `POST /gw/v1/orders`. Properties are checked in this order and the first failure answers, so
 * the shape checks keep the order the API has always had; business rules with their own codes
 * (INVALID_CURRENCY, RAIL_REQUIRED, …) run after, in the spec's twelve steps.
 */
export const CreateOrderBody = Type.Object(
  {
    amount: Type.Number({
      minimum: 0.005,
      maximum: 1e15,
      description: 'customer amount in `currency`, a JSON number (a string is refused); rounded half-up to 2 decimals, and must stay above zero',
      examples: [1500.5],
      'x-message': 'must be a JSON number greater than zero after rounding to 2 decimals',
    }),
    currency: Type.Optional(nstr('ISO 4217 code, three upper-case letters; default `RUB`')),
    rail: Type.Optional(nstr('rail of the desk\'s method; may be omitted when the desk allows exactly one; absent or null for methods without rails')),
    direction: Type.Optional(
      Type.Unsafe<'In' | 'Out' | null>({
        type: ['string', 'null'],
        enum: ['In', 'Out', null],
        not: { const: 'Out' },
        description: 'always `In` (the default); `Out` answers `PAYOUTS_NOT_SUPPORTED`',
        'x-code': 'PAYOUTS_NOT_SUPPORTED',
        'x-code-detail': 'payouts are not offered; direction must be In',
        'x-message': 'must be In',
      }),
    ),
    orderRef: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'your reference; makes the call idempotent for one hour per desk', 'x-message': 'must be 1 to 255 characters' }))),
    notifyUrl: Type.Optional(
      Nullable(UrlString({ maxLength: URL_MAX, description: 'callback URL for this order; falls back to the desk\'s URL; an absolute http(s) URL to a public host, else `INVALID_CALLBACK_URL`' })),
    ),
    successUrl: Type.Optional(Nullable(UrlString({ maxLength: URL_MAX, description: 'where the payment page sends the customer after success (absolute http(s) URL)' }))),
    failUrl: Type.Optional(Nullable(UrlString({ maxLength: URL_MAX, description: 'where the payment page sends the customer after cancel or expiry (absolute http(s) URL)' }))),
    backUrl: Type.Optional(Nullable(UrlString({ maxLength: URL_MAX, description: 'back-to-shop link used when the two above are unset (absolute http(s) URL)' }))),
    operator: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        enum: [...MOBILE_OPERATORS, null],
        description: 'mobile operator; required for MobileCommerce rail `Phone`',
        'x-message': `must be one of ${MOBILE_OPERATORS.join(', ')}`,
      }),
    ),
    // The order parser refuses a targetBank that is not a string (`targetBank: must be a string`), so the schema says so too.
    targetBank: Type.Optional(Nullable(Type.String({ description: 'reserved; accepted and ignored' }))),
    lifetimeMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1440, description: 'minutes until the order expires; default 15', 'x-message': 'must be an integer from 1 to 1440' }))),
  },
  { title: 'CreateOrderRequest', description: 'An unknown field is refused (`400 VALIDATION_ERROR` naming it).' },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const CancelOrderBody = Type.Object(
  { reason: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'stored on the order as `cancelReason`' }))) },
  { title: 'CancelOrderRequest', description: 'optional: no body cancels without a reason' },
);

export const OpenAppealBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 255, description: 'the `ord_` id or your `orderRef`' }),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    evidenceUrl: Type.Optional(Nullable(Type.String({ maxLength: 4096, description: 'URL(s) the reviewer can open, separated by semicolons' }))),
  },
  { title: 'OpenAppealRequest' },
);

export const RatesQuery = Type.Object({ currency: Type.Optional(Type.String({ description: 'narrows the list to one currency', 'x-message': 'must be given once' })) });

export const EventsQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'an event id: the events after it (omit for the oldest)', 'x-message': 'must be given once' })),
  orderId: Type.Optional(Type.String({ description: 'only this order\'s events (`ord_` id or orderRef)', 'x-message': 'must be given once' })),
  delivered: Type.Optional(Type.Unsafe<'false'>({ type: 'string', enum: ['false'], description: '`false`: only events not acknowledged with 200', 'x-message': 'only delivered=false is supported' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'page size, 1–500, default 100', 'x-message': 'must be an integer from 1 to 500' })),
});

// ---- responses

const paymentKeys = Object.fromEntries(PAYMENT_KEYS.map((k) => [k, nstr(`payment detail \`${k}\`; null when the rail does not use it`)])) as Record<
  (typeof PAYMENT_KEYS)[number],
  ReturnType<typeof nstr>
>;

/**
 * What each rail fills (gateway spec, payment table), one schema per key the customer pays to. The
 * service guarantees one of these keys on every order it issued (a provider's answer without one
 * is refused, so are a pool's requisites without one); which one is the provider's, so the
 * document says `anyOf`, never a rule per rail. Document only: the serialiser sees the plain
 * object, whose eight keys are always present.
 */
const PAYABLE_BY: { key: (typeof PAYMENT_KEYS)[number]; title: string; description: string }[] = [
  { key: 'url', title: 'PaymentByUrl', description: 'a page the customer pays on: a provider\'s hosted page, and the methods without rails (BankApp, Counterparty, NationalQr)' },
  { key: 'card', title: 'PaymentByCard', description: 'a card number: rails `C2c` and `CardSchemeA`/`CardSchemeB` (with `holder` and `bank`), `WalletCombo` (with `phone` and `holder`, one recipient)' },
  { key: 'phone', title: 'PaymentByPhone', description: 'a phone number: rail `Sbp` (with `holder` and `bank`), `Phone` (Kazakhstan: with `holder` and `bank`; MobileCommerce: the number alone), `WalletCombo`' },
  { key: 'account', title: 'PaymentByAccount', description: 'a Korean bank account: rail `Account` (with `holder` and `bank`)' },
  { key: 'iban', title: 'PaymentByIban', description: 'an IBAN: rails `Iban` and `Havale` (with `holder` and `bank`)' },
  { key: 'upiId', title: 'PaymentByUpiId', description: 'a UPI id: rail `Upi` (with `holder`); the customer reports the UTR on the payment page' },
];

export const PaymentDetails = Type.Object(paymentKeys, {
  title: 'PaymentDetails',
  description: 'the details the customer pays to: every key is always present; keys the rail does not use are null, and at least one of `url`, `card`, `phone`, `account`, `iban`, `upiId` is set',
  // Inside `allOf`, so generators intersect the variants with the eight keys (`{…} & (A | B …)`) rather than offer them instead.
  ...docOnly({
    allOf: [{ anyOf: PAYABLE_BY.map(({ key, title, description }) => ({ type: 'object', title, description, required: [key], properties: { [key]: { type: 'string' } } })) }],
  }),
});

export const Settlement = Type.Object(
  { amount: Usd8, currency: Type.Literal('USD'), rate: Usd8 },
  { title: 'Settlement', description: 'USD amount at the rate captured at creation (units of `currency` per 1 USD, spread included)' },
);

const orderCreateFields = {
  id: str('`ord_` + 26 characters'),
  orderRef: nstr('your reference; always null in the create response'),
  amount: Amount2,
  currency: CurrencyCode,
  settled: Settlement,
  method: str('payment method of the cash desk'),
  rail: nstr('rail used; null for methods without rails'),
  direction: Type.Literal('In'),
  status: OrderStatus,
  payment: PaymentDetails,
  createdAt: Timestamp,
  expiresAt: Timestamp,
};

/** What every order read carries after the spec's fields (D24: fields are added, at the end). */
const orderAddedFields = {
  sandbox: Type.Boolean({
    description: 'a sandbox order: served by the sandbox provider, paid by simulation, moving sandbox money only (a test desk\'s order, or any order of a merchant not yet approved); `false` for a live order',
  }),
  payPageUrl: UrlString({
    description: 'the absolute address of the order\'s payment page, `{PUBLIC_URL}/pay/{id}`: send the customer here (the same for every method; `payment.url` is the provider\'s own page, when it has one)',
  }),
};

export const OrderCreated = Type.Object({ ...orderCreateFields, ...orderAddedFields }, { title: 'OrderCreated', description: 'the order as created; `orderRef` is always null here' });

export const OrderGetFields = {
  ...orderCreateFields,
  subStatus: OrderSubStatus,
  payerReference: nstr('the reference of the payment the customer reported on the payment page (for rail Upi, the UTR)'),
  commission: Type.Object({ rate: Percent4, amount: Usd8, currency: Type.Literal('USD') }, { title: 'Commission', description: 'zero until the order completes' }),
  credited: Type.Object({ amount: Usd8, currency: Type.Literal('USD') }, { title: 'Credited', description: 'zero until completion' }),
  cancelReason: nstr('e.g. `expired`, `appeal rejected`, or the reason given on cancel'),
  finishedAt: Nullable(Timestamp),
  description: nstr('what the order is for, as the merchant described it: the description of the payment link that created it; null for orders created through the API'),
  paidAmount: Nullable({ ...Amount2, description: 'what a completed order was paid, in `currency`: equal to `amount` when paid exactly; the money that arrived when support matched a payment of another amount to it (settled, commission and credited then follow it); null until the order completes' }),
  ...orderAddedFields,
};
export const Order = Type.Object(OrderGetFields, { title: 'Order' });

export const Appeal = Type.Object(
  {
    id: str('`apl_` + 26 characters'),
    orderId: str('the order\'s `ord_` id'),
    orderRef: nstr('the order\'s reference'),
    status: AppealStatus,
    amount: Type.Object({ value: Usd8, currency: Type.Literal('USD') }, { description: 'the order\'s settlement amount when the appeal was opened' }),
    reason: nstr('as given'),
    comment: nstr('the reviewer\'s comment'),
    slaDueAt: Timestamp,
    createdAt: Timestamp,
    resolvedAt: Nullable(Timestamp),
    evidenceUrl: nstr('as given'),
  },
  { title: 'Appeal' },
);

export const Methods = Type.Object(
  {
    method: str('the cash desk\'s method'),
    available: Type.Boolean(),
    reason: nstr('why not available: `shop inactive`, `merchant inactive`, the platform\'s stop reason, or `no provider currently offers this method`'),
    rails: Type.Array(
      Type.Object(
        {
          rail: nstr('null for methods without rails'),
          currencies: Type.Array(
            Type.Object(
              { code: CurrencyCode, min: Type.Number({ description: 'customer currency; 0 = unbounded' }), max: Type.Number({ description: 'customer currency; 0 = unbounded' }) },
              { title: 'CurrencyWindow', description: 'the widest amount window any provider currently offers' },
            ),
          ),
        },
        { title: 'MethodRail' },
      ),
    ),
  },
  { title: 'Methods' },
);

export const Rates = Type.Object(
  {
    settlement: Type.Literal('USD'),
    rates: Type.Array(
      Type.Object(
        { code: CurrencyCode, rate: Nullable(Usd8), priceable: Type.Boolean({ description: 'false: cannot be priced now; an order in it answers `FX_RATE_UNAVAILABLE`' }) },
        { title: 'Rate', description: 'units of the currency per 1 USD, spread included' },
      ),
    ),
  },
  { title: 'Rates' },
);

export const Balance = Type.Object(
  {
    currency: Type.Literal('USD'),
    available: Usd8,
    mode: Type.Union([Type.Literal('live'), Type.Literal('sandbox')], {
      description: '`sandbox` while the merchant is in the sandbox, and always with a test desk\'s key: `available` is then its simulated money, never withdrawable; `live` once approved: live money only, which starts at zero',
    }),
  },
  { title: 'Balance', description: 'the merchant\'s balance, shared by its cash desks' },
);

export const DELIVERY_STATES = ['pending', 'delivered', 'rejected', 'failed', 'suppressed'] as const;

export const FeedEvent = Type.Object(
  {
    id: str('`evt_` id, the `X-Gate-Event-Id` of its callbacks'),
    event: str('event kind'),
    orderId: str('`ord_` id'),
    createdAt: Timestamp,
    body: str('the exact body signed and sent as the callback'),
    delivery: Type.Object(
      {
        state: Type.Unsafe<string>({ type: 'string', enum: [...DELIVERY_STATES], title: 'DeliveryState' }),
        attempts: Type.Integer({ minimum: 0 }),
        nextAttemptAt: Nullable(Timestamp),
        finishedAt: Nullable(Timestamp),
      },
      { title: 'EventDelivery' },
    ),
  },
  { title: 'Event', description: 'an event of the feed, with the state of its callback' },
);

export const EventsPage = Type.Object(
  {
    events: Type.Array(FeedEvent),
    hasMore: Type.Boolean(),
    next: nstr('pass as `after` for the next page'),
  },
  { title: 'EventsPage' },
);

/** The callback body: what the gateway POSTs to the merchant, in this field order. */
export const CallbackEvent = Type.Object(
  {
    event: EventKind,
    id: str('`ord_` id'),
    orderRef: nstr('your reference'),
    status: OrderStatus,
    amount: Type.Object({ value: Amount2, currency: CurrencyCode }),
    settled: Type.Object({ value: Usd8, currency: Type.Literal('USD'), rate: Usd8 }),
    paidAmount: Type.Optional(Type.Object({ value: Amount2, currency: CurrencyCode }, { description: 'only when the order is Completed: what it was paid (its amount, or the money that arrived when support matched a payment of another amount)' })),
    method: Type.String(),
    rail: nstr('null for methods without rails'),
    occurredAt: Type.String({ ...docOnly({ format: 'date-time' }), description: 'ISO 8601 UTC with milliseconds', examples: ['2025-11-21T04:00:00.123Z'] }),
    sandbox: Type.Boolean({ description: 'a sandbox order (no money moved): never ship goods for it; `false` for a live order' }),
  },
  { title: 'CallbackEvent', description: 'no fee or credited amount: read them with GET /gw/v1/orders/{id}' },
);

// ---- payment page data (unsigned)

export const PayPage = Type.Object(
  {
    id: str('`ord_` id'),
    orderRef: nstr('the merchant\'s own reference, or null; a UPI app shows it as the payment\'s note (`tn` of the `upi://pay` link)'),
    status: OrderStatus,
    subStatus: OrderSubStatus,
    amount: Amount2,
    currency: CurrencyCode,
    method: Type.String(),
    rail: nstr('null for methods without rails'),
    payment: Type.Object(paymentKeys, {
      title: 'PayPagePayment',
      description: 'the order\'s payment details while the customer may still pay (`Created`, `Payed`); every key null once the order is closed',
    }),
    payerReference: nstr('the reference on record: the UTR of a Upi payment or the bank\'s reference of another rail, as the customer (or the provider) reported it'),
    expiresAt: Timestamp,
    successUrl: Nullable(UrlString({ description: 'successUrl, else backUrl' })),
    failUrl: Nullable(UrlString({ description: 'failUrl, else backUrl' })),
    backUrl: Nullable(UrlString({ description: 'backUrl' })),
    merchant: Type.Object({ displayName: nstr('the merchant\'s name') }),
    sandbox: Type.Boolean({ description: 'a test payment: no money moves' }),
    description: nstr('what the payment is for, as the merchant described it (a payment link\'s description); null for orders created through the API'),
  },
  { title: 'PayPage' },
);

export const PayerReferenceBody = Type.Object(
  {
    // The rule depends on the order's rail, which only the service knows (parsePayerReference):
    // the schema refuses what no rail takes, with the same words, and the service the rest.
    payerReference: Type.Unsafe<string>({
      type: 'string',
      description:
        'the reference of the customer\'s payment, surrounding spaces trimmed. Rail `Upi`: the UTR, exactly 12 digits. ' +
        'Every other rail (and methods without rails): 4 to 40 letters, digits, `-` or `/`. A value that breaks its order\'s rule is `400 VALIDATION_ERROR`.',
      allOf: [{ pattern: '^\\s*[A-Za-z0-9/-]{4,40}\\s*$', 'x-message': 'must be 12 digits (a UPI UTR) or 4 to 40 letters, digits, "-" or "/" (other rails)' }],
    }),
  },
  { title: 'PayerReferenceRequest' },
);
