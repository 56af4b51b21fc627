import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Bytes = Uint8Array | string;

const utf8 = (b: Bytes): Buffer => (typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Lowercase hex SHA-256 of the exact bytes (the hash of empty input for a request without body). */
export function sha256Hex(body: Bytes): string {
  return createHash('sha256').update(utf8(body)).digest('hex');
}

/** `{ts}.{nonce}.{METHOD}.{path}.{sha256hex(body)}`; `path` without host and query string. */
export function requestSigningString(ts: string, nonce: string, method: string, path: string, body: Bytes): string {
  return `${ts}.${nonce}.${method.toUpperCase()}.${path.split('?')[0]}.${sha256Hex(body)}`;
}

/** `X-Gate-Sign` of a `/gw/v1` request: hex HMAC-SHA256, key = the desk secret as UTF-8. */
export function signRequest(secret: string, ts: string, nonce: string, method: string, path: string, body: Bytes): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(requestSigningString(ts, nonce, method, path, body), 'utf8').digest('hex');
}

/** `X-Gate-Sign` of a callback: hex HMAC-SHA256 over `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`, the body as bytes. */
export function signCallback(secret: string, ts: string, eventId: string, rawBody: Bytes): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${ts}.${eventId}.`, 'utf8'), utf8(rawBody)]))
    .digest('hex');
}

/** 24 random bytes as hex: 48 printable characters, inside the gateway's 8–128 window. */
export function newNonce(): string {
  return randomBytes(24).toString('hex');
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Constant-time comparison of a hex signature (either case) with the expected one. */
export function signaturesEqual(given: string, expectedHex: string): boolean {
  if (!HEX64.test(given) || !HEX64.test(expectedHex)) return false;
  return timingSafeEqual(Buffer.from(given.toLowerCase(), 'latin1'), Buffer.from(expectedHex.toLowerCase(), 'latin1'));
}
