import type { FastifyInstance } from 'fastify';
import * as office from '../../../services/office.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import { doneOf, modeOf, query, str, type Kit } from '../kit.js';
import { ORDER_COLUMNS } from './orders.js';
import { homePage } from '../views/dashboard.js';
import { appealQueuePage, callbackQueuePage, payedQueuePage, reconcileQueuePage } from '../views/queues.js';
import { applicationQueuePage, setupChecklist } from '../views/applications.js';
import { platformSetup } from '../../../services/platformSetup.js';

type Review = Awaited<ReturnType<typeof office.reviewQueue>>;
/** A row of the review queue's export: a submitted application, or a merchant under review without one. */
type ReviewItem = Review['notApplied'][number] & { application: Review['items'][number]['application'] | null };
type EndpointItem = Awaited<ReturnType<typeof office.callbackQueue>>[number];

const REVIEW_COLUMNS: CsvColumn<ReviewItem>[] = [
  { name: 'merchantId', value: (i) => i.merchantId },
  { name: 'name', value: (i) => i.merchantName },
  { name: 'applicationStatus', value: (i) => i.applicationStatus },
  { name: 'submittedAt', value: (i) => i.application?.submittedAt ?? null },
  { name: 'legalName', value: (i) => i.application?.legalName ?? null },
  { name: 'country', value: (i) => i.application?.country ?? null },
  { name: 'website', value: (i) => i.application?.website ?? null },
  { name: 'description', value: (i) => i.application?.description ?? null },
  { name: 'monthlyVolumeUsd', value: (i) => i.application?.monthlyVolumeUsd ?? null },
  { name: 'contact', value: (i) => i.application?.contact ?? null },
  { name: 'merchantCreatedAt', value: (i) => i.createdAt },
  { name: 'desks', value: (i) => i.desks },
  { name: 'sandboxOrders', value: (i) => i.sandboxOrders },
  { name: 'sandboxCompleted', value: (i) => i.sandboxCompleted },
];

/** The queue's rows as its page shows them: submitted applications first, then the merchants that have not applied. */
const reviewRows = (q: Review): ReviewItem[] => [
  ...q.items.map((i) => ({ ...i, applicationStatus: i.application.status })),
  ...q.notApplied.map((m) => ({ ...m, application: null })),
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
    const [d, sections, setup] = await Promise.all([office.dashboard(ctx, modeOf(req) === 'sandbox'), homeSections(req), platformSetup(ctx)]);
    // Until the platform is set up for live payments, its checklist comes first.
    return page(req, reply, (s) => homePage(s, d, sections, setupChecklist(setup)));
  });
  app.get('/office/queues/review', async (req, reply) => {
    const queue = await office.reviewQueue(ctx);
    return page(req, reply, (s) => applicationQueuePage(s, queue, doneOf(req)));
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
  app.get('/office/queues/review.csv', async (_req, reply) => sendCsv(ctx, reply, 'review.csv', REVIEW_COLUMNS, listed(async () => reviewRows(await office.reviewQueue(ctx)))));
  app.get('/office/queues/payed.csv', async (_req, reply) => sendCsv(ctx, reply, 'payments-to-confirm.csv', ORDER_COLUMNS, listed(() => office.payedQueue(ctx))));
  app.get('/office/queues/reconcile.csv', async (_req, reply) => sendCsv(ctx, reply, 'to-reconcile.csv', ORDER_COLUMNS, listed(() => office.reconcileQueue(ctx))));
  app.get('/office/queues/callbacks.csv', async (_req, reply) => sendCsv(ctx, reply, 'failing-callbacks.csv', ENDPOINT_COLUMNS, listed(() => office.callbackQueue(ctx))));
  app.get('/office/queues/callbacks', async (req, reply) => {
    const rows = await office.callbackQueue(ctx);
    return page(req, reply, (s) => callbackQueuePage(s, rows));
  });
}
