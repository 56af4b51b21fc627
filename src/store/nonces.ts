import type { Db, Queryable } from './db.js';
import { query, raw, sql, type Sql } from './sql.js';

/**
 * A nonce claim commits without waiting for its log record to reach the disk (its statement turns
 * `synchronous_commit` off for its own transaction). PostgreSQL writes its log in order, so the
 * claim of a request that goes on to change anything is on disk before that change commits, and
 * before the answer leaves. A crash can forget only the claims of the last moments' requests that
 * changed nothing; replaying one of those answers what the original got. A claim therefore takes
 * the database itself (`Db`), never a transaction, which it would relax as a whole.
 */
export const RELAXED_COMMIT = raw(`set_config('synchronous_commit', 'off', true)`);

/**
 * The nonce claim, the one place it is written: a statement's CTE named `n`, which has a row
 * `(desk_key, nonce)` for each nonce it claimed. `rows` is a query with the columns `desk_key`,
 * `nonce` and `expires_at`, one row per nonce to claim (none when it is empty); `now` is the
 * statement's time. An expired row that was not pruned yet is taken over. Rows are inserted in key
 * order, so two statements that claim several of the same nonces (batches of two instances) wait
 * for each other rather than deadlock.
 */
export const nonceClaim = (rows: Sql, now: Date): Sql => sql`n AS (
       INSERT INTO nonces (desk_key, nonce, expires_at) SELECT desk_key, nonce, expires_at FROM (${rows}) c ORDER BY 1, 2
       ON CONFLICT (desk_key, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ${now}::timestamptz
       RETURNING desk_key, nonce)`;

/**
 * The `now` of a statement that claims the nonces of several requests: the earliest of theirs, so
 * an expired row is taken over only if it had expired for every one of them (a request whose row
 * had not, by that time, is refused as a replay and goes the usual way).
 */
export const batchNow = (times: readonly Date[]): Date => new Date(Math.min(...times.map((t) => t.getTime())));

/**
 * Records the nonce for the desk key unless it was seen and has not yet expired.
 * An expired row that was not pruned yet is taken over, so pruning is only housekeeping.
 */
export async function claimNonce(db: Db, deskKey: string, nonce: string, now: Date, expiresAt: Date): Promise<boolean> {
  const { rows } = await query<{ claimed: number }>(
    db,
    sql`WITH ${nonceClaim(sql`SELECT ${deskKey}::text AS desk_key, ${nonce}::text AS nonce, ${expiresAt}::timestamptz AS expires_at`, now)}
     SELECT (SELECT count(*) FROM n)::int AS claimed, ${RELAXED_COMMIT} AS relaxed`,
  );
  return rows[0]!.claimed === 1;
}

export async function pruneNonces(q: Queryable, now: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM nonces WHERE expires_at <= $1', [now]);
  return rowCount;
}
