/**
 * One callback attempt: whether and how it is sent, what its outcome means for the next one, and
 * the recording of finished attempts, batched. The delivery worker (delivery.ts) decides when and
 * how many; this file decides what one attempt is.
 */
import type { Dispatcher } from 'undici';
import type { Ctx } from '../context.js';
import type { DeskSecretCache } from '../deskSecrets.js';
import { finishAttempts, SUPPRESSED_NO_URL, SUPPRESSED_OFF, type AttemptOutcome, type ClaimedEvent, type FinishedAttempt } from '../store/outbox.js';
import { sendCallback, type SendResult } from './send.js';
import { span } from '../telemetry/index.js';

/** Spec: 8 attempts in all; attempts 2–8 are due 10, 20, 40, 80, 160, 320, 640 s after the previous one. */
export const MAX_ATTEMPTS = 8;
export const retryDelayMs = (attemptJustMade: number): number => 10_000 * 2 ** (attemptJustMade - 1);

/** What sending needs: the desks' secrets, the connection pool that pins receivers' addresses, the timeout. */
export interface Sender {
  secrets: DeskSecretCache;
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/**
 * Makes attempt number `attempt` of the event: suppressed (never sent) when the desk's callbacks are
 * off or the order has no callback URL, else sent signed with the desk's current secret (so a rotation
 * applies from the next attempt on). A retry after the last attempt is a failure.
 */
export function attemptDelivery(ctx: Ctx, sender: Sender, e: ClaimedEvent, attempt: number): Promise<{ result: SendResult; outcome: AttemptOutcome }> {
  return span('callback.attempt', { 'paygate.event.id': e.id, 'paygate.order.id': e.order_id, 'paygate.callback.event': e.event, 'paygate.callback.attempt': attempt }, async (s) => {
    const made = await attemptOnce(ctx, sender, e, attempt);
    s.set({ 'http.response.status_code': made.result.httpCode, 'paygate.callback.outcome': made.outcome, 'paygate.callback.error': made.result.error });
    return made;
    // The attempt continues the trace of the request or job that wrote the event.
  }, e.trace_parent);
}

async function attemptOnce(ctx: Ctx, sender: Sender, e: ClaimedEvent, attempt: number): Promise<{ result: SendResult; outcome: AttemptOutcome }> {
  if (e.callbacks_enabled === null || !e.callbacks_enabled || e.secret_enc === null) {
    return { result: { outcome: 'rejected', httpCode: null, response: null, error: SUPPRESSED_OFF }, outcome: 'suppressed' };
  }
  // An order made without a callback URL (a payment link on a desk without one): nothing to send, and nothing failing.
  if (!e.url) return { result: { outcome: 'rejected', httpCode: null, response: null, error: SUPPRESSED_NO_URL }, outcome: 'suppressed' };
  const result = await sendCallback({
    url: e.url,
    body: Buffer.from(e.body, 'utf8'),
    eventId: e.id,
    secret: sender.secrets.open(e.secret_enc),
    ts: Math.floor(ctx.clock.now() / 1000),
    dispatcher: sender.dispatcher,
    timeoutMs: sender.timeoutMs,
  });
  return { result, outcome: result.outcome === 'retry' && attempt >= MAX_ATTEMPTS ? 'failed' : result.outcome };
}

interface PendingRecord {
  attempt: FinishedAttempt;
  done: (recorded: boolean) => void;
}

/**
 * Records finished attempts of one worker. Attempts finishing while a write is under way go
 * together in the next one, so a busy worker writes hundreds per statement instead of one
 * transaction each. `record` answers whether the attempt was recorded: false when the claim was
 * taken over by another worker (which records its own attempt) or the write failed (the claim's
 * lease runs out and another pass takes it over).
 */
export class AttemptRecorder {
  private records: PendingRecord[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly ctx: Ctx,
    private readonly workerId: string,
    private readonly workerName: string,
  ) {}

  record(a: FinishedAttempt): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.records.push({ attempt: a, done: resolve });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.records.length) {
        // One turn of the event loop first: answers that already arrived join this batch (on the
        // embedded database a statement blocks the loop, so without this every batch is one).
        await new Promise((r) => setImmediate(r));
        const batch = this.records;
        this.records = [];
        let recorded = new Set<string>();
        try {
          recorded = await finishAttempts(this.ctx.db, this.workerId, batch.map((r) => r.attempt));
        } catch (err) {
          this.ctx.metrics.workerErrors.inc({ worker: this.workerName });
          this.ctx.log.error({ err, count: batch.length }, 'could not record callback attempts');
        }
        for (const r of batch) r.done(recorded.has(r.attempt.eventId));
      }
    } finally {
      this.flushing = null;
    }
  }
}
