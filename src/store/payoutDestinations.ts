import type { DestinationFields } from '../domain/payouts.js';
import type { Queryable } from './db.js';

/** Where a merchant's withdrawals may be paid to (migration 0027): saved by an owner, removed from the list but never deleted. */

export interface DestinationRow extends DestinationFields {
  id: string;
  merchant_id: string;
  created_by: string;
  created_at: Date;
  removed_at: Date | null;
}

export async function insertDestination(q: Queryable, d: DestinationFields & { id: string; merchantId: string; createdBy: string; at: Date }): Promise<DestinationRow> {
  const { rows } = await q.query<DestinationRow>(
    `INSERT INTO payout_destinations (id, merchant_id, kind, label, address, iban, account, holder, bank, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [d.id, d.merchantId, d.kind, d.label, d.address, d.iban, d.account, d.holder, d.bank, d.createdBy, d.at],
  );
  return rows[0]!;
}

/** The merchant's destinations still in use, newest first. */
export async function listDestinations(q: Queryable, merchantId: string): Promise<DestinationRow[]> {
  const { rows } = await q.query<DestinationRow>(
    'SELECT * FROM payout_destinations WHERE merchant_id = $1 AND removed_at IS NULL ORDER BY created_at DESC, id DESC',
    [merchantId],
  );
  return rows;
}

/** A destination still in use, of that merchant only; null for a removed one, another merchant's or an unknown id. */
export async function getActiveDestination(q: Queryable, merchantId: string, id: string): Promise<DestinationRow | null> {
  const { rows } = await q.query<DestinationRow>('SELECT * FROM payout_destinations WHERE id = $1 AND merchant_id = $2 AND removed_at IS NULL', [id, merchantId]);
  return rows[0] ?? null;
}

/** Takes a destination of the merchant off its list: null when it is not there (removed already, another merchant's, unknown). */
export async function removeDestination(q: Queryable, merchantId: string, id: string, at: Date): Promise<DestinationRow | null> {
  const { rows } = await q.query<DestinationRow>(
    'UPDATE payout_destinations SET removed_at = $3 WHERE id = $2 AND merchant_id = $1 AND removed_at IS NULL RETURNING *',
    [merchantId, id, at],
  );
  return rows[0] ?? null;
}
