import type { Ctx } from '../context.js';

/**
 * Long reads being written in this process (statements, exports), counted in total and per owner
 * (a merchant, an operator): a read past either limit is refused before it starts.
 */
export class Slots {
  private open = 0;
  private readonly perOwner = new Map<string, number>();
  constructor(
    private readonly total: number,
    private readonly ownerMax: number,
  ) {}
  take(owner: string): boolean {
    const mine = this.perOwner.get(owner) ?? 0;
    if (this.open >= this.total || mine >= this.ownerMax) return false;
    this.open++;
    this.perOwner.set(owner, mine + 1);
    return true;
  }
  release(owner: string): void {
    this.open--;
    const mine = (this.perOwner.get(owner) ?? 1) - 1;
    if (mine > 0) this.perOwner.set(owner, mine);
    else this.perOwner.delete(owner);
  }
}

/** One set of slots of each kind per context: the pages and the API of a process share them. */
const byCtx = new WeakMap<Ctx, Map<string, Slots>>();
export function slotsOf(ctx: Ctx, kind: string, total: number, ownerMax: number): Slots {
  let kinds = byCtx.get(ctx);
  if (!kinds) byCtx.set(ctx, (kinds = new Map()));
  let s = kinds.get(kind);
  if (!s) kinds.set(kind, (s = new Slots(total, ownerMax)));
  return s;
}

/** Lets timers, other requests and health probes run between two chunks of a long read. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Ends a long read (`what`: its name in the log) once its reader has taken nothing for `stallMs`
 * (on the injected clock): `close` frees it, `onStall` ends its answer.
 */
export function watchStall(ctx: Ctx, what: string, stallMs: number, isClosed: () => boolean, lastRead: () => number, close: () => Promise<void>, onStall: () => void): void {
  void (async () => {
    while (!isClosed()) {
      await ctx.clock.sleep(lastRead() + stallMs - ctx.clock.now());
      if (isClosed()) return;
      if (ctx.clock.now() - lastRead() >= stallMs) {
        ctx.log.info({ stalledMs: ctx.clock.now() - lastRead() }, `${what} reader stalled; ${what} ended`);
        await close();
        onStall();
      }
    }
  })().catch((err) => ctx.log.error({ err }, `${what} stall watch failed`));
}
