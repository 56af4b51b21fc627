import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { createLogger } from '../../src/runtime.js';
import { buildMetricsApp } from '../../src/http/health.js';
import { admin, ADMIN_TOKEN, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const lines: any[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

let h: Harness;
let desk: DeskCreds;
let rx: Receiver;

beforeAll(async () => {
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1' }, log: pino({ level: 'info' }, sink) });
  rx = await startReceiver();
  desk = await provisionDesk(h.app, { desk: { callbackUrl: `${rx.url}/cb` } });
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

describe('logs', () => {
  it('every request line carries the trace id the client saw', async () => {
    lines.length = 0;
    const res = await signed(h, desk, '/gw/v1/balance');
    const traceId = res.headers['x-trace-id'];
    const line = lines.find((l) => l.msg === 'request' && l.route === '/gw/v1/balance');
    expect(line).toMatchObject({ traceId, status: 200, method: 'GET' });
  });

  it('an unexpected error is a generic 500 envelope, logged once with the trace id, never a stack trace in the answer', async () => {
    lines.length = 0;
    const broken = { ...h.ctx.db, query: async () => Promise.reject(new Error('unexpected state in the statement cache')) };
    const app2 = (await import('../../src/app/buildApp.js')).buildApp({ ...h.ctx, db: broken as any });
    const res = await app2.inject({ method: 'GET', url: '/admin/v1/merchants/mer_x', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await app2.close();
    expect(res.statusCode).toBe(500);
    const body = json(res);
    expect(body).toEqual({ status: 'error', fault: { code: 'INTERNAL_ERROR', detail: expect.any(String) }, traceId: res.headers['x-trace-id'] });
    expect(res.body).not.toMatch(/statement cache|at .*\.ts/);
    const logged = lines.filter((l) => l.msg === 'unhandled error');
    expect(logged).toHaveLength(1);
    expect(logged[0].traceId).toBe(res.headers['x-trace-id']);
  });

  it('secrets never reach a log line: desk secrets, rotated secrets, signatures, the operator token', async () => {
    lines.length = 0;
    const d = await provisionDesk(h.app);
    const rotated = json(await admin(h.app, 'POST', `/desks/${d.id}/secret`)).result.secret;
    await signed(h, { key: d.key, secret: rotated }, '/gw/v1/balance');
    await signed(h, d, '/gw/v1/balance');
    const text = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of [d.secret, rotated, ADMIN_TOKEN]) expect(text).not.toContain(secret);
  });

  it('the service logger redacts secret-bearing fields even when an object holding them is logged', () => {
    const out: string[] = [];
    const log = createLogger('info', new Writable({ write: (c, _e, d) => (out.push(c.toString()), d()) }));
    log.info({ secret: 'sk_should_not_appear', headers: { authorization: 'Bearer adm_x', 'x-gate-sign': 'abc' } }, 'x');
    expect(out).toHaveLength(1);
    expect(out.join('')).not.toMatch(/sk_should_not_appear|adm_x|"abc"/);
    expect(out.join('')).toContain('[redacted]');
  });
});

describe('metrics', () => {
  it('counts requests by route and status, with latency histograms, and callback attempts by outcome', async () => {
    await signed(h, desk, '/gw/v1/balance');
    await signed(h, desk, '/gw/v1/balance', { secret: 'wrong' });
    const o = json(await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 100, rail: 'Sbp' }) })).result;
    await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
    const w = new DeliveryWorker(h.ctx, { timeoutMs: 500 });
    while ((await w.runOnce()) > 0);
    await w.close();
    const text = (await buildMetricsApp(h.ctx).inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/paygate_http_requests_total\{route="\/gw\/v1\/balance",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/paygate_http_requests_total\{route="\/gw\/v1\/balance",method="GET",status="401"\} [1-9]/);
    expect(text).toMatch(/paygate_http_request_duration_seconds_bucket\{le="0.005",route="\/gw\/v1\/orders",method="POST"\}/);
    expect(text).toMatch(/paygate_orders_created_total\{method="Classic",rail="Sbp"\} 1/);
    expect(text).toMatch(/paygate_callback_attempts_total\{outcome="delivered"\} 1/);
    expect(text).toMatch(/paygate_callback_delivery_lag_seconds 0/);
    expect(text).toMatch(/paygate_callbacks_failed_total 0/);
  });

  it('are not served on the public listener', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(404);
    expect(json(res).fault.code).toBe('NOT_FOUND');
  });
});
