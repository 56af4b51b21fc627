import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { EVENT_KINDS } from '../domain/orders.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { newHistoryId, newId } from '../ids.js';
import { insertAuditEntry } from '../store/audit.js';
import { listDesks } from '../store/desks.js';
import type { Queryable } from '../store/db.js';
import * as store from '../store/webhookEndpoints.js';
import { newWebhookSecret } from '../callbacks/standardWebhooks.js';
import { checkUrlRules } from './callbackUrls.js';

/**
 * Webhook endpoints (Standard Webhooks): a merchant subscribes URLs of its own to its desks' events,
 * each with its own `whsec_` secret, from the signed API (any desk of the merchant) or the cabinet.
 * The spec's desk callbacks are untouched by them.
 */

/** The old secret keeps signing beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** How far back a recovery may reach. */
export const RECOVER_MAX_MS = 30 * 86_400_000;
export const WEBHOOK_DESCRIPTION_MAX = 500;
export const WEBHOOK_URL_MAX = 2048;
/** Event kinds an endpoint may take: the callbacks' kinds, or `*` for all of them. */
export const WEBHOOK_EVENT_KINDS: readonly string[] = [...EVENT_KINDS];
export const ATTEMPTS_PAGE_DEFAULT = 50;
export const ATTEMPTS_PAGE_MAX = 200;

export function endpointView(e: store.WebhookEndpointRow) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    desks: e.desks,
    description: e.description,
    enabled: e.enabled,
    disabledReason: e.disabled_reason,
    createdAt: isoSeconds(e.created_at),
    updatedAt: isoSeconds(e.updated_at),
  };
}
export type EndpointView = ReturnType<typeof endpointView>;

const refuse = (detail: string): never => {
  throw new AppError('VALIDATION_ERROR', detail);
};

export interface EndpointInput {
  url?: string;
  events?: readonly string[];
  desks?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean;
}

async function checkUrl(ctx: Ctx, raw: string): Promise<string> {
  if (raw.length > WEBHOOK_URL_MAX) refuse(`url: at most ${WEBHOOK_URL_MAX} characters`);
  const r = await checkUrlRules(ctx, raw);
  if (!r.ok) throw new AppError('INVALID_CALLBACK_URL', `url: ${r.reason}`);
  return r.url;
}

function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) refuse('events: name at least one event kind, or ["*"] for all');
  const out = [...new Set(events)];
  if (out.includes('*')) {
    if (out.length > 1) refuse('events: "*" takes every kind; list it alone');
    return out;
  }
  for (const e of out) if (!WEBHOOK_EVENT_KINDS.includes(e)) refuse(`events: unknown event kind ${JSON.stringify(e).slice(0, 80)}; one of ${WEBHOOK_EVENT_KINDS.join(', ')}, or "*"`);
  return out;
}

async function checkDesks(q: Queryable, merchantId: string, desks: readonly string[] | null): Promise<string[] | null> {
  if (desks === null) return null;
  if (desks.length === 0) refuse('desks: name at least one desk, or null for every desk');
  const own = new Set((await listDesks(q, { merchantId, limit: 10_000 })).map((d) => d.id));
  const out = [...new Set(desks)];
  for (const d of out) if (!own.has(d)) refuse(`desks: ${JSON.stringify(d).slice(0, 80)} is not a desk of this merchant`);
  return out;
}

function checkDescription(d: string | null | undefined): string | null {
  if (d === undefined || d === null) return null;
  if (d.length > WEBHOOK_DESCRIPTION_MAX) refuse(`description: at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
  return d;
}

async function mustGet(q: Queryable, merchantId: string, id: string): Promise<store.WebhookEndpointRow> {
  const e = await store.getEndpoint(q, merchantId, id);
  if (!e) throw new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id.slice(0, 64)}`);
  return e;
}

const audit = (q: Queryable, ctx: Ctx, actor: string, action: string, id: string, detail: string | null = null) =>
  insertAuditEntry(q, { at: new Date(ctx.clock.now()), actor, action: `webhook-endpoint.${action}`, objectId: id, outcome: 'ok', detail });

/** Creates an endpoint; its secret is in this answer only. */
export async function createEndpoint(ctx: Ctx, merchantId: string, actor: string, input: EndpointInput & { url: string; events: readonly string[] }): Promise<EndpointView & { secret: string }> {
  const url = await checkUrl(ctx, input.url);
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  const secret = newWebhookSecret();
  const row = await ctx.db.tx(async (q) => {
    const desks = await checkDesks(q, merchantId, input.desks ?? null);
    const n = await store.countEndpointsLocked(q, merchantId);
    const max = ctx.config.webhookEndpointsPerMerchant;
    if (n >= max) throw new AppError('WEBHOOK_ENDPOINT_LIMIT_REACHED', `a merchant may have at most ${max} webhook endpoints; point one you no longer need at the new URL (PATCH)`);
    const r = await store.insertEndpoint(q, { id: newId('whe'), merchantId, url, events, desks, description, secretEnc: ctx.box.seal(secret), at: new Date(ctx.clock.now()) });
    if (input.enabled === false) await store.updateEndpoint(q, merchantId, r.id, { enabled: false, at: r.created_at });
    await audit(q, ctx, actor, 'create', r.id, url);
    return input.enabled === false ? { ...r, enabled: false, disabled_reason: 'disabled by the merchant' } : r;
  });
  return { ...endpointView(row), secret };
}

export async function listEndpoints(ctx: Ctx, merchantId: string): Promise<EndpointView[]> {
  return (await store.listEndpoints(ctx.db, merchantId)).map(endpointView);
}

export async function getEndpoint(ctx: Ctx, merchantId: string, id: string): Promise<EndpointView> {
  return endpointView(await mustGet(ctx.db, merchantId, id));
}

export async function updateEndpoint(ctx: Ctx, merchantId: string, actor: string, id: string, input: EndpointInput): Promise<EndpointView> {
  const url = input.url === undefined ? undefined : await checkUrl(ctx, input.url);
  const events = input.events === undefined ? undefined : checkEvents(input.events);
  const description = input.description === undefined ? undefined : checkDescription(input.description);
  const row = await ctx.db.tx(async (q) => {
    await mustGet(q, merchantId, id);
    const desks = input.desks === undefined ? undefined : await checkDesks(q, merchantId, input.desks);
    const r = await store.updateEndpoint(q, merchantId, id, { url, events, desks, description, enabled: input.enabled, at: new Date(ctx.clock.now()) });
    if (!r) throw new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id.slice(0, 64)}`);
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined).join(', ');
    await audit(q, ctx, actor, input.enabled === undefined ? 'update' : input.enabled ? 'enable' : 'disable', id, changed || null);
    return r;
  });
  return endpointView(row);
}

/** A new secret, shown in this answer only; the old one keeps signing beside it for 24 hours. */
export async function rotateEndpointSecret(ctx: Ctx, merchantId: string, actor: string, id: string): Promise<{ secret: string }> {
  const secret = newWebhookSecret();
  await ctx.db.tx(async (q) => {
    const now = ctx.clock.now();
    const r = await store.rotateSecret(q, merchantId, id, ctx.box.seal(secret), new Date(now + ROTATION_OVERLAP_MS), new Date(now));
    if (!r) throw new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id.slice(0, 64)}`);
    await audit(q, ctx, actor, 'rotate-secret', id);
  });
  return { secret };
}

/** Re-queues every event since `since` (at most 30 days ago) that the endpoint takes and was not delivered to it; answers how many. */
export async function recoverEndpoint(ctx: Ctx, merchantId: string, actor: string, id: string, since: Date): Promise<{ requeued: number; since: string }> {
  const now = ctx.clock.now();
  if (!Number.isFinite(since.getTime())) refuse('since: must be a timestamp (ISO 8601)');
  if (since.getTime() > now) refuse('since: must not be in the future');
  if (since.getTime() < now - RECOVER_MAX_MS) refuse('since: at most 30 days ago');
  const n = await ctx.db.tx(async (q) => {
    const ep = await mustGet(q, merchantId, id);
    const requeued = await store.recoverSince(q, ep, since, new Date(now));
    await audit(q, ctx, actor, 'recover', id, `since ${isoSeconds(since)}: ${requeued} queued`);
    if (requeued > 0) await store.notifyWebhookSenders(q);
    return requeued;
  });
  return { requeued: n, since: isoSeconds(since) };
}

/** A `webhook.test` event to this endpoint alone, sent at once whether or not it takes other kinds. */
export async function sendTestEvent(ctx: Ctx, merchantId: string, actor: string, id: string): Promise<{ eventId: string }> {
  const now = ctx.clock.now();
  const eventId = newHistoryId('evt', now);
  await ctx.db.tx(async (q) => {
    const ep = await mustGet(q, merchantId, id);
    const at = new Date(now).toISOString();
    const body = JSON.stringify({ type: 'webhook.test', timestamp: at, data: { endpointId: ep.id, message: 'A test event from Paygate: this endpoint receives and verifies deliveries.' } });
    await store.insertTestDelivery(q, { endpointId: ep.id, eventId, body, at: new Date(now) });
    await audit(q, ctx, actor, 'test', id, eventId);
  });
  return { eventId };
}

export function attemptView(a: store.AttemptRow) {
  return {
    id: String(a.id),
    eventId: a.event_id,
    type: a.event,
    attempt: a.attempt,
    at: isoSeconds(a.at),
    outcome: a.outcome,
    statusCode: a.status_code,
    durationMs: a.duration_ms,
    error: a.error,
    nextAttemptAt: isoOrNull(a.next_attempt_at),
  };
}
export type AttemptView = ReturnType<typeof attemptView>;

/** The endpoint's attempts, newest first, a page at a time (`before`: the last attempt id of the previous page). */
export async function endpointAttempts(ctx: Ctx, merchantId: string, id: string, page: { before?: string; limit?: number }) {
  await mustGet(ctx.db, merchantId, id);
  let before: number | null = null;
  if (page.before !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(page.before)) refuse('before: an attempt id from a previous page');
    before = Number(page.before);
  }
  const limit = page.limit ?? ATTEMPTS_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > ATTEMPTS_PAGE_MAX) refuse(`limit: an integer from 1 to ${ATTEMPTS_PAGE_MAX}`);
  const rows = await store.listAttempts(ctx.db, id, before, limit + 1);
  const items = rows.slice(0, limit).map(attemptView);
  const hasMore = rows.length > limit;
  return { attempts: items, hasMore, next: hasMore ? items[items.length - 1]!.id : null };
}
