import type { Queryable } from './db.js';

export async function readCircuit(q: Queryable, providerId: string, method: string, rail: string | null, opts: { forUpdate?: boolean } = {}): Promise<unknown | null> {
  const { rows } = await q.query<{ state: unknown }>(
    `SELECT state FROM provider_circuits WHERE provider_id = $1 AND method = $2 AND rail = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [providerId, method, rail ?? ''],
  );
  return rows[0]?.state ?? null;
}

export async function writeCircuit(q: Queryable, providerId: string, method: string, rail: string | null, state: unknown, at: Date): Promise<void> {
  await q.query(
    `INSERT INTO provider_circuits (provider_id, method, rail, state, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (provider_id, method, rail) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    [providerId, method, rail ?? '', JSON.stringify(state), at],
  );
}
