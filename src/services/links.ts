import type { Ctx } from '../context.js';
import { railServesCurrency, isMethod, isRailless, type Method } from '../domain/catalogue.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { dec, fmt2 } from '../domain/money.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { getDesk, type DeskRow } from '../store/desks.js';
import { getLink, getLinkLine, insertLink, linkOrders, listLinks, openLink, recordLinkOrder, setLinkEnabled, type LinkLine, type LinkRow } from '../store/links.js';
import { getMerchant } from '../store/merchants.js';
import type { OrderRow } from '../store/orders.js';
import { merchantDesk } from './cabinet.js';
import { createOrder } from './createOrder.js';
import { pageOf } from './paging.js';

/**
 * Payment links (web spec, "Cabinet, in addition"): a merchant makes a link `/l/{id}` for an
 * amount on one of its desks, and whoever opens it gets an order of that amount, placed through
 * the one order-creation path (`createOrder`) as if the desk had signed the request.
 */

export const LINK_DESCRIPTION_MAX = 255;
/**
 * At most 13 digits before the point and 2 after: the amount reaches the order body as a JSON
 * number (the one shape `createOrder` takes), and 15 significant digits come back from a double
 * as the very same decimal, so nothing is rounded on the way.
 */
const LINK_AMOUNT = /^(?:0|[1-9]\d{0,12})(?:\.\d{1,2})?$/;
/** The orders a link's page lists; the list page shows the newest few of each link. */
const LINK_PAGE_ORDERS = 100;
const LIST_ORDERS_PER_LINK = 3;

export type LinkState = 'active' | 'off' | 'expired';

export interface LinkInput {
  amount: string;
  currency: string;
  deskId: string;
  description: string;
  /** When it lapses (an invalid Date is refused), or null for a link that never lapses. */
  expiresAt: Date | null;
  /** A rail of the desk; null: the first of the desk's rails that serves the currency. */
  rail: string | null;
}

const linkState = (l: LinkRow, nowMs: number): LinkState => (!l.enabled ? 'off' : l.expires_at && l.expires_at.getTime() <= nowMs ? 'expired' : 'active');

export function linkView(ctx: Ctx, l: LinkRow) {
  return {
    id: l.id,
    path: `/l/${l.id}`,
    url: `${ctx.config.publicBaseUrl.replace(/\/$/, '')}/l/${l.id}`,
    deskId: l.desk_id,
    amount: fmt2(l.amount),
    currency: l.currency,
    rail: l.rail,
    description: l.description,
    enabled: l.enabled,
    state: linkState(l, ctx.clock.now()),
    expiresAt: isoOrNull(l.expires_at),
    opened: l.opened,
    createdAt: isoSeconds(l.created_at),
  };
}
export type LinkView = ReturnType<typeof linkView>;

const lineView = (ctx: Ctx, l: LinkLine) => ({ ...linkView(ctx, l), orders: l.orders, completed: l.completed });
export type LinkLineView = ReturnType<typeof lineView>;

const refuse = (detail: string): never => {
  throw new AppError('VALIDATION_ERROR', detail);
};

/** The rail an order of the link goes by: the link's own, else the first of the desk's rails that serves the currency. */
function railFor(desk: DeskRow, currency: string, rail: string | null): string | null {
  if (!isMethod(desk.method) || isRailless(desk.method)) return null;
  if (rail) return rail;
  return desk.rails.find((r) => railServesCurrency(desk.method as Method, r, currency)) ?? null;
}

/** Why the desk cannot carry the link's orders, or null. The order-time checks (on, rate, limits) stay the order's. */
function deskProblem(desk: DeskRow, currency: string, rail: string | null): string | null {
  if (desk.method === 'MobileCommerce') return 'deskId: MobileCommerce orders need the customer\'s mobile operator, which a link cannot ask for';
  if (!desk.currencies.includes(currency)) return `currency: the desk takes ${desk.currencies.join(', ') || 'no currency'}`;
  if (!isMethod(desk.method) || isRailless(desk.method)) return rail ? `rail: ${desk.method} has no rails` : null;
  if (rail && !desk.rails.includes(rail)) return `rail: ${rail} is not enabled on the desk (${desk.rails.join(', ') || 'none'})`;
  if (!railFor(desk, currency, rail)) return `currency: none of the desk's rails (${desk.rails.join(', ') || 'none'}) serves ${currency}`;
  if (rail && !railServesCurrency(desk.method, rail, currency)) return `rail: ${rail} does not serve ${currency}`;
  return null;
}

/** A new link of the merchant; VALIDATION_ERROR names the field at fault, DESK_NOT_FOUND another merchant's desk. */
export async function createLink(ctx: Ctx, merchantId: string, input: LinkInput): Promise<LinkView> {
  const amount = input.amount.trim();
  if (!LINK_AMOUNT.test(amount) || dec(amount).lte(0)) refuse('amount: a positive amount with at most 2 decimals and 13 digits before the point, such as 1500.50');
  const description = input.description.trim();
  if (description.length === 0 || description.length > LINK_DESCRIPTION_MAX) refuse(`description: 1 to ${LINK_DESCRIPTION_MAX} characters`);
  const currency = input.currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) refuse('currency: a three-letter ISO 4217 code');
  const now = ctx.clock.now();
  // A time already past is taken (the page says so): such a link answers 410 from the start.
  if (input.expiresAt !== null && Number.isNaN(input.expiresAt.getTime())) refuse('expiresAt: a date and time in UTC (2026-12-31T18:00), or leave it empty');
  const desk = await merchantDesk(ctx, merchantId, input.deskId);
  const problem = deskProblem(desk, currency, input.rail);
  if (problem) refuse(problem);
  const row = await insertLink(ctx.db, {
    id: newId('lnk'),
    merchantId,
    deskId: desk.id,
    amount,
    currency,
    rail: input.rail,
    description,
    expiresAt: input.expiresAt,
    at: new Date(now),
  });
  return linkView(ctx, row);
}

/** The merchant's links, newest first, each with its order counts and newest orders. */
export async function listLinkViews(ctx: Ctx, merchantId: string, q: { before?: string; limit: number }) {
  if (q.before) {
    const b = await getLink(ctx.db, q.before);
    if (!b || b.merchant_id !== merchantId) refuse('before: unknown link id');
  }
  const rows = await listLinks(ctx.db, { merchantId, beforeId: q.before, limit: q.limit + 1 });
  const page = pageOf(rows, q.limit, (l) => lineView(ctx, l), (l) => l.id);
  const orders = await linkOrders(ctx.db, page.items.map((l) => l.id), LIST_ORDERS_PER_LINK);
  return { ...page, ordersOf: (linkId: string): OrderRow[] => orders.filter((o) => o.link_id === linkId) };
}

/** A link of the merchant with its newest orders; any other id is NOT_FOUND. */
export async function merchantLink(ctx: Ctx, merchantId: string, id: string): Promise<{ link: LinkLineView; orders: OrderRow[] }> {
  const l = await getLinkLine(ctx.db, id);
  if (!l || l.merchant_id !== merchantId) throw new AppError('NOT_FOUND', `no payment link ${id}`);
  return { link: lineView(ctx, l), orders: await linkOrders(ctx.db, [l.id], LINK_PAGE_ORDERS) };
}

/** Switches a link of the merchant on or off; off, it answers 410 at once. */
export async function setMerchantLinkEnabled(ctx: Ctx, merchantId: string, id: string, enabled: boolean): Promise<LinkView> {
  const l = await setLinkEnabled(ctx.db, merchantId, id, enabled, new Date(ctx.clock.now()));
  if (!l) throw new AppError('NOT_FOUND', `no payment link ${id}`);
  return linkView(ctx, l);
}

export type LinkOpening =
  | { kind: 'order'; orderId: string }
  | { kind: 'unknown' }
  /** Switched off, or past its expiry: 410. */
  | { kind: 'gone'; state: 'off' | 'expired'; description: string }
  /** The order was refused (desk off, no rate, no provider…): the order's own code. */
  | { kind: 'refused'; code: ErrorCode; detail: string | null }
  | { kind: 'tooMany'; retryAfterMs: number };

/**
 * Someone opened `/l/{id}`: a new order of the link's amount on its desk, through the one
 * order-creation path with the desk and merchant as they are now (no signed request: the link is
 * the merchant's own). Its reference is `{linkId}-{n}`, n the opening's number, so each opening is
 * a new order. The order is then tied to the link and given its description, in one transaction
 * right after it is written and before anyone is sent to it (a crash in between leaves an order
 * without them, which expires unpaid: nobody was given its page).
 */
export async function openPaymentLink(ctx: Ctx, id: string): Promise<LinkOpening> {
  const now = new Date(ctx.clock.now());
  const link = await openLink(ctx.db, id, now);
  if (!link) {
    const known = await getLink(ctx.db, id);
    if (!known) return { kind: 'unknown' };
    return { kind: 'gone', state: known.enabled ? 'expired' : 'off', description: known.description };
  }
  const desk = await getDesk(ctx.db, link.desk_id);
  const merchant = desk ? await getMerchant(ctx.db, desk.merchant_id) : null;
  if (!desk || !merchant) return { kind: 'unknown' };
  const body = {
    // Exact: the amount has at most 15 significant digits (LINK_AMOUNT), which a double keeps.
    amount: Number(link.amount),
    currency: link.currency,
    rail: railFor(desk, link.currency, link.rail),
    orderRef: `${link.id}-${link.opened}`,
  };
  try {
    // A desk without a callback URL takes link orders too (a merchant with no developer has no
    // server to call): their events are kept for the events feed and the order's log, not sent.
    const answer = await createOrder(ctx, { desk, merchant, versions: null, withoutCallbackUrl: true }, body);
    if (answer.kind === 'tooMany') return answer;
    if (answer.kind === 'refused') return { kind: 'refused', code: answer.refusal.code, detail: answer.refusal.detail };
    const orderId = answer.order.id;
    await ctx.db.tx((q) => recordLinkOrder(q, { linkId: link.id, orderId, description: link.description, at: new Date(ctx.clock.now()) }));
    return { kind: 'order', orderId };
  } catch (err) {
    if (err instanceof AppError) return { kind: 'refused', code: err.code, detail: err.detail };
    throw err;
  }
}
