import { createHmac, timingSafeEqual } from 'node:crypto';
import { PaygateError } from './errors.js';
import type { CallbackEvent } from './types.js';
import { DEFAULT_TOLERANCE_SECONDS, type HeadersLike, type RawBody, type VerifyOptions } from './verify.js';

/** A verified Standard Webhooks delivery of a webhook endpoint. */
export interface WebhookMessage {
  /** The event kind, e.g. `order.completed`. */
  type: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** The same object the desk callback carries. */
  data: CallbackEvent;
}

const fail = (code: string, message: string) => new PaygateError({ status: 400, code, message, detail: message });

function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() !== name) continue;
    const value = Array.isArray(v) ? v[0] : v;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function bytesOf(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (rawBody instanceof ArrayBuffer) return Buffer.from(rawBody);
  if (rawBody === undefined || rawBody === null) throw fail('CALLBACK_BODY_MISSING', 'verifyWebhook: no body given; pass the raw request body.');
  throw fail('CALLBACK_BODY_PARSED', 'verifyWebhook: the body is already parsed; the signature covers the exact bytes sent, so pass the raw body (Buffer, Uint8Array or string).');
}

function keyOf(secret: string): Buffer {
  if (typeof secret !== 'string' || secret === '') throw fail('CALLBACK_SECRET_MISSING', 'verifyWebhook: the endpoint secret is empty; pass the whsec_… secret shown when the endpoint was created.');
  const encoded = secret.trim().replace(/^whsec_/, '');
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length === 0) throw fail('CALLBACK_SECRET_INVALID', 'verifyWebhook: the endpoint secret is not whsec_ followed by base64.');
  return key;
}

/** `webhook-signature` of one secret: `v1,` + base64 HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`. */
export function signWebhook(secret: string, id: string, timestamp: string, rawBody: RawBody): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytesOf(rawBody)])).digest('base64')}`;
}

/**
 * Verifies a Standard Webhooks delivery (`webhook-id`, `webhook-timestamp`, `webhook-signature`)
 * with the endpoint's `whsec_` secret and returns its body. During a rotation the header carries
 * several signatures separated by spaces; one made with `secret` is enough. A timestamp more than
 * `toleranceSeconds` (default 300) from now is refused. Throws a `PaygateError` with a
 * `CALLBACK_*` code otherwise.
 */
export function verifyWebhook(rawBody: RawBody, headers: HeadersLike, secret: string, options: VerifyOptions = {}): WebhookMessage {
  const body = bytesOf(rawBody);
  const key = keyOf(secret);
  if (!headers || typeof headers !== 'object') throw fail('CALLBACK_HEADERS_MISSING', 'verifyWebhook: no headers given.');
  const id = headerOf(headers, 'webhook-id');
  const ts = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  const missing = [!id && 'webhook-id', !ts && 'webhook-timestamp', !signature && 'webhook-signature'].filter(Boolean);
  if (missing.length) throw fail('CALLBACK_HEADERS_MISSING', `verifyWebhook: header ${missing.join(', ')} missing; this is not a Standard Webhooks delivery.`);
  if (!/^\d{1,12}$/.test(ts!)) throw fail('CALLBACK_TIMESTAMP_INVALID', `verifyWebhook: webhook-timestamp "${ts}" is not Unix seconds.`);
  const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`, 'utf8'), body])).digest();
  let matched = false;
  for (const candidate of signature!.split(' ')) {
    const [version, encoded] = candidate.split(',', 2);
    if (version !== 'v1' || !encoded) continue;
    const given = Buffer.from(encoded, 'base64');
    // Every candidate is compared, in constant time, whatever an earlier one gave.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    throw fail('CALLBACK_SIGNATURE_MISMATCH', 'verifyWebhook: no v1 signature matches. Either the secret is not this endpoint\'s or the body is not the exact bytes received.');
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = Math.floor((options.now ?? Date.now)() / 1000) - Number(ts);
  if (Math.abs(age) > tolerance) {
    throw fail('CALLBACK_TIMESTAMP_STALE', `verifyWebhook: webhook-timestamp is ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'} (tolerance ${tolerance} s).`);
  }
  try {
    return JSON.parse(body.toString('utf8')) as WebhookMessage;
  } catch {
    throw fail('CALLBACK_BODY_INVALID', 'verifyWebhook: the signed body is not JSON.');
  }
}
