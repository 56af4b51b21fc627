/**
 * Alerts: operators are told when evidence stops or money waits (reconciliation spec, "Alerts").
 * A worker evaluates the conditions (conditions.ts) off every request path; each finding is
 * raised once under its key and resolved once when it ends, and both are told to every enabled
 * channel in the transaction that records them: an `alert` mail per email channel (mail_outbox)
 * and a signed JSON delivery per webhook channel (alert_deliveries, sent by webhooks.ts).
 * Channels are configured by admins through `/admin/v1/alert-channels` and the back office.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoSeconds } from '../domain/time.js';
import { timeOrderedId26 } from '../ids.js';
import { queueMail } from '../mail/outbox.js';
import { MAIL_LANGUAGES } from '../mail/templates.js';
import { checkUrlRules } from '../services/callbackUrls.js';
import { pageOf, type Page } from '../services/paging.js';
import type { Queryable } from '../store/db.js';
import type { Worker } from '../workers/loop.js';
import { ALERT_CONDITIONS, ALERT_KINDS, type AlertCondition, type AlertKind, type Finding } from './conditions.js';
import * as store from './store.js';

/** Where the back office lists alerts; the mails link to it. */
export const ALERTS_PATH = '/office/alerts';

const idAt = (prefix: 'alr' | 'ach' | 'ald', at: Date) => `${prefix}_${timeOrderedId26(at.getTime())}`;
export const alertKey = (kind: string, subjectId: string) => `${kind}:${subjectId}`;

export function alertView(a: store.AlertRow) {
  return {
    id: a.id,
    kind: a.kind,
    subjectId: a.subject_id,
    state: a.resolved_at === null ? ('open' as const) : ('resolved' as const),
    summary: a.summary,
    detail: a.detail,
    raisedAt: isoSeconds(a.raised_at),
    resolvedAt: a.resolved_at ? isoSeconds(a.resolved_at) : null,
  };
}
export type AlertView = ReturnType<typeof alertView>;

// ---- evaluating

/** What one pass did: alerts raised and resolved, and the kinds whose condition could not be read. */
export interface EvaluationResult {
  raised: AlertView[];
  resolved: AlertView[];
  failed: AlertKind[];
}

/**
 * One pass over the conditions at the injected clock's now. Each kind is settled in a transaction
 * of its own: its findings against its open alerts, raising the new, resolving the ended, with
 * their mails and webhook deliveries. A condition that fails leaves its kind's alerts as they
 * are (nothing resolved because it could not be read) and the others go on. Two evaluators at
 * once raise and resolve each alert once: the partial unique index and the conditional update
 * decide, and only the one that changed the row tells the channels.
 */
export async function evaluateAlerts(ctx: Ctx, conditions: readonly AlertCondition[] = ALERT_CONDITIONS): Promise<EvaluationResult> {
  const now = new Date(ctx.clock.now());
  const result: EvaluationResult = { raised: [], resolved: [], failed: [] };
  for (const c of conditions) {
    let findings: Finding[];
    try {
      findings = await c.find(ctx, now);
    } catch (err) {
      ctx.log.error({ err, kind: c.kind }, 'alert condition could not be read');
      result.failed.push(c.kind);
      continue;
    }
    const r = await settleKind(ctx, c.kind, findings, now);
    result.raised.push(...r.raised);
    result.resolved.push(...r.resolved);
  }
  return result;
}

async function settleKind(ctx: Ctx, kind: AlertKind, findings: Finding[], now: Date): Promise<{ raised: AlertView[]; resolved: AlertView[] }> {
  return ctx.db.tx(async (q) => {
    const open = new Map((await store.openAlertsOfKinds(q, [kind])).map((a) => [a.key, a]));
    const seen = new Set<string>();
    const raised: AlertView[] = [];
    const resolved: AlertView[] = [];
    let channels: store.ChannelRow[] | null = null;
    const tell = async (a: store.AlertRow, event: 'raised' | 'resolved') => {
      channels ??= await store.listChannels(q, { enabledOnly: true });
      await notify(ctx, q, channels, a, event, now);
    };
    for (const f of findings) {
      const key = alertKey(kind, f.subjectId);
      if (seen.has(key)) continue;
      seen.add(key);
      if (open.has(key)) continue;
      const a = await store.raiseAlert(q, { id: idAt('alr', now), kind, subjectId: f.subjectId, key, summary: f.summary, detail: f.detail, at: now });
      if (!a) continue;
      await tell(a, 'raised');
      raised.push(alertView(a));
    }
    for (const [key, a] of open) {
      if (seen.has(key)) continue;
      const r = await store.resolveAlert(q, a.id, now);
      if (!r) continue;
      await tell(r, 'resolved');
      resolved.push(alertView(r));
    }
    return { raised, resolved };
  });
}

/** The JSON a webhook receives: the event and the alert as `GET /admin/v1/alerts` shows it. */
export function webhookBody(deliveryId: string, event: 'raised' | 'resolved', a: store.AlertRow): string {
  return JSON.stringify({ id: deliveryId, type: `alert.${event}`, alert: alertView(a) });
}

async function notify(ctx: Ctx, q: Queryable, channels: readonly store.ChannelRow[], a: store.AlertRow, event: 'raised' | 'resolved', now: Date): Promise<void> {
  const link = `${ctx.config.publicBaseUrl.replace(/\/$/, '')}${ALERTS_PATH}`;
  for (const ch of channels) {
    if (ch.kind === 'email') {
      await queueMail(q, now, {
        to: ch.target,
        lang: ch.lang,
        kind: 'alert',
        data: { event, alertKind: a.kind as AlertKind, subject: a.subject_id, summary: a.summary, at: isoSeconds(event === 'raised' ? a.raised_at : a.resolved_at!), link },
      });
    } else {
      const id = `ald_${timeOrderedId26(now.getTime())}`;
      await store.insertDelivery(q, { id, alertId: a.id, channelId: ch.id, event, body: webhookBody(id, event, a), at: now });
    }
  }
}

/** How often the conditions are read: an alert is at most this late, and a pass costs a few small queries. */
export const ALERT_EVALUATION_PERIOD_MS = 30_000;

/** The evaluator as a worker (src/workers): one pass; returns how many alerts it raised or resolved. */
export function alertEvaluator(ctx: Ctx): Worker {
  return {
    name: 'alert-evaluator',
    async runOnce() {
      const r = await evaluateAlerts(ctx);
      return r.raised.length + r.resolved.length;
    },
  };
}

// ---- reading

export interface AlertQuery {
  state?: string;
  kind?: string;
  before?: string;
  limit: number;
}

/** `GET /admin/v1/alerts`: newest raised first, `state` open or resolved, paged by `before` (the `next` of the page before). */
export async function listAlertViews(ctx: Ctx, query: AlertQuery): Promise<Page<AlertView>> {
  let pastSeq: string | null = null;
  if (query.before !== undefined) {
    const b = await store.getAlert(ctx.db, query.before);
    if (!b) throw new AppError('VALIDATION_ERROR', 'before: unknown alert id');
    pastSeq = b.seq;
  }
  if (query.kind !== undefined && !(ALERT_KINDS as readonly string[]).includes(query.kind)) throw new AppError('VALIDATION_ERROR', `kind: must be one of ${ALERT_KINDS.join(', ')}`);
  const rows = await store.listAlerts(ctx.db, {
    state: query.state === 'open' || query.state === 'resolved' ? query.state : null,
    kind: query.kind ?? null,
    pastSeq,
    limit: query.limit + 1,
  });
  return pageOf(rows, query.limit, alertView, (a) => a.id);
}

/** The count beside "Alerts" in the back office's navigation. */
export const openAlertCount = (ctx: Ctx) => store.countOpenAlerts(ctx.db);

// ---- channels

export function channelView(c: store.ChannelRow) {
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    target: c.target,
    lang: c.kind === 'email' ? c.lang : null,
    enabled: c.enabled,
    createdAt: isoSeconds(c.created_at),
    updatedAt: isoSeconds(c.updated_at),
  };
}
export type ChannelView = ReturnType<typeof channelView>;
/** A webhook channel as it is made or given a new secret: the secret shown this once, never again. */
export type ChannelWithSecret = ChannelView & { secret: string | null };

export interface ChannelInput {
  kind: string;
  name: string;
  target: string;
  lang?: string;
  enabled?: boolean;
}

export interface ChannelPatch {
  name?: string;
  target?: string;
  lang?: string;
  enabled?: boolean;
  /** true: a new signing secret replaces the old one at once, shown in the answer. */
  rotateSecret?: boolean;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;
const newWebhookSecret = () => `whs_${randomBytes(32).toString('base64url')}`;

function checkName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, ' ');
  if (name.length < 1 || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw new AppError('VALIDATION_ERROR', 'name: 1–100 characters, one line');
  return name;
}

function checkLang(raw: string | undefined): string {
  const lang = raw ?? 'en';
  if (!(MAIL_LANGUAGES as readonly string[]).includes(lang)) throw new AppError('VALIDATION_ERROR', `lang: must be one of ${MAIL_LANGUAGES.join(', ')}`);
  return lang;
}

/** An email channel's address, or a webhook's URL under the callback URL rules (no private addresses), stored in its parsed form. */
async function checkTarget(ctx: Ctx, kind: store.ChannelKind, raw: string): Promise<string> {
  const target = raw.trim();
  if (kind === 'email') {
    if (!EMAIL.test(target) || /[\r\n]/.test(target)) throw new AppError('VALIDATION_ERROR', 'target: must be an email address');
    return target;
  }
  const r = await checkUrlRules(ctx, target);
  if (!r.ok) throw new AppError('INVALID_CALLBACK_URL', `target: ${r.reason}`);
  return r.url;
}

/** `POST /admin/v1/alert-channels`: a webhook channel's signing secret is in this answer only. */
export async function createChannel(ctx: Ctx, input: ChannelInput): Promise<ChannelWithSecret> {
  if (input.kind !== 'email' && input.kind !== 'webhook') throw new AppError('VALIDATION_ERROR', 'kind: must be email or webhook');
  const kind = input.kind;
  const name = checkName(input.name);
  const lang = checkLang(input.lang);
  const target = await checkTarget(ctx, kind, input.target);
  const secret = kind === 'webhook' ? newWebhookSecret() : null;
  const at = new Date(ctx.clock.now());
  const row = await store.insertChannel(ctx.db, { id: idAt('ach', at), kind, name, target, lang, secretEnc: secret === null ? null : ctx.box.seal(secret), enabled: input.enabled ?? true, at });
  return { ...channelView(row), secret };
}

export async function listChannelViews(ctx: Ctx): Promise<ChannelView[]> {
  return (await store.listChannels(ctx.db)).map(channelView);
}

export async function getChannelView(ctx: Ctx, id: string): Promise<ChannelView> {
  const c = await store.getChannel(ctx.db, id);
  if (!c) throw new AppError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${id}`);
  return channelView(c);
}

/**
 * `PATCH /admin/v1/alert-channels/{id}`: any field; a disabled channel is told nothing new
 * (deliveries already queued still go). `rotateSecret` answers the new secret, once.
 */
export async function patchChannel(ctx: Ctx, id: string, patch: ChannelPatch): Promise<ChannelWithSecret> {
  return ctx.db.tx(async (q) => {
    const c = await store.getChannel(q, id, { forUpdate: true });
    if (!c) throw new AppError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${id}`);
    if (patch.rotateSecret && c.kind !== 'webhook') throw new AppError('VALIDATION_ERROR', 'rotateSecret: only a webhook channel has a secret');
    const secret = patch.rotateSecret ? newWebhookSecret() : null;
    const row = await store.updateChannel(
      q,
      id,
      {
        name: patch.name === undefined ? c.name : checkName(patch.name),
        target: patch.target === undefined ? c.target : await checkTarget(ctx, c.kind, patch.target),
        lang: patch.lang === undefined ? c.lang : checkLang(patch.lang),
        secretEnc: secret === null ? c.secret_enc : ctx.box.seal(secret),
        enabled: patch.enabled ?? c.enabled,
      },
      new Date(ctx.clock.now()),
    );
    return { ...channelView(row), secret };
  });
}
