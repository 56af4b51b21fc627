/** Every time-dependent rule reads the time from an injected clock, so tests move time instead of sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; used by tests and by tools that replay time. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: number | Date = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }
  now(): number {
    return this.ms;
  }
  set(at: number | Date): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
