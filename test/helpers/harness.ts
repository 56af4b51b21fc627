import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import type { Ctx } from '../../src/context.js';
import { buildApp } from '../../src/app/buildApp.js';
import { hashToken } from '../../src/http/adminAuth.js';
import { createMetrics } from '../../src/metrics.js';
import { SecretBox } from '../../src/secretbox.js';
import { dbNonceStore, type NonceStore } from '../../src/services/nonces.js';
import { createRateLimits } from '../../src/services/rateLimits.js';
import { signRequest } from '../../src/signing.js';
import { parseAllowlist, type Resolver } from '../../src/callbacks/urlGuard.js';
import { createTestDb, type TestDb } from './db.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Public-looking answers for every name, so callback URLs in tests pass the rules without DNS. */
export const publicResolver: Resolver = async () => ['93.184.215.14'];

export interface Harness {
  ctx: Ctx;
  app: FastifyInstance;
  clock: ManualClock;
  testDb: TestDb;
  close(): Promise<void>;
}

export async function createHarness(
  opts: {
    env?: Record<string, string>;
    nonces?: NonceStore;
    resolve?: Resolver;
    log?: pino.Logger;
    /** Suites about other rules that create many orders on one desk lift the per-desk order limit, so they never wait out its window. */
    unlimitedOrders?: boolean;
  } = {},
): Promise<Harness> {
  const testDb = await createTestDb();
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
  // Passwords are hashed at scrypt's lowest allowed cost here (the stored hash names it); the
  // default cost is checked where the hash format is the subject.
  const config = parseConfig({ SEED_DEMO: 'false', PASSWORD_SCRYPT_LOG2N: '10', ...opts.env });
  const ctx: Ctx = {
    config,
    db: testDb.db,
    readDb: testDb.db,
    clock,
    box: new SecretBox(randomBytes(32)),
    nonces: opts.nonces ?? dbNonceStore(testDb.db, clock),
    limits: createRateLimits(null, opts.unlimitedOrders ? { orderCreate: { points: 1_000_000, durationSec: 10, queued: 5 } } : {}, clock),
    metrics: createMetrics(),
    log: opts.log ?? pino({ level: 'silent' }),
    adminTokenHash: hashToken(ADMIN_TOKEN),
    callbackAllowlist: parseAllowlist(config.callbackAllowlist),
    resolve: opts.resolve ?? publicResolver,
  };
  const app = buildApp(ctx);
  await app.ready();
  return {
    ctx,
    app,
    clock,
    testDb,
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}

export function admin(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

export interface DeskCreds {
  key: string;
  secret: string;
  id: string;
  merchantId: string;
}

let nonceCounter = 0;
export const freshNonce = () => `nonce-${Date.now().toString(36)}-${++nonceCounter}-${randomBytes(4).toString('hex')}`;

export interface SignedOpts {
  method?: 'GET' | 'POST' | 'PATCH';
  body?: string | Buffer;
  ts?: string;
  nonce?: string;
  headers?: Record<string, string | undefined>;
  secret?: string;
  query?: string;
}

/** A /gw/v1 request signed exactly as the spec says, over the exact body bytes. */
export function signed(h: { app: FastifyInstance; clock: ManualClock }, desk: { key: string; secret: string }, path: string, o: SignedOpts = {}): Promise<LightMyRequestResponse> {
  const method = o.method ?? (o.body !== undefined ? 'POST' : 'GET');
  const ts = o.ts ?? String(Math.floor(h.clock.now() / 1000));
  const nonce = o.nonce ?? freshNonce();
  const body = o.body ?? '';
  const sign = signRequest(o.secret ?? desk.secret, ts, nonce, method, path, body);
  const headers: Record<string, string> = { 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sign };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return h.app.inject({ method, url: path + (o.query ? `?${o.query}` : ''), headers, payload: o.body === undefined ? undefined : body });
}

export function json(res: LightMyRequestResponse): any {
  return res.body === '' ? null : JSON.parse(res.body);
}

/** The body of a Classic desk (rails Sbp and C2c, RUB, no limits, no tariff), as operators create it. */
export const CLASSIC_DESK = {
  method: 'Classic',
  rails: ['Sbp', 'C2c'],
  currencies: ['RUB'],
  minUsd: '0',
  maxUsd: '0',
  callbackUrl: 'https://merchant.example/callbacks',
  tariffId: null,
};

/** A merchant with one desk, set up through the operator API as deployment tooling would. */
export async function provisionDesk(
  app: FastifyInstance,
  o: {
    merchant?: { name?: string; sandbox?: boolean; approve?: boolean };
    desk?: Record<string, unknown>;
    currencies?: Record<string, string>;
  } = {},
): Promise<DeskCreds & { raw: any }> {
  for (const [code, rate] of Object.entries(o.currencies ?? { RUB: '91.8' })) {
    await admin(app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' });
    await admin(app, 'PUT', `/rates/${code}`, { rate });
  }
  const m = json(await admin(app, 'POST', '/merchants', { name: o.merchant?.name ?? 'Shop', sandbox: o.merchant?.sandbox ?? true }));
  if (o.merchant?.approve) await admin(app, 'POST', `/merchants/${m.result.id}/approve`);
  const res = await admin(app, 'POST', `/merchants/${m.result.id}/desks`, { ...CLASSIC_DESK, ...o.desk });
  const d = json(res);
  if (res.statusCode !== 201) throw new Error(`desk creation failed: ${res.body}`);
  return { key: d.result.key, secret: d.result.secret, id: d.result.id, merchantId: m.result.id, raw: d.result };
}
