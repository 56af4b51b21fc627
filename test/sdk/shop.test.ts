import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop, type Shop } from '../../examples/shop/shop.js';
import { DeliveryWorker } from '../../src/callbacks/delivery.js';
import { admin, createHarness, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';

// The example shop against a gateway on a real socket: checkout, payment page, signed callback,
// and the events feed as the fallback when a callback never came.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let h: Harness;
let desk: DeskCreds;
let gatewayUrl: string;
let shop: Shop;
let shopUrl: string;

beforeAll(async () => {
  // The gateway's port is chosen first: its PUBLIC_URL names it, and orders' payPageUrl with it.
  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  h = await createHarness({ env: { CALLBACK_ALLOWLIST: '127.0.0.1', PUBLIC_URL: gatewayUrl } });
  h.clock.set(Date.now());
  await h.app.listen({ port: gatewayPort, host: '127.0.0.1' });
  // Like the demo desk: no callback URL of its own, the shop passes notifyUrl.
  desk = await provisionDesk(h.app, { desk: { callbackUrl: null } });
  // The shop's callback URL names its port, so the port is chosen first.
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  shop = createShop({ gatewayUrl, key: desk.key, secret: desk.secret, publicUrl: shopUrl, feedIntervalMs: 0 });
  await shop.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await shop?.app.close();
  await h?.close();
});

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

async function checkout(amount: string) {
  const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount }), redirect: 'manual' });
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  const order = [...shop.orders.values()].find((o) => o.paymentUrl === location)!;
  return { location, order };
}

async function deliverCallbacks() {
  const worker = new DeliveryWorker(h.ctx, { timeoutMs: 5000 });
  try {
    while ((await worker.runOnce()) > 0);
  } finally {
    await worker.close();
  }
}

describe('example shop', () => {
  it('checkout sends the customer to the payment page; the signed callback marks the order paid', async () => {
    expect((await fetch(shopUrl)).status).toBe(200);
    const { location, order } = await checkout('918');
    expect(location).toMatch(new RegExp(`^${gatewayUrl}/pay/ord_`));
    expect(order).toMatchObject({ amount: '918.00', currency: 'RUB', status: 'Created' });
    expect((await fetch(location)).status).toBe(200);

    expect((await admin(h.app, 'POST', `/orders/${order.id}/simulate-payment`)).statusCode).toBe(200);
    await deliverCallbacks();
    expect(order.status).toBe('Completed');
    expect(order.events).toHaveLength(1);
    const attempts = JSON.parse((await admin(h.app, 'GET', `/orders/${order.id}/callbacks`)).body).result;
    expect(attempts).toMatchObject([{ outcome: 'delivered', httpCode: 200 }]);

    const view = await (await fetch(`${shopUrl}/orders/${order.ref}`)).json();
    expect(view).toMatchObject({ ref: order.ref, id: order.id, status: 'Completed' });
    expect(await (await fetch(`${shopUrl}/thanks?ref=${order.ref}`)).text()).toContain('Paid, thank you.');
    // The feed holds the same event: applied once.
    await shop.syncFromFeed();
    expect(order.events).toHaveLength(1);
  });

  it('refuses a callback that is not signed by the gateway', async () => {
    const res = await fetch(`${shopUrl}/paygate/callbacks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-gate-ts': String(Math.floor(Date.now() / 1000)), 'x-gate-event-id': 'evt_forged', 'x-gate-sign': 'a'.repeat(64) },
      body: JSON.stringify({ event: 'order.completed', id: 'ord_x', orderRef: 'x', status: 'Completed' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('CALLBACK_SIGNATURE_MISMATCH');
  });

  it('falls back to the events feed when a callback never arrived', async () => {
    const { order } = await checkout('459');
    expect((await admin(h.app, 'POST', `/orders/${order.id}/simulate-payment`)).statusCode).toBe(200);
    // No delivery worker ran: the shop learns of the payment from the feed.
    expect(await shop.syncFromFeed()).toBe(1);
    expect(order.status).toBe('Completed');
    expect(await shop.syncFromFeed()).toBe(0);
  });

  it('starts with npm run shop', async () => {
    const child = spawn('npm', ['run', '--silent', 'shop'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PAYGATE_BASE_URL: gatewayUrl, PAYGATE_KEY: desk.key, PAYGATE_SECRET: desk.secret, PORT: '0', SHOP_FEED_INTERVAL_MS: '0' },
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      const until = Date.now() + 20_000;
      while (!/example shop on (\S+)/.test(out)) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`shop did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const address = /example shop on (\S+)/.exec(out)![1];
      expect(await (await fetch(address)).text()).toContain('<form method="post" action="/checkout">');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  }, 60_000);
});
