import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { createPinnedDispatcher } from '../callbacks/pinnedDispatcher.js';
import { sendCallback } from '../callbacks/send.js';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoMillis, isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import { merchantDesk } from './cabinet.js';

/** The merchant waits on the page for the answer: shorter than a real delivery's 15 s. */
export const TEST_CALLBACK_TIMEOUT_MS = 10_000;

/**
 * "Send a test callback": one signed POST to the desk's callback URL, exactly as a real callback is
 * signed (X-Gate-Ts, X-Gate-Event-Id, X-Gate-Sign over the body) through the same address guard,
 * with a body that says it is a test (`"event": "test.callback"`, `"test": true`, no order). It is
 * not written to the outbox, so it is never an order event, never retried and never in the feed.
 */
export async function sendTestCallback(ctx: Ctx, merchantId: string, deskId: string, opts: { dispatcher?: Dispatcher } = {}) {
  const desk = await merchantDesk(ctx, merchantId, deskId);
  if (!desk.callback_url) throw new AppError('CALLBACK_URL_REQUIRED', 'callbackUrl: the desk has no callback URL to test');
  const at = ctx.clock.now();
  const eventId = newHistoryId('evt', at);
  const body = Buffer.from(JSON.stringify({ event: 'test.callback', test: true, id: null, deskId: desk.id, eventId, occurredAt: isoMillis(at) }), 'utf8');
  const dispatcher = opts.dispatcher ?? createPinnedDispatcher({ allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
  const started = performance.now();
  try {
    const result = await sendCallback({
      url: desk.callback_url,
      body,
      eventId,
      secret: ctx.box.open(desk.secret_enc),
      ts: Math.floor(at / 1000),
      dispatcher,
      timeoutMs: TEST_CALLBACK_TIMEOUT_MS,
    });
    return {
      deskId: desk.id,
      eventId,
      url: desk.callback_url,
      sentAt: isoSeconds(at),
      durationMs: Math.round(performance.now() - started),
      outcome: result.outcome,
      httpCode: result.httpCode,
      response: result.response,
      error: result.error,
    };
  } finally {
    if (!opts.dispatcher) await dispatcher.close();
  }
}

export type TestCallbackResult = Awaited<ReturnType<typeof sendTestCallback>>;
