import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { checkDestination, type DestinationInput } from '../domain/payouts.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import type { UserRow } from '../store/accounts.js';
import { insertAuditEntry } from '../store/audit.js';
import { insertDestination, listDestinations, removeDestination, type DestinationRow } from '../store/payoutDestinations.js';

/**
 * Payout destinations (web spec, "Withdrawal requests"): where an owner's withdrawal requests may
 * be paid to. Each is checked once, when saved (USDT addresses by their checksum, IBANs by their
 * check digits), and never edited: a wrong one is removed and saved anew, so a request always goes
 * where it said when it was made.
 */

/** At most this many destinations in use per merchant (decision P472). */
export const DESTINATIONS_MAX = 20;

export function destinationView(d: Pick<DestinationRow, 'id' | 'kind' | 'label' | 'address' | 'iban' | 'account' | 'holder' | 'bank' | 'created_at'>) {
  return {
    id: d.id,
    kind: d.kind,
    label: d.label,
    address: d.address,
    iban: d.iban,
    account: d.account,
    holder: d.holder,
    bank: d.bank,
    createdAt: isoSeconds(d.created_at),
  };
}
export type DestinationView = ReturnType<typeof destinationView>;

/** Withdrawals and their destinations are an owner's (web spec): anyone else is refused, whatever the surface. */
export function mustOwnMoney(actor: Pick<UserRow, 'role'>): void {
  if (actor.role !== 'owner') throw new AppError('FORBIDDEN', 'only an owner asks for withdrawals and manages where they are paid');
}

/** The merchant's destinations in use, newest first. */
export async function merchantDestinations(ctx: Ctx, merchantId: string): Promise<DestinationView[]> {
  return (await listDestinations(ctx.db, merchantId)).map(destinationView);
}

/**
 * An owner saves a destination: VALIDATION_ERROR names the field at fault (a bad checksum, a field
 * the kind does not take, too many destinations); the save is in the audit trail with the owner.
 */
export async function addDestination(ctx: Ctx, actor: UserRow, input: DestinationInput): Promise<DestinationView> {
  mustOwnMoney(actor);
  const checked = checkDestination(input);
  if (!checked.ok) throw new AppError(checked.refusal.code, checked.refusal.detail);
  const at = new Date(ctx.clock.now());
  return ctx.db.tx(async (q) => {
    // Counted under the merchant's lock: two saves at once cannot both pass the count.
    await q.query('SELECT id FROM merchants WHERE id = $1 FOR NO KEY UPDATE', [actor.merchant_id]);
    if ((await listDestinations(q, actor.merchant_id)).length >= DESTINATIONS_MAX) {
      throw new AppError('VALIDATION_ERROR', `kind: at most ${DESTINATIONS_MAX} destinations; remove one you no longer use first`);
    }
    const row = await insertDestination(q, { ...checked.value, id: newId('dst'), merchantId: actor.merchant_id, createdBy: actor.id, at });
    await insertAuditEntry(q, { at, actor: actor.id, action: 'destination.add', objectId: row.id, outcome: 'ok', detail: `${row.kind} ${row.label}` });
    return destinationView(row);
  });
}

/** An owner removes a destination from the list; requests made to it keep it. Another merchant's or an unknown one is not found. */
export async function dropDestination(ctx: Ctx, actor: UserRow, id: string): Promise<void> {
  mustOwnMoney(actor);
  const at = new Date(ctx.clock.now());
  await ctx.db.tx(async (q) => {
    const row = await removeDestination(q, actor.merchant_id, id, at);
    if (!row) throw new AppError('DESTINATION_NOT_FOUND', `no payout destination ${id}`);
    await insertAuditEntry(q, { at, actor: actor.id, action: 'destination.remove', objectId: row.id, outcome: 'ok', detail: null });
  });
}
