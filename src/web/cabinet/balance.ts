import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { merchantBalance } from '../../services/balance.js';
import { merchantFundsView, merchantWithdrawals } from '../../services/withdrawalRequests.js';
import { sendPage } from '../layout.js';
import { balancePage } from './balanceView.js';
import { cab, query, str } from './common.js';

const LEDGER_PAGE = 50;
/** The newest withdrawal requests the balance page shows; the withdrawals page lists more. */
const REQUESTS_SHOWN = 5;

/** The balance page: the balances, what withdrawal requests hold and their latest, ledger, totals per day and the 30-day chart. */
export function balanceRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/balance', async (req, reply) => {
    const c = cab(req);
    const before = str(query(req).before, 20) || undefined;
    const [balance, funds, requests] = await Promise.all([
      merchantBalance(ctx, c.merchant.id, { before, limit: LEDGER_PAGE }),
      merchantFundsView(ctx, c.merchant.id),
      merchantWithdrawals(ctx, c.merchant.id, REQUESTS_SHOWN),
    ]);
    return sendPage(reply, 200, balancePage(c, balance, { funds, requests }));
  });
}
