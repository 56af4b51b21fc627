import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerMessageJanitor, PROVIDER_MESSAGE_RETENTION_MS } from '../../src/workers/index.js';
import { recordProviderMessage } from '../../src/store/providerMessages.js';
import { createHarness, type Harness } from '../helpers/harness.js';

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
