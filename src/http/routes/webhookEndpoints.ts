import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.js';
import {
  createEndpoint, endpointAttempts, getEndpoint, listEndpoints, recoverEndpoint, rotateEndpointSecret, sendTestEvent, updateEndpoint,
} from '../../services/webhookEndpoints.js';
import { sendOk } from '../../server/errors.js';
import { GATEWAY_SECURITY } from '../openapi.js';
import { IdParam, routeSchema } from '../../schemas/common.js';
import * as S from '../../schemas/webhooks.js';

const AUTH = ['AUTH_HEADERS_MISSING', 'AUTH_TIMESTAMP_INVALID', 'AUTH_TIMESTAMP_SKEW', 'AUTH_NONCE_INVALID', 'AUTH_FAILED', 'REPLAY_DETECTED', 'PAYLOAD_TOO_LARGE'] as const;
const signed = { security: GATEWAY_SECURITY, tags: ['webhooks'] };
const endpointId = IdParam('`whe_` id');

/**
 * Webhook endpoints (Standard Webhooks) of the signing desk's merchant: every desk of a merchant
 * sees and manages the same endpoints. Each route: its schema, one service call, the envelope.
 */
export function webhookEndpointRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  return async (gw) => {
    const merchantOf = (req: { desk: { merchant_id: string } | null }) => req.desk!.merchant_id;
    const actorOf = (req: { desk: { id: string } | null }) => `desk:${req.desk!.id}`;

    gw.post(
      '/webhook-endpoints',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'createWebhookEndpoint',
          summary: 'Subscribe a webhook endpoint to the merchant\'s events',
          description:
            'Deliveries follow the Standard Webhooks specification: headers `webhook-id` (the event id), `webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the secret\'s bytes after `whsec_`). Body `{"type", "timestamp", "data"}`, `data` the callback body. The secret is in this answer only.',
          body: S.CreateWebhookEndpointBody,
          ok: { status: 201, result: S.WebhookEndpointCreated, description: 'the endpoint and its secret' },
          errors: [...AUTH, 'VALIDATION_ERROR', 'INVALID_CALLBACK_URL', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await createEndpoint(ctx, merchantOf(req), actorOf(req), req.body), 201),
    );

    gw.get(
      '/webhook-endpoints',
      { schema: routeSchema({ ...signed, operationId: 'listWebhookEndpoints', summary: 'The merchant\'s webhook endpoints (no secrets)', ok: { status: 200, result: S.WebhookEndpointList, description: 'oldest first' }, errors: [...AUTH] }) },
      async (req, reply) => sendOk(req, reply, { endpoints: await listEndpoints(ctx, merchantOf(req)) }),
    );

    gw.get(
      '/webhook-endpoints/:id',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'getWebhookEndpoint',
          summary: 'Read a webhook endpoint (no secret)',
          params: endpointId,
          ok: { status: 200, result: S.WebhookEndpoint, description: 'the endpoint' },
          errors: [...AUTH, 'WEBHOOK_ENDPOINT_NOT_FOUND', 'VALIDATION_ERROR'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await getEndpoint(ctx, merchantOf(req), req.params.id)),
    );

    gw.patch(
      '/webhook-endpoints/:id',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'updateWebhookEndpoint',
          summary: 'Change, enable or disable a webhook endpoint',
          description: 'Enabling an endpoint the sender disabled clears its failing streak; events that came while it was disabled are recovered with `recover`.',
          params: endpointId,
          body: S.UpdateWebhookEndpointBody,
          ok: { status: 200, result: S.WebhookEndpoint, description: 'the endpoint as it now stands' },
          errors: [...AUTH, 'VALIDATION_ERROR', 'INVALID_CALLBACK_URL', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await updateEndpoint(ctx, merchantOf(req), actorOf(req), req.params.id, req.body)),
    );

    gw.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'rotateWebhookEndpointSecret',
          summary: 'Give a webhook endpoint a new secret',
          description: 'For 24 hours every delivery carries two signatures, the new secret\'s and the old one\'s, separated by a space: switch the receiver over any time in that day.',
          params: endpointId,
          ok: { status: 200, result: S.WebhookSecret, description: 'the new secret, in this answer only' },
          errors: [...AUTH, 'WEBHOOK_ENDPOINT_NOT_FOUND', 'VALIDATION_ERROR'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await rotateEndpointSecret(ctx, merchantOf(req), actorOf(req), req.params.id)),
    );

    gw.post(
      '/webhook-endpoints/:id/recover',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'recoverWebhookEndpoint',
          summary: 'Send again every event since a time that the endpoint did not get',
          params: endpointId,
          body: S.RecoverWebhookBody,
          ok: { status: 200, result: S.WebhookRecovery, description: 'how many events were queued' },
          errors: [...AUTH, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await recoverEndpoint(ctx, merchantOf(req), actorOf(req), req.params.id, new Date(req.body.since))),
    );

    gw.post(
      '/webhook-endpoints/:id/test',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'sendWebhookTestEvent',
          summary: 'Send a `webhook.test` event to the endpoint',
          params: endpointId,
          ok: { status: 202, result: S.WebhookTestEvent, description: 'queued; its attempt shows in the log' },
          errors: [...AUTH, 'WEBHOOK_ENDPOINT_NOT_FOUND', 'VALIDATION_ERROR'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await sendTestEvent(ctx, merchantOf(req), actorOf(req), req.params.id), 202),
    );

    gw.get(
      '/webhook-endpoints/:id/attempts',
      {
        schema: routeSchema({
          ...signed,
          operationId: 'listWebhookAttempts',
          summary: 'The endpoint\'s delivery attempts, newest first',
          params: endpointId,
          querystring: S.WebhookAttemptsQuery,
          ok: { status: 200, result: S.WebhookAttemptsPage, description: 'a page of attempts' },
          errors: [...AUTH, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await endpointAttempts(ctx, merchantOf(req), req.params.id, req.query)),
    );
  };
}
