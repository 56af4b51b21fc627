import type { Ctx } from '../context.js';
import { railServesCurrency, isMethod, isRailless, type Method } from '../domain/catalogue.js';
import { AppError, type ErrorCode, type Refusal } from '../domain/errors.js';
import { dec, fmt2, settle } from '../domain/money.js';
import { checkCurrency, checkDeskLimits, resolveRail } from '../domain/orders.js';
import { candidates, orderModeOf } from '../domain/providers.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { loadProviderViews } from '../providers/catalog.js';
import { getDesk, type DeskRow } from '../store/desks.js';
import {
  dropLinkStart, getLink, getLinkLine, insertLinkStart, insertLink, linkOrders, listLinks, lockLink, openLink, openLinkStarts, recordLinkOrder, setLinkEnabled,
  type LinkLine, type LinkRow, type OpenLinkStart,
} from '../store/links.js';
import { getMerchant, type MerchantRow } from '../store/merchants.js';
import type { OrderRow } from '../store/orders.js';
import { readCatalogVersions } from '../store/catalogVersions.js';
import type { Queryable } from '../store/db.js';
import { merchantDesk } from './cabinet.js';
import { createOrder } from './createOrder.js';
import { currenciesAt, pricingOf } from './gatewayReads.js';
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

/** At most this many orders of one link are open at once per client address (`POST /l/{id}`). */
export const OPEN_PER_CLIENT = 3;
/**
 * How long a start whose order is still being created counts among the client's open ones: longer
 * than order creation can take (the cascade's budget); one older than this lost its process.
 */
const PLACING_MS = 5 * 60_000;

/** The address a start made within the process (no request) counts under. */
export const LOCAL_CLIENT = 'local';

/** An order the client started through the link and that is still open. */
export interface OpenLinkOrder {
  orderId: string;
  status: 'Created' | 'Payed';
  expiresAt: string;
}

const openOrdersOf = (starts: readonly OpenLinkStart[]): OpenLinkOrder[] =>
  starts.flatMap((s) => (s.order_id && s.expires_at ? [{ orderId: s.order_id, status: s.status as OpenLinkOrder['status'], expiresAt: isoSeconds(s.expires_at) }] : []));

const startsOf = (ctx: Ctx, q: Queryable, linkId: string, client: string) => {
  const now = ctx.clock.now();
  return openLinkStarts(q, { linkId, client, now: new Date(now), placingSince: new Date(now - PLACING_MS) });
};

/** What a link's page shows the customer: the merchant's name as the payment page shows it, what it is for, the amount. */
export interface PublicLink {
  id: string;
  merchantName: string | null;
  description: string;
  amount: string;
  currency: string;
  /** Its orders are sandbox orders (a test desk, or a merchant not yet approved): no money moves. */
  sandbox: boolean;
}

export type LinkShown =
  | { kind: 'unknown' }
  /** Switched off, or past its expiry: 410. */
  | { kind: 'gone'; state: 'off' | 'expired' }
  /**
   * `refusal`: why no order of the link can be created now (the desk, its rail, currency, rate or
   * limits, or no provider), or null. `open`: the client's orders of the link still open, newest first.
   */
  | { kind: 'link'; link: PublicLink; refusal: Refusal | null; open: OpenLinkOrder[] };

/**
 * Why an order of the link would be refused now, found without creating one or asking a provider:
 * the checks of order creation that need no order (`createOrder`'s validation, in its order: the
 * merchant and desk active, the rail, the currency payable and priced, the desk's USD limits),
 * then whether any provider that serves the account and is not paused has a capability covering
 * method, rail, currency and amount (the cascade's candidates). What only creating can tell (the
 * turnover caps, the callback URL's rules, a pool's free requisite, a provider's answer) is the
 * order's to decide when the customer presses Pay.
 */
export async function linkRefusal(ctx: Ctx, link: LinkRow, desk: DeskRow, merchant: MerchantRow): Promise<Refusal | null> {
  if (merchant.status === 'Blocked') return { code: 'MERCHANT_INACTIVE', detail: merchant.block_reason ?? 'the merchant account is blocked' };
  if (!desk.enabled) return { code: 'SHOP_INACTIVE', detail: 'the cash desk is disabled by the merchant' };
  if (desk.stop_reason) return { code: 'SHOP_STOPPED', detail: desk.stop_reason };
  const rail = resolveRail(desk.method, desk.rails, railFor(desk, link.currency, link.rail), null);
  if (!rail.ok) return rail.refusal;
  // The catalogues as of their versions now: kept in memory while unchanged, as order creation keeps them.
  const versions = await readCatalogVersions(ctx.db);
  const { currencies, rates } = await currenciesAt(ctx, versions.currencies);
  const currency = currencies.get(link.currency) ?? null;
  const pricing = pricingOf(ctx, currency, rates.get(link.currency));
  const known = { known: currency !== null, enabled: currency?.enabled ?? false, hasRateSource: pricing.priceable || pricing.reason === 'stale' };
  const cur = checkCurrency(link.currency, known, desk, rail.value);
  if (!cur.ok) return cur.refusal;
  if (!pricing.priceable) return { code: 'FX_RATE_UNAVAILABLE', detail: `no current rate for ${link.currency}` };
  const amount = fmt2(link.amount);
  const limits = checkDeskLimits(settle(dec(amount), pricing.rate), desk.min_usd, desk.max_usd);
  if (!limits.ok) return limits.refusal;
  const mode = orderModeOf(merchant, desk);
  if (mode === 'none') return { code: 'MERCHANT_NOT_APPROVED', detail: 'the account is under review and the sandbox is off' };
  const { views } = await loadProviderViews(ctx, versions.providers);
  if (candidates(views, { approved: mode === 'live', method: desk.method, rail: rail.value, currency: link.currency, amount }).length === 0) {
    return { code: 'NO_AVAILABLE_METHOD', detail: `no provider accepts ${desk.method}${rail.value ? ` ${rail.value}` : ''} in ${link.currency} for ${amount}` };
  }
  return null;
}

const gone = (l: LinkRow, nowMs: number): 'off' | 'expired' | null => {
  const state = linkState(l, nowMs);
  return state === 'active' ? null : state;
};

/**
 * `GET /l/{id}`: what the link's page shows `client` (the address it is opened from). Creates
 * nothing and writes nothing: no order, no requisite, no count.
 */
export async function showPaymentLink(ctx: Ctx, id: string, client: string): Promise<LinkShown> {
  const link = await getLink(ctx.db, id);
  if (!link) return { kind: 'unknown' };
  const state = gone(link, ctx.clock.now());
  if (state) return { kind: 'gone', state };
  const desk = await getDesk(ctx.db, link.desk_id);
  const merchant = desk ? await getMerchant(ctx.db, desk.merchant_id) : null;
  if (!desk || !merchant) return { kind: 'unknown' };
  const [refusal, starts] = await Promise.all([linkRefusal(ctx, link, desk, merchant), startsOf(ctx, ctx.db, link.id, client)]);
  return {
    kind: 'link',
    link: { id: link.id, merchantName: merchant.name, description: link.description, amount: fmt2(link.amount), currency: link.currency, sandbox: orderModeOf(merchant, desk) !== 'live' },
    refusal,
    open: openOrdersOf(starts),
  };
}

export type LinkOpening =
  | { kind: 'order'; orderId: string }
  | { kind: 'unknown' }
  /** Switched off, or past its expiry: 410. */
  | { kind: 'gone'; state: 'off' | 'expired'; description: string }
  /** The order was refused (desk off, no rate, no provider…): the order's own code. */
  | { kind: 'refused'; code: ErrorCode; detail: string | null }
  | { kind: 'tooMany'; retryAfterMs: number }
  /** The client already has OPEN_PER_CLIENT orders of the link open (or being created): nothing was created. */
  | { kind: 'busy'; open: OpenLinkOrder[] };

/**
 * The customer pressed Pay on `/l/{id}` (`POST`), from the address `client`: a new order of the
 * link's amount on its desk, through the one order-creation path with the desk and merchant as
 * they are now (no signed request: the link is the merchant's own). Its reference is
 * `{linkId}-{n}`, n the opening's number, so each opening is a new order.
 *
 * Nothing is created when the link's page would offer no button: an order the dry check of
 * `linkRefusal` already refuses, or a client with OPEN_PER_CLIENT orders of the link open. The
 * count and the start it admits are one transaction holding the link's row, so starts from one
 * address running at once are counted one after the other; the start is written before the order
 * is created (and counts while it is), given its order once there is one, and removed when the
 * order is refused.
 *
 * A start made within the process (a tool's, a seed's) counts under LOCAL_CLIENT.
 *
 * The order is then tied to the link and the start and given its description, in one transaction
 * right after it is written and before anyone is sent to it (a crash in between leaves an order
 * without them, which expires unpaid: nobody was given its page).
 */
export async function openPaymentLink(ctx: Ctx, id: string, client = LOCAL_CLIENT): Promise<LinkOpening> {
  const known = await getLink(ctx.db, id);
  if (!known) return { kind: 'unknown' };
  const lapsed = gone(known, ctx.clock.now());
  if (lapsed) return { kind: 'gone', state: lapsed, description: known.description };
  const desk = await getDesk(ctx.db, known.desk_id);
  const merchant = desk ? await getMerchant(ctx.db, desk.merchant_id) : null;
  if (!desk || !merchant) return { kind: 'unknown' };
  const refusal = await linkRefusal(ctx, known, desk, merchant);
  if (refusal) return { kind: 'refused', code: refusal.code, detail: refusal.detail };

  type Start = { kind: 'start'; link: LinkRow } | Extract<LinkOpening, { kind: 'unknown' | 'gone' | 'busy' }>;
  const start = await ctx.db.tx(async (q): Promise<Start> => {
    const locked = await lockLink(q, id);
    if (!locked) return { kind: 'unknown' };
    const now = new Date(ctx.clock.now());
    const state = gone(locked, now.getTime());
    if (state) return { kind: 'gone', state, description: locked.description };
    const open = await startsOf(ctx, q, id, client);
    if (open.length >= OPEN_PER_CLIENT) return { kind: 'busy', open: openOrdersOf(open) };
    const link = (await openLink(q, id, now))!;
    await insertLinkStart(q, { linkId: link.id, opening: link.opened, client, at: now });
    return { kind: 'start', link };
  });
  if (start.kind !== 'start') return start;
  const { link } = start;
  const body = {
    // Exact: the amount has at most 15 significant digits (LINK_AMOUNT), which a double keeps.
    amount: Number(link.amount),
    currency: link.currency,
    rail: railFor(desk, link.currency, link.rail),
    orderRef: `${link.id}-${link.opened}`,
  };
  let orderId: string | null = null;
  try {
    // A desk without a callback URL takes link orders too (a merchant with no developer has no
    // server to call): their events are kept for the events feed and the order's log, not sent.
    const answer = await createOrder(ctx, { desk, merchant, versions: null, withoutCallbackUrl: true }, body);
    if (answer.kind === 'tooMany') return answer;
    if (answer.kind === 'refused') return { kind: 'refused', code: answer.refusal.code, detail: answer.refusal.detail };
    orderId = answer.order.id;
    const made = orderId;
    await ctx.db.tx((q) => recordLinkOrder(q, { linkId: link.id, orderId: made, description: link.description, at: new Date(ctx.clock.now()), opening: link.opened }));
    return { kind: 'order', orderId };
  } catch (err) {
    if (err instanceof AppError) return { kind: 'refused', code: err.code, detail: err.detail };
    throw err;
  } finally {
    // No order came of the start: it holds no place among the client's open orders.
    if (orderId === null) await dropLinkStart(ctx.db, link.id, link.opened);
  }
}
