import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('SHUTDOWN_DRAIN_SECONDS', () => {
  it('defaults to 5 s, accepts 0 (no drain) and whole seconds', () => {
    expect(parseConfig({}).shutdownDrainMs).toBe(5_000);
    expect(parseConfig({ SHUTDOWN_DRAIN_SECONDS: '0' }).shutdownDrainMs).toBe(0);
    expect(parseConfig({ SHUTDOWN_DRAIN_SECONDS: '30' }).shutdownDrainMs).toBe(30_000);
    // The grace period is its own setting: it counts from the end of the drain.
    expect(parseConfig({ SHUTDOWN_DRAIN_SECONDS: '30' }).shutdownGraceMs).toBe(10_000);
  });

  it.each(['-1', '1.5', 'five', '3601'])('refuses %s, naming the variable', (v) => {
    expect(() => parseConfig({ SHUTDOWN_DRAIN_SECONDS: v })).toThrow(ConfigError);
    expect(() => parseConfig({ SHUTDOWN_DRAIN_SECONDS: v })).toThrow(/^SHUTDOWN_DRAIN_SECONDS: /);
  });
});
