import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolDeclineJanitor, POOL_DECLINE_RETENTION_MS, providerMessageJanitor, PROVIDER_MESSAGE_RETENTION_MS } from '../../src/workers/index.js';
import { countDeclinesSince, insertDecline } from '../../src/store/requisites.js';
import { recordProviderMessage } from '../../src/store/providerMessages.js';
import { admin, createHarness, json, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('provider message janitor', () => {
  it('forgets message ids only after 30 days, so a re-signed retry within that time is still recognised', async () => {
    const at = (ms: number) => new Date(ms);
    const t0 = h.clock.now();
    expect(await recordProviderMessage(h.ctx.db, 'prv_a', 'msg_old', at(t0))).toBe(true);
    h.clock.advance(PROVIDER_MESSAGE_RETENTION_MS - 1000);
    expect(await recordProviderMessage(h.ctx.db, 'prv_a', 'msg_new', at(h.clock.now()))).toBe(true);
    const janitor = providerMessageJanitor(h.ctx);
    expect(await janitor.runOnce()).toBe(0);
    expect(await recordProviderMessage(h.ctx.db, 'prv_a', 'msg_old', at(h.clock.now()))).toBe(false);
    h.clock.advance(2000);
    expect(await janitor.runOnce()).toBe(1);
    expect(await recordProviderMessage(h.ctx.db, 'prv_a', 'msg_new', at(h.clock.now()))).toBe(false);
    expect(PROVIDER_MESSAGE_RETENTION_MS).toBe(30 * 86_400_000);
  });
});

describe('pool decline janitor', () => {
  it('forgets a pool\'s declines after 30 days, keeping the newer ones', async () => {
    const pool = json(
      await admin(h.app, 'POST', '/providers', { name: 'Declining pool', kind: 'pool', capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB' }], requisites: [] }),
    ).result.id as string;
    const decline = (orderId: string) =>
      insertDecline(h.ctx.db, { providerId: pool, orderId, amount: '918.00', currency: 'RUB', rail: 'C2c', reason: 'every requisite is busy with this amount', at: new Date(h.clock.now()) });
    const since = new Date(h.clock.now() - 1);
    await decline('ord_old');
    h.clock.advance(POOL_DECLINE_RETENTION_MS - 1000);
    await decline('ord_new');
    const janitor = poolDeclineJanitor(h.ctx);
    expect(await janitor.runOnce()).toBe(0);
    expect(await countDeclinesSince(h.ctx.db, pool, since)).toBe(2);
    h.clock.advance(2000);
    expect(await janitor.runOnce()).toBe(1);
    expect(await countDeclinesSince(h.ctx.db, pool, since)).toBe(1);
    expect(POOL_DECLINE_RETENTION_MS).toBe(30 * 86_400_000);
  });
});
