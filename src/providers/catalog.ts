import type { Ctx } from '../context.js';
import { circuitKey, type ProviderView } from '../domain/providers.js';
import { listCircuits, listProviders, type ProviderRow } from '../store/providers.js';
import { visibleState, DEFAULT_BREAKER_CONFIG, type BreakerState } from '../domain/breaker.js';

/** Providers as the cascade and the methods picture see them now, with their open circuits. */
export async function loadProviderViews(ctx: Ctx): Promise<{ rows: ProviderRow[]; views: ProviderView[] }> {
  const [rows, circuits] = await Promise.all([listProviders(ctx.db), listCircuits(ctx.db)]);
  const now = ctx.clock.now();
  const cfg = { ...DEFAULT_BREAKER_CONFIG, ...ctx.config.breaker };
  const open = new Map<string, Set<string>>();
  for (const c of circuits) {
    if (visibleState(c.state as BreakerState, now, cfg) !== 'open') continue;
    let s = open.get(c.provider_id);
    if (!s) open.set(c.provider_id, (s = new Set()));
    s.add(circuitKey(c.method, c.rail === '' ? null : c.rail));
  }
  const views = rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    priority: r.priority,
    pausedManual: r.paused_manual,
    pausedAppeals: r.paused_appeals,
    capabilities: r.capabilities,
    openCircuits: open.get(r.id) ?? new Set<string>(),
  }));
  return { rows, views };
}
