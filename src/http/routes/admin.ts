import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { isIsoCurrency } from '../../domain/catalogue.js';
import * as op from '../../services/operator.js';
import { sendOk } from '../errors.js';
import { field, jsonBody } from '../validate.js';

const idParam = (req: FastifyRequest) => (req.params as { id: string }).id;

function currencyParam(req: FastifyRequest): string {
  const code = (req.params as { code: string }).code;
  if (!/^[A-Z]{3}$/.test(code) || !isIsoCurrency(code)) throw new AppError('VALIDATION_ERROR', `code: ${code} is not an ISO 4217 code`);
  return code;
}

function deskInput(b: Record<string, unknown>): op.DeskInput {
  return {
    method: field.string(b, 'method') ?? undefined,
    rails: field.stringArray(b, 'rails'),
    currencies: field.stringArray(b, 'currencies'),
    minUsd: field.decimal(b, 'minUsd') ?? undefined,
    maxUsd: field.decimal(b, 'maxUsd') ?? undefined,
    callbackUrl: field.string(b, 'callbackUrl', { nullable: true, max: 2048 }),
    callbacksEnabled: field.boolean(b, 'callbacksEnabled'),
    tariffId: field.string(b, 'tariffId', { nullable: true }),
    enabled: field.boolean(b, 'enabled'),
  };
}

export async function adminRoutes(admin: FastifyInstance, ctx: Ctx): Promise<void> {
  // ---- merchants
  admin.post('/merchants', async (req, reply) => {
    const b = jsonBody(req.body);
    const name = field.requiredString(b, 'name', { max: 200 });
    const sandbox = field.boolean(b, 'sandbox') ?? true;
    return sendOk(req, reply, await op.createMerchant(ctx, { name, sandbox }), 201);
  });
  admin.get('/merchants/:id', async (req, reply) => sendOk(req, reply, await op.getMerchant(ctx, idParam(req))));
  admin.post('/merchants/:id/approve', async (req, reply) => sendOk(req, reply, await op.approveMerchant(ctx, idParam(req))));
  admin.post('/merchants/:id/block', async (req, reply) => {
    const b = jsonBody(req.body);
    return sendOk(req, reply, await op.blockMerchant(ctx, idParam(req), field.string(b, 'reason', { nullable: true, max: 500 }) ?? null));
  });
  admin.post('/merchants/:id/unblock', async (req, reply) => sendOk(req, reply, await op.unblockMerchant(ctx, idParam(req))));
  admin.patch('/merchants/:id', async (req, reply) => {
    const b = jsonBody(req.body);
    const patch = { sandbox: field.boolean(b, 'sandbox'), name: field.string(b, 'name', { min: 1, max: 200 }) ?? undefined };
    return sendOk(req, reply, await op.patchMerchant(ctx, idParam(req), patch));
  });

  // ---- tariffs
  admin.post('/tariffs', async (req, reply) => {
    const b = jsonBody(req.body);
    const name = field.requiredString(b, 'name', { max: 200 });
    return sendOk(req, reply, await op.createTariff(ctx, { name, bands: op.validateBands(b.bands) }), 201);
  });

  // ---- desks
  admin.post('/merchants/:id/desks', async (req, reply) => {
    const d = deskInput(jsonBody(req.body));
    if (d.method === undefined) throw new AppError('VALIDATION_ERROR', 'method: is required');
    const desk = await op.createDesk(ctx, idParam(req), {
      method: d.method,
      rails: d.rails ?? [],
      currencies: d.currencies ?? [],
      minUsd: d.minUsd ?? '0',
      maxUsd: d.maxUsd ?? '0',
      callbackUrl: d.callbackUrl ?? null,
      callbacksEnabled: d.callbacksEnabled ?? true,
      tariffId: d.tariffId ?? null,
    });
    return sendOk(req, reply, desk, 201);
  });
  admin.get('/desks/:id', async (req, reply) => sendOk(req, reply, await op.getDesk(ctx, idParam(req))));
  admin.patch('/desks/:id', async (req, reply) => {
    const b = jsonBody(req.body);
    if ('method' in b) throw new AppError('VALIDATION_ERROR', 'method: a cash desk keeps its method for life');
    return sendOk(req, reply, await op.patchDesk(ctx, idParam(req), deskInput(b)));
  });
  admin.post('/desks/:id/stop', async (req, reply) => {
    const reason = field.requiredString(jsonBody(req.body), 'reason', { max: 500 });
    return sendOk(req, reply, await op.stopDesk(ctx, idParam(req), reason));
  });
  admin.post('/desks/:id/resume', async (req, reply) => sendOk(req, reply, await op.resumeDesk(ctx, idParam(req))));
  admin.post('/desks/:id/secret', async (req, reply) => sendOk(req, reply, await op.rotateDeskSecret(ctx, idParam(req))));

  // ---- currencies and rates
  admin.put('/currencies/:code', async (req, reply) => {
    const code = currencyParam(req);
    const b = jsonBody(req.body);
    const input = { enabled: field.boolean(b, 'enabled'), spreadPercent: field.decimal(b, 'spreadPercent', { places: 4 }) ?? undefined };
    return sendOk(req, reply, await op.putCurrency(ctx, code, input));
  });
  admin.put('/rates/:code', async (req, reply) => {
    const code = currencyParam(req);
    const b = jsonBody(req.body);
    const rate = field.decimal(b, 'rate', { places: 8 });
    if (rate === undefined || rate === null) throw new AppError('VALIDATION_ERROR', 'rate: is required');
    return sendOk(req, reply, await op.putManualRate(ctx, code, rate));
  });
  // Operators see every rate with its source, age and flag (a refused market jump keeps the last good rate).
  admin.get('/rates', async (req, reply) => sendOk(req, reply, await op.listRateViews(ctx)));
  admin.get('/currencies', async (req, reply) => sendOk(req, reply, await op.listCurrencyViews(ctx)));
  admin.delete('/rates/:code', async (req, reply) => sendOk(req, reply, await op.deleteManualRate(ctx, currencyParam(req))));
}
