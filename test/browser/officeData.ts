import { createLink, openPaymentLink } from '../../src/services/links.js';
import { admin, json, provisionDesk, signed, type DeskCreds } from '../helpers/harness.js';
import type { Served } from './start.js';

export const OFFICE_PASSWORD = 'operator passphrase 2026';

/**
 * A small platform for the back office to show: two operators, merchants in each status, sandbox
 * and live orders in several states, a pool provider with a payment to confirm, open appeals (one
 * overdue), a failing callback endpoint, a tariff, rates and a turnover cap.
 */
export async function seedOffice(h: Served) {
  const ok = async (res: Promise<{ statusCode: number; body: string }>) => {
    const r = await res;
    if (r.statusCode >= 300) throw new Error(r.body);
    return json(r as never).result;
  };
  const adminOp = await ok(admin(h.app, 'POST', '/operators', { email: 'ada@paygate.example', password: OFFICE_PASSWORD, role: 'admin' }));
  const supportOp = await ok(admin(h.app, 'POST', '/operators', { email: 'sam@paygate.example', password: OFFICE_PASSWORD, role: 'support' }));
  await ok(admin(h.app, 'PUT', '/currencies/INR', { enabled: true, spreadPercent: '1.5' }));
  await ok(admin(h.app, 'PUT', '/rates/INR', { rate: '83.2' }));
  const tariff = await ok(admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: '100', ratePercent: '3' }, { fromUsd: '100', toUsd: null, ratePercent: '2.5' }], default: true }));
  await ok(admin(h.app, 'POST', '/tariffs', { name: 'High volume', bands: [{ fromUsd: '0', toUsd: '1000', ratePercent: '2' }, { fromUsd: '1000', toUsd: '10000', ratePercent: '1.5' }, { fromUsd: '10000', toUsd: null, ratePercent: '1' }] }));
  await ok(admin(h.app, 'POST', '/providers', {
    name: 'Platform pool',
    kind: 'pool',
    priority: 10,
    capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
    requisites: [{ phone: '+79990000001', holder: 'Ivan P.', bank: 'Bank' }],
  }));

  const shop = await provisionDesk(h.app, { merchant: { name: 'Coffee Corner' }, desk: { tariffId: tariff.id } });
  const live = await provisionDesk(h.app, { merchant: { name: 'Book Bazaar', sandbox: false, approve: true }, desk: { rails: ['Sbp'], callbackUrl: 'https://books.example/paygate' } });
  await provisionDesk(h.app, { merchant: { name: 'Tea House' } });
  // A merchant whose desk no live provider serves: its page shows the approval's warning.
  const korea = await provisionDesk(h.app, { merchant: { name: 'Seoul Electronics Wholesale Trading Company', approve: true, sandbox: false }, desk: { method: 'CrossBorder', rails: ['Account'], currencies: ['KRW'] }, currencies: { KRW: '1350' } });
  const blocked = json(await admin(h.app, 'POST', '/merchants', { name: 'Gadget Outlet', sandbox: true })).result;
  await admin(h.app, 'POST', `/merchants/${blocked.id}/approve`);
  await admin(h.app, 'POST', `/merchants/${blocked.id}/block`, { reason: 'chargeback rate above 2 %' });
  await ok(admin(h.app, 'POST', '/turnover-limits', { scope: 'merchant', scopeId: live.merchantId, window: 'day', capUsd: '5000' }));

  const order = async (d: DeskCreds, body: Record<string, unknown>) => ok(signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ rail: 'Sbp', ...body }) }));
  // Appeals first: one opened a day and a half ago (overdue by now), one fresh; then today's orders.
  const appeals: string[] = [];
  for (const [amount, reason] of [[2300, 'Customer paid at 12:03, bank statement attached'], [1250, 'Payment sent before expiry']] as const) {
    const o = await order(shop, { amount, orderRef: `cafe-${amount}` });
    await signed(h, shop, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' });
    const a = await ok(signed(h, shop, '/gw/v1/appeals', { body: JSON.stringify({ orderId: o.id, reason, evidenceUrl: 'https://files.example/statement.pdf' }) }));
    appeals.push(a.id);
    if (appeals.length === 1) h.clock.advance(36 * 3_600_000);
  }
  for (const amount of [1500, 2750, 990, 4200]) {
    const o = await order(shop, { amount });
    await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
  }
  await order(shop, { amount: 640 });
  // An order opened from a payment link: its page shows the link's description.
  const link = await createLink(h.ctx, shop.merchantId, { amount: '1890', currency: 'RUB', deskId: shop.id, description: 'Espresso beans, 1 kg', expiresAt: null, rail: null });
  const opened = await openPaymentLink(h.ctx, link.id);
  if (opened.kind !== 'order') throw new Error(`payment link: ${JSON.stringify(opened)}`);
  // A live order on the pool that the payer reported paid: waits in the confirmation queue.
  const payed = await order(live, { amount: 3100, orderRef: 'book-1001' });
  await admin(h.app, 'POST', `/orders/${payed.id}/report-payment`, { payerReference: 'UTR410233778812' });
  const done = await order(live, { amount: 1800, orderRef: 'book-1000' });
  await admin(h.app, 'POST', `/orders/${done.id}/confirm`);

  return { adminOp, supportOp, shop, live, korea, blocked, appeals, payedOrder: payed.id as string, liveOrder: done.id as string, linkOrder: opened.orderId, tariffId: tariff.id as string };
}
