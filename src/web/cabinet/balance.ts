import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { merchantBalance } from '../../services/balance.js';
import { sendPage } from '../layout.js';
import { balancePage } from './balanceView.js';
import { cab, query, str } from './common.js';

const LEDGER_PAGE = 50;

/** The balance page: available balance, ledger, totals per day and the 30-day chart. */
export function balanceRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/balance', async (req, reply) => {
    const c = cab(req);
    const before = str(query(req).before, 20) || undefined;
    return sendPage(reply, 200, balancePage(c, await merchantBalance(ctx, c.merchant.id, { before, limit: LEDGER_PAGE })));
  });
}
