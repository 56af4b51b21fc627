import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WebhookSender, WEBHOOK_RETRY_DELAYS_S } from '../../src/callbacks/webhookSender.js';
import { claimDeliveries } from '../../src/store/webhookEndpoints.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';

// Webhook endpoints (Standard Webhooks): the API, deliveries verified by the official npm package
// and by a receiver written from the specification in Python, the retry schedule, 410, five days of
// failures, rotation, recovery, the attempt log, and one endpoint never holding another.

const VERIFY_PY = fileURLToPath(new URL('../fixtures/webhooks/verify.py', import.meta.url));
const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;

let h: Harness;
let rx: Receiver;
let sender: WebhookSender;

beforeAll(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' } });
  // Deliveries are verified by libraries that read the real clock: the fake one starts at real time.
  h.clock.set(Date.now());
  rx = await startReceiver();
  sender = new WebhookSender(h.ctx, { timeoutMs: 500, random: () => 0.5 });
});
afterAll(async () => {
  await sender.stop(1000);
  await rx.close();
  await h.close();
});
afterEach(async () => {
  rx.hits.length = 0;
  rx.respond(() => ({ status: 200, body: 'ok' }));
  // Each test starts with nothing due: what a test left retrying would otherwise fall due in the next.
  await h.ctx.db.query(`UPDATE webhook_deliveries SET state = 'failed', locked_by = NULL, locked_until = NULL WHERE state = 'pending'`);
  h.clock.set(Date.now());
});

const body = (o: unknown) => JSON.stringify(o);
const post = (d: DeskCreds, path: string, o: unknown = {}) => signed(h, d, `/gw/v1${path}`, { body: body(o) });
const patch = (d: DeskCreds, path: string, o: unknown) => signed(h, d, `/gw/v1${path}`, { method: 'PATCH', body: body(o) });
const get = (d: DeskCreds, path: string, query?: string) => signed(h, d, `/gw/v1${path}`, { query });

async function desk(): Promise<DeskCreds> {
  // Desk callbacks go to a path of their own on the same receiver, so the endpoint's hits are told apart.
  return provisionDesk(h.app, { desk: { callbackUrl: `${rx.url}/desk-callback` } });
}

async function endpoint(d: DeskCreds, extra: Record<string, unknown> = {}, path = '/hook') {
  const res = await post(d, '/webhook-endpoints', { url: `${rx.url}${path}`, events: ['*'], ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result as { id: string; secret: string; url: string; events: string[]; desks: string[] | null; enabled: boolean };
}

async function completedOrder(d: DeskCreds, ref?: string): Promise<string> {
  const res = await post(d, '/orders', { amount: 918, rail: 'Sbp', ...(ref ? { orderRef: ref } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  const id = json(res).result.id as string;
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  return id;
}

async function cancelledOrder(d: DeskCreds): Promise<string> {
  const res = await post(d, '/orders', { amount: 100, rail: 'Sbp' });
  const id = json(res).result.id as string;
  expect((await post(d, `/orders/${id}/cancel`, {})).statusCode).toBe(200);
  return id;
}

/** Runs the sender until nothing is due at the current fake time. */
async function sendDue() {
  while ((await sender.runOnce()) > 0);
}

const hooks = (path = '/hook') => rx.hits.filter((r) => r.path === path);
const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

function pythonVerifies(r: Received, secrets: string[], nowSec = Math.floor(h.clock.now() / 1000)): string {
  const p = spawnSync('python3', [VERIFY_PY, ...secrets], { input: JSON.stringify({ headers: headersOf(r), body: r.body.toString('utf8'), now: nowSec }) });
  return p.stdout.toString().trim();
}

async function addOwner(d: DeskCreds) {
  const res = await admin(h.app, 'POST', `/merchants/${d.merchantId}/users`, { email: `owner-${d.id}@example.com`, password: 'correct horse battery staple', role: 'owner' });
  expect(res.statusCode, res.body).toBe(201);
}

async function disabledMails(endpointId: string) {
  const { rows } = await h.ctx.db.query<{ to_address: string; data: { reason: string } }>(
    `SELECT to_address, data FROM mail_outbox WHERE kind = 'webhook-disabled' AND data->>'cabinetUrl' LIKE '%/' || $1 ORDER BY created_at`,
    [endpointId],
  );
  return rows.map((r) => ({ to: r.to_address, reason: r.data.reason }));
}

const attemptsOf = async (d: DeskCreds, id: string, query?: string) => json(await get(d, `/webhook-endpoints/${id}/attempts`, query)).result;

describe('webhook endpoints: the API', () => {
  it('creates an endpoint with its secret shown once, lists and reads it without one, and changes it', async () => {
    const d = await desk();
    const res = await post(d, '/webhook-endpoints', { url: 'https://erp.example.com/paygate', events: ['order.completed'], description: 'ERP' });
    expect(res.statusCode).toBe(201);
    const e = json(res).result;
    expect(e).toMatchObject({ url: 'https://erp.example.com/paygate', events: ['order.completed'], desks: null, description: 'ERP', enabled: true, disabledReason: null });
    expect(e.id).toMatch(/^whe_[0-9a-z]{26}$/);
    expect(e.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // whsec_ + base64 of 24 to 64 random bytes
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const bytes = Buffer.from(e.secret.slice(6), 'base64').length;
    expect(bytes).toBeGreaterThanOrEqual(24);
    expect(bytes).toBeLessThanOrEqual(64);

    const list = json(await get(d, '/webhook-endpoints')).result.endpoints;
    expect(list.map((x: { id: string }) => x.id)).toEqual([e.id]);
    expect(JSON.stringify(list)).not.toContain(e.secret.slice(6));
    expect(list[0]).not.toHaveProperty('secret');
    const one = json(await get(d, `/webhook-endpoints/${e.id}`)).result;
    expect(one).not.toHaveProperty('secret');
    expect(one.url).toBe(e.url);

    const changed = await patch(d, `/webhook-endpoints/${e.id}`, { events: ['order.completed', 'order.cancelled'], desks: [d.id], description: null, enabled: false });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(json(changed).result).toMatchObject({ events: ['order.completed', 'order.cancelled'], desks: [d.id], description: null, enabled: false, disabledReason: 'disabled by the merchant' });
    const enabled = json(await patch(d, `/webhook-endpoints/${e.id}`, { enabled: true })).result;
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('is the merchant\'s: a second desk of the merchant sees it, another merchant gets 404', async () => {
    const d = await desk();
    const e = await endpoint(d);
    const second = json(await admin(h.app, 'POST', `/merchants/${d.merchantId}/desks`, { method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: null, tariffId: null })).result;
    const sibling = { key: second.key, secret: second.secret, id: second.id, merchantId: d.merchantId };
    expect(json(await get(sibling, `/webhook-endpoints/${e.id}`)).result.id).toBe(e.id);
    const stranger = await desk();
    for (const res of [
      await get(stranger, `/webhook-endpoints/${e.id}`),
      await patch(stranger, `/webhook-endpoints/${e.id}`, { enabled: false }),
      await post(stranger, `/webhook-endpoints/${e.id}/rotate-secret`),
      await post(stranger, `/webhook-endpoints/${e.id}/recover`, { since: new Date(h.clock.now() - 60_000).toISOString() }),
      await get(stranger, `/webhook-endpoints/${e.id}/attempts`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(json(res).fault.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
    }
    expect(json(await get(stranger, '/webhook-endpoints')).result.endpoints).toEqual([]);
  });

  it('refuses bad input with the code that says why', async () => {
    const d = await desk();
    const other = await desk();
    const cases: [unknown, number, string, RegExp][] = [
      [{ url: 'https://a.example.com/h', events: [] }, 400, 'VALIDATION_ERROR', /events/],
      [{ url: 'https://a.example.com/h', events: ['order.shipped'] }, 400, 'VALIDATION_ERROR', /unknown event kind/],
      [{ url: 'https://a.example.com/h', events: ['*', 'order.completed'] }, 400, 'VALIDATION_ERROR', /alone/],
      [{ url: 'https://a.example.com/h', events: ['*'], desks: [other.id] }, 400, 'VALIDATION_ERROR', /not a desk of this merchant/],
      [{ url: 'https://a.example.com/h', events: ['*'], desks: [] }, 400, 'VALIDATION_ERROR', /desks/],
      [{ url: 'https://a.example.com/h', events: ['*'], color: 'red' }, 400, 'VALIDATION_ERROR', /color/],
      [{ url: 'http://10.0.0.7/hook', events: ['*'] }, 400, 'INVALID_CALLBACK_URL', /url/],
      [{ url: 'http://localhost:8080/hook', events: ['*'] }, 400, 'INVALID_CALLBACK_URL', /url/],
      [{ url: 'ftp://a.example.com/h', events: ['*'] }, 400, 'INVALID_CALLBACK_URL', /url/],
      [{ events: ['*'] }, 400, 'VALIDATION_ERROR', /url/],
    ];
    for (const [b, status, code, detail] of cases) {
      const res = await post(d, '/webhook-endpoints', b);
      expect(res.statusCode, JSON.stringify(b)).toBe(status);
      expect(json(res).fault.code, JSON.stringify(b)).toBe(code);
      expect(json(res).fault.detail, JSON.stringify(b)).toMatch(detail);
      expect(res.body).not.toMatch(/at .*\.ts:\d+/);
    }
    const e = await endpoint(d);
    const future = await post(d, `/webhook-endpoints/${e.id}/recover`, { since: new Date(h.clock.now() + 60_000).toISOString() });
    expect(json(future).fault).toMatchObject({ code: 'VALIDATION_ERROR', detail: 'since: must not be in the future' });
    const old = await post(d, `/webhook-endpoints/${e.id}/recover`, { since: new Date(h.clock.now() - 31 * 86_400_000).toISOString() });
    expect(json(old).fault).toMatchObject({ code: 'VALIDATION_ERROR', detail: 'since: at most 30 days ago' });
    const notTime = await post(d, `/webhook-endpoints/${e.id}/recover`, { since: 'yesterday' });
    expect(json(notTime).fault.code).toBe('VALIDATION_ERROR');
    expect(json(await get(d, `/webhook-endpoints/${e.id}/attempts`, 'limit=0')).fault.code).toBe('VALIDATION_ERROR');
    expect(json(await get(d, `/webhook-endpoints/${e.id}/attempts`, 'before=abc')).fault.code).toBe('VALIDATION_ERROR');
  });

  it('refuses an endpoint beyond the merchant\'s limit, clearly', async () => {
    const d = await desk();
    const max = h.ctx.config.webhookEndpointsPerMerchant;
    for (let i = 0; i < max; i++) expect((await post(d, '/webhook-endpoints', { url: `https://h${i}.example.com/hook`, events: ['*'] })).statusCode).toBe(201);
    const res = await post(d, '/webhook-endpoints', { url: 'https://one-more.example.com/hook', events: ['*'] });
    expect(res.statusCode).toBe(409);
    expect(json(res).fault).toMatchObject({ code: 'WEBHOOK_ENDPOINT_LIMIT_REACHED', detail: expect.stringContaining(`at most ${max}`) });
  });
});

describe('webhook endpoints: delivery', () => {
  it('delivers Standard Webhooks that the official package and a Python receiver both verify; data is the callback body', async () => {
    const d = await desk();
    const e = await endpoint(d);
    const orderId = await completedOrder(d, 'inv-1');
    await sendDue();
    const [hit] = hooks();
    expect(hooks()).toHaveLength(1);
    expect(hit!.headers['content-type']).toBe('application/json');
    const payload = new Webhook(e.secret).verify(hit!.body.toString('utf8'), headersOf(hit!)) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload.type).toBe('order.completed');
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.data).toMatchObject({ event: 'order.completed', id: orderId, orderRef: 'inv-1', status: 'Completed', sandbox: true });
    // The webhook-id is the event id: the desk callback of the same event carries it too.
    const events = json(await get(d, '/events')).result.events as { id: string; event: string }[];
    const evt = events.find((x) => x.event === 'order.completed')!;
    expect(hit!.headers['webhook-id']).toBe(evt.id);
    expect(hit!.headers['webhook-timestamp']).toBe(String(Math.floor(h.clock.now() / 1000)));
    if (HAS_PYTHON) {
      expect(pythonVerifies(hit!, [e.secret])).toBe('ok');
      const tampered = { ...hit!, body: Buffer.from(hit!.body.toString().replace('Completed', 'Canceled')) };
      expect(pythonVerifies(tampered, [e.secret])).toBe('no matching signature');
    } else if (process.env.CI) throw new Error('python3 is needed for the receiver written from the specification');
    expect(() => new Webhook(e.secret).verify(hit!.body.toString().replace('918', '919'), headersOf(hit!))).toThrow();
    // The desk's own callback went out unchanged, to its own URL, by its own worker (not this one).
    expect(hooks('/desk-callback')).toHaveLength(0);
  });

  it('takes only the events and desks it names', async () => {
    const d = await desk();
    const cancelledOnly = await endpoint(d, { events: ['order.cancelled'] }, '/cancelled');
    const everything = await endpoint(d, { events: ['*'], desks: [d.id] }, '/all');
    const other = await desk();
    await endpoint(other, { events: ['*'] }, '/other');
    await completedOrder(d);
    await cancelledOrder(d);
    await sendDue();
    const types = (p: string) => hooks(p).map((r) => JSON.parse(r.body.toString()).type).sort();
    expect(types('/cancelled')).toEqual(['order.cancelled']);
    expect(types('/all')).toEqual(['order.cancelled', 'order.completed']);
    expect(types('/other')).toEqual([]);
    void cancelledOnly;
    void everything;
  });

  it('retries on the schedule with spread, honours Retry-After, and logs every attempt', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 500, body: 'down' }));
    await completedOrder(d);
    await sendDue();
    expect(hooks()).toHaveLength(1);
    let page = await attemptsOf(d, e.id);
    expect(page.attempts[0]).toMatchObject({ type: 'order.completed', attempt: 1, outcome: 'retry', statusCode: 500, error: null });
    // 5 s plus half of the 10 % spread (the sender's random is 0.5 here)
    // 5 s stretched by half the 10 % spread (the sender's random is 0.5 here): 5.25 s, shown to the second
    const gap = Date.parse(page.attempts[0].nextAttemptAt) - Date.parse(page.attempts[0].at);
    expect(gap).toBeGreaterThanOrEqual(5000);
    expect(gap).toBeLessThanOrEqual(6000);
    h.clock.advance(4_000);
    await sendDue();
    expect(hooks()).toHaveLength(1);
    h.clock.advance(2_000);
    rx.respond(() => ({ status: 429, body: 'slow down', headers: { 'retry-after': '86400' } }));
    await sendDue();
    expect(hooks()).toHaveLength(2);
    page = await attemptsOf(d, e.id);
    expect(page.attempts[0]).toMatchObject({ attempt: 2, outcome: 'retry', statusCode: 429 });
    // The schedule says 5 min; the receiver said a day: no sooner than a day.
    expect(Date.parse(page.attempts[0].nextAttemptAt) - Date.parse(page.attempts[0].at)).toBeGreaterThanOrEqual(86_400_000 - 1000);
    h.clock.advance(3_600_000);
    await sendDue();
    expect(hooks()).toHaveLength(2);
    h.clock.advance(86_400_000);
    rx.respond(() => ({ status: 204 }));
    await sendDue();
    expect(hooks()).toHaveLength(3);
    page = await attemptsOf(d, e.id);
    expect(page.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['delivered', 'retry', 'retry']);
    expect(page.attempts[0]).toMatchObject({ attempt: 3, statusCode: 204, nextAttemptAt: null });
    // The same webhook-id on every attempt, a fresh timestamp each time.
    expect(new Set(hooks().map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(hooks().map((r) => r.headers['webhook-timestamp'])).size).toBe(3);
    h.clock.set(Date.now());
  });

  it('gives up after eight attempts over about 28 hours', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 502 }));
    await completedOrder(d);
    await sendDue();
    for (const s of WEBHOOK_RETRY_DELAYS_S) {
      h.clock.advance(s * 1000 * 1.1 + 1000);
      await sendDue();
    }
    expect(hooks()).toHaveLength(8);
    const page = await attemptsOf(d, e.id);
    expect(page.attempts[0]).toMatchObject({ attempt: 8, outcome: 'failed', nextAttemptAt: null });
    const span = Date.parse(page.attempts[0].at) - Date.parse(page.attempts[7].at);
    expect(span / 3_600_000).toBeGreaterThan(27);
    expect(span / 3_600_000).toBeLessThan(32);
    h.clock.advance(86_400_000);
    await sendDue();
    expect(hooks()).toHaveLength(8);
    h.clock.set(Date.now());
  });

  it('410 Gone disables the endpoint, mails the owners and is audited', async () => {
    const d = await desk();
    await addOwner(d);
    const e = await endpoint(d);
    rx.respond(() => ({ status: 410, body: 'gone' }));
    await completedOrder(d);
    await sendDue();
    const ep = json(await get(d, `/webhook-endpoints/${e.id}`)).result;
    expect(ep).toMatchObject({ enabled: false, disabledReason: 'the receiver answered 410 Gone' });
    expect((await attemptsOf(d, e.id)).attempts[0]).toMatchObject({ outcome: 'failed', statusCode: 410 });
    const { rows } = await h.ctx.db.query<{ action: string; detail: string }>(`SELECT action, detail FROM audit_entries WHERE object_id = $1 ORDER BY id`, [e.id]);
    expect(rows.map((r) => r.action)).toEqual(['webhook-endpoint.create', 'webhook-endpoint.disable']);
    expect(await disabledMails(e.id)).toEqual([{ to: `owner-${d.id}@example.com`, reason: 'the receiver answered 410 Gone' }]);
    // No more deliveries while disabled: a new event is not even queued for it.
    rx.hits.length = 0;
    await completedOrder(d);
    await sendDue();
    expect(hooks()).toHaveLength(0);
  });

  it('an endpoint failing every attempt for five days is disabled and its owners are mailed', async () => {
    const d = await desk();
    await addOwner(d);
    const e = await endpoint(d);
    rx.respond(() => ({ status: 500 }));
    await completedOrder(d);
    await sendDue();
    h.clock.advance(3 * 86_400_000);
    await completedOrder(d);
    await sendDue();
    expect(json(await get(d, `/webhook-endpoints/${e.id}`)).result.enabled).toBe(true);
    h.clock.advance(2 * 86_400_000 + 60_000);
    await completedOrder(d);
    await sendDue();
    const ep = json(await get(d, `/webhook-endpoints/${e.id}`)).result;
    expect(ep).toMatchObject({ enabled: false, disabledReason: 'every attempt failed for five days' });
    expect(await disabledMails(e.id)).toEqual([{ to: `owner-${d.id}@example.com`, reason: 'every attempt failed for five days' }]);
    expect(await h.ctx.metrics.registry.metrics()).toMatch(/paygate_webhook_endpoints_disabled_total\{reason="failing"\} 1/);
    h.clock.set(Date.now());
  });

  it('a delivery that succeeds ends the failing streak', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 500 }));
    await completedOrder(d);
    await sendDue();
    h.clock.advance(4 * 86_400_000);
    rx.respond(() => ({ status: 200 }));
    await completedOrder(d);
    await sendDue();
    rx.respond(() => ({ status: 500 }));
    h.clock.advance(2 * 86_400_000);
    await completedOrder(d);
    await sendDue();
    expect(json(await get(d, `/webhook-endpoints/${e.id}`)).result.enabled).toBe(true);
    h.clock.set(Date.now());
  });

  it('rotation: for 24 hours both secrets sign, each verifies; then only the new one', async () => {
    const d = await desk();
    const e = await endpoint(d);
    const rot = await post(d, `/webhook-endpoints/${e.id}/rotate-secret`);
    expect(rot.statusCode).toBe(200);
    const fresh = json(rot).result.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(e.secret);
    await completedOrder(d);
    await sendDue();
    const [hit] = hooks();
    expect(String(hit!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [fresh, e.secret]) expect(() => new Webhook(s).verify(hit!.body.toString(), headersOf(hit!))).not.toThrow();
    if (HAS_PYTHON) {
      expect(pythonVerifies(hit!, [fresh])).toBe('ok');
      expect(pythonVerifies(hit!, [e.secret])).toBe('ok');
    }
    // A day later the old secret no longer signs.
    h.clock.advance(86_400_000 + 1000);
    rx.hits.length = 0;
    await completedOrder(d);
    await sendDue();
    const [later] = hooks();
    expect(String(later!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    if (HAS_PYTHON) {
      expect(pythonVerifies(later!, [fresh])).toBe('ok');
      expect(pythonVerifies(later!, [e.secret])).toBe('no matching signature');
    }
    h.clock.set(Date.now());
  });

  it('recover re-queues what failed and what came while disabled, since the time given', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 500 }));
    await completedOrder(d);
    await sendDue();
    for (const s of WEBHOOK_RETRY_DELAYS_S) {
      h.clock.advance(s * 1100 + 1000);
      await sendDue();
    }
    expect((await attemptsOf(d, e.id)).attempts[0].outcome).toBe('failed');
    await patch(d, `/webhook-endpoints/${e.id}`, { enabled: false });
    await cancelledOrder(d);
    await completedOrder(d);
    await patch(d, `/webhook-endpoints/${e.id}`, { enabled: true });
    rx.respond(() => ({ status: 200 }));
    rx.hits.length = 0;
    await sendDue();
    expect(hooks()).toHaveLength(0);
    const rec = await post(d, `/webhook-endpoints/${e.id}/recover`, { since: new Date(h.clock.now() - 3 * 86_400_000).toISOString() });
    expect(rec.statusCode, rec.body).toBe(200);
    // one failed delivery again, and the three events of the two orders made while disabled (created, then cancelled; created, then completed)
    const requeued = json(rec).result.requeued as number;
    expect(requeued).toBeGreaterThanOrEqual(3);
    await sendDue();
    expect(hooks()).toHaveLength(requeued);
    // A second recovery finds nothing left to send.
    expect(json(await post(d, `/webhook-endpoints/${e.id}/recover`, { since: new Date(h.clock.now() - 3 * 86_400_000).toISOString() })).result.requeued).toBe(0);
    h.clock.set(Date.now());
  });

  it('the attempt log pages newest first', async () => {
    const d = await desk();
    const e = await endpoint(d);
    for (let i = 0; i < 5; i++) await completedOrder(d);
    await sendDue();
    const first = await attemptsOf(d, e.id, 'limit=2');
    expect(first.attempts).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = await attemptsOf(d, e.id, `limit=2&before=${first.next}`);
    const third = await attemptsOf(d, e.id, `limit=2&before=${second.next}`);
    expect(third).toMatchObject({ hasMore: false, next: null });
    const ids = [...first.attempts, ...second.attempts, ...third.attempts].map((a: { id: string }) => Number(a.id));
    expect(ids).toHaveLength(5);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  it('a test event reaches the endpoint alone, typed webhook.test', async () => {
    const d = await desk();
    const e = await endpoint(d, { events: ['order.cancelled'] });
    const res = await post(d, `/webhook-endpoints/${e.id}/test`);
    expect(res.statusCode).toBe(202);
    await sendDue();
    const [hit] = hooks();
    const payload = new Webhook(e.secret).verify(hit!.body.toString(), headersOf(hit!)) as { type: string; data: { endpointId: string } };
    expect(payload).toMatchObject({ type: 'webhook.test', data: { endpointId: e.id } });
    expect(hit!.headers['webhook-id']).toBe(json(res).result.eventId);
  });

  it('a host that now resolves to a private address, a redirect and a hanging receiver are failed attempts, retried', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 302, headers: { location: 'http://10.0.0.1/' } }));
    await completedOrder(d);
    await sendDue();
    let a = (await attemptsOf(d, e.id)).attempts[0];
    expect(a).toMatchObject({ outcome: 'retry', statusCode: 302 });
    expect(rx.hits.filter((r) => r.path !== '/hook' && r.path !== '/desk-callback')).toHaveLength(0);
    rx.respond(() => 'hang');
    h.clock.advance(6_000);
    await sendDue();
    a = (await attemptsOf(d, e.id)).attempts[0];
    expect(a).toMatchObject({ outcome: 'retry', statusCode: null, error: 'no answer within 500 ms' });
    // A receiver answering 200 with 10 MB: delivered on its status, the rest never read.
    rx.respond(() => ({ status: 200, body: 'x'.repeat(10 * 1024 * 1024) }));
    h.clock.advance(400_000);
    await sendDue();
    a = (await attemptsOf(d, e.id)).attempts[0];
    expect(a).toMatchObject({ outcome: 'delivered', statusCode: 200, nextAttemptAt: null });

    // A host that resolved to a public address at creation and to a private one now: checked at connect time, nothing sent.
    let address = '93.184.215.14';
    const h2 = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' }, resolve: async () => [address] });
    const s2 = new WebhookSender(h2.ctx, { timeoutMs: 500 });
    try {
      h2.clock.set(Date.now());
      const d2 = await provisionDesk(h2.app, { desk: { callbackUrl: `${rx.url}/desk-callback` } });
      const made = await signed(h2, d2, '/gw/v1/webhook-endpoints', { body: body({ url: 'https://erp.example.com/hook', events: ['*'] }) });
      expect(made.statusCode).toBe(201);
      address = '10.1.2.3';
      const created = await signed(h2, d2, '/gw/v1/orders', { body: body({ amount: 918, rail: 'Sbp' }) });
      expect(created.statusCode, created.body).toBe(201);
      const order = json(created).result.id;
      await admin(h2.app, 'POST', `/orders/${order}/simulate-payment`);
      await s2.runOnce();
      const log = json(await signed(h2, d2, `/gw/v1/webhook-endpoints/${json(made).result.id}/attempts`)).result.attempts;
      expect(log[0]).toMatchObject({ outcome: 'retry', statusCode: null, error: 'blocked address' });
    } finally {
      await s2.stop(0);
      await h2.close();
    }
    h.clock.set(Date.now());
  });
});

describe('webhook endpoints: isolation and crashes', () => {
  it('a hanging endpoint holds at most its own slots; another endpoint is served at once', async () => {
    const d = await desk();
    const slow = await endpoint(d, {}, '/slow');
    const other = await desk();
    const fast = await endpoint(other, {}, '/fast');
    rx.respond((r) => (r.path === '/slow' ? 'hang' : { status: 200 }));
    for (let i = 0; i < 6; i++) await completedOrder(d);
    for (let i = 0; i < 6; i++) await completedOrder(other);
    const s = new WebhookSender(h.ctx, { timeoutMs: 60_000 });
    try {
      s.start();
      // four in flight to the slow endpoint (WEBHOOK_ENDPOINT_CONCURRENCY), all six to the fast one
      await expect.poll(() => hooks('/fast').length, { timeout: 5000 }).toBe(6);
      expect(hooks('/slow')).toHaveLength(h.ctx.config.webhookEndpointConcurrency);
      const { rows } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND locked_by IS NOT NULL`, [slow.id]);
      expect(rows[0]!.n).toBe(4);
      // A second instance claims nothing more for the slow endpoint: the limit holds across instances.
      const s2 = new WebhookSender(h.ctx, { timeoutMs: 60_000 });
      expect(await s2.pump()).toBe(0);
      await s2.stop(0);
    } finally {
      rx.respond(() => ({ status: 200 }));
      await s.stop(0);
    }
    void fast;
  });

  it('a sender killed mid-delivery loses nothing: after its lease another sends again and the log says it was interrupted', async () => {
    const d = await desk();
    const e = await endpoint(d);
    await completedOrder(d);
    // What a sender killed with -9 right after its claim leaves behind: a delivery leased to it, no record.
    const claimed = await claimDeliveries(h.ctx.db, { me: 'ws_killed', now: new Date(h.clock.now()), leaseUntil: new Date(h.clock.now() + 30_000), concurrency: 4, limit: 10 });
    expect(claimed.map((c) => c.endpoint_id)).toEqual([e.id]);
    // Within the lease nobody takes it.
    await sendDue();
    expect(hooks()).toHaveLength(0);
    h.clock.advance(31_000);
    await sendDue();
    expect(hooks()).toHaveLength(1);
    const page = await attemptsOf(d, e.id);
    expect(page.attempts.map((a: { outcome: string; attempt: number }) => `${a.attempt}:${a.outcome}`)).toEqual(['2:delivered', '1:interrupted']);
    expect(page.attempts[1].error).toBe('the sender stopped before the answer arrived');
  });

  it('the backlog per endpoint is a metric', async () => {
    const d = await desk();
    const e = await endpoint(d);
    rx.respond(() => ({ status: 500 }));
    await completedOrder(d);
    await completedOrder(d);
    const s = new WebhookSender(h.ctx, { timeoutMs: 500 });
    await s.runOnce();
    h.clock.advance(6_000);
    await s.runOnce();
    await s.stop(0);
    const text = await h.ctx.metrics.registry.metrics();
    expect(text).toMatch(new RegExp(`paygate_webhook_endpoint_backlog\\{endpoint="${e.id}"\\} 2`));
    expect(text).toMatch(/paygate_webhook_attempts_total\{outcome="retry"\} \d+/);
    h.clock.set(Date.now());
  });
});
