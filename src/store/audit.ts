import type { Queryable } from './db.js';

export interface AuditRow {
  id: number;
  at: Date;
  actor: string;
  action: string;
  object_id: string | null;
  outcome: string;
  detail: string | null;
}

export async function insertAuditEntry(q: Queryable, e: { at: Date; actor: string; action: string; objectId: string | null; outcome: string; detail: string | null }): Promise<void> {
  await q.query('INSERT INTO audit_entries (at, actor, action, object_id, outcome, detail) VALUES ($1, $2, $3, $4, $5, $6)', [
    e.at, e.actor, e.action, e.objectId, e.outcome, e.detail,
  ]);
}

/** Newest first, keyset-paged back from the `before` entry id. */
export async function listAuditEntries(q: Queryable, f: { objectId: string | null; beforeId: number | null; limit: number }): Promise<AuditRow[]> {
  const { rows } = await q.query<AuditRow>(
    `SELECT * FROM audit_entries WHERE ($1::text IS NULL OR object_id = $1) AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [f.objectId, f.beforeId, f.limit],
  );
  return rows;
}
