import type { Decimal } from 'decimal.js';
import { customerRate, dec } from './money.js';

export interface PricingInput {
  enabled: boolean;
  spreadPercent: string;
  manualRate: string | null;
  marketRate: string | null;
  marketFetchedAtMs: number | null;
  /** Whether any market source is configured at all. */
  marketSourcesConfigured: boolean;
}

export type Pricing =
  | { priceable: true; rate: Decimal; source: 'manual' | 'market' }
  | { priceable: false; reason: 'disabled' | 'no-source' | 'stale' };

/**
 * The rate an order created now would settle at (D13): a manual rate wins over the market; a market
 * rate older than maxAge is not used. "No source" (no manual rate and no market source configured) is
 * CURRENCY_NOT_PAYABLE at validation step 7, "stale" is FX_RATE_UNAVAILABLE at step 8 (D15).
 */
export function priceCurrency(p: PricingInput, nowMs: number, maxAgeMs: number): Pricing {
  if (!p.enabled) return { priceable: false, reason: 'disabled' };
  if (p.manualRate !== null) return { priceable: true, rate: customerRate(p.manualRate, p.spreadPercent), source: 'manual' };
  if (!p.marketSourcesConfigured) return { priceable: false, reason: 'no-source' };
  if (p.marketRate === null || p.marketFetchedAtMs === null || nowMs - p.marketFetchedAtMs > maxAgeMs || dec(p.marketRate).lte(0)) {
    return { priceable: false, reason: 'stale' };
  }
  return { priceable: true, rate: customerRate(p.marketRate, p.spreadPercent), source: 'market' };
}
