import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { findScopedOrder, listOrders as selectOrders, orderSeq, type OrderRow, type OrderScope } from '../store/orders.js';
import { readDeskOrderAuthenticating } from '../store/deskOrderReads.js';
import type { PendingAuth } from './deskAuth.js';
import { operatorOrderView, orderView } from './orderViews.js';
import { pageOf, type Page } from './paging.js';

export type { OrderScope };

const orderNotFound = (idOrRef: string) => new AppError('ORDER_NOT_FOUND', `no order ${idOrRef}`);

/** An order seen from a scope (desk, merchant or platform); outside it, ORDER_NOT_FOUND (D4). */
export async function findOrderRow(ctx: Ctx, scope: OrderScope, idOrRef: string): Promise<OrderRow> {
  const o = await findScopedOrder(ctx.db, scope, idOrRef);
  if (!o) throw orderNotFound(idOrRef);
  return o;
}

/** `GET /gw/v1/orders/{id}` and the cabinet's order: the Order get fields. */
export async function getOrder(ctx: Ctx, scope: OrderScope, idOrRef: string) {
  return orderView(await findOrderRow(ctx, scope, idOrRef), ctx.config.publicBaseUrl);
}

/**
 * `GET /gw/v1/orders/{id}` in one statement with authentication's last check (see PendingAuth):
 * the order view (or ORDER_NOT_FOUND) once the statement settled authentication; null when it
 * could not (a secret rotated since, a replayed nonce), and the request goes the usual way.
 */
export async function getOrderAtOnce(ctx: Ctx, auth: PendingAuth, idOrRef: string): Promise<ReturnType<typeof orderView> | null> {
  const r = await readDeskOrderAuthenticating(ctx.db, auth.at.desk.id, idOrRef, auth.lastCheck(ctx.clock.now()));
  if (!r.claimed) return null;
  auth.settledBy();
  if (!r.order) throw orderNotFound(idOrRef);
  return orderView(r.order, ctx.config.publicBaseUrl);
}

/** The operator's order: the get fields plus desk, merchant and provider. */
export async function getOperatorOrder(ctx: Ctx, id: string) {
  return operatorOrderView(await findOrderRow(ctx, {}, id), ctx.config.publicBaseUrl);
}

export interface OrderListQuery {
  status?: string;
  merchantId?: string;
  deskId?: string;
  providerId?: string;
  from?: string;
  to?: string;
  q?: string;
  before?: string;
  limit: number;
}

function date(field: string, v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new AppError('VALIDATION_ERROR', `${field}: must be an ISO 8601 date or time`);
  return d;
}

/**
 * Orders newest first within a scope, keyset-paged by `before` (an order id). Within a merchant's
 * scope (the cabinet) `q` matches a payer reference too, as the back office's search does; the
 * operator API's `q` is an id or an orderRef.
 */
export async function listOrderRows(ctx: Ctx, scope: OrderScope, query: OrderListQuery): Promise<Page<OrderRow>> {
  let beforeSeq: number | undefined;
  if (query.before) {
    const seq = await orderSeq(ctx.db, query.before);
    if (seq === null) throw new AppError('VALIDATION_ERROR', 'before: unknown order id');
    beforeSeq = seq;
  }
  const rows = await selectOrders(ctx.db, {
    merchantId: scope.merchantId ?? query.merchantId,
    deskId: scope.deskId ?? query.deskId,
    status: query.status,
    providerId: query.providerId,
    from: date('from', query.from),
    to: date('to', query.to),
    q: query.q,
    qPayerReference: scope.merchantId !== undefined,
    beforeSeq,
    limit: query.limit + 1,
  });
  return pageOf(rows, query.limit, (r) => r, (r) => r.id);
}

/** `GET /admin/v1/orders`: the operator's order view per item. */
export async function listOperatorOrders(ctx: Ctx, query: OrderListQuery) {
  const page = await listOrderRows(ctx, {}, query);
  return { ...page, items: page.items.map((o) => operatorOrderView(o, ctx.config.publicBaseUrl)) };
}
