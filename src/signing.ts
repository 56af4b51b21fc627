import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex SHA-256 of the exact bytes given (empty input for a request without body). */
export function sha256Hex(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

export function hmacHex(secret: string, message: Uint8Array | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(message).digest('hex');
}

/** `{ts}.{nonce}.{METHOD}.{path}.{sha256hex(body)}`: the string a merchant signs for a /gw/v1 request. */
export function requestSigningString(ts: string, nonce: string, method: string, path: string, body: Uint8Array | string): string {
  return signingStringWithBodyHash(ts, nonce, method, path, sha256Hex(body));
}

/** The same string when the body hash is already known (the server hashes while it streams the body in). */
export function signingStringWithBodyHash(ts: string, nonce: string, method: string, path: string, bodySha256Hex: string): string {
  return `${ts}.${nonce}.${method.toUpperCase()}.${path}.${bodySha256Hex}`;
}

export function signRequest(secret: string, ts: string, nonce: string, method: string, path: string, body: Uint8Array | string): string {
  return hmacHex(secret, requestSigningString(ts, nonce, method, path, body));
}

/**
 * Callbacks and provider-connector messages: HMAC over `{ts}.{eventId}.{raw body}`.
 * The body is concatenated as bytes so a signature never depends on a re-serialisation.
 */
export function signMessage(secret: string, ts: string, eventId: string, rawBody: Uint8Array | string): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  return hmacHex(secret, Buffer.concat([Buffer.from(`${ts}.${eventId}.`, 'utf8'), body]));
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Constant-time comparison of a hex signature (either case) against the expected lowercase hex. */
export function signatureMatches(given: string, expectedLowerHex: string): boolean {
  if (!HEX64.test(given)) return false;
  const a = Buffer.from(given.toLowerCase(), 'utf8');
  const b = Buffer.from(expectedLowerHex, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
