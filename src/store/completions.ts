/**
 * SQL of completing many orders at once (the matcher confirming the orders a batch of credits
 * pays). The transition of one order stays in orders.ts; these are the same changes as set-based
 * statements, one for the whole batch.
 */
import type { FeeBand } from '../domain/money.js';
import type { OrderStatus } from '../domain/orders.js';
import type { Queryable } from './db.js';
import type { OrderRow } from './orders.js';

/** What completion needs of each desk, in one read: its tariff's fee bands (none without a tariff), and whether it is a test desk. */
export async function completingDesks(q: Queryable, deskIds: readonly string[]): Promise<Map<string, { bands: FeeBand[]; sandbox: boolean }>> {
  if (deskIds.length === 0) return new Map();
  const { rows } = await q.query<{ id: string; bands: FeeBand[] | null; sandbox: boolean }>(
    'SELECT d.id, t.bands, d.sandbox FROM desks d LEFT JOIN tariffs t ON t.id = d.tariff_id WHERE d.id = ANY($1::text[])',
    [deskIds],
  );
  return new Map(rows.map((r) => [r.id, { bands: r.bands ?? [], sandbox: r.sandbox }]));
}

export interface Completion {
  id: string;
  /** The status the order is in now; it completes only from that one. */
  from: OrderStatus;
  commissionRate: string;
  commissionAmount: string;
  creditedAmount: string;
  /** What the order was paid (2 places): its amount, or the money a person matched to it. */
  paidAmount: string;
  /** Its settlement in USD (8 places): as at creation, or of `paidAmount` at the order's rate. */
  settledAmount: string;
}

/**
 * Completes the orders, each only from the status given and only when placed (as `transitionOrder`
 * does for one), in one statement; answers the orders that changed, as they now stand. The status
 * history records each transition (the orders' statement trigger).
 */
export async function completeOrders(q: Queryable, cs: readonly Completion[], at: Date): Promise<OrderRow[]> {
  if (cs.length === 0) return [];
  const { rows } = await q.query<OrderRow>(
    // The changes as arrays, unnested: the planner walks them and finds each order by its key (a
    // JSON record set it joins the other way round, reading the whole set again for every order).
    `UPDATE orders o SET status = 'Completed', sub_status = 'SuccessfullyPaid', finished_at = $6,
            commission_rate = i.commission_rate, commission_amount = i.commission_amount, credited_amount = i.credited_amount, updated_at = $6,
            paid_amount = i.paid_amount, settled_amount = i.settled_amount
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $7::numeric[], $8::numeric[])
            AS i(id, from_status, commission_rate, commission_amount, credited_amount, paid_amount, settled_amount)
      WHERE o.id = i.id AND o.status = i.from_status AND o.placement = 'placed'
      RETURNING o.*`,
    [cs.map((c) => c.id), cs.map((c) => c.from), cs.map((c) => c.commissionRate), cs.map((c) => c.commissionAmount), cs.map((c) => c.creditedAmount), at,
      cs.map((c) => c.paidAmount), cs.map((c) => c.settledAmount)],
  );
  return rows;
}
