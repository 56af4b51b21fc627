import type { Queryable } from './db.js';
import type { Surface } from './sessions.js';

const TABLE: Record<Surface, string> = { cabinet: 'users', office: 'operators' };

export interface TotpState {
  totp_secret: string | null;
  totp_enabled_at: Date | null;
}

export async function getTotpState(q: Queryable, surface: Surface, accountId: string): Promise<TotpState | null> {
  const { rows } = await q.query<TotpState>(`SELECT totp_secret, totp_enabled_at FROM ${TABLE[surface]} WHERE id = $1`, [accountId]);
  return rows[0] ?? null;
}

/** A new secret waiting for its first code; enrolment is not on until it is confirmed. */
export async function setPendingTotp(q: Queryable, surface: Surface, accountId: string, sealedSecret: string): Promise<void> {
  await q.query(`UPDATE ${TABLE[surface]} SET totp_secret = $2, totp_enabled_at = NULL WHERE id = $1`, [accountId, sealedSecret]);
}

export async function enableTotp(q: Queryable, surface: Surface, accountId: string, at: Date): Promise<void> {
  await q.query(`UPDATE ${TABLE[surface]} SET totp_enabled_at = $2 WHERE id = $1 AND totp_secret IS NOT NULL`, [accountId, at]);
}

export async function clearTotp(q: Queryable, surface: Surface, accountId: string): Promise<void> {
  await q.query(`UPDATE ${TABLE[surface]} SET totp_secret = NULL, totp_enabled_at = NULL WHERE id = $1`, [accountId]);
  await q.query('DELETE FROM recovery_codes WHERE surface = $1 AND account_id = $2', [surface, accountId]);
  await q.query('DELETE FROM totp_steps WHERE surface = $1 AND account_id = $2', [surface, accountId]);
}

/**
 * Records a step as used if it is later than the last one used: true when this call took it, so
 * two requests racing with the same code cannot both pass.
 */
export async function claimTotpStep(q: Queryable, surface: Surface, accountId: string, step: number): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO totp_steps (surface, account_id, last_step) VALUES ($1, $2, $3)
     ON CONFLICT (surface, account_id) DO UPDATE SET last_step = EXCLUDED.last_step WHERE totp_steps.last_step < EXCLUDED.last_step`,
    [surface, accountId, step],
  );
  return rowCount === 1;
}

export async function lastTotpStep(q: Queryable, surface: Surface, accountId: string): Promise<number | null> {
  const { rows } = await q.query<{ last_step: number }>('SELECT last_step FROM totp_steps WHERE surface = $1 AND account_id = $2', [surface, accountId]);
  return rows[0]?.last_step ?? null;
}

export async function replaceRecoveryCodes(q: Queryable, surface: Surface, accountId: string, hashes: string[], at: Date): Promise<void> {
  await q.query('DELETE FROM recovery_codes WHERE surface = $1 AND account_id = $2', [surface, accountId]);
  for (const h of hashes) {
    await q.query('INSERT INTO recovery_codes (surface, account_id, code_hash, created_at) VALUES ($1, $2, $3, $4)', [surface, accountId, h, at]);
  }
}

/** Marks an unused recovery code as used; true when it was there and unused. */
export async function useRecoveryCode(q: Queryable, surface: Surface, accountId: string, hash: string, at: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    'UPDATE recovery_codes SET used_at = $4 WHERE surface = $1 AND account_id = $2 AND code_hash = $3 AND used_at IS NULL',
    [surface, accountId, hash, at],
  );
  return rowCount === 1;
}

export async function unusedRecoveryCodes(q: Queryable, surface: Surface, accountId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM recovery_codes WHERE surface = $1 AND account_id = $2 AND used_at IS NULL', [surface, accountId]);
  return rows[0]?.n ?? 0;
}
