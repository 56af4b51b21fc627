import type { Ctx } from '../context.js';
import { dec, fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { windowStart } from '../domain/turnover.js';
import type { OperatorRow } from '../store/accounts.js';
import { listEntries } from '../store/ledger.js';
import * as office from '../store/office.js';
import { listOrderEvents } from '../store/outbox.js';
import { getAppealForReview, listAppealsForReview } from './appeals.js';
import { listAudit } from './audit.js';
import { userView } from './accounts.js';
import { getMerchant, listCurrencyViews, listDeskViews, listRateViews, tariffView } from './operator.js';
import { listProviderViews, providerViewById } from './providersAdmin.js';
import { listOperatorOrders, type OrderListQuery } from './orders.js';
import { operatorOrderView } from './orderViews.js';
import { listLimitViews } from './turnover.js';

/**
 * Reads of the back office that the operator API does not offer: queues sorted by urgency, the
 * merchant's whole picture, the figures of the dashboard. The actions themselves are the operator
 * API's services, called through `audited()`.
 */

/** Rows per queue page; a queue longer than this says so and is worked from the top. */
export const QUEUE_ROWS = 100;

export async function officeOperator(ctx: Ctx, id: string): Promise<OperatorRow | null> {
  return office.getOperator(ctx.db, id);
}

export type QueueCounts = office.QueueCounts;

export async function queueCounts(ctx: Ctx): Promise<QueueCounts> {
  return office.queueCounts(ctx.db, new Date(ctx.clock.now()));
}

export async function reviewQueue(ctx: Ctx) {
  const rows = await office.merchantsUnderReview(ctx.db, QUEUE_ROWS);
  return rows.map((m) => ({
    id: m.id,
    name: m.name,
    sandbox: m.sandbox,
    createdAt: isoSeconds(m.created_at),
    desks: Number(m.desks),
    sandboxOrders: Number(m.sandbox_orders),
    sandboxCompleted: Number(m.sandbox_completed),
  }));
}

/** Open appeals, the nearest SLA first, each saying whether a receipt file came with it. */
export async function appealQueue(ctx: Ctx, after?: string) {
  const page = await listAppealsForReview(ctx, { status: 'Open', after, limit: QUEUE_ROWS });
  const receipts = await office.appealsWithReceipt(ctx.db, page.items.map((a) => a.id));
  return { ...page, items: page.items.map((a) => ({ ...a, hasReceipt: receipts.has(a.id) })) };
}

export async function payedQueue(ctx: Ctx) {
  return (await office.payedPoolOrders(ctx.db, QUEUE_ROWS)).map(operatorOrderView);
}

export async function reconcileQueue(ctx: Ctx) {
  return (await office.ordersToReconcile(ctx.db, QUEUE_ROWS)).map(operatorOrderView);
}

export async function callbackQueue(ctx: Ctx) {
  const rows = await office.failingEndpoints(ctx.db, new Date(ctx.clock.now()), QUEUE_ROWS);
  return rows.map((r) => ({
    deskId: r.desk_id,
    merchantId: r.merchant_id,
    url: r.url,
    failed: Number(r.failed),
    retrying: Number(r.retrying),
    lastEventAt: isoSeconds(r.last_event_at),
    lastError: r.last_error,
  }));
}

/** A merchant with everything an operator looks at: users, desks, ledger, withdrawals, audit. */
export async function merchantOverview(ctx: Ctx, id: string) {
  const merchant = await getMerchant(ctx, id);
  const [users, desks, ledger, withdrawals, audit] = await Promise.all([
    office.merchantUsers(ctx.db, id),
    listDeskViews(ctx, { merchantId: id, limit: 500 }),
    listEntries(ctx.db, id, 100),
    office.merchantWithdrawals(ctx.db, id, 50),
    listAudit(ctx, { objectId: id, limit: 50 }),
  ]);
  return {
    merchant,
    users: users.map(userView),
    desks: desks.items,
    ledger: ledger.map((e) => ({ id: e.id, orderId: e.order_id, kind: e.kind, amount: fmt8(e.amount), reason: e.reason, at: isoSeconds(e.created_at) })),
    withdrawals: withdrawals.map((w) => ({ id: w.id, amountUsd: fmt8(w.amount_usd), reference: w.reference, createdAt: isoSeconds(w.created_at) })),
    audit: audit.items,
  };
}

/**
 * Order search: an `ord_` id or an orderRef through the operator list, and a payer reference (UTR)
 * as well, since that is what a payer quotes on the phone.
 */
export async function searchOrders(ctx: Ctx, query: OrderListQuery) {
  const page = await listOperatorOrders(ctx, query);
  if (!query.q || query.before) return page;
  const seen = new Set(page.items.map((o) => o.id));
  const byReference = (await office.ordersByPayerReference(ctx.db, query.q, query.limit)).filter((o) => !seen.has(o.id)).map(operatorOrderView);
  return { ...page, items: [...byReference, ...page.items] };
}

/** What happened to an order, oldest first: creation, its events and their delivery, the operators' actions. */
export async function orderTimeline(ctx: Ctx, order: { id: string; createdAt: string; finishedAt: string | null; status: string }) {
  const [events, audit] = await Promise.all([listOrderEvents(ctx.db, order.id), listAudit(ctx, { objectId: order.id, limit: 100 })]);
  const lines: { at: string; what: string; detail: string | null }[] = [{ at: order.createdAt, what: 'created', detail: null }];
  for (const e of events) lines.push({ at: isoSeconds(e.created_at), what: e.event, detail: `event ${e.id}: ${e.state}, ${e.attempts} attempt(s)` });
  for (const a of audit.items) lines.push({ at: a.at, what: a.action, detail: `by ${a.actor}: ${a.outcome}${a.detail ? ` (${a.detail})` : ''}` });
  if (order.finishedAt) lines.push({ at: order.finishedAt, what: `finished ${order.status}`, detail: null });
  return { lines: lines.sort((x, y) => x.at.localeCompare(y.at)), audit: audit.items };
}

/** Turnover caps with what the current window of each already holds. */
export async function capsWithUsage(ctx: Ctx) {
  const now = ctx.clock.now();
  const [caps, counters] = await Promise.all([
    listLimitViews(ctx),
    office.currentCounters(ctx.db, { hour: windowStart('hour', now), day: windowStart('day', now), month: windowStart('month', now) }),
  ]);
  const used = new Map(counters.map((c) => [`${c.scope}|${c.scope_id}|${c.win}`, c.completed_usd]));
  return caps.map((c) => {
    const usedUsd = fmt8(used.get(`${c.scope}|${c.scopeId ?? ''}|${c.window}`) ?? '0');
    const cap = dec(c.capUsd);
    return { ...c, usedUsd, windowStart: isoSeconds(windowStart(c.window, now)), usedPercent: cap.gt(0) ? dec(usedUsd).div(cap).times(100).toDecimalPlaces(1).toString() : '0' };
  });
}

const DAY_MS = 86_400_000;

/** The home dashboard: turnover, orders by status and conversion of the last 30 days, providers of the last 7, callbacks of the last 24 hours. */
export async function dashboard(ctx: Ctx) {
  const now = ctx.clock.now();
  const [turnover, statuses, conversion, providers, callbacks, providerList] = await Promise.all([
    office.turnoverSince(ctx.db, windowStart('day', now), windowStart('month', now)),
    office.ordersByStatus(ctx.db, new Date(now - 30 * DAY_MS)),
    office.conversionByMethod(ctx.db, new Date(now - 30 * DAY_MS)),
    office.providerDailyOutcomes(ctx.db, new Date(now - 7 * DAY_MS), null),
    office.callbackStates(ctx.db, new Date(now - DAY_MS)),
    listProviderViews(ctx),
  ]);
  const names = new Map(providerList.map((p) => [p.id, p.name]));
  const live = turnover.find((t) => !t.sandbox);
  const sandbox = turnover.find((t) => t.sandbox);
  const rate = (done: number, all: number) => (all === 0 ? null : Math.round((done / all) * 1000) / 10);
  const byProvider = new Map<string, { placed: number; completed: number }>();
  for (const r of providers) {
    const p = byProvider.get(r.provider_id) ?? { placed: 0, completed: 0 };
    p.placed += Number(r.placed);
    p.completed += Number(r.completed);
    byProvider.set(r.provider_id, p);
  }
  return {
    turnover: {
      todayUsd: fmt8(live?.today ?? '0'),
      monthUsd: fmt8(live?.month ?? '0'),
      todayOrders: Number(live?.today_count ?? 0),
      monthOrders: Number(live?.month_count ?? 0),
      sandboxTodayUsd: fmt8(sandbox?.today ?? '0'),
      sandboxMonthUsd: fmt8(sandbox?.month ?? '0'),
    },
    statuses: statuses.map((s) => ({ status: s.status, count: Number(s.n) })),
    conversion: conversion.map((c) => ({ method: c.method, created: Number(c.created), completed: Number(c.completed), percent: rate(Number(c.completed), Number(c.created)) })),
    providers: [...byProvider].map(([id, p]) => ({ id, name: names.get(id) ?? id, ...p, percent: rate(p.completed, p.placed) })),
    callbacks: callbacks.map((c) => ({ state: c.state, count: Number(c.n) })),
  };
}

/** A provider's success rate per UTC day over the last 14 days (days without orders included, as null). */
export async function providerDailySuccess(ctx: Ctx, providerId: string) {
  const now = ctx.clock.now();
  const rows = await office.providerDailyOutcomes(ctx.db, new Date(windowStart('day', now).getTime() - 13 * DAY_MS), providerId);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: 14 }, (_, i) => {
    const day = new Date(windowStart('day', now).getTime() - (13 - i) * DAY_MS).toISOString().slice(0, 10);
    const r = byDay.get(day);
    const placed = Number(r?.placed ?? 0);
    const completed = Number(r?.completed ?? 0);
    return { day, placed, completed, percent: placed === 0 ? null : Math.round((completed / placed) * 1000) / 10 };
  });
}

export async function listTariffViews(ctx: Ctx) {
  return (await office.listTariffs(ctx.db)).map(tariffView);
}

/** A provider as the operator API shows it, with its daily success rate and its audit entries. */
export async function providerHealth(ctx: Ctx, id: string) {
  const provider = await providerViewById(ctx, id);
  const [series, audit] = await Promise.all([providerDailySuccess(ctx, id), listAudit(ctx, { objectId: id, limit: 50 })]);
  return { provider, series, audit: audit.items };
}

/** Every provider with its daily success rate: the live methods picture across providers. */
export async function providersOverview(ctx: Ctx) {
  const list = await listProviderViews(ctx);
  return Promise.all(list.map(async (p) => ({ ...p, series: await providerDailySuccess(ctx, p.id) })));
}

/** Each currency with a rate or a setting: its rate row (source, age, jump refusal, manual override) and its setting. */
export async function ratesOverview(ctx: Ctx) {
  const [rates, currencies] = await Promise.all([listRateViews(ctx), listCurrencyViews(ctx)]);
  const byCode = new Map(currencies.map((c) => [c.code, c]));
  const codes = [...new Set([...rates.map((r) => r.code), ...currencies.map((c) => c.code)])].sort();
  return codes.map((code) => {
    const r = rates.find((x) => x.code === code);
    return {
      code,
      currency: byCode.get(code) ?? null,
      rate: r?.rate ?? null,
      manualRate: r?.manualRate ?? null,
      manualSetAt: r?.manualSetAt ?? null,
      marketRate: r?.marketRate ?? null,
      marketSource: r?.marketSource ?? null,
      marketFetchedAt: r?.marketFetchedAt ?? null,
      flag: r?.flag ?? null,
    };
  });
}

/** One appeal as the operator API shows it, and whether a receipt file came with it. */
export async function appealForReview(ctx: Ctx, id: string) {
  const a = await getAppealForReview(ctx, id);
  const receipts = await office.appealsWithReceipt(ctx.db, [a.id]);
  return { ...a, hasReceipt: receipts.has(a.id) };
}
