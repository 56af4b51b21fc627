/**
 * A desk's order read in one statement with authentication's last check (the nonce claim), alone
 * or together with the reads that arrive at the same moment.
 */
import type { Db } from './db.js';
import { batchNow, nonceClaim, RELAXED_COMMIT } from './nonces.js';
import { batchedPerDatabase } from './batches.js';
import { query, sql } from './sql.js';
import { ORDER_VIEW_COLUMNS, type OrderViewRow } from './orders.js';
import type { AuthToSettle } from './orderWrites.js';

/** A desk's newest order with the reference, for the view. */
const deskOrderViewByRef = (deskId: string, ref: string) =>
  sql`SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE desk_id = ${deskId} AND order_ref = ${ref} AND placement = 'placed' ORDER BY seq DESC LIMIT 1`;

interface DeskOrderRead {
  deskId: string;
  idOrRef: string;
  auth: Pick<AuthToSettle, 'deskKey' | 'nonce' | 'sealedSecret' | 'now' | 'nonceExpiresAt'>;
}
const byId = (idOrRef: string) => idOrRef.startsWith('ord_');

/**
 * The statement of `readDeskOrderAuthenticating` for several reads (their nonces must differ per
 * desk key; `batchNow` is their time): each nonce claimed only while its desk has the sealed
 * secret the request was checked against, and each order read (one index lookup: by id for an
 * `ord_` id, by reference otherwise) only when its nonce was claimed.
 */
async function readDeskOrdersAuthenticating(db: Db, reads: DeskOrderRead[]): Promise<{ claimed: boolean; order: OrderViewRow | null }[]> {
  const batch = reads.map(({ deskId, idOrRef, auth: a }, i) => ({
    i, desk_key: a.deskKey, nonce: a.nonce, sealed: a.sealedSecret, nonce_expires_at: a.nonceExpiresAt, desk_id: deskId, v: idOrRef, by_id: byId(idOrRef),
  }));
  const { rows } = await query<OrderViewRow & { i: number; auth_claimed: boolean; auth_relaxed: string }>(
    db,
    sql`WITH b AS (
       SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS t(i int, desk_key text, nonce text, sealed text, nonce_expires_at timestamptz, desk_id text, v text, by_id boolean)),
     ${nonceClaim(
       sql`SELECT b.desk_key, b.nonce, b.nonce_expires_at AS expires_at FROM b JOIN desks d ON d.key = b.desk_key AND d.secret_enc = b.sealed`,
       batchNow(reads.map((x) => x.auth.now)),
     )},
     bn AS (SELECT b.* FROM b JOIN n ON n.desk_key = b.desk_key AND n.nonce = b.nonce)
     SELECT b.i, b.i IN (SELECT i FROM bn) AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM b LEFT JOIN LATERAL (
         SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE b.by_id AND id = b.v AND desk_id = b.desk_id AND placement = 'placed'
         UNION ALL
         (SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE NOT b.by_id AND desk_id = b.desk_id AND order_ref = b.v AND placement = 'placed' ORDER BY seq DESC LIMIT 1)
       ) o ON b.i IN (SELECT i FROM bn)`,
  );
  const out = reads.map(() => ({ claimed: false, order: null as OrderViewRow | null }));
  for (const { i, auth_claimed, auth_relaxed: _relaxed, ...found } of rows) out[i] = { claimed: auth_claimed, order: found.id ? found : null };
  return out;
}

/**
 * The same for a read alone, in a statement of its own: a read goes alone whenever the database is
 * idle, and one index lookup chosen here costs less than the batch's lateral over both.
 */
async function readOneDeskOrderAuthenticating(db: Db, r: DeskOrderRead): Promise<{ claimed: boolean; order: OrderViewRow | null }> {
  const { deskId, idOrRef, auth: a } = r;
  const view = byId(idOrRef)
    ? sql`SELECT ${ORDER_VIEW_COLUMNS} FROM orders WHERE id = ${idOrRef} AND desk_id = ${deskId} AND placement = 'placed'`
    : deskOrderViewByRef(deskId, idOrRef);
  const { rows } = await query<OrderViewRow & { auth_claimed: number; auth_relaxed: string }>(
    db,
    sql`WITH ${nonceClaim(
      sql`SELECT key AS desk_key, ${a.nonce}::text AS nonce, ${a.nonceExpiresAt}::timestamptz AS expires_at FROM desks WHERE key = ${a.deskKey} AND secret_enc = ${a.sealedSecret}`,
      a.now,
    )}
     SELECT (SELECT count(*) FROM n)::int AS auth_claimed, ${RELAXED_COMMIT} AS auth_relaxed, o.*
       FROM (SELECT 1) one LEFT JOIN LATERAL (${view}) o ON EXISTS (SELECT 1 FROM n)`,
  );
  const { auth_claimed, auth_relaxed: _relaxed, ...found } = rows[0]!;
  return { claimed: auth_claimed === 1, order: found.id ? found : null };
}

const readDeskOrder = batchedPerDatabase(readOneDeskOrderAuthenticating, readDeskOrdersAuthenticating, (r) => `${r.auth.deskKey} ${r.auth.nonce}`);

/**
 * An order of a desk (by `ord_` id, else the newest by orderRef, as `findDeskOrder`) read in one
 * statement with authentication's last check: the nonce is claimed (committing as any claim does,
 * see RELAXED_COMMIT) only while the desk still has the sealed secret the request was checked
 * against and the nonce is fresh (`claimed`), and the order is read only when it was. Reads that
 * arrive together share one statement (`batchedPerDatabase`).
 */
export async function readDeskOrderAuthenticating(
  db: Db,
  deskId: string,
  idOrRef: string,
  a: DeskOrderRead['auth'],
): Promise<{ claimed: boolean; order: OrderViewRow | null }> {
  const r = await readDeskOrder(db, { deskId, idOrRef, auth: a });
  // An `ord_` reference that is no order's id is looked up by reference (authentication is settled by then).
  if (r.claimed && !r.order && byId(idOrRef)) return { claimed: true, order: (await query<OrderViewRow>(db, deskOrderViewByRef(deskId, idOrRef))).rows[0] ?? null };
  return r;
}
