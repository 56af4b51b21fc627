import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { sendOk } from '../errors.js';
import { balanceOf, methodsFor, ratesFor } from '../../services/gatewayReads.js';
import { AppError } from '../../domain/errors.js';

export async function gatewayRoutes(gw: FastifyInstance, ctx: Ctx): Promise<void> {
  gw.get('/methods', async (req, reply) => sendOk(req, reply, await methodsFor(ctx, req.desk!)));

  gw.get('/rates', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const filter = q.currency;
    if (filter !== undefined && typeof filter !== 'string') throw new AppError('VALIDATION_ERROR', 'currency: must be given once');
    return sendOk(req, reply, await ratesFor(ctx, req.desk!, filter));
  });

  gw.get('/balance', async (req, reply) => sendOk(req, reply, await balanceOf(ctx, req.desk!)));
}
