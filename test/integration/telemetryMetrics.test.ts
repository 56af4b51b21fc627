import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { newProviderMessageId, signProviderRequestHeaders } from '../../src/providers/providerMessages.js';
import { sampleBacklogsOnScrape } from '../../src/services/backlogGauges.js';
import { openPg } from '../../src/store/db.js';
import { serverUrl } from '../helpers/db.js';
import { admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';
import { card, credit, placed, pools, sendCredit, type Pool } from './reconciliation/helpers.js';

/**
 * The operational metrics on the Prometheus endpoint: each appears with the value of what it
 * measures once that has happened, as a scrape reads it (the registry's text).
 */

let h: Harness;
let desk: DeskCreds;
let p: Pool;

beforeAll(async () => {
  h = await createHarness();
  sampleBacklogsOnScrape(h.ctx);
  desk = await provisionDesk(h.app, { merchant: { name: 'Metrics shop', approve: true } });
  p = await pools(h)([{ card: card(1), holder: 'A' }, { card: card(2), holder: 'B' }]);
});
afterAll(() => h.close());

/** One sample of a scrape: the line of `name` whose labels include `labels`; null when there is none. */
async function scraped(registry: { metrics(): Promise<string> }, name: string, labels: Record<string, string> = {}): Promise<number | null> {
  const text = await registry.metrics();
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return null;
}
const scrape = (name: string, labels?: Record<string, string>) => scraped(h.ctx.metrics.registry, name, labels);

describe('provider issue latency', () => {
  it('each provider call of the cascade is observed under the provider and its outcome', async () => {
    expect(await scrape('paygate_provider_issue_duration_seconds_count', { provider: p.id })).toBeNull();
    await placed(h, desk, 1500, { rail: 'C2c' });
    await placed(h, desk, 1600, { rail: 'C2c' });
    expect(await scrape('paygate_provider_issue_duration_seconds_count', { provider: p.id, outcome: 'issued' })).toBe(2);
    const sum = (await scrape('paygate_provider_issue_duration_seconds_sum', { provider: p.id, outcome: 'issued' }))!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);
    // The bucket of the spec's 10 s timeout holds every call.
    expect(await scrape('paygate_provider_issue_duration_seconds_bucket', { provider: p.id, outcome: 'issued', le: '10' })).toBe(2);
  });
});

describe('what waits for people, sampled when scraped', () => {
  const providerPost = (url: string, raw: string) =>
    h.app.inject({ method: 'POST', url, headers: { ...(raw ? { 'content-type': 'application/json' } : {}), ...signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw) }, payload: raw });

  it('unmatched credits and the oldest one\'s age, unread device messages, silent devices forwarding for a requisite', async () => {
    h.clock.advance(60_000);
    expect(await scrape('paygate_unmatched_credits')).toBe(0);
    expect(await scrape('paygate_unmatched_credit_oldest_age_seconds')).toBe(0);
    expect(await scrape('paygate_device_messages_unread')).toBe(0);
    expect(await scrape('paygate_devices_silent')).toBe(0);

    // Money no order asked for; a phone forwarding for a requisite and one forwarding for none; a message no template reads.
    const c = await sendCredit(h, p, credit(h, card(2).replaceAll(' ', ''), '777.77'));
    expect(c.status).toBe('unmatched');
    const forwarding = await admin(h.app, 'POST', `/providers/${p.id}/devices`, { name: 'Phone 1', requisiteIds: [p.requisites[1].id] });
    expect(forwarding.statusCode, forwarding.body).toBe(201);
    const idle = await admin(h.app, 'POST', `/providers/${p.id}/devices`, { name: 'Phone 2', requisiteIds: [] });
    expect(idle.statusCode, idle.body).toBe(201);
    const dev = json(forwarding).result;
    const sent = await providerPost(
      `/providers/v1/${p.id}/messages`,
      JSON.stringify({ messages: [{ id: 'm-1', deviceId: dev.id, sender: 'Friend', text: 'Lunch at noon?', receivedAt: new Date(h.clock.now()).toISOString() }] }),
    );
    expect(sent.statusCode, sent.body).toBe(200);

    // Read at most every 10 s: a scrape right after shows the figures read before.
    expect(await scrape('paygate_unmatched_credits')).toBe(0);
    h.clock.advance(10_000);
    expect(await scrape('paygate_unmatched_credits')).toBe(1);
    expect(await scrape('paygate_unmatched_credit_oldest_age_seconds')).toBe(10);
    expect(await scrape('paygate_device_messages_unread')).toBe(1);
    expect(await scrape('paygate_devices_silent')).toBe(0);

    // DEVICE_SILENCE_MINUTES (10) later without a word from the phones: the one forwarding for a requisite is silent.
    h.clock.advance(11 * 60_000);
    expect(await scrape('paygate_devices_silent')).toBe(1);
    expect(await scrape('paygate_unmatched_credit_oldest_age_seconds')).toBe(670);

    // Heard from again: no longer silent.
    const beat = await providerPost(`/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    expect(beat.statusCode, beat.body).toBe(200);
    h.clock.advance(10_000);
    expect(await scrape('paygate_devices_silent')).toBe(0);
  });
});

describe('event-loop delay', () => {
  it('a turn of the loop held for 200 ms shows in the delay the server reports (the default metrics)', async () => {
    const metrics = createMetrics({ defaults: true });
    await scraped(metrics.registry, 'nodejs_eventloop_lag_max_seconds');
    // The monitor's first tick only starts its clock: let it tick before the loop is held.
    await new Promise((r) => setTimeout(r, 50));
    const until = Date.now() + 200;
    while (Date.now() < until) {
      // holding the loop, as a long synchronous task would
    }
    await new Promise((r) => setTimeout(r, 30));
    expect(await scraped(metrics.registry, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.15);
  });
});

describe.runIf(serverUrl)('database pool wait (PostgreSQL only: the embedded database has one connection and no pool)', () => {
  it('a statement that waits for the pool\'s only connection is observed with its wait', async () => {
    const metrics = createMetrics();
    const db = openPg(h.testDb.url!, { max: 1, onPoolWait: (s) => metrics.dbPoolWait.observe(s) });
    try {
      await db.query('SELECT 1');
      await Promise.all([db.query('SELECT pg_sleep(0.3)'), db.tx(async (q) => q.query('SELECT 1'))]);
      expect(await scraped(metrics.registry, 'paygate_db_pool_wait_seconds_count')).toBe(3);
      // The first two came out at once (opening the connection apart); the last waited out the sleep.
      expect(await scraped(metrics.registry, 'paygate_db_pool_wait_seconds_bucket', { le: '0.25' })).toBe(2);
      expect(await scraped(metrics.registry, 'paygate_db_pool_wait_seconds_bucket', { le: '2.5' })).toBe(3);
    } finally {
      await db.close();
    }
  });
});
