import Type, { type Static } from 'typebox';
import { MOBILE_OPERATORS } from '../../domain/catalogue.js';
import { PAYMENT_KEYS } from '../../domain/payment.js';
import { Amount2, CurrencyCode, Nullable, Percent4, Timestamp, Usd8 } from './common.js';

const URL_MAX = 2048;
const str = (description: string) => Type.String({ description });
const nstr = (description: string) => Nullable(Type.String({ description }));

export const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute', 'CompletedOnDispute', 'WaitingPayment'] as const;
export const SUB_STATUSES = ['WaitingForPayment', 'WaitingAdminConfirmation', 'SuccessfullyPaid', 'Cancelled', 'Expired'] as const;

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
    notifyUrl: Type.Optional(Nullable(Type.String({ maxLength: URL_MAX, description: 'callback URL for this order; falls back to the desk\'s URL' }))),
    successUrl: Type.Optional(Nullable(Type.String({ maxLength: URL_MAX, description: 'where the payment page sends the customer after success (absolute http(s) URL)' }))),
    failUrl: Type.Optional(Nullable(Type.String({ maxLength: URL_MAX, description: 'where the payment page sends the customer after cancel or expiry (absolute http(s) URL)' }))),
    backUrl: Type.Optional(Nullable(Type.String({ maxLength: URL_MAX, description: 'back-to-shop link used when the two above are unset (absolute http(s) URL)' }))),
    operator: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        enum: [...MOBILE_OPERATORS, null],
        description: 'mobile operator; required for MobileCommerce rail `Phone`',
        'x-message': `must be one of ${MOBILE_OPERATORS.join(', ')}`,
      }),
    ),
    targetBank: Type.Optional(Type.Unsafe<unknown>({ description: 'reserved; accepted and ignored' })),
    lifetimeMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1440, description: 'minutes until the order expires; default 15', 'x-message': 'must be an integer from 1 to 1440' }))),
  },
  { description: 'Unknown fields are ignored.' },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const CancelOrderBody = Type.Object({
  reason: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'stored on the order as `cancelReason`' }))),
});

export const OpenAppealBody = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 255, description: 'the `ord_` id or your `orderRef`' }),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  evidenceUrl: Type.Optional(Nullable(Type.String({ maxLength: 4096, description: 'URL(s) the reviewer can open, separated by semicolons' }))),
});

export const RatesQuery = Type.Object({ currency: Type.Optional(Type.String({ description: 'narrows the list to one currency', 'x-message': 'must be given once' })) });

export const EventsQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'an event id: the events after it (omit for the oldest)', 'x-message': 'must be given once' })),
  orderId: Type.Optional(Type.String({ description: 'only this order\'s events (`ord_` id or orderRef)', 'x-message': 'must be given once' })),
  delivered: Type.Optional(Type.Unsafe<'false'>({ type: 'string', enum: ['false'], description: '`false`: only events not acknowledged with 200', 'x-message': 'only delivered=false is supported' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'page size, 1–500, default 100', 'x-message': 'must be an integer from 1 to 500' })),
});

// ---- responses

export const PaymentDetails = Type.Object(
  Object.fromEntries(PAYMENT_KEYS.map((k) => [k, nstr(`payment detail \`${k}\`; null when the rail does not use it`)])) as Record<(typeof PAYMENT_KEYS)[number], ReturnType<typeof nstr>>,
  { description: 'every key is always present; keys the rail does not use are null' },
);

const orderCreateFields = {
  id: str('`ord_` + 26 characters'),
  orderRef: nstr('your reference; always null in the create response'),
  amount: Amount2,
  currency: CurrencyCode,
  settled: Type.Object({ amount: Usd8, currency: Type.Literal('USD'), rate: Usd8 }, { description: 'USD amount at the rate captured at creation (units of `currency` per 1 USD, spread included)' }),
  method: str('payment method of the cash desk'),
  rail: nstr('rail used; null for methods without rails'),
  direction: Type.Literal('In'),
  status: Type.Unsafe<string>({ type: 'string', enum: [...ORDER_STATUSES] }),
  payment: PaymentDetails,
  createdAt: Timestamp,
  expiresAt: Timestamp,
};

export const OrderCreated = Type.Object(orderCreateFields);

export const OrderGetFields = {
  ...orderCreateFields,
  subStatus: Type.Unsafe<string>({ type: 'string', enum: [...SUB_STATUSES], description: 'for display; branch on `status`' }),
  payerReference: nstr('for rail Upi: the UTR the customer reported'),
  commission: Type.Object({ rate: Percent4, amount: Usd8, currency: Type.Literal('USD') }, { description: 'zero until the order completes' }),
  credited: Type.Object({ amount: Usd8, currency: Type.Literal('USD') }, { description: 'zero until completion' }),
  cancelReason: nstr('e.g. `expired`, `appeal rejected`, or the reason given on cancel'),
  finishedAt: Nullable(Timestamp),
};
export const Order = Type.Object(OrderGetFields);

export const Appeal = Type.Object({
  id: str('`apl_` + 26 characters'),
  orderId: str('the order\'s `ord_` id'),
  orderRef: nstr('the order\'s reference'),
  status: Type.Unsafe<string>({ type: 'string', enum: ['Open', 'Accepted', 'Rejected', 'Cancelled'] }),
  amount: Type.Object({ value: Usd8, currency: Type.Literal('USD') }, { description: 'the order\'s settlement amount when the appeal was opened' }),
  reason: nstr('as given'),
  comment: nstr('the reviewer\'s comment'),
  slaDueAt: Timestamp,
  createdAt: Timestamp,
  resolvedAt: Nullable(Timestamp),
  evidenceUrl: nstr('as given'),
});

export const Methods = Type.Object({
  method: str('the cash desk\'s method'),
  available: Type.Boolean(),
  reason: nstr('why not available: `shop inactive`, `merchant inactive`, the platform\'s stop reason, or `no provider currently offers this method`'),
  rails: Type.Array(
    Type.Object({
      rail: nstr('null for methods without rails'),
      currencies: Type.Array(Type.Object({ code: CurrencyCode, min: Type.Number({ description: 'customer currency; 0 = unbounded' }), max: Type.Number({ description: 'customer currency; 0 = unbounded' }) })),
    }),
  ),
});

export const Rates = Type.Object({
  settlement: Type.Literal('USD'),
  rates: Type.Array(Type.Object({ code: CurrencyCode, rate: Nullable(Usd8), priceable: Type.Boolean() })),
});

export const Balance = Type.Object({ currency: Type.Literal('USD'), available: Usd8 });

export const DELIVERY_STATES = ['pending', 'delivered', 'rejected', 'failed', 'suppressed'] as const;

export const EventsPage = Type.Object({
  events: Type.Array(
    Type.Object({
      id: str('`evt_` id, the `X-Gate-Event-Id` of its callbacks'),
      event: str('event kind'),
      orderId: str('`ord_` id'),
      createdAt: Timestamp,
      body: str('the exact body signed and sent as the callback'),
      delivery: Type.Object({
        state: Type.Unsafe<string>({ type: 'string', enum: [...DELIVERY_STATES] }),
        attempts: Type.Integer(),
        nextAttemptAt: Nullable(Timestamp),
        finishedAt: Nullable(Timestamp),
      }),
    }),
  ),
  hasMore: Type.Boolean(),
  next: nstr('pass as `after` for the next page'),
});

/** The callback body: what the gateway POSTs to the merchant, in this field order. */
export const CallbackEvent = Type.Object({
  event: Type.Unsafe<string>({ type: 'string', enum: ['order.completed', 'order.cancelled', 'order.appealed', 'order.updated'] }),
  id: str('`ord_` id'),
  orderRef: nstr('your reference'),
  status: Type.Unsafe<string>({ type: 'string', enum: [...ORDER_STATUSES] }),
  amount: Type.Object({ value: Amount2, currency: CurrencyCode }),
  settled: Type.Object({ value: Usd8, currency: Type.Literal('USD'), rate: Usd8 }),
  method: Type.String(),
  rail: nstr('null for methods without rails'),
  occurredAt: Type.String({ description: 'ISO 8601 UTC with milliseconds', examples: ['2025-11-21T04:00:00.123Z'] }),
});

// ---- payment page data (unsigned)

export const PayPage = Type.Object({
  id: str('`ord_` id'),
  status: Type.Unsafe<string>({ type: 'string', enum: [...ORDER_STATUSES] }),
  subStatus: Type.Unsafe<string>({ type: 'string', enum: [...SUB_STATUSES] }),
  amount: Amount2,
  currency: CurrencyCode,
  method: Type.String(),
  rail: nstr('null for methods without rails'),
  payment: PaymentDetails,
  payerReference: nstr('the UTR the customer reported (rail Upi)'),
  expiresAt: Timestamp,
  successUrl: nstr('successUrl, else backUrl'),
  failUrl: nstr('failUrl, else backUrl'),
  backUrl: nstr('backUrl'),
  merchant: Type.Object({ displayName: nstr('the merchant\'s name') }),
  sandbox: Type.Boolean({ description: 'a test payment: no money moves' }),
});

export const PayerReferenceBody = Type.Object({
  payerReference: Type.Unsafe<string>({ type: 'string', description: 'the UTR: 1–64 letters and digits (a UPI UTR is 12 digits); surrounding spaces are trimmed' }),
});
