/**
 * The credits queue in the back office: `GET /office/credits` (filters as `GET /admin/v1/credits`:
 * status, provider, requisite), a credit's page, and the two admin actions, each the operator
 * API's service inside `audited()` with the operator as actor, like every back-office action.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { formOf } from '../../web/forms.js';
import { param, query, str, type Kit } from '../../web/office/kit.js';
import { off } from '../../web/office/session.js';
import { seeOther } from '../../web/session.js';
import { ignoreCredit, matchCreditByOperator } from '../credits.js';
import { creditQueue, orderBrief, poolProviders, queuedCredit } from '../queue.js';
import type { CreditStatus } from '../store.js';
import { amountMismatchPage, creditPage, creditsPage, CREDITS_PATH, type CreditFilters } from './creditsView.js';
import { CREDIT_FILTERS, IgnoreCreditForm, MatchCreditForm } from './forms.js';
import { noticeOf } from './ui.js';

/** Credits on one page of the queue: each is a card with its candidates, so fewer than a list's rows. */
export const QUEUE_PAGE = 25;

const NOTICES = {
  matched: 'Credit matched: the order is completed and the merchant credited.',
  ignored: 'Credit ignored: it left the queue with your reason.',
};

function filtersOf(req: FastifyRequest): CreditFilters {
  const q = query(req);
  const status = str(q.status, 20);
  return {
    status: (CREDIT_FILTERS as readonly string[]).includes(status) ? (status as CreditFilters['status']) : 'unmatched',
    providerId: str(q.providerId, 64),
    requisiteId: str(q.requisiteId, 64),
  };
}

/** Where an action returns: the page it was taken from (checked by the form's pattern), with its notice. */
function backTo(back: string | undefined, done: keyof typeof NOTICES): string {
  const u = new URL(back || CREDITS_PATH, 'http://office.invalid');
  u.searchParams.set('done', done);
  return `${u.pathname}${u.search}`;
}

export function creditPages(app: FastifyInstance, kit: Kit): void {
  const { ctx, page, act, adminPost, objectAction } = kit;

  app.get(CREDITS_PATH, async (req, reply) => {
    const f = filtersOf(req);
    const q = query(req);
    const cursor = str(f.status === 'unmatched' ? q.after : q.before, 64) || null;
    const [list, pools] = await Promise.all([
      creditQueue(ctx, {
        status: f.status === 'any' ? null : (f.status as CreditStatus),
        providerId: f.providerId || null,
        requisiteId: f.requisiteId || null,
        cursor,
        limit: QUEUE_PAGE,
      }),
      poolProviders(ctx),
    ]);
    return page(req, reply, (s) => creditsPage(s, list, f, pools, noticeOf(q.done, NOTICES)));
  });

  app.get(`${CREDITS_PATH}/:id`, async (req, reply) => {
    const [c, pools] = await Promise.all([queuedCredit(ctx, param(req, 'id')), poolProviders(ctx)]);
    return page(req, reply, (s) => creditPage(s, c, new Map(pools.map((p) => [p.id, p.name])), noticeOf(query(req).done, NOTICES)));
  });

  adminPost(`${CREDITS_PATH}/:id/match`, MatchCreditForm, async (req, reply) => {
    const id = param(req, 'id');
    const f = formOf(req, MatchCreditForm);
    const orderId = (f.orderId ?? '').trim();
    if (!orderId) throw new AppError('VALIDATION_ERROR', 'orderId: give the id of the order this credit pays (ord_…)');
    try {
      await act(req, 'credit.match', id, (c) => matchCreditByOperator(c, id, { orderId, force: f.force === 'true' }, off(req).operator.id));
    } catch (err) {
      // Not matched: the amounts differ. The page shows both and offers the forced match.
      if (!(err instanceof AppError) || err.code !== 'AMOUNT_MISMATCH') throw err;
      const [c, o] = await Promise.all([queuedCredit(ctx, id), orderBrief(ctx, orderId)]);
      if (!o) throw err;
      return page(req, reply, (s) => amountMismatchPage(s, c, o, f.back || CREDITS_PATH), 409);
    }
    return seeOther(reply, backTo(f.back, 'matched'));
  });

  objectAction(
    `${CREDITS_PATH}/:id/ignore`,
    'credit.ignore',
    IgnoreCreditForm,
    (c, id, f) => ignoreCredit(c, id, f.reason!.trim()),
    (_id, f) => backTo(f.back, 'ignored'),
    (f) => ((f.reason ?? '').trim() === '' ? 'reason: say why this credit needs no order (1 to 500 characters)' : null),
  );
}
