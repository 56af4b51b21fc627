/**
 * Device messages benchmark: from a bank text's arrival to the merchant's `order.completed`
 * callback, at a steady rate, with 200 operators' templates defined; and the CPU one message costs
 * to read against those 200 templates and the built-in ones.
 *
 * The server runs as `npm start` runs it (bench/server.ts). Setup, through the API as an operator
 * and merchants would do it: one pool with 50 requisites (cards, up to 120 open orders each) and a
 * phone on each (a device, heard from before the first order), 200 templates of other banks (half
 * with a sender pattern, half for any sender, each a text pattern with named fields, none of which
 * reads these texts, so every message is tried against all 200 before the built-in Sberbank one
 * reads it), approved merchants whose desks send callbacks to a receiver in this process, and one
 * open order per message to come (60 amounts on each requisite: every text names exactly one).
 *
 * Then the phones send one Sberbank "900" SMS per order (`СЧЁТ1234 14:05 зачисление 1 017,00р …`),
 * one signed request per message as a relay sends them, at BENCH_RATE a second (default 100) for
 * BENCH_SECONDS (default 30), open loop (a slow answer does not slow the next message). For each
 * message the time from the request leaving to the callback arriving at the receiver is taken.
 *
 * Last, in this process: `readFirst` (what a message becomes: the first template that reads it) of the same 200 templates and the built-in ones over
 * BENCH_READS texts (default 20,000: credits, debits and unread ones), timed with
 * process.cpuUsage (user + system CPU, not wall time), per message.
 *
 *   DATABASE_URL=postgres://… npm run bench:messages        # PostgreSQL, in a throwaway database
 *   npm run bench:messages                                  # embedded database (PGlite)
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_TEMPLATES, readFirst, type TemplateSpec } from '../src/domain/messageText.js';
import { signRequest } from '../src/signing.js';
import { throwawayDatabase } from './runtime.js';
import { adminClient as admin, backendPids, cpuSecondsOf, inParallel, startPaygate } from './server.js';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const TEMPLATES = Number(process.env.BENCH_TEMPLATES ?? 200);
const REQUISITES = Number(process.env.BENCH_REQUISITES ?? 50);
const READS = Number(process.env.BENCH_READS ?? 20_000);
const MESSAGES = RATE * SECONDS;
const ORDERS_PER_DESK = 25;
const SETUP_CONCURRENCY = 16;

const card = (i: number) => `2200 7700 0000 ${String(1000 + i).padStart(4, '0')}`;

/** A relay's signed request (the pool's key and secret over `{ts}.{eventId}.{body}`). */
function relayHeaders(key: string, secret: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const eventId = `bench_${randomBytes(12).toString('hex')}`;
  return { 'content-type': 'application/json', 'x-gate-key': key, 'x-gate-ts': ts, 'x-gate-event-id': eventId, 'x-gate-sign': createHmac('sha256', secret).update(`${ts}.${eventId}.${body}`).digest('hex') };
}

/** Other banks' templates an operator might have: none of them reads a Sberbank text. */
function operatorTemplates(n: number): Omit<TemplateSpec, 'id'>[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `Bank ${i}`,
    sender: i % 2 === 0 ? `^(BANK${i}|Bank ${i})$` : null,
    pattern: i % 4 === 1
      ? String.raw`Bank ${i}: (?<amount>[\d ,.]+) (?<currency>[A-Z]{3}) received on \*(?<account>\d{4}) from (?<payer>[\p{L} .]+)`
      : String.raw`(?:credit|received|incoming)\s+#${i}\s+(?<amount>\d[\d ,.]*\d)\s*(?<currency>RUB|KZT|UZS)\s+(?:to|on)\s+(?<account>[*X]*\d{4})(?:.*?ref\s*(?<bankReference>\d{6,}))?`,
    kind: 'credit' as const,
    currency: null,
  }));
}

const sum = (amount: number) => `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},00`;
const smsText = (cardNo: string, amount: number, n: number) => `СЧЁТ${cardNo.slice(-4)} ${new Date().toISOString().slice(11, 16)} зачисление ${sum(amount)}р от Иван И. Баланс: ${sum(100_000 + n)}р`;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function endToEnd(): Promise<void> {
  const database = await throwawayDatabase('messages');
  const kind = database ? 'PostgreSQL' : 'PGlite (set DATABASE_URL for the PostgreSQL figures)';
  const work = mkdtempSync(join(tmpdir(), 'paygate-messages-'));
  // The merchants' receiver: when each order's completion was called back.
  const arrived = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string; status?: string };
        if (body.id && body.status === 'Completed' && !arrived.has(body.id)) arrived.set(body.id, at);
      } catch {
        /* not JSON: counted as nothing */
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
  const paygate = await startPaygate({ databaseUrl: database?.url, dataDir: join(work, 'data'), env: { CALLBACK_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn' } });
  try {
    const op = admin(paygate.base);
    await op('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
    await op('PUT', '/rates/RUB', { rate: '91.8' });
    const provider = await op('POST', '/providers', { name: 'Bench phones', kind: 'pool', priority: 10, capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }], requisites: [] });
    const requisites: string[] = [];
    await inParallel(REQUISITES, SETUP_CONCURRENCY, async (i) => {
      requisites[i] = (await op('POST', `/providers/${provider.id}/requisites`, { payment: { card: card(i), holder: `HOLDER ${i}` }, currency: 'RUB', rails: null, maxOpenOrders: 120 })).id;
    });
    const devices: string[] = [];
    await inParallel(REQUISITES, SETUP_CONCURRENCY, async (i) => {
      devices[i] = (await op('POST', `/providers/${provider.id}/devices`, { name: `Phone ${i}`, requisiteIds: [requisites[i]] })).id;
      const res = await fetch(`${paygate.base}/providers/v1/${provider.id}/devices/${devices[i]}/heartbeat`, { method: 'POST', headers: relayHeaders(provider.key, provider.secret, '') });
      if (!res.ok) throw new Error(`heartbeat: ${res.status} ${await res.text()}`);
    });
    const templates = operatorTemplates(TEMPLATES);
    for (const t of templates) await op('POST', '/message-templates', { ...t, providerId: provider.id });
    const deskCount = Math.ceil(MESSAGES / ORDERS_PER_DESK);
    const desks: { key: string; secret: string }[] = [];
    await inParallel(deskCount, SETUP_CONCURRENCY, async (i) => {
      const m = await op('POST', '/merchants', { name: `Bench ${i}`, sandbox: false });
      await op('POST', `/merchants/${m.id}/approve`);
      const d = await op('POST', `/merchants/${m.id}/desks`, { method: 'Classic', rails: ['C2c'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: receiverUrl, callbacksEnabled: true, tariffId: null });
      desks[i] = { key: d.key, secret: d.secret };
    });
    const orders: { id: string; card: string; amount: number; device: string }[] = [];
    const started = Date.now();
    // Each amount once on every requisite: the pool spreads consecutive orders over the requisites.
    await inParallel(MESSAGES, SETUP_CONCURRENCY, async (i) => {
      const desk = desks[i % deskCount]!;
      const amount = 1000 + Math.floor(i / REQUISITES);
      const body = JSON.stringify({ amount, currency: 'RUB', rail: 'C2c', orderRef: `bench-${i}`, lifetimeMinutes: 180 });
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('hex');
      const res = await fetch(`${paygate.base}/gw/v1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(desk.secret, ts, nonce, 'POST', '/gw/v1/orders', body) },
        body,
      });
      const j = (await res.json()) as { result: { id: string; payment: { card: string } } };
      if (res.status !== 201) throw new Error(`order ${i}: ${res.status} ${JSON.stringify(j)}`);
      const cardNo = j.result.payment.card.replace(/\D/g, '');
      const r = Array.from({ length: REQUISITES }, (_, k) => k).find((k) => card(k).replace(/\D/g, '') === cardNo)!;
      orders[i] = { id: j.result.id, card: cardNo, amount, device: devices[r]! };
    });
    console.log(`set up on ${kind}: ${REQUISITES} requisites with a phone each, ${TEMPLATES} operators' templates, ${deskCount} desks, ${MESSAGES} open orders (${(MESSAGES / ((Date.now() - started) / 1000)).toFixed(0)} orders/s)`);
    // The phones were heard from before the orders; once more now, as their minute pings would.
    await inParallel(REQUISITES, SETUP_CONCURRENCY, async (i) => {
      await fetch(`${paygate.base}/providers/v1/${provider.id}/devices/${devices[i]}/heartbeat`, { method: 'POST', headers: relayHeaders(provider.key, provider.secret, '') });
    });

    const sentAt = new Map<string, number>();
    const answered: number[] = [];
    let credited = 0;
    let failed = 0;
    const why = new Map<string, number>();
    const load = [loadavg()[0]!];
    const inFlight: Promise<void>[] = [];
    // CPU per text compares between runs on a busy machine, where latencies do not.
    const dbBefore = new Map(database ? (await backendPids(database.url)).map((pid) => [pid, cpuSecondsOf([pid])]) : []);
    const serverBefore = cpuSecondsOf([paygate.process.pid!]);
    const t0 = performance.now();
    for (let i = 0; i < MESSAGES; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const o = orders[i]!;
      const body = JSON.stringify({ messages: [{ id: `bench-sms-${i}`, deviceId: o.device, sender: '900', text: smsText(o.card, o.amount, i), receivedAt: new Date().toISOString() }] });
      const headers = relayHeaders(provider.key, provider.secret, body);
      const at = performance.now();
      sentAt.set(o.id, at);
      inFlight.push(
        fetch(`${paygate.base}/providers/v1/${provider.id}/messages`, { method: 'POST', headers, body })
          .then(async (res) => {
            const j = (await res.json()) as { result?: { messages: { outcome: string; status: string | null }[] } };
            answered.push(performance.now() - at);
            if (res.ok && j.result?.messages[0]?.status === 'matched') credited++;
            else {
              failed++;
              const k = res.ok ? `${j.result?.messages[0]?.outcome} ${j.result?.messages[0]?.status}` : `HTTP ${res.status} ${(j as { fault?: { code?: string } }).fault?.code ?? ''}`;
              why.set(k, (why.get(k) ?? 0) + 1);
            }
          })
          .catch((err: Error) => {
            failed++;
            why.set(`no answer: ${err.message}`, (why.get(`no answer: ${err.message}`) ?? 0) + 1);
          }),
      );
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    load.push(loadavg()[0]!);
    await Promise.all(inFlight);
    const deadline = performance.now() + 60_000;
    while (arrived.size < credited && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const serverCpu = cpuSecondsOf([paygate.process.pid!]) - serverBefore;
    const dbCpu = database ? (await backendPids(database.url)).reduce((n, pid) => n + cpuSecondsOf([pid]) - (dbBefore.get(pid) ?? 0), 0) : 0;
    const latencies = [...sentAt].flatMap(([id, at]) => (arrived.has(id) ? [arrived.get(id)! - at] : [])).sort((a, b) => a - b);
    const answers = answered.sort((a, b) => a - b);
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    console.log(`sent ${MESSAGES} messages in ${sendSeconds.toFixed(1)} s (${(MESSAGES / sendSeconds).toFixed(0)}/s, one message a request); ${credited} credits matched, ${failed} not; ${latencies.length} order.completed callbacks received`);
    console.log(`CPU per text, from sending the first to the last callback: server ${((serverCpu * 1000) / MESSAGES).toFixed(1)} ms${database ? `, PostgreSQL backends ${((dbCpu * 1000) / MESSAGES).toFixed(1)} ms` : ''} (the callbacks' delivery included)`);
    if (why.size) console.log(`not matched: ${[...why].map(([k, n]) => `${n} × ${k}`).join('; ')}`);
    console.log(`machine load average (1 min) ${load.map((x) => x.toFixed(1)).join(' at the start, ')} at the end of sending, on ${(await import('node:os')).cpus().length} cores shared with other work`);
    console.log(`message answered:              p50 ${ms(pct(answers, 50))}, p95 ${ms(pct(answers, 95))}, p99 ${ms(pct(answers, 99))}, max ${ms(answers.at(-1) ?? NaN)}`);
    console.log(`message sent → callback:       p50 ${ms(pct(latencies, 50))}, p95 ${ms(pct(latencies, 95))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies.at(-1) ?? NaN)} (target p95 < 2000 ms)`);
  } finally {
    await paygate.stop();
    receiver.close();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The CPU of reading texts against the 200 templates and the built-in ones, as a message is read. */
function readingCost(): void {
  const specs: TemplateSpec[] = [...operatorTemplates(TEMPLATES).map((t, i) => ({ ...t, id: `tpl_bench_${i}` })), ...BUILT_IN_TEMPLATES];
  const samples: [string, string][] = [
    ['900', 'СЧЁТ1017 14:05 зачисление 1 017,00р от Иван И. Баланс: 120 340,50р'],
    ['Alfa-Bank', 'Зачисление 1 500 ₽ по СБП от Мария С.'],
    ['900', 'СЧЁТ1017 14:06 Покупка 500р Пятёрочка Баланс: 119 840,50р'],
    ['HDFCBK', 'Money Received - INR 918.00 in your HDFC Bank A/c xx1234 on 15-01-26 by VPA ravi@okaxis (UPI Ref No 401234567890)'],
    ['Unknown', 'Ваш перевод в обработке, ожидайте зачисления в течение суток. Спасибо, что выбираете нас!'],
  ];
  for (let i = 0; i < 500; i++) readFirst(specs, ...samples[i % samples.length]!); // compiled once, as in the server
  const before = process.cpuUsage();
  const wall = performance.now();
  let readings = 0;
  for (let i = 0; i < READS; i++) readings += readFirst(specs, ...samples[i % samples.length]!).length;
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  console.log(`reading one message against ${TEMPLATES} templates and ${BUILT_IN_TEMPLATES.length} built-in ones: ${((cpuMs * 1000) / READS).toFixed(0)} µs CPU (process.cpuUsage over ${READS} messages of ${samples.length} kinds, ${readings} readings; ${((performance.now() - wall) / READS * 1000).toFixed(0)} µs wall) (target < 1000 µs)`);
}

readingCost();
if (process.env.BENCH_ONLY !== 'reading') await endToEnd();
