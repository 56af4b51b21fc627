import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Waker } from '../../src/callbacks/waker.js';

// The idle wait of the callback worker and the webhook sender: a kick ends it at once, a freed slot
// only a wait that asked for one, the poll ends it otherwise, and no signal is ever lost.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function track(p: Promise<void>) {
  const s = { done: false };
  void p.then(() => (s.done = true));
  return s;
}

describe('Waker', () => {
  it('a kick ends the wait on the next turn, long before the poll', async () => {
    const w = new Waker();
    const waiting = track(w.wait(1000));
    await vi.advanceTimersByTimeAsync(10);
    expect(waiting.done).toBe(false);
    w.kick();
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.done).toBe(true);
  });

  it('the poll ends a wait nothing signals', async () => {
    const w = new Waker();
    const waiting = track(w.wait(1000));
    await vi.advanceTimersByTimeAsync(999);
    expect(waiting.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.done).toBe(true);
  });

  it('a kick before the wait ends it at once; a reset forgets it', async () => {
    const w = new Waker();
    w.kick();
    const first = track(w.wait(1000));
    await vi.advanceTimersByTimeAsync(0);
    expect(first.done).toBe(true);
    w.kick();
    w.reset();
    const second = track(w.wait(1000));
    await vi.advanceTimersByTimeAsync(500);
    expect(second.done).toBe(false);
  });

  it('a freed slot ends only a wait that asked for one', async () => {
    const w = new Waker();
    const idle = track(w.wait(1000));
    w.slotFreed();
    await vi.advanceTimersByTimeAsync(500);
    expect(idle.done).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(idle.done).toBe(true);
    // The slot freed meanwhile is remembered for the next wait that asks for one.
    const full = track(w.wait(1000, true));
    await vi.advanceTimersByTimeAsync(0);
    expect(full.done).toBe(true);
  });

  it('a late wake of an ended wait never unhooks the next one', async () => {
    const w = new Waker();
    const first = track(w.wait(100));
    // The poll and a kick land in the same instant: the kick's turn-later end comes after the poll's.
    await vi.advanceTimersByTimeAsync(99);
    w.kick();
    await vi.advanceTimersByTimeAsync(1);
    expect(first.done).toBe(true);
    w.reset();
    const second = track(w.wait(1000));
    await vi.advanceTimersByTimeAsync(10);
    expect(second.done).toBe(false);
    w.kick();
    await vi.advanceTimersByTimeAsync(1);
    expect(second.done).toBe(true);
  });
});
