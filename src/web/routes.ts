import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { assetRoutes } from './assets.js';
import { cabinetRoutes } from './cabinet/routes.js';
import { officeRoutes } from './office/routes.js';
import { payPageRoutes } from './pay/routes.js';
import { sandboxBankRoutes } from './sandbox/bank.js';

/** Every page people open in a browser, and the files those pages load. */
export async function webRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  assetRoutes(app);
  payPageRoutes(app, ctx);
  sandboxBankRoutes(app, ctx);
  cabinetRoutes(app, ctx);
  officeRoutes(app, ctx);
}
