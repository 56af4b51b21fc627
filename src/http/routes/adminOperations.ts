import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { isDecimalString, fmt8 } from '../../domain/money.js';
import type { Scope, Window } from '../../domain/turnover.js';
import { newId } from '../../ids.js';
import * as actions from '../../services/orderActions.js';
import { orderView } from '../../services/orderViews.js';
import * as providers from '../../services/providersAdmin.js';
import { getOrderById } from '../../store/orders.js';
import { deleteLimit, insertLimit, listLimits, listNotifications, scopeExists } from '../../store/turnover.js';
import { sendOk } from '../errors.js';
import { field, jsonBody } from '../validate.js';

const idParam = (req: FastifyRequest) => (req.params as { id: string }).id;

/** Operator actions on orders (acting for providers and support), providers and turnover caps. */
export async function adminOperationRoutes(admin: FastifyInstance, ctx: Ctx): Promise<void> {
  admin.get('/orders/:id', async (req, reply) => {
    const o = await getOrderById(ctx.db, idParam(req));
    if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${idParam(req)}`);
    return sendOk(req, reply, { ...orderView(o), deskId: o.desk_id, merchantId: o.merchant_id, providerId: o.provider_id, sandbox: o.sandbox });
  });
  admin.post('/orders/:id/simulate-payment', async (req, reply) => sendOk(req, reply, orderView(await actions.simulatePayment(ctx, idParam(req)))));
  admin.post('/orders/:id/report-payment', async (req, reply) => {
    const b = jsonBody(req.body);
    const ref = field.string(b, 'payerReference', { nullable: true, max: 255 }) ?? null;
    return sendOk(req, reply, orderView(await actions.reportPayment(ctx, idParam(req), ref)));
  });
  admin.post('/orders/:id/confirm', async (req, reply) => sendOk(req, reply, orderView(await actions.confirmPayment(ctx, idParam(req)))));
  admin.post('/orders/:id/reject', async (req, reply) => sendOk(req, reply, orderView(await actions.rejectOrder(ctx, idParam(req)))));
  admin.post('/orders/:id/reverse', async (req, reply) => {
    const reason = field.requiredString(jsonBody(req.body), 'reason', { max: 500 });
    const r = await actions.reverseOrder(ctx, idParam(req), reason);
    return sendOk(req, reply, { order: orderView(r.order), reversal: { amount: r.reversed, currency: 'USD', reason } });
  });

  admin.get('/providers', async (req, reply) => sendOk(req, reply, await providers.listProviderViews(ctx)));
  admin.post('/providers', async (req, reply) => {
    const b = jsonBody(req.body);
    const p = await providers.createProvider(ctx, {
      name: field.requiredString(b, 'name', { max: 200 }),
      kind: field.requiredString(b, 'kind'),
      priority: field.integer(b, 'priority', 0, 1_000_000) ?? 100,
      capabilities: b.capabilities,
      requisites: b.requisites,
      baseUrl: field.string(b, 'baseUrl', { nullable: true, max: 2048 }),
      key: field.string(b, 'key', { nullable: true, max: 256 }),
      secret: field.string(b, 'secret', { nullable: true, max: 512 }),
    });
    return sendOk(req, reply, p, 201);
  });
  admin.post('/providers/:id/pause', async (req, reply) => sendOk(req, reply, await providers.pauseProvider(ctx, idParam(req), true)));
  admin.post('/providers/:id/resume', async (req, reply) => sendOk(req, reply, await providers.pauseProvider(ctx, idParam(req), false)));

  admin.get('/turnover-limits', async (req, reply) => sendOk(req, reply, (await listLimits(ctx.db)).map(limitView)));
  admin.post('/turnover-limits', async (req, reply) => {
    const b = jsonBody(req.body);
    const scope = field.requiredString(b, 'scope') as Scope;
    if (!['desk', 'merchant', 'provider', 'platform'].includes(scope)) throw new AppError('VALIDATION_ERROR', 'scope: must be desk, merchant, provider or platform');
    const scopeId = field.string(b, 'scopeId', { nullable: true, max: 64 }) ?? null;
    if (scope === 'platform' && scopeId !== null) throw new AppError('VALIDATION_ERROR', 'scopeId: must be null for the platform scope');
    if (scope !== 'platform' && !scopeId) throw new AppError('VALIDATION_ERROR', `scopeId: is required for the ${scope} scope`);
    // A cap on an id that does not exist would never apply: refuse the typo instead of storing it.
    if (scope !== 'platform' && scopeId !== null && !(await scopeExists(ctx.db, scope, scopeId))) {
      throw new AppError('VALIDATION_ERROR', `scopeId: no ${scope} ${scopeId}`);
    }
    const window = field.requiredString(b, 'window') as Window;
    if (!['hour', 'day', 'month'].includes(window)) throw new AppError('VALIDATION_ERROR', 'window: must be hour, day or month');
    const capUsd = b.capUsd;
    if (!isDecimalString(capUsd, 8)) throw new AppError('VALIDATION_ERROR', 'capUsd: must be a decimal string');
    const notifyOnly = field.boolean(b, 'notifyOnly') ?? false;
    const cap = await insertLimit(ctx.db, { id: newId('lim'), scope, scopeId, window, capUsd, notifyOnly }, new Date(ctx.clock.now()));
    return sendOk(req, reply, limitView(cap), 201);
  });
  admin.delete('/turnover-limits/:id', async (req, reply) => {
    if (!(await deleteLimit(ctx.db, idParam(req)))) throw new AppError('LIMIT_NOT_FOUND', `no turnover limit ${idParam(req)}`);
    return sendOk(req, reply, { id: idParam(req), deleted: true });
  });
  admin.get('/notifications', async (req, reply) => {
    const rows = await listNotifications(ctx.db, 200);
    return sendOk(req, reply, rows.map((r) => ({ id: r.id, kind: r.kind, detail: r.detail, at: r.created_at.toISOString() })));
  });
}

function limitView(c: { id: string; scope: Scope; scopeId: string | null; window: Window; capUsd: string; notifyOnly: boolean }) {
  return { id: c.id, scope: c.scope, scopeId: c.scopeId, window: c.window, capUsd: fmt8(c.capUsd), notifyOnly: c.notifyOnly };
}
