/**
 * Wire types of the gateway API (`/gw/v1`), written from the specification.
 *
 * Every other module imports these names from here, so replacing the hand-written shapes with the
 * ones generated from `openapi.json` (`npm run generate -w @paygate/sdk` writes
 * `src/generated/openapi.ts`) changes only this file.
 *
 * Money is a decimal string everywhere (order amounts 2 places, USD amounts and rates 8,
 * commission rate 4): never parse it into a JS number for arithmetic.
 */

export type OrderStatus = 'Created' | 'Payed' | 'Completed' | 'Canceled' | 'Dispute' | 'CompletedOnDispute' | 'WaitingPayment';
export type OrderSubStatus = 'WaitingForPayment' | 'WaitingAdminConfirmation' | 'SuccessfullyPaid' | 'Cancelled' | 'Expired';
export type AppealStatus = 'Open' | 'Accepted' | 'Rejected' | 'Cancelled';
export type EventKind = 'order.completed' | 'order.cancelled' | 'order.appealed' | 'order.updated';
export type Operator = 'OperatorA' | 'OperatorB' | 'OperatorC' | 'OperatorD' | 'OperatorE';

/** Body of `POST /gw/v1/orders`. */
export interface CreateOrderRequest {
  /** Greater than zero; rounded half-up to 2 decimals by the gateway. */
  amount: number;
  /** ISO 4217, three upper-case letters; default `RUB`. */
  currency?: string;
  /** Required when the desk allows several rails; `null` or absent for methods without rails. */
  rail?: string | null;
  /** Makes the call idempotent for one hour (and lets the SDK retry it safely); up to 255 characters. */
  orderRef?: string;
  notifyUrl?: string;
  successUrl?: string;
  failUrl?: string;
  backUrl?: string;
  /** 1 to 1440, default 15. */
  lifetimeMinutes?: number;
  /** Only for rail `Phone` of method MobileCommerce. */
  operator?: Operator;
  /** Reserved; accepted and ignored. */
  targetBank?: string;
  /** Always `In`; `Out` is refused with `PAYOUTS_NOT_SUPPORTED`. */
  direction?: 'In';
}

/** Payment details: every key is present; keys the rail does not use are null. */
export interface PaymentDetails {
  url: string | null;
  card: string | null;
  phone: string | null;
  account: string | null;
  iban: string | null;
  upiId: string | null;
  holder: string | null;
  bank: string | null;
}

export interface Settlement {
  /** USD, 8 places. */
  amount: string;
  currency: 'USD';
  /** Units of the customer currency per 1 USD, spread included, captured at creation; 8 places. */
  rate: string;
}

/** `result` of `POST /gw/v1/orders` (201). */
export interface CreatedOrder {
  id: string;
  /** Always null in the create response (the reference is not echoed); read it with `orders.get`. */
  orderRef: string | null;
  amount: string;
  currency: string;
  settled: Settlement;
  method: string;
  rail: string | null;
  direction: 'In';
  status: OrderStatus;
  payment: PaymentDetails;
  createdAt: string;
  expiresAt: string;
}

/** `result` of `GET /gw/v1/orders/{id}` and of the cancel call. */
export interface Order extends CreatedOrder {
  /** For display only; branch on `status`. */
  subStatus: OrderSubStatus;
  /** For rail `Upi`: the UTR the customer reported; a hint, never a status. */
  payerReference: string | null;
  commission: { rate: string; amount: string; currency: 'USD' };
  credited: { amount: string; currency: 'USD' };
  cancelReason: string | null;
  finishedAt: string | null;
}

/** Body of `POST /gw/v1/appeals`. */
export interface CreateAppealRequest {
  /** The `ord_` id or the merchant's `orderRef`. */
  orderId: string;
  reason?: string;
  /** A URL the reviewer can open; several may be separated by semicolons. */
  evidenceUrl?: string;
}

export interface Appeal {
  id: string;
  orderId: string;
  orderRef: string | null;
  status: AppealStatus;
  amount: { value: string; currency: 'USD' };
  reason: string | null;
  comment: string | null;
  slaDueAt: string;
  createdAt: string;
  resolvedAt: string | null;
  /** As given when the appeal was opened. */
  evidenceUrl: string | null;
}

/** `result` of `GET /gw/v1/methods`. */
export interface Methods {
  method: string;
  available: boolean;
  reason: string | null;
  rails: Array<{
    rail: string | null;
    /** `min`/`max` in the customer currency; 0 means unbounded. */
    currencies: Array<{ code: string; min: number; max: number }>;
  }>;
}

/** `result` of `GET /gw/v1/rates`. */
export interface Rates {
  settlement: 'USD';
  rates: Array<{ code: string; rate: string | null; priceable: boolean }>;
}

/** `result` of `GET /gw/v1/balance`. */
export interface Balance {
  currency: 'USD';
  available: string;
}

/** The JSON body of a callback (and of an events-feed entry's `body`). */
export interface CallbackEvent {
  event: EventKind;
  id: string;
  orderRef: string | null;
  status: OrderStatus;
  amount: { value: string; currency: string };
  settled: { value: string; currency: 'USD'; rate: string };
  method: string;
  rail: string | null;
  /** ISO 8601 UTC with milliseconds. */
  occurredAt: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'rejected' | 'failed' | 'suppressed';

/** One entry of `GET /gw/v1/events`. */
export interface FeedEvent {
  /** `evt_` id: the `X-Gate-Event-Id` of the callback. */
  id: string;
  event: EventKind;
  orderId: string;
  createdAt: string;
  /** The exact string that was (or will be) signed and sent as the callback body. */
  body: string;
  delivery: {
    state: DeliveryState;
    attempts: number;
    nextAttemptAt: string | null;
    finishedAt: string | null;
  };
}

/** `result` of `GET /gw/v1/events`. */
export interface EventsPage {
  events: FeedEvent[];
  hasMore: boolean;
  /** Pass as `after` for the next page; null on an empty page. */
  next: string | null;
}

export interface EventsQuery {
  /** An event id: only events after it (omit for the oldest). */
  after?: string;
  /** Only this order's events (`ord_` id or `orderRef`). */
  orderId?: string;
  /** `false`: only events not acknowledged with 200. */
  delivered?: false;
  /** 1–500, default 100. */
  limit?: number;
}

/** Error envelope (decision D1). */
export interface ErrorEnvelope {
  status: 'error';
  fault: { code: string; detail: string | null };
  traceId: string;
}

export interface OkEnvelope<T> {
  status: 'ok';
  result: T;
  traceId?: string;
}
