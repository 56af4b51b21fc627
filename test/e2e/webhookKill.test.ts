import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app/buildApp.js';
import { WebhookSender } from '../../src/callbacks/webhookSender.js';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { signRequest } from '../../src/signing.js';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { signed } from '../helpers/harness.js';
import { adminApi, bareEnv, copyOfMigratedDataDir, freePort, killChildren, NO_DRAIN, runAsNpmStart, STARTUP_MS, until, waitStatus } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * A real server process (`node dist/main.js serve`) killed with -9 while a webhook endpoint's
 * delivery is in flight: what it leaves in the database is what the next sender finds. The takeover
 * runs in this process on the same database with a clock of the test's, moved past the dead
 * sender's lease instead of waiting it out.
 */

afterAll(killChildren);

const ADMIN_TOKEN = `e2e-whkill-${randomBytes(12).toString('hex')}`;

describe(`a server killed with -9 mid-delivery (${serverUrl ? 'PostgreSQL' : 'embedded database'})`, () => {
  let rx: Receiver;
  let testDb: TestDb | null = null;
  let dataDir = '';

  afterAll(async () => {
    await rx?.close();
    await testDb?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no webhook delivery: the next sender sends it again after the lease, with the same webhook-id, and the attempt log says the first was interrupted', async () => {
    rx = await startReceiver();
    dataDir = await copyOfMigratedDataDir('e2e-whkill');
    if (serverUrl) testDb = await createTestDb();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = bareEnv({
      PORT: String(port),
      ADMIN_TOKEN,
      DATA_DIR: dataDir,
      MASTER_KEY: randomBytes(32).toString('hex'),
      SEED_DEMO: 'false',
      CALLBACK_ALLOWLIST: '127.0.0.1',
      ...(testDb ? { DATABASE_URL: testDb.url! } : {}),
      ...NO_DRAIN,
    });
    const proc = runAsNpmStart(['serve'], env);
    await waitStatus(`${base}/healthz`, proc);

    const adminCall = adminApi(base, ADMIN_TOKEN);
    expect((await adminCall('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' })).status).toBe(200);
    expect((await adminCall('PUT', '/rates/RUB', { rate: '91.8' })).status).toBe(200);
    const m = await adminCall('POST', '/merchants', { name: 'Killed shop', sandbox: true });
    const d = await adminCall('POST', `/merchants/${m.json.result.id}/desks`, {
      method: 'Classic', rails: ['Sbp'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: `${rx.url}/desk`, tariffId: null,
    });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    const desk = { key: d.json.result.key as string, secret: d.json.result.secret as string };
    const signedPost = async (path: string, body: unknown) => {
      const text = JSON.stringify(body);
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('hex');
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(desk.secret, ts, nonce, 'POST', path, text), 'content-type': 'application/json' },
        body: text,
      });
      return { status: res.status, json: (await res.json()) as any };
    };

    // The endpoint's receiver takes the request and never answers: the delivery is in flight.
    rx.respond((r) => (r.path === '/hook' ? 'hang' : { status: 200, body: 'ok' }));
    const endpoint = await signedPost('/gw/v1/webhook-endpoints', { url: `${rx.url}/hook`, events: ['order.completed'] });
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    const order = await signedPost('/gw/v1/orders', { amount: 918, rail: 'Sbp' });
    expect(order.status, JSON.stringify(order.json)).toBe(201);
    expect((await adminCall('POST', `/orders/${order.json.result.id}/simulate-payment`)).status).toBe(200);
    const hooks = () => rx.hits.filter((h) => h.path === '/hook');
    await until('the delivery in flight', () => hooks().length === 1, 15_000);

    proc.child.kill('SIGKILL');
    await proc.exit;
    rx.respond(() => ({ status: 200, body: 'ok' }));

    // The next sender, on the database as the killed process left it.
    const clock = new ManualClock(Date.now());
    const rt = await createRuntime(parseConfig(env), { clock, log: pino({ level: 'silent' }) });
    const app = buildApp(rt.ctx);
    await app.ready();
    const sender = new WebhookSender(rt.ctx, { timeoutMs: 2_000 });
    try {
      // Within the dead sender's lease nobody sends it: it may still be on its way.
      expect(await sender.runOnce()).toBe(0);
      expect(hooks()).toHaveLength(1);
      // After the lease (the timeout and its margin, 30 s) it is sent again.
      clock.advance(31_000);
      expect(await sender.runOnce()).toBe(1);
      expect(hooks()).toHaveLength(2);
      const [first, again] = hooks();
      expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(again!.body.equals(first!.body)).toBe(true);
      const payload = new Webhook(endpoint.json.result.secret).verify(again!.body.toString('utf8'), {
        'webhook-id': String(again!.headers['webhook-id']),
        'webhook-timestamp': String(again!.headers['webhook-timestamp']),
        'webhook-signature': String(again!.headers['webhook-signature']),
      }) as { type: string; data: { id: string } };
      expect(payload).toMatchObject({ type: 'order.completed', data: { id: order.json.result.id } });

      // The attempt log, as the merchant reads it.
      const res = await signed({ app, clock }, desk, `/gw/v1/webhook-endpoints/${endpoint.json.result.id}/attempts`);
      expect(res.statusCode, res.body).toBe(200);
      const attempts = JSON.parse(res.body).result.attempts as { attempt: number; outcome: string; error: string | null; eventId: string }[];
      expect(attempts.map((a) => `${a.attempt}:${a.outcome}`)).toEqual(['2:delivered', '1:interrupted']);
      expect(attempts[1]!.error).toBe('the sender stopped before the answer arrived');
      expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set([first!.headers['webhook-id']]));
      // Nothing is left to send.
      clock.advance(86_400_000);
      expect(await sender.runOnce()).toBe(0);
    } finally {
      await sender.stop(1_000);
      await app.close();
      await rt.close();
    }
  }, 3 * STARTUP_MS);
});
