import { describe, expect, it } from 'vitest';
import {
  newProviderMessageId,
  signProviderRequestHeaders,
  verifyProviderMessage,
  verifySignedHeaders,
} from '../../src/providers/providerMessages.js';

const KEY = 'prv_key_3f2e1d';
const SECRET = 'prv_secret_7a6b5c';
const TS = 1763700000;
const NOW_MS = TS * 1000;
const EVENT_ID = 'msg_0001';
const BODY = '{"orderId":"ord_abc","type":"paid","payerReference":"412345678901"}';
/** Computed with `openssl dgst -sha256 -hmac prv_secret_7a6b5c` over `1763700000.msg_0001.{BODY}`. */
const BODY_SIGN = '66d31f7c5e0ec31049e727ffc5c840d9278901e30368757ba069c9c943eda951';

/** Headers as Node hands them to a route: lower-cased names. */
function nodeHeaders(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function signed(body: string, over: { key?: string; secret?: string; eventId?: string; ts?: number } = {}) {
  return nodeHeaders({
    'content-type': 'application/json',
    ...signProviderRequestHeaders(over.key ?? KEY, over.secret ?? SECRET, over.eventId ?? EVENT_ID, over.ts ?? TS, body),
  });
}

function verify(headers: Record<string, string | string[] | undefined>, body: string | Buffer, nowMs = NOW_MS, maxSkewSec?: number) {
  return verifyProviderMessage({
    headers,
    rawBody: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    expectedKey: KEY,
    secret: SECRET,
    nowMs,
    maxSkewSec,
  });
}

describe('signProviderRequestHeaders', () => {
  it('produces the documented signature over {ts}.{eventId}.{raw body}', () => {
    expect(signProviderRequestHeaders(KEY, SECRET, EVENT_ID, TS, BODY)).toEqual({
      'X-Gate-Key': KEY,
      'X-Gate-Ts': '1763700000',
      'X-Gate-Event-Id': EVENT_ID,
      'X-Gate-Sign': BODY_SIGN,
    });
  });

  it('writes whole seconds even when given a fraction', () => {
    expect(signProviderRequestHeaders(KEY, SECRET, EVENT_ID, TS + 0.9, BODY)['X-Gate-Ts']).toBe('1763700000');
  });
});

describe('newProviderMessageId', () => {
  it('is unique per call and passes the event id format', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newProviderMessageId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});

describe('verifyProviderMessage', () => {
  it('accepts a good message and returns the event id and the parsed event', () => {
    expect(verify(signed(BODY), BODY)).toEqual({
      ok: true,
      eventId: EVENT_ID,
      event: { orderId: 'ord_abc', type: 'paid', payerReference: '412345678901' },
    });
  });

  it('accepts the independently computed vector as literal headers', () => {
    const headers = { 'x-gate-key': KEY, 'x-gate-ts': '1763700000', 'x-gate-event-id': EVENT_ID, 'x-gate-sign': BODY_SIGN };
    expect(verify(headers, BODY).ok).toBe(true);
  });

  it('defaults a missing payerReference to null and accepts every event type', () => {
    for (const type of ['paid', 'confirmed', 'rejected', 'revoked'] as const) {
      const body = JSON.stringify({ orderId: 'ord_x', type });
      expect(verify(signed(body), body)).toEqual({ ok: true, eventId: EVENT_ID, event: { orderId: 'ord_x', type, payerReference: null } });
    }
  });

  it('accepts an uppercase hex signature', () => {
    const headers = signed(BODY);
    headers['x-gate-sign'] = headers['x-gate-sign'].toUpperCase();
    expect(headers['x-gate-sign']).not.toBe(BODY_SIGN);
    expect(verify(headers, BODY).ok).toBe(true);
  });

  it('finds headers whatever the case of their names', () => {
    const headers = { 'content-type': 'application/json', ...signProviderRequestHeaders(KEY, SECRET, EVENT_ID, TS, BODY) };
    expect(verify(headers, BODY).ok).toBe(true);
  });

  it('refuses a wrong key with 401', () => {
    const result = verify(signed(BODY, { key: 'prv_other' }), BODY);
    expect(result).toMatchObject({ ok: false, status: 401 });
  });

  it('gives the same reason for a wrong key and a wrong signature', () => {
    const wrongKey = verify(signed(BODY, { key: 'prv_other' }), BODY);
    const wrongSecret = verify(signed(BODY, { secret: 'not-the-secret' }), BODY);
    expect(wrongKey.ok || wrongSecret.ok).toBe(false);
    if (!wrongKey.ok && !wrongSecret.ok) expect(wrongKey.reason).toBe(wrongSecret.reason);
  });

  it('refuses a signature made with another secret with 401', () => {
    expect(verify(signed(BODY, { secret: 'not-the-secret' }), BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a signature that is not 64 hex characters with 401', () => {
    for (const sign of [BODY_SIGN.slice(0, 63), `${BODY_SIGN}0`, `${BODY_SIGN.slice(0, 63)}g`]) {
      const headers = { ...signed(BODY), 'x-gate-sign': sign };
      expect(verify(headers, BODY)).toMatchObject({ ok: false, status: 401 });
    }
  });

  it('refuses a signature taken from another event id with 401', () => {
    const headers = { ...signed(BODY), 'x-gate-event-id': 'msg_0002' };
    expect(verify(headers, BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it('accepts a timestamp exactly 300 s off either way and refuses 301 s', () => {
    expect(verify(signed(BODY), BODY, NOW_MS + 300_000).ok).toBe(true);
    expect(verify(signed(BODY), BODY, NOW_MS - 300_000).ok).toBe(true);
    // Stale: the message was signed 301 s before the gateway's now.
    expect(verify(signed(BODY), BODY, NOW_MS + 301_000)).toMatchObject({ ok: false, status: 401 });
    // From the future: signed 301 s after the gateway's now.
    expect(verify(signed(BODY), BODY, NOW_MS - 301_000)).toMatchObject({ ok: false, status: 401 });
  });

  it('honours a narrower maxSkewSec', () => {
    expect(verify(signed(BODY), BODY, NOW_MS + 61_000, 60)).toMatchObject({ ok: false, status: 401 });
    expect(verify(signed(BODY), BODY, NOW_MS + 60_000, 60).ok).toBe(true);
  });

  it('refuses a timestamp in milliseconds or as text with 401', () => {
    const msTs = String(NOW_MS);
    const withMs = { ...signed(BODY), 'x-gate-ts': msTs, 'x-gate-sign': signProviderRequestHeaders(KEY, SECRET, EVENT_ID, NOW_MS, BODY)['X-Gate-Sign'] };
    expect(verify(withMs, BODY)).toMatchObject({ ok: false, status: 401 });
    const iso = { ...signed(BODY), 'x-gate-ts': '2025-11-21T04:00:00Z' };
    expect(verify(iso, BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it.each(['x-gate-key', 'x-gate-ts', 'x-gate-event-id', 'x-gate-sign'])('refuses a message without %s with 401', (name) => {
    const headers: Record<string, string | undefined> = { ...signed(BODY) };
    delete headers[name];
    expect(verify(headers, BODY)).toMatchObject({ ok: false, status: 401 });
    expect(verify({ ...signed(BODY), [name]: '' }, BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a repeated signing header with 401', () => {
    const headers = { ...signed(BODY), 'x-gate-sign': [BODY_SIGN, BODY_SIGN] };
    expect(verify(headers, BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses an event id that could shift the dot separator, even when correctly signed', () => {
    const eventId = 'msg.0001';
    expect(verify(signed(BODY, { eventId }), BODY)).toMatchObject({ ok: false, status: 401 });
  });

  it('verifies over the raw bytes: the same event re-serialised fails', () => {
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2);
    const reordered = '{"type":"paid","orderId":"ord_abc","payerReference":"412345678901"}';
    expect(verify(signed(BODY), pretty)).toMatchObject({ ok: false, status: 401 });
    expect(verify(signed(BODY), reordered)).toMatchObject({ ok: false, status: 401 });
    expect(verify(signed(BODY), `${BODY}\n`)).toMatchObject({ ok: false, status: 401 });
    // The signer's own bytes, whatever their layout, are what count.
    expect(verify(signed(pretty), pretty).ok).toBe(true);
  });

  it('checks the signature before the body: an unsigned bad body is 401, not 400', () => {
    expect(verify(signed(BODY, { secret: 'x' }), 'not json')).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a well-signed body that is not JSON with 400', () => {
    for (const body of ['not json', '', '{"orderId":"ord_abc",']) {
      expect(verify(signed(body), body)).toMatchObject({ ok: false, status: 400 });
    }
  });

  it('refuses a well-signed body that is not valid UTF-8 with 400', () => {
    const bytes = Buffer.concat([Buffer.from('{"orderId":"ord_'), Buffer.from([0xff, 0xfe]), Buffer.from('","type":"paid"}')]);
    const headers = nodeHeaders({ ...signProviderRequestHeaders(KEY, SECRET, EVENT_ID, TS, bytes) });
    expect(verify(headers, bytes)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses a well-signed body of the wrong shape with 400', () => {
    const bodies = [
      '[]',
      'null',
      '"paid"',
      '{"type":"paid"}',
      '{"orderId":"","type":"paid"}',
      '{"orderId":42,"type":"paid"}',
      '{"orderId":"ord_abc","type":"refunded"}',
      '{"orderId":"ord_abc","type":"PAID"}',
      '{"orderId":"ord_abc"}',
      '{"orderId":"ord_abc","type":"paid","payerReference":123}',
      '{"orderId":"ord_abc","type":"paid","payerReference":""}',
      JSON.stringify({ orderId: 'ord_abc', type: 'paid', payerReference: 'x'.repeat(256) }),
    ];
    for (const body of bodies) {
      const result = verify(signed(body), body);
      expect(result, body).toMatchObject({ ok: false, status: 400 });
    }
  });

  it('accepts an explicit null payerReference', () => {
    const body = '{"orderId":"ord_abc","type":"confirmed","payerReference":null}';
    expect(verify(signed(body), body)).toEqual({
      ok: true,
      eventId: EVENT_ID,
      event: { orderId: 'ord_abc', type: 'confirmed', payerReference: null },
    });
  });

  it('refuses unknown fields, naming them, instead of ignoring them', () => {
    for (const extra of ['"note":"later field"', '"constructor":1', '"__proto__":{"type":"revoked"}']) {
      const body = `{"orderId":"ord_abc","type":"confirmed",${extra}}`;
      const r = verify(signed(body), body);
      expect(r.ok, extra).toBe(false);
      expect(JSON.stringify(r), extra).toContain(extra.split(':')[0]!.replace(/"/g, ''));
    }
  });

  it('refuses a key given twice: a signed body means one thing', () => {
    const body = '{"orderId":"ord_abc","type":"paid","type":"revoked"}';
    const r = verify(signed(body), body);
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(JSON.stringify(r)).toContain('type: the property is given more than once');
  });
});

describe('verifySignedHeaders', () => {
  it('returns the event id and timestamp of a good message whatever the body', () => {
    const body = '{"anything":true}';
    expect(verifySignedHeaders({ headers: signed(body), rawBody: body, expectedKey: KEY, secret: SECRET, nowMs: NOW_MS })).toEqual({
      ok: true,
      eventId: EVENT_ID,
      tsSec: TS,
    });
  });
});
