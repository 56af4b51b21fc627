import type { Queryable } from './db.js';
import type { Surface } from './sessions.js';

/**
 * Forgotten passwords' reset links (migration 0025): only a hash of each link's token is kept; a
 * link is used once and lapses at `expires_at`.
 */

export interface PasswordResetRow {
  id: string;
  surface: Surface;
  account_id: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertPasswordReset(q: Queryable, r: { id: string; surface: Surface; accountId: string; tokenHash: string; at: Date; expiresAt: Date }): Promise<void> {
  await q.query(`INSERT INTO password_resets (id, surface, account_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    r.id,
    r.surface,
    r.accountId,
    r.tokenHash,
    r.at,
    r.expiresAt,
  ]);
}

/** A link of the surface that can still be used at `now`, or null. */
export async function findOpenPasswordReset(q: Queryable, surface: Surface, tokenHash: string, now: Date): Promise<PasswordResetRow | null> {
  const { rows } = await q.query<PasswordResetRow>('SELECT * FROM password_resets WHERE token_hash = $1 AND surface = $2 AND used_at IS NULL AND expires_at > $3', [
    tokenHash,
    surface,
    now,
  ]);
  return rows[0] ?? null;
}

/**
 * Uses the link: only while unused and not lapsed, so of two uses at once one gets the row and the
 * other null. The account's other open links are used up with it: a new password voids them.
 */
export async function usePasswordReset(q: Queryable, surface: Surface, tokenHash: string, now: Date): Promise<PasswordResetRow | null> {
  const { rows } = await q.query<PasswordResetRow>(
    `UPDATE password_resets SET used_at = $3 WHERE token_hash = $1 AND surface = $2 AND used_at IS NULL AND expires_at > $3 RETURNING *`,
    [tokenHash, surface, now],
  );
  const used = rows[0] ?? null;
  if (used) await q.query('UPDATE password_resets SET used_at = $3 WHERE surface = $1 AND account_id = $2 AND used_at IS NULL', [surface, used.account_id, now]);
  return used;
}

/** Voids one link (its codes were spent): it opens nothing any more. */
export async function voidPasswordReset(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query('UPDATE password_resets SET used_at = $2 WHERE id = $1 AND used_at IS NULL', [id, now]);
}
