import type { Queryable } from './db.js';

export type MerchantStatus = 'UnderReview' | 'Active' | 'Blocked';

export interface MerchantRow {
  id: string;
  name: string;
  status: MerchantStatus;
  status_before_block: MerchantStatus | null;
  block_reason: string | null;
  sandbox: boolean;
  /** Live money: what live orders credited, less reversals and withdrawals. */
  balance: string;
  /** Sandbox money: what simulated payments credited; never withdrawable, never in a live total. */
  sandbox_balance: string;
  created_at: Date;
}

export async function insertMerchant(q: Queryable, m: { id: string; name: string; sandbox: boolean; at: Date }): Promise<MerchantRow> {
  const { rows } = await q.query<MerchantRow>(
    `INSERT INTO merchants (id, name, status, sandbox, created_at) VALUES ($1, $2, 'UnderReview', $3, $4) RETURNING *`,
    [m.id, m.name, m.sandbox, m.at],
  );
  return rows[0];
}

/** `forShare`: held until the transaction ends against a change of its status (an approval), not against other readers. */
export async function getMerchant(q: Queryable, id: string, opts: { forUpdate?: boolean; forShare?: boolean } = {}): Promise<MerchantRow | null> {
  const { rows } = await q.query<MerchantRow>(`SELECT * FROM merchants WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : opts.forShare ? ' FOR SHARE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function setMerchantStatus(q: Queryable, id: string, status: MerchantStatus): Promise<MerchantRow | null> {
  const { rows } = await q.query<MerchantRow>('UPDATE merchants SET status = $2 WHERE id = $1 RETURNING *', [id, status]);
  return rows[0] ?? null;
}

/** Blocks and remembers the status to return to; blocking a blocked merchant keeps the first memory. */
export async function blockMerchant(q: Queryable, id: string, reason: string | null): Promise<MerchantRow | null> {
  const { rows } = await q.query<MerchantRow>(
    `UPDATE merchants SET status_before_block = CASE WHEN status = 'Blocked' THEN status_before_block ELSE status END,
       status = 'Blocked', block_reason = $2 WHERE id = $1 RETURNING *`,
    [id, reason],
  );
  return rows[0] ?? null;
}

export async function unblockMerchant(q: Queryable, id: string): Promise<MerchantRow | null> {
  const { rows } = await q.query<MerchantRow>(
    `UPDATE merchants SET status = COALESCE(status_before_block, 'UnderReview'), status_before_block = NULL, block_reason = NULL
      WHERE id = $1 AND status = 'Blocked' RETURNING *`,
    [id],
  );
  return rows[0] ?? (await getMerchant(q, id));
}

export async function setMerchantSandbox(q: Queryable, id: string, sandbox: boolean): Promise<MerchantRow | null> {
  const { rows } = await q.query<MerchantRow>('UPDATE merchants SET sandbox = $2 WHERE id = $1 RETURNING *', [id, sandbox]);
  return rows[0] ?? null;
}

/** Approval of a blocked account: takes effect when it is unblocked. */
export async function approveAfterUnblock(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE merchants SET status_before_block = 'Active' WHERE id = $1 AND status = 'Blocked'`, [id]);
}

export async function renameMerchant(q: Queryable, id: string, name: string): Promise<void> {
  await q.query('UPDATE merchants SET name = $2 WHERE id = $1', [id, name]);
}

/** Newest first, keyset-paged back from the `before` merchant. */
export async function listMerchants(q: Queryable, f: { status: MerchantStatus | null; beforeId?: string; limit: number }): Promise<MerchantRow[]> {
  const { rows } = await q.query<MerchantRow>(
    `SELECT m.* FROM merchants m LEFT JOIN merchants c ON c.id = $2
      WHERE ($1::text IS NULL OR m.status = $1) AND ($2::text IS NULL OR (m.created_at, m.id) < (c.created_at, c.id))
      ORDER BY m.created_at DESC, m.id DESC LIMIT $3`,
    [f.status, f.beforeId ?? null, f.limit],
  );
  return rows;
}

/** How far a merchant has come with its integration: the first-run checklist of the cabinet. */
export interface MerchantProgress {
  hasDesk: boolean;
  hasOrder: boolean;
  hasDeliveredCallback: boolean;
  hasCompletedSandboxOrder: boolean;
}

export async function merchantProgress(q: Queryable, merchantId: string): Promise<MerchantProgress> {
  // The checklist needs "any", and each answer is one index probe whatever the merchant's size:
  // the newest order by the merchant's time index (a bare EXISTS may be planned as a scan of the
  // table that stops at the first match, which for a merchant whose orders are all recent is nearly
  // every row); delivered callbacks desk by desk, the archive first, where every event was delivered
  // (retention moves old delivered events there), then the hot table.
  const { rows } = await q.query<{ desks: boolean; orders: boolean; delivered: boolean; completed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM desks WHERE merchant_id = $1) AS desks,
            (SELECT true FROM orders WHERE merchant_id = $1 AND placement = 'placed' ORDER BY created_at DESC LIMIT 1) IS NOT NULL AS orders,
            EXISTS (SELECT 1 FROM desks d WHERE d.merchant_id = $1
                       AND (EXISTS (SELECT 1 FROM outbox_events_archive a WHERE a.desk_id = d.id)
                            OR EXISTS (SELECT 1 FROM outbox_events e WHERE e.desk_id = d.id AND e.state = 'delivered'))) AS delivered,
            EXISTS (SELECT 1 FROM orders WHERE merchant_id = $1 AND sandbox AND status = 'Completed') AS completed`,
    [merchantId],
  );
  const r = rows[0]!;
  return { hasDesk: r.desks, hasOrder: r.orders, hasDeliveredCallback: r.delivered, hasCompletedSandboxOrder: r.completed };
}
