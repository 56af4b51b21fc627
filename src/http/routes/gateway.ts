import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.js';
import { getAppealForDesk, openAppeal } from '../../services/appeals.js';
import { createOrder } from '../../services/createOrder.js';
import { eventsFeed } from '../../services/events.js';
import { balanceOf, methodsFor, ratesFor } from '../../services/gatewayReads.js';
import { cancelByMerchant } from '../../services/orderActions.js';
import { getOrder, getOrderAtOnce } from '../../services/orders.js';
import { sendOk, sendRefusal, sendTooMany } from '../../server/errors.js';
import { SETTLES_AUTH, settleAuth } from '../gatewayAuth.js';
import { GATEWAY_SECURITY } from '../openapi.js';
import { IdParam, routeSchema } from '../../schemas/common.js';
import * as S from '../../schemas/gateway.js';

const AUTH = ['AUTH_HEADERS_MISSING', 'AUTH_TIMESTAMP_INVALID', 'AUTH_TIMESTAMP_SKEW', 'AUTH_NONCE_INVALID', 'AUTH_FAILED', 'REPLAY_DETECTED', 'PAYLOAD_TOO_LARGE'] as const;
const BODY = ['VALIDATION_ERROR'] as const;
const signed = { security: GATEWAY_SECURITY };
const TOO_MANY = { 429: { description: 'rate limited: empty body', headers: { 'Retry-After': { type: 'integer', description: 'seconds' } } } };

/** The signed merchant API. Each route: its schema, one service call, the envelope. */
export function gatewayRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  return async (gw) => {
    gw.get(
      '/methods',
      { schema: routeSchema({ ...signed, tags: ['desk'], operationId: 'getMethods', summary: 'What the cash desk can accept now', ok: { status: 200, result: S.Methods, description: 'the live picture' }, errors: AUTH }) },
      async (req, reply) => sendOk(req, reply, await methodsFor(ctx, req.desk!, req.merchant, req.catalogVersions)),
    );

    gw.get(
      '/rates',
      {
        schema: routeSchema({
          ...signed,
          tags: ['desk'],
          operationId: 'getRates',
          summary: 'Rates of the desk\'s currencies, spread included',
          description: 'The query string is not part of the signed path.',
          querystring: S.RatesQuery,
          ok: { status: 200, result: S.Rates, description: 'one entry per allowed currency' },
          errors: [...AUTH, ...BODY],
        }),
      },
      async (req, reply) => sendOk(req, reply, await ratesFor(ctx, req.desk!, req.query.currency, req.catalogVersions)),
    );

    gw.get(
      '/balance',
      { schema: routeSchema({ ...signed, tags: ['desk'], operationId: 'getBalance', summary: 'The merchant balance, shared by its desks', ok: { status: 200, result: S.Balance, description: 'USD' }, errors: AUTH }) },
      async (req, reply) => sendOk(req, reply, balanceOf(req.merchant!, req.desk!)),
    );

    gw.post(
      '/orders',
      {
        schema: routeSchema({
          ...signed,
          tags: ['orders'],
          operationId: 'createOrder',
          summary: 'Create an order',
          description:
            'Validation runs in a fixed order and the first failure answers: shape (`VALIDATION_ERROR`, `PAYOUTS_NOT_SUPPORTED`), then merchant, desk, callback URL, rail, currency, rate, desk limits, turnover caps, the `orderRef` idempotency hour, and the provider cascade (up to 160 s). ' +
            'A repeat of an `orderRef` within the hour returns the same order while it is open or paid, a new order after it was cancelled or expired, and `ORDER_REF_CONFLICT` with another amount or currency. Limited to 30 requests per 10 s per desk, 5 queued.',
          body: S.CreateOrderBody,
          ok: { status: 201, result: S.OrderCreated, description: 'the order with its payment details (`orderRef` is null here)' },
          errors: [
            ...AUTH, 'VALIDATION_ERROR', 'PAYOUTS_NOT_SUPPORTED', 'MERCHANT_INACTIVE', 'SHOP_INACTIVE', 'SHOP_STOPPED', 'CALLBACK_URL_REQUIRED', 'INVALID_CALLBACK_URL',
            'RAIL_REQUIRED', 'INVALID_RAIL', 'RAIL_NOT_ENABLED', 'INVALID_CURRENCY', 'CURRENCY_NOT_PAYABLE', 'CURRENCY_NOT_ENABLED', 'FX_RATE_UNAVAILABLE',
            'AMOUNT_BELOW_MIN', 'AMOUNT_ABOVE_MAX', 'TRAFFIC_LIMIT_REACHED', 'ORDER_REF_CONFLICT', 'MERCHANT_NOT_APPROVED', 'NO_AVAILABLE_METHOD',
          ],
          extra: TOO_MANY,
        }),
        ...SETTLES_AUTH,
      },
      async (req, reply) => {
        // Authentication's last check (when it is still pending), the order limit, the reservation
        // and the placement: one service call, which answers a refusal of authentication itself.
        const r = await createOrder(ctx, req.pendingAuth ?? { desk: req.desk!, merchant: req.merchant!, versions: req.catalogVersions }, req.body);
        if (r.kind === 'refused') return sendRefusal(req, reply, r.refusal);
        if (r.kind === 'tooMany') return sendTooMany(reply, r.retryAfterMs);
        return sendOk(req, reply, r.order, 201);
      },
    );

    gw.get(
      '/orders/:id',
      {
        schema: routeSchema({
          ...signed,
          tags: ['orders'],
          operationId: 'getOrder',
          summary: 'Read an order by `ord_` id or orderRef (the newest of several)',
          params: IdParam('`ord_` id or your orderRef'),
          ok: { status: 200, result: S.Order, description: 'the order' },
          errors: [...AUTH, 'ORDER_NOT_FOUND', 'VALIDATION_ERROR'],
        }),
        ...SETTLES_AUTH,
      },
      async (req, reply) => {
        if (req.pendingAuth) {
          const order = await getOrderAtOnce(ctx, req.pendingAuth, req.params.id);
          if (order) return sendOk(req, reply, order);
          const refused = await settleAuth(req);
          if (refused) return sendRefusal(req, reply, refused.refusal);
        }
        return sendOk(req, reply, await getOrder(ctx, { deskId: req.desk!.id }, req.params.id));
      },
    );

    gw.post(
      '/orders/:id/cancel',
      {
        schema: routeSchema({
          ...signed,
          tags: ['orders'],
          operationId: 'cancelOrder',
          summary: 'Cancel an unpaid order',
          description: 'Cancelling a cancelled order is a no-op that answers the order as it stands.',
          params: IdParam('`ord_` id or your orderRef'),
          body: S.CancelOrderBody,
          ok: { status: 200, result: S.Order, description: 'the order as it now stands' },
          errors: [...AUTH, ...BODY, 'ORDER_NOT_FOUND', 'ORDER_ALREADY_COMPLETED', 'ORDER_ALREADY_PAID', 'ORDER_IN_DISPUTE'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await cancelByMerchant(ctx, { deskId: req.desk!.id }, req.params.id, req.body.reason ?? null)),
    );

    gw.post(
      '/appeals',
      {
        schema: routeSchema({
          ...signed,
          tags: ['appeals'],
          operationId: 'openAppeal',
          summary: 'Open an appeal on an order closed without credit',
          description: 'A repeat while the appeal is open returns it, also with 201. Opening moves the order to `Dispute` and sends `order.appealed`.',
          body: S.OpenAppealBody,
          ok: { status: 201, result: S.Appeal, description: 'the appeal' },
          errors: [...AUTH, ...BODY, 'ORDER_NOT_FOUND', 'ORDER_STILL_OPEN', 'ORDER_ALREADY_COMPLETED'],
        }),
      },
      async (req, reply) =>
        sendOk(req, reply, await openAppeal(ctx, { deskId: req.desk!.id }, { orderId: req.body.orderId, reason: req.body.reason ?? null, evidenceUrl: req.body.evidenceUrl ?? null }), 201),
    );

    gw.get(
      '/appeals/:id',
      {
        schema: routeSchema({
          ...signed,
          tags: ['appeals'],
          operationId: 'getAppeal',
          summary: 'Read an appeal',
          params: IdParam('`apl_` id'),
          ok: { status: 200, result: S.Appeal, description: 'the appeal' },
          errors: [...AUTH, 'APPEAL_NOT_FOUND', 'VALIDATION_ERROR'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await getAppealForDesk(ctx, req.desk!.id, req.params.id)),
    );

    gw.get(
      '/events',
      {
        schema: routeSchema({
          ...signed,
          tags: ['events'],
          operationId: 'listEvents',
          summary: 'The desk\'s events, oldest first: recover missed callbacks',
          description:
            'Every event stays readable after the retry schedule ends. Remember the last event id you processed, then page with `after` until `hasMore` is false, processing each event idempotently by its id.',
          querystring: S.EventsQuery,
          ok: { status: 200, result: S.EventsPage, description: 'a page of events' },
          errors: [...AUTH, ...BODY, 'ORDER_NOT_FOUND'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await eventsFeed(ctx, req.desk!.id, req.query)),
    );
  };
}
