/**
 * Exports other than the merchant statement (which has its own, `merchantStatements.ts`): the back
 * office's CSV lists and the reconciliation day report, the cabinet's orders CSV. Each is taken as
 * a slot of this process (so many in all, so many per operator or merchant), read a batch at a
 * time only as fast as its client takes it, with a turn of the event loop between batches, and
 * closed however it ends, so an export of a year of orders costs the server one batch of memory and
 * never holds up health probes or payments.
 */
import type { Ctx } from '../context.js';
import { nextTurn, slotsOf, watchStall } from './slots.js';

/** How long a refused export is told to wait (`Retry-After`): an export takes seconds, as a statement does. */
export const EXPORT_RETRY_AFTER_MS = 5_000;

/**
 * An export whose client has taken nothing for this long is ended (its reads stop, its slot is
 * freed, its answer left incomplete), as a statement is.
 */
export const EXPORT_STALL_MS = 60_000;

/**
 * Rows written between two turns of the event loop at most: an order's view and CSV line cost some
 * 50 µs, so 100 rows hold the loop for about 5 ms (500, a keyset page, held it 25 ms and more:
 * health probes and payments waited behind it).
 */
export const EXPORT_CHUNK_ROWS = 100;

/** A chunk also ends once it has held the loop this long (a busy machine makes every row slower). */
export const EXPORT_SLICE_MS = 4;

/** Who an export counts against: an operator (`opr_…`) in the back office, a merchant (`mer_…`) in the cabinet. */
export type ExportOwner = string;

/**
 * An open export: `rows` yields the source's rows as they are read, counted and with a turn of
 * the event loop between chunks; `close` ends the reads and frees the slot (it runs once, and by
 * itself after the last row or after `EXPORT_STALL_MS` without a read).
 */
export interface OpenExport<T> {
  rows: AsyncIterable<T[]>;
  close(): Promise<void>;
  /** Aborted when the export is ended from here (its reader stalled): its answer must end too. */
  ended: AbortSignal;
}

export type ExportOpening<T> = { ok: true; export: OpenExport<T> } | { ok: false; code: 'EXPORTS_BUSY'; retryAfterMs: number };

/** Exports being written in this process, in total and per owner. */
const slots = (ctx: Ctx) => slotsOf(ctx, 'exports', ctx.config.exports.perProcess, ctx.config.exports.perOwner);

/**
 * Opens the export `name` (a metric label: `orders`, `merchants`…) of `owner` over `source`, an
 * iterable not yet started (a keyset reader, or a short list already read): refused with
 * `EXPORTS_BUSY` when the owner's or the process's exports are at their limit, and then the source
 * is never read. Rows come in chunks of `EXPORT_CHUNK_ROWS`.
 */
export function openExport<T>(ctx: Ctx, name: string, owner: ExportOwner, source: AsyncIterable<T>): ExportOpening<T> {
  const slotSet = slots(ctx);
  if (!slotSet.take(owner)) {
    ctx.metrics.exports.inc({ export: name, outcome: 'busy' });
    return { ok: false, code: 'EXPORTS_BUSY', retryAfterMs: EXPORT_RETRY_AFTER_MS };
  }
  ctx.metrics.exportsOpen.inc();
  const reader = source[Symbol.asyncIterator]();
  let closed = false;
  let outcome = 'aborted';
  const ended = new AbortController();
  const close = async () => {
    if (closed) return;
    closed = true;
    slotSet.release(owner);
    ctx.metrics.exportsOpen.dec();
    ctx.metrics.exports.inc({ export: name, outcome });
    // A generator suspended at a `yield` runs its `finally` and reads no further page.
    await reader.return?.();
  };
  let lastRead = ctx.clock.now();
  watchStall(ctx, 'export', EXPORT_STALL_MS, () => closed, () => lastRead, close, () => ended.abort(new Error('the export\'s reader took nothing for too long')));

  async function* rows(): AsyncGenerator<T[]> {
    try {
      let chunk: T[] = [];
      let sliceStart = performance.now();
      for (;;) {
        if (closed) throw new Error('the export was closed while it was read');
        const next = await reader.next();
        if (next.done) break;
        chunk.push(next.value);
        if (chunk.length === EXPORT_CHUNK_ROWS || performance.now() - sliceStart >= EXPORT_SLICE_MS) {
          ctx.metrics.exportRows.inc({ export: name }, chunk.length);
          yield chunk;
          chunk = [];
          lastRead = ctx.clock.now();
          await nextTurn();
          sliceStart = performance.now();
        }
      }
      if (closed) throw new Error('the export was closed while it was read');
      if (chunk.length > 0) {
        ctx.metrics.exportRows.inc({ export: name }, chunk.length);
        yield chunk;
      }
      outcome = 'complete';
    } catch (err) {
      if (outcome === 'aborted' && !closed) outcome = 'failed';
      throw err;
    } finally {
      await close();
    }
  }
  return { ok: true, export: { rows: { [Symbol.asyncIterator]: rows }, close, ended: ended.signal } };
}


/**
 * An export read whole in one go because it is small by contract (the cabinet's orders CSV, 200
 * rows at most; the day reconciliation report, one row per requisite): `read` runs holding a slot,
 * as a streamed export does, so many at once wait their turn instead of piling reads up. Refused
 * with `EXPORTS_BUSY` like `openExport`, and then `read` does not run.
 */
export async function readSmallExport<T>(ctx: Ctx, name: string, owner: ExportOwner, read: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: 'EXPORTS_BUSY'; retryAfterMs: number }> {
  const slotSet = slots(ctx);
  if (!slotSet.take(owner)) {
    ctx.metrics.exports.inc({ export: name, outcome: 'busy' });
    return { ok: false, code: 'EXPORTS_BUSY', retryAfterMs: EXPORT_RETRY_AFTER_MS };
  }
  ctx.metrics.exportsOpen.inc();
  let outcome = 'failed';
  try {
    const value = await read();
    outcome = 'complete';
    return { ok: true, value };
  } finally {
    slotSet.release(owner);
    ctx.metrics.exportsOpen.dec();
    ctx.metrics.exports.inc({ export: name, outcome });
  }
}
