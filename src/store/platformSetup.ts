import type { Queryable } from './db.js';

/** The reads of the back office's set-up checklist that no other part makes. */

/** Admin operators who may sign in and give two-factor codes. */
export async function adminsWithTwoFactor(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM operators WHERE role = 'admin' AND disabled_at IS NULL AND totp_enabled_at IS NOT NULL`,
  );
  return rows[0]?.n ?? 0;
}
