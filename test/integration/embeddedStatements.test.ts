import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlLiteral, type Db } from '../../src/store/db.js';
import { emptyPglite } from '../helpers/db.js';

// The embedded database runs statements with parameters as PREPAREd statements, with the values
// written as SQL literals. Whatever the values, what comes back must be exactly what went in.

let db: Db;
beforeAll(async () => {
  db = await emptyPglite();
  await db.exec('CREATE TABLE kept (id int PRIMARY KEY, t text, n numeric, at timestamptz, flag boolean)');
});
afterAll(() => db.close());

describe('statements with parameters on the embedded database', () => {
  it('any text comes back exactly as given, quotes, backslashes and statement-looking text included', async () => {
    const nasty = ["'", "''", "\\'", "\\", "'); DROP TABLE kept; --", '$$', '$1', 'E\'\\x41\'', 'line\nbreak', '€ 日本 😀', ''];
    for (const v of nasty) expect((await db.query<{ v: string }>('SELECT $1::text AS v', [v])).rows[0]!.v).toBe(v);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }).filter((s) => !s.includes('\0')), async (v) => {
        const { rows } = await db.query<{ v: string; same: boolean }>('SELECT $1::text AS v, $1::text = $2::text AS same', [v, v]);
        expect(rows[0]).toEqual({ v: Buffer.from(v, 'utf8').toString('utf8'), same: true });
      }),
      { numRuns: 300 },
    );
    expect((await db.query('SELECT count(*)::int AS n FROM kept')).rows[0]).toEqual({ n: 0 });
  });

  it('numbers, booleans, dates and nulls keep their values; a NUL is refused as with bound parameters', async () => {
    const at = new Date(Date.UTC(2026, 0, 15, 12, 0, 0, 123));
    await db.query('INSERT INTO kept (id, t, n, at, flag) VALUES ($1, $2, $3, $4, $5)', [1, null, '1500.50', at, true]);
    await db.query('INSERT INTO kept (id, t, n, at, flag) VALUES ($1, $2, $3, $4, $5)', [2, 'x', 0.1, null, false]);
    const { rows } = await db.query('SELECT * FROM kept ORDER BY id');
    expect(rows).toEqual([
      { id: 1, t: null, n: '1500.50', at, flag: true },
      { id: 2, t: 'x', n: '0.1', at: null, flag: false },
    ]);
    expect((await db.query('UPDATE kept SET flag = $2 WHERE id <= $1', [2, true])).rowCount).toBe(2);
    await expect(db.query('SELECT $1::text AS v', ['a\0b'])).rejects.toMatchObject({ code: '22021' });
  });

  it('inside a transaction, and after one rolled back, the same statements keep working', async () => {
    await db.tx(async (q) => {
      await q.query('INSERT INTO kept (id, t) VALUES ($1, $2)', [10, 'in tx']);
    });
    await expect(db.tx(async (q) => {
      await q.query('INSERT INTO kept (id, t) VALUES ($1, $2)', [11, 'rolled back']);
      throw new Error('undo');
    })).rejects.toThrow('undo');
    await db.query('INSERT INTO kept (id, t) VALUES ($1, $2)', [12, 'after']);
    const { rows } = await db.query<{ id: number }>('SELECT id FROM kept WHERE id >= $1 ORDER BY id', [10]);
    expect(rows.map((r) => r.id)).toEqual([10, 12]);
  });

  it('literals: quoted, doubled quotes only; no literal for what has no safe form', () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral(42)).toBe("'42'");
    expect(sqlLiteral(Number.NaN)).toBeNull();
    expect(sqlLiteral('a\0b')).toBeNull();
    expect(sqlLiteral(['a'])).toBeNull();
    expect(sqlLiteral({ a: 1 })).toBeNull();
  });
});
