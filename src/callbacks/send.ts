import { request, type Dispatcher } from 'undici';
import { signMessage } from '../signing.js';
import { isBlockedAddressError } from './urlGuard.js';

/** The spec's receiver timeout: no answer within 15 seconds is retried. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 15_000;

/** Product token the spec requires in every callback (decision D23). */
export const CALLBACK_USER_AGENT = 'Paygate/1.0 Callback';

/** Characters of the receiver's answer kept for the merchant's delivery log. */
export const RESPONSE_EXCERPT_CHARS = 300;

// 300 characters are at most 1200 UTF-8 bytes; reading a few KiB and no more means a receiver
// answering with megabytes costs us nothing.
const RESPONSE_READ_LIMIT_BYTES = 4096;

export type SendOutcome = 'delivered' | 'retry' | 'rejected';

export interface SendResult {
  outcome: SendOutcome;
  httpCode: number | null;
  /** First 300 characters of the response body; null when no response arrived. */
  response: string | null;
  error: string | null;
}

export interface SendCallbackInput {
  url: string;
  /** Exact bytes to send; the signature covers these bytes. */
  body: Buffer;
  eventId: string;
  secret: string;
  /** Unix seconds. */
  ts: number;
  dispatcher: Dispatcher;
  timeoutMs?: number;
}

/** The spec's delivery rules: exactly 200 delivers; 5xx and 429 retry; everything else is final. */
export function classifyStatus(status: number): SendOutcome {
  if (status === 200) return 'delivered';
  if (status === 429 || (status >= 500 && status <= 599)) return 'retry';
  return 'rejected';
}

function excerpt(bytes: Buffer): string {
  // Code points, so a surrogate pair is never cut in half; NUL removed because PostgreSQL text
  // cannot hold it and the excerpt is stored.
  const text = bytes.toString('utf8').replace(/\u0000/g, '');
  return Array.from(text).slice(0, RESPONSE_EXCERPT_CHARS).join('');
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const message = err.message.split('\n', 1)[0] ?? '';
    const text = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
    return text.slice(0, RESPONSE_EXCERPT_CHARS);
  }
  return String(err).slice(0, RESPONSE_EXCERPT_CHARS);
}

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buf);
      size += buf.length;
      if (size >= RESPONSE_READ_LIMIT_BYTES) break;
    }
  } catch {
    // A body cut short (timeout, reset) still leaves the status, which is what decides; keep
    // whatever arrived.
  } finally {
    // Leaving the rest unread would hold the connection; destroying it also closes the socket.
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_READ_LIMIT_BYTES);
}

/** What a signed POST came to: the answer's status, an excerpt and `Retry-After`, or why there was none. */
export interface PostResult {
  httpCode: number | null;
  response: string | null;
  error: string | null;
  /** The answer's `Retry-After` header as it came; null without one. */
  retryAfter: string | null;
  /** The host now resolves to a non-public address: nothing was sent. */
  blocked: boolean;
}

/**
 * POSTs the exact body bytes with the given headers through the pinned dispatcher, one deadline for
 * the whole exchange (connect, headers, body). Never throws for anything the receiver or the
 * network does; redirects are not followed (plain `request` with no redirect interceptor), and at
 * most a few KiB of the answer are read.
 */
export async function postSigned(input: { url: string; body: Buffer; headers: Record<string, string>; dispatcher: Dispatcher; timeoutMs: number }): Promise<PostResult> {
  const none = { httpCode: null, response: null, retryAfter: null, blocked: false };
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { ...none, error: 'invalid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ...none, error: `scheme ${url.protocol} is not allowed` };
  const timeoutMs = input.timeoutMs;
  // One deadline for the whole exchange, which is what "no answer within 15 seconds" means to the
  // merchant; undici's own timeouts are per phase.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${timeoutMs} ms`));
  }, timeoutMs);
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'POST',
        headers: input.headers,
        body: input.body,
        dispatcher: input.dispatcher,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      // The host now points at a non-public address: nothing is sent to it.
      if (isBlockedAddressError(err)) return { ...none, error: 'blocked address', blocked: true };
      const code = (err as { code?: unknown } | null)?.code;
      if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT') return { ...none, error: `no answer within ${timeoutMs} ms` };
      return { ...none, error: describeError(err) };
    }
    const ra = response.headers['retry-after'];
    const body = await readBounded(response.body);
    // The status code tells the whole story of an answer; `error` is kept for attempts without one.
    return { httpCode: response.statusCode, response: excerpt(body), error: null, retryAfter: typeof ra === 'string' ? ra : null, blocked: false };
  } finally {
    clearTimeout(timer);
  }
}

/** One callback attempt: POST the exact body bytes, signed with `X-Gate-*`, and classify the answer per the spec. */
export async function sendCallback(input: SendCallbackInput): Promise<SendResult> {
  const ts = String(input.ts);
  const r = await postSigned({
    url: input.url,
    body: input.body,
    dispatcher: input.dispatcher,
    timeoutMs: input.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': CALLBACK_USER_AGENT,
      'x-gate-ts': ts,
      'x-gate-event-id': input.eventId,
      'x-gate-sign': signMessage(input.secret, ts, input.eventId, input.body),
    },
  });
  if (r.httpCode !== null) return { outcome: classifyStatus(r.httpCode), httpCode: r.httpCode, response: r.response, error: null };
  if (r.error === 'invalid URL') return { outcome: 'rejected', httpCode: null, response: null, error: 'invalid callback URL' };
  // A blocked host stops receiving callbacks; a bad scheme is final too; anything else is retried.
  const final = r.blocked || r.error?.startsWith('scheme ');
  return { outcome: final ? 'rejected' : 'retry', httpCode: null, response: null, error: r.error };
}
