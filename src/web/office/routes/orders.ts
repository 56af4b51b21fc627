import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { orderCallbackLog, resendOrder } from '../../../services/events.js';
import * as office from '../../../services/office.js';
import * as actions from '../../../services/orderActions.js';
import { getOperatorOrder } from '../../../services/orders.js';
import { ButtonForm, withForm } from '../../forms.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { param, query, sentence, str, type Kit } from '../kit.js';
import { sendCsv, type CsvColumn } from '../csv.js';
import { modeOf } from '../kit.js';
import { orderPage, ordersPage, type OrderFilters, type OrderItem } from '../views/orders.js';

/** The orders page's filters from its query, each as typed (an empty string when not given). */
function orderFilters(req: FastifyRequest): OrderFilters {
  const q = query(req);
  const out = {} as OrderFilters;
  for (const k of office.ORDER_FILTERS) out[k] = str(q[k], k === 'q' ? 255 : 64);
  return out;
}

/** The orders export: every field of the operator's order, exact decimal strings. */
export const ORDER_COLUMNS: CsvColumn<OrderItem>[] = [
  { name: 'id', value: (o) => o.id },
  { name: 'orderRef', value: (o) => o.orderRef },
  { name: 'createdAt', value: (o) => o.createdAt },
  { name: 'status', value: (o) => o.status },
  { name: 'subStatus', value: (o) => o.subStatus },
  { name: 'sandbox', value: (o) => o.sandbox },
  { name: 'merchantId', value: (o) => o.merchantId },
  { name: 'deskId', value: (o) => o.deskId },
  { name: 'providerId', value: (o) => o.providerId },
  { name: 'method', value: (o) => o.method },
  { name: 'rail', value: (o) => o.rail },
  { name: 'amount', value: (o) => o.amount },
  { name: 'currency', value: (o) => o.currency },
  { name: 'rate', value: (o) => o.settled.rate },
  { name: 'settledUsd', value: (o) => o.settled.amount },
  { name: 'commissionRate', value: (o) => o.commission.rate },
  { name: 'commissionUsd', value: (o) => o.commission.amount },
  { name: 'creditedUsd', value: (o) => o.credited.amount },
  { name: 'payerReference', value: (o) => o.payerReference },
  { name: 'cancelReason', value: (o) => o.cancelReason },
  { name: 'expiresAt', value: (o) => o.expiresAt },
  { name: 'finishedAt', value: (o) => o.finishedAt },
];

const ORDER_NOTICES: Record<string, { kind: 'ok'; text: string }> = {
  resent: { kind: 'ok', text: 'The current state was sent as a new event.' },
  confirmed: { kind: 'ok', text: 'Payment confirmed: the order is completed and the merchant credited.' },
  rejected: { kind: 'ok', text: 'Order rejected: it is cancelled.' },
  reversed: { kind: 'ok', text: 'Reversed: what the order had on the balance is taken back.' },
  reported: { kind: 'ok', text: 'Marked paid: the order waits for confirmation.' },
  simulated: { kind: 'ok', text: 'Payment simulated: the order is completed.' },
};

/** A confirmation taken from a queue goes back to that queue. */
function queueBack(from: 'payed' | 'reconcile' | undefined, done: string): string | null {
  return from ? `/office/queues/${from}?done=${done}` : null;
}

/** The order search, one order, and the order actions of the operator API. */
export function orderRoutes(app: FastifyInstance, { ctx, page, act, objectAction }: Kit): void {
  app.get('/office/orders', async (req, reply) => {
    const f = orderFilters(req);
    const before = str(query(req).before, 64) || undefined;
    try {
      const list = await office.searchOrders(ctx, f, { sandbox: modeOf(req) === 'sandbox', before, limit: 50 });
      return page(req, reply, (s) => ordersPage(s, f, list, null));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return page(req, reply, (s) => ordersPage(s, f, { items: [], hasMore: false, next: null }, sentence(err.detail)), 400);
    }
  });
  app.get('/office/orders.csv', async (req, reply) => {
    const mode = modeOf(req);
    const rows = office.exportOrders(ctx, orderFilters(req), mode === 'sandbox');
    return sendCsv(ctx, reply, `orders-${mode}.csv`, ORDER_COLUMNS, rows);
  });
  app.get('/office/orders/:id', async (req, reply) => {
    const o = await getOperatorOrder(ctx, param(req, 'id'));
    const [timeline, callbacks] = await Promise.all([office.orderTimeline(ctx, o), orderCallbackLog(ctx, {}, o.id)]);
    return page(req, reply, (s) => orderPage(s, o, timeline, callbacks, ORDER_NOTICES[str(query(req).done, 20)] ?? null));
  });
  const orderBack = (done: string) => (id: string) => `/office/orders/${id}?done=${done}`;
  objectAction('/office/orders/:id/confirm', 'order.confirm', forms.ConfirmForm, (c, id) => actions.confirmPayment(c, id), (id, f) => queueBack(f.from, 'confirmed') ?? orderBack('confirmed')(id));
  objectAction('/office/orders/:id/reject', 'order.reject', ButtonForm, (c, id) => actions.rejectOrder(c, id), orderBack('rejected'));
  objectAction('/office/orders/:id/report-payment', 'order.reportPayment', forms.ReportPaymentForm, (c, id, f) => actions.reportPayment(c, id, str(f.payerReference, 255) || null), orderBack('reported'));
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
