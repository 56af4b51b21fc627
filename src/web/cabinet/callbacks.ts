import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { failingDeliveries, redeliverFailed } from '../../services/events.js';
import { listDeskViews } from '../../services/operator.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { formOf, withForm } from '../forms.js';
import { RedeliverForm } from './forms.js';
import { callbacksPage } from './callbacksView.js';
import { cab, query, str } from './common.js';

const FAILING_PAGE = 50;

/** `YYYY-MM-DDTHH:MM` (a datetime-local field, read as UTC) or a full ISO 8601 time; anything else is NaN. */
export function sinceOf(text: string): Date {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return new Date(`${text}Z`);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return new Date(text);
  return new Date(Number.NaN);
}

/** The callbacks page: failing deliveries across the merchant's desks and "redeliver since". */
export function callbackRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/callbacks', async (req, reply) => {
    const c = cab(req);
    const q = query(req);
    const [page, desks] = await Promise.all([
      failingDeliveries(ctx, c.merchant.id, { before: str(q.before, 20) || undefined, limit: FAILING_PAGE }),
      listDeskViews(ctx, { merchantId: c.merchant.id, limit: 500 }),
    ]);
    const count = str(q.redelivered, 10);
    const notice = /^\d+$/.test(count) ? `${count} event${count === '1' ? '' : 's'} will be sent again within seconds.` : null;
    const sinceDefault = new Date(ctx.clock.now() - 86_400_000).toISOString().slice(0, 16);
    return sendPage(reply, 200, callbacksPage(c, { lines: page.items, desks: desks.items.map((d) => ({ id: d.id, name: d.name })), next: page.next, sinceDefault, notice, error: null }));
  });

  app.post('/cabinet/callbacks/redeliver', withForm(RedeliverForm), async (req, reply) => {
    const c = cab(req);
    const r = await redeliverFailed(ctx, c.merchant.id, c.user.id, sinceOf(str(formOf(req, RedeliverForm).since, 40)));
    return seeOther(reply, `/cabinet/callbacks?redelivered=${r.eventIds.length}`);
  });
}
