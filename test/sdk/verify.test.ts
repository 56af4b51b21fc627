import { describe, expect, it } from 'vitest';
import { PaygateError, signCallback, verifyCallback, verifyRequest } from '@paygate/sdk';

const SECRET = 'sk_test_9f8e7d6c5b4a';
const BODY = '{"event":"order.completed","id":"ord_abc","orderRef":null,"status":"Completed","amount":{"value":"1.00","currency":"RUB"},"settled":{"value":"0.01089325","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2026-01-15T12:00:00.000Z"}';
const TS = 1768478400;
const at = (s: number) => () => s * 1000;
const headers = (o: Record<string, string> = {}) => ({
  'x-gate-ts': String(TS),
  'x-gate-event-id': 'evt_x1',
  'x-gate-sign': signCallback(SECRET, String(TS), 'evt_x1', BODY),
  ...o,
});

function refusal(fn: () => unknown): PaygateError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PaygateError);
    return err as PaygateError;
  }
  throw new Error('expected a refusal');
}

describe('verifyCallback', () => {
  it('accepts a string, a Buffer, a Uint8Array and an ArrayBuffer body; plain-object headers in any case, arrays, or Fetch Headers', () => {
    const buf = Buffer.from(BODY, 'utf8');
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    for (const raw of [BODY, buf, new Uint8Array(buf), ab]) {
      expect(verifyCallback(raw, headers(), SECRET, { now: at(TS) }).id).toBe('ord_abc');
    }
    const h = headers();
    const mixed = { 'X-GATE-TS': [h['x-gate-ts']], 'X-Gate-Event-ID': h['x-gate-event-id'], 'x-gate-sign': h['x-gate-sign'] };
    expect(verifyCallback(BODY, mixed, SECRET, { now: at(TS) }).event).toBe('order.completed');
    expect(verifyCallback(BODY, new Headers(h), SECRET, { now: at(TS) }).event).toBe('order.completed');
  });

  it('verifyRequest reads a Fetch API Request body as raw bytes', async () => {
    const req = () => new Request('http://shop.test/paygate/callbacks', { method: 'POST', headers: headers(), body: BODY });
    expect((await verifyRequest(req(), SECRET, { now: at(TS) })).id).toBe('ord_abc');
    await expect(verifyRequest(req(), 'sk_other', { now: at(TS) })).rejects.toMatchObject({ code: 'CALLBACK_SIGNATURE_MISMATCH' });
  });

  it('refuses one byte changed', () => {
    const changed = BODY.replace('"1.00"', '"2.00"');
    expect(refusal(() => verifyCallback(changed, headers(), SECRET, { now: at(TS) })).code).toBe('CALLBACK_SIGNATURE_MISMATCH');
    const bytes = Buffer.from(BODY);
    bytes[bytes.length - 2] ^= 1;
    expect(refusal(() => verifyCallback(bytes, headers(), SECRET, { now: at(TS) })).code).toBe('CALLBACK_SIGNATURE_MISMATCH');
  });

  it('refuses a wrong secret with a message that names the likely causes', () => {
    const e = refusal(() => verifyCallback(BODY, headers(), 'sk_other', { now: at(TS) }));
    expect(e.code).toBe('CALLBACK_SIGNATURE_MISMATCH');
    expect(e.message).toMatch(/secret is wrong/);
  });

  it('refuses an old (or future) timestamp beyond the tolerance, default 300 s', () => {
    expect(verifyCallback(BODY, headers(), SECRET, { now: at(TS + 300) }).id).toBe('ord_abc');
    const old = refusal(() => verifyCallback(BODY, headers(), SECRET, { now: at(TS + 301) }));
    expect(old.code).toBe('CALLBACK_TIMESTAMP_STALE');
    expect(old.message).toMatch(/301 s old \(tolerance 300 s\)/);
    expect(refusal(() => verifyCallback(BODY, headers(), SECRET, { now: at(TS - 301) })).message).toMatch(/in the future/);
    expect(verifyCallback(BODY, headers(), SECRET, { now: at(TS + 1000), toleranceSeconds: 1000 }).id).toBe('ord_abc');
    expect(refusal(() => verifyCallback(BODY, headers(), SECRET, { now: at(TS + 11), toleranceSeconds: 10 })).code).toBe('CALLBACK_TIMESTAMP_STALE');
  });

  it('refuses a parsed body, explaining how to keep the raw one', () => {
    const e = refusal(() => verifyCallback(JSON.parse(BODY), headers(), SECRET, { now: at(TS) }));
    expect(e.code).toBe('CALLBACK_BODY_PARSED');
    expect(e.message).toMatch(/express\.raw/);
    expect(refusal(() => verifyCallback(undefined as never, headers(), SECRET)).code).toBe('CALLBACK_BODY_MISSING');
  });

  it('refuses missing headers by name, a non-numeric timestamp and a malformed signature', () => {
    const { 'x-gate-event-id': _drop, ...noId } = headers();
    expect(refusal(() => verifyCallback(BODY, noId, SECRET, { now: at(TS) })).message).toMatch(/X-Gate-Event-Id missing/);
    expect(refusal(() => verifyCallback(BODY, {}, SECRET, { now: at(TS) })).message).toMatch(/X-Gate-Ts, X-Gate-Event-Id, X-Gate-Sign/);
    expect(refusal(() => verifyCallback(BODY, headers({ 'x-gate-ts': '2026-01-15T12:00:00Z' }), SECRET, { now: at(TS) })).code).toBe('CALLBACK_TIMESTAMP_INVALID');
    expect(refusal(() => verifyCallback(BODY, headers({ 'x-gate-sign': 'abc' }), SECRET, { now: at(TS) })).code).toBe('CALLBACK_SIGNATURE_MISMATCH');
    expect(refusal(() => verifyCallback(BODY, headers(), '', { now: at(TS) })).code).toBe('CALLBACK_SECRET_MISSING');
  });

  it('checks the timestamp only of an authentic callback: a forged old one reads as a signature failure', () => {
    const forged = headers({ 'x-gate-ts': String(TS - 5000) });
    expect(refusal(() => verifyCallback(BODY, forged, SECRET, { now: at(TS) })).code).toBe('CALLBACK_SIGNATURE_MISMATCH');
  });
});
