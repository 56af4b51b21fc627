import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, killChildren, ROOT, scratchDir, STARTUP_MS } from '../helpers/process.js';
import { phpAvailable, startPhpGateway, type PhpGateway } from './phpGateway.js';

// The plain-PHP checkout example (examples/php-checkout) under `php -S`, against a Paygate process
// with a sandbox desk: checkout, the payment page, a simulated payment, the signed callback
// verified by the SDK, the shop's order paid and the gateway's Completed.

const tools = phpAvailable();

afterAll(killChildren);

describe.runIf(!tools.php && process.env.CI)('PHP checkout example on CI', () => {
  it('has php with curl installed', () => {
    expect(tools.php, 'CI must install php-cli and php-curl').toBe(true);
  });
});

describe.runIf(tools.php)('PHP checkout example', () => {
  let gw: PhpGateway;
  let shop: ChildProcess | undefined;
  let shopUrl: string;
  let dir: string;
  let shopOutput = '';

  beforeAll(async () => {
    gw = await startPhpGateway('php-checkout');
    // Like a shop that passes notifyUrl on each order: the desk has no callback URL of its own.
    const desk = await gw.provisionDesk({ callbackUrl: null });
    dir = scratchDir('php-checkout');
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    shop = spawn('php', ['-S', `127.0.0.1:${port}`, 'index.php'], {
      cwd: join(ROOT, 'examples/php-checkout'),
      env: { ...process.env, PAYGATE_URL: gw.url, PAYGATE_KEY: desk.key, PAYGATE_SECRET: desk.secret, SHOP_URL: shopUrl, SHOP_STORE: join(dir, 'orders.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    shop.stdout!.on('data', (d) => (shopOutput += d));
    shop.stderr!.on('data', (d) => (shopOutput += d));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(shopUrl)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline || shop.exitCode !== null) throw new Error(`the shop did not start:\n${shopOutput}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 2 * STARTUP_MS);
  afterAll(async () => {
    shop?.kill('SIGTERM');
    await gw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const shopOrders = async (): Promise<any[]> => (await fetch(`${shopUrl}/orders`)).json();

  it('checkout sends the customer to the payment page; the verified callback marks the order paid', async () => {
    expect(await (await fetch(shopUrl)).text()).toContain('<form method="post" action="/checkout">');
    const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount: '918.00' }), redirect: 'manual' });
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${gw.url}/pay/ord_`));
    const order = (await shopOrders()).find((o) => o.payPageUrl === location);
    expect(order).toMatchObject({ amount: '918.00', currency: 'RUB', status: 'awaiting payment', sandbox: true, id: expect.stringMatching(/^ord_/) });
    expect((await fetch(location)).status).toBe(200);

    const paid = await gw.admin('POST', `/orders/${order.id}/simulate-payment`);
    expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    // The gateway's delivery worker posts the callback by itself (it polls every 10 s when idle).
    const deadline = Date.now() + 30_000;
    let seen = order;
    while (seen.status !== 'paid' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      seen = await (await fetch(`${shopUrl}/orders/${order.ref}`)).json();
    }
    expect(seen, shopOutput).toMatchObject({ status: 'paid', paidAmount: '918.00', gatewayStatus: 'Completed' });
    expect(seen.events).toHaveLength(1);
    expect(await (await fetch(`${shopUrl}/thanks?ref=${order.ref}`)).text()).toContain('Paid, thank you.');

    const gatewayOrder = await gw.admin('GET', `/orders/${order.id}`);
    expect(gatewayOrder.json.result).toMatchObject({ id: order.id, status: 'Completed' });
    const attempts = await gw.admin('GET', `/orders/${order.id}/callbacks`);
    expect(attempts.json.result).toMatchObject([{ outcome: 'delivered', httpCode: 200 }]);
  }, 60_000);

  it('refuses a callback the gateway did not sign, and changes nothing', async () => {
    const before = await shopOrders();
    const res = await fetch(`${shopUrl}/paygate/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-gate-ts': String(Math.floor(Date.now() / 1000)), 'x-gate-event-id': 'evt_forged', 'x-gate-sign': 'a'.repeat(64) },
      body: JSON.stringify({ event: 'order.completed', id: 'ord_x', orderRef: before[0]?.ref ?? 'x', status: 'Completed' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('CALLBACK_SIGNATURE_MISMATCH');
    expect(await shopOrders()).toEqual(before);
  });

  it('answers a bad amount with 400, not a gateway call', async () => {
    const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount: '12abc' }), redirect: 'manual' });
    expect(res.status).toBe(400);
  });
});
