import type { Queryable } from './db.js';

export interface CurrencyRow {
  code: string;
  enabled: boolean;
  spread_percent: string;
  updated_at: Date;
}

export interface RateRow {
  code: string;
  manual_rate: string | null;
  manual_set_at: Date | null;
  market_rate: string | null;
  market_source: string | null;
  market_fetched_at: Date | null;
  market_attempt_at: Date | null;
  market_flag: string | null;
  /** The manual rate is the one the demo data set (migration 0026), not an operator's. */
  manual_demo: boolean;
  updated_at: Date;
}

export async function upsertCurrency(q: Queryable, c: { code: string; enabled: boolean; spreadPercent: string; at: Date }): Promise<CurrencyRow> {
  const { rows } = await q.query<CurrencyRow>(
    `INSERT INTO currencies (code, enabled, spread_percent, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (code) DO UPDATE SET enabled = excluded.enabled, spread_percent = excluded.spread_percent, updated_at = excluded.updated_at
     RETURNING *`,
    [c.code, c.enabled, c.spreadPercent, c.at],
  );
  return rows[0];
}

export async function getCurrency(q: Queryable, code: string): Promise<CurrencyRow | null> {
  const { rows } = await q.query<CurrencyRow>('SELECT * FROM currencies WHERE code = $1', [code]);
  return rows[0] ?? null;
}

export async function listCurrencies(q: Queryable, codes?: readonly string[]): Promise<CurrencyRow[]> {
  const { rows } = codes
    ? await q.query<CurrencyRow>('SELECT * FROM currencies WHERE code = ANY($1::text[]) ORDER BY code', [codes])
    : await q.query<CurrencyRow>('SELECT * FROM currencies ORDER BY code');
  return rows;
}

/** Sets the manual rate; `demo`: the demo data sets it (an operator's rate replaces the mark). */
export async function setManualRate(q: Queryable, code: string, rate: string, at: Date, demo = false): Promise<RateRow> {
  const { rows } = await q.query<RateRow>(
    `INSERT INTO rates (code, manual_rate, manual_set_at, manual_demo, updated_at) VALUES ($1, $2, $3, $4, $3)
     ON CONFLICT (code) DO UPDATE SET manual_rate = excluded.manual_rate, manual_set_at = excluded.manual_set_at, manual_demo = excluded.manual_demo,
       updated_at = excluded.updated_at
     RETURNING *`,
    [code, rate, at, demo],
  );
  return rows[0];
}

export async function clearManualRate(q: Queryable, code: string, at: Date): Promise<RateRow | null> {
  const { rows } = await q.query<RateRow>(
    'UPDATE rates SET manual_rate = NULL, manual_set_at = NULL, manual_demo = false, updated_at = $2 WHERE code = $1 AND manual_rate IS NOT NULL RETURNING *',
    [code, at],
  );
  return rows[0] ?? null;
}

export async function getRates(q: Queryable, codes: readonly string[]): Promise<Map<string, RateRow>> {
  const { rows } = await q.query<RateRow>('SELECT * FROM rates WHERE code = ANY($1::text[])', [codes]);
  return new Map(rows.map((r) => [r.code, r]));
}

export async function listRates(q: Queryable): Promise<RateRow[]> {
  const { rows } = await q.query<RateRow>('SELECT * FROM rates ORDER BY code');
  return rows;
}

/** A market rate that passed the sanity check: becomes the current market rate and clears any flag. */
export async function storeMarketRate(q: Queryable, code: string, rate: string, source: string, at: Date): Promise<void> {
  await q.query(
    `INSERT INTO rates (code, market_rate, market_source, market_fetched_at, market_attempt_at, market_flag, updated_at)
     VALUES ($1, $2, $3, $4, $4, NULL, $4)
     ON CONFLICT (code) DO UPDATE SET market_rate = excluded.market_rate, market_source = excluded.market_source,
       market_fetched_at = excluded.market_fetched_at, market_attempt_at = excluded.market_attempt_at, market_flag = NULL,
       updated_at = excluded.updated_at`,
    [code, rate, source, at],
  );
}

/** A refused or failed refresh: the last good rate stays, the flag tells operators why. */
export async function flagMarketRate(q: Queryable, code: string, flag: string | null, at: Date): Promise<void> {
  await q.query(
    `INSERT INTO rates (code, market_attempt_at, market_flag, updated_at) VALUES ($1, $2, $3, $2)
     ON CONFLICT (code) DO UPDATE SET market_attempt_at = excluded.market_attempt_at, market_flag = COALESCE(excluded.market_flag, rates.market_flag),
       updated_at = excluded.updated_at`,
    [code, at, flag],
  );
}

/** A currency and its rate row in one round trip (order creation reads both for every order). */
/**
 * Claims this refresh of a currency for one instance: the attempt time moves to `at` only if the
 * last attempt is older than `lastBefore` (or in the future, after a clock step back). Instances
 * that lose the claim skip the code, so each due refresh is fetched once.
 */
export async function claimMarketAttempt(q: Queryable, code: string, at: Date, lastBefore: Date): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO rates (code, market_attempt_at, updated_at) VALUES ($1, $2, $2)
     ON CONFLICT (code) DO UPDATE SET market_attempt_at = excluded.market_attempt_at, updated_at = excluded.updated_at
       WHERE rates.market_attempt_at IS NULL OR rates.market_attempt_at <= $3 OR rates.market_attempt_at > $2
     RETURNING code`,
    [code, at, lastBefore],
  );
  return rows.length === 1;
}
