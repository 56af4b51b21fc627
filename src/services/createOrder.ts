import type { Ctx } from '../context.js';
import { AppError, type Refusal } from '../domain/errors.js';
import { fmt2, fmt8, settle, dec } from '../domain/money.js';
import { checkCurrency, checkDeskLimits, IDEMPOTENCY_WINDOW_MS, parseCreateOrder, resolveRail, type CreateOrderRequest } from '../domain/orders.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import { orderModeOf } from '../domain/providers.js';
import { runCascade, type CascadeOptions, type CascadeOrder } from '../providers/cascade.js';
import type { PendingAuth } from './deskAuth.js';
import type { Queryable } from '../store/db.js';
import type { CatalogVersions } from '../store/catalogVersions.js';
import type { DeskAtAuth, DeskRow } from '../store/desks.js';
import type { MerchantRow } from '../store/merchants.js';
import type { Cap } from '../domain/turnover.js';
import { claimRef, lockRef, reassignRef } from '../store/orderRefs.js';
import { getOrderById, markPlaced, markPlacementFailed, type OrderRow } from '../store/orders.js';
import { writeOrder, writeOrders, type NewOrder, type OrderToWrite } from '../store/orderWrites.js';
import { checkUrlRules } from './callbackUrls.js';
import { expireIfDueInTx } from './orderActions.js';
import { currenciesAt, pricingOf } from './gatewayReads.js';
import { capsAt, firstExceededCap } from './turnover.js';
import { createView } from './orderViews.js';

/**
 * A repeat that finds the first create still placing its order waits for it, up to the cascade
 * budget: woken at once when this process is the one placing it, otherwise polling this often.
 */
const PLACEMENT_POLL_MS = 25;
const PLACEMENT_WAIT_MS = 170_000;

type Decision = { kind: 'new' } | { kind: 'existing'; order: OrderRow } | { kind: 'wait'; orderId: string };

function refuse(r: Refusal): never {
  throw new AppError(r.code, r.detail);
}

/** Steps 1–10 of the spec's validation order; the first failure answers. Returns the new order's terms. */
async function validate(
  ctx: Ctx,
  desk: DeskRow,
  merchant: MerchantRow,
  req: CreateOrderRequest,
  nowMs: number,
  versions: CatalogVersions | null | undefined,
  withoutCallbackUrl = false,
): Promise<{ terms: Omit<NewOrder, 'id' | 'orderRef'>; caps: Cap[] }> {
  if (merchant.status === 'Blocked') throw new AppError('MERCHANT_INACTIVE', merchant.block_reason ?? 'the merchant account is blocked');
  if (!desk.enabled) throw new AppError('SHOP_INACTIVE', 'the cash desk is disabled by the merchant');
  if (desk.stop_reason) throw new AppError('SHOP_STOPPED', desk.stop_reason);
  const url = req.notifyUrl ?? desk.callback_url;
  if (!url && !withoutCallbackUrl) throw new AppError('CALLBACK_URL_REQUIRED', 'give notifyUrl or set a callback URL on the cash desk');
  const urlCheck = url ? await checkUrlRules(ctx, url) : { ok: true as const, url: null };
  if (!urlCheck.ok) throw new AppError('INVALID_CALLBACK_URL', `${req.notifyUrl ? 'notifyUrl' : 'cash desk callback URL'}: ${urlCheck.reason}`);
  const rail = resolveRail(desk.method, desk.rails, req.rail, req.operator);
  if (!rail.ok) refuse(rail.refusal);
  // A test desk's orders, and every order of a merchant not yet approved, are sandbox orders.
  const sandbox = orderModeOf(merchant, desk) !== 'live';
  const scopeIds = { deskId: desk.id, merchantId: merchant.id, sandbox, testDesk: desk.sandbox };
  // The currency with its rate and the caps as of the catalogue versions authentication read: no
  // statement at all when this instance kept them at those versions.
  const [{ currencies, rates }, caps] = await Promise.all([currenciesAt(ctx, versions?.currencies), capsAt(ctx, scopeIds, versions?.limits)]);
  const currency = currencies.get(req.currency) ?? null;
  const pricing = pricingOf(ctx, currency, rates.get(req.currency));
  const cur = checkCurrency(
    req.currency,
    { known: currency !== null, enabled: currency?.enabled ?? false, hasRateSource: pricing.priceable || pricing.reason === 'stale' },
    desk,
    rail.value,
  );
  if (!cur.ok) refuse(cur.refusal);
  if (!pricing.priceable) throw new AppError('FX_RATE_UNAVAILABLE', `no current rate for ${req.currency}; retry later`);
  const settled = settle(req.amount, pricing.rate);
  const limits = checkDeskLimits(settled, desk.min_usd, desk.max_usd);
  if (!limits.ok) refuse(limits.refusal);
  const cap = await firstExceededCap(ctx, scopeIds, settled, undefined, caps);
  if (cap) throw new AppError('TRAFFIC_LIMIT_REACHED', cap);
  const terms = {
    deskId: desk.id,
    merchantId: merchant.id,
    amount: fmt2(req.amount),
    currency: req.currency,
    rate: fmt8(pricing.rate),
    settledAmount: fmt8(settled),
    method: desk.method,
    rail: rail.value,
    sandbox,
    // The parsed form is what passed the URL rules and what delivery will connect to.
    notifyUrl: urlCheck.url,
    successUrl: req.successUrl,
    failUrl: req.failUrl,
    backUrl: req.backUrl,
    operator: desk.method === 'MobileCommerce' ? req.operator : null,
    lifetimeMinutes: req.lifetimeMinutes,
    createdAt: new Date(nowMs),
    expiresAt: new Date(nowMs + req.lifetimeMinutes * 60_000),
  };
  return { terms, caps };
}

/**
 * The desk as authentication left it: what an order is validated against. `withoutCallbackUrl`:
 * the order may have no callback URL (a payment link's order on a desk without one); its events
 * are written all the same, for the events feed and the order's callback log, and never sent.
 */
export type DeskAsRead = Pick<DeskAtAuth, 'desk' | 'merchant'> & { versions: CatalogVersions | null | undefined; withoutCallbackUrl?: boolean };

type Issued = NonNullable<OrderToWrite['issued']>;

/** Steps 1–10 done, and step 12 as far as providers that issue within the process go. */
interface Prepared {
  order: NewOrder;
  /** Under review with the sandbox off (test desks too): no provider at all (MERCHANT_NOT_APPROVED after the reservation). */
  shutOut: boolean;
  cascadeOptions: CascadeOptions;
  /**
   * The details the provider the cascade comes to first issued without leaving the process (the
   * sandbox), so that reserving and placing are one statement; null when that provider is another
   * kind (the order is reserved, then the whole cascade runs).
   */
  issued: Issued | null;
}

/** A preparation, or the refusal it came to (answered once authentication and the order limit have had their say). */
type Preparation = { ok: true; value: Prepared } | { ok: false; error: AppError };

async function prepare(ctx: Ctx, parsed: ReturnType<typeof parseCreateOrder>, at: DeskAsRead): Promise<Preparation> {
  try {
    if (!parsed.ok) refuse(parsed.refusal);
    const { desk, merchant, versions } = at;
    const req = parsed.value;
    const { terms, caps } = await validate(ctx, desk, merchant, req, ctx.clock.now(), versions, at.withoutCallbackUrl === true);
    const mode = orderModeOf(merchant, desk);
    const order: NewOrder = { ...terms, id: newHistoryId('ord', terms.createdAt.getTime()), orderRef: req.orderRef };
    const shutOut = mode === 'none';
    const cascadeOptions: CascadeOptions = {
      // Live providers for live orders only: a test desk's orders never reach a live provider or a pool requisite.
      approved: mode === 'live',
      providersVersion: versions?.providers,
      providerCap: (providerId: string) =>
        firstExceededCap(ctx, { deskId: desk.id, merchantId: merchant.id, providerId, sandbox: terms.sandbox, testDesk: desk.sandbox }, dec(terms.settledAmount), 'provider', caps),
    };
    const instant = shutOut ? null : await runCascade(ctx, cascadeOf(order), { ...cascadeOptions, instantOnly: true });
    const issued = instant?.ok ? { payment: instant.payment, providerId: instant.providerId } : null;
    return { ok: true, value: { order, shutOut, cascadeOptions, issued } };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err };
    throw err;
  }
}

const cascadeOf = (order: NewOrder): CascadeOrder => ({
  orderId: order.id,
  method: order.method,
  rail: order.rail,
  amount: order.amount,
  currency: order.currency,
  operator: order.operator,
  expiresAt: isoSeconds(order.expiresAt),
});

/** Did authentication, settled, read the desk, its merchant or a catalogue at other versions than the order was prepared against? */
function moved(a: DeskAtAuth, b: DeskAtAuth): boolean {
  if (a.desk.row_version !== b.desk.row_version || a.desk.secret_enc !== b.desk.secret_enc || a.merchantVersion !== b.merchantVersion) return true;
  const keys = new Set([...Object.keys(a.versions ?? {}), ...Object.keys(b.versions ?? {})]) as Set<keyof CatalogVersions>;
  for (const k of keys) if (a.versions?.[k] !== b.versions?.[k]) return true;
  return false;
}

export type OrderAnswer =
  | { kind: 'created'; order: ReturnType<typeof createView> }
  /** Authentication, settled here, refused the request: its answer instead of anything else. */
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'tooMany'; retryAfterMs: number };

/**
 * POST /gw/v1/orders, the one path of every order: the desk's order limit, then the order
 * prepared once (validation, the callback URL, pricing, the caps and the cascade as far as
 * providers that issue within the process), then written by one statement.
 *
 * `auth` is the desk as authentication read it, or a PendingAuth (checks 1–5 passed against the
 * desk as this instance last read it): then the statement that writes the order also makes
 * authentication's last check (the nonce claimed only while that read is current). When it could
 * not (nothing was written), authentication is settled the usual way and its refusal answers; the
 * order is prepared again only if the desk, merchant or catalogues it read had moved. Refusals of
 * the order itself (thrown AppErrors) come after authentication and the limit, in the spec's order.
 */
export async function createOrder(ctx: Ctx, auth: PendingAuth | DeskAsRead, body: Record<string, unknown>): Promise<OrderAnswer> {
  const pending = 'settle' in auth ? auth : null;
  let at: DeskAsRead = pending ? pending.at : (auth as DeskAsRead);
  // 30 per 10 s per desk key, 5 queued; an admission of a request authentication then refuses is given back.
  const admission = await ctx.limits.orderCreate.take(at.desk.key);
  if (!admission.ok) {
    const refused = pending && (await pending.settle());
    if (refused && !refused.ok) return { kind: 'refused', refusal: refused.refusal };
    return { kind: 'tooMany', retryAfterMs: admission.retryAfterMs };
  }
  const parsed = parseCreateOrder(body);
  let p = await prepare(ctx, parsed, at);
  let refHeld = false;
  if (pending) {
    if (p.ok && p.value.issued) {
      const { order, issued } = p.value;
      const r = await writeOrder(ctx.db, { order, issued, claimRef: true, auth: pending.lastCheck(ctx.clock.now()) });
      if (r.claimed) pending.settledBy();
      if (r.inserted) return { kind: 'created', order: createdView(ctx, order, issued) };
      // Claimed but not written: the reference is held, which the idempotency rules settle.
      refHeld = r.claimed;
    }
    if (!pending.settled) {
      const v = await pending.settle();
      if (!v.ok) {
        await ctx.limits.orderCreate.refund(at.desk.key);
        return { kind: 'refused', refusal: v.refusal };
      }
      if (moved(pending.at, v)) {
        at = v;
        p = await prepare(ctx, parsed, at);
      }
    }
  }
  if (!p.ok) throw p.error;
  return { kind: 'created', order: await place(ctx, p.value, refHeld) };
}

/**
 * Placements this process is running: order id → settles once the reservation is placed or given
 * up. A repeat on this instance waits on it instead of polling.
 */
const placing = new Map<string, Promise<void>>();

/** Steps 11 and 12 for a prepared order whose authentication is settled. `refHeld`: its reference is known to be held already. */
async function place(ctx: Ctx, p: Prepared, refHeld: boolean): Promise<ReturnType<typeof createView>> {
  const { order, issued } = p;
  let placed = () => {};
  // Registered before the reservation can exist, so a repeat that reads it finds this too.
  if (!issued) placing.set(order.id, new Promise<void>((r) => (placed = r)));
  try {
    // The reference claimed and the order written in one statement when it is free (or there is
    // none); the idempotency rules in a transaction of their own only when it is held.
    let decision: Decision | null = null;
    if (!refHeld && (await writeOrder(ctx.db, { order, issued, claimRef: true, auth: null })).inserted) decision = { kind: 'new' };
    while (decision === null || decision.kind === 'wait') {
      if (decision) await waitForPlacement(ctx, decision.orderId);
      decision = await ctx.db.tx((q) => reserve(q, ctx, p));
    }
    if (decision.kind === 'existing') return createView(decision.order, ctx.config.publicBaseUrl);
    if (issued) return createdView(ctx, order, issued);

    if (p.shutOut) {
      await markPlacementFailed(ctx.db, order.id, new Date(ctx.clock.now()));
      throw new AppError('MERCHANT_NOT_APPROVED', 'the account is under review and the sandbox is off');
    }
    const result = await runCascade(ctx, cascadeOf(order), p.cascadeOptions);
    const now = new Date(ctx.clock.now());
    if (!result.ok) {
      await markPlacementFailed(ctx.db, order.id, now);
      throw new AppError(result.code, result.detail);
    }
    const row = await markPlaced(ctx.db, order.id, result.payment, result.providerId, now);
    if (!row) throw new AppError('NO_AVAILABLE_METHOD', 'the order could not be placed in time; retry');
    ctx.metrics.ordersCreated.inc({ method: row.method, rail: row.rail ?? '' });
    return createView(row, ctx.config.publicBaseUrl);
  } finally {
    if (!issued) {
      placing.delete(order.id);
      placed();
    }
  }
}

/** Step 11 when the reference is held: the order written (the reference reassigned to it), or the order the reference already means (the spec's four idempotency rules). */
async function reserve(q: Queryable, ctx: Ctx, p: Prepared): Promise<Decision> {
  const { order, issued } = p;
  const ref = order.orderRef;
  const claim = { deskId: order.deskId, ref: ref ?? '', orderId: order.id, amount: order.amount, currency: order.currency, at: order.createdAt };
  const write = () => writeOrders(q, [{ order, issued, claimRef: false, auth: null }]);
  if (ref === null || (await claimRef(q, claim))) {
    await write();
    return { kind: 'new' };
  }
  const held = (await lockRef(q, order.deskId, ref))!;
  let existing = await getOrderById(q, held.order_id, { anyPlacement: true });
  // Past its expiresAt but not yet reached by the expiry worker: the order is expired (rule 2), so it
  // is closed here as the worker would close it, and the repeat gets a new order.
  if (existing && existing.placement === 'placed' && existing.status === 'Created' && existing.expires_at.getTime() <= ctx.clock.now()) {
    existing = await expireIfDueInTx(q, ctx, existing.id);
  }
  const hourPassed = ctx.clock.now() - held.created_at.getTime() >= IDEMPOTENCY_WINDOW_MS;
  if (!existing || hourPassed || existing.placement === 'failed' || existing.status === 'Canceled') {
    await reassignRef(q, claim);
    await write();
    return { kind: 'new' };
  }
  if (existing.placement === 'pending') return { kind: 'wait', orderId: existing.id };
  if (!dec(existing.amount).eq(order.amount) || existing.currency !== order.currency) {
    throw new AppError('ORDER_REF_CONFLICT', `orderRef ${ref} was used within the hour for ${fmt2(existing.amount)} ${existing.currency}`);
  }
  return { kind: 'existing', order: existing };
}

/** Until the reservation is placed or given up (or the cascade budget has passed), on the injected clock. */
async function waitForPlacement(ctx: Ctx, orderId: string): Promise<void> {
  const until = ctx.clock.now() + PLACEMENT_WAIT_MS;
  while (ctx.clock.now() < until) {
    // Looked up before the read: a placement of this process is registered before its reservation exists.
    const here = placing.get(orderId);
    const o = await getOrderById(ctx.db, orderId, { anyPlacement: true });
    if (!o || o.placement !== 'pending') return;
    await (here ?? ctx.clock.sleep(PLACEMENT_POLL_MS));
  }
}

/** The answer for an order this request wrote placed: the view of what was written. */
function createdView(ctx: Ctx, o: NewOrder, issued: Issued) {
  ctx.metrics.ordersCreated.inc({ method: o.method, rail: o.rail ?? '' });
  return createView({
    id: o.id, amount: o.amount, currency: o.currency, settled_amount: o.settledAmount, rate: o.rate, method: o.method, rail: o.rail,
    status: 'Created', payment: issued.payment, created_at: o.createdAt, expires_at: o.expiresAt, sandbox: o.sandbox,
  }, ctx.config.publicBaseUrl);
}
