import type { Ctx } from '../context.js';
import { isMethod, isRailless, railServesCurrency, type Method } from '../domain/catalogue.js';
import { fmt8 } from '../domain/money.js';
import { priceCurrency, type Pricing } from '../domain/pricing.js';
import { methodsPicture } from '../domain/providers.js';
import { readCatalogVersions, type CatalogVersions } from '../store/catalogVersions.js';
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

interface CurrencySnapshot {
  version: number;
  currencies: Map<string, CurrencyRow>;
  rates: Map<string, RateRow>;
}

/** The last currencies and rates read per context, with the catalogue version they were read at. */
const currencySnapshots = new WeakMap<Ctx, CurrencySnapshot>();

/**
 * Every currency with its rate. Given the currencies catalogue version that authentication read,
 * the rows kept at that same version are used without a read. A fresh read takes the version
 * first, so rows are never kept under a version newer than they are.
 */
async function currenciesAt(ctx: Ctx, atVersion: number | undefined): Promise<Pick<CurrencySnapshot, 'currencies' | 'rates'>> {
  const kept = currencySnapshots.get(ctx);
  if (kept && atVersion !== undefined && kept.version === atVersion) return kept;
  const { currencies: version } = await readCatalogVersions(ctx.db);
  const [currencies, rates] = await Promise.all([listCurrencies(ctx.db), listRates(ctx.db)]);
  const snap = { version, currencies: new Map(currencies.map((c) => [c.code, c])), rates: new Map(rates.map((r) => [r.code, r])) };
  currencySnapshots.set(ctx, snap);
  return snap;
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

/** The merchant's balance, shared by its desks, as read with the desk at authentication. */
export function balanceOf(merchant: MerchantRow) {
  return { currency: 'USD' as const, available: fmt8(merchant.balance) };
}

/** The desk's rails as the picture lists them: the allowed rails of the method, or one null rail (D11). */
export function deskRails(desk: DeskRow): (string | null)[] {
  if (!isMethod(desk.method) || isRailless(desk.method)) return [null];
  return desk.rails;
}

export async function methodsFor(ctx: Ctx, desk: DeskRow, merchant?: MerchantRow | null, versions?: CatalogVersions | null) {
  const m = merchant ?? (await getMerchant(ctx.db, desk.merchant_id));
  const { views } = await loadProviderViews(ctx, versions?.providers);
  const approved = m?.status === 'Active';
  // An account under review with the sandbox off has no provider at all until approval.
  const usable = approved || (m?.status === 'UnderReview' && m.sandbox) ? views : [];
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
