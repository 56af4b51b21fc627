import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../../src/providers/providerMessages.js';
import { watchDevices } from '../../../src/services/deviceWatch.js';
import { ADMIN_TOKEN, createHarness, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { adminCall, listen, signedCall, type Answer } from '../../helpers/sockets.js';
import { card, pools, type Pool } from './helpers.js';

/*
 * Device messages (reconciliation contract, "Device messages"): the bank's SMS and pushes a phone
 * forwards become credits like any other, every message is kept, devices that fall silent pause
 * their requisites. Every request over real HTTP; run on PGlite, and on PostgreSQL with
 * DATABASE_URL set.
 */

let h: Harness;
let origin: string;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  origin = await listen(h);
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

const nowIso = () => new Date(h.clock.now()).toISOString();
let seq = 0;
const msgId = () => `sms-${++seq}`;

/** A signed request of the pool's relay, over the exact bytes, at the harness clock's time. */
async function relay(p: Pool, path: string, raw: string, o: { secret?: string; contentType?: string | null } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...signProviderRequestHeaders(p.key, o.secret ?? p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw) };
  if (o.contentType !== null) headers['content-type'] = o.contentType ?? 'application/json';
  const res = await fetch(`${origin}/providers/v1/${p.id}${path}`, { method: 'POST', headers, body: raw === '' ? undefined : raw });
  const body = await res.text();
  return { status: res.status, headers: res.headers, body, json: body ? JSON.parse(body) : null, location: res.headers.get('location') } as Answer;
}
const send = (p: Pool, messages: unknown[], o: { secret?: string } = {}) => relay(p, '/messages', JSON.stringify({ messages }), o);
const sms = (deviceId: string, text: string, extra: Record<string, unknown> = {}) => ({ id: msgId(), deviceId, sender: 'Alfa-Bank', text, receivedAt: nowIso(), ...extra });
const heartbeat = (p: Pool, deviceId: string) => relay(p, `/devices/${deviceId}/heartbeat`, '', { contentType: null });

async function device(p: Pool, requisiteIds: string[], name = 'Redmi 12'): Promise<any> {
  const r = await adminCall(origin, 'POST', `/providers/${p.id}/devices`, { name, requisiteIds });
  expect(r.status, r.body).toBe(201);
  return r.json.result;
}
async function order(amount: number): Promise<any> {
  const r = await signedCall(origin, h, desk, '/gw/v1/orders', { amount, currency: 'RUB', rail: 'C2c' });
  return r;
}
const getOrder = async (id: string) => (await adminCall(origin, 'GET', `/orders/${id}`)).json.result;

describe('messages into credits', () => {
  let p: Pool;
  let dev: any;
  beforeAll(async () => {
    p = await pool([{ card: card(1), holder: 'A' }]);
    dev = await device(p, [p.requisites[0].id]);
  });

  it('a device is created, listed and renamed', async () => {
    expect(dev).toMatchObject({ name: 'Redmi 12', requisiteIds: [p.requisites[0].id], lastSeenAt: null, state: 'active' });
    expect(dev.id).toMatch(/^dev_/);
    const list = await adminCall(origin, 'GET', `/providers/${p.id}/devices`);
    expect(list.json.result.map((d: any) => d.id)).toEqual([dev.id]);
    const renamed = await adminCall(origin, 'PATCH', `/devices/${dev.id}`, { name: 'Redmi 12 (desk 2)' });
    expect(renamed.status, renamed.body).toBe(200);
    expect(renamed.json.result.name).toBe('Redmi 12 (desk 2)');
    expect((await adminCall(origin, 'PATCH', '/devices/dev_nope', { name: 'x' })).json.fault.code).toBe('DEVICE_NOT_FOUND');
    const foreign = await adminCall(origin, 'POST', `/providers/${p.id}/devices`, { name: 'x', requisiteIds: ['rqs_other'] });
    expect([foreign.status, foreign.json.fault.code]).toEqual([404, 'REQUISITE_NOT_FOUND']);
  });

  it('an SBP notice pays the order it names; the same message again is the same credit', async () => {
    const o = (await order(1500)).json.result;
    const m = sms(dev.id, 'Зачисление 1 500 ₽ по СБП от Иван И.');
    const r = await send(p, [m]);
    expect(r.status, r.body).toBe(200);
    const [a] = r.json.result.messages;
    expect(a).toMatchObject({ id: m.id, outcome: 'credit', status: 'matched', orderId: o.id, duplicate: false, warnings: [] });
    expect((await getOrder(o.id)).status).toBe('Completed');
    const credit = (await adminCall(origin, 'GET', `/credits/${a.creditId}`)).json.result;
    expect(credit).toMatchObject({ amount: '1500.00', currency: 'RUB', source: 'device', sourceId: m.id, payer: 'Иван И', requisiteId: p.requisites[0].id });

    const again = (await send(p, [m])).json.result.messages[0];
    expect(again).toMatchObject({ outcome: 'credit', creditId: a.creditId, status: 'matched', orderId: o.id, duplicate: true });
    const dev1 = (await adminCall(origin, 'GET', `/providers/${p.id}/devices`)).json.result[0];
    expect(dev1.lastSeenAt).not.toBeNull();
    expect(dev1.messagesToday).toBe(1);
  });

  it('thirty phones\' requests at once: each answered with its own message and credit, a repeat among them answered as one', async () => {
    const amounts = Array.from({ length: 30 }, (_, i) => 3001 + i);
    const messages = amounts.map((a) => sms(dev.id, `Зачисление ${a} ₽ по СБП от Пётр П.`));
    // The last message goes twice, in two requests at once.
    const requests = [...messages.map((m) => [m]), [messages[29]!]];
    const answers = await Promise.all(requests.map((ms) => send(p, ms)));
    const credits = new Set<string>();
    for (const [i, r] of answers.entries()) {
      expect(r.status, r.body).toBe(200);
      const got = r.json.result.messages;
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ id: requests[i]![0]!.id, outcome: 'credit' });
      const credit = (await adminCall(origin, 'GET', `/credits/${got[0].creditId}`)).json.result;
      expect(credit).toMatchObject({ amount: `${amounts[Math.min(i, 29)]}.00`, sourceId: requests[i]![0]!.id });
      credits.add(got[0].creditId);
    }
    expect(credits.size).toBe(30);
    const last = [answers[29]!.json.result.messages[0], answers[30]!.json.result.messages[0]];
    expect(last.map((a: { duplicate: boolean }) => a.duplicate).sort()).toEqual([false, true]);
  });

  it('the same id with another amount is another payment, with TRANSACTION_ID_REUSED', async () => {
    const m = sms(dev.id, 'Зачисление 700 ₽ по СБП от Олег О.');
    const first = (await send(p, [m])).json.result.messages[0];
    const second = (await send(p, [{ ...m, text: 'Зачисление 710 ₽ по СБП от Олег О.' }])).json.result.messages[0];
    expect(second.outcome).toBe('credit');
    expect(second.creditId).not.toBe(first.creditId);
    expect(second.warnings).toEqual(['TRANSACTION_ID_REUSED']);
  });

  it('debits, balance notices and one-time codes are skipped, and kept', async () => {
    const r = (await send(p, [
      sms(dev.id, 'СЧЁТ0001 14:05 Покупка 500р Пятёрочка Баланс: 1000р', { sender: '900' }),
      sms(dev.id, 'Код: 123456. Никому не сообщайте его.', { sender: '900' }),
    ])).json.result.messages;
    expect(r.map((x: any) => x.outcome)).toEqual(['skipped', 'skipped']);
    expect(r.every((x: any) => x.creditId === null)).toBe(true);
  });

  it('a masked account names the one requisite that ends so; an account no requisite has is an unmatched credit', async () => {
    const o = (await order(918)).json.result;
    const r = (await send(p, [sms(dev.id, 'СЧЁТ0001 14:05 зачисление 918р Баланс: 20340.50р', { sender: '900' })])).json.result.messages[0];
    expect(r).toMatchObject({ outcome: 'credit', status: 'matched', orderId: o.id });
    const stranger = (await send(p, [sms(dev.id, 'СЧЁТ9999 14:06 зачисление 918р Баланс: 20340.50р', { sender: '900' })])).json.result.messages[0];
    expect(stranger).toMatchObject({ outcome: 'credit', status: 'unmatched', orderId: null });
    expect((await adminCall(origin, 'GET', `/credits/${stranger.creditId}`)).json.result.reason).toBe('unknown account');
  });

  it('an unknown device\'s message and a text no template reads wait unread, in the queue', async () => {
    const r = (await send(p, [sms('dev_stranger', 'Зачисление 300 ₽ по СБП от Иван И.'), sms(dev.id, 'Ваш перевод обрабатывается, сумма 300')])).json.result.messages;
    expect(r.map((x: any) => [x.outcome, x.reason])).toEqual([['unread', 'unknown device'], ['unread', 'no template reads it']]);
    const queue = (await adminCall(origin, 'GET', '/messages/unread')).json.result;
    expect(queue.map((m: any) => m.messageId)).toEqual(expect.arrayContaining([r[0].id, r[1].id]));
    expect(queue.find((m: any) => m.messageId === r[0].id)).toMatchObject({ deviceId: 'dev_stranger', deviceKnown: false, text: 'Зачисление 300 ₽ по СБП от Иван И.' });
  });

  it('a message, then the statement of the same money, is one credit', async () => {
    const o = (await order(2000)).json.result;
    const a = (await send(p, [sms(dev.id, 'Зачисление 2 000 ₽ по СБП от Анна А.')])).json.result.messages[0];
    expect(a).toMatchObject({ outcome: 'credit', orderId: o.id });
    const count = async () => (await adminCall(origin, 'GET', `/credits?providerId=${p.id}&limit=500`)).json.result.items.length;
    const before = await count();
    const csv = `transactionId,account,amount,currency,receivedAt,payer,reference\nST-1,${card(1)},2000.00,RUB,${nowIso()},ANNA A,\n`;
    const res = await fetch(`${origin}/admin/v1/providers/${p.id}/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: csv });
    const up = await res.json();
    expect(res.status, JSON.stringify(up)).toBe(200);
    expect(up.result, JSON.stringify(up.result)).toMatchObject({ entries: 1, duplicates: 1, matched: 0, unmatched: 0 });
    expect(await count()).toBe(before);
    const evidence = (await adminCall(origin, 'GET', `/credits/${a.creditId}`)).json.result.statementEntries;
    expect(evidence.map((e: any) => e.statementId)).toEqual([up.result.statementId]);
  });

  it('a message, then the feed with the same money: the order is paid once, the second credit waits for a person', async () => {
    const o = (await order(2200)).json.result;
    const a = (await send(p, [sms(dev.id, 'Зачисление 2 200 ₽ по СБП от Анна А.')])).json.result.messages[0];
    expect(a).toMatchObject({ outcome: 'credit', orderId: o.id });
    const item = { transactionId: 'feed-2200', account: card(1), amount: '2200.00', currency: 'RUB', receivedAt: nowIso(), payer: 'ANNA A', reference: null };
    const f = await relay(p, '/credits', JSON.stringify({ credits: [item] }));
    expect(f.status, f.body).toBe(200);
    const c = (await adminCall(origin, 'GET', `/credits/${f.json.result.credits[0].creditId}`)).json.result;
    expect(c).toMatchObject({ status: 'unmatched', reason: 'already paid', orderId: null });
    expect((await getOrder(o.id)).status).toBe('Completed');
  });

  it('a device clock hours ahead: the money is taken as arrived now, with a warning', async () => {
    const ahead = new Date(h.clock.now() + 5 * 3_600_000).toISOString();
    const r = (await send(p, [sms(dev.id, 'Зачисление 333 ₽ по СБП от Иван И.', { receivedAt: ahead })])).json.result.messages[0];
    expect(r.warnings).toEqual(['DEVICE_CLOCK_AHEAD']);
    expect((await adminCall(origin, 'GET', `/credits/${r.creditId}`)).json.result.receivedAt).toBe(nowIso().replace(/\.\d{3}Z$/, 'Z'));
  });
});

describe('bad input', () => {
  let p: Pool;
  let dev: any;
  beforeAll(async () => {
    p = await pool([{ card: card(2), holder: 'B' }]);
    dev = await device(p, [p.requisites[0].id]);
  });

  it('a wrong signature, an empty list, 501 messages, a text over 2,000 characters: refused, nothing kept', async () => {
    expect((await send(p, [sms(dev.id, 'x')], { secret: 'wrong' })).status).toBe(401);
    expect((await send(p, [])).status).toBe(400);
    expect((await send(p, Array.from({ length: 501 }, () => sms(dev.id, 'x')))).status).toBe(400);
    const long = await send(p, [sms(dev.id, 'я'.repeat(2001))]);
    expect([long.status, long.json.fault.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await relay(p, '/messages', '{"messages": [')).status).toBe(400);
    expect((await send(p, [{ ...sms(dev.id, 'x'), receivedAt: 'yesterday' }])).status).toBe(400);
    expect((await send(p, [{ ...sms(dev.id, 'x'), extra: 1 }])).status).toBe(400);
    const devNow = (await adminCall(origin, 'GET', `/providers/${p.id}/devices`)).json.result[0];
    expect(devNow.messagesToday).toBe(0);
  });

  it('2,000 characters of any script, emoji and direction marks are kept unread, never a 500', async () => {
    const text = ('مرحبا \u200f💸 تم إيداع ').repeat(200).slice(0, 1990) + '\u202b₹\u202c';
    expect([...text].length).toBeLessThanOrEqual(2000);
    const r = await send(p, [sms(dev.id, text), sms(dev.id, '👍'.repeat(2000))]);
    expect(r.status, r.body).toBe(200);
    expect(r.json.result.messages.map((x: any) => x.outcome)).toEqual(['unread', 'unread']);
  });
});

describe('templates', () => {
  it('are created, listed, changed and tried; the built-in ones stay as they are', async () => {
    const bad = await adminCall(origin, 'POST', '/message-templates', { name: 'x', pattern: '(?<=a)b', kind: 'credit' });
    expect([bad.status, bad.json.fault.code]).toEqual([400, 'VALIDATION_ERROR']);
    const noField = await adminCall(origin, 'POST', '/message-templates', { name: 'x', pattern: '(?<sum>\\d+)', kind: 'credit' });
    expect(noField.json.fault.detail).toMatch(/sum/);

    const made = await adminCall(origin, 'POST', '/message-templates', { name: 'Bank X', sender: '^BANKX$', pattern: 'Received (?<amount>[\\d,.]+) (?<currency>\\w+) on \\*(?<account>\\d{4})', kind: 'credit', currency: null });
    expect(made.status, made.body).toBe(201);
    const t = made.json.result;
    expect(t).toMatchObject({ id: expect.stringMatching(/^tpl_/), enabled: true, builtIn: false, providerId: null });

    const tried = await adminCall(origin, 'POST', '/message-templates/try', { sender: 'BANKX', text: 'Received 1,500.00 RUB on *0001' });
    expect(tried.status, tried.body).toBe(200);
    expect(tried.json.result.becomes).toBe('credit');
    expect(tried.json.result.readings[0]).toMatchObject({ templateId: t.id, amount: '1500.00', currency: 'RUB', account: '*0001' });

    const off = await adminCall(origin, 'PATCH', `/message-templates/${t.id}`, { enabled: false });
    expect(off.json.result.enabled).toBe(false);
    expect((await adminCall(origin, 'POST', '/message-templates/try', { sender: 'BANKX', text: 'Received 1,500.00 RUB on *0001' })).json.result.becomes).toBe('unread');

    const list = (await adminCall(origin, 'GET', '/message-templates')).json.result;
    expect(list[0].id).toBe(t.id);
    expect(list.filter((x: any) => x.builtIn).length).toBeGreaterThan(10);
    const builtIn = await adminCall(origin, 'PATCH', '/message-templates/tpl_builtin_rub_sbp', { enabled: false });
    expect([builtIn.status, builtIn.json.fault.code]).toEqual([409, 'TEMPLATE_BUILT_IN']);
    expect((await adminCall(origin, 'PATCH', '/message-templates/tpl_nope', { enabled: false })).json.fault.code).toBe('TEMPLATE_NOT_FOUND');
  });

  it('a catastrophic pattern runs in linear time on a hostile text', async () => {
    const made = await adminCall(origin, 'POST', '/message-templates', { name: 'Evil', pattern: '^(a+)+$(?<amount>\\d)', kind: 'credit', currency: 'RUB' });
    expect(made.status, made.body).toBe(201);
    const started = performance.now();
    const tried = await adminCall(origin, 'POST', '/message-templates/try', { text: `${'a'.repeat(1999)}!` });
    expect(tried.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
    await adminCall(origin, 'PATCH', `/message-templates/${made.json.result.id}`, { enabled: false });
  });

  it('an unsaved template is tried before the others, as the preview does', async () => {
    const r = await adminCall(origin, 'POST', '/message-templates/try', { sender: 'Y', text: 'Got 42,50 ₽', template: { name: 'draft', pattern: 'Got (?<amount>[\\d,]+) (?<currency>₽)', kind: 'credit' } });
    expect(r.json.result.readings[0]).toMatchObject({ templateId: 'draft', amount: '42.50', currency: 'RUB' });
  });
});

describe('silent devices', () => {
  it('pause their requisites for new orders until heard from again, both audited', async () => {
    const p = await pool([{ card: card(3), holder: 'C' }]);
    const dev = await device(p, [p.requisites[0].id]);
    expect((await heartbeat(p, dev.id)).status).toBe(200);
    expect((await order(100)).status).toBe(201);

    h.clock.advance(11 * 60_000);
    expect((await adminCall(origin, 'GET', `/providers/${p.id}/devices`)).json.result[0].state).toBe('silent');
    // Issuing reads the sighting itself: no order goes to the silent device's requisite, before the watch came by.
    const refused = await order(101);
    expect(refused.status, refused.body).not.toBe(201);
    expect(await watchDevices(h.ctx)).toBeGreaterThanOrEqual(1);
    const audit = (await adminCall(origin, 'GET', `/audit?objectId=${dev.id}`)).json.result.items;
    expect(audit.map((a: any) => a.action)).toContain('device.silent');

    const beat = await heartbeat(p, dev.id);
    expect(beat.status, beat.body).toBe(200);
    expect(beat.json.result.state).toBe('active');
    expect((await order(102)).status).toBe(201);
    const after = (await adminCall(origin, 'GET', `/audit?objectId=${dev.id}`)).json.result.items;
    expect(after.map((a: any) => a.action)).toContain('device.heard');
  });

  it('a heartbeat is signed, of a known device, with an empty body', async () => {
    const p = await pool([{ card: card(4), holder: 'D' }]);
    const dev = await device(p, [p.requisites[0].id]);
    expect((await relay(p, `/devices/${dev.id}/heartbeat`, '', { secret: 'wrong', contentType: null })).status).toBe(401);
    expect((await heartbeat(p, 'dev_nope')).json.fault.code).toBe('DEVICE_NOT_FOUND');
    expect((await relay(p, `/devices/${dev.id}/heartbeat`, '{"x":1}')).status).toBe(400);
  });
});
