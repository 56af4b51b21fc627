import { expect } from 'vitest';
import { admin, json, provisionDesk, signed, type DeskCreds, type Harness } from './harness.js';

/**
 * Live money the way a live platform earns it: an approved merchant's order, served by a pool
 * provider of the platform's own card, confirmed by an operator (`POST /admin/v1/orders/{id}/confirm`).
 * The pool is paused again afterwards, so the suite's other live orders see the providers they had.
 * Returns the merchant's desk, the order and the USD it credited.
 */
export async function earnLiveMoney(h: Harness, o: { merchant: string; amountRub?: number; desk?: DeskCreds }): Promise<{ desk: DeskCreds; orderId: string; credited: string }> {
  const desk = o.desk ?? (await provisionDesk(h.app, { merchant: { name: o.merchant, approve: true } }));
  const pool = await admin(h.app, 'POST', '/providers', {
    name: `Pool of ${o.merchant}`,
    kind: 'pool',
    priority: 10,
    capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
    requisites: [{ card: '2200 1500 0000 0042', holder: 'Platform' }],
  });
  expect(pool.statusCode, pool.body).toBe(201);
  const poolId = json(pool).result.id as string;
  try {
    const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: o.amountRub ?? 918, currency: 'RUB', rail: 'C2c' }) });
    expect(res.statusCode, res.body).toBe(201);
    const order = json(res).result;
    const done = await admin(h.app, 'POST', `/orders/${order.id}/confirm`);
    expect(done.statusCode, done.body).toBe(200);
    return { desk, orderId: order.id, credited: json(done).result.credited.amount };
  } finally {
    await admin(h.app, 'POST', `/providers/${poolId}/pause`);
  }
}
