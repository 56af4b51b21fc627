import type { Ctx } from '../context.js';
import { admit, initialBreakerState, recordOutcome, DEFAULT_BREAKER_CONFIG, type BreakerConfig, type BreakerState } from '../domain/breaker.js';
import { candidates, liveProviderServes } from '../domain/providers.js';
import type { Payment } from '../domain/payment.js';
import { readCircuit, writeCircuit } from '../store/circuits.js';
import type { ProviderRow } from '../store/providers.js';
import { loadProviderViews } from './catalog.js';
import type { IssueRequest } from './httpConnector.js';
import { providerKind } from './registry.js';
import { span } from '../telemetry/index.js';

/** Spec timing: each provider has 10 s to answer; the whole cascade has 160 s. */
export const PROVIDER_TIMEOUT_MS = 10_000;
export const CASCADE_BUDGET_MS = 160_000;

/** What the cascade needs of an order: exactly what a provider is asked with. */
export type CascadeOrder = IssueRequest;

export type CascadeResult =
  | { ok: true; providerId: string; payment: Payment }
  | { ok: false; code: 'NO_AVAILABLE_METHOD' | 'TRAFFIC_LIMIT_REACHED'; detail: string };

export interface CascadeOptions {
  approved: boolean;
  /** A provider turnover cap this order would exceed, or null: such providers are skipped. */
  providerCap?: (providerId: string) => Promise<string | null>;
  /** The providers catalogue version read at authentication: providers kept at that version are used without a read. */
  providersVersion?: number;
  /**
   * Only as far as providers that issue within the process go: the first such provider that issues
   * ends the walk as usual, but reaching any other provider (or the end of the list) gives null,
   * and the caller reserves the order and runs the whole cascade.
   */
  instantOnly?: boolean;
  /** Random source for the half-open share; injectable for tests. */
  random?: () => number;
  /**
   * How long one provider may take, 10 s by the spec (PROVIDER_TIMEOUT_MS). Orders never set it;
   * it exists so a test can show a hanging provider being left without waiting 10 s of real time.
   */
  providerTimeoutMs?: number;
}

export function breakerConfig(ctx: Ctx): BreakerConfig {
  return { ...DEFAULT_BREAKER_CONFIG, ...ctx.config.breaker };
}

async function admitProvider(ctx: Ctx, p: ProviderRow, o: CascadeOrder, random: () => number): Promise<boolean> {
  const cfg = breakerConfig(ctx);
  const stored = (await readCircuit(ctx.db, p.id, o.method, o.rail)) as BreakerState | null;
  if (!stored) return true;
  const now = ctx.clock.now();
  const r = admit(stored, now, cfg, random);
  if (r.state !== stored && r.state.state !== stored.state) {
    await writeCircuit(ctx.db, p.id, o.method, o.rail, r.state, new Date(now));
    ctx.metrics.breakerTransitions.inc({ provider: p.id, to: r.state.state });
    ctx.log.info({ provider: p.id, method: o.method, rail: o.rail, to: r.state.state }, 'circuit state changed');
  }
  return r.allowed;
}

/** Scores one outcome under a row lock, so concurrent orders on several instances never lose an update. */
async function score(ctx: Ctx, p: ProviderRow, o: CascadeOrder, success: boolean): Promise<void> {
  const cfg = breakerConfig(ctx);
  await ctx.db.tx(async (q) => {
    const before = ((await readCircuit(q, p.id, o.method, o.rail, { forUpdate: true })) as BreakerState | null) ?? initialBreakerState();
    const now = ctx.clock.now();
    const after = recordOutcome(before, success, now, cfg);
    await writeCircuit(q, p.id, o.method, o.rail, after, new Date(now));
    if (after.state !== before.state) {
      ctx.metrics.breakerTransitions.inc({ provider: p.id, to: after.state });
      ctx.log.warn({ provider: p.id, method: o.method, rail: o.rail, from: before.state, to: after.state }, 'circuit state changed');
    }
  });
}

/**
 * Step 12: providers covering method, rail, currency and amount, in priority order; paused ones and
 * open circuits skipped (but for the half-open share). No transaction is open while a provider is asked.
 */
export async function runCascade(ctx: Ctx, o: CascadeOrder, opts: CascadeOptions & { instantOnly: true }): Promise<CascadeResult | null>;
export async function runCascade(ctx: Ctx, o: CascadeOrder, opts: CascadeOptions): Promise<CascadeResult>;
export async function runCascade(ctx: Ctx, o: CascadeOrder, opts: CascadeOptions): Promise<CascadeResult | null> {
  const deadline = ctx.clock.now() + CASCADE_BUDGET_MS;
  const random = opts.random ?? Math.random;
  const providerTimeoutMs = opts.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS;
  const { rows, views } = await loadProviderViews(ctx, opts.providersVersion);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const list = candidates(views, { approved: opts.approved, method: o.method, rail: o.rail, currency: o.currency, amount: o.amount });
  let capDetail: string | null = null;
  for (const view of list) {
    const remaining = deadline - ctx.clock.now();
    if (remaining <= 0) break;
    const p = byId.get(view.id)!;
    if (opts.providerCap) {
      const d = await opts.providerCap(p.id);
      if (d) {
        capDetail ??= d;
        continue;
      }
    }
    const kind = providerKind(p.kind);
    if (opts.instantOnly && !kind.instant) return null;
    if (kind.scored && !(await admitProvider(ctx, p, o, random))) continue;
    // The cap and breaker checks above take time too; the provider gets what is left after them.
    const left = deadline - ctx.clock.now();
    if (left <= 0) break;
    const started = performance.now();
    const outcome = await span('provider.issue', { 'paygate.provider.id': p.id, 'paygate.provider.kind': p.kind, 'paygate.order.id': o.orderId }, async (s) => {
      const out = await kind.issue(ctx, p, o, { timeoutMs: providerTimeoutMs, budgetMs: left });
      s.set({ 'paygate.provider.outcome': out.kind, 'paygate.provider.reason': out.kind === 'issued' ? null : out.reason });
      return out;
    });
    ctx.metrics.providerIssueDuration.observe({ provider: p.id, outcome: outcome.kind }, (performance.now() - started) / 1000);
    if (kind.scored && (outcome.kind === 'issued' || (outcome.kind === 'failed' && outcome.scored))) {
      await score(ctx, p, o, outcome.kind === 'issued');
    }
    if (outcome.kind === 'issued') return { ok: true, providerId: p.id, payment: outcome.payment };
    ctx.log.info({ provider: p.id, orderId: o.orderId, outcome: outcome.kind, reason: outcome.reason }, 'provider did not issue');
  }
  if (opts.instantOnly) return null;
  if (capDetail) return { ok: false, code: 'TRAFFIC_LIMIT_REACHED', detail: capDetail };
  const what = `${o.method}${o.rail ? ` ${o.rail}` : ''} in ${o.currency}`;
  // An approved account whose method, rail and currency no live provider is set up for will not
  // succeed on a retry: the detail says so, and that the platform has to connect one.
  if (opts.approved && !liveProviderServes(views, o.method, o.rail, o.currency)) {
    return { ok: false, code: 'NO_AVAILABLE_METHOD', detail: `no live provider serves ${what}; the platform has to connect one before this desk can take live orders` };
  }
  return { ok: false, code: 'NO_AVAILABLE_METHOD', detail: `no provider currently accepts ${what}; retry with back-off` };
}
