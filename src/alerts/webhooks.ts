/**
 * The sender of alert webhooks: claims due deliveries (alert_deliveries) with a lease and posts
 * each, signed like a callback (`X-Gate-Ts`, `X-Gate-Event-Id` = the delivery's id, `X-Gate-Sign`
 * = HMAC-SHA256 of `{ts}.{id}.{body}` under the channel's secret), through the pinned dispatcher
 * (no private addresses, checked at connect time). Sends run beside each other and a pass never
 * waits for one: a receiver that never answers holds one slot until its timeout, nothing else.
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Ctx } from '../context.js';
import { createPinnedDispatcher } from '../callbacks/pinnedDispatcher.js';
import { sendCallback } from '../callbacks/send.js';
import type { Worker } from '../workers/loop.js';
import * as store from './store.js';

/** No answer within this long is a failed attempt, tried again later. */
export const ALERT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Sends at once per process: a dead receiver holds one slot at a time, each for at most the timeout. */
export const ALERT_WEBHOOK_CONCURRENCY = 8;
/** Idle poll of the sender. */
export const ALERT_WEBHOOK_PERIOD_MS = 2_000;
/** After attempt n fails, the next waits RETRY_DELAYS_S[n-1] seconds; after the last (10 attempts, about 8 h) the delivery fails for good. */
export const ALERT_WEBHOOK_RETRY_DELAYS_S: readonly number[] = [10, 30, 60, 300, 900, 1800, 3600, 7200, 14_400];

export interface AlertWebhookOptions {
  timeoutMs?: number;
  concurrency?: number;
  dispatcher?: Dispatcher;
}

export class AlertWebhookSender implements Worker {
  readonly name = 'alert-webhooks';
  readonly id = `aw_${randomBytes(6).toString('hex')}`;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly dispatcher: Dispatcher;
  private readonly tasks = new Set<Promise<void>>();

  constructor(private readonly ctx: Ctx, opts: AlertWebhookOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? ALERT_WEBHOOK_TIMEOUT_MS;
    this.concurrency = opts.concurrency ?? ALERT_WEBHOOK_CONCURRENCY;
    this.dispatcher = opts.dispatcher ?? createPinnedDispatcher({ allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
  }

  /** Claims as many due deliveries as there are free slots and starts them; returns how many it started, without waiting for them. */
  async runOnce(): Promise<number> {
    const free = this.concurrency - this.tasks.size;
    if (free <= 0) return 0;
    const now = this.ctx.clock.now();
    // The lease outlives the timeout: a delivery still leased after it belongs to a stopped sender.
    const claimed = await store.claimDueDeliveries(this.ctx.db, { me: this.id, now: new Date(now), leaseUntil: new Date(now + this.timeoutMs + 15_000), limit: free });
    for (const d of claimed) {
      const task = this.send(d).catch((err) => this.ctx.log.error({ err, delivery: d.id }, 'alert webhook attempt could not be recorded'));
      this.tasks.add(task);
      void task.finally(() => this.tasks.delete(task));
    }
    return claimed.length;
  }

  /** Waits for the sends in flight (tests, and stopping). */
  async idle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Sends still in flight are cut off (their deliveries are leased and tried again after the lease); the connections close. */
  async close(): Promise<void> {
    if (this.tasks.size > 0) await this.dispatcher.destroy().catch(() => {});
    else await this.dispatcher.close().catch(() => {});
  }

  private async send(d: store.DeliveryRow): Promise<void> {
    const channel = await store.getChannel(this.ctx.db, d.channel_id);
    let outcome: { state: store.DeliveryState; httpCode: number | null; error: string | null };
    if (!channel || channel.secret_enc === null) {
      outcome = { state: 'failed', httpCode: null, error: 'the channel has no signing secret' };
    } else {
      const r = await sendCallback({
        url: channel.target,
        body: Buffer.from(d.body, 'utf8'),
        eventId: d.id,
        secret: this.ctx.box.open(channel.secret_enc),
        ts: Math.floor(this.ctx.clock.now() / 1000),
        dispatcher: this.dispatcher,
        timeoutMs: this.timeoutMs,
      });
      // Chat bots and incident tools answer 200, 201, 202 or 204: any 2xx delivers. 429, 5xx and
      // no answer are tried again; any other answer (and a host now private) is final.
      const delivered = r.httpCode !== null && r.httpCode >= 200 && r.httpCode < 300;
      outcome = { state: delivered ? 'delivered' : r.outcome === 'retry' ? 'pending' : 'failed', httpCode: r.httpCode, error: r.error };
    }
    const now = this.ctx.clock.now();
    const delay = ALERT_WEBHOOK_RETRY_DELAYS_S[d.attempts - 1];
    if (outcome.state === 'pending' && delay === undefined) outcome = { ...outcome, state: 'failed' };
    const ok = await store.finishDelivery(this.ctx.db, this.id, d.id, {
      ...outcome,
      next: outcome.state === 'pending' ? new Date(now + delay! * 1000) : null,
      at: new Date(now),
    });
    if (ok && outcome.state === 'failed') this.ctx.log.warn({ delivery: d.id, channel: d.channel_id, httpCode: outcome.httpCode, error: outcome.error }, 'alert webhook failed for good');
  }
}
