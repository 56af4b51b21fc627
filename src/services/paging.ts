/** Lists page like the events feed: `{items, hasMore, next}`, where `next` is passed back as the cursor. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
  next: string | null;
}

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/** `rows` were fetched with `limit + 1`: the extra row only says there is more. */
export function pageOf<R, T>(rows: R[], limit: number, view: (r: R) => T, idOf: (r: R) => string): Page<T> {
  const kept = rows.slice(0, limit);
  return { items: kept.map(view), hasMore: rows.length > limit, next: rows.length > limit && kept.length ? idOf(kept[kept.length - 1]) : null };
}
