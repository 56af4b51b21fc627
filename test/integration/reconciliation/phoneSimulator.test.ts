import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankSum, bankText, setUpPool, startPhone, type Phone, type PhonePool } from '../../../examples/phone-simulator/phone.js';
import { createShop, type Shop } from '../../../examples/shop/shop.js';
import { DeliveryWorker } from '../../../src/callbacks/delivery.js';
import { admin, ADMIN_TOKEN, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { eventually } from '../../helpers/eventually.js';

/*
 * examples/phone-simulator against a gateway on a real socket, with the example shop: the shop
 * places an order, the pretend phone sees it on its card and sends the bank's text, the gateway
 * reads it into a credit, completes the order and calls the shop back. The gateway's clock is set
 * to the wall clock, as the simulator signs with it.
 */

let h: Harness;
let desk: DeskCreds;
let gatewayUrl: string;
let shop: Shop;
let shopUrl: string;
let pool: PhonePool;
let phone: Phone;
const lines: string[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1', PUBLIC_URL: gatewayUrl }, unlimitedOrders: true });
  h.clock.set(Date.now());
  await h.app.listen({ port: gatewayPort, host: '127.0.0.1' });
  // A live merchant (its orders go to the pool), with no callback URL of its own: the shop passes notifyUrl.
  desk = await provisionDesk(h.app, { merchant: { name: 'Live shop', approve: true }, desk: { callbackUrl: null } });
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  shop = createShop({ gatewayUrl, key: desk.key, secret: desk.secret, publicUrl: shopUrl, feedIntervalMs: 0 });
  await shop.app.listen({ port, host: '127.0.0.1' });
  pool = await setUpPool({ baseUrl: gatewayUrl, adminToken: ADMIN_TOKEN });
  phone = startPhone({ baseUrl: gatewayUrl, adminToken: ADMIN_TOKEN, pool, payDelayMs: 50, pollMs: 100, log: (l) => lines.push(l) });
});
afterAll(async () => {
  await phone?.stop();
  await shop?.app.close();
  await h?.close();
});

async function deliverCallbacks() {
  const worker = new DeliveryWorker(h.ctx, { timeoutMs: 5000 });
  try {
    while ((await worker.runOnce()) > 0);
  } finally {
    await worker.close();
  }
}

describe('examples/phone-simulator', () => {
  it('writes the bank\'s text as the built-in templates read it', async () => {
    expect(bankSum('1500.50')).toBe('1 500,50');
    expect(bankSum('918.00')).toBe('918,00');
    const text = bankText(pool.card, '1500.50', 'Иван И.', '21840.00', new Date('2026-01-15T11:05:00Z'));
    expect(text).toBe('СЧЁТ4242 11:05 зачисление 1 500,50р от Иван И. Баланс: 21 840,00р');
    const tried = json(await admin(h.app, 'POST', '/message-templates/try', { sender: '900', text })).result;
    expect(tried.becomes).toBe('credit');
    expect(tried.readings[0]).toMatchObject({ amount: '1500.50', currency: 'RUB', account: '*4242' });
  });

  it('order → text → credit → order completed → the shop\'s callback', async () => {
    // The phone has pinged: its requisite takes orders.
    await eventually('the phone pinged', async () => json(await admin(h.app, 'GET', `/providers/${pool.providerId}/devices`)).result[0].lastSeenAt !== null);
    const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount: '1500.50', rail: 'C2c' }), redirect: 'manual' });
    expect(res.status, await res.text()).toBe(303);
    const order = [...shop.orders.values()].find((o) => o.paymentUrl === res.headers.get('location'))!;
    expect(order).toMatchObject({ amount: '1500.50', currency: 'RUB', status: 'Created' });

    await eventually('the phone sent the bank\'s text', () => phone.sent.has(order.id), { withinMs: 15_000 });
    expect(phone.sent.get(order.id)).toMatchObject({ outcome: 'credit', status: 'matched', matchedOrderId: order.id });
    const o = json(await admin(h.app, 'GET', `/orders/${order.id}`)).result;
    expect(o.status).toBe('Completed');
    const credit = json(await admin(h.app, 'GET', `/credits/${phone.sent.get(order.id)!.creditId}`)).result;
    expect(credit).toMatchObject({ source: 'device', amount: '1500.50', requisiteId: pool.requisiteId, orderId: order.id });

    await deliverCallbacks();
    expect(order.status).toBe('Completed');
    const attempts = json(await admin(h.app, 'GET', `/orders/${order.id}/callbacks`)).result;
    expect(attempts).toMatchObject([{ event: 'order.completed', outcome: 'delivered', httpCode: 200 }]);
    expect((await (await fetch(`${shopUrl}/orders/${order.ref}`)).json()).status).toBe('Completed');
    expect(lines.some((l) => l.startsWith(order.id) && l.includes('matched'))).toBe(true);
  });

  it('an order on another pool\'s card is not this phone\'s to pay', async () => {
    await admin(h.app, 'POST', `/providers/${pool.providerId}/pause`);
    const other = await setUpPool({ baseUrl: gatewayUrl, adminToken: ADMIN_TOKEN, card: '2200 1500 0000 7777', name: 'Other desk' });
    // The other pool's phone pings once, so its requisite takes the order.
    const otherPhone = startPhone({ baseUrl: gatewayUrl, adminToken: ADMIN_TOKEN, pool: other, payDelayMs: 60_000, pollMs: 60_000, log: () => {} });
    try {
      await eventually('the other phone pinged', async () => json(await admin(h.app, 'GET', `/providers/${other.providerId}/devices`)).result[0].lastSeenAt !== null);
      const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount: '700', rail: 'C2c' }), redirect: 'manual' });
      expect(res.status).toBe(303);
      const order = [...shop.orders.values()].find((o) => o.paymentUrl === res.headers.get('location'))!;
      expect(await phone.pollOnce()).toBe(0);
      expect(phone.sent.has(order.id)).toBe(false);
    } finally {
      await otherPhone.stop();
    }
  });
});
