import type { Ctx } from '../context.js';
import { circuitKey, type ProviderView } from '../domain/providers.js';
import { listProvidersWithCircuits, type ProviderRow } from '../store/providers.js';
import { visibleState, DEFAULT_BREAKER_CONFIG, type BreakerState } from '../domain/breaker.js';

type ProviderSnapshot = Awaited<ReturnType<typeof listProvidersWithCircuits>>;

/** The last providers read per context, with the catalogue version it was read at. */
const snapshots = new WeakMap<Ctx, ProviderSnapshot>();

/**
 * Providers as the cascade and the methods picture see them now, with their open circuits. Given
 * the providers catalogue version that authentication read, the rows kept from an earlier request
 * at that same version are used without a read; without one, the providers are read afresh.
 */
export async function loadProviderViews(ctx: Ctx, atVersion?: number): Promise<{ rows: ProviderRow[]; views: ProviderView[] }> {
  let snap = snapshots.get(ctx);
  if (!snap || atVersion === undefined || snap.version !== atVersion) {
    snap = await listProvidersWithCircuits(ctx.db);
    if (snap.version !== null) snapshots.set(ctx, snap);
  }
  const { providers: rows, circuits } = snap;
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
