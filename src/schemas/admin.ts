import Type, { type Static } from 'typebox';
import { METHODS } from '../domain/catalogue.js';
import { APPEAL_STATUSES } from '../domain/appealGuard.js';
import { CREATABLE_PROVIDER_KINDS, PROVIDER_KINDS, type ProviderKindName } from '../domain/providers.js';
import { Amount2, BoundedDecimalInput, CurrencyCode, DecimalInput, docOnly, Nullable, Percent4, Timestamp, UrlString, Usd8 } from './common.js';
import { Appeal, Balance, Order, OrderGetFields, OrderStatus, Settlement } from './gateway.js';

const str = (description: string) => Type.String({ description });
const nstr = (description: string) => Nullable(Type.String({ description }));
const opt = Type.Optional;

export const MERCHANT_STATUSES = ['UnderReview', 'Active', 'Blocked'] as const;

// ---- merchants

export const CreateMerchantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    sandbox: opt(Type.Boolean({ description: 'the sandbox provider serves the account until approval; default true' })),
  },
  { title: 'CreateMerchantRequest' },
);
export const PatchMerchantBody = Type.Object(
  {
    sandbox: opt(Type.Boolean()),
    name: opt(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { title: 'PatchMerchantRequest' },
);
export const BlockBody = Type.Object({ reason: opt(Nullable(Type.String({ maxLength: 500 }))) }, { title: 'BlockMerchantRequest' });

const merchantFields = {
  id: str('`mer_` id'),
  name: Type.String(),
  status: Type.Unsafe<string>({ type: 'string', enum: [...MERCHANT_STATUSES], title: 'MerchantStatus' }),
  sandbox: Type.Boolean(),
  blockReason: nstr('why the account is blocked'),
  createdAt: Timestamp,
};
export const Merchant = Type.Object(merchantFields, { title: 'Merchant' });
export const MerchantBalance = Type.Object(
  {
    ...Balance.properties,
    live: Usd8,
    sandbox: Usd8,
  },
  { title: 'MerchantBalance', description: 'the balance `GET /gw/v1/balance` answers with a live desk\'s key (`available`, `mode`), and both moneys apart: `live` (what withdrawals draw on) and `sandbox` (simulated payments, never withdrawable)' },
);
export const MerchantWithBalance = Type.Object({ ...merchantFields, balance: MerchantBalance }, { title: 'MerchantWithBalance' });
export const ApprovedMerchant = Type.Object(
  {
    ...merchantFields,
    warnings: Type.Array(Type.String(), {
      description:
        'one line per desk that no live provider serves yet (its live orders answer `NO_AVAILABLE_METHOD` until one is connected), then one per currency of its desks priced by a demo rate',
    }),
  },
  { title: 'ApprovedMerchant' },
);

// ---- tariffs

export const TariffBand = Type.Object(
  {
    fromUsd: DecimalInput(8),
    toUsd: Nullable(DecimalInput(8)),
    ratePercent: BoundedDecimalInput(4, 'fee in percent of the USD amount', 'percent'),
  },
  { title: 'TariffBandInput' },
);
export const CreateTariffBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    bands: Type.Array(TariffBand, { minItems: 1, description: 'fee bands `[fromUsd, toUsd)`; toUsd null = no upper bound; bands must not overlap' }),
    default: opt(Type.Boolean({ description: 'the tariff desks get when none is named (one at a time: the previous default steps down)' })),
  },
  { title: 'CreateTariffRequest' },
);
export const PatchTariffBody = Type.Object(
  {
    name: opt(Type.String({ minLength: 1, maxLength: 200 })),
    bands: opt(Type.Array(TariffBand, { minItems: 1, description: 'replaces the bands; fees of orders completed from now on use them' })),
    default: opt(Type.Boolean({ description: '`true` makes it the default (the previous one steps down); `false` leaves no default' })),
  },
  { title: 'PatchTariffRequest' },
);
export const TariffIdParam = Type.Object({ id: Type.String({ description: '`trf_` id' }) });
export const Tariff = Type.Object(
  {
    id: str('`trf_` id'),
    name: Type.String(),
    bands: Type.Array(Type.Object({ fromUsd: Usd8, toUsd: Nullable(Usd8), ratePercent: Percent4 }, { title: 'TariffBand' })),
    default: Type.Boolean({ description: 'desks created without a `tariffId` get this tariff' }),
    createdAt: Timestamp,
  },
  { title: 'Tariff' },
);

// ---- desks

const DeskName = Type.String({ minLength: 1, maxLength: 100, description: 'shown before the id in lists; default "Desk N"' });
const deskInputFields = {
  name: opt(DeskName),
  rails: opt(Type.Array(Type.String(), { description: 'rails of the method allowed on the desk' })),
  currencies: opt(Type.Array(Type.String(), { description: 'ISO 4217 codes allowed on the desk' })),
  minUsd: opt(DecimalInput(8, 'USD; "0" = unbounded')),
  maxUsd: opt(DecimalInput(8, 'USD; "0" = unbounded')),
  callbackUrl: opt(Nullable(UrlString({ maxLength: 2048, description: 'an absolute http(s) URL to a public host, else `INVALID_CALLBACK_URL`' }))),
  callbacksEnabled: opt(Type.Boolean()),
  tariffId: opt(Nullable(Type.String({ maxLength: 64 }))),
};
export const CreateDeskBody = Type.Object(
  {
    method: Type.Unsafe<string>({ type: 'string', enum: [...METHODS], description: 'bound for the desk\'s whole life', 'x-message': 'must be one of the payment methods' }),
    ...deskInputFields,
    sandbox: opt(
      Type.Boolean({
        description:
          'a test desk: its orders always go to the sandbox provider, are paid by simulation and move sandbox money only, whatever the merchant\'s status; fixed for the desk\'s whole life; default false',
      }),
    ),
  },
  { title: 'CreateDeskRequest' },
);
export const PatchDeskBody = Type.Object(
  {
    enabled: opt(Type.Boolean()),
    ...deskInputFields,
    method: opt(Type.Unsafe<never>({ not: {}, description: 'refused: a cash desk keeps its method for life', 'x-message': 'a cash desk keeps its method for life' })),
    sandbox: opt(Type.Unsafe<never>({ not: {}, description: 'refused: a cash desk is a test desk or a live desk for life; create another desk', 'x-message': 'a cash desk keeps its test mode for life; create another desk' })),
  },
  { title: 'PatchDeskRequest' },
);
/** What an owner may set on a desk, as `PATCH /admin/v1/desks/{id}` takes it: the one declaration the services and the store derive their types from. */
export type DeskSettings = Omit<Static<typeof PatchDeskBody>, 'method' | 'sandbox'>;
/** A new desk as `POST /admin/v1/merchants/{id}/desks` takes it. */
export type NewDeskSettings = Static<typeof CreateDeskBody>;
export const StopDeskBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { title: 'StopDeskRequest' });

const deskFields = {
  id: str('`dsk_` id'),
  merchantId: Type.String(),
  name: Type.String(),
  key: str('`shp_` + 26 characters'),
  method: Type.String(),
  rails: Type.Array(Type.String()),
  currencies: Type.Array(Type.String()),
  minUsd: Usd8,
  maxUsd: Usd8,
  callbackUrl: Nullable(UrlString()),
  callbacksEnabled: Type.Boolean(),
  tariffId: Nullable(Type.String()),
  noFee: Type.Boolean({ description: '`true`: no fee, an operator\'s choice (`tariffId: null` given); `false` with `tariffId` null: no tariff yet, the default tariff is given when the merchant is approved' }),
  enabled: Type.Boolean(),
  stopReason: nstr('the platform\'s stop reason'),
  createdAt: Timestamp,
  sandbox: Type.Boolean({ description: 'a test desk: its orders are sandbox orders whatever the merchant\'s status' }),
};
export const Desk = Type.Object(deskFields, { title: 'Desk' });
export const DeskWithSecret = Type.Object({ ...deskFields, secret: str('shown in this response only') }, { title: 'DeskWithSecret' });
export const Secret = Type.Object({ secret: str('the new secret, shown once; the old one fails at once') }, { title: 'DeskSecret' });

// ---- currencies and rates

export const CodeParam = Type.Object({ code: Type.String({ description: 'ISO 4217 code' }) });
export const PutCurrencyBody = Type.Object(
  { enabled: opt(Type.Boolean()), spreadPercent: opt(BoundedDecimalInput(4, 'spread in percent, added to the market rate', 'percent')) },
  { title: 'PutCurrencyRequest' },
);
export const Currency = Type.Object({ code: CurrencyCode, enabled: Type.Boolean(), spreadPercent: Percent4, updatedAt: Timestamp }, { title: 'Currency' });
export const PutRateBody = Type.Object({ rate: BoundedDecimalInput(8, 'market units per USD, before spread', 'positive') }, { title: 'PutRateRequest' });
export const RateView = Type.Object(
  {
    code: CurrencyCode,
    rate: Nullable(Usd8),
    source: Type.Unsafe<'demo' | 'manual' | 'market' | null>({
      type: ['string', 'null'],
      enum: ['demo', 'manual', 'market', null],
      description: 'where `rate` comes from: `demo` (a manual rate the demo data set, until an operator sets one), `manual` (an operator\'s), `market` (`marketSource`); null without a rate',
    }),
    manualRate: Nullable(Usd8),
    manualSetAt: Nullable(Timestamp),
    marketRate: Nullable(Usd8),
    marketSource: Nullable(Type.String()),
    marketFetchedAt: Nullable(Timestamp),
    flag: nstr('a refused market jump: the last good rate is kept'),
  },
  { title: 'RateView' },
);

// ---- providers

export const Capability = Type.Object(
  {
    method: Type.Unsafe<string>({ type: 'string', enum: [...METHODS], 'x-message': 'must be one of the payment methods' }),
    rail: opt(Nullable(Type.String({ description: 'null for methods without rails' }))),
    currency: Type.String(),
    min: opt(Type.String({ description: 'customer currency; "0" = unbounded' })),
    max: opt(Type.String({ description: 'customer currency; "0" = unbounded' })),
  },
  { title: 'CapabilityInput' },
);
export const CreateProviderBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Unsafe<string>({ type: 'string', enum: [...CREATABLE_PROVIDER_KINDS], 'x-message': `must be ${CREATABLE_PROVIDER_KINDS.join(' or ')} (the sandbox is built in)` }),
    priority: opt(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'lower is tried first; default 100' })),
    capabilities: Type.Array(Capability, { minItems: 1 }),
    requisites: opt(Type.Array(Type.Record(Type.String(), Nullable(Type.String())), { description: 'pool: payment details, one requisite each (any currency and rail of the provider, unbounded, 10 open orders at most); may be empty' })),
    baseUrl: opt(Nullable(UrlString({ maxLength: 2048, description: 'http: the provider\'s base URL (absolute http(s))' }))),
    key: opt(Nullable(Type.String({ maxLength: 256, description: 'http: required; pool: the key its credit feed signs with, generated when left out' }))),
    secret: opt(Nullable(Type.String({ maxLength: 512, description: 'http: required; pool: the credit feed\'s secret, generated when left out and then shown once in the answer' }))),
  },
  { title: 'CreateProviderRequest' },
);
/** A new provider as `POST /admin/v1/providers` takes it, its priority given (100 where the caller left it out). */
export type NewProviderSettings = Static<typeof CreateProviderBody> & { priority: number };
export const Provider = Type.Object(
  {
    id: str('`prv_` id'),
    name: Type.String(),
    kind: Type.Unsafe<ProviderKindName>({ type: 'string', enum: [...PROVIDER_KINDS], title: 'ProviderKind' }),
    priority: Type.Integer(),
    paused: Type.Boolean(),
    pauseReasons: Type.Array(Type.String()),
    pauseReason: nstr('`appeals` or `manual`'),
    circuits: Type.Array(
      Type.Object(
        { method: Type.String(), rail: Nullable(Type.String()), state: Type.Unsafe<string>({ type: 'string', enum: ['closed', 'open', 'half-open'], title: 'CircuitState' }) },
        { title: 'Circuit' },
      ),
    ),
    openAppeals: Type.Integer(),
    capabilities: Type.Unsafe<unknown>({
      description: '`all` for the built-in sandbox',
      anyOf: [
        { type: 'string', const: 'all' },
        {
          type: 'array',
          items: { type: 'object', title: 'Capability', properties: { method: { type: 'string' }, rail: { type: ['string', 'null'] }, currency: { type: 'string' }, min: { type: 'string' }, max: { type: 'string' } } },
        },
      ],
    }),
    baseUrl: Nullable(UrlString()),
    key: nstr('the key the provider signs its messages with (a pool\'s credit feed, an http provider\'s events); the secret is never shown again'),
    createdAt: Timestamp,
  },
  { title: 'Provider' },
);
export const ProviderCreated = Type.Object(
  {
    ...(Provider as unknown as { properties: Record<string, import('typebox').TSchema> }).properties,
    secret: opt(str('a pool provider\'s generated secret, in this answer only')),
  },
  { title: 'ProviderCreated' },
);
export const ProviderSecret = Type.Object(
  { key: str('the provider\'s key'), secret: str('the new secret, shown once; the old one fails at once') },
  { title: 'ProviderSecret' },
);

// ---- orders

export const OperatorOrder = Type.Object(
  {
    ...OrderGetFields,
    deskId: Type.String(),
    merchantId: Type.String(),
    providerId: Nullable(Type.String()),
  },
  { title: 'OperatorOrder' },
);
/** The order after an operator's action: the gateway's Order fields. */
export const OrderView = Order;
export const ReportPaymentBody = Type.Object({ payerReference: opt(Nullable(Type.String({ maxLength: 255 }))) }, { title: 'ReportPaymentRequest' });
export const ReverseBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { title: 'ReverseOrderRequest' });
export const Reversal = Type.Object(
  {
    order: Order,
    reversal: Type.Object({ amount: Usd8, currency: Type.Literal('USD'), reason: Type.String() }),
  },
  { title: 'Reversal' },
);
export const Resent = Type.Object({ eventId: Type.String(), event: Type.String(), orderId: Type.String(), status: Type.String() }, { title: 'ResentEvent' });
export const Attempt = Type.Object(
  {
    eventId: Type.String(),
    event: Type.String(),
    attempt: Type.Integer(),
    outcome: Type.Unsafe<string>({ type: 'string', enum: ['delivered', 'retry', 'rejected', 'failed', 'suppressed', 'interrupted'], title: 'AttemptOutcome' }),
    httpCode: Nullable(Type.Integer()),
    response: nstr('first 300 characters of the answer'),
    error: nstr('why there was no answer'),
    at: Timestamp,
  },
  { title: 'Attempt' },
);

// ---- appeals

export const CommentBody = Type.Object({ comment: opt(Nullable(Type.String({ maxLength: 2000 }))) }, { title: 'AppealDecisionRequest' });
export const ReviewAppeal = Type.Object(
  {
    ...Appeal.properties,
    deskId: Type.String(),
    merchantId: Type.String(),
    providerId: Nullable(Type.String()),
    overdue: Type.Boolean({ description: 'open and past slaDueAt' }),
    order: Type.Object(
      {
        id: Type.String(),
        orderRef: Nullable(Type.String()),
        status: Type.String(),
        amount: Amount2,
        currency: CurrencyCode,
        settled: Settlement,
      },
      { title: 'ReviewAppealOrder' },
    ),
  },
  { title: 'ReviewAppeal' },
);

// ---- turnover caps

export const CreateLimitBody = Type.Object(
  {
    scope: Type.Unsafe<string>({ type: 'string', enum: ['desk', 'merchant', 'provider', 'platform'], 'x-message': 'must be desk, merchant, provider or platform' }),
    scopeId: opt(Nullable(Type.String({ maxLength: 64 }))),
    window: Type.Unsafe<string>({ type: 'string', enum: ['hour', 'day', 'month'], 'x-message': 'must be hour, day or month' }),
    capUsd: Type.Unsafe<string>({ type: 'string', pattern: '^\\d{1,16}(\\.\\d{1,8})?$', 'x-message': 'must be a decimal string' }),
    notifyOnly: opt(Type.Boolean()),
  },
  { title: 'CreateTurnoverLimitRequest' },
);
export const Limit = Type.Object(
  {
    id: str('`lim_` id'),
    scope: Type.String(),
    scopeId: Nullable(Type.String()),
    window: Type.String(),
    capUsd: Usd8,
    notifyOnly: Type.Boolean(),
  },
  { title: 'TurnoverLimit' },
);
export const Notification = Type.Object({ id: Type.Integer(), kind: Type.String(), detail: Type.String(), at: Type.String({ description: 'ISO 8601 UTC with milliseconds', ...docOnly({ format: 'date-time' }) }) }, { title: 'Notification' });

// ---- lists

const limitQ = Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1–500, default 100', 'x-message': 'must be an integer from 1 to 500' });
const before = Type.String({ description: 'the `next` of the previous page' });
export const ListTariffsQuery = Type.Object({ before: opt(before), limit: opt(limitQ) });

export const ListMerchantsQuery = Type.Object({ status: opt(Type.Unsafe<string>({ type: 'string', enum: [...MERCHANT_STATUSES] })), before: opt(before), limit: opt(limitQ) });
export const ListDesksQuery = Type.Object({ merchantId: opt(Type.String()), before: opt(before), limit: opt(limitQ) });
export const ListOrdersQuery = Type.Object({
  status: opt(OrderStatus),
  merchantId: opt(Type.String()),
  deskId: opt(Type.String()),
  providerId: opt(Type.String()),
  from: opt(Type.String({ description: 'created at or after (ISO 8601)' })),
  to: opt(Type.String({ description: 'created before (ISO 8601)' })),
  q: opt(Type.String({ description: 'an `ord_` id or an orderRef' })),
  before: opt(before),
  limit: opt(limitQ),
});
export const ListAppealsQuery = Type.Object({
  status: opt(Type.Unsafe<string>({ type: 'string', enum: [...APPEAL_STATUSES] })),
  after: opt(Type.String({ description: 'open queue (status=Open): the `next` of the previous page' })),
  before: opt(before),
  limit: opt(limitQ),
});

/** A page of a list, named after its item: `MerchantWithBalancePage`, `DeskPage`, … */
export const PageOf = <T extends import('typebox').TSchema>(item: T) =>
  Type.Object(
    { items: Type.Array(item), hasMore: Type.Boolean(), next: Nullable(Type.String({ description: 'cursor of the next page' })) },
    { title: `${String((item as { title?: string }).title ?? 'Item')}Page` },
  );

// ---- accounts, withdrawals, audit

/**
 * An account's email, as the service checks it (accounts.ts `checkCredentials`: the trimmed value
 * against the same expression), with the same detail `email: must be an email address`; `format:
 * email` is the document's annotation.
 */
const EmailInput = Type.String({
  maxLength: 320,
  pattern: '^\\s*[^\\s@]{1,64}@[^\\s@]{1,255}\\.[^\\s@]{2,63}\\s*$',
  description: 'the sign-in address; surrounding spaces are trimmed',
  'x-message': 'must be an email address',
  ...docOnly({ format: 'email' }),
});
const Email = Type.String(docOnly({ format: 'email' }));

export const CreateOperatorBody = Type.Object(
  {
    email: EmailInput,
    password: Type.String({ maxLength: 200, description: 'at least 10 characters, not a common password' }),
    role: Type.Unsafe<string>({ type: 'string', enum: ['admin', 'support'], description: '`admin`: everything; `support`: reads, appeals, resend' }),
  },
  { title: 'CreateOperatorRequest' },
);
export const OperatorAccount = Type.Object({ id: str('`opr_` id'), email: Email, role: Type.String(), createdAt: Timestamp }, { title: 'OperatorAccount' });
const USER_ROLES = '`owner`: everything; `developer`: desks, secrets, callbacks, not the team nor withdrawals; `viewer`: reads only';
const userRole = (description: string) =>
  Type.Unsafe<'owner' | 'developer' | 'viewer'>({ type: 'string', enum: ['owner', 'developer', 'viewer'], description, 'x-message': 'must be owner, developer or viewer' });
export const CreateUserBody = Type.Object(
  {
    email: EmailInput,
    password: Type.String({ maxLength: 200, description: 'at least 10 characters, not a common password' }),
    role: opt(userRole(`${USER_ROLES}; default \`owner\``)),
  },
  { title: 'CreateUserRequest' },
);
export const UserAccount = Type.Object({ id: str('`usr_` id'), email: Email, merchantId: Type.String(), role: userRole(USER_ROLES), createdAt: Timestamp }, { title: 'UserAccount' });
export const WithdrawalBody = Type.Object(
  {
    amountUsd: BoundedDecimalInput(8, 'USD', 'positive'),
    reference: Type.String({ minLength: 1, maxLength: 200, description: 'your reference of the payout' }),
  },
  { title: 'WithdrawalRequest' },
);
export const Withdrawal = Type.Object({ id: str('`wdr_` id'), merchantId: Type.String(), amountUsd: Usd8, reference: Type.String(), createdAt: Timestamp }, { title: 'Withdrawal' });
export const ListAuditQuery = Type.Object({ objectId: opt(Type.String()), before: opt(Type.String({ description: 'the `next` of the previous page' })), limit: opt(limitQ) });
export const AuditEntry = Type.Object(
  {
    id: Type.String(),
    at: Timestamp,
    actor: str('an operator id, or `token` for the bearer token'),
    action: Type.String(),
    objectId: Nullable(Type.String()),
    outcome: str('`ok`, or the error code the action was refused with'),
    detail: Nullable(Type.String()),
  },
  { title: 'AuditEntry' },
);
