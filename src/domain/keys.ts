/**
 * Two ids (ASCII) in key order, as the database sorts them when rows are locked `ORDER BY id`: the
 * order in which code that takes several locks takes them, so two transactions never wait for each
 * other in a circle.
 */
export const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
