/**
 * A forwarding app on the phone that speaks for itself: "SMS Gateway for Android"
 * (`me.capcom.smsgateway`, open source, Apache-2.0). Its webhooks are taken as they are at
 * `POST /providers/v1/{providerId}/devices/{deviceId}/sms-gateway`, so an operator needs no relay
 * of their own: the app's `sms:received` becomes a device message (read by the templates like any
 * other: messages.ts `readMessages`), its `system:ping` a heartbeat.
 *
 * The app's signing: `X-Timestamp` is Unix seconds and `X-Signature` the lowercase hex
 * HMAC-SHA256, keyed with the app's signing key as UTF-8, of the body's text followed directly by
 * the timestamp's digits (no separator). The key is the device's own (`dsk_…`, messages.ts
 * `newDeviceSigningKey`), typed into the app's settings; the body is the app's JSON
 * `{id, webhookId, event, deviceId, payload}` (Gson: dates `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, nulls
 * left out, `=`, `<`, `>`, `&` and `'` written as `\u00XX` escapes).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { MESSAGE_TEXT_MAX } from '../domain/messageText.js';
import { parseStrictJson } from '../json.js';
import { bookingDateTime } from './statements/fields.js';
import { txWithRetry } from './credits.js';
import * as ms from './messageStore.js';
import { field, heardFrom, readMessages, viewsOf, type DeviceView, type MessageAnswer, type MessageInput } from './messages.js';

/** The last part of the app's path: the app's own name. */
export const APP_PATH = 'sms-gateway';
/** A delivery signed more than this far from the gateway's clock is refused (the app's own advice: 5 minutes). */
export const APP_MAX_SKEW_SEC = 300;

/** Every event the app sends (its `WebHookEvent`); those but the first two carry no bank money and are acknowledged. */
const APP_EVENTS = new Set(['sms:received', 'system:ping', 'sms:sent', 'sms:delivered', 'sms:failed', 'sms:cancelled', 'sms:data-received', 'mms:received', 'mms:downloaded', 'app:started']);

type Headers = Record<string, string | string[] | undefined>;
type Refused = { ok: false; code: ErrorCode; detail: string };

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const SIGNATURE = /^[0-9a-fA-F]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

/** What the headers alone say, before a byte of the body is read: both present and well formed, the time within the skew. */
function checkHeaders(h: Headers, nowMs: number): { ok: true; ts: string; signature: string } | Refused {
  const signature = header(h, 'x-signature');
  const ts = header(h, 'x-timestamp');
  if (signature === undefined || ts === undefined) return { ok: false, code: 'AUTH_HEADERS_MISSING', detail: 'X-Signature and X-Timestamp are required: the app signs every delivery with the signing key in its settings' };
  if (!TIMESTAMP.test(ts)) return { ok: false, code: 'AUTH_TIMESTAMP_INVALID', detail: 'X-Timestamp must be Unix seconds' };
  const skew = Math.round(Math.abs(nowMs / 1000 - Number(ts)));
  if (skew > APP_MAX_SKEW_SEC) return { ok: false, code: 'AUTH_TIMESTAMP_SKEW', detail: `X-Timestamp is ${skew} s from the gateway's clock (at most ${APP_MAX_SKEW_SEC}): set the phone's date and time to automatic` };
  if (!SIGNATURE.test(signature)) return { ok: false, code: 'AUTH_FAILED', detail: 'X-Signature must be 64 hexadecimal digits' };
  return { ok: true, ts, signature: signature.toLowerCase() };
}

const DECOY_KEY = randomBytes(24).toString('base64url');
const NO_KEY = 'unknown device, or a signature that does not match its signing key';

/** The device's key, opened; null (with the decoy used in its place) when the provider has no such device or it has no key yet. */
async function keyOf(ctx: Ctx, providerId: string, deviceId: string): Promise<{ key: string | null; why: string }> {
  const d = await ms.deviceSigningKey(ctx.db, providerId, deviceId);
  if (!d) return { key: null, why: NO_KEY };
  if (d.sealed === null) return { key: null, why: `device ${deviceId} has no signing key yet: issue one (POST /admin/v1/devices/${deviceId}/signing-key) and type it into the app` };
  return { key: ctx.box.open(d.sealed), why: NO_KEY };
}

/** For the route's check before the body: the headers, and a device of the provider with a key. */
export async function precheckAppDelivery(ctx: Ctx, providerId: string, deviceId: string, h: Headers): Promise<{ ok: true } | Refused> {
  const headers = checkHeaders(h, ctx.clock.now());
  if (!headers.ok) return refuse(ctx, providerId, deviceId, headers);
  const { key, why } = await keyOf(ctx, providerId, deviceId);
  if (key === null) return refuse(ctx, providerId, deviceId, { ok: false, code: 'AUTH_FAILED', detail: why });
  return { ok: true };
}

function refuse(ctx: Ctx, providerId: string, deviceId: string, r: Refused): Refused {
  ctx.log.warn({ providerId, deviceId, code: r.code, reason: r.detail }, 'forwarding app delivery refused');
  return r;
}

/** The app's signature: hex HMAC-SHA256 over the body's bytes followed by the timestamp's, compared in constant time. */
export function appSignature(key: string, raw: Buffer, ts: string): string {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(raw).update(ts, 'utf8').digest('hex');
}

async function verify(ctx: Ctx, providerId: string, deviceId: string, h: Headers, raw: Buffer): Promise<{ ok: true } | Refused> {
  const headers = checkHeaders(h, ctx.clock.now());
  if (!headers.ok) return refuse(ctx, providerId, deviceId, headers);
  const { key, why } = await keyOf(ctx, providerId, deviceId);
  // Computed with a decoy key too, so an unknown device takes the time a wrong signature takes.
  const expected = Buffer.from(appSignature(key ?? DECOY_KEY, raw, headers.ts), 'hex');
  const matches = timingSafeEqual(expected, Buffer.from(headers.signature, 'hex'));
  if (key === null || !matches) return refuse(ctx, providerId, deviceId, { ok: false, code: 'AUTH_FAILED', detail: key === null ? why : NO_KEY });
  return { ok: true };
}

export interface AppAnswer {
  /** The app's event. */
  event: string;
  /** `message`: an SMS read as a device message; `heartbeat`: a ping; `ignored`: an event that carries no bank money (the device is heard from all the same). */
  outcome: 'message' | 'heartbeat' | 'ignored';
  message: MessageAnswer | null;
  device: DeviceView;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The app's `sms:received` payload as a device message; the message's id is the device's and the app's id of it. */
function messageOf(deviceId: string, payload: Record<string, unknown>): MessageInput {
  const messageId = field(payload.messageId, 'payload.messageId', 200);
  const sender = payload.sender ?? payload.phoneNumber;
  if (typeof payload.receivedAt !== 'string') throw new AppError('VALIDATION_ERROR', 'payload.receivedAt: must be an ISO 8601 date-time with a zone');
  const when = bookingDateTime(payload.receivedAt, 'refuse');
  if (!when.ok) throw new AppError('VALIDATION_ERROR', `payload.receivedAt: ${when.why}`);
  const text = field(payload.message, 'payload.message', MESSAGE_TEXT_MAX);
  return {
    id: `${deviceId}:${messageId}`,
    deviceId,
    sender: field(sender, 'payload.sender', 255),
    text,
    receivedAt: new Date(when.value.receivedAt),
    textSha256: createHash('sha256').update(text).digest('hex'),
  };
}

/** The body: the app's event and its payload. Fields the app may add later are let be (the format is the app's). */
function parseDelivery(raw: Buffer): { event: string; payload: Record<string, unknown> } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'body is not valid UTF-8');
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw new AppError('VALIDATION_ERROR', parsed.detail);
  const body = parsed.value;
  if (!isObject(body)) throw new AppError('VALIDATION_ERROR', 'body must be a JSON object');
  if (typeof body.event !== 'string') throw new AppError('VALIDATION_ERROR', 'event: must be one of the app\'s events, such as sms:received');
  if (!APP_EVENTS.has(body.event)) throw new AppError('VALIDATION_ERROR', `event: "${body.event.slice(0, 40)}" is not an event of the app; this endpoint reads sms:received and takes system:ping as a heartbeat`);
  const payload = body.payload ?? {};
  if (!isObject(payload)) throw new AppError('VALIDATION_ERROR', 'payload: must be an object');
  return { event: body.event, payload };
}

/**
 * `POST /providers/v1/{providerId}/devices/{deviceId}/sms-gateway`: the signature over the raw
 * bytes first (401 whatever the body), then the body (400), then the event: an SMS is read as the
 * device's message; any other event of the app is a sign of life (a ping by name).
 */
export async function receiveAppDelivery(ctx: Ctx, providerId: string, deviceId: string, h: Headers, raw: Buffer): Promise<{ ok: true; value: AppAnswer } | Refused> {
  const auth = await verify(ctx, providerId, deviceId, h, raw);
  if (!auth.ok) return auth;
  let delivery: ReturnType<typeof parseDelivery>;
  let message: MessageInput | null = null;
  try {
    delivery = parseDelivery(raw);
    if (delivery.event === 'sms:received') message = messageOf(deviceId, delivery.payload);
  } catch (err) {
    if (err instanceof AppError) return refuse(ctx, providerId, deviceId, { ok: false, code: 'VALIDATION_ERROR', detail: err.detail ?? 'bad body' });
    throw err;
  }
  let answer: MessageAnswer | null = null;
  if (message) [answer] = await readMessages(ctx, providerId, [message]);
  else await txWithRetry(ctx, (q) => heardFrom(q, ctx, providerId, [deviceId]));
  const [device] = await viewsOf(ctx, providerId, [(await ms.getDevice(ctx.db, deviceId))!]);
  const outcome = message ? 'message' : delivery.event === 'system:ping' ? 'heartbeat' : 'ignored';
  return { ok: true, value: { event: delivery.event, outcome, message: answer, device } };
}
