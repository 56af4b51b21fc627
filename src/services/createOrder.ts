import { setTimeout as sleep } from 'node:timers/promises';
import type { Ctx } from '../context.js';
import { AppError, type Refusal } from '../domain/errors.js';
import { fmt2, fmt8, settle, dec } from '../domain/money.js';
import { checkCurrency, checkDeskLimits, IDEMPOTENCY_WINDOW_MS, parseCreateOrder, resolveRail, type CreateOrderRequest } from '../domain/orders.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { runCascade, type CascadeOptions, type CascadeOrder } from '../providers/cascade.js';
import type { PendingAuth } from './deskAuth.js';
import type { Queryable } from '../store/db.js';
import type { CatalogVersions } from '../store/catalogVersions.js';
import type { DeskRow } from '../store/desks.js';
import type { MerchantRow } from '../store/merchants.js';
import type { Cap } from '../domain/turnover.js';
import { claimRef, lockRef, reassignRef } from '../store/orderRefs.js';
import { getOrderById, insertPendingOrder, insertPendingOrderClaimingRef, insertPlacedOrderAuthenticating, insertPlacedOrderClaimingRef, markPlaced, markPlacementFailed, type NewOrder, type OrderRow } from '../store/orders.js';
import { checkUrlRules } from './callbackUrls.js';
import { expireIfDueInTx } from './orderActions.js';
import { currenciesAt, pricingOf } from './gatewayReads.js';
import { capsAt, firstExceededCap } from './turnover.js';
import { createView } from './orderViews.js';

/** A repeat that finds the first create still placing its order polls for it this often, up to the cascade budget. */
const PLACEMENT_POLL_MS = 25;
const PLACEMENT_WAIT_MS = 170_000;

type Decision = { kind: 'new'; order: NewOrder } | { kind: 'existing'; order: OrderRow } | { kind: 'wait'; orderId: string };

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
): Promise<{ terms: Omit<NewOrder, 'id' | 'orderRef'>; caps: Cap[] }> {
  if (merchant.status === 'Blocked') throw new AppError('MERCHANT_INACTIVE', merchant.block_reason ?? 'the merchant account is blocked');
  if (!desk.enabled) throw new AppError('SHOP_INACTIVE', 'the cash desk is disabled by the merchant');
  if (desk.stop_reason) throw new AppError('SHOP_STOPPED', desk.stop_reason);
  const url = req.notifyUrl ?? desk.callback_url;
  if (!url) throw new AppError('CALLBACK_URL_REQUIRED', 'give notifyUrl or set a callback URL on the cash desk');
  const urlCheck = await checkUrlRules(ctx, url);
  if (!urlCheck.ok) throw new AppError('INVALID_CALLBACK_URL', `${req.notifyUrl ? 'notifyUrl' : 'cash desk callback URL'}: ${urlCheck.reason}`);
  const rail = resolveRail(desk.method, desk.rails, req.rail, req.operator);
  if (!rail.ok) refuse(rail.refusal);
  const scopeIds = { deskId: desk.id, merchantId: merchant.id, sandbox: merchant.status !== 'Active' };
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
    sandbox: merchant.status !== 'Active',
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

/** Step 11: the reservation, or the order the reference already means (the spec's four idempotency rules). */
async function reserve(q: Queryable, ctx: Ctx, terms: Omit<NewOrder, 'id' | 'orderRef'>, ref: string | null): Promise<Decision> {
  const order: NewOrder = { ...terms, id: newId('ord'), orderRef: ref };
  const claim = { deskId: terms.deskId, ref: ref ?? '', orderId: order.id, amount: terms.amount, currency: terms.currency, at: terms.createdAt };
  if (ref === null || (await claimRef(q, claim))) {
    await insertPendingOrder(q, order);
    return { kind: 'new', order };
  }
  const held = (await lockRef(q, terms.deskId, ref))!;
  let existing = await getOrderById(q, held.order_id, { anyPlacement: true });
  // Past its expiresAt but not yet reached by the expiry worker: the order is expired (rule 2), so it
  // is closed here as the worker would close it, and the repeat gets a new order.
  if (existing && existing.placement === 'placed' && existing.status === 'Created' && existing.expires_at.getTime() <= ctx.clock.now()) {
    existing = await expireIfDueInTx(q, ctx, existing.id);
  }
  const hourPassed = ctx.clock.now() - held.created_at.getTime() >= IDEMPOTENCY_WINDOW_MS;
  if (!existing || hourPassed || existing.placement === 'failed' || existing.status === 'Canceled') {
    await reassignRef(q, claim);
    await insertPendingOrder(q, order);
    return { kind: 'new', order };
  }
  if (existing.placement === 'pending') return { kind: 'wait', orderId: existing.id };
  if (!dec(existing.amount).eq(terms.amount) || existing.currency !== terms.currency) {
    throw new AppError('ORDER_REF_CONFLICT', `orderRef ${ref} was used within the hour for ${fmt2(existing.amount)} ${existing.currency}`);
  }
  return { kind: 'existing', order: existing };
}

async function waitForPlacement(ctx: Ctx, orderId: string): Promise<void> {
  const until = Date.now() + PLACEMENT_WAIT_MS;
  while (Date.now() < until) {
    const o = await getOrderById(ctx.db, orderId, { anyPlacement: true });
    if (!o || o.placement !== 'pending') return;
    await sleep(PLACEMENT_POLL_MS);
  }
}

/** Steps 1–10 done: the order's terms, the new order, and how the cascade runs for it. */
interface Prepared {
  req: CreateOrderRequest;
  terms: Omit<NewOrder, 'id' | 'orderRef'>;
  fresh: NewOrder;
  approved: boolean;
  /** Under review with the sandbox off: no provider at all (MERCHANT_NOT_APPROVED after the reservation). */
  shutOut: boolean;
  cascadeOptions: CascadeOptions;
}

async function prepare(ctx: Ctx, desk: DeskRow, merchant: MerchantRow, body: Record<string, unknown>, versions: CatalogVersions | null | undefined): Promise<Prepared> {
  const parsed = parseCreateOrder(body);
  if (!parsed.ok) refuse(parsed.refusal);
  const req = parsed.value;
  const { terms, caps } = await validate(ctx, desk, merchant, req, ctx.clock.now(), versions);
  const approved = merchant.status === 'Active';
  return {
    req,
    terms,
    fresh: { ...terms, id: newId('ord'), orderRef: req.orderRef },
    approved,
    shutOut: !approved && !merchant.sandbox,
    cascadeOptions: {
      approved,
      providersVersion: versions?.providers,
      providerCap: (providerId: string) =>
        firstExceededCap(ctx, { deskId: desk.id, merchantId: merchant.id, providerId, sandbox: !approved }, dec(terms.settledAmount), 'provider', caps),
    },
  };
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

/**
 * Step 12 before step 11, when the provider the cascade comes to first issues within the process
 * (the sandbox): its details, so that reserving and placing can be one statement. Null otherwise.
 */
async function issueAtOnce(ctx: Ctx, p: Prepared) {
  if (p.shutOut) return null;
  const instant = await runCascade(ctx, cascadeOf(p.fresh), { ...p.cascadeOptions, instantOnly: true });
  return instant?.ok ? instant : null;
}

/** POST /gw/v1/orders: validation, idempotency, then the provider cascade outside any transaction. Answers the create fields. */
export async function createOrder(ctx: Ctx, desk: DeskRow, merchant: MerchantRow, body: Record<string, unknown>, versions?: CatalogVersions | null) {
  return createView(await createOrderRow(ctx, desk, merchant, body, versions));
}

export type AtOnce = { kind: 'created'; order: ReturnType<typeof createView> } | { kind: 'continue'; admitted: boolean };
const NOT_AT_ONCE: AtOnce = { kind: 'continue', admitted: false };

/**
 * POST /gw/v1/orders in one statement with authentication's last check (see PendingAuth): the
 * order is validated against the desk and merchant as this instance last read them, one
 * admission is taken from the desk's order limit, and a single statement claims the nonce (only if
 * that read is still current), the reference and the placed order.
 *
 * `created` is the answer. Anything else is `continue`: when the statement claimed the nonce (the
 * reference was held) authentication is settled and the admission kept (`admitted`); otherwise
 * nothing was written, the admission was given back, and the request goes the usual way
 * (authentication's own statement first), where any refusal is found and answered in the
 * spec's order.
 */
export async function createOrderAtOnce(ctx: Ctx, auth: PendingAuth, body: Record<string, unknown>): Promise<AtOnce> {
  const { desk, merchant, versions } = auth.at;
  let p: Prepared;
  try {
    p = await prepare(ctx, desk, merchant, body, versions);
  } catch (err) {
    if (err instanceof AppError) return NOT_AT_ONCE;
    throw err;
  }
  const issued = await issueAtOnce(ctx, p);
  if (!issued) return NOT_AT_ONCE;
  if (!(await ctx.limits.orderCreate.take(desk.key)).ok) return NOT_AT_ONCE;
  const r = await insertPlacedOrderAuthenticating(ctx.db, p.fresh, issued.payment, issued.providerId, auth.lastCheck(ctx.clock.now()));
  if (r.claimed) auth.settledBy();
  if (r.placed) {
    ctx.metrics.ordersCreated.inc({ method: p.fresh.method, rail: p.fresh.rail ?? '' });
    const o = p.fresh;
    return {
      kind: 'created',
      order: createView({
        id: o.id, amount: o.amount, currency: o.currency, settled_amount: o.settledAmount, rate: o.rate, method: o.method, rail: o.rail,
        status: 'Created', payment: issued.payment, created_at: o.createdAt, expires_at: o.expiresAt,
      }),
    };
  }
  if (r.claimed) return { kind: 'continue', admitted: true };
  await ctx.limits.orderCreate.refund(desk.key);
  return NOT_AT_ONCE;
}

async function createOrderRow(ctx: Ctx, desk: DeskRow, merchant: MerchantRow, body: Record<string, unknown>, versions?: CatalogVersions | null): Promise<OrderRow> {
  const p = await prepare(ctx, desk, merchant, body, versions);
  const { req, terms, fresh, cascadeOptions } = p;

  // Steps 11 and 12 in one statement when the provider the cascade comes to first issues within the
  // process (the sandbox) and the reference is free: the order is inserted already placed.
  const issued = await issueAtOnce(ctx, p);
  if (issued) {
    const placed = await insertPlacedOrderClaimingRef(ctx.db, fresh, issued.payment, issued.providerId);
    if (placed) return created(ctx, placed);
  }

  // Otherwise step 11 in one statement when the reference is free (or there is none); the
  // idempotency rules in a transaction of their own only when it is already held.
  let decision: Decision;
  if (await insertPendingOrderClaimingRef(ctx.db, fresh)) {
    decision = { kind: 'new', order: fresh };
  } else {
    for (;;) {
      decision = await ctx.db.tx((q) => reserve(q, ctx, terms, req.orderRef));
      if (decision.kind !== 'wait') break;
      await waitForPlacement(ctx, decision.orderId);
    }
  }
  if (decision.kind === 'existing') return decision.order;

  const order = decision.order;
  if (p.shutOut) {
    await markPlacementFailed(ctx.db, order.id, new Date(ctx.clock.now()));
    throw new AppError('MERCHANT_NOT_APPROVED', 'the account is under review and the sandbox is off');
  }
  const result = await runCascade(ctx, cascadeOf(order), cascadeOptions);
  const now = new Date(ctx.clock.now());
  if (!result.ok) {
    await markPlacementFailed(ctx.db, order.id, now);
    throw new AppError(result.code, result.detail);
  }
  const placed = await markPlaced(ctx.db, order.id, result.payment, result.providerId, now);
  if (!placed) throw new AppError('NO_AVAILABLE_METHOD', 'the order could not be placed in time; retry');
  return created(ctx, placed);
}

function created(ctx: Ctx, placed: OrderRow): OrderRow {
  ctx.metrics.ordersCreated.inc({ method: placed.method, rail: placed.rail ?? '' });
  return placed;
}
