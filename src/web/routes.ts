import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { assetRoutes } from './assets.js';
import { handlePageError, registerForms } from './formGuard.js';
import { cabinetRoutes } from './cabinet/routes.js';
import type { OfficeExtensions } from './office/kit.js';
import { officeRoutes } from './office/routes.js';
import { payPageRoutes } from './pay/routes.js';
import { sandboxBankRoutes } from './sandbox/bank.js';

/**
 * Every page people open in a browser, and the files those pages load; `office` holds the back-office
 * pages and navigation entries of rooms the pages do not import (src/app passes them).
 */
export async function webRoutes(app: FastifyInstance, ctx: Ctx, office: OfficeExtensions = {}): Promise<void> {
  // Form bodies are parsed in this scope only: the API keeps the raw bytes its signatures need.
  await registerForms(app);
  // A body refused while it was being read (too large even to read, malformed) answers a page too.
  app.setErrorHandler((err, req, reply) => handlePageError(err, req, reply));
  assetRoutes(app);
  payPageRoutes(app, ctx);
  sandboxBankRoutes(app, ctx);
  cabinetRoutes(app, ctx);
  officeRoutes(app, ctx, office);
}
