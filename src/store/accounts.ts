import type { Queryable } from './db.js';

export interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

export interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  role: 'admin' | 'support';
  created_at: Date;
}

/** The new user, or null when the email is taken (emails are unique whatever their case). */
export async function insertUser(q: Queryable, u: { id: string; merchantId: string; email: string; passwordHash: string; at: Date }): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO users (id, merchant_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [u.id, u.merchantId, u.email, u.passwordHash, u.at],
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

export async function findOperatorByEmail(q: Queryable, email: string): Promise<OperatorRow | null> {
  const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

