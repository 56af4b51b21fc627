import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { handleError } from '../server/errors.js';
import { assetRoutes } from './assets.js';
import { registerFormGuard, sendFormProblem } from './formGuard.js';
import { cabinetRoutes } from './cabinet/routes.js';
import { officeRoutes } from './office/routes.js';
import { payPageRoutes } from './pay/routes.js';
import { sandboxBankRoutes } from './sandbox/bank.js';

/** Every page people open in a browser, and the files those pages load. */
export async function webRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  registerFormGuard(app);
  // A body refused while it was being read (too large even to read, malformed) answers a page too.
  app.setErrorHandler((err, req, reply) => {
    const e = err as { statusCode?: number; code?: string };
    if (e.statusCode === 413) return sendFormProblem(req, reply, 'tooLarge');
    if (typeof e.code === 'string' && e.code.startsWith('FST_ERR_CTP_')) return sendFormProblem(req, reply, 'malformed');
    return handleError(err, req, reply);
  });
  assetRoutes(app);
  payPageRoutes(app, ctx);
  sandboxBankRoutes(app, ctx);
  cabinetRoutes(app, ctx);
  officeRoutes(app, ctx);
}
