import { request, type Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import { newProviderMessageId, signProviderRequestHeaders } from './providerMessages.js';
import { PAYABLE_KEYS, PAYMENT_KEYS, type Payment } from '../domain/payment.js';

export type { Payment };

export type IssueOutcome =
  | { kind: 'issued'; payment: Payment }
  | { kind: 'declined'; reason: string }
  /** `scored: false` only when the fault is ours (credentials, configuration, caller abort), so the breaker ignores it. */
  | { kind: 'failed'; scored: boolean; reason: string };

export interface HttpProviderConfig {
  baseUrl: string;
  key: string;
  secret: string;
}

export interface IssueRequest {
  orderId: string;
  method: string;
  rail: string | null;
  /** Customer amount, 2 decimal places, as a string. */
  amount: string;
  currency: string;
  operator: string | null;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export interface IssueOptions {
  clock: Clock;
  /** Each provider has 10 s to answer (gateway spec, provider cascade timing). */
  timeoutMs?: number;
  /** Aborts the exchange from outside, e.g. when the cascade's 160 s budget runs out. */
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
/** An answer is a small JSON object; anything larger is a misbehaving provider, not details. */
export const MAX_PROVIDER_RESPONSE_BYTES = 64 * 1024;
/** Decline reasons end up in logs and the operator's view; a provider cannot flood them. */
const MAX_DECLINE_REASON_LENGTH = 500;

/**
 * Asks one external provider for payment details: `POST {baseUrl}/payments`, signed with the
 * provider's key and secret. Never throws for anything the provider or the network does; every
 * such case is an outcome the cascade can act on.
 */
export async function issueViaHttp(cfg: HttpProviderConfig, order: IssueRequest, opts: IssueOptions): Promise<IssueOutcome> {
  const target = paymentsUrl(cfg.baseUrl);
  if (target === null) return { kind: 'failed', scored: false, reason: 'provider baseUrl is not an absolute http(s) URL' };
  if (opts.signal?.aborted) return { kind: 'failed', scored: false, reason: 'aborted by caller before sending' };

  // Exactly the documented fields, in a fixed order; the signature covers these very bytes.
  const body = JSON.stringify({
    orderId: order.orderId,
    method: order.method,
    rail: order.rail,
    amount: order.amount,
    currency: order.currency,
    operator: order.operator,
    expiresAt: order.expiresAt,
  });
  const tsSec = Math.floor(opts.clock.now() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    ...signProviderRequestHeaders(cfg.key, cfg.secret, newProviderMessageId(), tsSec, body),
  };

  const timeoutMs = opts.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const controller = new AbortController();
  let timedOut = false;
  // One deadline for connect, headers and body together, so a provider that trickles its answer
  // still cannot hold the cascade past its share.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort();
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true });

  try {
    const response = await request(target, {
      method: 'POST',
      headers,
      body,
      signal: controller.signal,
      dispatcher: opts.dispatcher,
      // undici's request never follows redirects; 0 also disarms a redirect interceptor that a
      // composed dispatcher might carry, because a provider's 3xx is an answer, not a pointer.
      ...({ maxRedirections: 0 } as object),
    });
    const status = response.statusCode;
    if (status !== 200) {
      // The status alone decides; waiting for the body of a failure would only risk the deadline.
      discard(response.body);
      if (status === 401 || status === 403) {
        return { kind: 'failed', scored: false, reason: `provider refused our credentials (HTTP ${status})` };
      }
      return { kind: 'failed', scored: true, reason: `provider answered HTTP ${status}` };
    }
    const read = await readBounded(response.body, response.headers['content-length']);
    if (read === null) {
      return { kind: 'failed', scored: true, reason: `provider answer larger than ${MAX_PROVIDER_RESPONSE_BYTES} bytes` };
    }
    return interpretAnswer(read);
  } catch (err) {
    if (timedOut) return { kind: 'failed', scored: true, reason: `provider did not answer within ${timeoutMs} ms` };
    if (opts.signal?.aborted) return { kind: 'failed', scored: false, reason: 'aborted by caller' };
    return { kind: 'failed', scored: true, reason: `connection error: ${describeError(err)}` };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** Validates a 200 answer's body. Exported so the rules can be pinned without a socket. */
export function interpretAnswer(raw: Buffer): IssueOutcome {
  let answer: unknown;
  try {
    answer = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    return { kind: 'failed', scored: true, reason: 'provider answer is not valid JSON' };
  }
  if (!isPlainObject(answer)) return { kind: 'failed', scored: true, reason: 'provider answer is not a JSON object' };
  if (answer.status === 'declined') {
    // A decline moves the cascade on without a penalty; a missing reason is no reason to score it.
    const reason = typeof answer.reason === 'string' && answer.reason.trim() !== '' ? answer.reason : 'declined without a reason';
    return { kind: 'declined', reason: reason.slice(0, MAX_DECLINE_REASON_LENGTH) };
  }
  if (answer.status !== 'issued') {
    return { kind: 'failed', scored: true, reason: `provider answer has unknown status ${JSON.stringify(answer.status) ?? 'undefined'}` };
  }
  const payment = normalisePayment(answer.payment);
  if (typeof payment === 'string') return { kind: 'failed', scored: true, reason: `invalid payment: ${payment}` };
  return { kind: 'issued', payment };
}

/** Returns the payment with all 8 keys, or a string saying why it is unusable. */
export function normalisePayment(value: unknown): Payment | string {
  if (!isPlainObject(value)) return 'payment is not an object';
  const payment: Payment = { url: null, card: null, phone: null, account: null, iban: null, upiId: null, holder: null, bank: null };
  for (const [k, v] of Object.entries(value)) {
    if (!(PAYMENT_KEYS as readonly string[]).includes(k)) return `unknown key ${JSON.stringify(k)}`;
    if (v !== null && typeof v !== 'string') return `${k} is neither a string nor null`;
    // A blank string would show the customer an empty field; it means "not used", like null.
    payment[k as keyof Payment] = v === null || v.trim() === '' ? null : v;
  }
  // The URL is shown to the customer as a link; only web links, never javascript: or data: ones.
  if (payment.url !== null && !isHttpUrl(payment.url)) return 'url is not an absolute http(s) URL';
  if (!PAYABLE_KEYS.some((k) => payment[k] !== null)) return 'no payable detail (url, card, phone, account, iban or upiId)';
  return payment;
}

function paymentsUrl(baseUrl: string): string | null {
  if (!isHttpUrl(baseUrl)) return null;
  const url = new URL(baseUrl);
  // A base with a path prefix (`https://p.example/api/`) keeps it; only trailing slashes go.
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/payments`;
  return url.toString();
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Reads the whole body unless it exceeds the bound, in which case the stream is destroyed and
 * null returned. The body is always consumed or destroyed so the connection is released.
 */
async function readBounded(body: Dispatcher.ResponseData['body'], contentLength: string | string[] | undefined): Promise<Buffer | null> {
  if (typeof contentLength === 'string' && Number(contentLength) > MAX_PROVIDER_RESPONSE_BYTES) {
    discard(body);
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_PROVIDER_RESPONSE_BYTES) {
      discard(body);
      return null;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * Drops an unread body. undici's body emits an abort error when destroyed before its end;
 * without a listener that error would be uncaught and take the process down.
 */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const cause = (err as { cause?: { code?: unknown } }).cause;
    const detail = typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : err.message;
    return `${err.name}${detail ? `: ${detail}` : ''}`;
  }
  return String(err);
}
