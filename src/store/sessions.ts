import type { Queryable } from './db.js';

export type Surface = 'cabinet' | 'office';

export interface SessionRow {
  id_hash: string;
  surface: Surface;
  account_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  user_agent: string | null;
  ip: string | null;
}

export async function insertSession(q: Queryable, s: { idHash: string; surface: Surface; accountId: string; at: Date; expiresAt: Date; userAgent: string | null; ip: string | null }): Promise<void> {
  await q.query(
    `INSERT INTO sessions (id_hash, surface, account_id, created_at, last_seen_at, expires_at, user_agent, ip) VALUES ($1, $2, $3, $4, $4, $5, $6, $7)`,
    [s.idHash, s.surface, s.accountId, s.at, s.expiresAt, s.userAgent, s.ip],
  );
}

/** The live session with this hash on this surface, its last use and expiry moved forward (sliding). */
export async function touchSession(q: Queryable, idHash: string, surface: Surface, at: Date, expiresAt: Date): Promise<SessionRow | null> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET last_seen_at = $3, expires_at = $4
      WHERE id_hash = $1 AND surface = $2 AND revoked_at IS NULL AND expires_at > $3 RETURNING *`,
    [idHash, surface, at, expiresAt],
  );
  return rows[0] ?? null;
}

export async function revokeSession(q: Queryable, idHash: string, surface: Surface, at: Date): Promise<void> {
  await q.query('UPDATE sessions SET revoked_at = $3 WHERE id_hash = $1 AND surface = $2 AND revoked_at IS NULL', [idHash, surface, at]);
}

/** Every live session of an account, but one that is kept (the one making a password change). */
export async function revokeAccountSessions(q: Queryable, surface: Surface, accountId: string, at: Date, keepHash: string | null = null): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE sessions SET revoked_at = $3 WHERE surface = $1 AND account_id = $2 AND revoked_at IS NULL AND ($4::text IS NULL OR id_hash <> $4)`,
    [surface, accountId, at, keepHash],
  );
  return rowCount;
}

export async function listAccountSessions(q: Queryable, surface: Surface, accountId: string, now: Date): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(
    `SELECT * FROM sessions WHERE surface = $1 AND account_id = $2 AND revoked_at IS NULL AND expires_at > $3 ORDER BY last_seen_at DESC`,
    [surface, accountId, now],
  );
  return rows;
}
