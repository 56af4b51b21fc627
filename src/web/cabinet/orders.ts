import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readingCtx, type Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { orderCallbackLog, resendOrder } from '../../services/events.js';
import { readSmallExport } from '../../services/exports.js';
import { listDeskViews } from '../../services/operator.js';
import { simulatePayment } from '../../services/orderActions.js';
import { orderPageExtras } from '../../services/orderTimeline.js';
import { findOrderRow, listOrderRows } from '../../services/orders.js';
import { orderFields } from '../../services/orderViews.js';
import type { OrderRow } from '../../services/shapes.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { ButtonForm, withForm } from '../forms.js';
import { orderAppealsSection, timelineSection } from './appealsView.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { messagePage } from './layout.js';
import { ordersCsv, type OrderCsvRow } from './csv.js';
import { ORDER_STATUSES, orderPage, ordersPage, type DeskName, type OrderDetail, type OrderFilters } from './ordersView.js';

/** Orders per list page; the CSV export takes up to 200 (web spec). */
const ORDERS_PAGE = 50;
const CSV_MAX_ROWS = 200;

/** Orders: the filtered list, its CSV export, one order with its actions (simulate, resend). */
export function orderRoutes(app: FastifyInstance, ctx: Ctx): void {
  const desksOf = async (merchantId: string): Promise<DeskName[]> => (await listDeskViews(ctx, { merchantId, limit: 500 })).items.map((d) => ({ id: d.id, name: d.name }));

  app.get('/cabinet/orders', async (req, reply) => {
    const c = cab(req);
    const filters = filtersOf(req);
    const desks = await desksOf(c.merchant.id);
    const before = str(query(req).before, 64) || undefined;
    try {
      const page = await listOrderRows(ctx, { merchantId: c.merchant.id }, { ...listQuery(filters), before, limit: ORDERS_PAGE });
      return sendPage(reply, 200, ordersPage(c, { filters, lines: page.items.map(orderDetail), next: page.hasMore ? page.next : null, desks, error: null }));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return sendPage(reply, 400, ordersPage(c, { filters, lines: [], next: null, desks, error: sentence(err.detail) }));
    }
  });

  app.get('/cabinet/orders.csv', async (req, reply) => {
    const c = cab(req);
    // 200 rows at most (web spec): read whole, holding one of the merchant's export slots.
    const read = await readSmallExport(ctx, 'cabinet-orders', c.merchant.id, () => listOrderRows(readingCtx(ctx), { merchantId: c.merchant.id }, { ...listQuery(filtersOf(req)), limit: CSV_MAX_ROWS }));
    if (!read.ok) {
      const seconds = Math.ceil(read.retryAfterMs / 1000);
      reply.header('Retry-After', String(seconds));
      return sendPage(reply, 429, messagePage(c, 'Exports are being prepared', `Other exports of this account are being downloaded right now. Try again in ${seconds} seconds.`));
    }
    const page = read.value;
    return reply
      .code(200)
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="orders.csv"')
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(ordersCsv(page.items.map(csvRow)));
  });

  app.get('/cabinet/orders/:orderId', async (req, reply) => {
    const c = cab(req);
    const o = await findOrderRow(ctx, { merchantId: c.merchant.id }, param(req, 'orderId'));
    const done = query(req).done;
    // Only an event id is shown back: the query string is the visitor's to write.
    const event = /^evt_[A-Za-z0-9]{1,40}$/.test(str(query(req).event, 64)) ? str(query(req).event, 64) : '';
    const notice =
      done === 'simulated' ? { kind: 'ok' as const, text: 'Payment simulated: the order is completed and its callback is on its way.' }
      : done === 'resent' ? { kind: 'ok' as const, text: `Resent as event ${event || 'with a new id'}.` }
      : null;
    const [{ attempts, appeals, timeline }, desks] = await Promise.all([orderPageExtras(ctx, c.merchant.id, o.id), desksOf(c.merchant.id)]);
    const desk = desks.find((d) => d.id === o.desk_id);
    return sendPage(reply, 200, orderPage(c, orderDetail(o), desk, attempts, notice, html`${timelineSection(timeline)}${orderAppealsSection(c, o.id, o.status, appeals)}`));
  });

  app.post('/cabinet/orders/:orderId/resend', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const r = await resendOrder(ctx, { merchantId: c.merchant.id }, param(req, 'orderId'));
    return seeOther(reply, `/cabinet/orders/${r.orderId}?done=resent&event=${r.eventId}`);
  });

  app.post('/cabinet/orders/:orderId/simulate-payment', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const scope = { merchantId: c.merchant.id };
    const o = await findOrderRow(ctx, scope, param(req, 'orderId'));
    try {
      await simulatePayment(ctx, scope, o.id);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      const fresh = await findOrderRow(ctx, scope, o.id);
      const desk = (await desksOf(c.merchant.id)).find((d) => d.id === o.desk_id);
      return sendPage(reply, 409, orderPage(c, orderDetail(fresh), desk, await orderCallbackLog(ctx, scope, o.id), { kind: 'bad', text: sentence(err.detail) }));
    }
    return seeOther(reply, `/cabinet/orders/${o.id}?done=simulated`);
  });
}

/** Filters from the query string; a malformed one is shown back to be corrected, never dropped silently. */
function filtersOf(req: FastifyRequest): OrderFilters {
  const q = query(req);
  return { status: str(q.status, 20), desk: str(q.desk, 64), from: str(q.from, 40), to: str(q.to, 40), q: str(q.q, 100) };
}

function listQuery(f: OrderFilters) {
  if (f.status && !(ORDER_STATUSES as readonly string[]).includes(f.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${ORDER_STATUSES.join(', ')}`);
  return { status: f.status || undefined, deskId: f.desk || undefined, from: f.from || undefined, to: f.to || undefined, q: f.q || undefined };
}

/** An order as the cabinet shows it: the API's read plus its desk and whether it is a test. */
export function orderDetail(o: OrderRow): OrderDetail {
  const v = orderFields(o);
  return { ...v, description: o.description, deskId: o.desk_id, sandbox: o.sandbox, hasCallbackUrl: o.notify_url !== null };
}

function csvRow(o: OrderRow): OrderCsvRow {
  const v = orderDetail(o);
  return {
    id: v.id,
    orderRef: v.orderRef,
    createdAt: v.createdAt,
    status: v.status,
    amount: v.amount,
    currency: v.currency,
    rate: v.settled.rate,
    settledUsd: v.settled.amount,
    commissionUsd: v.commission.amount,
    creditedUsd: v.credited.amount,
    deskId: v.deskId,
    method: v.method,
    rail: v.rail,
    payerReference: v.payerReference,
    finishedAt: v.finishedAt,
    paidAmount: v.paidAmount,
  };
}
