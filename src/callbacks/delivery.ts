import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Ctx } from '../context.js';
import { DeskSecretCache } from '../deskSecrets.js';
import { getDesk } from '../store/desks.js';
import { claimDueEvents, finishAttempt, oldestDueAt, type AttemptOutcome, type OutboxRow } from '../store/outbox.js';
import { createPinnedDispatcher } from './pinnedDispatcher.js';
import { DEFAULT_CALLBACK_TIMEOUT_MS, sendCallback, type SendResult } from './send.js';

/** Spec: 8 attempts in all; attempts 2–8 are due 10, 20, 40, 80, 160, 320, 640 s after the previous one. */
export const MAX_ATTEMPTS = 8;
export const retryDelayMs = (attemptJustMade: number): number => 10_000 * 2 ** (attemptJustMade - 1);

export const DELIVERY_PERIOD_MS = 10_000;
/** Sends in flight per worker process: a slow receiver holds one slot for at most 15 s, not the queue. */
export const DELIVERY_CONCURRENCY = 32;
/** A claim this old belongs to a worker that died mid-send (the send itself ends within 15 s). */
const STALE_CLAIM_MS = 120_000;

export interface DeliveryOptions {
  concurrency?: number;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  workerId?: string;
}

export class DeliveryWorker {
  readonly name = 'delivery';
  readonly id: string;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly secrets: DeskSecretCache;
  private readonly dispatcher: Dispatcher;
  private readonly concurrency: number;
  private readonly timeoutMs: number;

  constructor(private readonly ctx: Ctx, opts: DeliveryOptions = {}) {
    this.id = opts.workerId ?? `dw_${randomBytes(6).toString('hex')}`;
    this.secrets = new DeskSecretCache(ctx.box);
    this.dispatcher = opts.dispatcher ?? createPinnedDispatcher({ allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
    this.concurrency = opts.concurrency ?? DELIVERY_CONCURRENCY;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  }

  /** Claims as many due events as there are free slots and starts sending them; returns how many started. */
  async pump(): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    const now = this.ctx.clock.now();
    const due = await oldestDueAt(this.ctx.db, new Date(now));
    this.ctx.metrics.callbackLag.set(due ? Math.max(0, (now - due.getTime()) / 1000) : 0);
    if (free <= 0) return 0;
    const claimed = await claimDueEvents(this.ctx.db, this.id, new Date(now), new Date(now - STALE_CLAIM_MS), free);
    for (const e of claimed) {
      const p = this.deliver(e)
        .catch((err) => {
          this.ctx.metrics.workerErrors.inc({ worker: this.name });
          this.ctx.log.error({ err, eventId: e.id }, 'callback delivery failed unexpectedly');
        })
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /** Waits for every send this worker has started. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  /** One complete pass: claim, send, record. Tests drive the worker with this. */
  async runOnce(): Promise<number> {
    const n = await this.pump();
    await this.drain();
    return n;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.dispatcher.close();
  }

  private async deliver(e: OutboxRow): Promise<void> {
    const attempt = e.attempts + 1;
    const desk = await getDesk(this.ctx.db, e.desk_id);
    let result: SendResult;
    let outcome: AttemptOutcome;
    if (!desk || !desk.callbacks_enabled) {
      // Callbacks switched off: recorded as suppressed, never sent.
      result = { outcome: 'rejected', httpCode: null, response: null, error: 'callbacks are switched off for the cash desk' };
      outcome = 'suppressed';
    } else if (!e.url) {
      result = { outcome: 'rejected', httpCode: null, response: null, error: 'no callback URL' };
      outcome = 'rejected';
    } else {
      // The desk's current secret signs, so a rotation applies from the next attempt on.
      result = await sendCallback({
        url: e.url,
        body: Buffer.from(e.body, 'utf8'),
        eventId: e.id,
        secret: this.secrets.open(desk.secret_enc),
        ts: Math.floor(this.ctx.clock.now() / 1000),
        dispatcher: this.dispatcher,
        timeoutMs: this.timeoutMs,
      });
      outcome = result.outcome === 'retry' && attempt >= MAX_ATTEMPTS ? 'failed' : result.outcome;
    }
    const now = this.ctx.clock.now();
    const recorded = await this.ctx.db.tx((q) =>
      finishAttempt(q, {
        eventId: e.id,
        orderId: e.order_id,
        me: this.id,
        attempt,
        outcome,
        httpCode: result.httpCode,
        response: result.response,
        error: result.error,
        at: new Date(now),
        nextAttemptAt: outcome === 'retry' ? new Date(now + retryDelayMs(attempt)) : null,
      }),
    );
    if (!recorded) return; // the claim was taken over; the other worker records its own attempt
    this.ctx.metrics.callbackAttempts.inc({ outcome });
    if (outcome === 'failed') this.ctx.metrics.callbacksFailed.inc();
    this.ctx.log.info({ eventId: e.id, orderId: e.order_id, attempt, outcome, httpCode: result.httpCode, error: result.error }, 'callback attempt');
  }
}
