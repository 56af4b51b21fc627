/**
 * Circuit breaker for one provider × method × rail (spec, Limits, Circuit breaker; D21).
 *
 * Pure: time comes in as epoch milliseconds and the half-open draw as an injected `random`.
 * The state is a plain JSON value so one database row can hold it for every instance; each
 * function returns a new state and never mutates its argument, so the caller can write the new
 * state with a conditional update against the old one.
 */

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface BreakerOutcome {
  /** Epoch milliseconds at which the outcome was recorded. */
  at: number;
  ok: boolean;
}

export interface BreakerState {
  state: CircuitState;
  /** Scored outcomes while closed, oldest first; at most `windowSize`, none older than `windowMs`. */
  outcomes: BreakerOutcome[];
  /** When the circuit last opened (epoch ms); null while closed. */
  openedAt: number | null;
  /** Successes counted since the circuit went half-open. */
  halfOpenSuccesses: number;
}

export interface BreakerConfig {
  /** Only the most recent this many outcomes count. */
  windowSize: number;
  /** Outcomes older than this (ms) are dropped. */
  windowMs: number;
  /** Fewer outcomes than this in the window never trip the circuit. */
  minSamples: number;
  /** Trips when the window's success rate is strictly below this (0–1). */
  successRateBelow: number;
  /** How long (ms) an open circuit skips the provider before going half-open. */
  coolDownMs: number;
  /** Share of requests (0–1) let through while half-open. */
  halfOpenShare: number;
  /** Half-open successes that close the circuit. */
  halfOpenSuccessesToClose: number;
}

/** D21: last 20 outcomes within 10 minutes, ≥ 10 samples, < 50 % success, 60 s off, 10 % probe, 5 to close. */
export const DEFAULT_BREAKER_CONFIG: Readonly<BreakerConfig> = Object.freeze({
  windowSize: 20,
  windowMs: 600_000,
  minSamples: 10,
  successRateBelow: 0.5,
  coolDownMs: 60_000,
  halfOpenShare: 0.1,
  halfOpenSuccessesToClose: 5,
});

export function initialBreakerState(): BreakerState {
  return { state: 'closed', outcomes: [], openedAt: null, halfOpenSuccesses: 0 };
}

function opened(nowMs: number): BreakerState {
  return { state: 'open', outcomes: [], openedAt: nowMs, halfOpenSuccesses: 0 };
}

function halfOpen(): BreakerState {
  return { state: 'half-open', outcomes: [], openedAt: null, halfOpenSuccesses: 0 };
}

function coolDownPassed(state: BreakerState, nowMs: number, cfg: BreakerConfig): boolean {
  // openedAt is null only if a stored row was edited by hand; treat that as cooled down rather
  // than skipping the provider for ever.
  return state.openedAt === null || nowMs - state.openedAt >= cfg.coolDownMs;
}

/**
 * The state as it stands at `nowMs`: an open circuit whose cool-down has passed is half-open
 * even if no request has come by since to move it there.
 */
function current(state: BreakerState, nowMs: number, cfg: BreakerConfig): BreakerState {
  return state.state === 'open' && coolDownPassed(state, nowMs, cfg) ? halfOpen() : state;
}

/**
 * Whether the cascade may try this provider now. Closed: always. Open: never until `coolDownMs`
 * has passed since it opened; from then on it is half-open. Half-open: a `halfOpenShare` of
 * requests, drawn with `random` (values in [0, 1)). The returned state differs from the
 * argument only when the circuit has just gone from open to half-open; the caller stores it.
 */
export function admit(
  state: BreakerState,
  nowMs: number,
  cfg: BreakerConfig,
  random: () => number,
): { allowed: boolean; state: BreakerState } {
  const now = current(state, nowMs, cfg);
  switch (now.state) {
    case 'closed':
      return { allowed: true, state: now };
    case 'open':
      return { allowed: false, state: now };
    case 'half-open':
      return { allowed: random() < cfg.halfOpenShare, state: now };
  }
}

/**
 * Scores one provider answer. Pass only outcomes that reflect the provider: failures on the
 * service's own side (a bad credential, a misconfigured connector, our own timeout budget being
 * spent before the call) are not scored (spec) and must not be passed here; the caller decides.
 *
 * Closed: the outcome joins the window (the last `windowSize` outcomes no older than
 * `windowMs`); with at least `minSamples` there and a success rate strictly below
 * `successRateBelow`, the circuit opens for `coolDownMs`. Open: outcomes of requests admitted
 * before it opened are ignored. Half-open: one failure reopens with a fresh cool-down;
 * `halfOpenSuccessesToClose` successes close it with an empty window.
 */
export function recordOutcome(state: BreakerState, ok: boolean, nowMs: number, cfg: BreakerConfig): BreakerState {
  const now = current(state, nowMs, cfg);
  switch (now.state) {
    case 'open':
      return now;
    case 'half-open': {
      if (!ok) return opened(nowMs);
      const successes = now.halfOpenSuccesses + 1;
      if (successes >= cfg.halfOpenSuccessesToClose) return initialBreakerState();
      return { ...now, outcomes: [], halfOpenSuccesses: successes };
    }
    case 'closed': {
      const outcomes = windowed([...now.outcomes, { at: nowMs, ok }], nowMs, cfg);
      const successes = outcomes.filter((o) => o.ok).length;
      // Division, not `successes < rate * total`: 0.3 * 10 is 3.0000000000000004 in binary
      // floating point and would trip at exactly the threshold; 3 / 10 equals the literal 0.3.
      if (outcomes.length >= cfg.minSamples && successes / outcomes.length < cfg.successRateBelow) {
        return opened(nowMs);
      }
      return { state: 'closed', outcomes, openedAt: null, halfOpenSuccesses: 0 };
    }
  }
}

/** Drops outcomes older than `windowMs`, then keeps the most recent `windowSize`. */
function windowed(outcomes: BreakerOutcome[], nowMs: number, cfg: BreakerConfig): BreakerOutcome[] {
  const fresh = outcomes.filter((o) => nowMs - o.at <= cfg.windowMs);
  return fresh.length > cfg.windowSize ? fresh.slice(fresh.length - cfg.windowSize) : fresh;
}

/** The state to show operators and to filter providers by: open turns half-open once cooled down. */
export function visibleState(state: BreakerState, nowMs: number, cfg: BreakerConfig): CircuitState {
  return current(state, nowMs, cfg).state;
}
