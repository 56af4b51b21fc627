import type { Queryable } from './db.js';

/** What a cabinet user may do: `owner` everything, `developer` all but the team, `viewer` reads only. */
export type UserRole = 'owner' | 'developer' | 'viewer';

export interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  role: UserRole;
  /** The language of the user's mails (a payment-page language code). */
  lang: string;
  created_at: Date;
}

export interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  role: 'admin' | 'support';
  /** The language of the operator's mails (a payment-page language code). */
  lang: string;
  created_at: Date;
}

/** The new user, or null when the email is taken (emails are unique whatever their case). */
export async function insertUser(q: Queryable, u: { id: string; merchantId: string; email: string; passwordHash: string; role?: UserRole; lang?: string; at: Date }): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO users (id, merchant_id, email, password_hash, role, lang, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [u.id, u.merchantId, u.email, u.passwordHash, u.role ?? 'owner', u.lang ?? 'en', u.at],
  );
  return rows[0] ?? null;
}

export async function insertOperator(q: Queryable, o: { id: string; email: string; passwordHash: string; role: 'admin' | 'support'; at: Date }): Promise<OperatorRow | null> {
  const { rows } = await q.query<OperatorRow>(
    `INSERT INTO operators (id, email, password_hash, role, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [o.id, o.email, o.passwordHash, o.role, o.at],
  );
  return rows[0] ?? null;
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

export async function getUser(q: Queryable, id: string): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function setUserPassword(q: Queryable, id: string, passwordHash: string): Promise<void> {
  await q.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

export async function setOperatorPassword(q: Queryable, id: string, passwordHash: string): Promise<void> {
  await q.query('UPDATE operators SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

export async function findOperatorByEmail(q: Queryable, email: string): Promise<OperatorRow | null> {
  const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}


// ---- a merchant's team

/** The merchant's users, owners first, then by when they joined. */
export async function listMerchantUsers(q: Queryable, merchantId: string): Promise<UserRow[]> {
  const { rows } = await q.query<UserRow>(
    `SELECT * FROM users WHERE merchant_id = $1
      ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'developer' THEN 1 ELSE 2 END, created_at, id`,
    [merchantId],
  );
  return rows;
}

/**
 * The merchant's users, locked until the transaction ends: a role change or a removal counts the
 * owners on rows no concurrent change can move, so two owners demoting each other leave one.
 */
export async function lockMerchantUsers(q: Queryable, merchantId: string): Promise<Pick<UserRow, 'id' | 'role'>[]> {
  const { rows } = await q.query<Pick<UserRow, 'id' | 'role'>>('SELECT id, role FROM users WHERE merchant_id = $1 ORDER BY id FOR UPDATE', [merchantId]);
  return rows;
}

export async function setUserRole(q: Queryable, merchantId: string, id: string, role: UserRole): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>('UPDATE users SET role = $3 WHERE id = $2 AND merchant_id = $1 RETURNING *', [merchantId, id, role]);
  return rows[0] ?? null;
}

/** Removes a user of the merchant and what only its sign-in used (recovery codes, the last TOTP step). */
export async function deleteUser(q: Queryable, merchantId: string, id: string): Promise<boolean> {
  const { rows } = await q.query<{ id: string }>('DELETE FROM users WHERE id = $2 AND merchant_id = $1 RETURNING id', [merchantId, id]);
  if (rows.length === 0) return false;
  await q.query(`DELETE FROM recovery_codes WHERE surface = 'cabinet' AND account_id = $1`, [id]);
  await q.query(`DELETE FROM totp_steps WHERE surface = 'cabinet' AND account_id = $1`, [id]);
  return true;
}

export interface InvitationRow {
  token_hash: string;
  merchant_id: string;
  email: string;
  role: UserRole;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  user_id: string | null;
  /** The mail that carries the link (null for invitations made before mail). */
  mail_id: string | null;
}

/** An open invitation with where its mail stands: null when it was never mailed. */
export interface InvitationLineRow extends InvitationRow {
  mail_status: 'queued' | 'sent' | 'failed' | 'kept' | null;
  mail_attempts: number | null;
}

export async function insertInvitation(
  q: Queryable,
  i: { tokenHash: string; merchantId: string; email: string; role: UserRole; invitedBy: string; at: Date; expiresAt: Date; mailId?: string | null },
): Promise<InvitationRow> {
  const { rows } = await q.query<InvitationRow>(
    `INSERT INTO user_invitations (token_hash, merchant_id, email, role, invited_by, created_at, expires_at, mail_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [i.tokenHash, i.merchantId, i.email, i.role, i.invitedBy, i.at, i.expiresAt, i.mailId ?? null],
  );
  return rows[0]!;
}

/** An invitation that can still be used at `now`, or null. */
export async function findOpenInvitation(q: Queryable, tokenHash: string, now: Date): Promise<InvitationRow | null> {
  const { rows } = await q.query<InvitationRow>('SELECT * FROM user_invitations WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, now]);
  return rows[0] ?? null;
}

/**
 * Uses the invitation for the user `userId`: only while unused and not lapsed, so of two
 * acceptances at once one gets the row and the other null.
 */
export async function useInvitation(q: Queryable, tokenHash: string, userId: string, now: Date): Promise<InvitationRow | null> {
  const { rows } = await q.query<InvitationRow>(
    `UPDATE user_invitations SET used_at = $3, user_id = $2
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $3 RETURNING *`,
    [tokenHash, userId, now],
  );
  return rows[0] ?? null;
}

/** Invitations of the merchant not yet used nor lapsed, newest first, each with where its mail stands. */
export async function listOpenInvitations(q: Queryable, merchantId: string, now: Date): Promise<InvitationLineRow[]> {
  const { rows } = await q.query<InvitationLineRow>(
    `SELECT i.*, m.status AS mail_status, m.attempts AS mail_attempts
       FROM user_invitations i LEFT JOIN mail_outbox m ON m.id = i.mail_id
      WHERE i.merchant_id = $1 AND i.used_at IS NULL AND i.expires_at > $2 ORDER BY i.created_at DESC LIMIT 100`,
    [merchantId, now],
  );
  return rows;
}
