/**
 * The rates worker: asks the market sources for the enabled currencies that are due, checks each
 * new rate against the last good one and stores it, or keeps the last good rate and leaves a flag
 * for operators. RUB is due every minute, the others every ten minutes (gateway spec,
 * GET /gw/v1/rates), counted from the last attempt, which lives in `rates.market_attempt_at` so
 * every instance and every restart sees the same schedule.
 */
import { Decimal } from 'decimal.js';
import type { Ctx } from '../context.js';
import { claimMarketAttempt, getRates, flagMarketRate, listCurrencies, storeMarketRate } from '../store/currencies.js';
import type { Worker } from '../workers/loop.js';
import { checkJump } from './sanity.js';
import { DEFAULT_CADENCE, dueCodes, intervalFor } from './schedule.js';
import { RateSourceError, SETTLEMENT_CURRENCY, type RateSource } from './source.js';
import { sourcesFromConfig } from './sources/index.js';

/**
 * `rates.market_rate` is numeric(30, 12): 12 places after the point and at most 18 before it.
 * Feed rates are exact ratios to 40 significant digits; they are rounded half-up to 12 places here,
 * once, so the value the jump check compares is the value stored (PostgreSQL would otherwise round
 * on insert). 12 places leave 4 below the 8 the gateway shows and settles at (D13).
 */
export const MARKET_RATE_PLACES = 12;
/** The first value numeric(30, 12) cannot hold; a feed offering it is refused, not stored. */
const MARKET_RATE_LIMIT = new Decimal('1e18');

type Fetched = { rate: Decimal; source: string };

/** Why a code got no rate from one source: the source failed, or it does not quote the code. */
type Miss = { source: string; reason: string };

export function rateRefresher(ctx: Ctx, sources: RateSource[] = sourcesFromConfig(ctx.config)): Worker {
  return {
    name: 'rate-refresh',
    runOnce: () => refreshDueRates(ctx, sources),
  };
}

/** One pass; returns the number of currencies attempted. */
async function refreshDueRates(ctx: Ctx, sources: readonly RateSource[]): Promise<number> {
  // Without sources there is nothing to ask: currencies are priced by manual rates only.
  if (sources.length === 0) return 0;

  const nowMs = ctx.clock.now();
  const enabled = (await listCurrencies(ctx.db)).filter((c) => c.enabled && c.code !== SETTLEMENT_CURRENCY).map((c) => c.code);
  if (enabled.length === 0) return 0;
  const rows = await getRates(ctx.db, enabled);
  const lastAttempt = new Map<string, number>();
  for (const [code, row] of rows) if (row.market_attempt_at) lastAttempt.set(code, row.market_attempt_at.getTime());
  const candidates = dueCodes(lastAttempt, enabled, nowMs, DEFAULT_CADENCE);
  // Another instance may have seen the same codes due: only the codes this one claims are fetched.
  const due: string[] = [];
  for (const code of candidates) {
    if (await claimMarketAttempt(ctx.db, code, new Date(nowMs), new Date(nowMs - intervalFor(code, DEFAULT_CADENCE)))) due.push(code);
  }
  if (due.length === 0) return 0;

  const { fetched, misses } = await fetchInOrder(ctx, sources, due);

  // Every record of this pass carries the time it started: fetched_at is then never later than the
  // fetch itself, so staleness errs on the early side, and the cadence does not drift by the time
  // the feeds took to answer.
  const at = new Date(nowMs);
  for (const code of due) {
    const got = fetched.get(code);
    if (!got) {
      const reason = `fetch failed: ${(misses.get(code) ?? []).map((m) => `${m.source} ${m.reason}`).join(', ')}`;
      await flagMarketRate(ctx.db, code, reason, at);
      ctx.metrics.rateRefreshes.inc({ outcome: 'failed' });
      continue;
    }
    const next = got.rate.toDecimalPlaces(MARKET_RATE_PLACES, Decimal.ROUND_HALF_UP);
    const row = rows.get(code);
    // The jump check compares with the last good rate only while it is itself current: after an outage
    // longer than the staleness bound the market may have moved for real, and refusing every new
    // reading would leave the currency unpriceable until an operator stepped in.
    const fresh = row?.market_rate != null && row.market_fetched_at != null && nowMs - row.market_fetched_at.getTime() <= ctx.config.rateMaxAgeSeconds * 1000;
    const previous = fresh ? new Decimal(row!.market_rate!) : null;
    const refusal = refusalOf(previous, next, ctx.config.rateMaxJumpPercent);
    if (refusal !== null) {
      await flagMarketRate(ctx.db, code, `${refusal} (${got.source} offered ${next.toFixed(MARKET_RATE_PLACES)})`, at);
      ctx.metrics.rateRefreshes.inc({ outcome: 'refused' });
      ctx.log.warn(
        {
          currency: code,
          source: got.source,
          lastGood: previous?.toFixed(MARKET_RATE_PLACES) ?? null,
          offered: next.toFixed(MARKET_RATE_PLACES),
          maxJumpPercent: ctx.config.rateMaxJumpPercent.toString(),
        },
        `market rate for ${code} refused, last good rate kept: ${refusal}`,
      );
      continue;
    }
    await storeMarketRate(ctx.db, code, next.toFixed(MARKET_RATE_PLACES), got.source, at);
    ctx.metrics.rateRefreshes.inc({ outcome: 'stored' });
  }
  return due.length;
}

/**
 * Asks each source, in order of preference, for the codes no earlier source priced: a code the
 * first source does not quote, or every code when it fails, falls back to the next.
 */
async function fetchInOrder(
  ctx: Ctx,
  sources: readonly RateSource[],
  codes: readonly string[],
): Promise<{ fetched: Map<string, Fetched>; misses: Map<string, Miss[]> }> {
  const fetched = new Map<string, Fetched>();
  const misses = new Map<string, Miss[]>(codes.map((c) => [c, []]));
  let remaining = [...codes];
  for (const source of sources) {
    if (remaining.length === 0) break;
    let rates: Map<string, Decimal>;
    try {
      rates = await source.fetchRates(remaining);
    } catch (err) {
      const reason = err instanceof RateSourceError ? err.failure : 'error';
      if (err instanceof RateSourceError) {
        ctx.log.warn({ source: source.name, failure: err.failure, currencies: remaining, err: err.message }, `rate source ${source.name} failed`);
      } else {
        // Not a feed problem but a fault in the adapter; the next source still gets its chance.
        ctx.log.error({ source: source.name, currencies: remaining, err }, `rate source ${source.name} threw unexpectedly`);
      }
      for (const code of remaining) misses.get(code)!.push({ source: source.name, reason });
      continue;
    }
    for (const code of remaining) {
      const rate = rates.get(code);
      if (rate === undefined) misses.get(code)!.push({ source: source.name, reason: 'does not quote it' });
      else fetched.set(code, { rate, source: source.name });
    }
    remaining = remaining.filter((c) => !fetched.has(c));
  }
  return { fetched, misses };
}

/** Null when `next` may replace `previous`; otherwise the short reason operators see in the flag. */
function refusalOf(previous: Decimal | null, next: Decimal, maxJumpPercent: Decimal): string | null {
  if (!next.isFinite() || !next.gt(0)) return `refused: ${next.toString()} is not a positive rate`;
  if (next.gte(MARKET_RATE_LIMIT)) return `refused: ${next.toFixed(0)} is too large to store`;
  // A first rate has nothing to jump from.
  if (previous === null) return null;
  const check = checkJump(previous, next, maxJumpPercent);
  if (check.ok) return null;
  return `jump refused: ${formatChange(check.changePercent)} vs last good ${previous.toFixed(MARKET_RATE_PLACES)}`;
}

/** "+25.0%", "-50.0%"; a move too small for one decimal (a threshold below 0.1 %) keeps 2 digits. */
function formatChange(changePercent: Decimal): string {
  const sign = changePercent.isNegative() ? '-' : '+';
  const abs = changePercent.abs();
  const text = abs.gte(0.1) ? abs.toFixed(1, Decimal.ROUND_HALF_UP) : abs.toSignificantDigits(2, Decimal.ROUND_HALF_UP).toString();
  return `${sign}${text}%`;
}
