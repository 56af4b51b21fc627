import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoSeconds } from '../domain/time.js';
import { insertAuditEntry, listAuditEntries, type AuditRow } from '../store/audit.js';
import type { Db, Queryable } from '../store/db.js';
import { pageOf } from './paging.js';

/** Who acted: an operator's id, or `token` for the operator API's bearer token. */
export type Actor = string;

/** The transaction as a Db: a service's own transactions join it, so the action and its entry commit together. */
function joined(db: Db, q: Queryable): Db {
  return {
    kind: db.kind,
    query: (sql, params) => q.query(sql, params),
    exec: (sql) => q.exec(sql),
    tx: (fn) => fn(q),
    listen: (channel, onNotify, onLost) => db.listen(channel, onNotify, onLost),
    close: async () => {},
  };
}

/**
 * Runs one state-changing operator action and records it in the audit trail in the same
 * transaction: the entry exists exactly when the effect does. An action refused with an error code
 * leaves nothing of itself and an entry saying so.
 */
export async function audited<T>(
  ctx: Ctx,
  entry: { actor: Actor; action: string; objectId?: string | null; objectOf?: (result: T) => string | null },
  fn: (ctx: Ctx) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.db.tx(async (q) => {
      const result = await fn({ ...ctx, db: joined(ctx.db, q) });
      const objectId = entry.objectOf ? entry.objectOf(result) : (entry.objectId ?? null);
      await insertAuditEntry(q, { at: new Date(ctx.clock.now()), actor: entry.actor, action: entry.action, objectId, outcome: 'ok', detail: null });
      return result;
    });
  } catch (err) {
    if (err instanceof AppError) {
      await insertAuditEntry(ctx.db, { at: new Date(ctx.clock.now()), actor: entry.actor, action: entry.action, objectId: entry.objectId ?? null, outcome: err.code, detail: err.detail });
    }
    throw err;
  }
}

export const auditView = (a: AuditRow) => ({ id: String(a.id), at: isoSeconds(a.at), actor: a.actor, action: a.action, objectId: a.object_id, outcome: a.outcome, detail: a.detail });

/** `GET /admin/v1/audit`: newest first, paged by `before`, optionally one object's entries. */
export async function listAudit(ctx: Ctx, query: { objectId?: string; before?: string; limit: number }) {
  let beforeId: number | null = null;
  if (query.before !== undefined) {
    if (!/^\d{1,18}$/.test(query.before)) throw new AppError('VALIDATION_ERROR', 'before: must be an audit entry id');
    beforeId = Number(query.before);
  }
  const rows = await listAuditEntries(ctx.db, { objectId: query.objectId ?? null, beforeId, limit: query.limit + 1 });
  return pageOf(rows, query.limit, auditView, (r) => String(r.id));
}
