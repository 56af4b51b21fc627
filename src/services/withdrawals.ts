import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt8 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { withdraw } from '../store/ledger.js';

/**
 * A withdrawal an operator records directly (one paid outside a withdrawal request): the balance
 * shrinks by the amount in the same transaction as its ledger entry, never below what open
 * withdrawal requests hold, even when several are recorded or requested at once.
 */
export async function recordWithdrawal(ctx: Ctx, merchantId: string, input: { amountUsd: string; reference: string }) {
  if (dec(input.amountUsd).lte(0)) throw new AppError('VALIDATION_ERROR', 'amountUsd: must be greater than zero');
  const at = new Date(ctx.clock.now());
  const w = { id: newId('wdr'), merchantId, amount: fmt8(input.amountUsd), reference: input.reference, at };
  const outcome = await ctx.db.tx((q) => withdraw(q, w));
  if (outcome === 'no-merchant') throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${merchantId}`);
  if (outcome === 'insufficient') throw new AppError('INSUFFICIENT_BALANCE', `the available balance does not cover ${w.amount} USD`);
  return { id: w.id, merchantId, amountUsd: w.amount, reference: w.reference, createdAt: isoSeconds(at) };
}
