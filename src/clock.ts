import { setTimeout as delay } from 'node:timers/promises';

/**
 * Every time-dependent rule reads the time from an injected clock, and every wait on a request's
 * path waits on it, so tests move time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => delay(Math.max(0, ms)),
};

interface Sleeper {
  until: number;
  wake: () => void;
}

/** A clock that only moves when told to; used by tests and by tools that replay time. */
export class ManualClock implements Clock {
  private ms: number;
  private sleepers: Sleeper[] = [];
  constructor(start: number | Date = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }
  now(): number {
    return this.ms;
  }
  /** Resolves when `set` or `advance` has moved the clock `ms` past now (at once for ms <= 0). */
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((wake) => this.sleepers.push({ until: this.ms + ms, wake }));
  }
  /** How many sleeps are waiting for the clock to move. */
  get sleeping(): number {
    return this.sleepers.length;
  }
  set(at: number | Date): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
    this.wakeDue();
  }
  advance(ms: number): void {
    this.ms += ms;
    this.wakeDue();
  }
  private wakeDue(): void {
    const due = this.sleepers.filter((s) => s.until <= this.ms).sort((a, b) => a.until - b.until);
    if (due.length === 0) return;
    this.sleepers = this.sleepers.filter((s) => s.until > this.ms);
    for (const s of due) s.wake();
  }
}
