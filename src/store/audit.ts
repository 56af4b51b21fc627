import type { Queryable } from './db.js';
import { query, raw, sql } from './sql.js';

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

/** Many entries in one statement, in the order given. */
export async function insertAuditEntries(q: Queryable, es: readonly { at: Date; actor: string; action: string; objectId: string | null; outcome: string; detail: string | null }[]): Promise<void> {
  if (es.length === 0) return;
  await q.query(
    `INSERT INTO audit_entries (at, actor, action, object_id, outcome, detail)
     SELECT e.at, e.actor, e.action, e.object_id, e.outcome, e.detail
       FROM jsonb_to_recordset($1::jsonb) AS e(n int, at timestamptz, actor text, action text, object_id text, outcome text, detail text) ORDER BY e.n`,
    [JSON.stringify(es.map((e, n) => ({ n, at: e.at.toISOString(), actor: e.actor, action: e.action, object_id: e.objectId, outcome: e.outcome, detail: e.detail })))],
  );
}

/**
 * Newest first, keyset-paged back from the `before` entry id. The statement names only the filters
 * given, so each shape gets the plan of its own (by the key alone, or by object_id's index).
 */
export async function listAuditEntries(q: Queryable, f: { objectId: string | null; beforeId: number | null; limit: number }): Promise<AuditRow[]> {
  const conditions = [f.objectId === null ? null : sql`object_id = ${f.objectId}`, f.beforeId === null ? null : sql`id < ${f.beforeId}`].filter((c) => c !== null);
  const where = conditions.length ? sql` WHERE ${conditions.reduce((all, c) => sql`${all} AND ${c}`)}` : raw('');
  const { rows } = await query<AuditRow>(q, sql`SELECT * FROM audit_entries${where} ORDER BY id DESC LIMIT ${f.limit}`);
  return rows;
}
