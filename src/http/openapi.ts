import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { documentedRouteSchema, finishDocument } from './openapiComponents.js';
import { CallbackEvent } from '../schemas/gateway.js';

export const GATEWAY_SECURITY = [{ GateKey: [], GateTs: [], GateNonce: [], GateSign: [] }];
export { ADMIN_SECURITY } from '../schemas/common.js';
export const PROVIDER_SECURITY = [{ ProviderKey: [], ProviderTs: [], ProviderEventId: [], ProviderSign: [] }];

const SIGNING = `Every \`/gw/v1\` request carries four headers. \`X-Gate-Sign\` is the hex HMAC-SHA256, keyed with the
cash desk secret (UTF-8), of the string

    {X-Gate-Ts}.{X-Gate-Nonce}.{METHOD}.{path}.{sha256hex(body)}

where METHOD is upper case, path has no host and no query string, and the body hash is the lowercase hex
SHA-256 of the exact bytes sent (of empty input for a GET). Checks, in order: all four headers present
(\`AUTH_HEADERS_MISSING\`), \`X-Gate-Ts\` an integer (\`AUTH_TIMESTAMP_INVALID\`), within 300 s of the
server clock (\`AUTH_TIMESTAMP_SKEW\`), nonce of 8–128 characters (\`AUTH_NONCE_INVALID\`), key known and
signature right (\`AUTH_FAILED\`, identical for both), nonce not used for the desk in the last 360 s
(\`409 REPLAY_DETECTED\`).`;

const CALLBACK_SIGNING = `Paygate POSTs every order state change to the order's callback URL. \`X-Gate-Sign\` is the hex
HMAC-SHA256, keyed with the cash desk secret, of \`{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}\`. Verify it
over the raw bytes before parsing, in constant time, and reject old timestamps. Answer exactly \`200\` to
acknowledge; \`5xx\`, \`429\`, no answer within 15 s or a connection error are retried after 10, 20, 40, 80,
160, 320 and 640 s (8 attempts); any other answer is final, and redirects are not followed. Every attempt
of one event carries the same \`X-Gate-Event-Id\`: drop repeats and answer \`200\`.`;

const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });

/**
 * The OpenAPI 3.1 document, generated from the route schemas; served at /openapi.json and rendered
 * at /docs. `transform` documents the bodies routes check themselves (`x-request-body`),
 * `transformObject` names the schemas and completes the responses (openapiComponents.ts); both
 * work on the document only, never on the schemas Fastify validates and serialises with.
 */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    transform: ({ schema, url }: { schema: Record<string, unknown> | undefined; url: string }) => ({ schema: documentedRouteSchema(schema), url }),
    transformObject: ({ openapiObject }: { openapiObject: Record<string, unknown> }) => finishDocument(openapiObject),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paygate API',
        version,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Signed merchant API (`/gw/v1`), payment page data (`/api/pay`), operator API (`/admin/v1`) and provider connector (`/providers/v1`). ' +
          'Every answer is an envelope: `{"status":"ok","result":…,"traceId":…}` or `{"status":"error","fault":{"code":…,"detail":…},"traceId":…}`; ' +
          'the trace id is also in the `X-Trace-Id` header of every answer. Money is a decimal string: order amounts 2 places, USD amounts and rates 8, commission rate 4. ' +
          'A `429` has an empty body and a `Retry-After` header in seconds. Bodies are `application/json` (anything else is `415`), at most 64 KiB (`413`) unless the route says otherwise, and closed: an unknown field is `400 VALIDATION_ERROR`. ' +
          'Every operation may answer `503 SERVICE_UNAVAILABLE` (retry with back-off) and `500 INTERNAL_ERROR`.\n\n' +
          SIGNING,
      },
      servers: [{ url: '/', description: 'this Paygate' }],
      tags: [
        { name: 'orders', description: 'orders of the calling cash desk' },
        { name: 'appeals', description: 'appeals on orders that were paid but closed' },
        { name: 'desk', description: 'what the cash desk can accept, at which rates, and the balance' },
        { name: 'events', description: 'the recovery feed of every event sent as a callback' },
        { name: 'webhooks', description: 'webhook endpoints of the merchant: Standard Webhooks deliveries of its desks\' events, each endpoint with its own secret' },
        { name: 'payment page', description: 'unsigned data of the hosted payment page, rate limited per client IP' },
        { name: 'operators', description: 'the operator API: bearer token' },
        { name: 'providers', description: 'inbound events of external providers, signed like callbacks' },
      ],
      components: {
        securitySchemes: {
          GateKey: header('X-Gate-Key', 'the cash desk key: `shp_` + 26 characters. ' + SIGNING),
          GateTs: header('X-Gate-Ts', 'Unix time in seconds; ±300 s of the server clock'),
          GateNonce: header('X-Gate-Nonce', 'random, 8–128 printable characters; never repeated for the desk within 360 s'),
          GateSign: header('X-Gate-Sign', 'hex HMAC-SHA256 (64 characters) of `{ts}.{nonce}.{METHOD}.{path}.{sha256hex(body)}` with the desk secret'),
          AdminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN; a missing or wrong token is `401 ADMIN_AUTH_FAILED`' },
          ProviderKey: header('X-Gate-Key', 'the provider\'s key'),
          ProviderTs: header('X-Gate-Ts', 'Unix seconds'),
          ProviderEventId: header('X-Gate-Event-Id', 'unique per message, 1–128 of `[A-Za-z0-9_-]`; a repeat is applied once'),
          ProviderSign: header('X-Gate-Sign', 'hex HMAC-SHA256 with the provider secret of `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`'),
        },
      },
      webhooks: {
        orderEvent: {
          post: {
            summary: 'Order state change (callback)',
            description: CALLBACK_SIGNING,
            operationId: 'orderEventCallback',
            // The receiver authenticates the call by the signature headers below, not by a scheme of ours.
            security: [],
            parameters: [
              { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', const: 'Paygate/1.0 Callback' } },
              { name: 'X-Gate-Ts', in: 'header', required: true, schema: { type: 'string', pattern: '^\\d+$' }, description: 'Unix seconds of this attempt' },
              { name: 'X-Gate-Event-Id', in: 'header', required: true, schema: { type: 'string', pattern: '^evt_' }, description: 'identical across all attempts of one event' },
              { name: 'X-Gate-Sign', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' }, description: 'hex HMAC-SHA256 of `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}` with the desk secret' },
            ],
            requestBody: {
              required: true,
              content: { 'application/json; charset=utf-8': { schema: CallbackEvent } },
            },
            responses: {
              '200': { description: 'delivered (exactly 200)' },
              '429': { description: 'retried per the schedule' },
              '500': { description: 'any 5xx is retried per the schedule' },
              '400': { description: 'any other 4xx, any 3xx and any 2xx other than 200 are final: no retry' },
            },
          },
        },
      },
    },
    hideUntagged: true,
  } as never);
}
