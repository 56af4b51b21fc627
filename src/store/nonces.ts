import type { Db, Queryable } from './db.js';

/**
 * A nonce claim commits without waiting for its log record to reach the disk (its statement turns
 * `synchronous_commit` off for its own transaction). PostgreSQL writes its log in order, so the
 * claim of a request that goes on to change anything is on disk before that change commits, and
 * before the answer leaves. A crash can forget only the claims of the last moments' requests that
 * changed nothing; replaying one of those answers what the original got. A claim therefore takes
 * the database itself (`Db`), never a transaction, which it would relax as a whole.
 */
export const RELAXED_COMMIT = `set_config('synchronous_commit', 'off', true)`;

/**
 * The nonce claim as a statement's CTE named `n`, which has a row `(desk_key, nonce)` for each nonce
 * claimed: one claim per row of `source` (so none when `source` is empty). Arguments are SQL
 * expressions, parameters or columns of `source`. An expired row that was not pruned yet is taken
 * over. Rows are inserted in key order, so two statements that claim several of the same nonces
 * (batches of two instances) wait for each other rather than deadlock.
 */
export const nonceClaimCte = (source: string, key: string, nonce: string, now: string, expiresAt: string) => `n AS (
       INSERT INTO nonces (desk_key, nonce, expires_at) SELECT ${key}, ${nonce}, ${expiresAt} FROM ${source} ORDER BY 1, 2
       ON CONFLICT (desk_key, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ${now}
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
  const { rows } = await db.query<{ claimed: number }>(
    `WITH ${nonceClaimCte('(SELECT 1) one', '$1', '$2', '$3', '$4')}
     SELECT (SELECT count(*) FROM n)::int AS claimed, ${RELAXED_COMMIT} AS relaxed`,
    [deskKey, nonce, now, expiresAt],
  );
  return rows[0]!.claimed === 1;
}

export async function pruneNonces(q: Queryable, now: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM nonces WHERE expires_at <= $1', [now]);
  return rowCount;
}
