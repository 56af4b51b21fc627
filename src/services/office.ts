import { readingCtx, type Ctx } from '../context.js';
import { METHODS, CATALOGUE, isIsoCurrency, isMethod, railsOf } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt8 } from '../domain/money.js';
import { APPEAL_STATUSES } from '../domain/appealGuard.js';
import { ORDER_STATUSES } from '../domain/orders.js';
import { isoSeconds } from '../domain/time.js';
import { windowStart } from '../domain/turnover.js';
import type { OperatorRow } from '../store/accounts.js';
import * as office from '../store/office.js';
import { orderSeq } from '../store/orders.js';
import { listOrderEvents } from '../store/outbox.js';
import { getAppealForReview, reviewView } from './appeals.js';
import { auditView, listAudit } from './audit.js';
import { userView } from './accounts.js';
import { demoRateWarnings, liveCoverageWarnings, listCurrencyViews, listDeskViews, listRateViews, merchantWithBalanceView, tariffView } from './operator.js';
import { applicationQueue, findMerchantApplication } from './applications.js';
import { listProviderViews, providerViewById } from './providersAdmin.js';
import { operatorOrderView } from './orderViews.js';
import { pageOf, type Page } from './paging.js';
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

/** The review queue: submitted applications, the longest waiting first (`applicationQueue`). */
export async function reviewQueue(ctx: Ctx) {
  return applicationQueue(ctx);
}

/** Open appeals of live (or sandbox) orders, the nearest SLA first, each saying whether a receipt file came with it. */
export async function appealQueue(ctx: Ctx, after?: string, sandbox = false) {
  if (after && !(await office.appealExists(ctx.db, after))) throw new AppError('VALIDATION_ERROR', 'after: unknown appeal id');
  const now = ctx.clock.now();
  const [rows, elsewhere] = await Promise.all([office.openAppealsOfMode(ctx.db, { sandbox, afterId: after, limit: QUEUE_ROWS + 1 }), office.openAppealCount(ctx.db, !sandbox)]);
  const page = pageOf(rows, QUEUE_ROWS, (r) => reviewView(r, now), (r) => r.id);
  const receipts = await office.appealsWithReceipt(ctx.db, page.items.map((a) => a.id));
  // The other mode's open appeals are counted, so none waits unseen behind the switch.
  return { ...page, items: page.items.map((a) => ({ ...a, hasReceipt: receipts.has(a.id) })), elsewhere };
}

export async function payedQueue(ctx: Ctx) {
  return (await office.payedPoolOrders(ctx.db, QUEUE_ROWS)).map((o) => operatorOrderView(o, ctx.config.publicBaseUrl));
}

export async function reconcileQueue(ctx: Ctx) {
  return (await office.ordersToReconcile(ctx.db, QUEUE_ROWS)).map((o) => operatorOrderView(o, ctx.config.publicBaseUrl));
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

/** A merchant as the lists show it: the operator API's merchant, its live and sandbox money apart, its desk count. */
function merchantMoneyView(m: office.MerchantMoneyRow) {
  return { ...merchantWithBalanceView(m), money: { live: fmt8(m.balance), sandbox: fmt8(m.sandbox_balance) }, desks: Number(m.desk_count) };
}

/**
 * A merchant with everything an operator looks at: users, desks with their tariffs, the ledger of
 * the mode asked for, withdrawals, audit, and the desks no live provider serves (the approval's
 * `warnings`, recomputed for the providers as they are now).
 */
export async function merchantOverview(ctx: Ctx, id: string, sandbox = false) {
  const row = await office.merchantWithMoney(ctx.db, id);
  if (!row) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${id}`);
  const [users, desks, ledger, withdrawals, audit, warnings, tariffs, application, rateWarnings] = await Promise.all([
    office.merchantUsers(ctx.db, id),
    listDeskViews(ctx, { merchantId: id, limit: 500 }),
    office.ledgerOfMode(ctx.db, id, sandbox, 100),
    office.merchantWithdrawals(ctx.db, id, 50),
    listAudit(ctx, { objectId: id, limit: 50 }),
    liveCoverageWarnings(ctx, id),
    office.listTariffs(ctx.db),
    findMerchantApplication(ctx, id),
    demoRateWarnings(ctx, id),
  ]);
  return {
    merchant: merchantMoneyView(row),
    users: users.map(userView),
    desks: desks.items,
    ledger: ledger.map((e) => ({ id: e.id, orderId: e.order_id, kind: e.kind, amount: fmt8(e.amount), reason: e.reason, at: isoSeconds(e.created_at) })),
    withdrawals: withdrawals.map((w) => ({ id: w.id, amountUsd: fmt8(w.amount_usd), reference: w.reference, createdAt: isoSeconds(w.created_at) })),
    audit: audit.items,
    warnings,
    tariffs: tariffs.map(tariffView),
    /** Its application for approval, or null when it wrote none. */
    application,
    /** One line per currency of its desks priced by a demo rate (the approval's `warnings` name them too). */
    rateWarnings,
  };
}

// ---- lists: the filters of each page, the page itself, and its export in keyset batches

/** Rows read per statement when a list is exported: memory stays flat whatever the list's length. */
export const EXPORT_BATCH = 500;

/** The filters of the orders page as they arrive, each optional: the store's filter, the period as text. */
export type OrderSearchInput = Omit<office.OfficeOrderFilter, 'sandbox' | 'from' | 'to' | 'beforeSeq' | 'limit'> & { from?: string; to?: string };

export const ORDER_FILTERS = ['q', 'merchantId', 'deskId', 'providerId', 'status', 'method', 'rail', 'currency', 'amountMin', 'amountMax', 'from', 'to'] as const satisfies readonly (keyof OrderSearchInput)[];

/** The rails of a method (none for a rail-less one); unknown methods have none. */
export const railsOfMethod = (method: string): readonly string[] => (isMethod(method) ? railsOf(method) : []);

/**
 * The currencies a new desk may be given on the page: those the platform has set up, and those the
 * catalogue's rails are restricted to, sorted.
 */
export async function deskCurrencies(ctx: Ctx): Promise<string[]> {
  const set = new Set((await listCurrencyViews(ctx)).map((c) => c.code));
  for (const rails of Object.values(CATALOGUE)) for (const r of rails) for (const c of r.currencies ?? []) set.add(c);
  return [...set].sort();
}

/** Every rail of every method, once. */
export const ALL_RAILS: readonly string[] = [...new Set(Object.values(CATALOGUE).flatMap((rails) => rails.map((r) => r.rail)))];
const AMOUNT = /^\d{1,16}(\.\d{1,8})?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day (`2026-03-01`, a UTC day) or a time (ISO 8601); `end` makes a day mean its end, so `to` includes it. */
function timeOf(field: string, v: string, end: boolean): Date {
  const d = new Date(DAY.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) throw new AppError('VALIDATION_ERROR', `${field}: a day such as 2026-03-01, or an ISO 8601 time`);
  return DAY.test(v) && end ? new Date(d.getTime() + DAY_MS) : d;
}

/** The orders page's filters checked, or VALIDATION_ERROR naming the first that is not right. */
export function orderFilterOf(f: OrderSearchInput, sandbox: boolean): Omit<office.OfficeOrderFilter, 'limit' | 'beforeSeq'> {
  if (f.status && !(ORDER_STATUSES as readonly string[]).includes(f.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${ORDER_STATUSES.join(', ')}`);
  if (f.method && !(METHODS as readonly string[]).includes(f.method)) throw new AppError('VALIDATION_ERROR', `method: one of ${METHODS.join(', ')}`);
  if (f.rail && !ALL_RAILS.includes(f.rail)) throw new AppError('VALIDATION_ERROR', `rail: one of ${ALL_RAILS.join(', ')}`);
  if (f.currency && !(/^[A-Z]{3}$/.test(f.currency) && isIsoCurrency(f.currency))) throw new AppError('VALIDATION_ERROR', 'currency: an ISO 4217 code such as INR');
  for (const k of ['amountMin', 'amountMax'] as const) if (f[k] && !AMOUNT.test(f[k]!)) throw new AppError('VALIDATION_ERROR', `${k}: a decimal amount such as 1500 or 99.50`);
  if (f.amountMin && f.amountMax && dec(f.amountMin).gt(f.amountMax)) throw new AppError('VALIDATION_ERROR', 'amountMin: must not exceed amountMax');
  const from = f.from ? timeOf('from', f.from, false) : undefined;
  const to = f.to ? timeOf('to', f.to, true) : undefined;
  if (from && to && from >= to) throw new AppError('VALIDATION_ERROR', 'from: must be before to');
  const opt = (v: string | undefined) => v || undefined;
  return {
    sandbox,
    q: opt(f.q),
    merchantId: opt(f.merchantId),
    deskId: opt(f.deskId),
    providerId: opt(f.providerId),
    status: opt(f.status),
    method: opt(f.method),
    rail: opt(f.rail),
    currency: opt(f.currency),
    amountMin: opt(f.amountMin),
    amountMax: opt(f.amountMax),
    from,
    to,
  };
}

/**
 * The orders page: every filter an operator searches by, one mode (live or sandbox), newest first,
 * keyset-paged by `before` (an order id). When nothing matches, `elsewhere` says whether the other
 * mode has a match, so a sandbox id pasted into the live list says where it is.
 */
export async function searchOrders(ctx: Ctx, input: OrderSearchInput, o: { sandbox: boolean; before?: string; limit: number }) {
  const filter = orderFilterOf(input, o.sandbox);
  let beforeSeq: number | undefined;
  if (o.before) {
    const seq = await orderSeq(ctx.db, o.before);
    if (seq === null) throw new AppError('VALIDATION_ERROR', 'before: unknown order id');
    beforeSeq = seq;
  }
  const rows = await office.searchOrders(ctx.db, { ...filter, beforeSeq, limit: o.limit + 1 });
  const page = pageOf(rows, o.limit, (r) => operatorOrderView(r, ctx.config.publicBaseUrl), (r) => r.id);
  const filtered = ORDER_FILTERS.some((k) => input[k]);
  const elsewhere = page.items.length === 0 && !o.before && filtered ? (await office.searchOrders(ctx.db, { ...filter, sandbox: !o.sandbox, limit: 1 })).length > 0 : false;
  return { ...page, elsewhere };
}

/** Every order the filters match, newest first, read in batches of EXPORT_BATCH (checked before the first row). */
export function exportOrders(ctx: Ctx, input: OrderSearchInput, sandbox: boolean): AsyncIterable<ReturnType<typeof operatorOrderView>> {
  const filter = orderFilterOf(input, sandbox);
  return (async function* () {
    let beforeSeq: number | undefined;
    for (;;) {
      const rows = await office.searchOrders(ctx.readDb, { ...filter, beforeSeq, limit: EXPORT_BATCH });
      for (const r of rows) yield operatorOrderView(r, ctx.config.publicBaseUrl);
      if (rows.length < EXPORT_BATCH) return;
      beforeSeq = rows[rows.length - 1]!.seq;
    }
  })();
}

export const MERCHANT_STATUSES = ['UnderReview', 'Active', 'Blocked'] as const;

export interface MerchantSearchInput {
  status?: string;
  /** A `mer_` id, or a part of the name. */
  q?: string;
}

function merchantFilterOf(input: MerchantSearchInput) {
  if (input.status && !(MERCHANT_STATUSES as readonly string[]).includes(input.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${MERCHANT_STATUSES.join(', ')}`);
  return { status: input.status || undefined, q: input.q || undefined };
}

export type MerchantListItem = ReturnType<typeof merchantMoneyView>;

/** The merchants page: newest first, by status and by name or id, each with live and sandbox money apart. */
export async function listMerchants(ctx: Ctx, input: MerchantSearchInput, o: { before?: string; limit: number }): Promise<Page<MerchantListItem>> {
  const filter = merchantFilterOf(input);
  if (o.before && !(await office.merchantExists(ctx.db, o.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown merchant id');
  const rows = await office.merchantsWithMoney(ctx.db, { ...filter, beforeId: o.before, limit: o.limit + 1 });
  return pageOf(rows, o.limit, merchantMoneyView, (m) => m.id);
}

export function exportMerchants(ctx: Ctx, input: MerchantSearchInput): AsyncIterable<MerchantListItem> {
  const filter = merchantFilterOf(input);
  return (async function* () {
    let beforeId: string | undefined;
    for (;;) {
      const rows = await office.merchantsWithMoney(ctx.readDb, { ...filter, beforeId, limit: EXPORT_BATCH });
      for (const r of rows) yield merchantMoneyView(r);
      if (rows.length < EXPORT_BATCH) return;
      beforeId = rows[rows.length - 1]!.id;
    }
  })();
}

export interface AppealSearchInput {
  status?: string;
  merchantId?: string;
}

function appealFilterOf(input: AppealSearchInput, sandbox: boolean) {
  if (input.status && !(APPEAL_STATUSES as readonly string[]).includes(input.status)) throw new AppError('VALIDATION_ERROR', `status: one of ${APPEAL_STATUSES.join(', ')}`);
  return { sandbox, status: input.status || undefined, merchantId: input.merchantId || undefined };
}

/** Every appeal of live (or sandbox) orders, newest first, by status and merchant. */
export async function listAppeals(ctx: Ctx, input: AppealSearchInput, o: { sandbox: boolean; before?: string; limit: number }) {
  const filter = appealFilterOf(input, o.sandbox);
  if (o.before && !(await office.appealExists(ctx.db, o.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown appeal id');
  const now = ctx.clock.now();
  const rows = await office.appealsOfMode(ctx.db, { ...filter, beforeId: o.before, limit: o.limit + 1 });
  return pageOf(rows, o.limit, (r) => reviewView(r, now), (r) => r.id);
}

export function exportAppeals(ctx: Ctx, input: AppealSearchInput, sandbox: boolean): AsyncIterable<ReturnType<typeof reviewView>> {
  const filter = appealFilterOf(input, sandbox);
  const now = ctx.clock.now();
  return (async function* () {
    let beforeId: string | undefined;
    for (;;) {
      const rows = await office.appealsOfMode(ctx.readDb, { ...filter, beforeId, limit: EXPORT_BATCH });
      for (const r of rows) yield reviewView(r, now);
      if (rows.length < EXPORT_BATCH) return;
      beforeId = rows[rows.length - 1]!.id;
    }
  })();
}

/** The audit trail, newest first, optionally one object's entries, in batches (its page is `listAudit`). */
export function exportAudit(ctx: Ctx, input: { objectId?: string }): AsyncIterable<ReturnType<typeof auditView>> {
  return (async function* () {
    let before: string | undefined;
    for (;;) {
      const page = await listAudit(readingCtx(ctx), { objectId: input.objectId || undefined, before, limit: EXPORT_BATCH });
      yield* page.items;
      if (!page.hasMore || !page.next) return;
      before = page.next;
    }
  })();
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

/**
 * The home dashboard of one mode (live, or sandbox): turnover of the UTC day and month, orders by
 * status and conversion of the last 30 days, providers of the last 7, callbacks of the last 24
 * hours. Sandbox figures never enter the live dashboard, nor live ones the sandbox's.
 */
export async function dashboard(ctx: Ctx, sandbox = false) {
  const now = ctx.clock.now();
  // The figures read where reports read (the read replica while it keeps up); the providers' names where the page's other reads do.
  const [turnover, statuses, conversion, providers, callbacks, providerList] = await Promise.all([
    office.turnoverSince(ctx.readDb, windowStart('day', now), windowStart('month', now)),
    office.ordersByStatus(ctx.readDb, new Date(now - 30 * DAY_MS), sandbox),
    office.conversionByMethod(ctx.readDb, new Date(now - 30 * DAY_MS), sandbox),
    office.providerDailyOutcomes(ctx.readDb, new Date(now - 7 * DAY_MS), null, sandbox),
    // The hours of the last day (this one included) from the callback rollup, at most a minute old.
    office.callbackStatesByHour(ctx.readDb, new Date(now - DAY_MS + 3_600_000), sandbox),
    listProviderViews(ctx),
  ]);
  const names = new Map(providerList.map((p) => [p.id, p.name]));
  const mine = turnover.find((t) => t.sandbox === sandbox);
  const rate = (done: number, all: number) => (all === 0 ? null : Math.round((done / all) * 1000) / 10);
  const byProvider = new Map<string, { placed: number; completed: number }>();
  for (const r of providers) {
    const p = byProvider.get(r.provider_id) ?? { placed: 0, completed: 0 };
    p.placed += Number(r.placed);
    p.completed += Number(r.completed);
    byProvider.set(r.provider_id, p);
  }
  return {
    sandbox,
    turnover: {
      todayUsd: fmt8(mine?.today ?? '0'),
      monthUsd: fmt8(mine?.month ?? '0'),
      todayOrders: Number(mine?.today_count ?? 0),
      monthOrders: Number(mine?.month_count ?? 0),
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
      source: r?.source ?? null,
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
