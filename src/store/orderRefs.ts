import type { Queryable } from './db.js';

export interface OrderRefRow {
  desk_id: string;
  order_ref: string;
  order_id: string;
  amount: string;
  currency: string;
  created_at: Date;
}

/** Takes the reference for a new order if nobody holds it; returns false when it is already held. */
export async function claimRef(q: Queryable, r: { deskId: string; ref: string; orderId: string; amount: string; currency: string; at: Date }): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO order_refs (desk_id, order_ref, order_id, amount, currency, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (desk_id, order_ref) DO NOTHING RETURNING 1`,
    [r.deskId, r.ref, r.orderId, r.amount, r.currency, r.at],
  );
  return rows.length === 1;
}

export async function lockRef(q: Queryable, deskId: string, ref: string): Promise<OrderRefRow | null> {
  const { rows } = await q.query<OrderRefRow>('SELECT * FROM order_refs WHERE desk_id = $1 AND order_ref = $2 FOR UPDATE', [deskId, ref]);
  return rows[0] ?? null;
}

/** Points the reference at a new order, starting a new idempotency hour. */
export async function reassignRef(q: Queryable, r: { deskId: string; ref: string; orderId: string; amount: string; currency: string; at: Date }): Promise<void> {
  await q.query(
    `UPDATE order_refs SET order_id = $3, amount = $4, currency = $5, created_at = $6 WHERE desk_id = $1 AND order_ref = $2`,
    [r.deskId, r.ref, r.orderId, r.amount, r.currency, r.at],
  );
}
