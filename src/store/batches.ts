/**
 * Group work that arrives together into one statement. Items submitted during one turn of the event
 * loop are sent together once that turn ends; while `maxInFlight` batches are running, new items
 * wait and go together as soon as one finishes. A statement and its commit cost about the same for
 * one row as for a few, so under load each item pays a fraction of them, and when idle an item goes
 * alone, at once.
 */
export interface BatchOptions<I> {
  /** Batches running at once (1 for the embedded database, which runs one statement at a time). */
  maxInFlight: number;
  /** Most items in one batch. */
  maxSize: number;
  /** Items with the same key never share a batch (a later one waits for the next). */
  keyOf?: (item: I) => string;
}

interface Waiting<I, O> {
  item: I;
  resolve: (out: O | Promise<O>) => void;
  reject: (err: unknown) => void;
}

/**
 * `run` answers one output per item, in the items' order (an output may be a promise of its own, so
 * that items can fail one by one); if it throws, every item of the batch fails with that error.
 */
export function batcher<I, O>(run: (items: I[]) => Promise<Array<O | Promise<O>>>, opts: BatchOptions<I>): (item: I) => Promise<O> {
  let queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  function take(): Waiting<I, O>[] {
    if (!opts.keyOf) {
      const batch = queue.slice(0, opts.maxSize);
      queue = queue.slice(batch.length);
      return batch;
    }
    const batch: Waiting<I, O>[] = [];
    const rest: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    for (const w of queue) {
      const key = opts.keyOf(w.item);
      if (batch.length < opts.maxSize && !keys.has(key)) {
        keys.add(key);
        batch.push(w);
      } else rest.push(w);
    }
    queue = rest;
    return batch;
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < opts.maxInFlight && queue.length > 0) {
      const batch = take();
      inFlight++;
      run(batch.map((w) => w.item)).then(
        (outs) => batch.forEach((w, i) => w.resolve(outs[i]!)),
        (err) => batch.forEach((w) => w.reject(err)),
      ).finally(() => {
        inFlight--;
        flush();
      });
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

/**
 * What a batch is sent again for, one item at a time: a refusal of some item's data (SQLSTATE class
 * 22 or 23) or a rolled-back transaction (class 40: a deadlock or serialization failure with
 * another instance's batch). Either way the statement wrote nothing.
 */
const RETRIED_ALONE = /^(2[23]|40)/;

/** The statement for one item as the statement for several, with a batch of one. */
export const alone =
  <D, I, O>(many: (db: D, items: I[]) => Promise<O[]>) =>
  async (db: D, item: I): Promise<O> =>
    (await many(db, [item]))[0]!;

/**
 * A statement for one item (`one`) and the same for several in one statement (`many`), as one
 * function per database: items that arrive together go as one statement (`batcher`), an item alone
 * as its own. A batch that wrote nothing because of one item (`RETRIED_ALONE`) is sent again one
 * item at a time, so that item fails alone.
 */
export function batchedPerDatabase<D extends { kind: 'pg' | 'pglite' }, I, O>(
  one: (db: D, item: I) => Promise<O>,
  many: (db: D, items: I[]) => Promise<O[]>,
  keyOf: (item: I) => string,
): (db: D, item: I) => Promise<O> {
  const perDb = new WeakMap<D, (item: I) => Promise<O>>();
  return (db, item) => {
    let submit = perDb.get(db);
    if (!submit) {
      submit = batcher<I, O>(
        async (items) => {
          if (items.length === 1) return [await one(db, items[0]!)];
          try {
            return await many(db, items);
          } catch (err) {
            if (!RETRIED_ALONE.test(String((err as { code?: unknown }).code))) throw err;
            const each = items.map((x) => one(db, x));
            await Promise.allSettled(each);
            return each;
          }
        },
        // The embedded database runs one statement at a time anyway.
        { maxInFlight: db.kind === 'pglite' ? 1 : 2, maxSize: 64, keyOf },
      );
      perDb.set(db, submit);
    }
    return submit(item);
  };
}
