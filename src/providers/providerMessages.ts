import { randomBytes, timingSafeEqual } from 'node:crypto';
import { signatureMatches, signMessage } from '../signing.js';
import { parseStrictJson } from '../json.js';

/**
 * Messages between the gateway and an external (`http` kind) provider, in both directions,
 * are signed like callbacks: `X-Gate-Sign` = hex HMAC-SHA256 with the provider's secret over
 * `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`, plus `X-Gate-Key`. This module holds the
 * signing and checking of those headers and the parsing of inbound provider events; it
 * touches no database, so the route that records events stays a thin shell around it.
 */

export const PROVIDER_EVENT_TYPES = ['paid', 'confirmed', 'rejected', 'revoked'] as const;
export type ProviderEventType = (typeof PROVIDER_EVENT_TYPES)[number];

export interface ProviderEvent {
  orderId: string;
  type: ProviderEventType;
  payerReference: string | null;
}

export type ProviderMessageVerdict =
  | { ok: true; eventId: string; event: ProviderEvent }
  | { ok: false; status: 400 | 401; reason: string };

export type SignedHeadersVerdict =
  | { ok: true; eventId: string; tsSec: number }
  | { ok: false; reason: string };

export interface ProviderSignedHeaders {
  'X-Gate-Key': string;
  'X-Gate-Ts': string;
  'X-Gate-Event-Id': string;
  'X-Gate-Sign': string;
}

export const DEFAULT_MAX_SKEW_SEC = 300;

/**
 * The event id becomes an idempotency key and sits inside the signed string next to a dot
 * separator; limiting it to a dot-free token keeps `{ts}.{eventId}.{body}` unambiguous.
 */
const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Unix seconds as plain digits; milliseconds (13 digits) still parse but fail the skew check. */
const TS_SEC = /^[0-9]{1,15}$/;
const MAX_ORDER_ID_LENGTH = 128;
/** A UPI UTR is 12 digits; 255 leaves room for other rails' references without unbounded text. */
const MAX_PAYER_REFERENCE_LENGTH = 255;

/** A fresh id for one message: unique per message, never reused across retries of a request. */
export function newProviderMessageId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/** The four signing headers for one message, over the exact bytes that will be sent. */
export function signProviderRequestHeaders(
  key: string,
  secret: string,
  eventId: string,
  tsSec: number,
  rawBody: Uint8Array | string,
): ProviderSignedHeaders {
  const ts = String(Math.floor(tsSec));
  return {
    'X-Gate-Key': key,
    'X-Gate-Ts': ts,
    'X-Gate-Event-Id': eventId,
    'X-Gate-Sign': signMessage(secret, ts, eventId, rawBody),
  };
}

/**
 * Checks the signing headers of a message in either direction. Every failure is an
 * authentication failure; a wrong key and a wrong signature give the same reason so the
 * answer does not tell a prober which of the two it got right.
 */
export function verifySignedHeaders(input: {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Uint8Array | string;
  expectedKey: string;
  secret: string;
  nowMs: number;
  maxSkewSec?: number;
}): SignedHeadersVerdict {
  const key = headerValue(input.headers, 'x-gate-key');
  const ts = headerValue(input.headers, 'x-gate-ts');
  const eventId = headerValue(input.headers, 'x-gate-event-id');
  const sign = headerValue(input.headers, 'x-gate-sign');
  if (key === undefined || ts === undefined || eventId === undefined || sign === undefined) {
    return { ok: false, reason: 'signing headers missing' };
  }
  if (!TS_SEC.test(ts)) return { ok: false, reason: 'X-Gate-Ts is not an integer number of seconds' };
  const tsSec = Number(ts);
  const maxSkewSec = input.maxSkewSec ?? DEFAULT_MAX_SKEW_SEC;
  if (Math.abs(input.nowMs / 1000 - tsSec) > maxSkewSec) {
    return { ok: false, reason: `X-Gate-Ts more than ${maxSkewSec} s from the gateway clock` };
  }
  if (!EVENT_ID.test(eventId)) return { ok: false, reason: 'X-Gate-Event-Id malformed' };
  const keyOk = constantTimeEquals(key, input.expectedKey);
  // The HMAC is computed even for a wrong key so both failures take the same time.
  const sigOk = signatureMatches(sign, signMessage(input.secret, ts, eventId, input.rawBody));
  if (!keyOk || !sigOk) return { ok: false, reason: 'key or signature mismatch' };
  return { ok: true, eventId, tsSec };
}

/**
 * What the signing headers alone can tell, before a byte of the body is read: all four present,
 * the time within the skew, the event id well formed and the key the expected one. A request that
 * fails here costs the gateway no body; one that passes still has its signature checked over the
 * body (`verifySignedHeaders`).
 */
export function precheckSignedHeaders(input: {
  headers: Record<string, string | string[] | undefined>;
  expectedKey: string;
  nowMs: number;
  maxSkewSec?: number;
}): { ok: true } | { ok: false; reason: string } {
  const key = headerValue(input.headers, 'x-gate-key');
  const ts = headerValue(input.headers, 'x-gate-ts');
  const eventId = headerValue(input.headers, 'x-gate-event-id');
  const sign = headerValue(input.headers, 'x-gate-sign');
  if (key === undefined || ts === undefined || eventId === undefined || sign === undefined) return { ok: false, reason: 'signing headers missing' };
  if (!TS_SEC.test(ts)) return { ok: false, reason: 'X-Gate-Ts is not an integer number of seconds' };
  const maxSkewSec = input.maxSkewSec ?? DEFAULT_MAX_SKEW_SEC;
  if (Math.abs(input.nowMs / 1000 - Number(ts)) > maxSkewSec) return { ok: false, reason: `X-Gate-Ts more than ${maxSkewSec} s from the gateway clock` };
  if (!EVENT_ID.test(eventId)) return { ok: false, reason: 'X-Gate-Event-Id malformed' };
  if (!constantTimeEquals(key, input.expectedKey)) return { ok: false, reason: 'key or signature mismatch' };
  return { ok: true };
}

/**
 * Verifies and parses one provider → gateway event (`POST /providers/v1/{providerId}/events`).
 * Authentication comes first and covers the raw bytes; only a well-signed body is parsed, so
 * an unsigned caller can never learn anything from the shape checks (400 only after a pass).
 */
export function verifyProviderMessage(input: {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  expectedKey: string;
  secret: string;
  nowMs: number;
  maxSkewSec?: number;
}): ProviderMessageVerdict {
  const auth = verifySignedHeaders(input);
  if (!auth.ok) return { ok: false, status: 401, reason: auth.reason };
  const parsed = parseProviderEvent(input.rawBody);
  if (!parsed.ok) return { ok: false, status: 400, reason: parsed.reason };
  return { ok: true, eventId: auth.eventId, event: parsed.event };
}

/** The fields a provider event may carry; any other is refused, never ignored. */
const EVENT_FIELDS = new Set(['orderId', 'type', 'payerReference']);

function parseProviderEvent(rawBody: Buffer): { ok: true; event: ProviderEvent } | { ok: false; reason: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch {
    return { ok: false, reason: 'body is not valid UTF-8 JSON' };
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return { ok: false, reason: parsed.detail };
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, reason: 'body is not a JSON object' };
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !EVENT_FIELDS.has(k));
  if (unknown.length > 0) return { ok: false, reason: `unknown ${unknown.length > 1 ? 'properties' : 'property'}: ${unknown.slice(0, 10).join(', ')}` };
  const { orderId, type, payerReference } = fields;
  if (typeof orderId !== 'string' || orderId.length === 0 || orderId.length > MAX_ORDER_ID_LENGTH) {
    return { ok: false, reason: 'orderId must be a non-empty string' };
  }
  if (typeof type !== 'string' || !(PROVIDER_EVENT_TYPES as readonly string[]).includes(type)) {
    return { ok: false, reason: `type must be one of ${PROVIDER_EVENT_TYPES.join(', ')}` };
  }
  if (
    payerReference !== undefined &&
    payerReference !== null &&
    (typeof payerReference !== 'string' || payerReference.length === 0 || payerReference.length > MAX_PAYER_REFERENCE_LENGTH)
  ) {
    return { ok: false, reason: `payerReference must be a string of 1 to ${MAX_PAYER_REFERENCE_LENGTH} characters or null` };
  }
  return {
    ok: true,
    event: { orderId, type: type as ProviderEventType, payerReference: payerReference ?? null },
  };
}

/**
 * Header names are case-insensitive. Node and Fastify hand them over lower-cased, but other
 * callers may not. A repeated header (an array) is refused: which copy was signed is unknowable.
 */
function headerValue(headers: Record<string, string | string[] | undefined>, lowerName: string): string | undefined {
  let value = headers[lowerName];
  if (value === undefined) {
    for (const [name, v] of Object.entries(headers)) {
      if (name.toLowerCase() === lowerName) {
        value = v;
        break;
      }
    }
  }
  if (typeof value !== 'string' || value.length === 0) return undefined;
  return value;
}

function constantTimeEquals(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    // Still run one comparison so a length mismatch costs about as much as a content mismatch.
    timingSafeEqual(bb, bb);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
