import type { Db, Queryable } from './db.js';
import { batchNow, nonceClaim, RELAXED_COMMIT } from './nonces.js';
import { CATALOG_VERSIONS_SQL, type CatalogVersions } from './catalogVersions.js';
import { query, raw, sql } from './sql.js';
import type { MerchantRow } from './merchants.js';
import type { DeskSettings } from '../schemas/admin.js';
import { batchedPerDatabase } from './batches.js';

export interface DeskRow {
  id: string;
  merchant_id: string;
  name: string;
  key: string;
  secret_enc: string;
  method: string;
  rails: string[];
  currencies: string[];
  min_usd: string;
  max_usd: string;
  callback_url: string | null;
  callbacks_enabled: boolean;
  tariff_id: string | null;
  /** An operator chose no fee (`tariffId: null`); without it, a desk with no tariff has no price yet (migration 0026). */
  no_fee: boolean;
  enabled: boolean;
  stop_reason: string | null;
  /** A test desk: its orders are sandbox orders whatever the merchant's status (migration 0028); fixed at creation. */
  sandbox: boolean;
  created_at: Date;
  /** Raised by the database on every change (migration 0008). */
  row_version: number;
}

/** A desk to insert: its settings as the API declares them (src/schemas), all given, and what the service adds. */
export type NewDesk = Required<Pick<DeskSettings, 'rails' | 'currencies' | 'minUsd' | 'maxUsd' | 'callbackUrl' | 'callbacksEnabled' | 'tariffId'>> & {
  id: string;
  merchantId: string;
  /** Null: "Desk N", N one more than the merchant's desks so far. */
  name: string | null;
  key: string;
  secretEnc: string;
  method: string;
  sandbox: boolean;
  /** With `tariffId: null`: an operator chose no fee (true), or the desk waits for the default tariff (false). */
  noFee?: boolean;
  at: Date;
};

export async function insertDesk(q: Queryable, d: NewDesk): Promise<DeskRow> {
  const { rows } = await q.query<DeskRow>(
    `INSERT INTO desks (id, merchant_id, name, key, secret_enc, method, rails, currencies, min_usd, max_usd, callback_url,
       callbacks_enabled, tariff_id, created_at, sandbox, no_fee)
     VALUES ($1, $2, COALESCE($14, 'Desk ' || (SELECT count(*) + 1 FROM desks WHERE merchant_id = $2)), $3, $4, $5, $6, $7, $8, $9, $10,
       $11, $12, $13, $15, $16) RETURNING *`,
    [d.id, d.merchantId, d.key, d.secretEnc, d.method, JSON.stringify(d.rails), JSON.stringify(d.currencies), d.minUsd, d.maxUsd,
      d.callbackUrl, d.callbacksEnabled, d.tariffId, d.at, d.name, d.sandbox, d.tariffId === null && d.noFee === true],
  );
  return rows[0];
}

export async function getDesk(q: Queryable, id: string): Promise<DeskRow | null> {
  const { rows } = await q.query<DeskRow>('SELECT * FROM desks WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** A change of a desk: any of its settings (as the API declares them), its stop reason, its sealed secret. */
export type DeskPatch = DeskSettings & {
  stopReason?: string | null;
  secretEnc?: string;
  /** Set with `tariffId`: true when it is null because an operator chose no fee. */
  noFee?: boolean;
};

const COLUMNS: Record<keyof DeskPatch, string> = {
  name: 'name',
  enabled: 'enabled',
  rails: 'rails',
  currencies: 'currencies',
  minUsd: 'min_usd',
  maxUsd: 'max_usd',
  callbackUrl: 'callback_url',
  callbacksEnabled: 'callbacks_enabled',
  tariffId: 'tariff_id',
  noFee: 'no_fee',
  stopReason: 'stop_reason',
  secretEnc: 'secret_enc',
};

export async function updateDesk(q: Queryable, id: string, patch: DeskPatch): Promise<DeskRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  // Column names come from our own table, never from the patch's keys: a key we do not know
  // (`constructor`, `__proto__`, a column that is not patchable) is simply not read.
  for (const k of Object.keys(COLUMNS) as (keyof DeskPatch)[]) {
    const v = Object.hasOwn(patch, k) ? patch[k] : undefined;
    if (v === undefined) continue;
    params.push(Array.isArray(v) ? JSON.stringify(v) : v);
    sets.push(`${COLUMNS[k]} = $${params.length}`);
  }
  if (sets.length === 0) return getDesk(q, id);
  const { rows } = await q.query<DeskRow>(`UPDATE desks SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
  return rows[0] ?? null;
}

/** The merchant's live desks that have no price yet: no tariff, and no fee not chosen (test desks aside: they never price live money). */
export async function desksWithoutTariff(q: Queryable, merchantId: string): Promise<Pick<DeskRow, 'id' | 'name'>[]> {
  const { rows } = await q.query<Pick<DeskRow, 'id' | 'name'>>(
    'SELECT id, name FROM desks WHERE merchant_id = $1 AND tariff_id IS NULL AND NOT no_fee AND NOT sandbox ORDER BY created_at, id',
    [merchantId],
  );
  return rows;
}

/** Gives those desks (`desksWithoutTariff`) the tariff; returns how many. */
export async function giveTariffToDesksWithout(q: Queryable, merchantId: string, tariffId: string): Promise<number> {
  const { rows } = await q.query<{ id: string }>(
    'UPDATE desks SET tariff_id = $2 WHERE merchant_id = $1 AND tariff_id IS NULL AND NOT no_fee AND NOT sandbox RETURNING id',
    [merchantId, tariffId],
  );
  return rows.length;
}

/** Newest first, keyset-paged back from the `before` desk. */
export async function listDesks(q: Queryable, f: { merchantId: string | null; beforeId?: string; limit: number }): Promise<DeskRow[]> {
  const { rows } = await q.query<DeskRow>(
    `SELECT d.* FROM desks d LEFT JOIN desks c ON c.id = $2
      WHERE ($1::text IS NULL OR d.merchant_id = $1) AND ($2::text IS NULL OR (d.created_at, d.id) < (c.created_at, c.id))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    [f.merchantId, f.beforeId ?? null, f.limit],
  );
  return rows;
}

/**
 * Authentication's one read: the desk by its key with its merchant, so every later step of the
 * request (the account checks of order creation, the balance) works from this row.
 */
// The catalogue versions ride along, so cached providers and currencies are checked by the same read.
const DESK_WITH_MERCHANT = `SELECT d.*, m.name AS m_name, m.status AS m_status, m.status_before_block AS m_status_before_block, m.block_reason AS m_block_reason,
            m.sandbox AS m_sandbox, m.balance AS m_balance, m.sandbox_balance AS m_sandbox_balance, m.created_at AS m_created_at, m.row_version AS m_row_version,
            ${CATALOG_VERSIONS_SQL}
       FROM desks d JOIN merchants m ON m.id = d.merchant_id WHERE d.key = $1`;

type DeskMerchantRow = DeskRow & {
  m_name: string;
  m_status: MerchantRow['status'];
  m_status_before_block: MerchantRow['status'] | null;
  m_block_reason: string | null;
  m_sandbox: boolean;
  m_balance: string;
  m_sandbox_balance: string;
  m_created_at: Date;
  m_row_version: number;
  catalog_versions: CatalogVersions;
};

/** What authentication reads: the desk, its merchant, and the catalogue versions of that moment. */
export interface DeskAtAuth {
  desk: DeskRow;
  merchant: MerchantRow;
  /** The merchant row's version (raised by any change but a balance move). */
  merchantVersion: number;
  versions: CatalogVersions;
}

function splitDeskMerchant(r: DeskMerchantRow): DeskAtAuth {
  const { m_name, m_status, m_status_before_block, m_block_reason, m_sandbox, m_balance, m_sandbox_balance, m_created_at, m_row_version, catalog_versions, ...desk } = r;
  return {
    desk,
    merchant: { id: desk.merchant_id, name: m_name, status: m_status, status_before_block: m_status_before_block, block_reason: m_block_reason, sandbox: m_sandbox, balance: m_balance, sandbox_balance: m_sandbox_balance, created_at: m_created_at },
    merchantVersion: m_row_version,
    versions: catalog_versions,
  };
}

export async function getDeskWithMerchantByKey(q: Queryable, key: string): Promise<DeskAtAuth | null> {
  const { rows } = await q.query<DeskMerchantRow>(DESK_WITH_MERCHANT, [key]);
  return rows[0] ? splitDeskMerchant(rows[0]) : null;
}

/**
 * Authentication in one statement once the signature was checked against a remembered read of the
 * desk: the nonce claimed (as `claimNonce` does) only if the desk's sealed secret is still the
 * remembered one, with the desk's and merchant's row versions, the merchant's balance and the
 * catalogue versions of now. When both rows are still at the remembered versions that is all it
 * reads (the remembered rows are current, the balance fresh); otherwise the desk and merchant are
 * read again. A rotation in between leaves the nonce unclaimed and shows the new secret, so the
 * caller checks again. Null when the desk is gone.
 */
export async function claimNonceWithDesk(
  db: Db,
  remembered: DeskAtAuth,
  nonce: string,
  now: Date,
  expiresAt: Date,
): Promise<(DeskAtAuth & { claimed: boolean }) | null> {
  const { desk, merchant, merchantVersion } = remembered;
  const r = await claimWithVersions(db, { key: desk.key, nonce, sealed: desk.secret_enc, now, expiresAt });
  if (!r) return null;
  const claimed = r.claimed;
  if (r.same_secret && r.d_version === desk.row_version && r.m_version === merchantVersion) {
    return { desk, merchant: { ...merchant, balance: r.m_balance, sandbox_balance: r.m_sandbox_balance }, merchantVersion, versions: r.catalog_versions, claimed };
  }
  const fresh = await getDeskWithMerchantByKey(db, desk.key);
  return fresh && { ...fresh, claimed: claimed && fresh.desk.secret_enc === desk.secret_enc };
}

interface VersionedClaim {
  key: string;
  nonce: string;
  sealed: string;
  now: Date;
  expiresAt: Date;
}
interface ClaimVersions {
  same_secret: boolean;
  d_version: number;
  m_version: number;
  m_balance: string;
  m_sandbox_balance: string;
  catalog_versions: CatalogVersions;
  claimed: boolean;
}

/** The statement of `claimNonceWithDesk`; no row when the desk is gone. */
async function claimOneWithVersions(db: Db, c: VersionedClaim): Promise<ClaimVersions | null> {
  const { rows } = await query<ClaimVersions & { relaxed: string }>(
    db,
    sql`WITH dm AS (
       SELECT d.secret_enc, d.row_version AS d_version, m.row_version AS m_version, m.balance AS m_balance, m.sandbox_balance AS m_sandbox_balance, ${raw(CATALOG_VERSIONS_SQL)}
         FROM desks d JOIN merchants m ON m.id = d.merchant_id WHERE d.key = ${c.key}),
     ${nonceClaim(sql`SELECT ${c.key}::text AS desk_key, ${c.nonce}::text AS nonce, ${c.expiresAt}::timestamptz AS expires_at FROM dm WHERE dm.secret_enc = ${c.sealed}`, c.now)}
     SELECT dm.secret_enc = ${c.sealed} AS same_secret, d_version, m_version, m_balance, m_sandbox_balance, catalog_versions,
            EXISTS (SELECT 1 FROM n) AS claimed, ${RELAXED_COMMIT} AS relaxed
       FROM dm`,
  );
  return rows[0] ?? null;
}

/** `claimOneWithVersions` for several claims in one statement (`batchNow`); their nonces must differ per desk key. */
async function claimManyWithVersions(db: Db, claims: VersionedClaim[]): Promise<(ClaimVersions | null)[]> {
  const batch = claims.map((c, i) => ({ i, key: c.key, nonce: c.nonce, sealed: c.sealed, expires_at: c.expiresAt }));
  const { rows } = await query<ClaimVersions & { i: number; relaxed: string }>(
    db,
    sql`WITH b AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS t(i int, key text, nonce text, sealed text, expires_at timestamptz)),
     dm AS (
       SELECT b.*, d.secret_enc, d.row_version AS d_version, m.row_version AS m_version, m.balance AS m_balance, m.sandbox_balance AS m_sandbox_balance
         FROM b JOIN desks d ON d.key = b.key JOIN merchants m ON m.id = d.merchant_id),
     ${nonceClaim(sql`SELECT key AS desk_key, nonce, expires_at FROM dm WHERE secret_enc = sealed`, batchNow(claims.map((c) => c.now)))}
     SELECT dm.i, dm.secret_enc = dm.sealed AS same_secret, d_version, m_version, m_balance, m_sandbox_balance, ${raw(CATALOG_VERSIONS_SQL)},
            EXISTS (SELECT 1 FROM n WHERE n.desk_key = dm.key AND n.nonce = dm.nonce) AS claimed, ${RELAXED_COMMIT} AS relaxed
       FROM dm`,
  );
  const out: (ClaimVersions | null)[] = claims.map(() => null);
  for (const { i, relaxed: _relaxed, ...r } of rows) out[i] = r;
  return out;
}

/** Claims that arrive together share one statement (`batchedPerDatabase`). */
const claimWithVersions = batchedPerDatabase(claimOneWithVersions, claimManyWithVersions, (c) => `${c.key} ${c.nonce}`);
