/**
 * The alert routes under `/admin/v1` (operator token): the alerts, newest first, and the channels
 * they are sent to. Channel changes are audited (`alert-channel.create`, `alert-channel.update`).
 * Each route: schema, one service call, envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Ctx } from '../context.js';
import { MAIL_LANGUAGES } from '../mail/templates.js';
import { PageOf } from '../schemas/admin.js';
import { adminRouteSchema, Nullable, Timestamp } from '../schemas/common.js';
import { sendOk } from '../server/errors.js';
import { parseJsonBodyHook } from '../server/rawBody.js';
import { audited } from '../services/audit.js';
import { createChannel, getChannelView, listAlertViews, listChannelViews, patchChannel } from './alerts.js';
import { ALERT_KINDS } from './conditions.js';

const opt = Type.Optional;
const doc = adminRouteSchema;
const limitQ = Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1–500, default 100', 'x-message': 'must be an integer from 1 to 500' });

const AlertKind = Type.Unsafe<string>({ type: 'string', enum: [...ALERT_KINDS], title: 'AlertKind' });
export const Alert = Type.Object(
  {
    id: Type.String({ description: '`alr_` id' }),
    kind: AlertKind,
    subjectId: Type.String({ description: 'what the alert is about, stable for its condition: a provider id (`unmatched-credits`), `{providerId}/{accountKey}` (`statement`), `{providerId}/{method}/{rail}` (`circuit-open`), a requisite id (`requisite-limit`)' }),
    state: Type.Unsafe<string>({ type: 'string', enum: ['open', 'resolved'] }),
    summary: Type.String({ description: 'a sentence for people, written when raised' }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'the figures behind the summary, by kind' }),
    raisedAt: Timestamp,
    resolvedAt: Nullable(Timestamp),
  },
  { title: 'Alert' },
);
const AlertPage = PageOf(Alert);
const ListAlertsQuery = Type.Object({
  state: opt(Type.Unsafe<string>({ type: 'string', enum: ['open', 'resolved'], description: 'open or resolved; both when left out' })),
  kind: opt(AlertKind),
  before: opt(Type.String({ description: 'the `next` of the previous page' })),
  limit: opt(limitQ),
});

const Lang = Type.Unsafe<string>({ type: 'string', enum: [...MAIL_LANGUAGES], description: 'the language of an email channel\'s mails; default `en`' });
const AlertChannel = Type.Object(
  {
    id: Type.String({ description: '`ach_` id' }),
    kind: Type.Unsafe<string>({ type: 'string', enum: ['email', 'webhook'] }),
    name: Type.String(),
    target: Type.String({ description: 'the address (email) or the URL (webhook)' }),
    lang: Nullable(Type.String({ description: 'the mails\' language; null for a webhook' })),
    enabled: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AlertChannel' },
);
const AlertChannelWithSecret = Type.Object(
  { ...AlertChannel.properties, secret: Nullable(Type.String({ description: 'a webhook\'s signing secret (`whs_`), in this answer only: keep it now; null for email and when not rotated' })) },
  { title: 'AlertChannelWithSecret' },
);
const CreateAlertChannelBody = Type.Object(
  {
    kind: Type.Unsafe<string>({ type: 'string', enum: ['email', 'webhook'] }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    target: Type.String({ minLength: 1, maxLength: 2048, description: 'an email address, or an `https`/`http` URL under the callback URL rules (no private addresses)' }),
    lang: opt(Lang),
    enabled: opt(Type.Boolean({ description: 'default true' })),
  },
  { title: 'CreateAlertChannelRequest' },
);
const PatchAlertChannelBody = Type.Object(
  {
    name: opt(Type.String({ minLength: 1, maxLength: 100 })),
    target: opt(Type.String({ minLength: 1, maxLength: 2048 })),
    lang: opt(Lang),
    enabled: opt(Type.Boolean({ description: 'false: the channel is told nothing new; deliveries already queued still go' })),
    rotateSecret: opt(Type.Boolean({ description: 'true: a new signing secret replaces the old one at once and is answered once (webhooks only)' })),
  },
  { title: 'PatchAlertChannelRequest' },
);
const ChannelIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description: '`ach_` id' }) });

/** What the app hands over: the operator token check of the API. */
export interface AlertSurfaceOptions {
  adminAuth: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

export function alertRoutes(ctx: Ctx, opts: AlertSurfaceOptions) {
  return async (root: FastifyInstance) => {
    await root.register(
      async (admin) => {
        admin.addHook('preValidation', opts.adminAuth);
        admin.addHook('preValidation', parseJsonBodyHook());
        await admin.register(adminAlertRoutes(ctx));
      },
      { prefix: '/admin/v1' },
    );
  };
}

function adminAlertRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const act = <T>(req: FastifyRequest, action: string, objectId: string | null, fn: (c: Ctx) => Promise<T>, objectOf?: (r: T) => string | null) =>
    audited(ctx, { actor: req.actor ?? 'token', action, objectId, objectOf: objectOf && objectId === null ? objectOf : undefined }, fn);
  return async (admin) => {
    admin.get('/alerts', { schema: doc({ id: 'listAlerts', summary: 'Alerts, newest raised first: open, resolved, or both', querystring: ListAlertsQuery, ok: AlertPage }) }, async (req, reply) =>
      sendOk(req, reply, await listAlertViews(ctx, { ...req.query, limit: req.query.limit ?? 100 })),
    );
    admin.get('/alert-channels', { schema: doc({ id: 'listAlertChannels', summary: 'The channels alerts are sent to, oldest first', ok: Type.Array(AlertChannel) }) }, async (req, reply) =>
      sendOk(req, reply, await listChannelViews(ctx)),
    );
    admin.post(
      '/alert-channels',
      {
        schema: doc({
          id: 'createAlertChannel',
          summary: 'Send alerts to an email address or a webhook',
          description: 'A webhook channel\'s signing secret is in this answer only. Each raised and resolved alert is posted as JSON, signed like callbacks.',
          body: CreateAlertChannelBody,
          ok: AlertChannelWithSecret,
          status: 201,
          errors: ['INVALID_CALLBACK_URL'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await act(req, 'alert-channel.create', null, (c) => createChannel(c, req.body), (r) => r.id), 201),
    );
    admin.get('/alert-channels/:id', { schema: doc({ id: 'getAlertChannel', summary: 'An alert channel', params: ChannelIdParam, ok: AlertChannel, errors: ['ALERT_CHANNEL_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getChannelView(ctx, req.params.id)),
    );
    admin.patch(
      '/alert-channels/:id',
      {
        schema: doc({
          id: 'patchAlertChannel',
          summary: 'Change, disable or enable an alert channel, or give a webhook a new secret',
          params: ChannelIdParam,
          body: PatchAlertChannelBody,
          ok: AlertChannelWithSecret,
          errors: ['ALERT_CHANNEL_NOT_FOUND', 'INVALID_CALLBACK_URL'],
        }),
      },
      async (req, reply) => sendOk(req, reply, await act(req, 'alert-channel.update', req.params.id, (c) => patchChannel(c, req.params.id, req.body))),
    );
  };
}
