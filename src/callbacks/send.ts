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

/**
 * One delivery attempt: POST the exact body bytes, signed, and classify the answer per the
 * spec. Never throws for anything the receiver or the network does; the result says what
 * happened. Redirects are not followed (plain `request` with no redirect interceptor).
 */
export async function sendCallback(input: SendCallbackInput): Promise<SendResult> {
  const timeoutMs = input.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;

  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { outcome: 'rejected', httpCode: null, response: null, error: 'invalid callback URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { outcome: 'rejected', httpCode: null, response: null, error: `scheme ${url.protocol} is not allowed` };
  }

  const ts = String(input.ts);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': CALLBACK_USER_AGENT,
    'x-gate-ts': ts,
    'x-gate-event-id': input.eventId,
    'x-gate-sign': signMessage(input.secret, ts, input.eventId, input.body),
  };

  // One deadline for the whole exchange (connect, headers, body), which is what "no answer
  // within 15 seconds" means to the merchant; undici's own timeouts are per phase.
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
        headers,
        body: input.body,
        dispatcher: input.dispatcher,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      if (isBlockedAddressError(err)) {
        // The host now points at a non-public address: it stops receiving callbacks.
        return { outcome: 'rejected', httpCode: null, response: null, error: 'blocked address' };
      }
      const code = (err as { code?: unknown } | null)?.code;
      if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT') {
        return { outcome: 'retry', httpCode: null, response: null, error: `no answer within ${timeoutMs} ms` };
      }
      return { outcome: 'retry', httpCode: null, response: null, error: describeError(err) };
    }

    const status = response.statusCode;
    const body = await readBounded(response.body);
    // The status code tells the whole story of an answer; `error` is kept for attempts without one.
    return { outcome: classifyStatus(status), httpCode: status, response: excerpt(body), error: null };
  } finally {
    clearTimeout(timer);
  }
}
