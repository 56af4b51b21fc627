/**
 * Wire types of the gateway API (`/gw/v1`), taken from the gateway's OpenAPI document.
 *
 * `generated/openapi.ts` is written by `npm run generate -w @paygate/sdk` from `openapi.json` at the
 * repository root (a test fails when it drifts); this module only gives its operations' bodies and
 * results the names the SDK uses. Every other module imports these names from here.
 *
 * Money is a decimal string everywhere (order amounts 2 places, USD amounts and rates 8,
 * commission rate 4): never parse it into a JS number for arithmetic.
 */
import type { components, operations } from './generated/openapi.js';

type JsonOf<T> = T extends { content: infer C } ? C[keyof C] : never;
/** The `result` of an operation's success answer. */
type ResultOf<Op extends keyof operations, Status extends keyof operations[Op]['responses']> =
  JsonOf<operations[Op]['responses'][Status]> extends { result: infer R } ? R : never;
/** The JSON request body of an operation. */
type BodyOf<Op extends keyof operations> = JsonOf<NonNullable<operations[Op]['requestBody']>>;

/** Body of `POST /gw/v1/orders`. With an `orderRef` the SDK may safely retry the call. */
export type CreateOrderRequest = BodyOf<'createOrder'>;
/** `result` of `POST /gw/v1/orders` (201); `orderRef` is always null here. */
export type CreatedOrder = ResultOf<'createOrder', 201>;
/** `result` of `GET /gw/v1/orders/{id}`. */
export type Order = ResultOf<'getOrder', 200>;
/** `result` of `POST /gw/v1/orders/{id}/cancel`: the order as it now stands. */
export type CancelledOrder = ResultOf<'cancelOrder', 200>;
/** Body of `POST /gw/v1/appeals`. */
export type CreateAppealRequest = BodyOf<'openAppeal'>;
/** `result` of `POST /gw/v1/appeals` and `GET /gw/v1/appeals/{id}`. */
export type Appeal = ResultOf<'getAppeal', 200>;
/** `result` of `GET /gw/v1/methods`. */
export type Methods = ResultOf<'getMethods', 200>;
/** `result` of `GET /gw/v1/rates`. */
export type Rates = ResultOf<'getRates', 200>;
/** `result` of `GET /gw/v1/balance`. */
export type Balance = ResultOf<'getBalance', 200>;
/** `result` of `GET /gw/v1/events`. */
export type EventsPage = ResultOf<'listEvents', 200>;
/** One entry of the events feed; `body` is the exact string that was (or will be) signed and sent as the callback. */
export type FeedEvent = EventsPage['events'][number];
/** The JSON body of a callback (and of a feed entry's `body`). */
export type CallbackEvent = BodyOf<'orderEventCallback'>;

export type PaymentDetails = CreatedOrder['payment'];
export type Settlement = CreatedOrder['settled'];
export type OrderStatus = Order['status'];
export type OrderSubStatus = Order['subStatus'];
export type AppealStatus = Appeal['status'];
export type EventKind = CallbackEvent['event'];
export type DeliveryState = FeedEvent['delivery']['state'];
export type Operator = NonNullable<CreateOrderRequest['operator']>;
/** Every `fault.code` the gateway answers (the document's `ErrorCode`); `PaygateError.code` is one of these or one of the SDK's own. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** Body of `POST /gw/v1/webhook-endpoints`: `events` kinds or `['*']`; `desks` null = every desk of the merchant. */
export type CreateWebhookEndpointRequest = BodyOf<'createWebhookEndpoint'>;
/** Body of `PATCH /gw/v1/webhook-endpoints/{id}`: only the fields given change. */
export type UpdateWebhookEndpointRequest = BodyOf<'updateWebhookEndpoint'>;
/** A webhook endpoint as listed and read (never with its secret). */
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
/** `result` of the creation: the only time `secret` (`whsec_…`) is shown. */
export type WebhookEndpointCreated = ResultOf<'createWebhookEndpoint', 201>;
/** `result` of rotate-secret; the old secret keeps signing beside the new one for 24 hours. */
export type WebhookSecret = ResultOf<'rotateWebhookEndpointSecret', 200>;
/** `result` of recover: how many events were queued again, since when. */
export type WebhookRecovery = ResultOf<'recoverWebhookEndpoint', 200>;
/** `result` of a test event: the `webhook-id` of the `webhook.test` delivery. */
export type WebhookTestEvent = ResultOf<'sendWebhookTestEvent', 202>;
/** `result` of attempts: a page, newest first; pass `next` as `before`. */
export type WebhookAttemptsPage = ResultOf<'listWebhookAttempts', 200>;
export type WebhookAttempt = WebhookAttemptsPage['attempts'][number];

/** Query of `events()` / `eventsPage()`. */
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
