import { PaygateError } from './errors.js';
import { signCallback, signaturesEqual } from './signing.js';
import type { CallbackEvent } from './types.js';

/** Headers as a plain object (Node's `req.headers`, any case, array values allowed) or a Fetch `Headers`. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined | null>;

/** The raw request body exactly as received. */
export type RawBody = string | Uint8Array | ArrayBuffer;

export interface VerifyOptions {
  /** Oldest accepted `X-Gate-Ts`, in seconds from now (either way); default 300. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const fail = (code: string, message: string) => new PaygateError({ status: 400, code, message, detail: message });

function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() !== name) continue;
    const value = Array.isArray(v) ? v[0] : v;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function rawBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  if (rawBody === undefined || rawBody === null) {
    throw fail('CALLBACK_BODY_MISSING', 'verifyCallback: no body given. Pass the raw request body; a framework that already consumed the stream needs a raw body parser (see the Fastify, Express and Fetch recipes in the SDK README).');
  }
  throw fail(
    'CALLBACK_BODY_PARSED',
    `verifyCallback: rawBody is ${Array.isArray(rawBody) ? 'an array' : `a${typeof rawBody === 'object' ? 'n already parsed object' : ` ${typeof rawBody}`}`}. ` +
      'The signature covers the exact bytes the gateway sent, and re-serialising parsed JSON changes them. Pass the raw body as a Buffer/Uint8Array/string ' +
      "(Express: express.raw({ type: 'application/json' }); Fastify: a 'buffer' content-type parser; Fetch: await request.arrayBuffer()).",
  );
}

/**
 * Verifies a callback the gateway sent and returns its parsed body. Throws a `PaygateError` with a
 * `CALLBACK_*` code on any failure; answer such a request with 400 and do not act on it.
 *
 * `X-Gate-Sign` = hex HMAC-SHA256 (key: the desk secret) over `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`,
 * compared in constant time, either hex case; `X-Gate-Ts` more than `toleranceSeconds` away from now
 * is refused as a replay (the gateway signs each attempt afresh, so a retried callback is never stale).
 */
export function verifyCallback(rawBody: RawBody, headers: HeadersLike, secret: string, options: VerifyOptions = {}): CallbackEvent {
  const body = rawBytes(rawBody);
  if (typeof secret !== 'string' || secret === '') throw fail('CALLBACK_SECRET_MISSING', 'verifyCallback: the desk secret is empty; pass the secret of the cash desk the order belongs to.');
  if (!headers || typeof headers !== 'object') throw fail('CALLBACK_HEADERS_MISSING', 'verifyCallback: no headers given; pass req.headers or a Fetch Headers object.');
  const ts = headerOf(headers, 'x-gate-ts');
  const eventId = headerOf(headers, 'x-gate-event-id');
  const sign = headerOf(headers, 'x-gate-sign');
  const missing = [!ts && 'X-Gate-Ts', !eventId && 'X-Gate-Event-Id', !sign && 'X-Gate-Sign'].filter(Boolean);
  if (missing.length) {
    throw fail('CALLBACK_HEADERS_MISSING', `verifyCallback: header ${missing.join(', ')} missing; this request was not sent by the gateway (or a proxy dropped the headers).`);
  }
  if (!/^\d{1,12}$/.test(ts!)) throw fail('CALLBACK_TIMESTAMP_INVALID', `verifyCallback: X-Gate-Ts "${ts}" is not Unix seconds.`);

  const expected = signCallback(secret, ts!, eventId!, body);
  if (!signaturesEqual(sign!.trim(), expected)) {
    throw fail(
      'CALLBACK_SIGNATURE_MISMATCH',
      'verifyCallback: signature does not match. Either the secret is wrong (each cash desk has its own; a rotated secret stops working at once; check for stray whitespace) ' +
        'or the body is not the exact bytes received (parsed and re-serialised, re-encoded, or trimmed).',
    );
  }

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const age = nowSeconds - Number(ts);
  if (Math.abs(age) > tolerance) {
    throw fail(
      'CALLBACK_TIMESTAMP_STALE',
      `verifyCallback: X-Gate-Ts is ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'} (tolerance ${tolerance} s): a replayed callback, or this machine's clock is off.`,
    );
  }

  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as CallbackEvent;
  } catch {
    throw fail('CALLBACK_BODY_INVALID', 'verifyCallback: the signed body is not JSON.');
  }
}
