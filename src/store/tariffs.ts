import type { Queryable } from './db.js';
import type { FeeBand } from '../domain/money.js';

export interface TariffRow {
  id: string;
  name: string;
  bands: FeeBand[];
  is_default: boolean;
  created_at: Date;
}

export async function insertTariff(q: Queryable, t: { id: string; name: string; bands: FeeBand[]; at: Date }): Promise<TariffRow> {
  const { rows } = await q.query<TariffRow>('INSERT INTO tariffs (id, name, bands, created_at) VALUES ($1, $2, $3, $4) RETURNING *', [
    t.id,
    t.name,
    JSON.stringify(t.bands),
    t.at,
  ]);
  return rows[0];
}

export async function getTariff(q: Queryable, id: string): Promise<TariffRow | null> {
  const { rows } = await q.query<TariffRow>('SELECT * FROM tariffs WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Newest first, keyset-paged back from the `before` tariff. */
export async function listTariffs(q: Queryable, f: { beforeId?: string; limit: number }): Promise<TariffRow[]> {
  const { rows } = await q.query<TariffRow>(
    `SELECT t.* FROM tariffs t LEFT JOIN tariffs c ON c.id = $1
      WHERE $1::text IS NULL OR (t.created_at, t.id) < (c.created_at, c.id)
      ORDER BY t.created_at DESC, t.id DESC LIMIT $2`,
    [f.beforeId ?? null, f.limit],
  );
  return rows;
}

export async function getDefaultTariff(q: Queryable): Promise<TariffRow | null> {
  const { rows } = await q.query<TariffRow>('SELECT * FROM tariffs WHERE is_default');
  return rows[0] ?? null;
}

/** Changes a tariff's name or bands; null when there is no such tariff. */
export async function updateTariff(q: Queryable, id: string, patch: { name?: string; bands?: FeeBand[] }): Promise<TariffRow | null> {
  const { rows } = await q.query<TariffRow>(
    'UPDATE tariffs SET name = COALESCE($2, name), bands = COALESCE($3::jsonb, bands) WHERE id = $1 RETURNING *',
    [id, patch.name ?? null, patch.bands === undefined ? null : JSON.stringify(patch.bands)],
  );
  return rows[0] ?? null;
}

/** Makes this tariff the one default (or no longer the default), in one transaction with the other's demotion. */
export async function setDefaultTariff(q: Queryable, id: string, isDefault: boolean): Promise<void> {
  if (isDefault) await q.query('UPDATE tariffs SET is_default = false WHERE is_default AND id <> $1', [id]);
  await q.query('UPDATE tariffs SET is_default = $2 WHERE id = $1', [id, isDefault]);
}
