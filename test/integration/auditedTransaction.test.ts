import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../../src/services/audit.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/*
 * An operator action runs in one transaction with its audit entry (services/audit.ts). Its reads may
 * be sent at once (`Promise.all`, as approving a merchant does); a transaction's one connection
 * takes them one after another (store/db.ts), each answered with its own rows, and the driver is
 * never handed a statement while one runs (on PostgreSQL, node-postgres warns that this will stop
 * working).
 */

let h: Harness;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);

beforeAll(async () => {
  h = await createHarness();
  process.on('warning', onWarning);
});
afterAll(async () => {
  process.off('warning', onWarning);
  await h.close();
});

describe('an audited action', () => {
  it('answers statements sent at once, each with its own rows, in the order sent, and records its entry', async () => {
    const order: number[] = [];
    const result = await audited(h.ctx, { actor: 'token', action: 'test.parallel-reads', objectId: 'obj_parallel' }, async (c) =>
      Promise.all([1, 2, 3, 4].map(async (n) => {
        const { rows } = await c.db.query<{ n: number }>(`SELECT $1::int AS n${n === 1 ? ', pg_sleep(0.05)' : ''}`, [n]);
        order.push(rows[0]!.n);
        return rows[0]!.n;
      })),
    );
    expect(result).toEqual([1, 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    const { rows } = await h.ctx.db.query<{ outcome: string }>(`SELECT outcome FROM audit_entries WHERE action = 'test.parallel-reads' AND object_id = 'obj_parallel'`);
    expect(rows).toEqual([{ outcome: 'ok' }]);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => /already executing/.test(w))).toEqual([]);
  });

});
