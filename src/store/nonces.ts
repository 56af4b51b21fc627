import type { Queryable } from './db.js';

/**
 * Records the nonce for the desk key unless it was seen and has not yet expired.
 * An expired row that was not pruned yet is taken over, so pruning is only housekeeping.
 */
export async function claimNonce(q: Queryable, deskKey: string, nonce: string, now: Date, expiresAt: Date): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO nonces (desk_key, nonce, expires_at) VALUES ($1, $2, $4)
     ON CONFLICT (desk_key, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= $3
     RETURNING 1`,
    [deskKey, nonce, now, expiresAt],
  );
  return rows.length === 1;
}

export async function pruneNonces(q: Queryable, now: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM nonces WHERE expires_at <= $1', [now]);
  return rowCount;
}
