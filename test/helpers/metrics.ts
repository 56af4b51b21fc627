import type { Harness } from './harness.js';

/** A metric of the harness's app summed over its labels (0 when it has none yet). */
export async function metric(h: Harness, name: string): Promise<number> {
  const text = await h.ctx.metrics.registry.metrics();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(name) && (line[name.length] === ' ' || line[name.length] === '{')) total += Number(line.split(' ').pop());
  return total;
}

/** A counter once it has stopped moving: the same over 300 ms of real time (a stream's reads end after its client left). */
export async function settled(h: Harness, name: string): Promise<number> {
  let last = -1;
  for (;;) {
    const now = await metric(h, name);
    if (now === last) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
}
