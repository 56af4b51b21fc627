import type { FastifyInstance } from 'fastify';
import { payWithdrawalRequest, rejectWithdrawalRequest, withdrawalQueue, type WithdrawalQueueLine } from '../../../services/withdrawalRequests.js';
import { formOf } from '../../forms.js';
import { seeOther } from '../../session.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import * as forms from '../forms.js';
import { doneOf, param, str, type Kit } from '../kit.js';
import { off } from '../session.js';
import { withdrawalQueuePage } from '../views/withdrawals.js';

const QUEUE_COLUMNS: CsvColumn<WithdrawalQueueLine>[] = [
  { name: 'id', value: (w) => w.id },
  { name: 'createdAt', value: (w) => w.createdAt },
  { name: 'merchantId', value: (w) => w.merchantId },
  { name: 'merchantName', value: (w) => w.merchantName },
  { name: 'amountUsd', value: (w) => w.amountUsd },
  { name: 'destinationId', value: (w) => w.destination.id },
  { name: 'kind', value: (w) => w.destination.kind },
  { name: 'label', value: (w) => w.destination.label },
  { name: 'address', value: (w) => w.destination.address },
  { name: 'iban', value: (w) => w.destination.iban },
  { name: 'account', value: (w) => w.destination.account },
  { name: 'holder', value: (w) => w.destination.holder },
  { name: 'bank', value: (w) => w.destination.bank },
];

/**
 * The queue of withdrawal requests with its export, and the two decisions: each as its operator
 * API counterpart (`POST /admin/v1/withdrawal-requests/{id}/paid`, `/reject`), admins only, in
 * `audited()` with the operator as actor and as the one who decided.
 */
export function withdrawalRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  app.get('/office/queues/withdrawals', async (req, reply) => {
    const q = await withdrawalQueue(ctx);
    return page(req, reply, (s) => withdrawalQueuePage(s, q, doneOf(req)));
  });
  app.get('/office/queues/withdrawals.csv', async (_req, reply) => sendCsv(ctx, reply, 'withdrawals-to-pay.csv', QUEUE_COLUMNS, listed(async () => (await withdrawalQueue(ctx)).open)));

  adminPost('/office/withdrawals/:id/paid', forms.WithdrawalPaidForm, async (req, reply) => {
    const id = param(req, 'id');
    const operatorId = off(req).operator.id;
    await act(req, 'withdrawal.pay', id, (c) => payWithdrawalRequest(c, id, str(formOf(req, forms.WithdrawalPaidForm).reference, 400), operatorId));
    return seeOther(reply, '/office/queues/withdrawals?done=withdrawal-paid');
  });
  adminPost('/office/withdrawals/:id/reject', forms.WithdrawalRejectForm, async (req, reply) => {
    const id = param(req, 'id');
    const operatorId = off(req).operator.id;
    await act(req, 'withdrawal.reject', id, (c) => rejectWithdrawalRequest(c, id, str(formOf(req, forms.WithdrawalRejectForm).reason, 1000), operatorId));
    return seeOther(reply, '/office/queues/withdrawals?done=withdrawal-reject');
  });
}
