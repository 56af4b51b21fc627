import type { FastifyInstance } from 'fastify';
import * as office from '../../../services/office.js';
import type { Kit } from '../kit.js';
import { tariffsPage } from '../views/tariffs.js';

/** Tariffs and their fee bands. */
export function tariffRoutes(app: FastifyInstance, { ctx, page }: Kit): void {
  app.get('/office/tariffs', async (req, reply) => {
    const list = await office.listTariffViews(ctx);
    return page(req, reply, (s) => tariffsPage(s, list));
  });
}
