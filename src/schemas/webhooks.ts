import Type, { type Static } from 'typebox';
import { docOnly, Nullable, Timestamp, UrlString } from './common.js';

/** Webhook endpoints (Standard Webhooks) under `/gw/v1/webhook-endpoints`. */

const URL_MAX = 2048;
const EventList = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 32,
  description: 'event kinds the endpoint takes (`order.completed`, `order.cancelled`, `order.appealed`, `order.updated`), or `["*"]` for every kind',
  examples: [['order.completed', 'order.cancelled']],
});
const DeskList = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000, description: 'desk ids of the merchant whose events the endpoint takes; null: every desk' }),
);

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: UrlString({ maxLength: URL_MAX, description: 'absolute http(s) URL of a public host (the callback URL rules); checked again before every delivery' }),
    events: EventList,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'for your own reference' }))),
    desks: Type.Optional(DeskList),
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { title: 'CreateWebhookEndpointRequest' },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(UrlString({ maxLength: URL_MAX, description: 'absolute http(s) URL of a public host' })),
    events: Type.Optional(EventList),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    desks: Type.Optional(DeskList),
    enabled: Type.Optional(Type.Boolean({ description: 'false stops deliveries (events meanwhile are not queued; recover them after enabling)' })),
  },
  { title: 'UpdateWebhookEndpointRequest' },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBody>;

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: '`whe_` id' }),
    url: Type.String(),
    events: Type.Array(Type.String()),
    desks: Nullable(Type.Array(Type.String())),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    disabledReason: Nullable(Type.String({ description: 'why it is disabled: by the merchant, a `410 Gone`, or five days of failures; null while enabled' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);

export const WebhookEndpointCreated = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes: shown in this answer only', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }),
  },
  { title: 'WebhookEndpointCreated' },
);

export const WebhookEndpointList = Type.Object({ endpoints: Type.Array(WebhookEndpoint) }, { title: 'WebhookEndpointList' });

export const WebhookSecret = Type.Object(
  { secret: Type.String({ description: 'the new `whsec_` secret, shown in this answer only; the previous one keeps signing beside it for 24 hours' }) },
  { title: 'WebhookSecret' },
);

export const RecoverWebhookBody = Type.Object(
  { since: Type.String({ ...docOnly({ format: 'date-time' }), maxLength: 64, description: 'ISO 8601; at most 30 days ago, not in the future', examples: ['2026-01-15T12:00:00Z'] }) },
  { title: 'RecoverWebhookRequest' },
);

export const WebhookRecovery = Type.Object(
  {
    requeued: Type.Integer({ description: 'events queued again: failed deliveries since then, and events the endpoint takes that it never got (it was disabled or did not exist yet)' }),
    since: Timestamp,
  },
  { title: 'WebhookRecovery' },
);

export const WebhookTestEvent = Type.Object({ eventId: Type.String({ description: 'the `webhook-id` of the test delivery (type `webhook.test`)' }) }, { title: 'WebhookTestEvent' });

export const WebhookAttempt = Type.Object(
  {
    id: Type.String({ description: 'attempt id; pass as `before` for the next page' }),
    eventId: Type.String({ description: 'the event id: `webhook-id` of the delivery' }),
    type: Type.String({ description: 'event kind' }),
    attempt: Type.Integer({ description: 'attempt number within its schedule (a recovery starts a new one)' }),
    at: Timestamp,
    outcome: Type.String({ enum: ['delivered', 'retry', 'failed', 'interrupted'], description: '`retry`: due again at `nextAttemptAt`; `interrupted`: the sender stopped mid-send, tried again' }),
    statusCode: Nullable(Type.Integer({ description: 'the receiver\'s HTTP status; null when no answer came' })),
    durationMs: Nullable(Type.Integer()),
    error: Nullable(Type.String({ description: 'why no answer came (timeout, connection refused, blocked address)' })),
    nextAttemptAt: Nullable(Timestamp),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookAttemptsQuery = Type.Object(
  {
    before: Type.Optional(Type.String({ maxLength: 20, description: 'an attempt id from the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'default 50' })),
  },
  {},
);

export const WebhookAttemptsPage = Type.Object(
  { attempts: Type.Array(WebhookAttempt), hasMore: Type.Boolean(), next: Nullable(Type.String({ description: 'pass as `before` for the next page' })) },
  { title: 'WebhookAttemptsPage' },
);
