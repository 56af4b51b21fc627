import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paygate } from '@paygate/sdk';
import { killChildren, ROOT, STARTUP_MS } from '../helpers/process.js';
import { IN_CI, PYTHON, pythonWithPytest, startLiveGateway, type LiveGateway } from './liveGateway.js';

// examples/python-checkout against a real Paygate process: checkout, payment page, the sandbox
// payment, the signed callback verified by the Python SDK, the shop's order paid.

const python = pythonWithPytest();

afterAll(killChildren);

describe('python3', () => {
  it.runIf(IN_CI)('is installed where CI runs', () => {
    expect(python.ok, python.ok ? '' : python.why).toBe(true);
  });
});

describe.runIf(python.ok)('examples/python-checkout', () => {
  let gw: LiveGateway;
  let shop: ChildProcess;
  let shopUrl: string;
  let out = '';

  beforeAll(async () => {
    // No desk URL: the shop passes its own callback URL as notifyUrl.
    gw = await startLiveGateway('python-checkout', { deskCallbackUrl: null });
    shop = spawn(PYTHON, [join(ROOT, 'examples/python-checkout/checkout.py')], {
      cwd: ROOT,
      env: { ...process.env, PAYGATE_URL: gw.url, PAYGATE_KEY: gw.key, PAYGATE_SECRET: gw.secret, PAYGATE_RAIL: 'Sbp', PORT: '0', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    shop.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    shop.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const deadline = Date.now() + 20_000;
    let m: RegExpExecArray | null;
    while (!(m = /python checkout on (\S+)/.exec(out))) {
      if (Date.now() > deadline || shop.exitCode !== null) throw new Error(`the checkout did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    shopUrl = m[1];
  }, STARTUP_MS * 2);
  afterAll(async () => {
    if (shop && shop.exitCode === null) {
      const exited = new Promise((r) => shop.once('exit', r));
      shop.kill('SIGTERM');
      await exited;
    }
    await gw?.close();
  });

  it('a checkout paid in the sandbox ends with the shop order paid and the gateway order Completed', async () => {
    expect(await (await fetch(shopUrl)).text()).toContain('<form method="post" action="/checkout">');
    const res = await fetch(`${shopUrl}/checkout`, { method: 'POST', body: new URLSearchParams({ amount: '918.00' }), redirect: 'manual' });
    expect(res.status, await res.text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${gw.url}/pay/ord_`));
    expect((await fetch(location)).status).toBe(200);

    const orderId = /\/pay\/(ord_[^/?#]+)/.exec(location)![1];
    const sdk = new Paygate({ baseUrl: gw.url, key: gw.key, secret: gw.secret });
    // The shop's reference is the gateway order's orderRef.
    const ref = (await sdk.orders.get(orderId)).orderRef!;
    expect(await (await fetch(`${shopUrl}/orders/${ref}`)).json()).toMatchObject({ ref, amount: '918.00', status: 'awaiting_payment', gateway_id: orderId });

    const paid = await gw.admin('POST', `/orders/${orderId}/simulate-payment`);
    expect(paid.status, JSON.stringify(paid.json)).toBe(200);

    // The gateway's delivery worker sends the callback on its own schedule (every few seconds).
    const deadline = Date.now() + 60_000;
    let order: any;
    while ((order = await (await fetch(`${shopUrl}/orders/${ref}`)).json()).status !== 'paid') {
      if (Date.now() > deadline) throw new Error(`the shop's order was not paid within 60 s: ${JSON.stringify(order)}\n${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(order.events).toHaveLength(1);
    expect(await sdk.orders.get(ref)).toMatchObject({ id: orderId, orderRef: ref, status: 'Completed', subStatus: 'SuccessfullyPaid' });
    const attempts = await gw.admin('GET', `/orders/${orderId}/callbacks`);
    expect(attempts.json.result).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'delivered', httpCode: 200 })]));
  }, 120_000);

  it('refuses a callback the gateway did not sign, naming why', async () => {
    const res = await fetch(`${shopUrl}/paygate/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-gate-ts': String(Math.floor(Date.now() / 1000)), 'x-gate-event-id': 'evt_forged', 'x-gate-sign': 'a'.repeat(64) },
      body: JSON.stringify({ event: 'order.completed', id: 'ord_x', orderRef: 'x', status: 'Completed' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('CALLBACK_SIGNATURE_MISMATCH');
  });
});
