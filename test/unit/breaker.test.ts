import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  admit,
  DEFAULT_BREAKER_CONFIG as CFG,
  initialBreakerState,
  recordOutcome,
  visibleState,
  type BreakerConfig,
  type BreakerState,
} from '../../src/domain/breaker.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const never = () => {
  throw new Error('random() must not be drawn here');
};

/** Records outcomes one second apart starting at `from`; returns the state after each. */
function recordAll(state: BreakerState, oks: boolean[], from: number, cfg: BreakerConfig = CFG): BreakerState[] {
  const after: BreakerState[] = [];
  oks.forEach((ok, i) => {
    state = recordOutcome(state, ok, from + i * 1000, cfg);
    after.push(state);
  });
  return after;
}

const last = <T>(xs: T[]): T => xs[xs.length - 1]!;
const fails = (n: number) => Array<boolean>(n).fill(false);
const oks = (n: number) => Array<boolean>(n).fill(true);

/** Ten failures in ten seconds: the circuit opens at T0 + 9 s. */
function tripped(): { state: BreakerState; openedAt: number } {
  const state = last(recordAll(initialBreakerState(), fails(10), T0));
  return { state, openedAt: T0 + 9000 };
}

/** A circuit that has cooled down and been moved to half-open by an admit call. */
function halfOpenAt(): { state: BreakerState; at: number } {
  const { state, openedAt } = tripped();
  const at = openedAt + CFG.coolDownMs;
  return { state: admit(state, at, CFG, () => 0.99).state, at };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('DEFAULT_BREAKER_CONFIG', () => {
  it('holds the D21 values', () => {
    expect(CFG).toEqual({
      windowSize: 20,
      windowMs: 600_000,
      minSamples: 10,
      successRateBelow: 0.5,
      coolDownMs: 60_000,
      halfOpenShare: 0.1,
      halfOpenSuccessesToClose: 5,
    });
  });
});

describe('tripping while closed', () => {
  it('never trips on 9 samples, even all failures', () => {
    const states = recordAll(initialBreakerState(), fails(9), T0);
    expect(states.map((s) => s.state)).toEqual(Array(9).fill('closed'));
    expect(last(states).outcomes).toHaveLength(9);
  });

  it('trips on the 10th sample when 4 of 10 succeeded (40 % < 50 %)', () => {
    const states = recordAll(initialBreakerState(), [...fails(6), ...oks(4)], T0);
    expect(states.slice(0, 9).every((s) => s.state === 'closed')).toBe(true);
    expect(last(states)).toEqual({ state: 'open', outcomes: [], openedAt: T0 + 9000, halfOpenSuccesses: 0 });
  });

  it('does not trip at exactly 50 % (5 of 10)', () => {
    const state = last(recordAll(initialBreakerState(), [...fails(5), ...oks(5)], T0));
    expect(state.state).toBe('closed');
    expect(state.outcomes).toHaveLength(10);
  });

  it('does not trip at exactly the threshold even where rate × n is inexact in binary (3 of 10 at 0.3)', () => {
    const cfg = { ...CFG, successRateBelow: 0.3 };
    expect(last(recordAll(initialBreakerState(), [...fails(7), ...oks(3)], T0, cfg)).state).toBe('closed');
    expect(last(recordAll(initialBreakerState(), [...fails(8), ...oks(2)], T0, cfg)).state).toBe('open');
  });

  it('counts only the last 20 outcomes', () => {
    // After 30 successes, an unbounded window would need 31 failures to fall below 50 %;
    // the 20-outcome window holds 9 successes and 11 failures after the 11th.
    const start = last(recordAll(initialBreakerState(), oks(30), T0));
    expect(start.outcomes).toHaveLength(20);
    const states = recordAll(start, fails(11), T0 + 30_000);
    expect(states[9]!.state).toBe('closed'); // 10 / 20 = 50 %
    expect(states[10]!.state).toBe('open'); // 9 / 20 = 45 %
  });

  it('ignores outcomes older than 10 minutes', () => {
    const nine = last(recordAll(initialBreakerState(), fails(9), T0)); // last at T0 + 8 s
    // 10 min + 1 ms after the first failure the first one has aged out: 9 samples, closed.
    const later = recordOutcome(nine, false, T0 + 600_001, CFG);
    expect(later.state).toBe('closed');
    expect(later.outcomes).toHaveLength(9);
    expect(later.outcomes[0]!.at).toBe(T0 + 1000);
    // Much later, all nine are gone and only the new outcome remains.
    const muchLater = recordOutcome(nine, false, T0 + 8000 + 600_001, CFG);
    expect(muchLater.outcomes).toEqual([{ at: T0 + 8000 + 600_001, ok: false }]);
  });

  it('still counts an outcome exactly 10 minutes old', () => {
    const nine = last(recordAll(initialBreakerState(), fails(9), T0));
    expect(recordOutcome(nine, false, T0 + 600_000, CFG).state).toBe('open');
  });

  it('lets every request through', () => {
    const state = last(recordAll(initialBreakerState(), fails(9), T0));
    expect(admit(state, T0 + 9000, CFG, never)).toEqual({ allowed: true, state });
  });
});

describe('open', () => {
  it('skips every request for 60 s without drawing, then goes half-open', () => {
    const { state, openedAt } = tripped();
    for (const dt of [0, 1, 30_000, 59_999]) {
      const r = admit(state, openedAt + dt, CFG, never);
      expect(r.allowed).toBe(false);
      expect(r.state).toEqual(state);
      expect(visibleState(state, openedAt + dt, CFG)).toBe('open');
    }
    expect(visibleState(state, openedAt + 60_000, CFG)).toBe('half-open');
    const r = admit(state, openedAt + 60_000, CFG, () => 0);
    expect(r).toEqual({ allowed: true, state: { state: 'half-open', outcomes: [], openedAt: null, halfOpenSuccesses: 0 } });
  });

  it('goes half-open at the cool-down even when the draw refuses the request', () => {
    const { state, openedAt } = tripped();
    const r = admit(state, openedAt + 60_000, CFG, () => 0.5);
    expect(r.allowed).toBe(false);
    expect(r.state.state).toBe('half-open');
  });

  it('ignores late outcomes of requests admitted before it opened', () => {
    const { state, openedAt } = tripped();
    expect(recordOutcome(state, true, openedAt + 5000, CFG)).toEqual(state);
    expect(recordOutcome(state, false, openedAt + 5000, CFG)).toEqual(state);
  });

  it('scores an outcome after the cool-down as half-open even if no admit moved it there', () => {
    const { state, openedAt } = tripped();
    const s = recordOutcome(state, true, openedAt + 60_000, CFG);
    expect(s).toEqual({ state: 'half-open', outcomes: [], openedAt: null, halfOpenSuccesses: 1 });
  });
});

describe('half-open', () => {
  it('lets exactly 10 % through over an even spread of draws', () => {
    let { state, at } = halfOpenAt();
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      const r = admit(state, at + i, CFG, () => i / 100);
      state = r.state;
      if (r.allowed) allowed++;
    }
    expect(allowed).toBe(10); // draws 0.00 … 0.09
    expect(state.state).toBe('half-open');
  });

  it('lets about 10 % through over 10 000 pseudo-random draws', () => {
    const { state, at } = halfOpenAt();
    let seed = 12345;
    // Park–Miller minimal standard generator: deterministic, uniform enough for a share check.
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    let allowed = 0;
    for (let i = 0; i < 10_000; i++) if (admit(state, at + i, CFG, random).allowed) allowed++;
    // Binomial(10 000, 0.1): standard deviation 30, so ±100 is more than 3 σ.
    expect(allowed).toBeGreaterThan(900);
    expect(allowed).toBeLessThan(1100);
  });

  it('reopens on one failure with a fresh 60 s cool-down', () => {
    const { state, at } = halfOpenAt();
    const afterOk = recordOutcome(state, true, at + 1000, CFG);
    const failedAt = at + 2000;
    const reopened = recordOutcome(afterOk, false, failedAt, CFG);
    expect(reopened).toEqual({ state: 'open', outcomes: [], openedAt: failedAt, halfOpenSuccesses: 0 });
    expect(admit(reopened, failedAt + 59_999, CFG, () => 0).allowed).toBe(false);
    expect(visibleState(reopened, failedAt + 59_999, CFG)).toBe('open');
    expect(admit(reopened, failedAt + 60_000, CFG, () => 0).allowed).toBe(true);
  });

  it('closes after 5 successes, with an empty window', () => {
    let { state, at } = halfOpenAt();
    for (let i = 1; i <= 4; i++) {
      state = recordOutcome(state, true, at + i * 1000, CFG);
      expect(state).toMatchObject({ state: 'half-open', halfOpenSuccesses: i });
    }
    state = recordOutcome(state, true, at + 5000, CFG);
    expect(state).toEqual(initialBreakerState());
    expect(visibleState(state, at + 5000, CFG)).toBe('closed');
    // The failures that tripped it are gone: 9 new failures are not enough to trip again.
    expect(last(recordAll(state, fails(9), at + 6000)).state).toBe('closed');
    expect(last(recordAll(state, fails(10), at + 6000)).state).toBe('open');
  });
});

describe('state as a stored value', () => {
  it('survives a JSON round trip at every stage and behaves the same afterwards', () => {
    const roundTrip = (s: BreakerState): BreakerState => JSON.parse(JSON.stringify(s)) as BreakerState;
    const closed = last(recordAll(initialBreakerState(), [...fails(5), ...oks(4)], T0));
    const { state: open, openedAt } = tripped();
    const { state: half, at } = halfOpenAt();
    for (const s of [initialBreakerState(), closed, open, half]) expect(roundTrip(s)).toEqual(s);

    expect(recordOutcome(roundTrip(closed), false, T0 + 9000, CFG)).toEqual(recordOutcome(closed, false, T0 + 9000, CFG));
    expect(recordOutcome(roundTrip(closed), false, T0 + 9000, CFG).state).toBe('open');
    expect(admit(roundTrip(open), openedAt + 59_999, CFG, never).allowed).toBe(false);
    expect(visibleState(roundTrip(open), openedAt + 60_000, CFG)).toBe('half-open');
    expect(recordOutcome(roundTrip(half), false, at + 1, CFG)).toEqual({ state: 'open', outcomes: [], openedAt: at + 1, halfOpenSuccesses: 0 });
  });

  it('never mutates the state it is given', () => {
    const closed = deepFreeze(last(recordAll(initialBreakerState(), fails(9), T0)));
    const { state: open, openedAt } = tripped();
    deepFreeze(open);
    // Frozen objects throw on write in strict-mode modules, so any mutation fails the test.
    expect(recordOutcome(closed, false, T0 + 9000, CFG).state).toBe('open');
    expect(closed.outcomes).toHaveLength(9);
    expect(admit(open, openedAt + 60_000, CFG, () => 0).state.state).toBe('half-open');
    expect(open.state).toBe('open');
  });

  it('keeps the window bounded by size and age over any sequence (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 120_000 })), { maxLength: 300 }), (steps) => {
        let state = initialBreakerState();
        let now = T0;
        for (const [ok, gap] of steps) {
          now += gap;
          state = admit(state, now, CFG, () => 0).state;
          state = recordOutcome(state, ok, now, CFG);
          expect(state.outcomes.length).toBeLessThanOrEqual(CFG.windowSize);
          for (const o of state.outcomes) expect(now - o.at).toBeLessThanOrEqual(CFG.windowMs);
          if (state.state !== 'closed') expect(state.outcomes).toEqual([]);
          expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('configuration', () => {
  it('follows non-default values', () => {
    const cfg: BreakerConfig = { ...CFG, minSamples: 3, successRateBelow: 0.8, coolDownMs: 1000, halfOpenShare: 0.5, halfOpenSuccessesToClose: 2 };
    const states = recordAll(initialBreakerState(), [true, true, false], T0, cfg); // 2 / 3 < 80 %
    expect(states.map((s) => s.state)).toEqual(['closed', 'closed', 'open']);
    const openedAt = T0 + 2000;
    expect(admit(states[2]!, openedAt + 999, cfg, () => 0).allowed).toBe(false);
    const probe = admit(states[2]!, openedAt + 1000, cfg, () => 0.49);
    expect(probe.allowed).toBe(true);
    expect(admit(probe.state, openedAt + 1001, cfg, () => 0.5).allowed).toBe(false);
    const one = recordOutcome(probe.state, true, openedAt + 1100, cfg);
    expect(recordOutcome(one, true, openedAt + 1200, cfg).state).toBe('closed');
  });
});
