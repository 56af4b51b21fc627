/**
 * How a delivery worker waits when it has nothing to claim: until something new may be due (a
 * NOTIFY of the outbox, a caller that just wrote an event, the worker stopping), until a slot it
 * waits for is freed, or until the idle poll, whichever comes first. A signal that arrives while no
 * wait is on ends the next wait at once, so nothing announced between a pass and its wait is lost.
 */
export class Waker {
  private pending = false;
  private slotPending = false;
  private current: ((slot: boolean) => void) | null = null;

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
