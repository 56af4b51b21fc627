import type { FastifyInstance } from 'fastify';
import * as office from '../../../services/office.js';
import { doneOf, modeOf, query, str, type Kit } from '../kit.js';
import { homePage } from '../views/dashboard.js';
import { appealQueuePage, callbackQueuePage, payedQueuePage, reconcileQueuePage, reviewQueuePage } from '../views/queues.js';

/** The dashboard and the work queues. */
export function queueRoutes(app: FastifyInstance, { ctx, page }: Kit): void {
  app.get('/office', async (req, reply) => {
    const d = await office.dashboard(ctx, modeOf(req) === 'sandbox');
    return page(req, reply, (s) => homePage(s, d));
  });
  app.get('/office/queues/review', async (req, reply) => {
    const rows = await office.reviewQueue(ctx);
    return page(req, reply, (s) => reviewQueuePage(s, rows, doneOf(req)));
  });
  app.get('/office/queues/appeals', async (req, reply) => {
    const rows = await office.appealQueue(ctx, str(query(req).after, 64) || undefined);
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
  app.get('/office/queues/callbacks', async (req, reply) => {
    const rows = await office.callbackQueue(ctx);
    return page(req, reply, (s) => callbackQueuePage(s, rows));
  });
}
