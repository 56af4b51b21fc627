import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { raw, render, sql } from '../../src/store/sql.js';

describe('sql', () => {
  it('numbers the parameters of composed parts in the order they appear', () => {
    const scope = (merchantId: string | null) => sql`(${merchantId}::text IS NULL OR merchant_id = ${merchantId})`;
    const s = sql`WITH ${sql`n AS (SELECT ${'k'} AS key)`} SELECT * FROM orders WHERE id = ${'ord_1'} AND ${scope('mrc_1')} LIMIT ${5}`;
    expect(render(s)).toEqual({
      text: 'WITH n AS (SELECT $1 AS key) SELECT * FROM orders WHERE id = $2 AND ($3::text IS NULL OR merchant_id = $4) LIMIT $5',
      values: ['k', 'ord_1', 'mrc_1', 'mrc_1', 5],
    });
  });

  it('takes raw text as text and any other value as a parameter, never as text', () => {
    const hostile = "x'); DROP TABLE orders; --";
    expect(render(sql`SELECT ${raw('id, amount')} FROM orders WHERE order_ref = ${hostile}`)).toEqual({
      text: 'SELECT id, amount FROM orders WHERE order_ref = $1',
      values: [hostile],
    });
  });

  it('renders the same text for the same shape, whatever the values (so a statement is prepared once)', () => {
    const q = (id: string) => render(sql`SELECT 1 FROM orders WHERE id = ${id} AND ${sql`seq < ${id.length}`}`).text;
    expect(q('a')).toBe(q('another'));
  });
});

describe('ManualClock.sleep', () => {
  it('resolves once the clock has been moved past its end, in the order of the ends', async () => {
    const clock = new ManualClock(0);
    const woke: string[] = [];
    void clock.sleep(300).then(() => woke.push('300'));
    void clock.sleep(100).then(() => woke.push('100'));
    await clock.sleep(0);
    clock.advance(99);
    await Promise.resolve();
    expect(woke).toEqual([]);
    expect(clock.sleeping).toBe(2);
    clock.advance(250);
    await new Promise((r) => setImmediate(r));
    expect(woke).toEqual(['100', '300']);
    expect(clock.sleeping).toBe(0);
  });
});
