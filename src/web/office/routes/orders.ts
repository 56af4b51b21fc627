import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { orderCallbackLog, resendOrder } from '../../../services/events.js';
import * as office from '../../../services/office.js';
import * as actions from '../../../services/orderActions.js';
import { getOperatorOrder } from '../../../services/orders.js';
import { ButtonForm, withForm } from '../../forms.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { param, query, sentence, str, type Kit } from '../kit.js';
import { orderPage, ordersPage } from '../views/orders.js';

const ORDER_NOTICES: Record<string, { kind: 'ok'; text: string }> = {
  resent: { kind: 'ok', text: 'The current state was sent as a new event.' },
  confirmed: { kind: 'ok', text: 'Payment confirmed: the order is completed and the merchant credited.' },
  rejected: { kind: 'ok', text: 'Order rejected: it is cancelled.' },
  reversed: { kind: 'ok', text: 'Reversed: what the order had on the balance is taken back.' },
  reported: { kind: 'ok', text: 'Marked paid: the order waits for confirmation.' },
  simulated: { kind: 'ok', text: 'Payment simulated: the order is completed.' },
};

const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute'];

/** A confirmation taken from a queue goes back to that queue. */
function queueBack(from: 'payed' | 'reconcile' | undefined, done: string): string | null {
  return from ? `/office/queues/${from}?done=${done}` : null;
}

/** The order search, one order, and the order actions of the operator API. */
export function orderRoutes(app: FastifyInstance, { ctx, page, act, objectAction }: Kit): void {
  app.get('/office/orders', async (req, reply) => {
    const q = query(req);
    const f = { q: str(q.q, 100), status: str(q.status, 20), merchantId: str(q.merchantId, 64), deskId: str(q.deskId, 64) };
    const before = str(q.before, 64) || undefined;
    try {
      if (f.status && !ORDER_STATUSES.includes(f.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${ORDER_STATUSES.join(', ')}`);
      const list = await office.searchOrders(ctx, { q: f.q || undefined, status: f.status || undefined, merchantId: f.merchantId || undefined, deskId: f.deskId || undefined, before, limit: 50 });
      return page(req, reply, (s) => ordersPage(s, f, list, null));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return page(req, reply, (s) => ordersPage(s, f, { items: [], hasMore: false, next: null }, sentence(err.detail)), 400);
    }
  });
  app.get('/office/orders/:id', async (req, reply) => {
    const o = await getOperatorOrder(ctx, param(req, 'id'));
    const [timeline, callbacks] = await Promise.all([office.orderTimeline(ctx, o), orderCallbackLog(ctx, {}, o.id)]);
    return page(req, reply, (s) => orderPage(s, o, timeline, callbacks, ORDER_NOTICES[str(query(req).done, 20)] ?? null));
  });
  const orderBack = (done: string) => (id: string) => `/office/orders/${id}?done=${done}`;
  objectAction('/office/orders/:id/confirm', 'order.confirm', forms.ConfirmForm, (c, id) => actions.confirmPayment(c, id), (id, f) => queueBack(f.from, 'confirmed') ?? orderBack('confirmed')(id));
  objectAction('/office/orders/:id/reject', 'order.reject', ButtonForm, (c, id) => actions.rejectOrder(c, id), orderBack('rejected'));
  objectAction('/office/orders/:id/report-payment', 'order.reportPayment', ButtonForm, (c, id) => actions.reportPayment(c, id, null), orderBack('reported'));
  objectAction('/office/orders/:id/simulate-payment', 'order.simulatePayment', ButtonForm, (c, id) => actions.simulatePayment(c, {}, id), orderBack('simulated'));
  objectAction('/office/orders/:id/reverse', 'order.reverse', forms.ReverseForm, (c, id, f) => actions.reverseOrder(c, id, str(f.reason, 500)), orderBack('reversed'), (f) =>
    str(f.reason, 500) ? null : 'Reason: say why the order is reversed',
  );
  // Support resends too.
  app.post('/office/orders/:id/resend', withForm(ButtonForm), async (req, reply) => {
    const id = param(req, 'id');
    await act(req, 'order.resend', id, (c) => resendOrder(c, {}, id));
    return seeOther(reply, `/office/orders/${id}?done=resent`);
  });
}
