import type { Queryable } from './db.js';
import type { FeeBand } from '../domain/money.js';

export interface TariffRow {
  id: string;
  name: string;
  bands: FeeBand[];
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
