/**
 * A pretend phone on a pool's requisite, for trying the whole payment chain on one computer: it
 * watches the pool's open orders through the operator API and, for each order placed on its
 * requisite, sends Paygate the SMS the bank would send when the customer pays it (Sberbank's "900"
 * layout), signed as a relay signs (`POST /providers/v1/{providerId}/messages`, the pool's key and
 * secret). It pings every minute so its requisite keeps taking orders. Paygate reads the text with
 * its built-in templates into a credit, matches it to the order, completes the order and calls the
 * shop back: order → text → credit → completed → callback.
 *
 *   ADMIN_TOKEN=… npm run phone                       # makes a pool, a requisite and a device, then watches
 *   ADMIN_TOKEN=… PROVIDER_ID=prv_… PROVIDER_KEY=… PROVIDER_SECRET=… DEVICE_ID=dev_… REQUISITE_ID=rqs_… npm run phone
 *
 * Only node:crypto and fetch are used, so the file can be copied out as it is.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

export interface PhonePool {
  providerId: string;
  key: string;
  secret: string;
  requisiteId: string;
  deviceId: string;
  /** The requisite's card number as customers see it. */
  card: string;
}

export interface PhoneOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The operator API's token (the orders are watched through it). */
  adminToken: string;
  pool: PhonePool;
  /** How long after an order appears its customer "pays": the bank's text follows. Default 1.5 s. */
  payDelayMs?: number;
  /** How often the open orders are read. Default 1 s. */
  pollMs?: number;
  /** How often the phone pings. Default 60 s. */
  heartbeatMs?: number;
  log?: (line: string) => void;
}

export interface SentText {
  orderId: string;
  text: string;
  outcome: string;
  creditId: string | null;
  status: string | null;
  matchedOrderId: string | null;
}

export interface Phone {
  /** The texts sent so far, by order id. */
  sent: Map<string, SentText>;
  /** One look at the open orders (the loop calls it every `pollMs`); answers how many texts it sent. */
  pollOnce(): Promise<number>;
  stop(): Promise<void>;
}

const digits = (s: string) => s.replace(/\D/g, '');

async function call(baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<any> {
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${json?.fault?.code ?? ''} ${json?.fault?.detail ?? text.slice(0, 200)}`);
  return json?.result;
}

const admin = (o: { baseUrl: string; adminToken: string }, method: string, path: string, body?: unknown) =>
  call(o.baseUrl, `/admin/v1${path}`, { method, headers: { authorization: `Bearer ${o.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The relay's signature: hex HMAC-SHA256 with the pool's secret over `{ts}.{eventId}.{body}`. */
export function signRelay(key: string, secret: string, body: string, nowMs = Date.now()): Record<string, string> {
  const ts = String(Math.floor(nowMs / 1000));
  const eventId = `phone_${randomBytes(12).toString('hex')}`;
  const sign = createHmac('sha256', secret).update(`${ts}.${eventId}.`).update(body, 'utf8').digest('hex');
  return { 'content-type': 'application/json', 'x-gate-key': key, 'x-gate-ts': ts, 'x-gate-event-id': eventId, 'x-gate-sign': sign };
}

/**
 * A pool of its own for the simulator: a pool provider taking RUB by card and SBP, one requisite
 * (a made-up card) and a device forwarding for it. The pool's secret is shown only here.
 */
export async function setUpPool(o: { baseUrl: string; adminToken: string; card?: string; name?: string }): Promise<PhonePool> {
  const card = o.card ?? '2200 1500 0000 4242';
  const provider = await admin(o, 'POST', '/providers', {
    name: o.name ?? 'Phone simulator',
    kind: 'pool',
    priority: 10,
    capabilities: [
      { method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
      { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
    ],
    requisites: [{ card, holder: 'IVAN I.', bank: 'Sberbank' }],
  });
  const [requisite] = await admin(o, 'GET', `/providers/${provider.id}/requisites`);
  const device = await admin(o, 'POST', `/providers/${provider.id}/devices`, { name: 'Phone simulator', requisiteIds: [requisite.id] });
  return { providerId: provider.id, key: provider.key, secret: provider.secret, requisiteId: requisite.id, deviceId: device.id, card };
}

const PAYERS = ['Иван И.', 'Мария С.', 'Олег П.', 'Анна К.', 'Дмитрий В.'];

/** "1 500,50": how the bank writes a sum in its texts. */
export function bankSum(amount: string): string {
  const [whole, cents = '00'] = amount.split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},${cents.padEnd(2, '0')}`;
}

/** Sberbank's "900" SMS for money in: card tail, time, amount, payer and the balance after it. */
export function bankText(card: string, amount: string, payer: string, balance: string, at: Date): string {
  const hhmm = at.toISOString().slice(11, 16);
  return `СЧЁТ${digits(card).slice(-4)} ${hhmm} зачисление ${bankSum(amount)}р от ${payer} Баланс: ${bankSum(balance)}р`;
}

export function startPhone(o: PhoneOptions): Phone {
  const log = o.log ?? ((line: string) => console.log(line));
  const sent = new Map<string, SentText>();
  const waiting = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let balanceCents = 2_034_050n;
  let stopped = false;
  const relay = (path: string, body: string) => call(o.baseUrl, `/providers/v1/${o.pool.providerId}${path}`, { method: 'POST', headers: signRelay(o.pool.key, o.pool.secret, body), body: body === '' ? undefined : body });

  async function heartbeat() {
    try {
      await relay(`/devices/${o.pool.deviceId}/heartbeat`, '');
    } catch (err) {
      log(`heartbeat failed: ${(err as Error).message}`);
    }
  }

  /** The customer paid `order`: the bank's text goes to Paygate; retried on failure (the same id: never two payments). */
  async function pay(order: { id: string; amount: string }) {
    const at = new Date();
    balanceCents += BigInt(Math.round(Number(order.amount) * 100));
    const balance = `${balanceCents / 100n}.${String(balanceCents % 100n).padStart(2, '0')}`;
    const text = bankText(o.pool.card, order.amount, PAYERS[sent.size % PAYERS.length]!, balance, at);
    const body = JSON.stringify({ messages: [{ id: `sim-${order.id}`, deviceId: o.pool.deviceId, sender: '900', text, receivedAt: at.toISOString() }] });
    for (let attempt = 1; !stopped; attempt++) {
      try {
        const { messages: [a] } = await relay('/messages', body);
        sent.set(order.id, { orderId: order.id, text, outcome: a.outcome, creditId: a.creditId, status: a.status, matchedOrderId: a.orderId });
        log(`${order.id} ${order.amount} → "${text}" → ${a.outcome}${a.status ? ` ${a.status}` : ''}${a.orderId ? ` (paid ${a.orderId})` : a.reason ? ` (${a.reason})` : ''}`);
        return;
      } catch (err) {
        if (attempt >= 5) {
          log(`${order.id}: text not delivered: ${(err as Error).message}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  }

  async function pollOnce(): Promise<number> {
    const page = await admin(o, 'GET', `/orders?providerId=${encodeURIComponent(o.pool.providerId)}&status=Created&limit=100`);
    let n = 0;
    for (const order of page.items as { id: string; amount: string; payment: Record<string, string | null> | null }[]) {
      if (sent.has(order.id) || waiting.has(order.id)) continue;
      // Only the orders whose payment details are this phone's card: another requisite's money is another phone's.
      const detail = order.payment?.card ?? order.payment?.account ?? null;
      if (!detail || digits(detail) !== digits(o.pool.card)) continue;
      waiting.add(order.id);
      n++;
      const t = setTimeout(() => {
        timers.delete(t);
        void pay(order).finally(() => waiting.delete(order.id));
      }, o.payDelayMs ?? 1500);
      timers.add(t);
    }
    return n;
  }

  const loop = async () => {
    if (stopped) return;
    try {
      await pollOnce();
    } catch (err) {
      log(`orders not read: ${(err as Error).message}`);
    }
    if (!stopped) timers.add(setTimeout(loop, o.pollMs ?? 1000));
  };
  void heartbeat().then(loop);
  const beat = setInterval(() => void heartbeat(), o.heartbeatMs ?? 60_000);

  return {
    sent,
    pollOnce,
    async stop() {
      stopped = true;
      clearInterval(beat);
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

async function main() {
  const env = process.env;
  const baseUrl = env.PAYGATE_BASE_URL ?? 'http://127.0.0.1:8080';
  if (!env.ADMIN_TOKEN) {
    console.error('Set ADMIN_TOKEN (the gateway\'s operator token), and PAYGATE_BASE_URL if it is not http://127.0.0.1:8080.');
    process.exit(2);
  }
  const given = env.PROVIDER_ID && env.PROVIDER_KEY && env.PROVIDER_SECRET && env.DEVICE_ID && env.REQUISITE_ID;
  const pool: PhonePool = given
    ? { providerId: env.PROVIDER_ID!, key: env.PROVIDER_KEY!, secret: env.PROVIDER_SECRET!, deviceId: env.DEVICE_ID!, requisiteId: env.REQUISITE_ID!, card: env.PHONE_CARD ?? '2200 1500 0000 4242' }
    : await setUpPool({ baseUrl, adminToken: env.ADMIN_TOKEN, card: env.PHONE_CARD });
  if (!given) {
    console.log(`pool ${pool.providerId}, requisite ${pool.requisiteId} (card ${pool.card}), device ${pool.deviceId}`);
    console.log(`to watch the same pool next time: PROVIDER_ID=${pool.providerId} PROVIDER_KEY=${pool.key} PROVIDER_SECRET=${pool.secret} DEVICE_ID=${pool.deviceId} REQUISITE_ID=${pool.requisiteId}`);
  }
  const phone = startPhone({ baseUrl, adminToken: env.ADMIN_TOKEN, pool, payDelayMs: env.PHONE_PAY_DELAY_MS ? Number(env.PHONE_PAY_DELAY_MS) : undefined });
  console.log('phone on: every order placed on its card is paid, and the bank\'s text sent to the gateway (Ctrl-C stops)');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void phone.stop().then(() => process.exit(0)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
