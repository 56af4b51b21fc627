import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/signing.js';
import { startMockProvider, type MockProvider } from '../../tools/mock-provider.js';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { adminApi, bareEnv, copyOfMigratedDataDir, freePort, killChildren, NO_DRAIN, ROOT, runAsNpmStart, scratchDir, stop, STARTUP_MS, until, waitStatus, type Proc } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Traces of the real server (`node dist/main.js serve`, a process of its own, because OpenTelemetry
 * is global to a process), exported over OTLP/HTTP to a receiver here that decodes the JSON the
 * exporter sends: the spans of an order's creation, of a provider's call and of a callback attempt,
 * their attributes and parents, the answer's X-Trace-Id and the `traceparent` a provider receives.
 */

afterAll(killChildren);

const ADMIN_TOKEN = `e2e-trace-${randomBytes(12).toString('hex')}`;
const IMPORT_LOG_HOOK = join(ROOT, 'test/fixtures/importLog.mjs');
const redisUrl = process.env.REDIS_URL ?? null;
const CALLBACK_QUERY_SECRET = `cbq${randomBytes(8).toString('hex')}`;

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

/** OTLP/JSON ids are hex strings (base64 in the protobuf mapping, accepted too). */
function hexId(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  return /^[0-9a-f]+$/i.test(v) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
}

function attributeValue(v: Record<string, unknown>): string | number | boolean {
  if ('stringValue' in v) return v.stringValue as string;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('boolValue' in v) return v.boolValue as boolean;
  return JSON.stringify(v);
}

function attributes(list: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const a of (list as { key: string; value: Record<string, unknown> }[] | undefined) ?? []) out[a.key] = attributeValue(a.value);
  return out;
}

/** Every span in the export requests the receiver got so far. */
function decode(otlp: Receiver): Span[] {
  const spans: Span[] = [];
  for (const hit of otlp.hits) {
    if (hit.path !== '/v1/traces') continue;
    const body = JSON.parse(hit.body.toString('utf8')) as { resourceSpans: any[] };
    for (const rs of body.resourceSpans) {
      const service = String(attributes(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({ traceId: hexId(s.traceId), spanId: hexId(s.spanId), parentSpanId: hexId(s.parentSpanId), name: s.name, kind: s.kind, attributes: attributes(s.attributes), service });
        }
      }
    }
  }
  return spans;
}

/** The chain of names from a span up to its trace's root. */
function ancestry(spans: Span[], s: Span): string[] {
  const byId = new Map(spans.map((x) => [x.spanId, x]));
  const names: string[] = [];
  for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) names.push(p.name);
  return names;
}

describe(`traces of the server over OTLP/HTTP (${serverUrl ? 'PostgreSQL' : 'embedded database'})`, () => {
  let otlp: Receiver;
  let merchant: Receiver;
  let provider: MockProvider;
  let testDb: TestDb | null = null;
  let dataDir: string;
  let importLog: string;
  let proc: Proc;
  let base: string;
  let desk: { key: string; secret: string };

  beforeAll(async () => {
    otlp = await startReceiver();
    otlp.respond(() => ({ status: 200, body: '{}', headers: { 'content-type': 'application/json' } }));
    merchant = await startReceiver();
    provider = await startMockProvider({ key: 'prv_trace', secret: 'prv_trace_secret_0123456789abcdef' });
    dataDir = await copyOfMigratedDataDir('e2e-trace');
    importLog = join(scratchDir('e2e-trace-imports'), 'imports.log');
    if (serverUrl) testDb = await createTestDb();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = runAsNpmStart(
      ['serve'],
      bareEnv({
        PORT: String(port),
        ADMIN_TOKEN,
        DATA_DIR: dataDir,
        MASTER_KEY: randomBytes(32).toString('hex'),
        SEED_DEMO: 'false',
        CALLBACK_ALLOWLIST: '127.0.0.1',
        ...(testDb ? { DATABASE_URL: testDb.url! } : {}),
        ...(testDb && redisUrl ? { REDIS_URL: redisUrl } : {}),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        // Batches leave every 100 ms instead of every 5 s, so the test waits little.
        OTEL_BSP_SCHEDULE_DELAY: '100',
        NODE_OPTIONS: `--import=${IMPORT_LOG_HOOK}`,
        IMPORT_LOG: importLog,
        ...NO_DRAIN,
      }),
    );
    await waitStatus(`${base}/healthz`, proc);

    expect((await adminCall('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' })).status).toBe(200);
    expect((await adminCall('PUT', '/rates/RUB', { rate: '91.8' })).status).toBe(200);
    const prov = await adminCall('POST', '/providers', {
      name: 'Traced provider',
      kind: 'http',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
      baseUrl: provider.url,
      key: 'prv_trace',
      secret: 'prv_trace_secret_0123456789abcdef',
    });
    expect(prov.status, JSON.stringify(prov.json)).toBe(201);
    const m = await adminCall('POST', '/merchants', { name: 'Traced shop', sandbox: false });
    await adminCall('POST', `/merchants/${m.json.result.id}/approve`);
    const d = await adminCall('POST', `/merchants/${m.json.result.id}/desks`, {
      method: 'Classic',
      rails: ['Sbp'],
      currencies: ['RUB'],
      minUsd: '0',
      maxUsd: '0',
      // A merchant may put a token of its own in the callback URL's query.
      callbackUrl: `${merchant.url}/callbacks?key=${CALLBACK_QUERY_SECRET}`,
      tariffId: null,
    });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    desk = { key: d.json.result.key, secret: d.json.result.secret };
  }, 2 * STARTUP_MS);

  afterAll(async () => {
    if (proc) await stop(proc);
    await Promise.all([otlp?.close(), merchant?.close(), provider?.close()]);
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function adminCall(method: string, path: string, body?: unknown) {
    return adminApi(base, ADMIN_TOKEN)(method, path, body);
  }

  async function signedCall(method: 'GET' | 'POST', path: string, body = '') {
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-gate-key': desk.key,
        'x-gate-ts': ts,
        'x-gate-nonce': nonce,
        'x-gate-sign': signRequest(desk.secret, ts, nonce, method, path, body),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: method === 'POST' ? body : undefined,
    });
    return { status: res.status, traceHeader: res.headers.get('x-trace-id'), json: (await res.json()) as any };
  }

  async function spansOf(traceId: string, until: (spans: Span[]) => boolean): Promise<Span[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const spans = decode(otlp).filter((s) => s.traceId === traceId);
      if (until(spans)) return spans;
      if (Date.now() > deadline) throw new Error(`spans of ${traceId} not complete within 15 s: ${JSON.stringify(spans.map((s) => s.name))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('an order creation is one trace: the route, its SQL statements, the provider call with its outcome; the answer names the trace and the provider receives it', async () => {
    const created = await signedCall('POST', '/gw/v1/orders', JSON.stringify({ amount: 1500, currency: 'RUB', rail: 'Sbp', orderRef: 'trace-1' }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const traceId = created.traceHeader!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(created.json.traceId).toBe(traceId);

    // The provider was asked inside this trace: W3C traceparent with the same trace id.
    const asked = provider.received.filter((r) => r.path === '/payments');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'request') && s.some((x) => x.name === 'provider.issue'));
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['paygate']));

    const request = spans.find((s) => s.name === 'request')!;
    expect(request.parentSpanId).toBe('');
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes).toMatchObject({ 'http.route': '/gw/v1/orders', 'http.request.method': 'POST', 'http.response.status_code': 201 });

    const issue = spans.find((s) => s.name === 'provider.issue')!;
    expect(issue.attributes).toMatchObject({ 'paygate.provider.id': expect.stringMatching(/^prv_/), 'paygate.provider.kind': 'http', 'paygate.provider.outcome': 'issued', 'paygate.order.id': created.json.result.id });
    expect(ancestry(spans, issue)).toContain('request');

    // The outgoing call is the provider call's child, and its span id is the traceparent's parent.
    const post = spans.find((s) => s.parentSpanId === issue.spanId && s.name === 'POST')!;
    expect(post.attributes).toMatchObject({ 'url.full': `${provider.url}/payments`, 'http.response.status_code': 200 });
    expect(asked[0]!.headers.traceparent).toBe(`00-${traceId}-${post.spanId}-01`);

    // Every SQL statement of the request is a span under it, with its text.
    // Named by what the statement does, as the pg instrumentation names a plain one.
    const sql = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(sql.length).toBeGreaterThan(2);
    for (const s of sql) {
      expect(ancestry(spans, s)).toContain('request');
      expect(s.name).toMatch(serverUrl ? /^pg\.query:(SELECT|INSERT|UPDATE|WITH|DELETE|BEGIN|COMMIT) / : /^pglite\.query:(SELECT|INSERT|UPDATE|WITH|DELETE)$/);
      expect(s.name.split(/[: ]/)[1]).toBe(/^\s*([A-Za-z]+)/.exec(String(s.attributes['db.query.text']))![1]!.toUpperCase());
    }
    expect(sql.some((s) => /INSERT INTO orders/i.test(String(s.attributes['db.query.text'])))).toBe(true);

    // With Redis, the nonce is claimed there, and the command is in the trace too.
    if (testDb && redisUrl) expect(spans.some((s) => s.attributes['db.system.name'] === 'redis' && ancestry(spans, s).includes('request'))).toBe(true);
  });

  it('an error answer names its trace too, in the header and the envelope', async () => {
    const res = await signedCall('GET', '/gw/v1/orders/ord_doesnotexist');
    expect(res.status).toBe(404);
    expect(res.traceHeader).toMatch(/^[0-9a-f]{32}$/);
    expect(res.json).toMatchObject({ status: 'error', fault: { code: 'ORDER_NOT_FOUND' }, traceId: res.traceHeader });
    const spans = await spansOf(res.traceHeader!, (s) => s.some((x) => x.name === 'request'));
    expect(spans.find((s) => s.name === 'request')!.attributes).toMatchObject({ 'http.route': '/gw/v1/orders/:id', 'http.response.status_code': 404 });
  });

  it('each callback attempt and webhook delivery is a span in the trace of the request that caused it, with the event, the order, the HTTP code and the outcome; the receivers get its traceparent', async () => {
    const endpoint = await signedCall('POST', '/gw/v1/webhook-endpoints', JSON.stringify({ url: `${merchant.url}/hook`, events: ['order.cancelled'] }));
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    const created = await signedCall('POST', '/gw/v1/orders', JSON.stringify({ amount: 2500, currency: 'RUB', rail: 'Sbp', orderRef: 'trace-2' }));
    expect(created.status).toBe(201);
    const orderId = created.json.result.id as string;
    const cancelled = await signedCall('POST', `/gw/v1/orders/${orderId}/cancel`);
    expect(cancelled.status).toBe(200);
    const cancelTrace = cancelled.traceHeader!;
    expect(cancelTrace).toMatch(/^[0-9a-f]{32}$/);

    const hitOf = (path: string) => merchant.hits.find((h) => h.path.split('?')[0] === path && h.body.toString('utf8').includes(orderId));
    await until('the callback and the webhook delivery', () => !!hitOf('/callbacks') && !!hitOf('/hook'), 15_000);
    const hit = hitOf('/callbacks')!;
    const eventId = hit.headers['x-gate-event-id'] as string;
    const parent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(hit.headers.traceparent));
    expect(parent, String(hit.headers.traceparent)).not.toBeNull();
    // The callback continues the trace of the cancel request that wrote its event.
    expect(parent![1]).toBe(cancelTrace);
    const hook = hitOf('/hook')!;
    const hookParent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(hook.headers.traceparent));
    expect(hookParent?.[1], String(hook.headers.traceparent)).toBe(cancelTrace);

    const spans = await spansOf(cancelTrace, (s) => s.some((x) => x.name === 'callback.attempt') && s.some((x) => x.name === 'webhook.attempt') && s.some((x) => x.name === 'request'));
    const request = spans.find((s) => s.name === 'request')!;
    expect(request.attributes).toMatchObject({ 'http.route': '/gw/v1/orders/:id/cancel' });
    const attempt = spans.find((s) => s.name === 'callback.attempt')!;
    expect(attempt.attributes).toMatchObject({
      'paygate.event.id': eventId,
      'paygate.order.id': orderId,
      'paygate.callback.attempt': 1,
      'http.response.status_code': 200,
      'paygate.callback.outcome': 'delivered',
    });
    // Its parent is a span of the request (the request itself or a span within it).
    expect(ancestry(spans, attempt)).toContain('request');
    const post = spans.find((s) => s.spanId === parent![2])!;
    expect(post.name).toBe('POST');
    expect(post.parentSpanId).toBe(attempt.spanId);

    const delivery = spans.find((s) => s.name === 'webhook.attempt')!;
    expect(delivery.attributes).toMatchObject({
      'paygate.webhook_endpoint.id': endpoint.json.result.id,
      'paygate.event.id': hook.headers['webhook-id'],
      'paygate.webhook.event': 'order.cancelled',
      'paygate.webhook.attempt': 1,
      'http.response.status_code': 200,
    });
    expect(ancestry(spans, delivery)).toContain('request');
    expect(spans.find((s) => s.spanId === hookParent![2])!.parentSpanId).toBe(delivery.spanId);
  });

  it('a trace holds no token of a path, no query, no secret of a callback URL, no Redis key', async () => {
    const token = `rst${randomBytes(16).toString('hex')}`;
    const page = await fetch(`${base}/cabinet/password-reset/${token}?email=someone%40shop.example`);
    const traceId = page.headers.get('x-trace-id')!;
    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'request'));
    expect(spans.find((s) => s.name === 'request')!.attributes).toMatchObject({ 'url.path': '/cabinet/password-reset/:token', 'http.route': '/cabinet/password-reset/:token' });
    // Everything exported so far, the earlier tests' orders and callbacks included.
    const exported = otlp.hits.map((h) => h.body.toString('utf8')).join('\n');
    for (const secret of [token, 'someone%40shop.example', CALLBACK_QUERY_SECRET, desk.secret, 'prv_trace_secret_0123456789abcdef']) expect(exported).not.toContain(secret);
    expect(exported).not.toMatch(/paygate:nonce:/);
    const callbackPost = decode(otlp).find((s) => s.name === 'POST' && String(s.attributes['url.full']).startsWith(`${merchant.url}/callbacks`))!;
    expect(callbackPost.attributes).toMatchObject({ 'url.full': `${merchant.url}/callbacks`, 'url.query': '' });
  });

  it('loads OpenTelemetry only because the endpoint is set', () => {
    const loaded = readFileSync(importLog, 'utf8');
    expect(loaded).toMatch(/\/node_modules\/@opentelemetry\/sdk-trace-node\//);
    expect(loaded).toMatch(/\/dist\/telemetry\/otel\.js/);
  });
});

describe('without an OTLP endpoint', () => {
  it('the server loads nothing of OpenTelemetry and answers with its own trace ids', async () => {
    const dir = await copyOfMigratedDataDir('e2e-untraced');
    const importLog = join(scratchDir('e2e-untraced-imports'), 'imports.log');
    const port = await freePort();
    const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), ADMIN_TOKEN, DATA_DIR: dir, SEED_DEMO: 'false', NODE_OPTIONS: `--import=${IMPORT_LOG_HOOK}`, IMPORT_LOG: importLog, ...NO_DRAIN }));
    try {
      await waitStatus(`http://127.0.0.1:${port}/healthz`, p);
      const res = await fetch(`http://127.0.0.1:${port}/admin/v1/merchants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{24}$/);
      const loaded = readFileSync(importLog, 'utf8');
      // The log is real: it holds what the server did load.
      expect(loaded).toMatch(/\/node_modules\/fastify\//);
      expect(loaded).toMatch(/\/dist\/telemetry\/index\.js/);
      expect(loaded).not.toMatch(/@opentelemetry|@fastify\/otel|import-in-the-middle|\/dist\/telemetry\/otel\.js/);
    } finally {
      await stop(p);
      rmSync(dir, { recursive: true, force: true });
    }
  }, STARTUP_MS);
});
