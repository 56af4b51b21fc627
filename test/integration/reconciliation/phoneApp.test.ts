import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { adminCall, listen, signedCall, type Answer } from '../../helpers/sockets.js';
import { card, pools, type Pool } from './helpers.js';

/*
 * The "SMS Gateway for Android" app posting straight to the gateway: its deliveries are built here
 * as the app builds them (its Gson body: the event's fields in the app's order, nulls left out,
 * `=`, `<`, `>`, `&`, `'` escaped, dates with milliseconds and the phone's offset; its message id,
 * the unsigned hex of the SMS's Java hash code; its headers and its signature: hex HMAC-SHA256
 * with the signing key over the body's text followed by the Unix seconds). Over real HTTP; run on
 * PGlite, and on PostgreSQL with DATABASE_URL set.
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

// ---- the app's side, as its code does it

/** Java's String.hashCode over UTF-16 code units, as a signed 32-bit integer. */
const javaStringHash = (s: string) => {
  let x = 0;
  for (let i = 0; i < s.length; i++) x = (Math.imul(31, x) + s.charCodeAt(i)) | 0;
  return x;
};
/** java.util.Date.hashCode: the milliseconds' two halves xor-ed. */
const javaDateHash = (ms: number) => Number(BigInt.asIntN(32, BigInt(ms) ^ (BigInt(ms) >> 32n)));
/** The app's id of an incoming SMS: `InboxMessage.Text.hashCode().toUInt().toString(16)`. */
function appMessageId(address: string, dateMs: number, subscriptionId: number | null, text: string): string {
  let base = javaStringHash(address);
  base = (Math.imul(31, base) + javaDateHash(dateMs)) | 0;
  base = (Math.imul(31, base) + (subscriptionId ?? 0)) | 0;
  const hash = (Math.imul(31, base) + javaStringHash(text)) | 0;
  return (hash >>> 0).toString(16);
}

/** Gson's `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in the phone's zone (Moscow here, +03:00). */
function gsonDate(ms: number, offsetMinutes = 180): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Gson's default writer: JSON with the HTML-significant characters escaped, nulls left out. */
const gson = (v: unknown) => JSON.stringify(v, (_k, x) => (x === null ? undefined : x)).replace(/[<>&='\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const nanoid = () => randomBytes(16).toString('base64url').slice(0, 21);
const APP_DEVICE_ID = 'ffffffffceb0b1db0000018e937c815b';

/** A webhook delivery: `WebHookEventDTO(id, webhookId, event, deviceId, payload)`. */
const delivery = (event: string, payload: unknown) => gson({ id: nanoid(), webhookId: 'wh-sms', event, deviceId: APP_DEVICE_ID, payload });

/** `SmsEventPayload.SmsReceived`: its own fields first, then the base class's, as Gson walks the class. */
function smsReceived(text: string, o: { sender?: string; atMs?: number; sim?: number | null } = {}) {
  const sender = o.sender ?? '900';
  const atMs = o.atMs ?? h.clock.now() - 2_000;
  const sim = o.sim === undefined ? 1 : o.sim;
  return { message: text, receivedAt: gsonDate(atMs), messageId: appMessageId(sender, atMs, sim === null ? null : sim, text), sender, recipient: null, simNumber: sim, phoneNumber: sender };
}

/** POSTs the body as the app's HTTP client does, signed with `key` at the harness clock's second (or `tsSec`). */
async function post(p: Pool, deviceId: string, body: string, key: string, o: { tsSec?: number; signature?: string; path?: string } = {}): Promise<Answer> {
  const ts = String(o.tsSec ?? Math.floor(h.clock.now() / 1000));
  const signature = o.signature ?? createHmac('sha256', key).update(body + ts).digest('hex');
  const res = await fetch(`${origin}/providers/v1/${p.id}/devices/${deviceId}/${o.path ?? 'sms-gateway'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=UTF-8', 'user-agent': 'me.capcom.smsgateway/1.45.0', 'x-timestamp': ts, 'x-signature': signature },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text, json: text ? JSON.parse(text) : null, location: res.headers.get('location') } as Answer;
}

async function device(p: Pool, name = 'Redmi 12'): Promise<any> {
  const r = await adminCall(origin, 'POST', `/providers/${p.id}/devices`, { name, requisiteIds: [p.requisites[0].id] });
  expect(r.status, r.body).toBe(201);
  return r.json.result;
}
const order = async (amount: number) => (await signedCall(origin, h, desk, '/gw/v1/orders', { amount, currency: 'RUB', rail: 'C2c' })).json.result;
const getOrder = async (id: string) => (await adminCall(origin, 'GET', `/orders/${id}`)).json.result;

describe('the app\'s SMS', () => {
  let p: Pool;
  let dev: any;
  beforeAll(async () => {
    p = await pool([{ card: card(11), holder: 'A' }]);
    dev = await device(p);
  });

  it('a device is made with its signing key, shown once', async () => {
    expect(dev.signingKey).toMatch(/^dsk_[A-Za-z0-9_-]{32}$/);
    const listed = (await adminCall(origin, 'GET', `/providers/${p.id}/devices`)).json.result[0];
    expect(listed.id).toBe(dev.id);
    expect(listed).not.toHaveProperty('signingKey');
    expect(JSON.stringify(listed)).not.toContain(dev.signingKey);
  });

  it('the bank\'s SMS, delivered as the app delivers it, pays the order; the app\'s retry is the same credit', async () => {
    const o = await order(1500);
    const body = delivery('sms:received', smsReceived('СЧЁТ0011 14:05 зачисление 1500р Баланс: 20340.50р'));
    const r = await post(p, dev.id, body, dev.signingKey);
    expect(r.status, r.body).toBe(200);
    expect(r.json.result).toMatchObject({ event: 'sms:received', outcome: 'message', device: { id: dev.id, state: 'active' } });
    const m = r.json.result.message;
    expect(m).toMatchObject({ outcome: 'credit', status: 'matched', orderId: o.id, duplicate: false });
    expect(m.id).toBe(`${dev.id}:${JSON.parse(body).payload.messageId}`);
    expect((await getOrder(o.id)).status).toBe('Completed');
    const credit = (await adminCall(origin, 'GET', `/credits/${m.creditId}`)).json.result;
    expect(credit).toMatchObject({ amount: '1500.00', currency: 'RUB', source: 'device', requisiteId: p.requisites[0].id });
    // The phone's local time with its offset (+03:00) is the same instant.
    expect(JSON.parse(body).payload.receivedAt).toMatch(/\.\d{3}\+03:00$/);
    expect(credit.receivedAt).toBe(new Date(Math.floor((h.clock.now() - 2_000) / 1000) * 1000).toISOString().replace('.000Z', 'Z'));

    // The app retries a delivery it got no 2xx for with the same body and a new signature a little later.
    h.clock.advance(20_000);
    const again = await post(p, dev.id, body, dev.signingKey);
    expect(again.status, again.body).toBe(200);
    expect(again.json.result.message).toMatchObject({ creditId: m.creditId, orderId: o.id, duplicate: true });
  });

  it('Gson\'s escapes are read as the app meant them, and the text is kept as the phone showed it', async () => {
    const text = 'Перевод <A&B> по ссылке pay?x=1 от \'ООО Ромашка\' в обработке';
    const body = delivery('sms:received', smsReceived(text, { sender: 'T-Bank' }));
    expect(body).toContain('pay?x\\u003d1');
    expect(body).toContain('\\u003cA\\u0026B\\u003e');
    expect(body).toContain('\\u0027ООО Ромашка\\u0027');
    const r = await post(p, dev.id, body, dev.signingKey);
    expect(r.status, r.body).toBe(200);
    expect(r.json.result.message).toMatchObject({ outcome: 'unread', reason: 'no template reads it' });
    const queue = (await adminCall(origin, 'GET', '/messages/unread?limit=500')).json.result;
    expect(queue.find((x: any) => x.messageId === r.json.result.message.id)).toMatchObject({ text, sender: 'T-Bank', deviceId: dev.id, deviceKnown: true });
  });

  it('a message with no sender field uses the phone number, as older versions of the app send', async () => {
    const sms = smsReceived('Зачисление 4 321 ₽ по СБП от Иван И.');
    const { sender: _omit, ...older } = sms;
    const r = await post(p, dev.id, delivery('sms:received', older), dev.signingKey);
    expect(r.status, r.body).toBe(200);
    expect(r.json.result.message.outcome).toBe('credit');
  });
});

describe('the app\'s pings and other events', () => {
  it('a ping is a heartbeat: a silent device\'s requisite takes orders again', async () => {
    const p = await pool([{ card: card(12), holder: 'B' }]);
    const dev = await device(p);
    const ping = () => post(p, dev.id, delivery('system:ping', { health: { status: 'pass', version: '1.45.0', releaseId: 45000, checks: { 'battery:level': { status: 'pass', observedValue: 87, observedUnit: 'percent', description: 'Battery level in percent' } } } }), dev.signingKey);
    const first = await ping();
    expect(first.status, first.body).toBe(200);
    expect(first.json.result).toMatchObject({ event: 'system:ping', outcome: 'heartbeat', message: null, device: { state: 'active' } });

    h.clock.advance(11 * 60_000);
    const refused = await signedCall(origin, h, desk, '/gw/v1/orders', { amount: 150, currency: 'RUB', rail: 'C2c' });
    expect(refused.status, refused.body).not.toBe(201);
    const back = await ping();
    expect(back.json.result.device.state).toBe('active');
    const placed = await signedCall(origin, h, desk, '/gw/v1/orders', { amount: 151, currency: 'RUB', rail: 'C2c' });
    expect(placed.status, placed.body).toBe(201);
  });

  it('the app\'s events that carry no bank money are acknowledged; an event the app does not have is refused', async () => {
    const p = await pool([{ card: card(13), holder: 'C' }]);
    const dev = await device(p);
    const sent = await post(p, dev.id, delivery('sms:sent', { messageId: 'm1', recipient: '+79000000000', simNumber: 1, partsCount: 1, sentAt: gsonDate(h.clock.now()), phoneNumber: '+79000000000' }), dev.signingKey);
    expect(sent.status, sent.body).toBe(200);
    expect(sent.json.result).toMatchObject({ outcome: 'ignored', message: null });
    const unknown = await post(p, dev.id, delivery('sms:exploded', {}), dev.signingKey);
    expect([unknown.status, unknown.json.fault.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(unknown.json.fault.detail).toMatch(/sms:exploded.*not an event of the app/);
    const noText = await post(p, dev.id, delivery('sms:received', { messageId: 'x', receivedAt: gsonDate(h.clock.now()), sender: '900', phoneNumber: '900' }), dev.signingKey);
    expect([noText.status, noText.json.fault.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(noText.json.fault.detail).toMatch(/payload\.message/);
  });
});

describe('the app\'s signature', () => {
  let p: Pool;
  let dev: any;
  beforeAll(async () => {
    p = await pool([{ card: card(14), holder: 'D' }]);
    dev = await device(p);
  });
  const body = () => delivery('sms:received', smsReceived('Зачисление 10 ₽ по СБП от Иван И.'));

  it('a wrong key, a changed body, a stale or future time, missing headers: refused before anything is kept', async () => {
    const wrongKey = await post(p, dev.id, body(), 'dsk_not-the-key');
    expect([wrongKey.status, wrongKey.json.fault.code]).toEqual([401, 'AUTH_FAILED']);
    const b = body();
    const ts = Math.floor(h.clock.now() / 1000);
    const signed = createHmac('sha256', dev.signingKey).update(b + ts).digest('hex');
    const tampered = await post(p, dev.id, b.replace('10 ₽', '99 ₽'), dev.signingKey, { signature: signed });
    expect([tampered.status, tampered.json.fault.code]).toEqual([401, 'AUTH_FAILED']);
    const stale = await post(p, dev.id, body(), dev.signingKey, { tsSec: ts - 301 });
    expect([stale.status, stale.json.fault.code]).toEqual([401, 'AUTH_TIMESTAMP_SKEW']);
    expect(stale.json.fault.detail).toMatch(/301 s/);
    const future = await post(p, dev.id, body(), dev.signingKey, { tsSec: ts + 3600 });
    expect(future.json.fault.code).toBe('AUTH_TIMESTAMP_SKEW');
    const bare = await fetch(`${origin}/providers/v1/${p.id}/devices/${dev.id}/sms-gateway`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body() });
    expect([bare.status, (await bare.json()).fault.code]).toEqual([401, 'AUTH_HEADERS_MISSING']);
    const otherDevice = await post(p, 'dev_nope', body(), dev.signingKey);
    expect([otherDevice.status, otherDevice.json.fault.code]).toEqual([401, 'AUTH_FAILED']);
    const devNow = (await adminCall(origin, 'GET', `/providers/${p.id}/devices`)).json.result[0];
    expect([devNow.messagesToday, devNow.lastSeenAt]).toEqual([0, null]);
  });

  it('a new key works at once and the old one fails at once', async () => {
    const rotated = await adminCall(origin, 'POST', `/devices/${dev.id}/signing-key`);
    expect(rotated.status, rotated.body).toBe(200);
    const key = rotated.json.result.signingKey;
    expect(key).not.toBe(dev.signingKey);
    expect((await post(p, dev.id, body(), dev.signingKey)).status).toBe(401);
    const ok = await post(p, dev.id, body(), key);
    expect(ok.status, ok.body).toBe(200);
    expect((await adminCall(origin, 'POST', '/devices/dev_nope/signing-key')).json.fault.code).toBe('DEVICE_NOT_FOUND');
    const audit = (await adminCall(origin, 'GET', `/audit?objectId=${dev.id}`)).json.result.items;
    expect(audit.map((a: any) => a.action)).toContain('device.signingKey');
    expect(JSON.stringify(audit)).not.toContain(key);
  });
});
