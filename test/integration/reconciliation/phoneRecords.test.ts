import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../../src/providers/providerMessages.js';
import { watchDevices } from '../../../src/services/deviceWatch.js';
import { retentionWorker } from '../../../src/workers/maintenance.js';
import { FormBrowser } from '../../helpers/formBrowser.js';
import { admin, createHarness, json, provisionDesk, type Harness } from '../../helpers/harness.js';
import { card, pools, type Pool } from './helpers.js';

/*
 * What is kept of phones: messages pruned after their retention (unread ones after a longer one,
 * never money counted twice), each device's silences in the day report, and the devices on the
 * pool's page and the devices page of the back office (the signing key shown once). Run on PGlite,
 * and on PostgreSQL with DATABASE_URL set.
 */

const PASSWORD = 'operator passphrase 2026';
const MIN = 60_000;
const DAY = 86_400_000;

let h: Harness;
let pool: ReturnType<typeof pools>;
let office: FormBrowser;

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false', REQUISITE_QUARANTINE_MINUTES: '0' }, unlimitedOrders: true });
  await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
  expect((await admin(h.app, 'POST', '/operators', { email: EMAIL, password: PASSWORD, role: 'admin' })).statusCode).toBe(201);
});
const EMAIL = 'admin-phones@paygate.example';

/** Signed in at the clock's time: the tests move the clock by days. */
async function signIn() {
  office = new FormBrowser(h.app);
  await office.get('/office/sign-in');
  expect((await office.post('/office/sign-in', [['email', EMAIL], ['password', PASSWORD]])).statusCode).toBe(303);
}
afterAll(() => h.close());

let seq = 0;
async function relay(p: Pool, path: string, raw: string) {
  const headers = signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw);
  return h.app.inject({ method: 'POST', url: `/providers/v1/${p.id}${path}`, headers: { ...(raw ? { 'content-type': 'application/json' } : {}), ...headers }, payload: raw || undefined });
}
async function send(p: Pool, m: Record<string, unknown>) {
  const res = await relay(p, '/messages', JSON.stringify({ messages: [m] }));
  expect(res.statusCode, res.body).toBe(200);
  return json(res).result.messages[0];
}
const sms = (deviceId: string, text: string, id = `sms-${++seq}`) => ({ id, deviceId, sender: '900', text, receivedAt: new Date(h.clock.now()).toISOString() });
const heartbeat = async (p: Pool, deviceId: string) => expect((await relay(p, `/devices/${deviceId}/heartbeat`, '')).statusCode).toBe(200);
async function device(p: Pool, name: string) {
  const res = await admin(h.app, 'POST', `/providers/${p.id}/devices`, { name, requisiteIds: [p.requisites[0].id] });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}
const report = async (p: Pool, date: string) => json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=${date}`)).result;
const dayOf = () => new Date(h.clock.now()).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('retention of messages', () => {
  it('handled messages go after MESSAGE_RETENTION_DAYS, unread ones after MESSAGE_UNREAD_RETENTION_DAYS; the money stays counted once', async () => {
    const p = await pool([{ card: card(21), holder: 'A' }]);
    const dev = await device(p, 'Old phone');
    const paid = sms(dev.id, 'Зачисление 1 234 ₽ по СБП от Иван И.');
    const credit = await send(p, paid);
    expect(credit.outcome).toBe('credit');
    const unread = await send(p, sms(dev.id, 'Ваш перевод в обработке'));
    expect(unread.outcome).toBe('unread');
    const kept = async () => Number((await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE provider_id = $1', [p.id])).rows[0]!.n);
    expect(await kept()).toBe(2);

    const worker = retentionWorker(h.ctx);
    h.clock.advance(89 * DAY);
    await worker.runOnce();
    expect(await kept()).toBe(2);
    h.clock.advance(2 * DAY);
    await worker.runOnce();
    expect(await kept()).toBe(1);
    expect(json(await admin(h.app, 'GET', '/messages/unread?limit=500')).result.map((m: any) => m.id)).toContain(unread.messageId);

    // The credit is never removed: the same text sent again is found as the money it was.
    const again = await send(p, paid);
    expect(again).toMatchObject({ outcome: 'credit', creditId: credit.creditId, duplicate: true });
    expect(json(await admin(h.app, 'GET', `/credits?providerId=${p.id}&limit=500`)).result.items).toHaveLength(1);

    h.clock.advance(275 * DAY);
    await worker.runOnce();
    expect(json(await admin(h.app, 'GET', '/messages/unread?limit=500')).result.map((m: any) => m.id)).not.toContain(unread.messageId);
  });
});

describe('silences in the day report', () => {
  it('when each device was silent that day and for how long; still silent shows no end', async () => {
    // Start the day afresh at 08:00 UTC.
    h.clock.set(Date.parse(`${new Date(h.clock.now() + DAY).toISOString().slice(0, 10)}T08:00:00Z`));
    const p = await pool([{ card: card(22), holder: 'B' }]);
    const watched = await device(p, 'Watched phone');
    const unwatched = await device(p, 'Quiet phone');
    await heartbeat(p, watched.id);
    await heartbeat(p, unwatched.id);
    const t0 = h.clock.now();

    // The watch comes by 5 minutes after the silence began; the phone is heard 25 minutes after its last ping.
    h.clock.advance(15 * MIN);
    expect(await watchDevices(h.ctx)).toBeGreaterThanOrEqual(2);
    h.clock.advance(10 * MIN);
    await heartbeat(p, watched.id);
    // The other phone comes back before any watch passed again: its silence is recorded whole too.
    h.clock.advance(20 * MIN);
    await heartbeat(p, unwatched.id);
    // And the first phone falls silent again, with no watch since: still silent.
    h.clock.advance(45 * MIN);

    const r = await report(p, dayOf());
    // Oldest first; two starting together in the order of their ids.
    const byStart = (a: any, b: any) => a.from.localeCompare(b.from) || a.deviceId.localeCompare(b.deviceId);
    expect(r.deviceSilences).toEqual([...r.deviceSilences].sort(byStart));
    expect([...r.deviceSilences].sort(byStart)).toEqual([
      { deviceId: watched.id, name: 'Watched phone', from: iso(t0 + 10 * MIN), to: iso(t0 + 25 * MIN), minutes: 15 },
      { deviceId: unwatched.id, name: 'Quiet phone', from: iso(t0 + 10 * MIN), to: iso(t0 + 45 * MIN), minutes: 35 },
      { deviceId: watched.id, name: 'Watched phone', from: iso(t0 + 35 * MIN), to: null, minutes: 55 },
      { deviceId: unwatched.id, name: 'Quiet phone', from: iso(t0 + 55 * MIN), to: null, minutes: 35 },
    ].sort(byStart));
    // The day before knew none of it.
    expect((await report(p, new Date(h.clock.now() - DAY).toISOString().slice(0, 10))).deviceSilences).toEqual([]);

    await signIn();
    const page = await office.get(`/office/pools/${p.id}/report?date=${dayOf()}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Devices silent that day');
    expect(page.body).toMatch(/id="day-silences"[\s\S]*Watched phone[\s\S]*still silent/);
  });

  it('a silence that crosses midnight counts in each day for its part', async () => {
    h.clock.set(Date.parse(`${new Date(h.clock.now() + DAY).toISOString().slice(0, 10)}T23:30:00Z`));
    const p = await pool([{ card: card(23), holder: 'C' }]);
    const dev = await device(p, 'Night phone');
    await heartbeat(p, dev.id);
    const first = dayOf();
    h.clock.advance(20 * MIN);
    await watchDevices(h.ctx);
    h.clock.advance(40 * MIN);
    await heartbeat(p, dev.id);
    expect((await report(p, first)).deviceSilences).toMatchObject([{ deviceId: dev.id, minutes: 20 }]);
    expect((await report(p, dayOf())).deviceSilences).toMatchObject([{ deviceId: dev.id, minutes: 30 }]);
  });
});

describe('devices in the back office', () => {
  beforeAll(signIn);
  it('the pool\'s page lists its devices with state, last sighting, messages today and unread', async () => {
    const p = await pool([{ card: card(24), holder: 'D' }]);
    const empty = await office.get(`/office/pools/${p.id}`);
    expect(empty.body).toContain('id="pool-devices-empty"');
    const dev = await device(p, 'Galaxy A15');
    await send(p, sms(dev.id, 'Зачисление 500 ₽ по СБП от Иван И.'));
    await send(p, sms(dev.id, 'Непонятный текст'));
    const page = await office.get(`/office/pools/${p.id}`);
    expect(page.statusCode, page.body).toBe(200);
    const section = /<section class="card" aria-labelledby="pool-devices-h">[\s\S]*?<\/section>/.exec(page.body)![0];
    expect(section).toContain('Galaxy A15');
    expect(section).toContain(dev.id);
    expect(section).toMatch(/>active</);
    const cells = [...section.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
    expect(cells).toContain('2');
    expect(cells).toContain('1');
    h.clock.advance(11 * MIN);
    expect((await office.get(`/office/pools/${p.id}`)).body).toContain('silent: requisites paused');
  });

  it('a device added in the back office shows its signing key once; a new key replaces it', async () => {
    const p = await pool([{ card: card(25), holder: 'E' }]);
    await office.get(`/office/pools/${p.id}/devices`);
    const added = await office.post(`/office/pools/${p.id}/devices`, [['name', 'Pixel 7'], ['requisiteIds', p.requisites[0].id]]);
    expect(added.statusCode, added.body).toBe(200);
    expect(added.headers['cache-control']).toContain('no-store');
    const key = /id="signing-key-value">(dsk_[A-Za-z0-9_-]+)</.exec(added.body)![1]!;
    expect(added.body).toMatch(/\/providers\/v1\/prv_[^/]+\/devices\/dev_[^/]+\/sms-gateway/);
    const again = await office.get(`/office/pools/${p.id}/devices`);
    expect(again.body).not.toContain(key);
    const devId = json(await admin(h.app, 'GET', `/providers/${p.id}/devices`)).result[0].id;
    const rotated = await office.post(`/office/devices/${devId}/signing-key`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newKey = /id="signing-key-value">(dsk_[A-Za-z0-9_-]+)</.exec(rotated.body)![1]!;
    expect(newKey).not.toBe(key);
    expect(rotated.body).toContain('the old key no longer works');
  });
});
