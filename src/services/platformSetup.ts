import type { Ctx } from '../context.js';
import { isPaused } from '../domain/providers.js';
import { loadProviderViews } from '../providers/catalog.js';
import { listCurrencies, listRates } from '../store/currencies.js';
import { adminsWithTwoFactor } from '../store/platformSetup.js';
import { getDefaultTariff } from '../store/tariffs.js';
import { pricingOf } from './gatewayReads.js';

/**
 * Whether the platform is set up for its first live order (web spec, "A platform that is not set
 * up says so"): enabled currencies priced by rates of its own (not the demo data's), a default
 * tariff, a live provider for some method, and an admin operator who signs in with two-factor
 * codes. The back office's home shows each step, done or not, until all four are done.
 */
export async function platformSetup(ctx: Ctx) {
  const [currencies, rates, tariff, { views }, admins] = await Promise.all([
    listCurrencies(ctx.db),
    listRates(ctx.db),
    getDefaultTariff(ctx.db),
    loadProviderViews(ctx),
    adminsWithTwoFactor(ctx.db),
  ]);
  const rateOf = new Map(rates.map((r) => [r.code, r]));
  const enabled = currencies.filter((c) => c.enabled);
  /** Enabled currencies orders could not be priced in now (no rate source, or a stale market rate). */
  const unpriced = enabled.filter((c) => !pricingOf(ctx, c, rateOf.get(c.code)).priceable).map((c) => c.code);
  /** Enabled currencies priced by the demo data's manual rate. */
  const demo = enabled.filter((c) => rateOf.get(c.code)?.manual_rate != null && rateOf.get(c.code)?.manual_demo === true).map((c) => c.code);
  const live = views.filter((p) => p.kind !== 'sandbox' && !isPaused(p) && p.capabilities.length > 0);
  const steps = {
    rates: { done: enabled.length > 0 && unpriced.length === 0 && demo.length === 0, enabled: enabled.map((c) => c.code), unpriced, demo },
    tariff: { done: tariff !== null, default: tariff && { id: tariff.id, name: tariff.name } },
    provider: { done: live.length > 0, methods: [...new Set(live.flatMap((p) => p.capabilities.map((c) => `${c.method}${c.rail ? ` ${c.rail}` : ''} ${c.currency}`)))].sort() },
    twoFactor: { done: admins > 0 },
  };
  return { complete: Object.values(steps).every((s) => s.done), steps };
}

export type PlatformSetup = Awaited<ReturnType<typeof platformSetup>>;
