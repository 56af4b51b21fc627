/**
 * The sender of webhook endpoint deliveries (Standard Webhooks). It claims due deliveries with a
 * lease, at most WEBHOOK_ENDPOINT_CONCURRENCY in flight per endpoint across every instance, so a
 * slow or dead endpoint holds only its own slots; the spec's desk callbacks have their own worker
 * (delivery.ts) and never wait for this one. Finished attempts are recorded in batches.
 *
 * Any 2xx delivers. 410 Gone disables the endpoint. Everything else is tried again on the schedule
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts, about 28 hours), each delay stretched by
 * up to 10 % at random; a 429 or 503 with Retry-After waits at least that long. An endpoint whose
 * attempts have all failed for five days is disabled and its merchant's owners are mailed.
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Ctx } from '../context.js';
import { queueMailToOwners } from '../mail/outbox.js';
import { insertAuditEntry } from '../store/audit.js';
import { getMerchant } from '../store/merchants.js';
import { WEBHOOK_CHANNEL } from '../store/outbox.js';
import {
  backlogByEndpoint, claimDeliveries, disableEndpoint, finishDeliveries,
  type ClaimedDelivery, type DeliveryOutcome, type FinishedDelivery,
} from '../store/webhookEndpoints.js';
import { createPinnedDispatcher } from './pinnedDispatcher.js';
import { DEFAULT_CALLBACK_TIMEOUT_MS, postSigned } from './send.js';
import { standardWebhookHeaders, webhookKey } from './standardWebhooks.js';
import { span } from '../telemetry/index.js';
import { Waker } from './waker.js';

/** After attempt n fails, attempt n+1 waits WEBHOOK_RETRY_DELAYS_S[n-1] seconds (plus up to 10 %); eight attempts in all. */
export const WEBHOOK_RETRY_DELAYS_S: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_S.length + 1;
/** Random stretch of each delay, so a receiver back from an outage is not hit by every retry at once. */
export const WEBHOOK_RETRY_SPREAD = 0.1;
/** An endpoint failing every attempt this long is disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 86_400_000;
/** A Retry-After longer than this is held to it. */
const RETRY_AFTER_MAX_S = 7 * 86_400;
/** Sends in flight per process, every endpoint together. */
export const WEBHOOK_PROCESS_CONCURRENCY = 256;
/** Idle poll: new deliveries wake the sender at once through NOTIFY; retries become due on this poll. */
export const WEBHOOK_IDLE_POLL_MS = 1_000;
const BACKLOG_SAMPLE_MS = 5_000;

export interface WebhookSenderOptions {
  timeoutMs?: number;
  concurrency?: number;
  processConcurrency?: number;
  dispatcher?: Dispatcher;
  idlePollMs?: number;
  random?: () => number;
}

/** When attempt `attempt` (1-based) failed at `now`: the next one, or null when it was the last. */
export function nextAttemptAt(attempt: number, now: number, retryAfter: string | null, random: () => number = Math.random): number | null {
  const delay = WEBHOOK_RETRY_DELAYS_S[attempt - 1];
  if (delay === undefined) return null;
  let at = now + Math.round(delay * 1000 * (1 + WEBHOOK_RETRY_SPREAD * random()));
  const ra = retryAfterSeconds(retryAfter, now);
  if (ra !== null) at = Math.max(at, now + Math.min(ra, RETRY_AFTER_MAX_S) * 1000);
  return at;
}

/** `Retry-After` as seconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(v: string | null, now: number): number | null {
  if (v === null) return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const at = Date.parse(t);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

interface Job {
  d: ClaimedDelivery;
}

export class WebhookSender {
  readonly name = 'webhook-sender';
  readonly id = `ws_${randomBytes(6).toString('hex')}`;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly processConcurrency: number;
  private readonly dispatcher: Dispatcher;
  private readonly idlePollMs: number;
  private readonly random: () => number;
  private readonly keys = new Map<string, Buffer>();
  private readonly inFlight = new Map<number, Job>();
  private readonly tasks = new Set<Promise<void>>();
  private finished: FinishedDelivery[] = [];
  private flushing: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  private readonly waker = new Waker();
  private lastBacklog = Number.NEGATIVE_INFINITY;
  private readonly backlogLabels = new Set<string>();

  constructor(private readonly ctx: Ctx, opts: WebhookSenderOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
    this.concurrency = opts.concurrency ?? ctx.config.webhookEndpointConcurrency;
    this.processConcurrency = opts.processConcurrency ?? WEBHOOK_PROCESS_CONCURRENCY;
    this.dispatcher = opts.dispatcher ?? createPinnedDispatcher({ allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
    this.idlePollMs = opts.idlePollMs ?? WEBHOOK_IDLE_POLL_MS;
    this.random = opts.random ?? Math.random;
  }

  get busy(): number {
    return this.inFlight.size;
  }

  /** Claims what is due and starts sending it; answers how many started, without waiting for them. */
  async pump(): Promise<number> {
    const now = this.ctx.clock.now();
    if (now - this.lastBacklog >= BACKLOG_SAMPLE_MS || now < this.lastBacklog) {
      this.lastBacklog = now;
      await this.sampleBacklog();
    }
    const free = this.processConcurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await claimDeliveries(this.ctx.db, {
      me: this.id,
      now: new Date(now),
      // The lease outlives the timeout: a delivery still leased after it belongs to a stopped sender.
      leaseUntil: new Date(now + this.timeoutMs + 15_000),
      concurrency: this.concurrency,
      limit: free,
    });
    for (const d of claimed) {
      const job = { d };
      this.inFlight.set(d.id, job);
      const task = this.send(job)
        .catch((err) => {
          this.ctx.metrics.workerErrors.inc({ worker: this.name });
          this.ctx.log.error({ err, delivery: d.id }, 'webhook delivery failed unexpectedly');
        })
        .finally(() => this.tasks.delete(task));
      this.tasks.add(task);
    }
    return claimed.length;
  }

  /** Waits for every send started and its record. */
  async drain(): Promise<void> {
    while (this.tasks.size || this.flushing || this.finished.length) {
      if (this.tasks.size) await Promise.allSettled([...this.tasks]);
      else if (this.flushing) await this.flushing;
      else await this.flush();
    }
  }

  /** One pass (tests): claim, send, record. */
  async runOnce(): Promise<number> {
    const n = await this.pump();
    await this.drain();
    return n;
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  kick(): void {
    this.waker.kick();
  }

  private listen(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return this.waker.listen(this.ctx.db, WEBHOOK_CHANNEL, (err, lost) => {
      if (!lost) this.ctx.log.warn({ err: err.message }, 'webhook notifications unavailable; polling');
    });
  }

  private async loop(): Promise<void> {
    await this.listen();
    while (!this.stopping) {
      this.waker.reset();
      try {
        await this.pump();
      } catch (err) {
        this.ctx.metrics.workerErrors.inc({ worker: this.name });
        this.ctx.log.error({ err, worker: this.name }, 'worker pass failed');
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (this.stopping) break;
      if (!this.waker.listening) void this.listen();
      // Claimed something: a freed slot (a record written) or a new delivery wakes the next pass.
      // Claimed nothing: only a new delivery, a freed slot or the poll (retries falling due) can change that.
      await this.waker.wait(this.idlePollMs);
    }
  }

  /** Stops claiming and lets sends in flight finish within graceMs; sends still unfinished are cut off, and another sender takes them over after their lease, logging them `interrupted`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.waker.kick();
    await this.running;
    this.running = null;
    await this.waker.unlistenNow();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.drain().then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.min(graceMs, 2_147_483_647)))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      // Cut off mid-send: logged as interrupted by whichever sender claims them next.
      await this.dispatcher.destroy().catch(() => {});
      return;
    }
    await this.dispatcher.close().catch(() => {});
  }

  private keyOf(sealed: string): Buffer {
    let k = this.keys.get(sealed);
    if (!k) {
      k = webhookKey(this.ctx.box.open(sealed));
      if (this.keys.size > 10_000) this.keys.clear();
      this.keys.set(sealed, k);
    }
    return k;
  }

  private async send(job: Job): Promise<void> {
    const d = job.d;
    const startedAt = this.ctx.clock.now();
    const keys = [this.keyOf(d.secret_enc)];
    if (d.prev_secret_enc && d.prev_secret_until && d.prev_secret_until.getTime() > startedAt) keys.push(this.keyOf(d.prev_secret_enc));
    const body = Buffer.from(d.body, 'utf8');
    const t0 = performance.now();
    // The attempt's span continues the trace of the request or job that wrote the event.
    const r = await span('webhook.attempt', { 'paygate.webhook_endpoint.id': d.endpoint_id, 'paygate.event.id': d.event_id, 'paygate.webhook.event': d.event, 'paygate.webhook.attempt': d.attempts }, async (s) => {
      const sent = await postSigned({
        url: d.url,
        body,
        headers: standardWebhookHeaders(keys, d.event_id, Math.floor(startedAt / 1000), body),
        dispatcher: this.dispatcher,
        timeoutMs: this.timeoutMs,
      });
      s.set({ 'http.response.status_code': sent.httpCode ?? undefined, 'paygate.webhook.error': sent.error ?? undefined });
      return sent;
    }, d.trace_parent);
    const durationMs = Math.round(performance.now() - t0);
    const now = this.ctx.clock.now();
    let outcome: DeliveryOutcome;
    let next: number | null = null;
    if (r.httpCode !== null && r.httpCode >= 200 && r.httpCode < 300) outcome = 'delivered';
    else if (r.httpCode === 410) outcome = 'failed';
    else {
      next = nextAttemptAt(d.attempts, now, r.httpCode === 429 || r.httpCode === 503 ? r.retryAfter : null, this.random);
      outcome = next === null ? 'failed' : 'retry';
    }
    this.finished.push({
      id: d.id, endpointId: d.endpoint_id, eventId: d.event_id, event: d.event, attempt: d.attempts, outcome,
      statusCode: r.httpCode, durationMs, error: r.error, response: r.response, at: new Date(now), next: next === null ? null : new Date(next),
    });
    this.ctx.metrics.webhookAttempts.inc({ outcome });
    if (r.httpCode === 410) await this.flush().then(() => this.disable(d.endpoint_id, 'gone', 'the receiver answered 410 Gone'));
    else await this.flush();
  }

  /** Writes the finished attempts gathered so far; attempts finishing meanwhile go in the next write. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.finished.length ? this.flush() : undefined));
    if (this.finished.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      // One turn later: every answer that arrived in this turn joins the same statement.
      await new Promise<void>((r) => setImmediate(r));
      const batch = this.finished;
      this.finished = [];
      try {
        const { failingSince } = await finishDeliveries(this.ctx.db, this.id, batch);
        const now = this.ctx.clock.now();
        for (const [endpointId, since] of failingSince) {
          if (now - since.getTime() >= WEBHOOK_DISABLE_AFTER_MS) await this.disable(endpointId, 'failing', 'every attempt failed for five days');
        }
      } catch (err) {
        // The leases run out and another pass sends them again.
        this.ctx.metrics.workerErrors.inc({ worker: this.name });
        this.ctx.log.error({ err }, 'webhook attempts could not be recorded');
      } finally {
        for (const f of batch) this.inFlight.delete(f.id);
        this.flushing = null;
        // Slots are free in the database now: the next pass may claim.
        this.kick();
      }
    })();
    return this.flushing;
  }

  /** Disables the endpoint, mails the merchant's owners and writes the audit entry, together; once. */
  private async disable(endpointId: string, reason: 'gone' | 'failing', why: string): Promise<void> {
    const at = new Date(this.ctx.clock.now());
    const done = await this.ctx.db.tx(async (q) => {
      const ep = await disableEndpoint(q, endpointId, why, at);
      if (!ep) return false;
      const merchant = await getMerchant(q, ep.merchant_id);
      await queueMailToOwners(q, at, ep.merchant_id, {
        kind: 'webhook-disabled',
        data: { merchantName: merchant?.name ?? ep.merchant_id, url: ep.url, reason: why, cabinetUrl: `${this.ctx.config.publicBaseUrl.replace(/\/$/, '')}/cabinet/webhooks/${ep.id}` },
      });
      await insertAuditEntry(q, { at, actor: 'system', action: 'webhook-endpoint.disable', objectId: ep.id, outcome: 'ok', detail: why });
      return true;
    });
    if (done) {
      this.ctx.metrics.webhookEndpointsDisabled.inc({ reason });
      this.ctx.log.warn({ endpoint: endpointId, reason: why }, 'webhook endpoint disabled');
    }
  }

  private async sampleBacklog(): Promise<void> {
    try {
      const rows = await backlogByEndpoint(this.ctx.db);
      const seen = new Set<string>();
      for (const r of rows) {
        this.ctx.metrics.webhookBacklog.set({ endpoint: r.endpoint_id }, r.n);
        seen.add(r.endpoint_id);
      }
      // An endpoint whose backlog emptied reads 0 once, then leaves the exposition.
      for (const e of this.backlogLabels) if (!seen.has(e)) this.ctx.metrics.webhookBacklog.set({ endpoint: e }, 0);
      for (const e of [...this.backlogLabels]) if (!seen.has(e)) this.backlogLabels.delete(e);
      for (const e of seen) this.backlogLabels.add(e);
    } catch (err) {
      this.ctx.log.warn({ err: (err as Error).message }, 'webhook backlog could not be read');
    }
  }
}

