import type { Ctx } from '../context.js';

export interface Worker {
  readonly name: string;
  /** One pass; returns how much it did, so a busy worker can run again at once. */
  runOnce(): Promise<number>;
}

export interface RunningLoop {
  /** Stops the loop; work in flight may take up to graceMs to finish (loops that hold none ignore it). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs a worker every periodMs (real time: workers pace themselves by the wall clock, while the rules
 * they apply read the injected clock). A pass that filled its batch runs again without waiting, so a
 * backlog drains at full speed. Errors are logged and counted, never fatal.
 */
export function startLoop(ctx: Ctx, worker: Worker, periodMs: number, opts: { batchSize?: number } = {}): RunningLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = async () => {
    timer = null;
    let again = false;
    try {
      const n = await worker.runOnce();
      again = opts.batchSize !== undefined && n >= opts.batchSize;
    } catch (err) {
      ctx.metrics.workerErrors.inc({ worker: worker.name });
      ctx.log.error({ err, worker: worker.name }, 'worker pass failed');
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), again ? 0 : periodMs);
  };
  timer = setTimeout(() => (running = tick()), 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
