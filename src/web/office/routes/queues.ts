import type { FastifyInstance } from 'fastify';
import * as office from '../../../services/office.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import { doneOf, modeOf, query, str, type Kit } from '../kit.js';
import { ORDER_COLUMNS } from './orders.js';
import { homePage } from '../views/dashboard.js';
import { appealQueuePage, callbackQueuePage, payedQueuePage, reconcileQueuePage, reviewQueuePage } from '../views/queues.js';

type ReviewItem = Awaited<ReturnType<typeof office.reviewQueue>>[number];
type EndpointItem = Awaited<ReturnType<typeof office.callbackQueue>>[number];

const REVIEW_COLUMNS: CsvColumn<ReviewItem>[] = [
  { name: 'id', value: (m) => m.id },
  { name: 'name', value: (m) => m.name },
  { name: 'sandbox', value: (m) => m.sandbox },
  { name: 'createdAt', value: (m) => m.createdAt },
  { name: 'desks', value: (m) => m.desks },
  { name: 'sandboxOrders', value: (m) => m.sandboxOrders },
  { name: 'sandboxCompleted', value: (m) => m.sandboxCompleted },
];

const ENDPOINT_COLUMNS: CsvColumn<EndpointItem>[] = [
  { name: 'deskId', value: (r) => r.deskId },
  { name: 'merchantId', value: (r) => r.merchantId },
  { name: 'url', value: (r) => r.url },
  { name: 'failed', value: (r) => r.failed },
  { name: 'retrying', value: (r) => r.retrying },
  { name: 'lastEventAt', value: (r) => r.lastEventAt },
  { name: 'lastError', value: (r) => r.lastError },
];

/** The dashboard and the work queues, each queue with its export (the rows its page shows). */
export function queueRoutes(app: FastifyInstance, { ctx, page, homeSections }: Kit): void {
  app.get('/office', async (req, reply) => {
    const [d, sections] = await Promise.all([office.dashboard(ctx, modeOf(req) === 'sandbox'), homeSections(req)]);
    return page(req, reply, (s) => homePage(s, d, sections));
  });
  app.get('/office/queues/review', async (req, reply) => {
    const rows = await office.reviewQueue(ctx);
    return page(req, reply, (s) => reviewQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/appeals', async (req, reply) => {
    const rows = await office.appealQueue(ctx, str(query(req).after, 64) || undefined, modeOf(req) === 'sandbox');
    return page(req, reply, (s) => appealQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/payed', async (req, reply) => {
    const rows = await office.payedQueue(ctx);
    return page(req, reply, (s) => payedQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/reconcile', async (req, reply) => {
    const rows = await office.reconcileQueue(ctx);
    return page(req, reply, (s) => reconcileQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/review.csv', async (_req, reply) => sendCsv(reply, 'review.csv', REVIEW_COLUMNS, listed(await office.reviewQueue(ctx))));
  app.get('/office/queues/payed.csv', async (_req, reply) => sendCsv(reply, 'payments-to-confirm.csv', ORDER_COLUMNS, listed(await office.payedQueue(ctx))));
  app.get('/office/queues/reconcile.csv', async (_req, reply) => sendCsv(reply, 'to-reconcile.csv', ORDER_COLUMNS, listed(await office.reconcileQueue(ctx))));
  app.get('/office/queues/callbacks.csv', async (_req, reply) => sendCsv(reply, 'failing-callbacks.csv', ENDPOINT_COLUMNS, listed(await office.callbackQueue(ctx))));
  app.get('/office/queues/callbacks', async (req, reply) => {
    const rows = await office.callbackQueue(ctx);
    return page(req, reply, (s) => callbackQueuePage(s, rows));
  });
}
