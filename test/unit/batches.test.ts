import { describe, expect, it } from 'vitest';
import { batchedPerDatabase, batcher } from '../../src/store/batches.js';

/** A run that records each batch and holds it until released. */
function recorder() {
  const batches: number[][] = [];
  const held: Array<() => void> = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve) => held.push(() => resolve(items.map((x) => x * 10))));
  };
  const releaseAll = () => held.splice(0).forEach((f) => f());
  return { batches, run, releaseAll };
}
const turn = () => new Promise<void>((r) => setImmediate(r));

describe('batcher', () => {
  it('sends the items of one turn together and answers each its own output', async () => {
    const r = recorder();
    const submit = batcher(r.run, { maxInFlight: 1, maxSize: 10 });
    const answers = [1, 2, 3].map(submit);
    await turn();
    expect(r.batches).toEqual([[1, 2, 3]]);
    r.releaseAll();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('an item alone goes alone, at the end of its turn', async () => {
    const r = recorder();
    const submit = batcher(r.run, { maxInFlight: 1, maxSize: 10 });
    const one = submit(7);
    await turn();
    expect(r.batches).toEqual([[7]]);
    r.releaseAll();
    expect(await one).toBe(70);
  });

  it('while batches are running at the limit, later items wait and go together when one finishes', async () => {
    const r = recorder();
    const submit = batcher(r.run, { maxInFlight: 2, maxSize: 10 });
    const first = submit(1);
    await turn();
    const second = submit(2);
    await turn();
    const later = [3, 4, 5].map(submit);
    await turn();
    expect(r.batches).toEqual([[1], [2]]);
    r.releaseAll();
    await Promise.all([first, second]);
    await turn();
    expect(r.batches).toEqual([[1], [2], [3, 4, 5]]);
    r.releaseAll();
    expect(await Promise.all(later)).toEqual([30, 40, 50]);
  });

  it('never puts more than maxSize items, or two items of one key, in a batch', async () => {
    const r = recorder();
    const submit = batcher(r.run, { maxInFlight: 3, maxSize: 2, keyOf: (x: number) => String(x % 5) });
    const answers = [1, 6, 2, 3].map(submit); // 1 and 6 share a key
    await turn();
    expect(r.batches).toEqual([[1, 2], [6, 3]]);
    r.releaseAll();
    expect(await Promise.all(answers)).toEqual([10, 60, 20, 30]);
  });

  it('a failed batch fails each of its items with the error; an output may fail alone', async () => {
    const boom = new Error('statement refused');
    const failing = batcher(async () => {
      throw boom;
    }, { maxInFlight: 1, maxSize: 10 });
    const results = await Promise.allSettled([failing(1), failing(2)]);
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    expect(results.map((x) => (x as PromiseRejectedResult).reason)).toEqual([boom, boom]);

    const oneByOne = batcher(async (items: number[]) => items.map((x) => (x === 2 ? Promise.reject(new Error('bad 2')) : Promise.resolve(x))), { maxInFlight: 1, maxSize: 10 });
    const each = await Promise.allSettled([oneByOne(1), oneByOne(2), oneByOne(3)]);
    expect(each.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // and the batcher goes on after a failure
    expect(await failing(3).catch((e) => e)).toBe(boom);
  });
});

describe('batchedPerDatabase', () => {
  const refused = (code: string) => Object.assign(new Error(`refused ${code}`), { code });
  function statements(manyFails: Error | null) {
    const calls: string[] = [];
    const run = batchedPerDatabase<{ kind: 'pg' | 'pglite' }, number, number>(
      async (_db, x) => {
        calls.push(`one ${x}`);
        if (x === 13) throw refused('22003');
        return x + 1;
      },
      async (_db, xs) => {
        calls.push(`many ${xs.join(',')}`);
        if (manyFails) throw manyFails;
        return xs.map((x) => x + 1);
      },
      (x) => String(x),
    );
    return { calls, run };
  }

  it('an item alone goes as its own statement; items together as one; each database apart', async () => {
    const s = statements(null);
    const [a, b] = [{ kind: 'pglite' as const }, { kind: 'pg' as const }];
    expect(await s.run(a, 1)).toBe(2);
    expect(await Promise.all([s.run(a, 2), s.run(a, 3), s.run(b, 4)])).toEqual([3, 4, 5]);
    expect(s.calls).toEqual(['one 1', 'many 2,3', 'one 4']);
  });

  it.each(['23505', '22003', '40P01', '40001'])('a batch refused with %s is sent again item by item, and only the bad item fails', async (code) => {
    const s = statements(refused(code));
    const db = { kind: 'pglite' as const };
    const results = await Promise.allSettled([s.run(db, 1), s.run(db, 13), s.run(db, 3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code: string }).code))).toEqual([2, '22003', 4]);
    expect(s.calls).toEqual(['many 1,13,3', 'one 1', 'one 13', 'one 3']);
  });

  it('any other failure (the connection, say) fails the whole batch and is not retried', async () => {
    const s = statements(refused('08006'));
    const db = { kind: 'pg' as const };
    const results = await Promise.allSettled([s.run(db, 1), s.run(db, 2)]);
    expect(results.map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(['08006', '08006']);
    expect(s.calls).toEqual(['many 1,2']);
  });
});
