import { pausedForAppeals } from '../domain/appealGuard.js';
import { countOpenAppeals, lockProviderAppealFlag, setPausedAppeals } from '../store/appeals.js';
import type { Queryable } from '../store/db.js';

/**
 * Re-applies the appeal guard to the provider that served an order, inside the caller's transaction,
 * after its open appeals changed. The provider row is locked before counting: two transactions
 * changing the same provider's appeals count one after the other, each seeing the other's commit.
 */
export async function applyAppealGuard(q: Queryable, providerId: string | null): Promise<{ openAppeals: number; paused: boolean } | null> {
  if (!providerId) return null;
  const pausedNow = await lockProviderAppealFlag(q, providerId);
  if (pausedNow === null) return null;
  const openAppeals = await countOpenAppeals(q, providerId);
  const paused = pausedForAppeals(pausedNow, openAppeals);
  if (paused !== pausedNow) await setPausedAppeals(q, providerId, paused);
  return { openAppeals, paused };
}

