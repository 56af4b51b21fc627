import type { Db } from '../store/db.js';

/**
 * How a delivery worker waits when it has nothing to claim: until something new may be due (a
 * NOTIFY of the outbox, a caller that just wrote an event, the worker stopping), until a slot it
 * waits for is freed, or until the idle poll, whichever comes first. A signal that arrives while no
 * wait is on ends the next wait at once, so nothing announced between a pass and its wait is lost.
 * It also holds the worker's subscription to its NOTIFY channel, each notification a kick.
 */
export class Waker {
  private pending = false;
  private slotPending = false;
  private current: ((slot: boolean) => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  /** Whether the NOTIFY subscription is up (a worker that polls listens again when it is not). */
  get listening(): boolean {
    return this.unlisten !== null;
  }

  /**
   * Kicks on every NOTIFY of `channel` until `unlistenNow`. `onTrouble` hears why there is none:
   * the subscription could not be made (`lost` false) or dropped later (`lost` true); the worker
   * polls meanwhile and the next call listens again.
   */
  async listen(db: Db, channel: string, onTrouble: (err: Error, lost: boolean) => void): Promise<void> {
    if (this.unlisten) return;
    try {
      this.unlisten = await db.listen(channel, () => this.kick(), (err) => {
        this.unlisten = null;
        onTrouble(err, true);
      });
    } catch (err) {
      onTrouble(err as Error, false);
    }
  }

  /** Ends the NOTIFY subscription, if any. */
  async unlistenNow(): Promise<void> {
    const u = this.unlisten;
    this.unlisten = null;
    await u?.().catch(() => {});
  }

  /** Something new may be due: ends the wait now on, or the next one at once. */
  kick(): void {
    this.pending = true;
    this.current?.(false);
  }

  /** A slot was freed: ends a wait that asked for one, or the next such wait at once. */
  slotFreed(): void {
    this.slotPending = true;
    this.current?.(true);
  }

  /** Before a pass: what was announced so far, the pass sees for itself. */
  reset(): void {
    this.pending = false;
    this.slotPending = false;
  }

  /** Waits up to `ms` for a kick (or, with `forSlot`, a freed slot); at once when one came since the last reset. */
  wait(ms: number, forSlot = false): Promise<void> {
    if (this.pending || (forSlot && this.slotPending)) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        // Only this wait's own waker is cleared: a late call of an older one must not unhook the next wait.
        if (this.current === wake) this.current = null;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      // One turn later, so every slot a batch of records frees is free before the next claim.
      const wake = (slot: boolean) => {
        if (slot && !forSlot) return;
        setImmediate(done);
      };
      this.current = wake;
    });
  }
}
