import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Ctx } from '../context.js';
import { DeskSecretCache } from '../deskSecrets.js';
import {
  claimDueEvents,
  finishAttempts,
  oldestDueAt,
  OUTBOX_CHANNEL,
  releaseClaims,
  type ClaimedEvent,
  type FinishedAttempt,
} from '../store/outbox.js';
import { AttemptRecorder, attemptDelivery, retryDelayMs, type Sender } from './attempts.js';
import { createPinnedDispatcher } from './pinnedDispatcher.js';
import { DEFAULT_CALLBACK_TIMEOUT_MS } from './send.js';
import { Waker } from './waker.js';

/** Idle poll: how late a retry can start when nothing wakes the worker sooner (new events wake it at once). */
export const DELIVERY_PERIOD_MS = 10_000;
/**
 * A claim is leased for the receiver timeout plus this margin (30 s with the spec's 15 s timeout):
 * older than that, its worker stopped during the send and another takes it over.
 */
export const CLAIM_LEASE_MARGIN_MS = 15_000;
/** The lag gauge needs its own query; once a second is plenty. */
const LAG_SAMPLE_MS = 1_000;

export interface DeliveryOptions {
  concurrency?: number;
  /** Fraction of `concurrency` one receiving host may hold; at least one slot. */
  hostShare?: number;
  timeoutMs?: number;
  leaseMs?: number;
  idlePollMs?: number;
  dispatcher?: Dispatcher;
  workerId?: string;
}

interface InFlight {
  event: ClaimedEvent;
  receiver: string;
  attempt: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class DeliveryWorker implements Sender {
  readonly name = 'delivery';
  readonly id: string;
  readonly concurrency: number;
  /** Slots one receiving host may hold. */
  readonly perReceiver: number;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly byReceiver = new Map<string, number>();
  readonly secrets: DeskSecretCache;
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly idlePollMs: number;
  private readonly recorder: AttemptRecorder;
  private lastLagSample = 0;
  // Continuous mode (start/stop).
  private running: Promise<void> | null = null;
  private stopping = false;
  private readonly waker = new Waker();
  private closed = false;

  constructor(private readonly ctx: Ctx, opts: DeliveryOptions = {}) {
    this.id = opts.workerId ?? `dw_${randomBytes(6).toString('hex')}`;
    this.recorder = new AttemptRecorder(ctx, this.id, this.name);
    this.secrets = new DeskSecretCache(ctx.box);
    this.dispatcher = opts.dispatcher ?? createPinnedDispatcher({ allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
    this.concurrency = opts.concurrency ?? ctx.config.callbackConcurrency;
    // CALLBACK_HOST_SHARE: a dead endpoint holds at most this many slots, each for up to 15 s.
    const share = opts.hostShare ?? ctx.config.callbackHostShare;
    this.perReceiver = Math.max(1, Math.floor(this.concurrency * share));
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
    this.leaseMs = opts.leaseMs ?? this.timeoutMs + CLAIM_LEASE_MARGIN_MS;
    this.idlePollMs = opts.idlePollMs ?? DELIVERY_PERIOD_MS;
  }

  /** Sends this worker has claimed and not yet recorded. */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Claims as many due events as there are free slots (each receiving host up to its share) and
   * starts sending them; returns how many started.
   */
  async pump(): Promise<number> {
    return (await this.claimAndStart()).started;
  }

  private async claimAndStart(): Promise<{ started: number; filled: boolean; hostLimited: boolean }> {
    const now = this.ctx.clock.now();
    if (now - this.lastLagSample >= LAG_SAMPLE_MS || now < this.lastLagSample) {
      this.lastLagSample = now;
      const due = await oldestDueAt(this.ctx.db, new Date(now));
      this.ctx.metrics.callbackLag.set(due ? Math.max(0, (now - due.getTime()) / 1000) : 0);
    }
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return { started: 0, filled: true, hostLimited: false };
    const room = new Map<string, number>();
    for (const [r, n] of this.byReceiver) room.set(r, this.perReceiver - n);
    const claimed = await claimDueEvents(this.ctx.db, {
      me: this.id,
      now: new Date(now),
      staleBefore: new Date(now - this.leaseMs),
      limit: free,
      defaultRoom: this.perReceiver,
      room,
    });
    const excess: string[] = [];
    let started = 0;
    for (const e of claimed) {
      const receiver = e.receiver ?? '';
      const held = this.byReceiver.get(receiver) ?? 0;
      if (held >= this.perReceiver) {
        excess.push(e.id);
        continue;
      }
      this.byReceiver.set(receiver, held + 1);
      const slot: InFlight = { event: e, receiver, attempt: e.attempts + 1 };
      this.inFlight.set(e.id, slot);
      const task = this.deliver(slot)
        .catch((err) => {
          this.ctx.metrics.workerErrors.inc({ worker: this.name });
          this.ctx.log.error({ err, eventId: e.id }, 'callback delivery failed unexpectedly');
        })
        .finally(() => {
          this.tasks.delete(task);
          this.freeSlot(slot);
        });
      this.tasks.add(task);
      started++;
    }
    // Claimed beyond a receiver's share: handed back unsent, for this or another worker later.
    if (excess.length) await releaseClaims(this.ctx.db, this.id, excess);
    // A receiver that got all the room it had may have more due: a freed slot of its brings the next pass.
    const got = new Map<string, number>();
    for (const e of claimed) got.set(e.receiver ?? '', (got.get(e.receiver ?? '') ?? 0) + 1);
    const hostLimited =
      excess.length > 0 || room.size > 0 && [...room.values()].some((n) => n <= 0) || [...got].some(([r, n]) => n >= (room.get(r) ?? this.perReceiver));
    return { started, filled: claimed.length >= free, hostLimited };
  }

  private freeSlot(slot: InFlight): void {
    if (this.inFlight.get(slot.event.id) !== slot) return;
    this.inFlight.delete(slot.event.id);
    const n = (this.byReceiver.get(slot.receiver) ?? 1) - 1;
    if (n <= 0) this.byReceiver.delete(slot.receiver);
    else this.byReceiver.set(slot.receiver, n);
    // A claim costs about the same for 1 row as for 50: wait until a quarter of a host's share is
    // free (or the worker is empty) rather than claiming one row per finished send.
    if (n <= this.perReceiver - Math.max(1, Math.floor(this.perReceiver / 4)) || this.inFlight.size === 0) {
      this.waker.slotFreed();
    }
  }

  /** Waits for every send this worker has started, and for their records. */
  async drain(): Promise<void> {
    while (this.tasks.size) await Promise.all([...this.tasks]);
  }

  /** One complete pass: claim, send, record. Tests drive the worker with this. */
  async runOnce(): Promise<number> {
    const n = await this.pump();
    await this.drain();
    return n;
  }

  /**
   * Runs until stop(): claims whenever slots are free and something is due. Idle, it waits for a new
   * event (NOTIFY from the outbox insert) or the idle poll; full, it waits for a slot.
   */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /** Called when new events may be due (a NOTIFY, or a caller that just wrote one). */
  kick(): void {
    this.waker.kick();
  }

  private listen(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    // Polling goes on without notifications; the next idle pass listens again.
    return this.waker.listen(this.ctx.db, OUTBOX_CHANNEL, (err, lost) =>
      this.ctx.log.warn({ err: err.message }, lost ? 'outbox notifications lost; polling until they are back' : 'outbox notifications unavailable; polling'),
    );
  }

  private async loop(): Promise<void> {
    await this.listen();
    while (!this.stopping) {
      let r = { started: 0, filled: false, hostLimited: false };
      this.waker.reset();
      try {
        r = await this.claimAndStart();
      } catch (err) {
        this.ctx.metrics.workerErrors.inc({ worker: this.name });
        this.ctx.log.error({ err, worker: this.name }, 'worker pass failed');
        await sleep(1000);
        continue;
      }
      if (this.stopping) break;
      if (this.inFlight.size >= this.concurrency) {
        await this.waker.wait(this.idlePollMs, true);
      } else if (r.filled && r.started > 0) {
        continue; // more may be due and slots are free
      } else {
        // Nothing more due (or only receivers at their share): new events, a freed slot of a held-back
        // receiver, or the idle poll bring the next pass.
        if (!this.waker.listening) void this.listen();
        await this.waker.wait(this.idlePollMs, r.hostLimited);
      }
    }
  }

  /**
   * Stops claiming, lets sends in flight finish within graceMs, then records any still unfinished as
   * `interrupted` (due again at once), so another worker resends them without waiting for the lease.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopping = true;
    this.waker.kick();
    await this.running;
    this.running = null;
    await this.waker.unlistenNow();
    let timer: NodeJS.Timeout | undefined;
    // Timers cap at 2^31-1 ms (a longer delay fires at once): beyond that, wait without one.
    const bounded = graceMs <= 2_147_483_647;
    const finished = await Promise.race([
      this.drain().then(() => true),
      ...(bounded ? [new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs)))] : []),
    ]);
    clearTimeout(timer);
    if (!finished) {
      const at = new Date(this.ctx.clock.now());
      const cut = [...this.inFlight.values()].map(
        (s): FinishedAttempt => ({
          eventId: s.event.id,
          orderId: s.event.order_id,
          attempt: s.attempt,
          outcome: 'interrupted',
          httpCode: null,
          response: null,
          error: 'sender shut down before the answer arrived',
          at,
          nextAttemptAt: at,
        }),
      );
      await finishAttempts(this.ctx.db, this.id, cut).catch((err) => this.ctx.log.error({ err }, 'could not record interrupted callbacks'));
      this.inFlight.clear();
      await this.dispatcher.destroy().catch(() => {});
      return;
    }
    await this.dispatcher.close();
  }

  /** Waits for every send in flight, then closes the connections. */
  async close(): Promise<void> {
    return this.stop(Number.MAX_SAFE_INTEGER);
  }

  private async deliver(slot: InFlight): Promise<void> {
    const { result, outcome } = await attemptDelivery(this.ctx, this, slot.event, slot.attempt);
    const now = this.ctx.clock.now();
    const recorded = await this.recorder.record({
      eventId: slot.event.id,
      orderId: slot.event.order_id,
      attempt: slot.attempt,
      outcome,
      httpCode: result.httpCode,
      response: result.response,
      error: result.error,
      at: new Date(now),
      nextAttemptAt: outcome === 'retry' ? new Date(now + retryDelayMs(slot.attempt)) : null,
    });
    if (!recorded) return; // the claim was taken over; the other worker records its own attempt
    this.ctx.metrics.callbackAttempts.inc({ outcome });
    if (outcome === 'failed') this.ctx.metrics.callbacksFailed.inc();
    const line = { eventId: slot.event.id, orderId: slot.event.order_id, attempt: slot.attempt, outcome, httpCode: result.httpCode, error: result.error };
    // Thousands of deliveries a second would drown the log; everything else stays at info.
    if (outcome === 'delivered') this.ctx.log.debug(line, 'callback attempt');
    else this.ctx.log.info(line, 'callback attempt');
  }

}
