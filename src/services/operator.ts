import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { fmt4, fmt8, dec, type FeeBand } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { deskFitProblem, isIsoCurrency, isMethod, isRailless, railsOf } from '../domain/catalogue.js';
import { newId, newSecret, randomId26 } from '../ids.js';
import * as merchants from '../store/merchants.js';
import * as tariffs from '../store/tariffs.js';
import * as desks from '../store/desks.js';
import * as currencies from '../store/currencies.js';
import type { MerchantRow } from '../store/merchants.js';
import type { DeskRow } from '../store/desks.js';
import type { DeskSettings, NewDeskSettings } from '../schemas/admin.js';
import { checkDeskCallbackUrl } from './callbackUrls.js';
import { pageOf } from './paging.js';
import { balanceOf, moneyModeOf } from './gatewayReads.js';
import { recordApproval } from './applications.js';
import type { Queryable } from '../store/db.js';
import { deskWithoutLiveProvider } from '../domain/providers.js';
import { loadProviderViews } from '../providers/catalog.js';

const now = (ctx: Ctx) => new Date(ctx.clock.now());

export function merchantView(m: MerchantRow) {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    sandbox: m.sandbox,
    blockReason: m.block_reason,
    createdAt: isoSeconds(m.created_at),
  };
}

export function deskView(d: DeskRow) {
  return {
    id: d.id,
    merchantId: d.merchant_id,
    name: d.name,
    key: d.key,
    method: d.method,
    rails: d.rails,
    currencies: d.currencies,
    minUsd: fmt8(d.min_usd),
    maxUsd: fmt8(d.max_usd),
    callbackUrl: d.callback_url,
    callbacksEnabled: d.callbacks_enabled,
    tariffId: d.tariff_id,
    noFee: d.no_fee,
    enabled: d.enabled,
    stopReason: d.stop_reason,
    createdAt: isoSeconds(d.created_at),
    sandbox: d.sandbox,
  };
}

// ---- merchants

export async function createMerchant(ctx: Ctx, input: { name: string; sandbox: boolean }) {
  const m = await merchants.insertMerchant(ctx.db, { id: newId('mer'), name: input.name, sandbox: input.sandbox, at: now(ctx) });
  return merchantView(m);
}

export function merchantWithBalanceView(m: MerchantRow) {
  return { ...merchantView(m), balance: { ...balanceOf(m), live: fmt8(m.balance), sandbox: fmt8(m.sandbox_balance) } };
}

export async function getMerchant(ctx: Ctx, id: string) {
  const m = await merchants.getMerchant(ctx.db, id);
  if (!m) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${id}`);
  return merchantWithBalanceView(m);
}

async function must<T>(p: Promise<T | null>, id: string): Promise<T> {
  const v = await p;
  if (!v) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${id}`);
  return v;
}

/**
 * Approves the account: live providers serve it from now on. It approves whatever the providers,
 * and `warnings` names each desk that no live provider can serve yet (one line per desk) and each
 * currency of its desks priced by a demo rate.
 *
 * No live order is priced at a fee nobody chose: a live desk without a tariff (made while no
 * default existed, and no fee not chosen by an operator) gets the default tariff here, in the
 * approval's transaction; with no default, the approval is refused with TARIFF_REQUIRED naming
 * those desks, and nothing changes. The merchant's application is approved with it and its owners
 * are mailed (`recordApproval`). Approving an approved merchant again changes nothing.
 */
export async function approveMerchant(ctx: Ctx, id: string) {
  await ctx.db.tx(async (q) => {
    // Held until the transaction ends: a desk created meanwhile waits (createDesk) and is seen here after.
    const m = await must(merchants.getMerchant(q, id, { forUpdate: true }), id);
    if (moneyModeOf(m) === 'live') return;
    await priceDesksOf(q, m.id);
    // Approving a blocked account takes effect when it is unblocked: the block stays in force.
    if (m.status === 'Blocked') await merchants.approveAfterUnblock(q, id);
    else await must(merchants.setMerchantStatus(q, id, 'Active'), id);
    await recordApproval(ctx, q, m);
  });
  const [coverage, rates] = await Promise.all([liveCoverageWarnings(ctx, id), demoRateWarnings(ctx, id)]);
  return { ...merchantView((await merchants.getMerchant(ctx.db, id))!), warnings: [...coverage, ...rates] };
}

/** Gives the merchant's live desks that have no tariff the default one; TARIFF_REQUIRED naming them when there is none. */
async function priceDesksOf(q: Queryable, merchantId: string): Promise<void> {
  const unpriced = await desks.desksWithoutTariff(q, merchantId);
  if (unpriced.length === 0) return;
  const fallback = await tariffs.getDefaultTariff(q);
  if (!fallback) {
    throw new AppError(
      'TARIFF_REQUIRED',
      `no default tariff exists and these desks have no tariff: ${unpriced.map((d) => `${d.name} (${d.id})`).join(', ')}; give each a tariff (PATCH /admin/v1/desks/{id}), or make a tariff the default`,
    );
  }
  await desks.giveTariffToDesksWithout(q, merchantId, fallback.id);
}

/**
 * One line per currency of the merchant's live desks whose rate in force is the demo data's manual
 * rate: live orders in it would be priced on a rate nobody set for real.
 */
export async function demoRateWarnings(ctx: Ctx, merchantId: string): Promise<string[]> {
  const rows = await desks.listDesks(ctx.db, { merchantId, limit: 500 });
  const codes = [...new Set(rows.filter((d) => !d.sandbox).flatMap((d) => d.currencies))].sort();
  if (codes.length === 0) return [];
  const rates = await currencies.getRates(ctx.db, codes);
  return codes.flatMap((code) => {
    const r = rates.get(code);
    if (!r || r.manual_rate === null || !r.manual_demo) return [];
    return [`${code} is priced by the demo rate (${fmt8(r.manual_rate)} ${code} per USD) that came with the demo data: set a real rate (PUT /admin/v1/rates/${code}) before live orders in ${code}`];
  });
}

/**
 * One line per live desk of the merchant (enabled or not) that no live provider serves: its live
 * orders would answer NO_AVAILABLE_METHOD. Test desks never take live orders, so none is named.
 */
export async function liveCoverageWarnings(ctx: Ctx, merchantId: string): Promise<string[]> {
  const [{ views }, rows] = await Promise.all([loadProviderViews(ctx), desks.listDesks(ctx.db, { merchantId, limit: 500 })]);
  return rows
    .filter((d) => !d.sandbox)
    .map((d) => deskWithoutLiveProvider(views, { id: d.id, name: d.name, method: d.method, rails: d.rails, currencies: d.currencies }))
    .filter((w): w is string => w !== null);
}

export async function blockMerchant(ctx: Ctx, id: string, reason: string | null) {
  return merchantView(await must(merchants.blockMerchant(ctx.db, id, reason), id));
}

export async function unblockMerchant(ctx: Ctx, id: string) {
  return merchantView(await must(merchants.unblockMerchant(ctx.db, id), id));
}

export async function patchMerchant(ctx: Ctx, id: string, patch: { sandbox?: boolean; name?: string }) {
  await must(merchants.getMerchant(ctx.db, id), id);
  if (patch.sandbox !== undefined) await merchants.setMerchantSandbox(ctx.db, id, patch.sandbox);
  if (patch.name !== undefined) await merchants.renameMerchant(ctx.db, id, patch.name);
  return merchantView((await merchants.getMerchant(ctx.db, id))!);
}

// ---- tariffs

export function validateBands(raw: unknown): FeeBand[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new AppError('VALIDATION_ERROR', 'bands: must be a non-empty array');
  const bands = raw.map((b, i) => {
    const o = b as Record<string, unknown>;
    const dp = (name: string, places: number, nullable = false) => {
      const v = o?.[name];
      if (v === null && nullable) return null;
      if (typeof v !== 'string' || !new RegExp(`^\\d{1,16}(\\.\\d{1,${places}})?$`).test(v)) {
        throw new AppError('VALIDATION_ERROR', `bands[${i}].${name}: must be a decimal string${nullable ? ' or null' : ''}`);
      }
      return v;
    };
    const band: FeeBand = { fromUsd: dp('fromUsd', 8)!, toUsd: dp('toUsd', 8, true), ratePercent: dp('ratePercent', 4)! };
    if (band.toUsd !== null && dec(band.toUsd).lte(band.fromUsd)) {
      throw new AppError('VALIDATION_ERROR', `bands[${i}].toUsd: must be greater than fromUsd`);
    }
    if (dec(band.ratePercent).gt(100)) throw new AppError('VALIDATION_ERROR', `bands[${i}].ratePercent: must be at most 100`);
    return band;
  });
  const sorted = [...bands].sort((a, b) => dec(a.fromUsd).cmp(b.fromUsd));
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    if (prev.toUsd === null || dec(prev.toUsd).gt(sorted[i].fromUsd)) {
      throw new AppError('VALIDATION_ERROR', 'bands: bands must not overlap');
    }
  }
  return sorted;
}

export function tariffView(t: tariffs.TariffRow) {
  return {
    id: t.id,
    name: t.name,
    bands: t.bands.map((b) => ({ fromUsd: fmt8(b.fromUsd), toUsd: b.toUsd === null ? null : fmt8(b.toUsd), ratePercent: fmt4(b.ratePercent) })),
    default: t.is_default,
    createdAt: isoSeconds(t.created_at),
  };
}

/** A new tariff; `default: true` makes it the one desks get when none is named (the previous default steps down). */
export async function createTariff(ctx: Ctx, input: { name: string; bands: FeeBand[]; default?: boolean }) {
  return ctx.db.tx(async (q) => {
    const t = await tariffs.insertTariff(q, { id: newId('trf'), name: input.name, bands: input.bands, at: now(ctx) });
    if (!input.default) return tariffView(t);
    await tariffs.setDefaultTariff(q, t.id, true);
    return tariffView({ ...t, is_default: true });
  });
}

async function mustTariff(ctx: Ctx, id: string) {
  const t = await tariffs.getTariff(ctx.db, id);
  if (!t) throw new AppError('TARIFF_NOT_FOUND', `no tariff ${id}`);
  return t;
}

export async function getTariff(ctx: Ctx, id: string) {
  return tariffView(await mustTariff(ctx, id));
}

export async function listTariffViews(ctx: Ctx, query: { before?: string; limit: number }) {
  if (query.before && !(await tariffs.getTariff(ctx.db, query.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown tariff id');
  const rows = await tariffs.listTariffs(ctx.db, { beforeId: query.before, limit: query.limit + 1 });
  return pageOf(rows, query.limit, tariffView, (t) => t.id);
}

/** Renames a tariff, replaces its bands (fees of orders completed from now on), or makes it the default or not. */
export async function patchTariff(ctx: Ctx, id: string, patch: { name?: string; bands?: FeeBand[]; default?: boolean }) {
  await mustTariff(ctx, id);
  return ctx.db.tx(async (q) => {
    if (patch.name !== undefined || patch.bands !== undefined) await tariffs.updateTariff(q, id, { name: patch.name, bands: patch.bands });
    if (patch.default !== undefined) await tariffs.setDefaultTariff(q, id, patch.default);
    return tariffView((await tariffs.getTariff(q, id))!);
  });
}

/**
 * The tariff of a new desk and whether its zero fee was chosen: the one named; `null` named, no fee
 * (an operator's choice); none named, the default tariff, else no tariff yet: a desk that waits for
 * its merchant's approval to get the default, or, for a merchant already approved (whose orders are
 * live at once), TARIFF_REQUIRED. A test desk never prices live money and may wait for ever.
 */
async function tariffOfNewDesk(q: Queryable, m: MerchantRow, d: { tariffId?: string | null; sandbox?: boolean }): Promise<{ tariffId: string | null; noFee: boolean }> {
  if (d.tariffId !== undefined) return { tariffId: d.tariffId, noFee: d.tariffId === null };
  const fallback = await tariffs.getDefaultTariff(q);
  if (fallback) return { tariffId: fallback.id, noFee: false };
  if (moneyModeOf(m) === 'live' && d.sandbox !== true) {
    throw new AppError('TARIFF_REQUIRED', 'no default tariff exists and the merchant is approved: name a tariffId for the desk, or make a tariff the default');
  }
  return { tariffId: null, noFee: false };
}

// ---- desks

/** A desk's settings as a caller gives them: the API's shape (src/schemas), with the method where it is known. */
export type DeskInput = DeskSettings & { method?: string };

async function validateDeskFields(ctx: Ctx, method: string, d: DeskInput): Promise<void> {
  if (!isMethod(method)) throw new AppError('VALIDATION_ERROR', `method: must be one of the payment methods`);
  if (d.rails !== undefined) {
    if (isRailless(method) && d.rails.length > 0) throw new AppError('VALIDATION_ERROR', `rails: ${method} has no rails; send []`);
    const known = railsOf(method);
    const bad = d.rails.find((r) => !known.includes(r));
    if (bad !== undefined) throw new AppError('VALIDATION_ERROR', `rails: ${bad} is not a rail of ${method} (${known.join(', ')})`);
  }
  if (d.currencies !== undefined) {
    const bad = d.currencies.find((c) => !/^[A-Z]{3}$/.test(c) || !isIsoCurrency(c));
    if (bad !== undefined) throw new AppError('VALIDATION_ERROR', `currencies: ${bad} is not an ISO 4217 code`);
  }
  if (d.name !== undefined && (d.name.trim().length === 0 || d.name.length > 100)) throw new AppError('VALIDATION_ERROR', 'name: 1 to 100 characters');
  if (d.rails !== undefined && d.currencies !== undefined) {
    const misfit = deskFitProblem(method, d.rails, d.currencies);
    if (misfit) throw new AppError('VALIDATION_ERROR', misfit);
  }
  const min = d.minUsd ?? null;
  const max = d.maxUsd ?? null;
  if (min !== null && max !== null && dec(max).gt(0) && dec(min).gt(max)) {
    throw new AppError('VALIDATION_ERROR', 'minUsd: must not exceed maxUsd');
  }
  if (d.tariffId !== undefined && d.tariffId !== null) {
    if (!(await tariffs.getTariff(ctx.db, d.tariffId))) throw new AppError('VALIDATION_ERROR', `tariffId: no tariff ${d.tariffId}`);
  }
  if (d.callbackUrl !== undefined && d.callbackUrl !== null) await checkDeskCallbackUrl(ctx, d.callbackUrl);
}

/**
 * A new desk. Without `name` it is called "Desk N"; without `tariffId` (undefined, not null) it
 * gets the default tariff, so a desk a merchant creates never trades at zero fee unless an
 * operator chose that (`tariffId: null`). `sandbox: true` makes a test desk (any merchant may have
 * one, approved or not); without it the desk is live, its orders following the merchant's status.
 */
export async function createDesk(
  ctx: Ctx,
  merchantId: string,
  d: Required<Omit<NewDeskSettings, 'name' | 'tariffId' | 'sandbox'>> & Pick<NewDeskSettings, 'name' | 'tariffId' | 'sandbox'>,
) {
  if (!(await merchants.getMerchant(ctx.db, merchantId))) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  await validateDeskFields(ctx, d.method, d);
  const secret = newSecret();
  // The merchant's row held (shared) while the desk is priced and written: an approval running at
  // once either waits for the desk and gives it the default, or comes first and this desk is
  // priced as an approved merchant's.
  const row = await ctx.db.tx(async (q) => {
    const m = (await merchants.getMerchant(q, merchantId, { forShare: true }))!;
    const price = await tariffOfNewDesk(q, m, d);
    return desks.insertDesk(q, {
      id: newId('dsk'),
      merchantId,
      name: d.name?.trim() ?? null,
      key: `shp_${randomId26()}`,
      secretEnc: ctx.box.seal(secret),
      method: d.method,
      rails: d.rails,
      currencies: d.currencies,
      minUsd: d.minUsd,
      maxUsd: d.maxUsd,
      callbackUrl: d.callbackUrl,
      callbacksEnabled: d.callbacksEnabled,
      tariffId: price.tariffId,
      noFee: price.noFee,
      sandbox: d.sandbox ?? false,
      at: now(ctx),
    });
  });
  // The only time the secret leaves the service.
  return { ...deskView(row), secret };
}

async function mustDesk(ctx: Ctx, id: string): Promise<DeskRow> {
  const d = await desks.getDesk(ctx.db, id);
  if (!d) throw new AppError('DESK_NOT_FOUND', `no cash desk ${id}`);
  return d;
}

export async function getDesk(ctx: Ctx, id: string) {
  return deskView(await mustDesk(ctx, id));
}

export async function patchDesk(ctx: Ctx, id: string, patch: DeskInput) {
  const d = await mustDesk(ctx, id);
  // The patch carries absent fields as undefined; a limit not patched is checked at its stored value.
  // A limit not patched is checked at its stored value, and so are the rails or currencies when
  // the other list changes (a desk created before the fit rule is refused only when its lists change).
  const fit = patch.rails !== undefined || patch.currencies !== undefined;
  await validateDeskFields(ctx, d.method, {
    ...patch,
    minUsd: patch.minUsd ?? d.min_usd,
    maxUsd: patch.maxUsd ?? d.max_usd,
    ...(fit ? { rails: patch.rails ?? d.rails, currencies: patch.currencies ?? d.currencies } : {}),
  });
  // Only the fields a desk's owner may change are passed on, whatever else the caller's object holds.
  const { enabled, rails, currencies, minUsd, maxUsd, callbackUrl, callbacksEnabled, tariffId } = patch;
  const name = patch.name?.trim();
  // A tariff named or `null` (no fee, chosen) replaces what the desk had, its wait for the default included.
  const noFee = tariffId === undefined ? undefined : tariffId === null;
  return deskView((await desks.updateDesk(ctx.db, id, { name, enabled, rails, currencies, minUsd, maxUsd, callbackUrl, callbacksEnabled, tariffId, noFee }))!);
}

export async function stopDesk(ctx: Ctx, id: string, reason: string) {
  await mustDesk(ctx, id);
  return deskView((await desks.updateDesk(ctx.db, id, { stopReason: reason }))!);
}

export async function resumeDesk(ctx: Ctx, id: string) {
  await mustDesk(ctx, id);
  return deskView((await desks.updateDesk(ctx.db, id, { stopReason: null }))!);
}

export async function rotateDeskSecret(ctx: Ctx, id: string) {
  await mustDesk(ctx, id);
  const secret = newSecret();
  await desks.updateDesk(ctx.db, id, { secretEnc: ctx.box.seal(secret) });
  return { secret };
}

// ---- currencies and rates

export function currencyView(c: currencies.CurrencyRow) {
  return { code: c.code, enabled: c.enabled, spreadPercent: fmt4(c.spread_percent), updatedAt: isoSeconds(c.updated_at) };
}

export async function putCurrency(ctx: Ctx, code: string, input: { enabled?: boolean; spreadPercent?: string }) {
  if (input.spreadPercent !== undefined && dec(input.spreadPercent).gt(100)) throw new AppError('VALIDATION_ERROR', 'spreadPercent: must be at most 100');
  const existing = await currencies.getCurrency(ctx.db, code);
  const row = await currencies.upsertCurrency(ctx.db, {
    code,
    enabled: input.enabled ?? existing?.enabled ?? true,
    spreadPercent: input.spreadPercent ?? existing?.spread_percent ?? '0',
    at: now(ctx),
  });
  return currencyView(row);
}

export function rateView(r: currencies.RateRow) {
  return {
    code: r.code,
    /** The rate in force from this row before spread: the manual one if set, else the market one. */
    rate: r.manual_rate !== null ? fmt8(r.manual_rate) : r.market_rate !== null ? fmt8(r.market_rate) : null,
    /** Where that rate comes from: the demo data's manual rate, an operator's, the market's; null without one. */
    source: r.manual_rate !== null ? (r.manual_demo ? 'demo' : 'manual') : r.market_rate !== null ? 'market' : null,
    manualRate: r.manual_rate === null ? null : fmt8(r.manual_rate),
    manualSetAt: r.manual_set_at ? isoSeconds(r.manual_set_at) : null,
    marketRate: r.market_rate === null ? null : fmt8(r.market_rate),
    marketSource: r.market_source,
    marketFetchedAt: r.market_fetched_at ? isoSeconds(r.market_fetched_at) : null,
    flag: r.market_flag,
  };
}

export async function listRateViews(ctx: Ctx) {
  return (await currencies.listRates(ctx.db)).map(rateView);
}

export async function listCurrencyViews(ctx: Ctx) {
  return (await currencies.listCurrencies(ctx.db)).map(currencyView);
}

/** Sets a manual rate; `demo`: the demo data sets it (`source: "demo"`), and an operator's rate set later replaces the mark. */
export async function putManualRate(ctx: Ctx, code: string, rate: string, o: { demo?: boolean } = {}) {
  if (dec(rate).lte(0)) throw new AppError('VALIDATION_ERROR', 'rate: must be greater than zero');
  return rateView(await currencies.setManualRate(ctx.db, code, fmt8(rate), now(ctx), o.demo === true));
}

export async function deleteManualRate(ctx: Ctx, code: string) {
  const r = await currencies.clearManualRate(ctx.db, code, now(ctx));
  if (!r) throw new AppError('RATE_NOT_FOUND', `no manual rate for ${code}`);
  return rateView(r);
}

/** A currency code in a path: three upper-case letters of ISO 4217. */
export function currencyCode(code: string): string {
  if (!/^[A-Z]{3}$/.test(code) || !isIsoCurrency(code)) throw new AppError('VALIDATION_ERROR', `code: ${code} is not an ISO 4217 code`);
  return code;
}

// ---- lists

export async function listMerchantViews(ctx: Ctx, query: { status: string | null; before?: string; limit: number }) {
  if (query.before && !(await merchants.getMerchant(ctx.db, query.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown merchant id');
  const rows = await merchants.listMerchants(ctx.db, { status: query.status as merchants.MerchantStatus | null, beforeId: query.before, limit: query.limit + 1 });
  return pageOf(rows, query.limit, merchantWithBalanceView, (m) => m.id);
}

export async function listDeskViews(ctx: Ctx, query: { merchantId: string | null; before?: string; limit: number }) {
  if (query.before && !(await desks.getDesk(ctx.db, query.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown desk id');
  const rows = await desks.listDesks(ctx.db, { merchantId: query.merchantId, beforeId: query.before, limit: query.limit + 1 });
  return pageOf(rows, query.limit, deskView, (d) => d.id);
}
