import type { AppealStatus } from '../domain/appealGuard.js';
import type { Queryable } from './db.js';
import { query, raw, sql } from './sql.js';

export interface AppealRow {
  id: string;
  order_id: string;
  desk_id: string;
  merchant_id: string;
  provider_id: string | null;
  status: AppealStatus;
  amount: string;
  reason: string | null;
  evidence_url: string | null;
  comment: string | null;
  sla_due_at: Date;
  created_at: Date;
  resolved_at: Date | null;
  /** The order's reference, joined in: the appeal view carries it. */
  order_ref: string | null;
}

/** An appeal with the order it concerns, as the operator's review list shows it. */
export interface ReviewRow extends AppealRow {
  order_status: string;
  order_amount: string;
  order_currency: string;
  order_rate: string;
  order_settled_amount: string;
}

export interface NewAppeal {
  id: string;
  orderId: string;
  deskId: string;
  merchantId: string;
  providerId: string | null;
  amount: string;
  reason: string | null;
  evidenceUrl: string | null;
  slaDueAt: Date;
  at: Date;
}

const WITH_REF = `SELECT a.*, o.order_ref FROM appeals a JOIN orders o ON o.id = a.order_id`;

/**
 * A new Open appeal. The partial unique index appeals_one_open allows one open appeal per order;
 * a conflicting insert does nothing and returns null, so the caller can hand back the existing one.
 */
export async function insertOpenAppeal(q: Queryable, a: NewAppeal): Promise<AppealRow | null> {
  const { rows } = await q.query<AppealRow>(
    `WITH ins AS (
       INSERT INTO appeals (id, order_id, desk_id, merchant_id, provider_id, status, amount, reason, evidence_url, sla_due_at, created_at)
       VALUES ($1, $2, $3, $4, $5, 'Open', $6, $7, $8, $9, $10)
       ON CONFLICT (order_id) WHERE status = 'Open' DO NOTHING
       RETURNING *)
     SELECT ins.*, o.order_ref FROM ins JOIN orders o ON o.id = ins.order_id`,
    [a.id, a.orderId, a.deskId, a.merchantId, a.providerId, a.amount, a.reason, a.evidenceUrl, a.slaDueAt, a.at],
  );
  return rows[0] ?? null;
}

export async function getAppeal(q: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<AppealRow | null> {
  const { rows } = await q.query<AppealRow>(`${WITH_REF} WHERE a.id = $1${opts.forUpdate ? ' FOR UPDATE OF a' : ''}`, [id]);
  return rows[0] ?? null;
}

/** An appeal as one cash desk may see it: another desk's appeal does not exist for it (D4). */
export async function getDeskAppeal(q: Queryable, deskId: string, id: string): Promise<AppealRow | null> {
  const { rows } = await q.query<AppealRow>(`${WITH_REF} WHERE a.id = $1 AND a.desk_id = $2`, [id, deskId]);
  return rows[0] ?? null;
}

export async function getOpenAppealForOrder(q: Queryable, orderId: string): Promise<AppealRow | null> {
  const { rows } = await q.query<AppealRow>(`${WITH_REF} WHERE a.order_id = $1 AND a.status = 'Open'`, [orderId]);
  return rows[0] ?? null;
}

/** Open → Accepted or Rejected; applied only while the appeal is still open. */
export async function resolveAppeal(q: Queryable, id: string, status: 'Accepted' | 'Rejected', comment: string | null, at: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE appeals SET status = $2, comment = $3, resolved_at = $4 WHERE id = $1 AND status = 'Open'`,
    [id, status, comment, at],
  );
  return rowCount === 1;
}

/** A payment confirmed while the appeal is open accepts it by itself (the comment is kept if none is given). */
export async function acceptOpenAppealOfOrder(q: Queryable, orderId: string, comment: string | null, at: Date): Promise<void> {
  await q.query(`UPDATE appeals SET status = 'Accepted', comment = COALESCE($2, comment), resolved_at = $3 WHERE order_id = $1 AND status = 'Open'`, [
    orderId,
    comment,
    at,
  ]);
}

/**
 * Locks the provider row and reads its appeal flag. Every change to a provider's open appeals takes
 * this lock before counting, so two transactions never count the same set and both decide.
 */
export async function lockProviderAppealFlag(q: Queryable, providerId: string): Promise<boolean | null> {
  const { rows } = await q.query<{ paused_appeals: boolean }>('SELECT paused_appeals FROM providers WHERE id = $1 FOR UPDATE', [providerId]);
  return rows[0]?.paused_appeals ?? null;
}

export async function countOpenAppeals(q: Queryable, providerId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM appeals WHERE provider_id = $1 AND status = 'Open'`, [providerId]);
  return rows[0].n;
}

export async function setPausedAppeals(q: Queryable, providerId: string, paused: boolean): Promise<void> {
  await q.query('UPDATE providers SET paused_appeals = $2 WHERE id = $1', [providerId, paused]);
}

const REVIEW_SELECT = `SELECT a.*, o.order_ref, o.status AS order_status, o.amount AS order_amount, o.currency AS order_currency,
            o.rate AS order_rate, o.settled_amount AS order_settled_amount
     FROM appeals a JOIN orders o ON o.id = a.order_id`;

export interface AppealListFilter {
  status: AppealStatus | null;
  merchantId?: string;
  /**
   * The queue order: open appeals by decision target, most urgent first, paged forward from the
   * `after` appeal; otherwise newest first, paged back from the `before` appeal.
   */
  bySla: boolean;
  cursorId?: string;
  limit: number;
}

/**
 * A page of appeals with their orders, keyset-paged from a cursor appeal (same position rules as
 * the order). The statement names only the filters given, so each shape is planned on its own: the
 * open queue by its SLA index, a merchant's appeals by theirs, a status by appeals_status_created.
 */
export async function listReviewAppeals(q: Queryable, f: AppealListFilter): Promise<ReviewRow[]> {
  const order = f.bySla ? raw('a.sla_due_at, a.id') : raw('a.created_at DESC, a.id DESC');
  const conditions = [
    f.status === null ? null : sql`a.status = ${f.status}`,
    f.merchantId === undefined ? null : sql`a.merchant_id = ${f.merchantId}`,
    f.cursorId === undefined
      ? null
      : f.bySla
        ? sql`(a.sla_due_at, a.id) > (SELECT c.sla_due_at, c.id FROM appeals c WHERE c.id = ${f.cursorId})`
        : sql`(a.created_at, a.id) < (SELECT c.created_at, c.id FROM appeals c WHERE c.id = ${f.cursorId})`,
  ].filter((c) => c !== null);
  const where = conditions.length ? sql` WHERE ${conditions.reduce((all, c) => sql`${all} AND ${c}`)}` : raw('');
  const { rows } = await query<ReviewRow>(q, sql`${raw(REVIEW_SELECT)}${where} ORDER BY ${order} LIMIT ${f.limit}`);
  return rows;
}

export async function getReviewAppeal(q: Queryable, id: string, merchantId: string | null = null): Promise<ReviewRow | null> {
  const { rows } = await q.query<ReviewRow>(`${REVIEW_SELECT} WHERE a.id = $1 AND ($2::text IS NULL OR a.merchant_id = $2)`, [id, merchantId]);
  return rows[0] ?? null;
}

export async function countOverdueAppeals(q: Queryable, now: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM appeals WHERE status = 'Open' AND sla_due_at < $1`, [now]);
  return rows[0].n;
}

/** Open appeals per provider, for the providers list. */
export async function openAppealCountsByProvider(q: Queryable): Promise<Map<string, number>> {
  const { rows } = await q.query<{ provider_id: string; n: number }>(
    `SELECT provider_id, count(*)::int AS n FROM appeals WHERE status = 'Open' AND provider_id IS NOT NULL GROUP BY provider_id`,
  );
  return new Map(rows.map((r) => [r.provider_id, r.n]));
}

export interface ReceiptMeta {
  appeal_id: string;
  content_type: string;
  file_name: string | null;
  size_bytes: number;
  sha256: string;
  created_at: Date;
}

export interface ReceiptRow extends ReceiptMeta {
  content: Buffer;
}

export interface NewReceipt {
  appealId: string;
  contentType: string;
  fileName: string | null;
  sha256: string;
  content: Buffer;
  at: Date;
}

/** The appeal's receipt; an appeal keeps the first one it was given (a repeat upload does nothing). */
export async function insertAppealReceipt(q: Queryable, r: NewReceipt): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO appeal_receipts (appeal_id, content_type, file_name, size_bytes, sha256, content, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (appeal_id) DO NOTHING`,
    [r.appealId, r.contentType, r.fileName, r.content.length, r.sha256, r.content, r.at],
  );
  return rowCount === 1;
}

/** The receipt's description without its bytes, for pages that link to it. */
export async function getReceiptMeta(q: Queryable, appealId: string): Promise<ReceiptMeta | null> {
  const { rows } = await q.query<ReceiptMeta>(
    'SELECT appeal_id, content_type, file_name, size_bytes, sha256, created_at FROM appeal_receipts WHERE appeal_id = $1',
    [appealId],
  );
  return rows[0] ?? null;
}

/** The receipt with its bytes, only when the appeal is the merchant's (any merchant's when null, for operators). */
export async function getReceipt(q: Queryable, appealId: string, merchantId: string | null): Promise<ReceiptRow | null> {
  const { rows } = await q.query<ReceiptRow>(
    `SELECT r.* FROM appeal_receipts r JOIN appeals a ON a.id = r.appeal_id
     WHERE r.appeal_id = $1 AND ($2::text IS NULL OR a.merchant_id = $2)`,
    [appealId, merchantId],
  );
  const row = rows[0];
  // PGlite hands bytea back as a Uint8Array, pg as a Buffer.
  return row ? { ...row, content: Buffer.from(row.content) } : null;
}

/** Every appeal of one order, newest first (an order can be appealed again after a rejection). */
export async function listOrderAppeals(q: Queryable, orderId: string): Promise<AppealRow[]> {
  const { rows } = await q.query<AppealRow>(`${WITH_REF} WHERE a.order_id = $1 ORDER BY a.created_at DESC, a.id DESC`, [orderId]);
  return rows;
}
