/**
 * The one statement that writes orders: a new order (or a batch of them) with its nonce and its
 * reference claimed in the same statement, as authentication and idempotency require.
 */
import type { Db, Queryable } from './db.js';
import { CATALOG_VERSIONS_VALUE, type CatalogVersions } from './catalogVersions.js';
import { batchNow, nonceClaim } from './nonces.js';
import { alone, batchedPerDatabase } from './batches.js';
import { query, raw, sql } from './sql.js';

export interface NewOrder {
  id: string;
  deskId: string;
  merchantId: string;
  orderRef: string | null;
  amount: string;
  currency: string;
  rate: string;
  settledAmount: string;
  method: string;
  rail: string | null;
  sandbox: boolean;
  notifyUrl: string | null;
  successUrl: string | null;
  failUrl: string | null;
  backUrl: string | null;
  operator: string | null;
  lifetimeMinutes: number;
  createdAt: Date;
  expiresAt: Date;
}

/** What authentication left to check for an order created in one statement with it (see `writeOrders`). */
export interface AuthToSettle {
  deskKey: string;
  nonce: string;
  /** The desk's sealed secret, desk and merchant row versions and catalogue versions the request was checked against. */
  sealedSecret: string;
  deskVersion: number;
  merchantVersion: number;
  versions: CatalogVersions;
  now: Date;
  nonceExpiresAt: Date;
}

/** One order for `writeOrders`. */
export interface OrderToWrite {
  order: NewOrder;
  /** The details a provider issued: the order is written placed. Without them it is a reservation ('pending'), invisible until placed. */
  issued: { payment: Record<string, string | null>; providerId: string } | null;
  /**
   * The order's reference is claimed in the same statement and the order written only if it was
   * free (or there is none). False when the caller's transaction already holds the reference.
   */
  claimRef: boolean;
  /**
   * Authentication's last check in the same statement: the nonce is claimed only while the desk
   * (with its secret), its merchant and the catalogues are at the versions the order was validated
   * against (a replayed nonce is not claimed either), and the order is written only if it was.
   */
  auth: AuthToSettle | null;
}

export interface OrderWritten {
  /** The nonce was claimed (always, for an order without `auth`). */
  claimed: boolean;
  /** The order row was inserted. */
  inserted: boolean;
}

/**
 * Writes orders, the only statement that inserts one: each order as it would be on its own, with
 * its nonce claimed first when it carries `auth` and its reference claimed for this very order
 * when `claimRef` says so, the order inserted only when both hold. When a desk, merchant or
 * catalogue moved, nothing is written for that order. Several orders go in one statement (one
 * commit); they must not share a nonce of one desk key. References are inserted in key order, as
 * nonces are (`nonceClaim`), so two instances' batches wait for each other rather than deadlock.
 */
export async function writeOrders(q: Queryable, items: readonly OrderToWrite[]): Promise<OrderWritten[]> {
  const batch = items.map(({ order: o, issued, claimRef, auth: a }, i) => ({
    i, id: o.id, desk_id: o.deskId, merchant_id: o.merchantId, order_ref: o.orderRef, amount: o.amount, currency: o.currency, rate: o.rate,
    settled_amount: o.settledAmount, method: o.method, rail: o.rail, sandbox: o.sandbox, notify_url: o.notifyUrl, success_url: o.successUrl,
    fail_url: o.failUrl, back_url: o.backUrl, operator: o.operator, lifetime_minutes: o.lifetimeMinutes, created_at: o.createdAt,
    expires_at: o.expiresAt, placement: issued ? 'placed' : 'pending', payment: issued?.payment ?? null, provider_id: issued?.providerId ?? null,
    claim_ref: claimRef && o.orderRef !== null, desk_key: a?.deskKey ?? null, nonce: a?.nonce ?? null, sealed: a?.sealedSecret ?? null,
    desk_version: a?.deskVersion ?? null, merchant_version: a?.merchantVersion ?? null, versions: a?.versions ?? null, nonce_expires_at: a?.nonceExpiresAt ?? null,
  }));
  const authTimes = items.flatMap((x) => (x.auth ? [x.auth.now] : []));
  // Without a nonce to claim the claim's time matters to nothing; any valid time will do.
  const now = authTimes.length > 0 ? batchNow(authTimes) : items[0]!.order.createdAt;
  const { rows } = await query<{ i: number; claimed: boolean; inserted: boolean }>(
    q,
    sql`WITH b AS (
       SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS t(i int, id text, desk_id text, merchant_id text, order_ref text, amount numeric,
         currency text, rate numeric, settled_amount numeric, method text, rail text, sandbox boolean, notify_url text, success_url text,
         fail_url text, back_url text, operator text, lifetime_minutes int, created_at timestamptz, expires_at timestamptz, placement text, payment jsonb,
         provider_id text, claim_ref boolean, desk_key text, nonce text, sealed text, desk_version bigint, merchant_version bigint, versions jsonb,
         nonce_expires_at timestamptz)),
     ${nonceClaim(
       sql`SELECT b.desk_key, b.nonce, b.nonce_expires_at AS expires_at
         FROM b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed AND d.row_version = b.desk_version
           JOIN merchants m ON m.id = d.merchant_id AND m.row_version = b.merchant_version
        WHERE b.versions = ${raw(CATALOG_VERSIONS_VALUE)}`,
       now,
     )},
     ok AS (
       SELECT * FROM b WHERE desk_key IS NULL
       UNION ALL
       SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce),
     claim AS (
       INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at)
       SELECT desk_id, order_ref, id, amount, currency, created_at FROM ok WHERE claim_ref ORDER BY desk_id, order_ref
       ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING order_id),
     o AS (
       INSERT INTO orders (id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, status, sub_status, placement,
                           sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, updated_at, payment, provider_id)
       SELECT id, desk_id, merchant_id, order_ref, amount, currency, rate, settled_amount, method, rail, 'Created', 'WaitingForPayment', placement,
              sandbox, notify_url, success_url, fail_url, back_url, operator, lifetime_minutes, created_at, expires_at, created_at, payment, provider_id
         FROM ok WHERE NOT claim_ref OR id IN (SELECT order_id FROM claim)
       RETURNING id)
     SELECT b.i, b.id IN (SELECT id FROM ok) AS claimed, b.id IN (SELECT id FROM o) AS inserted FROM b`,
  );
  const out = items.map(() => ({ claimed: false, inserted: false }));
  for (const r of rows) out[r.i] = { claimed: r.claimed, inserted: r.inserted };
  return out;
}

/**
 * `writeOrders` on the database itself (never inside a transaction): orders that arrive together
 * go as one statement (`batchedPerDatabase`), an order alone as a batch of one.
 */
export const writeOrder = batchedPerDatabase<Db, OrderToWrite, OrderWritten>(alone(writeOrders), writeOrders, (x) => (x.auth ? `${x.auth.deskKey} ${x.auth.nonce}` : x.order.id));
