import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, freshNonce, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { signRequest } from '../../src/signing.js';
import { openPg } from '../../src/store/db.js';
import { claimNonceWithDesk, type DeskAtAuth } from '../../src/store/desks.js';
import { claimNonce } from '../../src/store/nonces.js';
import { createTestDb } from '../helpers/db.js';

/** Every signed route, with a body that is valid for it; the shared suite runs over all of them. */
export const SIGNED_ROUTES: { method: 'GET' | 'POST'; path: string; body?: string }[] = [
  { method: 'GET', path: '/gw/v1/methods' },
  { method: 'GET', path: '/gw/v1/rates' },
  { method: 'GET', path: '/gw/v1/balance' },
  { method: 'POST', path: '/gw/v1/orders', body: '{"amount":100,"rail":"Sbp"}' },
  { method: 'GET', path: '/gw/v1/orders/ord_unknown' },
  { method: 'POST', path: '/gw/v1/orders/ord_unknown/cancel', body: '{}' },
  { method: 'POST', path: '/gw/v1/appeals', body: '{"orderId":"ord_x"}' },
  { method: 'GET', path: '/gw/v1/appeals/apl_x' },
  { method: 'GET', path: '/gw/v1/events' },
];

let h: Harness;
let desk: DeskCreds;
let other: DeskCreds;

beforeAll(async () => {
  h = await createHarness();
  desk = await provisionDesk(h.app);
  other = await provisionDesk(h.app, { merchant: { name: 'Other' } });
});
afterAll(() => h.close());

const nowSec = () => Math.floor(h.clock.now() / 1000);

describe.each(SIGNED_ROUTES)('authentication of $method $path', (route) => {
  const call = (o: Parameters<typeof signed>[3] = {}, creds = desk) => signed(h, creds, route.path, { method: route.method, body: route.body, ...o });
  const code = (res: { body: string }) => json(res as never)?.fault?.code;

  it('passes authentication with a correct signature', async () => {
    const res = await call();
    expect(res.statusCode).not.toBe(401);
    expect(code(res) ?? '').not.toMatch(/^AUTH_|REPLAY/);
    expect(res.headers['x-trace-id']).toBeTruthy();
  });

  it.each(['x-gate-key', 'x-gate-ts', 'x-gate-nonce', 'x-gate-sign'])('401 AUTH_HEADERS_MISSING without %s', async (name) => {
    const res = await call({ headers: { [name]: undefined } });
    expect(res.statusCode).toBe(401);
    expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'AUTH_HEADERS_MISSING' } });
    expect(json(res).traceId).toBe(res.headers['x-trace-id']);
  });

  it.each(['1763700000.5', '2026-01-15T12:00:00Z', 'abc', '-5', ''])('401 AUTH_TIMESTAMP_INVALID for ts "%s"', async (ts) => {
    const res = await call({ ts });
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe(ts === '' ? 'AUTH_HEADERS_MISSING' : 'AUTH_TIMESTAMP_INVALID');
  });

  it('skew bounds: ±300 s pass, ±301 s and milliseconds fail with AUTH_TIMESTAMP_SKEW', async () => {
    for (const d of [-300, 300]) expect((await call({ ts: String(nowSec() + d) })).statusCode).not.toBe(401);
    for (const d of [-301, 301]) expect(code(await call({ ts: String(nowSec() + d) }))).toBe('AUTH_TIMESTAMP_SKEW');
    expect(code(await call({ ts: String(h.clock.now()) }))).toBe('AUTH_TIMESTAMP_SKEW');
  });

  it('nonce length bounds: 8 and 128 pass, 7 and 129 fail with AUTH_NONCE_INVALID', async () => {
    const n = (len: number) => (freshNonce() + 'x'.repeat(200)).slice(0, len);
    expect((await call({ nonce: n(8) + '' })).statusCode).not.toBe(401);
    expect((await call({ nonce: n(128) })).statusCode).not.toBe(401);
    expect(code(await call({ nonce: n(7) }))).toBe('AUTH_NONCE_INVALID');
    expect(code(await call({ nonce: n(129) }))).toBe('AUTH_NONCE_INVALID');
  });

  it('an unknown key and a wrong signature get the identical AUTH_FAILED answer', async () => {
    const unknown = await call({}, { ...desk, key: 'shp_00000000000000000000000000' });
    const wrong = await call({ secret: desk.secret + 'x' });
    const malformedKey = await call({}, { ...desk, key: 'not-a-key' });
    for (const r of [unknown, wrong, malformedKey]) {
      expect(r.statusCode).toBe(401);
      expect(json(r).fault).toEqual({ code: 'AUTH_FAILED', detail: 'unknown key or signature mismatch' });
    }
  });

  it('accepts upper-case hex in X-Gate-Sign; a signature that is not 64 hex characters is AUTH_FAILED', async () => {
    const ts = String(nowSec());
    const nonce = freshNonce();
    const sig = signRequest(desk.secret, ts, nonce, route.method, route.path, route.body ?? '');
    expect((await call({ ts, nonce, headers: { 'x-gate-sign': sig.toUpperCase() } })).statusCode).not.toBe(401);
    expect(code(await call({ headers: { 'x-gate-sign': sig.slice(0, 63) } }))).toBe('AUTH_FAILED');
  });

  it('precedence: missing headers before bad ts before skew before nonce before signature', async () => {
    expect(code(await call({ ts: 'bad', headers: { 'x-gate-nonce': undefined } }))).toBe('AUTH_HEADERS_MISSING');
    expect(code(await call({ ts: 'bad', nonce: 'short' }))).toBe('AUTH_TIMESTAMP_INVALID');
    expect(code(await call({ ts: String(nowSec() - 1000), nonce: 'short' }))).toBe('AUTH_TIMESTAMP_SKEW');
    expect(code(await call({ nonce: 'short', secret: 'wrong' }))).toBe('AUTH_NONCE_INVALID');
  });

  it('a replayed nonce is 409 REPLAY_DETECTED; the same nonce on another desk is fine', async () => {
    const nonce = freshNonce();
    expect((await call({ nonce })).statusCode).not.toBe(409);
    const replay = await call({ nonce });
    expect(replay.statusCode).toBe(409);
    expect(code(replay)).toBe('REPLAY_DETECTED');
    expect(code(await call({ nonce }, other))).not.toBe('REPLAY_DETECTED');
  });

  it('a failed authentication does not consume the nonce', async () => {
    const nonce = freshNonce();
    expect(code(await call({ nonce, secret: 'wrong-secret' }))).toBe('AUTH_FAILED');
    expect(code(await call({ nonce }))).not.toBe('REPLAY_DETECTED');
  });

  it('the query string is not part of the signed path', async () => {
    const res = await call({ query: 'currency=RUB&x=1' });
    expect(res.statusCode).not.toBe(401);
  });

  it('the signature covers the body bytes exactly: a trailing newline breaks it', async () => {
    if (route.method !== 'POST') return;
    const ts = String(nowSec());
    const nonce = freshNonce();
    const sig = signRequest(desk.secret, ts, nonce, 'POST', route.path, route.body!);
    const res = await h.app.inject({
      method: 'POST',
      url: route.path,
      headers: { 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sig, 'content-type': 'application/json' },
      payload: route.body + '\n',
    });
    expect(code(res)).toBe('AUTH_FAILED');
  });
});

describe('nonce memory and secrets', () => {
  it('a nonce is remembered for 360 s, then may be used again', async () => {
    const nonce = freshNonce();
    expect((await signed(h, desk, '/gw/v1/balance', { nonce })).statusCode).toBe(200);
    h.clock.advance(359_000);
    expect(json(await signed(h, desk, '/gw/v1/balance', { nonce })).fault.code).toBe('REPLAY_DETECTED');
    h.clock.advance(2_000);
    expect((await signed(h, desk, '/gw/v1/balance', { nonce })).statusCode).toBe(200);
  });

  it('pruning drops expired nonces only', async () => {
    const nonce = freshNonce();
    await signed(h, desk, '/gw/v1/balance', { nonce });
    h.clock.advance(361_000);
    const pruned = await h.ctx.nonces.prune();
    expect(pruned).toBeGreaterThan(0);
    const fresh = freshNonce();
    await signed(h, desk, '/gw/v1/balance', { nonce: fresh });
    await h.ctx.nonces.prune();
    expect(json(await signed(h, desk, '/gw/v1/balance', { nonce: fresh })).fault.code).toBe('REPLAY_DETECTED');
  });

  it('rotating the secret makes the old one fail at once', async () => {
    const d = await provisionDesk(h.app);
    expect((await signed(h, d, '/gw/v1/balance')).statusCode).toBe(200);
    const rot = json(await admin(h.app, 'POST', `/desks/${d.id}/secret`));
    expect(rot.result.secret).toMatch(/^sk_/);
    expect(rot.result.secret).not.toBe(d.secret);
    const nonce = freshNonce();
    expect(json(await signed(h, d, '/gw/v1/balance', { nonce })).fault.code).toBe('AUTH_FAILED');
    // the refused request did not use up its nonce; the new secret works at once, and only once per nonce
    const fresh = { key: d.key, secret: rot.result.secret };
    expect((await signed(h, fresh, '/gw/v1/balance', { nonce })).statusCode).toBe(200);
    expect(json(await signed(h, fresh, '/gw/v1/balance', { nonce })).fault.code).toBe('REPLAY_DETECTED');
    expect(json(await signed(h, d, '/gw/v1/balance')).fault.code).toBe('AUTH_FAILED');
  });

  it('a desk changed in the database by another instance is seen on the very next request', async () => {
    const d = await provisionDesk(h.app);
    expect((await signed(h, d, '/gw/v1/balance')).statusCode).toBe(200);
    // Another instance rotates the secret: this one has never seen the new one.
    const other = json(await admin(h.app, 'POST', `/desks/${d.id}/secret`)).result.secret as string;
    const { rows } = await h.ctx.db.query<{ secret_enc: string }>('SELECT secret_enc FROM desks WHERE id = $1', [d.id]);
    await h.ctx.db.query('UPDATE desks SET enabled = false WHERE id = $1', [d.id]);
    expect(json(await signed(h, d, '/gw/v1/balance')).fault.code).toBe('AUTH_FAILED');
    expect(json(await signed(h, { key: d.key, secret: other }, '/gw/v1/methods')).result).toMatchObject({ available: false, reason: 'shop inactive' });
    await h.ctx.db.query('UPDATE desks SET enabled = true, secret_enc = $2 WHERE id = $1', [d.id, rows[0]!.secret_enc]);
    expect((await signed(h, { key: d.key, secret: other }, '/gw/v1/balance')).statusCode).toBe(200);
    await h.ctx.db.query("UPDATE merchants SET sandbox_balance = sandbox_balance + 1.5 WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
    expect(json(await signed(h, { key: d.key, secret: other }, '/gw/v1/balance')).result.available).toBe('1.50000000');
    // a merchant blocked elsewhere: the very next picture has nothing to offer
    await h.ctx.db.query("UPDATE merchants SET status = 'Blocked' WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
    expect(json(await signed(h, { key: d.key, secret: other }, '/gw/v1/methods')).result.available).toBe(false);
    await h.ctx.db.query("UPDATE merchants SET status = 'UnderReview' WHERE id = (SELECT merchant_id FROM desks WHERE id = $1)", [d.id]);
    expect(json(await signed(h, { key: d.key, secret: other }, '/gw/v1/methods')).result.available).toBe(true);
  });

  it('a nonce claim relaxes only its own commit: the connection waits for the disk again afterwards', async () => {
    const t = await createTestDb();
    const one = t.url ? openPg(t.url, { max: 1 }) : t.db;
    const syncCommit = async () => (await one.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
    try {
      const at = new Date(h.clock.now());
      const until = new Date(at.getTime() + 360_000);
      expect(await claimNonce(one, 'shp_relaxed', 'nonce-relaxed-1', at, until)).toBe(true);
      expect(await syncCommit()).toBe('on');
      expect(await claimNonce(one, 'shp_relaxed', 'nonce-relaxed-1', at, until)).toBe(false);
      const remembered = { desk: { key: 'shp_relaxed', secret_enc: 'v1.none', row_version: 1 }, merchant: {}, merchantVersion: 1, versions: {} } as unknown as DeskAtAuth;
      expect(await claimNonceWithDesk(one, remembered, 'nonce-relaxed-2', at, until)).toBeNull();
      expect(await syncCommit()).toBe('on');
      await one.tx(async (q) => expect((await q.query('SHOW synchronous_commit')).rows[0]).toEqual({ synchronous_commit: 'on' }));
    } finally {
      if (one !== t.db) await one.close();
      await t.drop();
    }
    // The same through a whole signed request (on the embedded database, its one connection).
    expect((await signed(h, desk, '/gw/v1/balance')).statusCode).toBe(200);
    if (h.ctx.db.kind === 'pglite') expect((await h.ctx.db.query('SHOW synchronous_commit')).rows[0]).toEqual({ synchronous_commit: 'on' });
  });

  it('desk secrets are stored encrypted, never in plain text', async () => {
    const d = await provisionDesk(h.app);
    const { rows } = await h.ctx.db.query<{ secret_enc: string }>('SELECT secret_enc FROM desks WHERE id = $1', [d.id]);
    expect(rows[0].secret_enc).not.toContain(d.secret);
    expect(rows[0].secret_enc).toMatch(/^v1\./);
    const got = json(await admin(h.app, 'GET', `/desks/${d.id}`));
    expect(JSON.stringify(got)).not.toContain(d.secret);
    expect(got.result.secret).toBeUndefined();
  });

  it('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE once authenticated, malformed JSON is VALIDATION_ERROR', async () => {
    const big = JSON.stringify({ amount: 1, pad: 'x'.repeat(70 * 1024) });
    const res = await signed(h, desk, '/gw/v1/orders', { body: big });
    expect(res.statusCode).toBe(413);
    expect(json(res).fault.code).toBe('PAYLOAD_TOO_LARGE');
    const unsigned = await signed(h, desk, '/gw/v1/orders', { body: big, secret: 'nope' });
    expect(json(unsigned).fault.code).toBe('AUTH_FAILED');
    const bad = await signed(h, desk, '/gw/v1/orders', { body: '{"amount":' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).fault.code).toBe('VALIDATION_ERROR');
    const badUnsigned = await signed(h, desk, '/gw/v1/orders', { body: '{"amount":', secret: 'nope' });
    expect(json(badUnsigned).fault.code).toBe('AUTH_FAILED');
  });

  it('unknown routes answer 404 NOT_FOUND in the error envelope', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ status: 'error', fault: { code: 'NOT_FOUND' } });
  });
});
