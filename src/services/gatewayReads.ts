import type { Ctx } from '../context.js';
import { isMethod, isRailless, railServesCurrency, type Method } from '../domain/catalogue.js';
import { fmt8 } from '../domain/money.js';
import { priceCurrency, type Pricing } from '../domain/pricing.js';
import { methodsPicture, orderModeOf } from '../domain/providers.js';
import { keptCatalog, type CatalogVersions } from '../store/catalogVersions.js';
import { listCurrencies, listRates, type CurrencyRow, type RateRow } from '../store/currencies.js';
import type { DeskRow } from '../store/desks.js';
import { getMerchant, type MerchantRow } from '../store/merchants.js';
import { loadProviderViews } from '../providers/catalog.js';

export function pricingOf(ctx: Ctx, c: CurrencyRow | null, r: RateRow | undefined | null): Pricing {
  if (!c) return { priceable: false, reason: 'disabled' };
  return priceCurrency(
    {
      enabled: c.enabled,
      spreadPercent: c.spread_percent,
      manualRate: r?.manual_rate ?? null,
      marketRate: r?.market_rate ?? null,
      marketFetchedAtMs: r?.market_fetched_at ? r.market_fetched_at.getTime() : null,
      marketSourcesConfigured: ctx.config.fxSources.length > 0,
    },
    ctx.clock.now(),
    ctx.config.rateMaxAgeSeconds * 1000,
  );
}

/** Every currency with its rate, kept at the currencies catalogue version. */
const currenciesKept = keptCatalog('currencies', async (q) => {
  const [currencies, rates] = await Promise.all([listCurrencies(q), listRates(q)]);
  return { currencies: new Map(currencies.map((c) => [c.code, c])), rates: new Map(rates.map((r) => [r.code, r])) };
});

/** Every currency with its rate as of the currencies catalogue version authentication read (a fresh read without one). */
export function currenciesAt(ctx: Ctx, atVersion: number | undefined) {
  return currenciesKept(ctx.db, atVersion);
}

export async function ratesFor(ctx: Ctx, desk: DeskRow, filter: string | undefined, versions?: CatalogVersions | null) {
  const codes = filter === undefined ? desk.currencies : desk.currencies.filter((c) => c === filter);
  const { currencies: byCode, rates } = await currenciesAt(ctx, versions?.currencies);
  return {
    settlement: 'USD',
    rates: codes.map((code) => {
      const p = pricingOf(ctx, byCode.get(code) ?? null, rates.get(code));
      return { code, rate: p.priceable ? fmt8(p.rate) : null, priceable: p.priceable };
    }),
  };
}

/**
 * Which money the merchant's orders move: live once approved (an approved merchant that is
 * blocked stays live), sandbox before. Its orders are sandbox orders exactly when it is not Active.
 */
export function moneyModeOf(m: Pick<MerchantRow, 'status' | 'status_before_block'>): 'live' | 'sandbox' {
  const approved = m.status === 'Active' || (m.status === 'Blocked' && m.status_before_block === 'Active');
  return approved ? 'live' : 'sandbox';
}

/**
 * The merchant's balance, shared by its desks, as read with the desk at authentication: the
 * sandbox money while the merchant is in the sandbox, the live money once approved (web.md). A
 * test desk's key reads the sandbox money whatever the merchant's status: the money its orders move.
 */
export function balanceOf(merchant: MerchantRow, desk?: Pick<DeskRow, 'sandbox'>) {
  return desk?.sandbox || moneyModeOf(merchant) === 'sandbox'
    ? { currency: 'USD' as const, available: fmt8(merchant.sandbox_balance), mode: 'sandbox' as const }
    : { currency: 'USD' as const, available: fmt8(merchant.balance), mode: 'live' as const };
}

/** The desk's rails as the picture lists them: the allowed rails of the method, or one null rail (D11). */
export function deskRails(desk: DeskRow): (string | null)[] {
  if (!isMethod(desk.method) || isRailless(desk.method)) return [null];
  return desk.rails;
}

export async function methodsFor(ctx: Ctx, desk: DeskRow, merchant?: MerchantRow | null, versions?: CatalogVersions | null) {
  const m = merchant ?? (await getMerchant(ctx.db, desk.merchant_id));
  const { views } = await loadProviderViews(ctx, versions?.providers);
  // Live providers for a live desk of an approved merchant; the sandbox for a test desk and for an
  // account under review; nothing for an account under review with the sandbox off, or blocked.
  const mode = m ? orderModeOf(m, desk) : 'none';
  const approved = mode === 'live';
  const usable = mode !== 'none' && m?.status !== 'Blocked' ? views : [];
  const rails = methodsPicture(usable, { method: desk.method, rails: deskRails(desk), currencies: desk.currencies }, approved, (rail, code) =>
    railServesCurrency(desk.method as Method, rail, code),
  );
  let reason: string | null = null;
  if (m?.status === 'Blocked') reason = 'merchant inactive';
  else if (!desk.enabled) reason = 'shop inactive';
  else if (desk.stop_reason) reason = desk.stop_reason;
  else if (rails.length === 0) reason = 'no provider currently offers this method';
  return { method: desk.method, available: reason === null, reason, rails };
}
