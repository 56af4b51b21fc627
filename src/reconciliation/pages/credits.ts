/**
 * The credits queue in the back office: `GET /office/credits` (filters as `GET /admin/v1/credits`:
 * status, provider, requisite), a credit's page with the statement entries that evidence it, and
 * the admin actions, each the operator API's service with the operator as actor, like every
 * back-office action: match (a refusal a person can weigh answered with its own page), ignore,
 * and ignore the whole filtered queue with one reason.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { ACCOUNT_KEYS } from '../../domain/requisites.js';
import { formOf } from '../../web/forms.js';
import { param, query, str, type Kit } from '../../web/office/kit.js';
import { off } from '../../web/office/session.js';
import { isAdmin } from '../../web/office/ui.js';
import { seeOther } from '../../web/session.js';
import { getCreditView, ignoreCredit, ignoreCredits, matchCreditByOperator } from '../credits.js';
import { creditQueue, orderBrief, orderRequisite, poolProviders, queuedCredit, unmatchedCreditIds } from '../queue.js';
import { getRequisiteView } from '../requisites.js';
import { getStatementView } from '../statementImport.js';
import type { CreditStatus } from '../store.js';
import {
  creditPage,
  creditsPage,
  matchRefusedPage,
  CREDITS_PATH,
  type CreditFilters,
  type Evidence,
  type MatchRefusal,
  type QueueSelection,
  type RequisiteBrief,
} from './creditsView.js';
import { CREDIT_FILTERS, IGNORE_MAX, IgnoreCreditForm, IgnoreQueueForm, MatchCreditForm } from './forms.js';
import { noticeOf } from './ui.js';

/** Credits on one page of the queue: each is a card with its candidates, so fewer than a list's rows. */
export const QUEUE_PAGE = 25;

const NOTICES = {
  matched: 'Credit matched: the order is completed and the merchant credited.',
  ignored: 'Credit ignored: it left the queue with your reason.',
};

/** The refusals of a match answered with a page that shows both sides (the others are a message page). */
const REFUSALS: ReadonlySet<string> = new Set<MatchRefusal>(['AMOUNT_MISMATCH', 'REQUISITE_MISMATCH', 'SANDBOX_ORDER']);

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
function backTo(back: string | undefined, done: string, extra: Record<string, string> = {}): string {
  const u = new URL(back || CREDITS_PATH, 'http://office.invalid');
  u.searchParams.set('done', done);
  for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
  return `${u.pathname}${u.search}`;
}

/** The notice after "ignore this queue": how many were ignored, and how many had left the queue meanwhile. Numbers only come from the query. */
function queueIgnoredNotice(q: Record<string, unknown>): string | null {
  if (q.done !== 'ignored-queue') return null;
  const n = /^\d{1,3}$/.test(str(q.n, 3)) ? Number(q.n) : 0;
  const of = /^\d{1,3}$/.test(str(q.of, 3)) ? Number(q.of) : n;
  const left = Math.max(0, of - n);
  return `${n} credit${n === 1 ? '' : 's'} ignored: ${n === 1 ? 'it' : 'they'} left the queue with your reason.${left ? ` ${left} of those shown had been matched or ignored meanwhile and stayed as they were.` : ''}`;
}

/** The payment keys that name a requisite's account, in the order a person recognises them by. */
/** What names a requisite to a person: its account first, a payment URL last. */
const PAYABLE = [...ACCOUNT_KEYS, 'url'] as const;

/** A requisite by id with its label, for a refused match's page (an id that names none is shown bare). */
async function requisiteBrief(ctx: Ctx, id: string | null): Promise<RequisiteBrief | null> {
  if (!id) return null;
  try {
    const r = await getRequisiteView(ctx, id);
    const detail = PAYABLE.map((k) => r.payment[k]).find((v) => !!v) ?? null;
    return { id: r.id, label: r.label, detail };
  } catch (err) {
    if (err instanceof AppError && err.code === 'REQUISITE_NOT_FOUND') return { id, label: null, detail: null };
    throw err;
  }
}

/** The statement entries that evidence a credit, with their statements' file names. */
async function evidenceOf(ctx: Ctx, id: string): Promise<Evidence[]> {
  const { statementEntries } = await getCreditView(ctx, id);
  const names = new Map(
    await Promise.all([...new Set(statementEntries.map((e) => e.statementId))].map(async (sid) => [sid, (await getStatementView(ctx, sid, { limit: 0 })).filename] as const)),
  );
  return statementEntries.map((e) => ({ ...e, fileName: names.get(e.statementId) ?? null }));
}

export function creditPages(app: FastifyInstance, kit: Kit): void {
  const { ctx, page, act, adminPost, objectAction } = kit;

  app.get(CREDITS_PATH, async (req, reply) => {
    const f = filtersOf(req);
    const q = query(req);
    const cursor = str(f.status === 'unmatched' ? q.after : q.before, 64) || null;
    const scope = { providerId: f.providerId || null, requisiteId: f.requisiteId || null };
    const [list, pools] = await Promise.all([
      creditQueue(ctx, { status: f.status === 'any' ? null : (f.status as CreditStatus), ...scope, cursor, limit: QUEUE_PAGE }),
      poolProviders(ctx),
    ]);
    // What "ignore this queue" ignores: from its first credit, as counted now (a later page is the same queue).
    let selection: QueueSelection | null = null;
    if (f.status === 'unmatched' && isAdmin(off(req)) && list.items.length > 0) {
      selection = !list.next && !cursor ? { ids: list.items.map((c) => c.id), more: false } : await unmatchedCreditIds(ctx, scope, IGNORE_MAX);
    }
    return page(req, reply, (s) => creditsPage(s, list, f, pools, noticeOf(q.done, NOTICES) ?? queueIgnoredNotice(q), selection));
  });

  app.get(`${CREDITS_PATH}/:id`, async (req, reply) => {
    const id = param(req, 'id');
    const [c, pools] = await Promise.all([queuedCredit(ctx, id), poolProviders(ctx)]);
    const evidence = await evidenceOf(ctx, c.id);
    return page(req, reply, (s) => creditPage(s, c, new Map(pools.map((p) => [p.id, p.name])), noticeOf(query(req).done, NOTICES), evidence));
  });

  adminPost(`${CREDITS_PATH}/:id/match`, MatchCreditForm, async (req, reply) => {
    const id = param(req, 'id');
    const f = formOf(req, MatchCreditForm);
    const orderId = (f.orderId ?? '').trim();
    if (!orderId) throw new AppError('VALIDATION_ERROR', 'orderId: give the id of the order this credit pays (ord_…)');
    try {
      await act(req, 'credit.match', id, (c) => matchCreditByOperator(c, id, { orderId, force: f.force === 'true' }, off(req).operator.id));
    } catch (err) {
      // Not matched for a reason a person weighs: the page shows both sides, and the forced match where the contract allows it.
      if (!(err instanceof AppError) || !REFUSALS.has(err.code)) throw err;
      const [c, o, orderReq] = await Promise.all([queuedCredit(ctx, id), orderBrief(ctx, orderId), orderRequisite(ctx, orderId)]);
      if (!o) throw err;
      const [creditReq, givenReq] = await Promise.all([requisiteBrief(ctx, c.requisiteId), requisiteBrief(ctx, orderReq)]);
      return page(req, reply, (s) => matchRefusedPage(s, err.code as MatchRefusal, c, o, { credit: creditReq, order: givenReq }, f.back || CREDITS_PATH), 409);
    }
    return seeOther(reply, backTo(f.back, 'matched'));
  });

  adminPost(`${CREDITS_PATH}/ignore`, IgnoreQueueForm, async (req, reply) => {
    const f = formOf(req, IgnoreQueueForm);
    const reason = (f.reason ?? '').trim();
    if (!reason) throw new AppError('VALIDATION_ERROR', 'reason: say why these credits need no order (1 to 500 characters)');
    const ids = [...new Set((f.ids ?? '').split(' ').filter((x) => x !== ''))];
    if (ids.length === 0) throw new AppError('VALIDATION_ERROR', 'ids: no credit to ignore; show the queue again');
    const r = await ignoreCredits(ctx, ids, reason, off(req).operator.id);
    return seeOther(reply, backTo(f.back, 'ignored-queue', { n: String(r.ignored.length), of: String(ids.length) }));
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
