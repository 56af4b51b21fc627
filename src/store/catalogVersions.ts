import type { Queryable } from './db.js';

/** The catalogue versions (migration 0006): bumped in the same transaction as any change. */
export interface CatalogVersions {
  providers: number;
  currencies: number;
  /** The turnover caps (migration 0008). */
  limits: number;
}

/** Every catalogue's version as one JSON object (jsonb, so it compares by value). */
export const CATALOG_VERSIONS_VALUE = `(SELECT jsonb_object_agg(name, version) FROM catalog_versions)`;
/** The same as a `catalog_versions` column, for a statement's select list. */
export const CATALOG_VERSIONS_SQL = `${CATALOG_VERSIONS_VALUE} AS catalog_versions`;

export async function readCatalogVersions(q: Queryable): Promise<CatalogVersions> {
  const { rows } = await q.query<{ catalog_versions: CatalogVersions }>(`SELECT ${CATALOG_VERSIONS_SQL}`);
  return rows[0]!.catalog_versions;
}

/**
 * A catalogue kept in memory per database: `at(db, version)` answers the kept value when it was
 * read at the version a request's authentication statement saw, and reads it afresh otherwise (or
 * when no version is given). A fresh read takes the version first, so a value is never kept under a
 * version newer than it is: a change in between only costs one more read on the next request.
 */
export function keptCatalog<T>(name: keyof CatalogVersions, load: (q: Queryable) => Promise<T>) {
  const kept = new WeakMap<Queryable, { version: number; value: T }>();
  return async function at(db: Queryable, atVersion: number | undefined): Promise<T> {
    const k = kept.get(db);
    if (k && atVersion !== undefined && k.version === atVersion) return k.value;
    const version = (await readCatalogVersions(db))[name];
    const value = await load(db);
    kept.set(db, { version, value });
    return value;
  };
}
