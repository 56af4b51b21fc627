import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../src/alerts/alerts.js';
import { ALERT_CONDITIONS, type AlertCondition } from '../../../src/alerts/conditions.js';
import { AlertWebhookSender } from '../../../src/alerts/webhooks.js';
import { initialBreakerState, recordOutcome, DEFAULT_BREAKER_CONFIG } from '../../../src/domain/breaker.js';
import { newProviderMessageId, signProviderRequestHeaders } from '../../../src/providers/providerMessages.js';
import { markMessageDone } from '../../../src/reconciliation/messageStore.js';
import { signMessage } from '../../../src/signing.js';
import { writeCircuit } from '../../../src/store/circuits.js';
import { FormBrowser } from '../../helpers/formBrowser.js';
import { ADMIN_TOKEN, admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, placed, pools, sendCredit, type Pool } from './helpers.js';

/*
 * Alerts (reconciliation contract, "Alerts"): each condition walked from raised to resolved on the
 * injected clock, raised once and resolved once however often the worker looks; mails queued for
 * email channels, signed JSON posted to webhook receivers listening on real sockets in this test
 * (retried after a 500, a receiver that never answers holding up nothing else); the operator API
 * and its filters. Run on PGlite, and on PostgreSQL with DATABASE_URL set.
 */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on a real socket: records every POST; `answer` says what to answer (null: never answer). */
function receiver() {
  const hanging: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const r = {
    got: [] as Received[],
    answer: (() => 200) as () => number | null,
    url: '',
    server: createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        r.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        for (const w of waiters.splice(0)) w();
        const status = r.answer();
        if (status === null) hanging.push(res);
        else res.writeHead(status).end(status >= 500 ? 'busy' : '');
      });
    }),
    async listen() {
      await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
      r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hooks/alerts`;
    },
    /** Resolves when the receiver has had `n` requests (real sockets: the request needs real time to arrive). */
    until(n: number) {
      return new Promise<void>((ok) => {
        const check = () => (r.got.length >= n ? ok() : waiters.push(check));
        check();
      });
    },
    close() {
      for (const res of hanging) res.destroy();
      r.server.closeAllConnections();
      return new Promise<void>((ok) => r.server.close(() => ok()));
    },
  };
  return r;
}

const good = receiver();
const silent = receiver();
let sender: AlertWebhookSender;

beforeAll(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1', PUBLIC_BASE_URL: 'https://pay.example.test', OFFICE_REQUIRE_2FA: 'false' }, unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
  await good.listen();
  await silent.listen();
  silent.answer = () => null;
  sender = new AlertWebhookSender(h.ctx, { timeoutMs: 1_500 });
}, 600_000);
afterAll(async () => {
  await sender?.close();
  await good.close();
  await silent.close();
  await h?.close();
});

const minutes = (n: number) => n * 60_000;
/** A request of the pool's own, signed as its feed is. */
const providerPost = (p: Pool, url: string, raw: string) =>
  h.app.inject({ method: 'POST', url, headers: { ...(raw ? { 'content-type': 'application/json' } : {}), ...signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw) }, payload: raw });
const evaluate = () => evaluateAlerts(h.ctx);
const alerts = async (query = '') => json(await admin(h.app, 'GET', `/alerts${query}`)).result;
const mails = async () =>
  (await h.ctx.db.query<{ to_address: string; lang: string; data: any }>("SELECT to_address, lang, data FROM mail_outbox WHERE kind = 'alert' ORDER BY created_at, id")).rows;
const deliveries = async () =>
  (await h.ctx.db.query<{ id: string; alert_id: string; channel_id: string; event: string; state: string; attempts: number; last_http_code: number | null; last_error: string | null; next_attempt_at: Date }>(
    'SELECT * FROM alert_deliveries ORDER BY created_at, id',
  )).rows;
/** Sends what is due and waits for the answers. */
const sendDue = async () => {
  for (;;) {
    const n = await sender.runOnce();
    await sender.idle();
    if (n === 0) return;
  }
};
/** Waits for what a send on a real socket records (real time: the answer has to travel), at most 2 s. */
async function eventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
}

let webhook: { id: string; secret: string };
let email: { id: string };

describe('channels: POST, GET, PATCH /admin/v1/alert-channels', () => {
  it('an email channel and a webhook channel; the webhook\'s secret is shown once', async () => {
    const e = await admin(h.app, 'POST', '/alert-channels', { kind: 'email', name: 'Night desk', target: 'night@ops.example.test', lang: 'ru' });
    expect(e.statusCode, e.body).toBe(201);
    expect(json(e).result).toMatchObject({ kind: 'email', name: 'Night desk', target: 'night@ops.example.test', lang: 'ru', enabled: true, secret: null });
    email = json(e).result;
    const w = await admin(h.app, 'POST', '/alert-channels', { kind: 'webhook', name: 'Chat bot', target: good.url });
    expect(w.statusCode, w.body).toBe(201);
    webhook = json(w).result;
    expect(webhook).toMatchObject({ kind: 'webhook', target: good.url, lang: null, enabled: true });
    expect(webhook.secret).toMatch(/^whs_[A-Za-z0-9_-]{43}$/);
    const listed = json(await admin(h.app, 'GET', '/alert-channels')).result;
    expect(listed.map((c: any) => c.id)).toEqual([email.id, webhook.id]);
    expect(JSON.stringify(listed)).not.toContain(webhook.secret);
    expect(JSON.stringify(json(await admin(h.app, 'GET', `/alert-channels/${webhook.id}`)).result)).not.toContain(webhook.secret);
    // audited, without the secret
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${webhook.id}`)).result.items;
    expect(audit.map((a: any) => a.action)).toEqual(['alert-channel.create']);
    expect(JSON.stringify(audit)).not.toContain(webhook.secret);
  });

  it('refuses what it cannot send to: a private address, a bad address, an unknown kind, an unknown channel, no token', async () => {
    const priv = await admin(h.app, 'POST', '/alert-channels', { kind: 'webhook', name: 'Inside', target: 'http://10.1.2.3/hook' });
    expect(priv.statusCode).toBe(400);
    expect(json(priv).fault.code).toBe('INVALID_CALLBACK_URL');
    const meta = await admin(h.app, 'POST', '/alert-channels', { kind: 'webhook', name: 'Metadata', target: 'http://169.254.169.254/latest' });
    expect(json(meta).fault.code).toBe('INVALID_CALLBACK_URL');
    const bad = await admin(h.app, 'POST', '/alert-channels', { kind: 'email', name: 'X', target: 'not an address' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).fault.code).toBe('VALIDATION_ERROR');
    expect((await admin(h.app, 'POST', '/alert-channels', { kind: 'sms', name: 'X', target: '+7900' })).statusCode).toBe(400);
    expect((await admin(h.app, 'POST', '/alert-channels', { kind: 'email', name: 'X', target: 'a@b.example', lang: 'xx' })).statusCode).toBe(400);
    const missing = await admin(h.app, 'PATCH', '/alert-channels/ach_nope', { enabled: false });
    expect(missing.statusCode).toBe(404);
    expect(json(missing).fault.code).toBe('ALERT_CHANNEL_NOT_FOUND');
    expect((await admin(h.app, 'PATCH', `/alert-channels/${email.id}`, { rotateSecret: true })).statusCode).toBe(400);
    expect((await h.app.inject({ method: 'GET', url: '/admin/v1/alerts' })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: '/admin/v1/alert-channels', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect(json(await admin(h.app, 'GET', '/alert-channels')).result).toHaveLength(2);
  });
});

describe('each condition from raised to resolved', () => {
  let p: Pool;
  beforeAll(async () => {
    p = await pool([{ card: card(501), holder: 'A' }, { card: card(502), holder: 'B' }]);
  });

  it('an unmatched credit: raised once it is older than ALERT_UNMATCHED_MINUTES (30), once; resolved once when the queue is worked', async () => {
    const c = await sendCredit(h, p, credit(h, card(501).replace(/ /g, ''), '77.00'));
    expect(c.status).toBe('unmatched');
    expect((await evaluate()).raised).toEqual([]);
    h.clock.advance(minutes(29));
    expect((await evaluate()).raised).toEqual([]);
    h.clock.advance(minutes(1));
    const first = await evaluate();
    expect(first.raised).toHaveLength(1);
    expect(first.raised[0]).toMatchObject({ kind: 'unmatched-credits', subjectId: p.id, state: 'open', resolvedAt: null, detail: { credits: 1, oldestCreditId: c.id, minutes: 30 } });
    expect(first.raised[0]!.summary).toContain('1 credit of Pool');
    // however often the worker looks, and a second credit waiting too: still one alert
    await sendCredit(h, p, credit(h, card(501).replace(/ /g, ''), '78.00'));
    h.clock.advance(minutes(31));
    for (let i = 0; i < 3; i++) expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    expect((await alerts('?state=open&kind=unmatched-credits')).items).toHaveLength(1);
    // the queue worked: resolved once
    const queue = json(await admin(h.app, 'GET', `/credits?providerId=${p.id}&status=unmatched`)).result.items;
    expect((await admin(h.app, 'POST', '/credits/ignore', { ids: queue.map((x: any) => x.id), reason: 'test money' })).statusCode).toBe(200);
    const done = await evaluate();
    expect(done.resolved).toHaveLength(1);
    expect(done.resolved[0]).toMatchObject({ id: first.raised[0]!.id, state: 'resolved', resolvedAt: new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
  });

  it('a requisite at 90 % of its daily limit: raised when today\'s matched money reaches 900.00 of 1000.00, resolved once when the limit is raised', async () => {
    const rq = p.requisites[1];
    expect((await admin(h.app, 'PATCH', `/requisites/${rq.id}`, { dailyLimit: '1000.00' })).statusCode).toBe(200);
    await admin(h.app, 'PATCH', `/requisites/${p.requisites[0].id}`, { state: 'paused' });
    const o1 = await placed(h, desk, 899.99);
    expect((await sendCredit(h, p, credit(h, card(502).replace(/ /g, ''), '899.99'))).orderId).toBe(o1.id);
    expect((await evaluate()).raised).toEqual([]);
    const o2 = await placed(h, desk, 0.01);
    expect((await sendCredit(h, p, credit(h, card(502).replace(/ /g, ''), '0.01'))).orderId).toBe(o2.id);
    const r = await evaluate();
    expect(r.raised).toHaveLength(1);
    expect(r.raised[0]).toMatchObject({ kind: 'requisite-limit', subjectId: rq.id, detail: { dailyLimit: '1000.00', receivedToday: '900.00', currency: null } });
    expect((await evaluate()).raised).toEqual([]);
    await admin(h.app, 'PATCH', `/requisites/${rq.id}`, { dailyLimit: '5000.00' });
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['requisite-limit']);
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
  });

  it('a provider\'s circuit: raised when it opens, kept while half-open, resolved once when it closes', async () => {
    const now = h.clock.now();
    let s = initialBreakerState();
    for (let i = 0; i < 10; i++) s = recordOutcome(s, false, now, DEFAULT_BREAKER_CONFIG);
    expect(s.state).toBe('open');
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'C2c', s, new Date(now));
    const r = await evaluate();
    expect(r.raised).toHaveLength(1);
    expect(r.raised[0]).toMatchObject({ kind: 'circuit-open', subjectId: `${p.id}/Classic/C2c`, detail: { state: 'open', method: 'Classic', rail: 'C2c' } });
    h.clock.advance(minutes(2)); // cooled down: half-open, not yet healthy
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'C2c', initialBreakerState(), new Date(h.clock.now()));
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['circuit-open']);
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
  });

  it('a silent device: raised after DEVICE_SILENCE_MINUTES (10) without a heartbeat, resolved once when it is heard from', async () => {
    const made = await admin(h.app, 'POST', `/providers/${p.id}/devices`, { name: 'Phone 1', requisiteIds: [p.requisites[1].id] });
    expect(made.statusCode, made.body).toBe(201);
    const dev = json(made).result;
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    h.clock.advance(minutes(10) + 1_000);
    const r = await evaluate();
    expect(r.raised).toHaveLength(1);
    expect(r.raised[0]).toMatchObject({ kind: 'device-silent', subjectId: dev.id, detail: { deviceId: dev.id, lastSeenAt: null, requisiteIds: [p.requisites[1].id], minutes: 10 } });
    expect(r.raised[0]!.summary).toContain('Phone 1');
    h.clock.advance(minutes(5));
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    const beat = await providerPost(p, `/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    expect(beat.statusCode, beat.body).toBeLessThan(300);
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['device-silent']);
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    // silent again later: a new alert, raised once more
    h.clock.advance(minutes(11));
    expect((await evaluate()).raised.map((a) => a.subjectId)).toEqual([dev.id]);
    await providerPost(p, `/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    expect((await evaluate()).resolved).toHaveLength(1);
  });

  it('unread messages: raised once one waits longer than ALERT_UNMATCHED_MINUTES, resolved once the queue is worked', async () => {
    const dev = json(await admin(h.app, 'GET', `/providers/${p.id}/devices`)).result[0];
    const sent = await providerPost(
      p,
      `/providers/v1/${p.id}/messages`,
      JSON.stringify({ messages: [{ id: 'm-1', deviceId: dev.id, sender: 'Friend', text: 'Lunch at noon? 🍜', receivedAt: new Date(h.clock.now()).toISOString() }] }),
    );
    expect(sent.statusCode, sent.body).toBe(200);
    expect(json(sent).result.messages?.[0]?.outcome ?? json(sent).result[0]?.outcome).toBe('unread');
    // the device's message counted as a heartbeat; nothing else holds
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    h.clock.advance(minutes(9));
    await providerPost(p, `/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    h.clock.advance(minutes(9));
    await providerPost(p, `/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    h.clock.advance(minutes(13));
    await providerPost(p, `/providers/v1/${p.id}/devices/${dev.id}/heartbeat`, '');
    const r = await evaluate();
    expect(r.raised.map((a) => a.kind)).toEqual(['unread-messages']);
    expect(r.raised[0]).toMatchObject({ subjectId: p.id, detail: { messages: 1, minutes: 30 } });
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    const { id } = (await h.ctx.db.query<{ id: string }>("SELECT id FROM messages WHERE provider_id = $1 AND outcome = 'unread'", [p.id])).rows[0]!;
    expect(await markMessageDone(h.ctx.db, id, null, 'not a bank message')).toBe(true);
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['unread-messages']);
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    // the phone goes back in the drawer: forwarding for no requisite, its silence pauses nothing and is no alert
    await admin(h.app, 'PATCH', `/devices/${dev.id}`, { requisiteIds: [] });
    h.clock.advance(minutes(11));
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
  });

  it('a statement whose balances do not add up, then a gap: raised once per account, resolved once when a right statement follows', async () => {
    const acct = card(502).replace(/ /g, '');
    const upload = (body: string) =>
      h.app.inject({ method: 'POST', url: `/admin/v1/providers/${p.id}/statements`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, payload: body });
    const first = json(await upload(camt053(acct, ntry('10.00', 'a1'), { id: 'al-1', opening: '100.00', closing: '111.00' }))).result;
    expect(first.balanceCheck).toBe('inconsistent');
    const r = await evaluate();
    expect(r.raised).toHaveLength(1);
    expect(r.raised[0]).toMatchObject({ kind: 'statement', detail: { providerId: p.id, statementId: expect.stringMatching(/^stm_/), balanceCheck: 'inconsistent', balanceDifference: '-1.00' } });
    expect(r.raised[0]!.subjectId).toBe(`${p.id}/${r.raised[0]!.detail.accountKey}`);
    expect(r.raised[0]!.summary).toMatch(/do not add up \(off by -1\.00\)/);
    // the next statement leaves a gap: the finding goes on, the alert stays the one alert
    const gap = json(await upload(camt053(acct, ntry('1.00', 'a2'), { id: 'al-2', opening: '200.00', closing: '201.00' }))).result;
    expect(gap.continuity).toBe('gap');
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
    // a statement that adds up and continues from the last one
    const right = json(await upload(camt053(acct, ntry('4.00', 'a3'), { id: 'al-3', opening: '201.00', closing: '205.00' }))).result;
    expect(right).toMatchObject({ balanceCheck: 'consistent', continuity: 'continuous' });
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['statement']);
    expect(await evaluate()).toEqual({ raised: [], resolved: [], failed: [] });
  });

  it('a condition that cannot be read leaves its alerts open rather than resolving them', async () => {
    const now = h.clock.now();
    let s = initialBreakerState();
    for (let i = 0; i < 10; i++) s = recordOutcome(s, false, now, DEFAULT_BREAKER_CONFIG);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'Sbp', s, new Date(now));
    expect((await evaluate()).raised.map((a) => a.kind)).toEqual(['circuit-open']);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'Sbp', initialBreakerState(), new Date(now));
    const broken: AlertCondition[] = ALERT_CONDITIONS.map((c) => (c.kind === 'circuit-open' ? { kind: c.kind, find: () => Promise.reject(new Error('read failed')) } : c));
    expect(await evaluateAlerts(h.ctx, broken)).toEqual({ raised: [], resolved: [], failed: ['circuit-open'] });
    expect((await alerts('?state=open&kind=circuit-open')).items).toHaveLength(1);
    expect((await evaluate()).resolved.map((a) => a.kind)).toEqual(['circuit-open']);
  });

  it('two evaluators at once raise an alert once', async () => {
    const now = h.clock.now();
    let s = initialBreakerState();
    for (let i = 0; i < 10; i++) s = recordOutcome(s, false, now, DEFAULT_BREAKER_CONFIG);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'Sbp', s, new Date(now));
    const [a, b] = await Promise.all([evaluate(), evaluate()]);
    expect(a.raised.length + b.raised.length).toBe(1);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'Sbp', initialBreakerState(), new Date(now));
    const [c, d] = await Promise.all([evaluate(), evaluate()]);
    expect(c.resolved.length + d.resolved.length).toBe(1);
  });
});

describe('the channels are told', () => {
  it('every raise and resolve queued one alert mail for the email channel, in its language, linking to the back office', async () => {
    const all = json(await admin(h.app, 'GET', '/alerts?limit=500')).result.items;
    const m = await mails();
    // one mail for each alert raised and one for each resolved
    expect(m).toHaveLength(all.length + all.filter((a: any) => a.resolvedAt !== null).length);
    expect(m.every((x) => x.to_address === 'night@ops.example.test' && x.lang === 'ru')).toBe(true);
    expect(m[0]!.data).toMatchObject({ event: 'raised', alertKind: 'unmatched-credits', link: 'https://pay.example.test/office/alerts' });
    expect(m.filter((x) => x.data.event === 'resolved')).toHaveLength(all.filter((a: any) => a.resolvedAt !== null).length);
  });

  it('the webhook receives each as signed JSON: the signature verifies with the channel\'s secret', async () => {
    await sendDue();
    const all = json(await admin(h.app, 'GET', '/alerts?limit=500')).result.items;
    expect(good.got).toHaveLength(all.length + all.filter((a: any) => a.resolvedAt !== null).length);
    for (const g of good.got) {
      const ts = String(g.headers['x-gate-ts']);
      const id = String(g.headers['x-gate-event-id']);
      expect(g.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(g.headers['x-gate-sign']).toBe(signMessage(webhook.secret, ts, id, g.body));
      const body = JSON.parse(g.body);
      expect(body.id).toBe(id);
      expect(['alert.raised', 'alert.resolved']).toContain(body.type);
    }
    // Sent several at once, they arrive in any order: the first alert raised is among them as it was then.
    const bodies = good.got.map((g) => JSON.parse(g.body));
    expect(bodies).toContainEqual(expect.objectContaining({ type: 'alert.raised', alert: expect.objectContaining({ kind: 'unmatched-credits', state: 'open' }) }));
    expect((await deliveries()).every((d) => d.state === 'delivered' && d.attempts === 1 && d.last_http_code === 200)).toBe(true);
  });

  it('a 500 is tried again after the back-off (10 s on the injected clock), then delivered', async () => {
    // the statements' credits are still in the queue: worked first, so one alert is raised below
    const queue = json(await admin(h.app, 'GET', '/credits?status=unmatched&limit=500')).result.items;
    if (queue.length) await admin(h.app, 'POST', '/credits/ignore', { ids: queue.map((x: any) => x.id), reason: 'test money' });
    await evaluate();
    await sendDue();
    const before = good.got.length;
    let calls = 0;
    good.answer = () => (++calls === 1 ? 500 : 200);
    const p = await pool([{ card: card(601), holder: 'C' }]);
    await sendCredit(h, p, credit(h, card(601).replace(/ /g, ''), '5.00'));
    h.clock.advance(minutes(31));
    expect((await evaluate()).raised.map((a) => a.kind)).toEqual(['unmatched-credits']);
    await sendDue();
    expect(good.got.length).toBe(before + 1);
    let [d] = (await deliveries()).filter((x) => x.state !== 'delivered');
    expect(d).toMatchObject({ state: 'pending', attempts: 1, last_http_code: 500 });
    expect(d!.next_attempt_at.getTime()).toBe(h.clock.now() + 10_000);
    await sendDue(); // not due yet
    expect(good.got.length).toBe(before + 1);
    h.clock.advance(10_000);
    await sendDue();
    expect(good.got.length).toBe(before + 2);
    expect(good.got[before + 1]!.body).toBe(good.got[before]!.body);
    [d] = (await deliveries()).filter((x) => x.id === d!.id);
    expect(d).toMatchObject({ state: 'delivered', attempts: 2, last_http_code: 200 });
    good.answer = () => 200;
  });

  it('a receiver that never answers holds up nothing else: the other channel is delivered meanwhile, the silent one retried later', async () => {
    const s = json(await admin(h.app, 'POST', '/alert-channels', { kind: 'webhook', name: 'Silent', target: silent.url })).result;
    const before = good.got.length;
    const now = h.clock.now();
    let st = initialBreakerState();
    for (let i = 0; i < 10; i++) st = recordOutcome(st, false, now, DEFAULT_BREAKER_CONFIG);
    const p = await pool([{ card: card(701), holder: 'D' }]);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'C2c', st, new Date(now));
    expect((await evaluate()).raised).toHaveLength(1);
    const started = Date.now();
    while ((await sender.runOnce()) > 0);
    // the good receiver has its alert while the silent one still holds its request
    await good.until(before + 1);
    await silent.until(1);
    expect(Date.now() - started).toBeLessThan(1_500);
    const pending = (await deliveries()).find((x) => x.channel_id === s.id)!;
    expect(pending.state).toBe('pending');
    await eventually(async () => (await deliveries()).find((x) => x.channel_id === webhook.id && x.alert_id === pending.alert_id)!.state === 'delivered');
    expect((await deliveries()).find((x) => x.channel_id === s.id)!.state).toBe('pending');
    await sender.idle();
    const after = (await deliveries()).find((x) => x.channel_id === s.id)!;
    expect(after).toMatchObject({ state: 'pending', attempts: 1, last_http_code: null });
    expect(after.last_error).toMatch(/no answer within 1500 ms/);
    // disabled: told nothing new
    expect((await admin(h.app, 'PATCH', `/alert-channels/${s.id}`, { enabled: false })).statusCode).toBe(200);
    await writeCircuit(h.ctx.db, p.id, 'Classic', 'C2c', initialBreakerState(), new Date(now));
    expect((await evaluate()).resolved).toHaveLength(1);
    expect((await deliveries()).filter((x) => x.channel_id === s.id)).toHaveLength(1);
  });

  it('a new secret signs the next deliveries, shown once', async () => {
    const r = json(await admin(h.app, 'PATCH', `/alert-channels/${webhook.id}`, { rotateSecret: true, name: 'Chat bot 2' })).result;
    expect(r.secret).toMatch(/^whs_/);
    expect(r.secret).not.toBe(webhook.secret);
    expect(r.name).toBe('Chat bot 2');
    await sendDue();
    const last = good.got[good.got.length - 1]!;
    expect(last.headers['x-gate-sign']).toBe(signMessage(r.secret, String(last.headers['x-gate-ts']), String(last.headers['x-gate-event-id']), last.body));
  });
});

describe('GET /admin/v1/alerts', () => {
  it('lists newest raised first, filters open and resolved, and pages', async () => {
    const all = (await alerts('?limit=500')).items;
    expect(all.length).toBeGreaterThanOrEqual(6);
    const open = (await alerts('?state=open')).items;
    const resolved = (await alerts('?state=resolved&limit=500')).items;
    expect(open.every((a: any) => a.state === 'open' && a.resolvedAt === null)).toBe(true);
    expect(resolved.every((a: any) => a.state === 'resolved' && a.resolvedAt !== null)).toBe(true);
    expect(open.length + resolved.length).toBe(all.length);
    const one = await alerts('?limit=1');
    expect(one).toMatchObject({ items: [{ id: all[0].id }], hasMore: true, next: all[0].id });
    const two = await alerts(`?limit=1&before=${one.next}`);
    expect(two.items[0].id).toBe(all[1].id);
    expect((await admin(h.app, 'GET', '/alerts?state=maybe')).statusCode).toBe(400);
    expect((await admin(h.app, 'GET', '/alerts?before=alr_nope')).statusCode).toBe(400);
    expect((await admin(h.app, 'GET', '/alerts?limit=0')).statusCode).toBe(400);
  });
});

describe('the back office: /office/alerts', () => {
  const PASSWORD = 'operator passphrase 2026';
  async function operator(role: 'admin' | 'support') {
    const email = `${role}-alerts@paygate.example`;
    expect((await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role })).statusCode).toBe(201);
    const b = new FormBrowser(h.app);
    await b.get('/office/sign-in');
    expect((await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(303);
    return b;
  }

  it('lists open and resolved alerts with the open count in the navigation; admins add channels (CSRF), support reads only', async () => {
    expect((await new FormBrowser(h.app).get('/office/alerts')).statusCode).toBe(303);
    const a = await operator('admin');
    const s = await operator('support');
    const open = (await alerts('?state=open&limit=500')).items;
    const page = await a.get('/office/alerts');
    expect(page.statusCode).toBe(200);
    const badge = new RegExp(`<a href="/office/alerts"[^>]*>Alerts <span class="count[^"]*">${open.length}<`);
    expect(page.body).toMatch(badge);
    for (const x of open) expect(page.body).toContain(x.subjectId);
    const resolved = await a.get('/office/alerts?state=resolved');
    expect(resolved.body).toContain((await alerts('?state=resolved')).items[0].subjectId);
    // an admin's form: the channel is made, its secret on this answer only
    const made = await a.post('/office/alerts/channels', [['kind', 'webhook'], ['name', 'Pager'], ['target', 'https://pager.example.com/in'], ['lang', 'en']]);
    expect(made.statusCode, made.body).toBe(200);
    const secret = /whs_[A-Za-z0-9_-]{43}/.exec(made.body)?.[0];
    expect(secret).toBeDefined();
    expect((await a.get('/office/alerts')).body).not.toContain(secret!);
    const refused = await a.post('/office/alerts/channels', [['kind', 'webhook'], ['name', 'Inside'], ['target', 'http://192.168.1.9/x'], ['lang', 'en']]);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('value="http://192.168.1.9/x"');
    expect((await a.post('/office/alerts/channels', [['kind', 'email'], ['name', 'X'], ['target', 'x@example.com'], ['lang', 'en']], { csrf: null })).statusCode).toBe(403);
    expect((await s.post('/office/alerts/channels', [['kind', 'email'], ['name', 'X'], ['target', 'x@example.com'], ['lang', 'en']])).statusCode).toBe(403);
    const channels = json(await admin(h.app, 'GET', '/alert-channels')).result;
    expect(channels.filter((c: any) => c.name === 'X' || c.name === 'Inside')).toEqual([]);
    const pager = channels.find((c: any) => c.name === 'Pager');
    expect((await s.post(`/office/alerts/channels/${pager.id}/disable`)).statusCode).toBe(403);
    expect((await a.post(`/office/alerts/channels/${pager.id}/disable`)).statusCode).toBe(303);
    expect(json(await admin(h.app, 'GET', `/alert-channels/${pager.id}`)).result.enabled).toBe(false);
    const sp = await s.get('/office/alerts');
    expect(sp.body).toContain('Pager');
    expect(sp.body).not.toContain('id="channel-form"');
  });
});

const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);

/** A camt.053 of one account with the entries given. */
function camt053(account: string, entries: string, opts: { id: string; opening: string; closing: string }): string {
  const bal = (code: string, amount: string) => `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${opts.id}</MsgId><CreDtTm>${today()}T13:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${opts.id}</Id>
      <Acct><Id><Othr><Id>${account}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>
      ${bal('OPBD', opts.opening)}
      ${bal('CLBD', opts.closing)}
      ${entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>`;
}
const ntry = (amount: string, bankRef: string) => `
      <Ntry><Amt Ccy="RUB">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><DtTm>${new Date(h.clock.now()).toISOString()}</DtTm></BookgDt><AcctSvcrRef>${bankRef}</AcctSvcrRef></Ntry>`;
