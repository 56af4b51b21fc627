import type { Decimal } from 'decimal.js';
import type { Ctx } from '../context.js';
import { capExceeded, windowStart, WINDOWS, type Cap, type Scope, type Window } from '../domain/turnover.js';
import { AppError } from '../domain/errors.js';
import { newId } from '../ids.js';
import { dec, fmt8 } from '../domain/money.js';
import type { Queryable } from '../store/db.js';
import { keptCatalog } from '../store/catalogVersions.js';
import { addToCounters, allCapsInCheckOrder, capsFor, counterKey, counterValue, deleteLimit, insertLimit, listLimits, listNotifications, notifyOnce, scopeExists } from '../store/turnover.js';

export interface ScopeIds {
  deskId: string;
  merchantId: string;
  providerId?: string | null;
  /**
   * A sandbox order moves no money: it still counts for its own desk and merchant (so an integration
   * can meet TRAFFIC_LIMIT_REACHED before going live), but never for the platform-wide caps, where a
   * merchant simulating payments from the cabinet could otherwise stop every live merchant.
   */
  sandbox?: boolean;
  /**
   * The order is a test desk's: it counts for that desk only. The merchant's caps are its live
   * traffic's, which an approved merchant's simulated payments must neither fill nor be stopped by.
   */
  testDesk?: boolean;
}

export function scopesOf(s: ScopeIds): { scope: Scope; id: string }[] {
  const out: { scope: Scope; id: string }[] = [{ scope: 'desk', id: s.deskId }];
  if (!s.testDesk) out.push({ scope: 'merchant', id: s.merchantId });
  if (!s.sandbox) out.push({ scope: 'platform', id: '' });
  if (s.providerId) out.push({ scope: 'provider', id: s.providerId });
  return out;
}

/** Caps that apply to the order: capsFor always returns the platform caps, which sandbox orders skip. */
async function applicableCaps(q: Queryable, s: ScopeIds): Promise<Cap[]> {
  return (await capsFor(q, scopesOf(s))).filter((c) => appliesTo(c, s));
}

function appliesTo(c: Cap, s: ScopeIds): boolean {
  if (c.scope === 'platform') return !s.sandbox;
  if (c.scope === 'provider') return !!s.providerId && c.scopeId === s.providerId;
  if (c.scope === 'merchant') return !s.testDesk && c.scopeId === s.merchantId;
  return c.scopeId === s.deskId;
}

/** Every cap in check order, kept at the limits catalogue version. */
const capsKept = keptCatalog('limits', allCapsInCheckOrder);

/**
 * The caps an order of these scopes is checked against, as of the limits catalogue version that
 * authentication read (a fresh read without one): the desk's, the merchant's, the providers' and
 * the platform's, narrowest first. Which of them apply is `firstExceededCap`'s to decide.
 */
export async function capsAt(ctx: Ctx, s: ScopeIds, atVersion: number | undefined): Promise<Cap[]> {
  const all = await capsKept(ctx.db, atVersion);
  return all.filter((c) => c.scope === 'platform' || c.scope === 'provider' || c.scopeId === (c.scope === 'desk' ? s.deskId : s.merchantId));
}

const idFor = (cap: Cap, s: ScopeIds): string =>
  cap.scope === 'desk' ? s.deskId : cap.scope === 'merchant' ? s.merchantId : cap.scope === 'provider' ? (s.providerId ?? '') : '';

/**
 * Validation step 10: hard caps (not notify-only) whose window already holds completed + this order
 * above the cap. Reads one counter per cap; returns the D22 detail of the first cap exceeded.
 */
export async function firstExceededCap(ctx: Ctx, s: ScopeIds, orderUsd: Decimal, only?: Scope, loaded?: readonly Cap[]): Promise<string | null> {
  const now = ctx.clock.now();
  // Caps read with the order's other terms apply as any: the platform's (not to sandbox orders),
  // the desk's and merchant's, and the provider's of the one asked.
  const all = loaded ? loaded.filter((c) => appliesTo(c, s)) : await applicableCaps(ctx.db, s);
  const caps = all.filter((c) => !c.notifyOnly && (only === undefined || c.scope === only));
  for (const cap of caps) {
    if (cap.scope === 'provider' && !s.providerId) continue;
    const completed = await counterValue(ctx.db, cap.scope, idFor(cap, s), cap.window, windowStart(cap.window, now));
    const detail = capExceeded(cap, completed, orderUsd);
    if (detail) return detail;
  }
  return null;
}

/** The id of the counter a cap reads: the platform's counters have none. */
const counterIdOf = (cap: Cap): string => (cap.scope === 'platform' ? '' : (cap.scopeId ?? ''));

/**
 * Completion's share of the caps, in the completing transaction: each scope × window counter grows
 * by the settled USD of the orders it counts, summed exactly by the database, in one statement for
 * all of them. A notify-only cap whose counter the completions take above it leaves one
 * notification per window: a row, a log line, a metric.
 */
export async function recordCompletedTurnover(q: Queryable, ctx: Ctx, orders: readonly (ScopeIds & { usd: string })[]): Promise<void> {
  if (orders.length === 0) return;
  const now = ctx.clock.now();
  const shares = { scopes: [] as Scope[], scopeIds: [] as string[], usd: [] as string[] };
  const touched = new Map<string, { scope: Scope; id: string }>();
  for (const o of orders) {
    for (const s of scopesOf(o)) {
      shares.scopes.push(s.scope);
      shares.scopeIds.push(s.id);
      shares.usd.push(o.usd);
      touched.set(`${s.scope}|${s.id}`, s);
    }
  }
  const caps = (await capsFor(q, [...touched.values()])).filter((c) => c.notifyOnly);
  const totals = await addToCounters(
    q,
    shares,
    WINDOWS.map((window) => ({ window, start: windowStart(window, now) })),
    caps.map((cap) => counterKey(cap.scope, counterIdOf(cap), cap.window)),
  );
  for (const cap of caps) {
    const id = counterIdOf(cap);
    // The counter a cap reads: one the completions added to, or none (then they cannot cross it).
    const total = totals.get(counterKey(cap.scope, id, cap.window));
    if (total === undefined || dec(total).lte(cap.capUsd)) continue;
    const detail = `${cap.scope} ${cap.window} cap ${fmt8(cap.capUsd)} USD crossed: completed ${fmt8(total)}`;
    const start = windowStart(cap.window, now).toISOString();
    const fresh = await notifyOnce(q, { kind: 'turnover_cap', detail, dedupeKey: `cap:${cap.id}:${id}:${start}`, at: new Date(now) });
    if (fresh) {
      ctx.metrics.turnoverNotifications.inc({ scope: cap.scope, window: cap.window });
      ctx.log.warn({ capId: cap.id, scope: cap.scope, scopeId: id, window: cap.window, detail }, 'notify-only turnover cap crossed');
    }
  }
}

// ---- operators' caps

function limitView(c: { id: string; scope: Scope; scopeId: string | null; window: Window; capUsd: string; notifyOnly: boolean }) {
  return { id: c.id, scope: c.scope, scopeId: c.scopeId, window: c.window, capUsd: fmt8(c.capUsd), notifyOnly: c.notifyOnly };
}

export async function listLimitViews(ctx: Ctx) {
  return (await listLimits(ctx.db)).map(limitView);
}

export interface LimitInput {
  scope: Scope;
  scopeId: string | null;
  window: Window;
  capUsd: string;
  notifyOnly: boolean;
}

export async function createLimit(ctx: Ctx, input: LimitInput) {
  if (input.scope === 'platform' && input.scopeId !== null) throw new AppError('VALIDATION_ERROR', 'scopeId: must be null for the platform scope');
  if (input.scope !== 'platform' && !input.scopeId) throw new AppError('VALIDATION_ERROR', `scopeId: is required for the ${input.scope} scope`);
  // A cap on an id that does not exist would never apply: refuse the typo instead of storing it.
  if (input.scope !== 'platform' && input.scopeId !== null && !(await scopeExists(ctx.db, input.scope, input.scopeId))) {
    throw new AppError('VALIDATION_ERROR', `scopeId: no ${input.scope} ${input.scopeId}`);
  }
  const cap = await insertLimit(ctx.db, { id: newId('lim'), ...input }, new Date(ctx.clock.now()));
  return limitView(cap);
}

export async function removeLimit(ctx: Ctx, id: string) {
  if (!(await deleteLimit(ctx.db, id))) throw new AppError('LIMIT_NOT_FOUND', `no turnover limit ${id}`);
  return { id, deleted: true };
}

export async function listNotificationViews(ctx: Ctx) {
  const rows = await listNotifications(ctx.db, 200);
  return rows.map((r) => ({ id: r.id, kind: r.kind, detail: r.detail, at: r.created_at.toISOString() }));
}
