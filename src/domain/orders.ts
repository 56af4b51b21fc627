import type { Decimal } from 'decimal.js';
import { isIsoCurrency, isMethod, isRailless, railsOf, railServesCurrency, MOBILE_OPERATORS, type Method } from './catalogue.js';
import { AppError, fail, ok, type Result } from './errors.js';
import { amountFromJson, fmt8, dec } from './money.js';

/** The statuses an order takes (spec "Order statuses"). */
export const ORDER_STATUSES = ['Created', 'Payed', 'Completed', 'Canceled', 'Dispute'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Statuses the spec names but never assigns (D18): listed in the API's enum, never written. */
export const RESERVED_ORDER_STATUSES = ['CompletedOnDispute', 'WaitingPayment'] as const;
export const SUB_STATUSES = ['WaitingForPayment', 'WaitingAdminConfirmation', 'SuccessfullyPaid', 'Cancelled', 'Expired'] as const;
export type SubStatus = (typeof SUB_STATUSES)[number];
/** The callbacks an order's changes send (spec "Callbacks"). */
export const EVENT_KINDS = ['order.completed', 'order.cancelled', 'order.appealed', 'order.updated'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export function isOrderStatus(v: unknown): v is OrderStatus {
  return typeof v === 'string' && (ORDER_STATUSES as readonly string[]).includes(v);
}

export const DEFAULT_LIFETIME_MINUTES = 15;
export const IDEMPOTENCY_WINDOW_MS = 3_600_000;
export const ORDER_REF_MAX = 255;

/** The create request after D3/D8/D10 shape checks; business checks come in the spec's twelve steps. */
export interface CreateOrderRequest {
  amount: Decimal;
  currency: string;
  rail: string | null | undefined;
  orderRef: string | null;
  notifyUrl: string | null;
  successUrl: string | null;
  failUrl: string | null;
  backUrl: string | null;
  lifetimeMinutes: number;
  operator: string | null;
}

const URL_MAX = 2048;

/** D3, D8, D10: shape of the create body. Returns the first problem, naming the field. */
export function parseCreateOrder(b: Record<string, unknown>): Result<CreateOrderRequest> {
  const bad = (f: string, what: string) => fail<CreateOrderRequest>('VALIDATION_ERROR', `${f}: ${what}`);
  if (b.amount === undefined || b.amount === null) return bad('amount', 'is required');
  if (typeof b.amount !== 'number') return bad('amount', 'must be a JSON number');
  const amount = amountFromJson(b.amount);
  if (amount === null) return bad('amount', 'must be greater than zero after rounding to 2 decimals');
  if (amount.gt('1e15')) return bad('amount', 'is too large');
  if (b.currency !== undefined && b.currency !== null && typeof b.currency !== 'string') return bad('currency', 'must be a string');
  if (b.rail !== undefined && b.rail !== null && typeof b.rail !== 'string') return bad('rail', 'must be a string');
  if (b.direction !== undefined && b.direction !== null) {
    if (b.direction === 'Out') return fail('PAYOUTS_NOT_SUPPORTED', 'payouts are not offered; direction must be In');
    if (b.direction !== 'In') return bad('direction', 'must be In');
  }
  const strings: Record<string, string | null> = {};
  for (const f of ['orderRef', 'notifyUrl', 'successUrl', 'failUrl', 'backUrl', 'operator', 'targetBank'] as const) {
    const v = b[f];
    if (v === undefined || v === null) {
      strings[f] = null;
      continue;
    }
    if (typeof v !== 'string') return bad(f, 'must be a string');
    strings[f] = v;
  }
  if (strings.orderRef !== null && (strings.orderRef.length === 0 || strings.orderRef.length > ORDER_REF_MAX)) {
    return bad('orderRef', `must be 1 to ${ORDER_REF_MAX} characters`);
  }
  for (const f of ['notifyUrl', 'successUrl', 'failUrl', 'backUrl'] as const) {
    if (strings[f] !== null && strings[f]!.length > URL_MAX) return bad(f, `must be at most ${URL_MAX} characters`);
  }
  for (const f of ['successUrl', 'failUrl', 'backUrl'] as const) {
    if (strings[f] !== null && !isHttpUrl(strings[f]!)) return bad(f, 'must be an absolute http(s) URL');
  }
  if (strings.operator !== null && !(MOBILE_OPERATORS as readonly string[]).includes(strings.operator)) {
    return bad('operator', `must be one of ${MOBILE_OPERATORS.join(', ')}`);
  }
  let lifetimeMinutes = DEFAULT_LIFETIME_MINUTES;
  if (b.lifetimeMinutes !== undefined && b.lifetimeMinutes !== null) {
    const l = b.lifetimeMinutes;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 1 || l > 1440) return bad('lifetimeMinutes', 'must be an integer from 1 to 1440');
    lifetimeMinutes = l;
  }
  return ok({
    amount,
    currency: (b.currency as string | null | undefined) ?? 'RUB',
    rail: b.rail as string | null | undefined,
    orderRef: strings.orderRef,
    notifyUrl: strings.notifyUrl,
    successUrl: strings.successUrl,
    failUrl: strings.failUrl,
    backUrl: strings.backUrl,
    lifetimeMinutes,
    operator: strings.operator,
  });
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Step 6 (D11, D16): which rail the order uses. */
export function resolveRail(method: string, deskRails: readonly string[], requested: string | null | undefined, operator: string | null): Result<string | null> {
  if (!isMethod(method)) return fail('INVALID_RAIL', `cash desk method ${method} is unknown`);
  if (isRailless(method)) {
    if (requested !== undefined && requested !== null) return fail('INVALID_RAIL', `${method} has no rails; omit rail`);
    return ok(null);
  }
  const known = railsOf(method);
  let rail: string;
  if (requested === undefined || requested === null) {
    if (deskRails.length === 1) rail = deskRails[0];
    else if (deskRails.length === 0) return fail('RAIL_NOT_ENABLED', 'the cash desk has no rail enabled');
    else return fail('RAIL_REQUIRED', `rail is required: the cash desk allows ${deskRails.join(', ')}`);
  } else {
    if (!known.includes(requested)) return fail('INVALID_RAIL', `${requested} is not a rail of ${method}`);
    if (!deskRails.includes(requested)) return fail('RAIL_NOT_ENABLED', `${requested} is not enabled on this cash desk`);
    rail = requested;
  }
  if (method === 'MobileCommerce' && rail === 'Phone' && operator === null) {
    return fail('VALIDATION_ERROR', `operator: is required for rail Phone (${MOBILE_OPERATORS.join(', ')})`);
  }
  return ok(rail);
}

/** Step 7 (D9, D15): the currency exists, is payable on the platform, and the desk and rail take it. */
export function checkCurrency(
  code: string,
  platform: { known: boolean; enabled: boolean; hasRateSource: boolean },
  desk: { method: string; currencies: readonly string[] },
  rail: string | null,
): Result<string> {
  if (!/^[A-Z]{3}$/.test(code) || !isIsoCurrency(code)) return fail('INVALID_CURRENCY', `${code} is not an ISO 4217 currency code`);
  if (!platform.known || !platform.enabled) return fail('CURRENCY_NOT_PAYABLE', `${code} is not enabled on the platform`);
  if (!platform.hasRateSource) return fail('CURRENCY_NOT_PAYABLE', `${code} has no rate source`);
  if (!desk.currencies.includes(code)) return fail('CURRENCY_NOT_ENABLED', `${code} is not allowed on this cash desk`);
  if (!railServesCurrency(desk.method as Method, rail, code)) return fail('CURRENCY_NOT_ENABLED', `rail ${rail} does not serve ${code}`);
  return ok(code);
}

/** Step 9: USD amount within the desk's limits, 0 meaning no bound; the bound goes in the detail. */
export function checkDeskLimits(settledUsd: Decimal, minUsd: string, maxUsd: string): Result<true> {
  if (dec(minUsd).gt(0) && settledUsd.lt(minUsd)) return fail('AMOUNT_BELOW_MIN', `minimum ${fmt8(minUsd)} USD, order ${fmt8(settledUsd)} USD`);
  if (dec(maxUsd).gt(0) && settledUsd.gt(maxUsd)) return fail('AMOUNT_ABOVE_MAX', `maximum ${fmt8(maxUsd)} USD, order ${fmt8(settledUsd)} USD`);
  return ok(true);
}

/** Is the order closed without credit, so that a repeat of its orderRef starts a new order (idempotency rule 2)? */
export function refReusable(status: OrderStatus): boolean {
  return status === 'Canceled';
}

export const OPEN_STATUSES: readonly OrderStatus[] = ['Created', 'Payed'];

/**
 * The order transition table (spec "Order transitions"): every action that moves an order names
 * the states it may start from and the state it leads to, and every service consults it.
 */
export const ORDER_ACTIONS = {
  /** Sandbox payment simulated: skips Payed. */
  simulate: { from: ['Created'], to: 'Completed' },
  /** A live provider reports a payment; no callback yet. */
  report: { from: ['Created'], to: 'Payed' },
  /** The platform confirms the funds: also reconciliation of a Canceled order and a payment during an appeal (P22). */
  confirm: { from: ['Created', 'Payed', 'Canceled', 'Dispute'], to: 'Completed' },
  /** The provider rejects an unpaid or unconfirmed order (P23). */
  reject: { from: ['Created', 'Payed'], to: 'Canceled' },
  /** The merchant cancels an unpaid order. */
  cancel: { from: ['Created'], to: 'Canceled' },
  /** The expiry worker closes an order past expiresAt. */
  expire: { from: ['Created'], to: 'Canceled' },
  /** An appeal opens on an order closed without credit. */
  appeal: { from: ['Canceled'], to: 'Dispute' },
  acceptAppeal: { from: ['Dispute'], to: 'Completed' },
  rejectAppeal: { from: ['Dispute'], to: 'Canceled' },
} as const satisfies Record<string, { from: readonly OrderStatus[]; to: OrderStatus }>;

export type OrderAction = keyof typeof ORDER_ACTIONS;
export type CompletingAction = { [A in OrderAction]: (typeof ORDER_ACTIONS)[A]['to'] extends 'Completed' ? A : never }[OrderAction];
export type CancellingAction = { [A in OrderAction]: (typeof ORDER_ACTIONS)[A]['to'] extends 'Canceled' ? A : never }[OrderAction];

export function allowedFrom(action: OrderAction, status: OrderStatus): boolean {
  return (ORDER_ACTIONS[action].from as readonly OrderStatus[]).includes(status);
}

/** Whether what the order was credited may be reversed: only a completed order holds a credit. */
export function reversibleIn(status: OrderStatus): boolean {
  return status === 'Completed';
}

/** The refusal of an action the order's status does not allow: already completed, or an invalid transition. */
export function refuseFrom(o: { id: string; status: OrderStatus }, action: string): never {
  if (o.status === 'Completed') throw new AppError('ORDER_ALREADY_COMPLETED', `order ${o.id} is already completed`);
  throw new AppError('INVALID_TRANSITION', `cannot ${action} an order in status ${o.status}`);
}
