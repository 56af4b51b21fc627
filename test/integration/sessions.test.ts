import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignIn, createOperator, createUser } from '../../src/services/accounts.js';
import { csrfKey, csrfToken, csrfValid, endOtherSessions, endSession, listSessions, resumeSession, revokeOwnSession, SESSION_IDLE_MS, startSession } from '../../src/services/sessions.js';
import { createHarness, provisionDesk, type Harness } from '../helpers/harness.js';

let h: Harness;
let merchantId: string;
const client = { userAgent: 'test browser', ip: '203.0.113.5' };

beforeAll(async () => {
  h = await createHarness({ env: { PASSWORD_SCRYPT_LOG2N: '15' } });
  merchantId = (await provisionDesk(h.app)).merchantId;
  await createUser(h.ctx, merchantId, { email: 'owner@shop.example', password: 'a fine long password' });
  await createOperator(h.ctx, { email: 'ops@paygate.example', password: 'another long password', role: 'admin' });
});
afterAll(() => h.close());

describe('sign-in check', () => {
  it('accepts the right password on its own surface only, and answers unknown email and wrong password alike', async () => {
    const right = await checkSignIn(h.ctx, 'cabinet', 'OWNER@shop.example', 'a fine long password');
    expect(right.kind === 'ok' && right.account.email).toBe('owner@shop.example');
    expect(await checkSignIn(h.ctx, 'cabinet', 'owner@shop.example', 'a wrong long password')).toEqual({ kind: 'refused' });
    expect(await checkSignIn(h.ctx, 'cabinet', 'nobody@shop.example', 'a fine long password')).toEqual({ kind: 'refused' });
    expect(await checkSignIn(h.ctx, 'office', 'owner@shop.example', 'a fine long password')).toEqual({ kind: 'refused' });
    const operator = await checkSignIn(h.ctx, 'office', 'ops@paygate.example', 'another long password');
    expect(operator.kind === 'ok' && operator.account.id).toMatch(/^opr_/);
    const { rows } = await h.ctx.db.query<{ password_hash: string }>('SELECT password_hash FROM users');
    expect(rows[0].password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(rows[0].password_hash).not.toContain('fine');
  });

  it('limits sign-in attempts to 10 per minute per client IP', async () => {
    const results = [];
    for (let i = 0; i < 11; i++) results.push((await h.ctx.limits.signIn.take('198.51.100.7')).ok);
    expect(results.slice(0, 10).every(Boolean)).toBe(true);
    expect(results[10]).toBe(false);
    expect((await h.ctx.limits.signIn.take('198.51.100.8')).ok).toBe(true);
  });
});

describe('sessions', () => {
  it('are server-side: the cookie value resumes its session on its surface only, stored only as a hash', async () => {
    const s = await startSession(h.ctx, 'cabinet', 'usr_a', client);
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await resumeSession(h.ctx, 'cabinet', s.token))?.accountId).toBe('usr_a');
    expect(await resumeSession(h.ctx, 'office', s.token)).toBeNull();
    expect(await resumeSession(h.ctx, 'cabinet', 'forged')).toBeNull();
    const { rows } = await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE id_hash = $1', [s.token]);
    expect(rows[0].n).toBe(0);
  });

  it('end after 12 idle hours, while every use extends them', async () => {
    const s = await startSession(h.ctx, 'cabinet', 'usr_b', client);
    h.clock.advance(SESSION_IDLE_MS - 1000);
    expect(await resumeSession(h.ctx, 'cabinet', s.token)).not.toBeNull();
    h.clock.advance(SESSION_IDLE_MS - 1000);
    expect(await resumeSession(h.ctx, 'cabinet', s.token)).not.toBeNull();
    h.clock.advance(SESSION_IDLE_MS + 1000);
    expect(await resumeSession(h.ctx, 'cabinet', s.token)).toBeNull();
  });

  it('sign-out ends one; a password change ends the others; an account lists and revokes only its own', async () => {
    const a = await startSession(h.ctx, 'office', 'opr_x', client);
    const b = await startSession(h.ctx, 'office', 'opr_x', { userAgent: 'phone', ip: null });
    const other = await startSession(h.ctx, 'office', 'opr_y', client);
    const listed = await listSessions(h.ctx, a);
    expect(listed.map((x) => x.current).sort()).toEqual([false, true]);
    expect(await revokeOwnSession(h.ctx, a, (await listSessions(h.ctx, other))[0].id)).toBe(false);
    expect(await resumeSession(h.ctx, 'office', other.token)).not.toBeNull();
    expect(await endOtherSessions(h.ctx, a)).toBe(1);
    expect(await resumeSession(h.ctx, 'office', b.token)).toBeNull();
    expect(await resumeSession(h.ctx, 'office', a.token)).not.toBeNull();
    await endSession(h.ctx, a);
    expect(await resumeSession(h.ctx, 'office', a.token)).toBeNull();
  });
});

describe('CSRF tokens', () => {
  it('are bound to the surface and the session, and refuse anything else', () => {
    const key = csrfKey(h.ctx);
    const t = csrfToken(key, 'cabinet', 'session-1');
    expect(csrfValid(key, 'cabinet', 'session-1', t)).toBe(true);
    expect(csrfValid(key, 'office', 'session-1', t)).toBe(false);
    expect(csrfValid(key, 'cabinet', 'session-2', t)).toBe(false);
    expect(csrfValid(key, 'cabinet', null, t)).toBe(false);
    expect(csrfValid(key, 'cabinet', 'session-1', undefined)).toBe(false);
    expect(csrfValid(key, 'cabinet', 'session-1', `${t}x`)).toBe(false);
  });
});
