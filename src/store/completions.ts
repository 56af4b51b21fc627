/**
 * SQL of completing many orders at once (the matcher confirming the orders a batch of credits
 * pays). The transition of one order stays in orders.ts; these are the same changes as set-based
 * statements, one for the whole batch.
 */
import type { FeeBand } from '../domain/money.js';
import type { OrderStatus } from '../domain/orders.js';
import type { Queryable } from './db.js';
import type { OrderRow } from './orders.js';

/** The fee bands of each desk's tariff (none for a desk without a tariff), in one read. */
export async function deskTariffBands(q: Queryable, deskIds: readonly string[]): Promise<Map<string, FeeBand[]>> {
  if (deskIds.length === 0) return new Map();
  const { rows } = await q.query<{ id: string; bands: FeeBand[] | null }>(
    'SELECT d.id, t.bands FROM desks d LEFT JOIN tariffs t ON t.id = d.tariff_id WHERE d.id = ANY($1::text[])',
    [deskIds],
  );
  return new Map(rows.map((r) => [r.id, r.bands ?? []]));
}

export interface Completion {
  id: string;
  /** The status the order is in now; it completes only from that one. */
  from: OrderStatus;
  commissionRate: string;
  commissionAmount: string;
  creditedAmount: string;
}

/**
 * Completes the orders, each only from the status given and only when placed (as `transitionOrder`
 * does for one), in one statement; answers the orders that changed, as they now stand. The status
 * history records each transition (its trigger fires per row).
 */
export async function completeOrders(q: Queryable, cs: readonly Completion[], at: Date): Promise<OrderRow[]> {
  if (cs.length === 0) return [];
  const { rows } = await q.query<OrderRow>(
    `UPDATE orders o SET status = 'Completed', sub_status = 'SuccessfullyPaid', finished_at = $2,
            commission_rate = i.commission_rate, commission_amount = i.commission_amount, credited_amount = i.credited_amount, updated_at = $2
       FROM jsonb_to_recordset($1::jsonb) AS i(id text, from_status text, commission_rate numeric, commission_amount numeric, credited_amount numeric)
      WHERE o.id = i.id AND o.id = ANY($3::text[]) AND o.status = i.from_status AND o.placement = 'placed'
      RETURNING o.*`,
    // The ids again as an array: the planner then finds the orders by their key instead of hashing a scan of every order.
    [
      JSON.stringify(cs.map((c) => ({ id: c.id, from_status: c.from, commission_rate: c.commissionRate, commission_amount: c.commissionAmount, credited_amount: c.creditedAmount }))),
      at,
      cs.map((c) => c.id),
    ],
  );
  return rows;
}
