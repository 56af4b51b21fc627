/**
 * Device messages: the bank SMS and push notifications the phones on a pool's requisites forward
 * (`POST /providers/v1/{providerId}/messages`), read by templates into credits like any other
 * (source `device`, the message's id as the item's id: credits.ts `recordItems`), the devices
 * themselves (`dev_`: heartbeats, silence pausing their requisites) and the operator's templates
 * (`tpl_`). Every message is kept, whatever became of it: a credit, skipped (a debit, a balance
 * notice, a one-time code) or unread, waiting for a person.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { isIsoCurrency } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { BUILT_IN_TEMPLATES, MESSAGE_TEXT_MAX, patternProblem, readAll, readFirst, type Reading, type TemplateKind, type TemplateSpec } from '../domain/messageText.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import { verifySignedHeaders } from '../providers/providerMessages.js';
import { utcDay } from '../providers/pool.js';
import { insertAuditEntries } from '../store/audit.js';
import type { Queryable } from '../store/db.js';
import { getProvider } from '../store/providers.js';
import { bookingDateTime } from './statements/fields.js';
import { FUTURE_SKEW_MS, parseItemList, poolProvider, recordItems, txWithRetry, type CreditInput } from './credits.js';
import * as ms from './messageStore.js';
import * as store from './store.js';

/** 1 to 500 messages in one request of at most 1 MiB, as the feed. */
export const MESSAGES_MAX_ITEMS = 500;

const silenceMs = (ctx: Ctx) => ctx.config.deviceSilenceMinutes * 60_000;

// ---- devices

export function deviceView(d: ms.DeviceRow, nowMs: number, silenceAfterMs: number, counts?: { today: number; unread: number }) {
  const heard = (d.last_seen_at ?? d.created_at).getTime();
  return {
    id: d.id,
    providerId: d.provider_id,
    name: d.name,
    requisiteIds: d.requisite_ids,
    lastSeenAt: d.last_seen_at ? isoSeconds(d.last_seen_at) : null,
    // Read from the last sighting, as issuing an order reads it, not from the watch's last pass.
    state: (nowMs - heard > silenceAfterMs ? 'silent' : 'active') as ms.DeviceState,
    messagesToday: counts?.today ?? 0,
    unread: counts?.unread ?? 0,
    createdAt: isoSeconds(d.created_at),
  };
}
export type DeviceView = ReturnType<typeof deviceView>;

function deviceName(v: unknown): string {
  if (typeof v !== 'string' || v.trim().length === 0 || v.length > 100 || /[\u0000-\u001f]/.test(v)) throw new AppError('VALIDATION_ERROR', 'name: must be 1 to 100 characters, on one line');
  return v.trim();
}

async function checkRequisiteIds(q: Queryable, providerId: string, v: unknown): Promise<string[]> {
  if (!Array.isArray(v) || v.length > 100 || v.some((x) => typeof x !== 'string')) throw new AppError('VALIDATION_ERROR', 'requisiteIds: must be an array of up to 100 requisite ids');
  const ids = [...new Set(v as string[])];
  const found = new Set(await ms.requisitesOfProvider(q, providerId, ids));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw new AppError('REQUISITE_NOT_FOUND', `requisiteIds: not requisites of ${providerId}: ${missing.slice(0, 10).join(', ')}`);
  return ids;
}

export async function viewsOf(ctx: Ctx, providerId: string, rows: ms.DeviceRow[]): Promise<DeviceView[]> {
  const now = ctx.clock.now();
  const counts = await ms.deviceMessageCounts(ctx.db, providerId, utcDay(now).start);
  return rows.map((d) => deviceView(d, now, silenceMs(ctx), counts.get(d.id)));
}

/**
 * A device's own signing key, for a forwarding app on the phone that signs its deliveries itself
 * (phoneApp.ts): `dsk_` and 32 characters a person can type into the app's settings, 192 bits.
 */
export function newDeviceSigningKey(): string {
  return `dsk_${randomBytes(24).toString('base64url')}`;
}

export type DeviceWithKey = DeviceView & { signingKey: string };

/** `POST /admin/v1/providers/{id}/devices`: a phone that forwards the messages of these requisites; silent from the start until heard from within the silence. Its signing key is in this answer only. */
export async function createDevice(ctx: Ctx, providerId: string, input: { name: unknown; requisiteIds: unknown }): Promise<DeviceWithKey> {
  return ctx.db.tx(async (q) => {
    const provider = await poolProvider(q, providerId);
    const name = deviceName(input.name);
    const requisiteIds = await checkRequisiteIds(q, provider.id, input.requisiteIds);
    const at = new Date(ctx.clock.now());
    const id = newHistoryId('dev', at.getTime());
    const signingKey = newDeviceSigningKey();
    await ms.insertDevice(q, { id, providerId: provider.id, name, requisiteIds, at });
    await ms.setDeviceSigningKey(q, id, ctx.box.seal(signingKey), at);
    return { ...deviceView((await ms.getDevice(q, id))!, at.getTime(), silenceMs(ctx)), signingKey };
  });
}

/** `POST /admin/v1/devices/{id}/signing-key`: a new signing key, in this answer only; the old one fails at once. */
export async function rotateDeviceSigningKey(ctx: Ctx, id: string): Promise<DeviceWithKey> {
  return ctx.db.tx(async (q) => {
    const d = await ms.getDevice(q, id);
    if (!d) throw new AppError('DEVICE_NOT_FOUND', `no device ${id}`);
    const at = new Date(ctx.clock.now());
    const signingKey = newDeviceSigningKey();
    await ms.setDeviceSigningKey(q, id, ctx.box.seal(signingKey), at);
    const counts = await ms.deviceMessageCounts(q, d.provider_id, utcDay(at.getTime()).start);
    return { ...deviceView((await ms.getDevice(q, id))!, at.getTime(), silenceMs(ctx), counts.get(id)), signingKey };
  });
}

export async function listDeviceViews(ctx: Ctx, providerId: string): Promise<DeviceView[]> {
  const provider = await poolProvider(ctx.db, providerId);
  return viewsOf(ctx, provider.id, await ms.listDevices(ctx.db, provider.id));
}

/** `PATCH /admin/v1/devices/{id}`: its name, or the requisites it forwards for (the whole list). */
export async function patchDevice(ctx: Ctx, id: string, input: { name?: unknown; requisiteIds?: unknown }): Promise<DeviceView> {
  return ctx.db.tx(async (q) => {
    const d = await ms.getDevice(q, id);
    if (!d) throw new AppError('DEVICE_NOT_FOUND', `no device ${id}`);
    const at = new Date(ctx.clock.now());
    if (input.name !== undefined) await ms.updateDeviceName(q, id, deviceName(input.name), at);
    if (input.requisiteIds !== undefined) await ms.setDeviceRequisites(q, id, await checkRequisiteIds(q, d.provider_id, input.requisiteIds));
    const counts = await ms.deviceMessageCounts(q, d.provider_id, utcDay(at.getTime()).start);
    return deviceView((await ms.getDevice(q, id))!, at.getTime(), silenceMs(ctx), counts.get(id));
  });
}

/** A device heard from now: its sighting moves on, and a return from silence is audited (its requisites take orders again). */
export async function heardFrom(q: Queryable, ctx: Ctx, providerId: string, deviceIds: readonly string[]): Promise<Set<string>> {
  const at = new Date(ctx.clock.now());
  const known = new Set<string>();
  const back: string[] = [];
  // Sorted, so two requests naming the same devices lock them in one order.
  for (const id of [...new Set(deviceIds)].sort()) {
    const seen = await ms.markDeviceSeen(q, providerId, id, at);
    if (seen.known) known.add(id);
    if (seen.wasSilent) back.push(id);
    // Silent since its last sighting plus the silence, whether or not the watch came by meanwhile: the day report's record.
    if (seen.heardBefore && at.getTime() - seen.heardBefore.getTime() > silenceMs(ctx)) {
      await ms.closeSilence(q, { id, providerId, startedAt: new Date(seen.heardBefore.getTime() + silenceMs(ctx)), at });
    }
  }
  await insertAuditEntries(q, back.map((id) => ({ at, actor: 'device-watch', action: 'device.heard', objectId: id, outcome: 'ok', detail: 'heard from again: its requisites take new orders' })));
  return known;
}

/** Of these requisites, those a silent device forwards for: no order goes to them (read at issue time). */
export async function silentRequisites(ctx: Ctx, q: Queryable, requisiteIds: readonly string[]): Promise<Set<string>> {
  return ms.requisitesOfSilentDevices(q, requisiteIds, new Date(ctx.clock.now() - silenceMs(ctx)));
}

// ---- signed requests of devices

const DECOY = { key: `decoy_${randomBytes(16).toString('hex')}`, secret: randomBytes(32).toString('hex') };

/** The provider's signature over the raw bytes, as the feed's: an unknown provider fails exactly like a wrong key. */
async function verifyDeviceRequest(ctx: Ctx, providerId: string, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<{ ok: true; providerId: string } | { ok: false; detail: string }> {
  const provider = await getProvider(ctx.db, providerId);
  const creds = provider?.kind === 'pool' && provider.api_key !== null && provider.secret_enc !== null ? { key: provider.api_key, secret: ctx.box.open(provider.secret_enc) } : null;
  const verdict = verifySignedHeaders({ headers, rawBody: raw, expectedKey: creds?.key ?? DECOY.key, secret: creds?.secret ?? DECOY.secret, nowMs: ctx.clock.now() });
  if (!verdict.ok || !provider || !creds) {
    ctx.log.warn({ providerId, reason: verdict.ok ? 'not a pool provider with credentials' : verdict.reason }, 'device request refused');
    return { ok: false, detail: verdict.ok ? 'key or signature mismatch' : verdict.reason };
  }
  return { ok: true, providerId: provider.id };
}

export type DeviceResult<T> = { ok: true; value: T } | { ok: false; code: 'AUTH_FAILED' | 'VALIDATION_ERROR' | 'DEVICE_NOT_FOUND'; detail: string };

/** `POST /providers/v1/{providerId}/devices/{deviceId}/heartbeat`: signed, an empty body (or `{}`). */
export async function receiveHeartbeat(ctx: Ctx, providerId: string, deviceId: string, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<DeviceResult<DeviceView>> {
  const auth = await verifyDeviceRequest(ctx, providerId, headers, raw);
  if (!auth.ok) return { ok: false, code: 'AUTH_FAILED', detail: auth.detail };
  const body = raw.toString('utf8').trim();
  if (body !== '' && body !== '{}') return { ok: false, code: 'VALIDATION_ERROR', detail: 'a heartbeat has an empty body' };
  const known = await ctx.db.tx((q) => heardFrom(q, ctx, auth.providerId, [deviceId]));
  if (!known.has(deviceId)) return { ok: false, code: 'DEVICE_NOT_FOUND', detail: `no device ${deviceId} of ${providerId}` };
  const [view] = await viewsOf(ctx, auth.providerId, [(await ms.getDevice(ctx.db, deviceId))!]);
  return { ok: true, value: view };
}

// ---- messages

/** One message as a device sends it, checked. */
export interface MessageInput {
  id: string;
  deviceId: string;
  sender: string;
  text: string;
  receivedAt: Date;
  textSha256: string;
}

const MESSAGE_FIELDS = new Set(['id', 'deviceId', 'sender', 'text', 'receivedAt']);

/** Characters as people count them (an emoji is one), so a 2,000-character text of any script fits. */
const codePoints = (s: string) => [...s].length;

export function field(v: unknown, at: string, max: number): string {
  if (typeof v !== 'string' || v.length === 0 || codePoints(v) > max) throw new AppError('VALIDATION_ERROR', `${at}: must be a string of 1 to ${max} characters`);
  if (v.includes('\0')) throw new AppError('VALIDATION_ERROR', `${at}: must not contain NUL`);
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(v)) throw new AppError('VALIDATION_ERROR', `${at}: has a lone surrogate`);
  return v;
}

/** The body checked whole: one bad message refuses the request, nothing kept (the sender fixes and sends again). */
export function parseMessages(raw: Buffer): MessageInput[] {
  return parseItemList(raw, 'messages', MESSAGES_MAX_ITEMS).map((item, i) => {
    const at = `messages[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new AppError('VALIDATION_ERROR', `${at}: must be an object`);
    const o = item as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !MESSAGE_FIELDS.has(k));
    if (extra.length) throw new AppError('VALIDATION_ERROR', `${at}: unknown property: ${extra.slice(0, 10).join(', ')}`);
    if (typeof o.receivedAt !== 'string') throw new AppError('VALIDATION_ERROR', `${at}.receivedAt: must be an ISO 8601 date-time with a zone`);
    const when = bookingDateTime(o.receivedAt, 'refuse');
    if (!when.ok) throw new AppError('VALIDATION_ERROR', `${at}.receivedAt: ${when.why}`);
    const text = field(o.text, `${at}.text`, MESSAGE_TEXT_MAX);
    return {
      id: field(o.id, `${at}.id`, 255),
      deviceId: field(o.deviceId, `${at}.deviceId`, 255),
      sender: field(o.sender, `${at}.sender`, 255),
      text,
      receivedAt: new Date(when.value.receivedAt),
      textSha256: createHash('sha256').update(text).digest('hex'),
    };
  });
}

/** The templates a provider's messages are read with: its own, then the shared ones, then the built-in ones. */
async function templatesFor(q: Queryable, providerId: string | null): Promise<TemplateSpec[]> {
  const own = (await ms.listTemplates(q, { providerId, enabledOnly: true })).map(specOf);
  return [...own, ...BUILT_IN_TEMPLATES];
}

const specOf = (t: ms.TemplateRow): TemplateSpec => ({ id: t.id, name: t.name, sender: t.sender, pattern: t.pattern, kind: t.kind, currency: t.currency });

/** What a message becomes before its credit is recorded. */
type Verdict =
  | { outcome: 'credit'; templateId: string; credit: CreditInput; warning: string | null }
  | { outcome: 'skipped' | 'unread'; templateId: string | null; reason: string };

/**
 * Reads one message: an unknown device's is unread; the first template that reads it decides
 * (a debit or a notice is skipped; a credit needs an amount, a currency and an account: the text's,
 * else the device's one requisite's); none: unread. A device clock more than 5 minutes ahead is
 * not believed: the money arrived by the time the gateway heard of it.
 */
function judge(m: MessageInput, deviceKnown: boolean, readings: Reading[], deviceRequisites: { account: string | null; currency: string | null }[], nowMs: number): Verdict {
  if (!deviceKnown) return { outcome: 'unread', templateId: null, reason: 'unknown device' };
  const r = readings[0];
  if (!r) return { outcome: 'unread', templateId: null, reason: 'no template reads it' };
  if (r.kind !== 'credit') return { outcome: 'skipped', templateId: r.templateId, reason: `${r.kind === 'debit' ? 'a debit' : 'not money'}: ${r.templateName}` };
  if (r.problem) return { outcome: 'unread', templateId: r.templateId, reason: `${r.templateName}: ${r.problem}` };
  const only = deviceRequisites.length === 1 ? deviceRequisites[0] : null;
  const account = r.account ?? only?.account ?? null;
  if (account === null) return { outcome: 'unread', templateId: r.templateId, reason: 'account not shown, and the device forwards for more than one requisite' };
  const currency = r.currency ?? only?.currency ?? null;
  if (currency === null || !isIsoCurrency(currency)) return { outcome: 'unread', templateId: r.templateId, reason: 'currency not shown, and the requisite takes any' };
  const ahead = m.receivedAt.getTime() > nowMs + FUTURE_SKEW_MS;
  return {
    outcome: 'credit',
    templateId: r.templateId,
    warning: ahead ? 'DEVICE_CLOCK_AHEAD' : null,
    credit: {
      sourceId: m.id,
      account,
      amount: r.amount!,
      currency,
      receivedAt: ahead ? new Date(nowMs) : m.receivedAt,
      dateOnly: false,
      payer: r.fields.payer ?? null,
      reference: r.fields.reference ?? null,
      bankReference: r.fields.bankReference ?? null,
    },
  };
}

export interface MessageAnswer {
  id: string;
  messageId: string;
  outcome: 'credit' | 'skipped' | 'unread';
  reason: string | null;
  creditId: string | null;
  status: store.CreditStatus | null;
  orderId: string | null;
  duplicate: boolean;
  duplicateOf: string | null;
  warnings: string[];
}

const outcomeOf = (m: ms.MessageRow): MessageAnswer['outcome'] => (m.outcome === 'done' ? (m.credit_id ? 'credit' : 'skipped') : m.outcome);

/**
 * `POST /providers/v1/{providerId}/messages`: signature over the raw bytes, the body checked whole,
 * then in one transaction every device named heard from, each message read, its credits recorded
 * and matched together (credits.ts `recordItems`, source `device`, the message's id as the item's
 * id) and every message kept. A message sent before with the same id and text answers
 * `duplicate: true` with what it became, its credit as it is now.
 */
export async function receiveMessages(ctx: Ctx, providerId: string, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<DeviceResult<MessageAnswer[]>> {
  const auth = await verifyDeviceRequest(ctx, providerId, headers, raw);
  if (!auth.ok) return { ok: false, code: 'AUTH_FAILED', detail: auth.detail };
  let items: MessageInput[];
  try {
    items = parseMessages(raw);
  } catch (err) {
    if (err instanceof AppError) return { ok: false, code: 'VALIDATION_ERROR', detail: err.detail ?? 'bad body' };
    throw err;
  }
  return { ok: true, value: await readMessages(ctx, auth.providerId, items) };
}

/** At most this many messages are read in one transaction when requests are grouped. */
export const MESSAGE_GROUP_MAX = 500;

interface WaitingRequest {
  items: MessageInput[];
  resolve: (answers: MessageAnswer[]) => void;
  reject: (err: unknown) => void;
}
interface ProviderQueue {
  running: boolean;
  waiting: WaitingRequest[];
}
/** Per process and provider: the requests waiting while a group of messages is being read. */
const queues = new WeakMap<Ctx, Map<string, ProviderQueue>>();

/**
 * Messages already authenticated and checked, read with the messages of other requests of the same
 * pool that arrive meanwhile (a group commit): the first is read at once, and requests arriving while
 * a group is read go together in the next transaction, up to MESSAGE_GROUP_MAX messages. Phones send
 * one text per request; reading them one transaction each costs the database most of the work.
 * Each request gets its own answers, in its order. Also what the forwarding app's deliveries come to
 * (phoneApp.ts).
 */
export function readMessages(ctx: Ctx, pid: string, items: MessageInput[]): Promise<MessageAnswer[]> {
  let byProvider = queues.get(ctx);
  if (!byProvider) queues.set(ctx, (byProvider = new Map()));
  let queue = byProvider.get(pid);
  if (!queue) byProvider.set(pid, (queue = { running: false, waiting: [] }));
  const answered = new Promise<MessageAnswer[]>((resolve, reject) => queue.waiting.push({ items, resolve, reject }));
  if (!queue.running) void readQueued(ctx, pid, queue);
  return answered;
}

async function readQueued(ctx: Ctx, pid: string, queue: ProviderQueue): Promise<void> {
  queue.running = true;
  try {
    while (queue.waiting.length > 0) {
      const group: WaitingRequest[] = [];
      let n = 0;
      while (queue.waiting.length > 0 && (group.length === 0 || n + queue.waiting[0]!.items.length <= MESSAGE_GROUP_MAX)) {
        const w = queue.waiting.shift()!;
        group.push(w);
        n += w.items.length;
      }
      try {
        const answers = await readMessagesTogether(ctx, pid, group.flatMap((w) => w.items));
        let k = 0;
        for (const w of group) {
          w.resolve(answers.slice(k, k + w.items.length));
          k += w.items.length;
        }
      } catch (err) {
        // A group that failed is read again request by request, so a failure is only its own request's.
        if (group.length === 1) group[0]!.reject(err);
        else for (const w of group) await readMessagesTogether(ctx, pid, w.items).then(w.resolve, w.reject);
      }
    }
  } finally {
    queue.running = false;
  }
}

/**
 * Messages read in one transaction: every device named heard from, each message read, its credits
 * recorded and matched together and every message kept.
 */
async function readMessagesTogether(ctx: Ctx, pid: string, items: MessageInput[]): Promise<MessageAnswer[]> {
  const answers = await txWithRetry(ctx, async (q) => {
    const nowMs = ctx.clock.now();
    const at = new Date(nowMs);
    const known = await heardFrom(q, ctx, pid, items.map((m) => m.deviceId));
    const before = new Map((await ms.messagesByIds(q, pid, items.map((m) => ({ messageId: m.id, textSha256: m.textSha256 })))).map((m) => [`${m.message_id}\u0000${m.text_sha256}`, m]));
    const templates = await templatesFor(q, pid);
    const requisitesOf = new Map<string, { account: string | null; currency: string | null }[]>();
    for (const d of known) requisitesOf.set(d, await ms.requisiteAccountsOfDevice(q, d));

    // Each (id, text) once: a repeat in the list or from before answers as the first.
    const firstOf = new Map<string, number>();
    const verdicts = items.map((m, i) => {
      const key = `${m.id}\u0000${m.textSha256}`;
      if (before.has(key) || firstOf.has(key)) return null;
      firstOf.set(key, i);
      return judge(m, known.has(m.deviceId), readFirst(templates, m.sender, m.text), requisitesOf.get(m.deviceId) ?? [], nowMs);
    });
    const creditIdx = verdicts.flatMap((v, i) => (v?.outcome === 'credit' ? [i] : []));
    const recorded = await recordItems(q, ctx, pid, creditIdx.map((i) => (verdicts[i] as Extract<Verdict, { outcome: 'credit' }>).credit), 'device');
    const recordedOf = new Map(creditIdx.map((i, k) => [i, recorded[k]]));

    const rows = new Map<number, ms.MessageRow>();
    for (const [i, v] of verdicts.entries()) {
      if (!v) continue;
      const m = items[i];
      const row: ms.MessageRow = {
        id: newHistoryId('msg', nowMs), provider_id: pid, message_id: m.id, text_sha256: m.textSha256, device_id: m.deviceId, device_known: known.has(m.deviceId),
        sender: m.sender, text: m.text, received_at: m.receivedAt, outcome: v.outcome, reason: v.outcome === 'credit' ? null : v.reason,
        template_id: v.templateId, credit_id: recordedOf.get(i)?.credit.id ?? null, created_at: at,
      };
      // Inserted meanwhile by another request: run the transaction again, and it answers a repeat.
      if (!(await ms.insertMessage(q, { ...row, at }))) throw Object.assign(new Error('message recorded meanwhile'), { code: '40001' });
      rows.set(i, row);
    }
    const creditsNow = new Map((await store.creditsByIds(q, [...before.values()].flatMap((m) => (m.credit_id ? [m.credit_id] : [])))).map((c) => [c.id, c]));
    return items.map((m, i): MessageAnswer => {
      const v = verdicts[i];
      if (!v) {
        const first = before.get(`${m.id}\u0000${m.textSha256}`) ?? rows.get(firstOf.get(`${m.id}\u0000${m.textSha256}`)!)!;
        const credit = first.credit_id ? (creditsNow.get(first.credit_id) ?? recordedOf.get(firstOf.get(`${m.id}\u0000${m.textSha256}`) ?? -1)?.credit ?? null) : null;
        return { id: m.id, messageId: first.id, outcome: outcomeOf(first), reason: first.reason, creditId: first.credit_id, status: credit?.status ?? null, orderId: credit?.order_id ?? null, duplicate: true, duplicateOf: first.credit_id, warnings: [] };
      }
      const rec = recordedOf.get(i);
      return {
        id: m.id,
        messageId: rows.get(i)!.id,
        outcome: v.outcome,
        reason: v.outcome === 'credit' ? null : v.reason,
        creditId: rec?.credit.id ?? null,
        status: rec?.credit.status ?? null,
        orderId: rec?.credit.order_id ?? null,
        duplicate: rec?.duplicate ?? false,
        duplicateOf: rec?.duplicateOf ?? null,
        warnings: [...(rec?.warnings ?? []), ...(v.outcome === 'credit' && v.warning ? [v.warning] : [])],
      };
    });
  });
  ctx.log.info({ providerId: pid, messages: items.length, credits: answers.filter((a) => a.outcome === 'credit' && !a.duplicate).length, unread: answers.filter((a) => a.outcome === 'unread').length }, 'device messages received');
  return answers;
}

export function messageView(m: ms.MessageRow) {
  return {
    id: m.id, providerId: m.provider_id, messageId: m.message_id, deviceId: m.device_id, deviceKnown: m.device_known, sender: m.sender, text: m.text,
    receivedAt: isoSeconds(m.received_at), outcome: m.outcome, reason: m.reason, templateId: m.template_id, creditId: m.credit_id, createdAt: isoSeconds(m.created_at),
  };
}

export async function getMessageView(ctx: Ctx, id: string) {
  const m = await ms.getMessage(ctx.db, id);
  if (!m) throw new AppError('VALIDATION_ERROR', `no message ${id}`);
  return messageView(m);
}

/** How many messages wait for a person (the navigation's count). */
export const unreadCount = (ctx: Ctx): Promise<number> => ms.unreadMessageCount(ctx.db);

export async function listUnread(ctx: Ctx, limit: number) {
  return (await ms.listUnreadMessages(ctx.db, limit)).map(messageView);
}

/** A person dealt with an unread message (a credit entered by hand from it): it leaves the queue, audited by the caller. */
export async function closeMessage(ctx: Ctx, id: string, creditId: string | null, reason: string): Promise<boolean> {
  return ms.markMessageDone(ctx.db, id, creditId, reason);
}

// ---- templates

export function templateView(t: ms.TemplateRow | TemplateSpec) {
  const row = 'enabled' in t ? t : null;
  return {
    id: t.id,
    name: t.name,
    providerId: row?.provider_id ?? null,
    sender: t.sender,
    pattern: t.pattern,
    kind: t.kind,
    currency: t.currency,
    enabled: row?.enabled ?? true,
    builtIn: row === null,
    createdAt: row ? isoSeconds(row.created_at) : null,
    updatedAt: row ? isoSeconds(row.updated_at) : null,
  };
}
export type TemplateView = ReturnType<typeof templateView>;

const KINDS = new Set<TemplateKind>(['credit', 'debit', 'other']);

interface TemplateInput {
  name?: unknown;
  providerId?: unknown;
  sender?: unknown;
  pattern?: unknown;
  kind?: unknown;
  currency?: unknown;
  enabled?: unknown;
}

/** A template's fields checked, over what it had (a new one has nothing). */
async function checkTemplate(q: Queryable, input: TemplateInput, was: ms.TemplateRow | null): Promise<Omit<ms.TemplateRow, 'id' | 'created_at' | 'updated_at'>> {
  const name = input.name === undefined && was ? was.name : input.name;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) throw new AppError('VALIDATION_ERROR', 'name: must be 1 to 100 characters');
  let providerId = input.providerId === undefined ? (was?.provider_id ?? null) : input.providerId;
  if (providerId !== null) {
    if (typeof providerId !== 'string') throw new AppError('VALIDATION_ERROR', 'providerId: must be a pool provider id or null');
    providerId = (await poolProvider(q, providerId)).id;
  }
  const sender = input.sender === undefined ? (was?.sender ?? null) : input.sender;
  if (sender !== null) {
    if (typeof sender !== 'string') throw new AppError('VALIDATION_ERROR', 'sender: must be a pattern or null');
    const p = patternProblem(sender, false);
    if (p) throw new AppError('VALIDATION_ERROR', `sender: ${p}`);
  }
  const pattern = input.pattern === undefined && was ? was.pattern : input.pattern;
  if (typeof pattern !== 'string') throw new AppError('VALIDATION_ERROR', 'pattern: must be a pattern with named groups among the fields');
  const problem = patternProblem(pattern, true);
  if (problem) throw new AppError('VALIDATION_ERROR', `pattern: ${problem}`);
  const kind = input.kind === undefined && was ? was.kind : input.kind;
  if (typeof kind !== 'string' || !KINDS.has(kind as TemplateKind)) throw new AppError('VALIDATION_ERROR', 'kind: must be credit, debit or other');
  const currency = input.currency === undefined ? (was?.currency ?? null) : input.currency;
  if (currency !== null && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency) || !isIsoCurrency(currency))) throw new AppError('VALIDATION_ERROR', 'currency: must be an ISO 4217 code or null');
  const enabled = input.enabled === undefined ? (was?.enabled ?? true) : input.enabled;
  if (typeof enabled !== 'boolean') throw new AppError('VALIDATION_ERROR', 'enabled: must be true or false');
  return { provider_id: providerId as string | null, name: name.trim(), sender: sender as string | null, pattern, kind: kind as TemplateKind, currency: currency as string | null, enabled };
}

export async function createTemplate(ctx: Ctx, input: TemplateInput): Promise<TemplateView> {
  return ctx.db.tx(async (q) => {
    const t = await checkTemplate(q, input, null);
    const at = new Date(ctx.clock.now());
    const id = newHistoryId('tpl', at.getTime());
    await ms.insertTemplate(q, { ...t, id, at });
    return templateView((await ms.getTemplate(q, id))!);
  });
}

export async function patchTemplate(ctx: Ctx, id: string, input: TemplateInput): Promise<TemplateView> {
  if (BUILT_IN_TEMPLATES.some((t) => t.id === id)) throw new AppError('TEMPLATE_BUILT_IN', `${id} is built in; write a template of your own (it is read before the built-in ones)`);
  return ctx.db.tx(async (q) => {
    const was = await ms.getTemplate(q, id);
    if (!was) throw new AppError('TEMPLATE_NOT_FOUND', `no template ${id}`);
    const t = await checkTemplate(q, input, was);
    await ms.updateTemplate(q, { ...t, id, at: new Date(ctx.clock.now()) });
    return templateView((await ms.getTemplate(q, id))!);
  });
}

export async function getTemplateView(ctx: Ctx, id: string): Promise<TemplateView> {
  const builtIn = BUILT_IN_TEMPLATES.find((t) => t.id === id);
  if (builtIn) return templateView(builtIn);
  const t = await ms.getTemplate(ctx.db, id);
  if (!t) throw new AppError('TEMPLATE_NOT_FOUND', `no template ${id}`);
  return templateView(t);
}

/** Operators' templates (a provider's own first), then the built-in ones, in the order messages are read with them. */
export async function listTemplateViews(ctx: Ctx, providerId: string | null): Promise<TemplateView[]> {
  if (providerId !== null) await poolProvider(ctx.db, providerId);
  return [...(await ms.listTemplates(ctx.db, { providerId, enabledOnly: false })).map(templateView), ...BUILT_IN_TEMPLATES.map(templateView)];
}

/**
 * `POST /admin/v1/message-templates/try`: what each enabled template reads of a text, in reading
 * order, and what the message would become (the first reading decides). With `template`, that
 * unsaved template is tried first, as the back office's preview does.
 */
export async function tryTemplates(ctx: Ctx, input: { sender?: unknown; text?: unknown; providerId?: unknown; template?: TemplateInput }) {
  const sender = input.sender === undefined || input.sender === null ? '' : input.sender;
  if (typeof sender !== 'string' || codePoints(sender) > 255) throw new AppError('VALIDATION_ERROR', 'sender: must be a string of up to 255 characters');
  const text = field(input.text, 'text', MESSAGE_TEXT_MAX);
  const providerId = input.providerId === undefined || input.providerId === null ? null : typeof input.providerId === 'string' ? (await poolProvider(ctx.db, input.providerId)).id : null;
  const draft = input.template ? { ...(await checkTemplate(ctx.db, input.template, null)), id: 'draft' } : null;
  const templates = [...(draft ? [{ ...specOf({ ...draft, created_at: new Date(0), updated_at: new Date(0) }), name: draft.name }] : []), ...(await templatesFor(ctx.db, providerId))];
  const readings = readAll(templates, sender, text);
  const first = readings[0];
  const becomes = !first ? 'unread' : first.kind !== 'credit' ? 'skipped' : first.problem ? 'unread' : 'credit';
  return {
    becomes,
    readings: readings.map((r) => ({
      templateId: r.templateId, name: r.templateName, kind: r.kind, builtIn: BUILT_IN_TEMPLATES.some((t) => t.id === r.templateId),
      amount: r.amount, currency: r.currency, account: r.account, payer: r.fields.payer ?? null, reference: r.fields.reference ?? null,
      bankReference: r.fields.bankReference ?? null, balance: r.fields.balance ?? null, problem: r.problem,
    })),
  };
}
