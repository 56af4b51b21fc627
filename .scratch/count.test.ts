import { it } from 'vitest';
import { createHarness, provisionDesk, signed } from '../test/helpers/harness.js';

it('counts statements', async () => {
  const h = await createHarness({ unlimitedOrders: true });
  const d = await provisionDesk(h.app);
  const log: string[] = [];
  const orig = h.ctx.db.query.bind(h.ctx.db);
  (h.ctx.db as any).query = (sql: string, p?: unknown[]) => { log.push(sql.replace(/\s+/g, ' ').slice(0, 110)); return orig(sql, p); };
  const origTx = h.ctx.db.tx.bind(h.ctx.db);
  (h.ctx.db as any).tx = (fn: any) => { log.push('BEGIN'); return origTx((q: any) => fn({ ...q, query: (s: string, p: unknown[]) => { log.push('  tx: ' + s.replace(/\s+/g, ' ').slice(0, 100)); return q.query(s, p); }, exec: q.exec })).finally(() => log.push('COMMIT')); };
  for (const path of ['/gw/v1/balance', '/gw/v1/methods', '/gw/v1/rates']) {
    await signed(h, d, path); log.length = 0; await signed(h, d, path); console.log(path, '\n' + log.join('\n'));
  }
  const body = JSON.stringify({ orderRef: 'r-1', amount: 1000, currency: 'RUB', direction: 'In', payerReference: 'p1' });
  await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ orderRef: 'r-0', amount: 1000, currency: 'RUB', direction: 'In' }) });
  log.length = 0;
  const r = await signed(h, d, '/gw/v1/orders', { body });
  console.log('orders', r.statusCode, '\n' + log.join('\n'));
  const id = JSON.parse(r.body).result?.id;
  log.length = 0; await signed(h, d, `/gw/v1/orders/${id}`); console.log('order get\n' + log.join('\n'));
  await h.close();
});
