import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { signProviderRequestHeaders } from '../../src/providers/providerMessages.js';
import { signRequest } from '../../src/signing.js';
import type { Credentials } from './engine.js';
import { loopbackPort } from './http.js';

/**
 * What a fuzz run needs to exist before it starts, made through the API as an operator and a
 * merchant would: a sandbox merchant with the desk that signs `/gw/v1` requests, a live merchant
 * with a desk served by a pool provider and an `http` provider, orders in several states, an
 * appeal, a tariff and a turnover cap, and a spare merchant and desk that the operator endpoints
 * may stop, block and re-key without cutting the signing desk off.
 */
export interface Fixtures {
  credentials: Credentials;
  ids: Record<string, string[]>;
  hints: Record<string, readonly unknown[]>;
}

export interface ProvisionOptions {
  baseUrl: string;
  adminToken: string;
  /** The server's clock in ms. */
  now: () => number;
  /** URL of a running mock of an `http` provider (tools/mock-provider.ts) with these credentials. */
  httpProvider: { url: string; key: string; secret: string };
  /** Callback URL for the desks: one the server accepts and that goes nowhere outside this machine. */
  callbackUrl: string;
}

export async function provisionFixtures(o: ProvisionOptions): Promise<Fixtures> {
  // Fixtures are made over the same loopback the fuzzer uses, and nowhere else.
  loopbackPort(o.baseUrl);
  const call = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const res = await request(`${o.baseUrl}${path}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text).result;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/admin/v1${path}`, { authorization: `Bearer ${o.adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body === undefined ? undefined : JSON.stringify(body));

  for (const [code, rate] of [['RUB', '91.8'], ['INR', '88.5']] as const) {
    await admin('PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' });
    await admin('PUT', `/rates/${code}`, { rate });
  }
  const tariff = await admin('POST', '/tariffs', { name: 'Fuzz tariff', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '2.5' }] });
  const deskBody = { method: 'Classic', rails: ['Sbp', 'C2c'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: o.callbackUrl, callbacksEnabled: true, tariffId: tariff.id };

  const shop = await admin('POST', '/merchants', { name: 'Fuzz shop', sandbox: true });
  const desk = await admin('POST', `/merchants/${shop.id}/desks`, deskBody);
  const live = await admin('POST', '/merchants', { name: 'Fuzz live shop', sandbox: false });
  await admin('POST', `/merchants/${live.id}/approve`);
  const liveDesk = await admin('POST', `/merchants/${live.id}/desks`, deskBody);
  const spare = await admin('POST', '/merchants', { name: 'Fuzz spare', sandbox: true });
  const spareDesk = await admin('POST', `/merchants/${spare.id}/desks`, deskBody);

  const capability = (rail: string) => ({ method: 'Classic', rail, currency: 'RUB', min: '0', max: '0' });
  const pool = await admin('POST', '/providers', {
    name: 'Fuzz pool',
    kind: 'pool',
    priority: 10,
    capabilities: [capability('C2c')],
    requisites: [{ card: '2200150099998888', holder: 'FUZZ POOL', bank: 'Bank' }],
  });
  const http = await admin('POST', '/providers', {
    name: 'Fuzz http',
    kind: 'http',
    priority: 20,
    capabilities: [capability('Sbp'), capability('C2c')],
    baseUrl: o.httpProvider.url,
    key: o.httpProvider.key,
    secret: o.httpProvider.secret,
  });
  const limit = await admin('POST', '/turnover-limits', { scope: 'merchant', scopeId: spare.id, window: 'day', capUsd: '1000000', notifyOnly: true });

  const signed = (d: { key: string; secret: string }, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const ts = String(Math.floor(o.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    return call(
      method,
      path,
      {
        'x-gate-key': d.key,
        'x-gate-ts': ts,
        'x-gate-nonce': nonce,
        'x-gate-sign': signRequest(d.secret, ts, nonce, method, path, raw),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body === undefined ? undefined : raw,
    );
  };
  const open = await signed(desk, 'POST', '/gw/v1/orders', { amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'fuzz-open' });
  const done = await signed(desk, 'POST', '/gw/v1/orders', { amount: 900, currency: 'RUB', rail: 'Sbp', orderRef: 'fuzz-done' });
  await admin('POST', `/orders/${done.id}/simulate-payment`);
  const canceled = await signed(desk, 'POST', '/gw/v1/orders', { amount: 700, currency: 'RUB', rail: 'C2c', orderRef: 'fuzz-canceled' });
  await signed(desk, 'POST', `/gw/v1/orders/${canceled.id}/cancel`, {});
  const appeal = await signed(desk, 'POST', '/gw/v1/appeals', { orderId: canceled.id });
  const livePool = await signed(liveDesk, 'POST', '/gw/v1/orders', { amount: 2000, currency: 'RUB', rail: 'C2c', orderRef: 'fuzz-live-pool' });
  const liveHttp = await signed(liveDesk, 'POST', '/gw/v1/orders', { amount: 2500, currency: 'RUB', rail: 'Sbp', orderRef: 'fuzz-live-http' });
  // One event the provider really reported, so its message history is not empty.
  const eventBody = JSON.stringify({ orderId: liveHttp.id, type: 'paid' });
  const headers = signProviderRequestHeaders(o.httpProvider.key, o.httpProvider.secret, `fzprov${randomBytes(6).toString('hex')}`, Math.floor(o.now() / 1000), eventBody);
  await call('POST', `/providers/v1/${http.id}/events`, { 'content-type': 'application/json', ...headers }, eventBody);

  const orders = [open.id, done.id, canceled.id, livePool.id, liveHttp.id];
  return {
    credentials: { desk: { key: desk.key, secret: desk.secret }, adminToken: o.adminToken, provider: { key: o.httpProvider.key, secret: o.httpProvider.secret } },
    ids: {
      orders: [...orders, 'fuzz-open'],
      'pay/{id}': orders,
      appeals: [appeal.id],
      // Operator actions on merchants and desks aim at the spare and the live one, never at the signing desk.
      merchants: [spare.id, live.id],
      desks: [spareDesk.id, liveDesk.id],
      providers: [pool.id, http.id],
      '{providerId}': [http.id],
      'turnover-limits': [limit.id],
      currencies: ['RUB', 'INR', 'USD', 'KZT'],
      rates: ['RUB', 'INR', 'KZT'],
      orderId: orders,
      merchantId: [spare.id, live.id, shop.id],
      deskId: [spareDesk.id, liveDesk.id, desk.id],
      providerId: [pool.id, http.id],
      tariffId: [tariff.id],
      scopeId: [spare.id, spareDesk.id],
    },
    hints: {
      currency: ['RUB', 'INR', 'USD'],
      currencies: [['RUB'], ['RUB', 'INR']],
      rail: ['Sbp', 'C2c', 'Upi'],
      rails: [['Sbp'], ['Sbp', 'C2c']],
      method: ['Classic'],
      callbackUrl: [o.callbackUrl],
      notifyUrl: [o.callbackUrl],
      orderRef: ['fuzz-open', 'fuzz-canceled'],
      password: ['correct-horse-battery-staple'],
      email: ['fuzz@example.com'],
    },
  };
}
