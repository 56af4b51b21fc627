import type { Queryable } from './db.js';

/** The catalogue versions (migration 0006): bumped in the same transaction as any change. */
export interface CatalogVersions {
  providers: number;
  currencies: number;
}

export const CATALOG_VERSIONS_SQL = `(SELECT version FROM catalog_versions WHERE name = 'providers') AS v_providers,
            (SELECT version FROM catalog_versions WHERE name = 'currencies') AS v_currencies`;

export async function readCatalogVersions(q: Queryable): Promise<CatalogVersions> {
  const { rows } = await q.query<{ v_providers: number; v_currencies: number }>(`SELECT ${CATALOG_VERSIONS_SQL}`);
  return { providers: rows[0]!.v_providers, currencies: rows[0]!.v_currencies };
}
