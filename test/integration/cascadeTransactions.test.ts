import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, provisionDesk, signed, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`blocked for more than ${ms} ms`)), ms))]);

describe('order creation holds no transaction while a provider is asked', () => {
  it('the database is free (no lock on the order or its reference) during the provider call', async () => {
    const seen: string[] = [];
    const provider = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const { orderId } = JSON.parse(Buffer.concat(chunks).toString());
        try {
          // On the embedded database a transaction left open would block these reads outright;
          // on PostgreSQL, NOWAIT fails at once if the create still held a row lock.
          await within(h.ctx.db.query('SELECT count(*) FROM orders'), 3000);
          await within(h.ctx.db.tx((q) => q.query('SELECT id FROM orders WHERE id = $1 FOR UPDATE NOWAIT', [orderId])), 3000);
          await within(h.ctx.db.tx((q) => q.query(`SELECT order_id FROM order_refs WHERE order_id = $1 FOR UPDATE NOWAIT`, [orderId])), 3000);
          seen.push('free');
        } catch (err) {
          seen.push(`locked: ${(err as Error).message}`);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'issued', payment: { card: '2200000000000004', holder: 'Ivan P.', bank: 'Bank' } }));
      });
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    try {
      const d = await provisionDesk(h.app, { merchant: { approve: true } });
      const p = await admin(h.app, 'POST', '/providers', {
        name: 'Direct',
        kind: 'http',
        priority: 1,
        baseUrl: url,
        key: 'pk_direct',
        secret: 'provider-secret',
        capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      });
      expect(p.statusCode).toBe(201);
      const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 500, rail: 'C2c', orderRef: 'no-tx-1' }) });
      expect(res.statusCode).toBe(201);
      expect(json(res).result.payment.card).toBe('2200000000000004');
      expect(seen).toEqual(['free']);
    } finally {
      await new Promise<void>((r) => provider.close(() => r()));
    }
  });
});
