import type { Ctx } from '../context.js';
import { startLoop, type RunningLoop, type Worker } from './loop.js';

export function nonceJanitor(ctx: Ctx): Worker {
  return { name: 'nonce-janitor', runOnce: () => ctx.nonces.prune() };
}

/** Every background loop of one worker process. */
export function startWorkers(ctx: Ctx): RunningLoop[] {
  return [startLoop(ctx, nonceJanitor(ctx), 60_000)];
}
