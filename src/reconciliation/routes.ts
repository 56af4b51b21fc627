/**
 * The reconciliation routes, registered beside the API's (src/app): under `/admin/v1` the
 * requisites, credits, statement upload and reports (operator token, audited actions), and under
 * `/providers/v1` the signed credit feed. Each route: schema, one service call, envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../context.js';
import { adminRouteSchema, IdParam, routeSchema } from '../schemas/common.js';
import { sendError, sendOk, sendTooMany } from '../server/errors.js';
import { isJsonRequest, parseJsonBodyHook, type RawBody } from '../server/rawBody.js';
import { audited } from '../services/audit.js';
import { createOperatorCredit, FEED_MAX_BYTES, getCreditView, ignoreCredit, ignoreCredits, listCreditViews, matchCreditByOperator, precheckCreditFeed, receiveCreditFeed } from './credits.js';
import { getStatementView, importStatement, listStatementViews } from './statementImport.js';
import { createProfile, listProfiles, loadProfile, patchProfile } from './statementProfiles.js';
import { readSmallExport } from '../services/exports.js';
import { openMerchantStatement } from '../services/merchantStatements.js';
import { sendStatementJson } from './merchantStatementBody.js';
import { reconciliationReport } from './reports.js';
import { createRequisite, listRequisites, patchRequisite } from './requisites.js';
import { createDevice, createTemplate, getTemplateView, listDeviceViews, listTemplateViews, listUnread, patchDevice, patchTemplate, receiveHeartbeat, receiveMessages, rotateDeviceSigningKey, tryTemplates } from './messages.js';
import { APP_MAX_SKEW_SEC, APP_PATH, precheckAppDelivery, receiveAppDelivery } from './phoneApp.js';
import * as M from './messageSchemas.js';
import * as S from './schemas.js';
import { STATEMENT_MAX_BYTES } from './statements/types.js';
import { AppError } from '../domain/errors.js';
import Type from 'typebox';

const PROVIDER_SECURITY = [{ ProviderKey: [], ProviderTs: [], ProviderEventId: [], ProviderSign: [] }];
const doc = adminRouteSchema;

const providerId = IdParam('`prv_` id');
const merchantId = IdParam('`mer_` id');
const limit = (q: { limit?: number }) => q.limit ?? 100;

/** What the app hands over: the operator token check of the API, so both surfaces authenticate alike. */
export interface ReconciliationSurfaceOptions {
  adminAuth: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

export function reconciliationRoutes(ctx: Ctx, opts: ReconciliationSurfaceOptions) {
  return async (root: FastifyInstance) => {
    await root.register(
      async (admin) => {
        admin.addHook('preValidation', opts.adminAuth);
        await admin.register(async (json) => {
          json.addHook('preValidation', parseJsonBodyHook());
          await json.register(adminJsonRoutes(ctx));
        });
        await admin.register(statementUpload(ctx));
      },
      { prefix: '/admin/v1' },
    );
    await root.register(creditFeed(ctx), { prefix: '/providers/v1' });
  };
}

function adminJsonRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const act = <T>(req: FastifyRequest, action: string, objectId: string | null, fn: (c: Ctx) => Promise<T>, objectOf?: (r: T) => string | null) =>
    audited(ctx, { actor: req.actor ?? 'token', action, objectId, objectOf: objectOf && objectId === null ? objectOf : undefined }, fn);
  return async (admin) => {
    // ---- requisites
    admin.get('/providers/:id/requisites', { schema: doc({ id: 'listRequisites', summary: 'A pool provider\'s requisites, oldest first, with open orders and today\'s money', params: providerId, ok: Type.Array(S.Requisite), errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await listRequisites(ctx, req.params.id)),
    );
    admin.post('/providers/:id/requisites', { schema: doc({ id: 'createRequisite', summary: 'Add a requisite to a pool provider', params: providerId, body: S.CreateRequisiteBody, ok: S.Requisite, status: 201, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'requisite.create', null, (c) => createRequisite(c, req.params.id, req.body), (r) => r.id), 201),
    );
    admin.patch('/requisites/:id', { schema: doc({ id: 'patchRequisite', summary: 'Change a requisite\'s limits, label or state', params: S.RequisiteIdParam, body: S.PatchRequisiteBody, ok: S.Requisite, errors: ['REQUISITE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'requisite.update', req.params.id, (c) => patchRequisite(c, req.params.id, req.body))),
    );

    // ---- credits
    admin.get('/credits', { schema: doc({ id: 'listCredits', summary: 'Credits, newest first', querystring: S.ListCreditsQuery, ok: S.CreditPage }) }, async (req, reply) =>
      sendOk(req, reply, await listCreditViews(ctx, { ...req.query, limit: limit(req.query) })),
    );
    admin.post('/credits', { schema: doc({ id: 'createCredit', summary: 'Record a credit by hand; it is matched like any other', description: '`201` with the new credit; `200` with the credit already recorded for a repeated `sourceId`.', body: S.CreateCreditBody, ok: S.Credit, status: 201, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) => {
      const r = await act(req, 'credit.create', null, (c) => createOperatorCredit(c, req.body), (r) => r.credit.id);
      return sendOk(req, reply, r.credit, r.created ? 201 : 200);
    });
    admin.get('/credits/:id', { schema: doc({ id: 'getCredit', summary: 'A credit, with the statement entries that evidence it', params: S.CreditIdParam, ok: S.CreditWithEvidence, errors: ['CREDIT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getCreditView(ctx, req.params.id)),
    );
    admin.post('/credits/:id/match', {
      schema: doc({
        id: 'matchCredit',
        summary: 'Match a credit to the order it pays; the order is confirmed',
        params: S.CreditIdParam,
        body: S.MatchCreditBody,
        ok: S.Credit,
        errors: ['CREDIT_NOT_FOUND', 'ORDER_NOT_FOUND', 'CREDIT_ALREADY_MATCHED', 'ORDER_ALREADY_COMPLETED', 'CURRENCY_MISMATCH', 'AMOUNT_MISMATCH', 'REQUISITE_MISMATCH', 'SANDBOX_ORDER', 'INVALID_TRANSITION'],
      }),
    }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'credit.match', req.params.id, (c) => matchCreditByOperator(c, req.params.id, req.body, req.actor ?? 'token'))),
    );
    admin.post('/credits/ignore', { schema: doc({ id: 'ignoreCredits', summary: 'Take many unmatched credits out of the queue at once, with one reason', body: S.IgnoreCreditsBody, ok: S.IgnoreCreditsResult }) }, async (req, reply) =>
      sendOk(req, reply, await ignoreCredits(ctx, req.body.ids, req.body.reason, req.actor ?? 'token')),
    );
    admin.post('/credits/:id/ignore', { schema: doc({ id: 'ignoreCredit', summary: 'Take a credit out of the queue, with the reason', params: S.CreditIdParam, body: S.IgnoreCreditBody, ok: S.Credit, errors: ['CREDIT_NOT_FOUND', 'CREDIT_ALREADY_MATCHED'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'credit.ignore', req.params.id, (c) => ignoreCredit(c, req.params.id, req.body.reason))),
    );

    // ---- statements
    admin.post('/providers/:id/statement-profiles', { schema: doc({ id: 'createStatementProfile', summary: 'Describe a bank\'s own CSV export, to upload its statements as they come', params: providerId, body: S.CreateProfileBody, ok: S.StatementProfile, status: 201, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'statementProfile.create', null, (c) => createProfile(c, req.params.id, req.body as Record<string, unknown>), (r) => r.id), 201),
    );
    admin.get('/providers/:id/statement-profiles', { schema: doc({ id: 'listStatementProfiles', summary: 'A pool provider\'s CSV profiles, oldest first', params: providerId, ok: Type.Array(S.StatementProfile), errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await listProfiles(ctx, req.params.id)),
    );
    admin.patch('/statement-profiles/:id', { schema: doc({ id: 'patchStatementProfile', summary: 'Change a CSV profile', params: S.ProfileIdParam, body: S.PatchProfileBody, ok: S.StatementProfile, errors: ['STATEMENT_PROFILE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'statementProfile.update', req.params.id, (c) => patchProfile(c, req.params.id, req.body as Record<string, unknown>))),
    );
    admin.get('/statements', { schema: doc({ id: 'listStatements', summary: 'Statements uploaded, newest first', querystring: S.ListStatementsQuery, ok: S.StatementPage }) }, async (req, reply) =>
      sendOk(req, reply, await listStatementViews(ctx, { ...req.query, limit: limit(req.query) })),
    );
    admin.get('/statements/:id', { schema: doc({ id: 'getStatement', summary: 'A statement with a page of its entries and what became of each', params: S.StatementIdParam, querystring: S.StatementEntriesQuery, ok: S.StatementWithEntries, errors: ['STATEMENT_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getStatementView(ctx, req.params.id, { ...req.query, limit: limit(req.query) })),
    );

    // ---- device messages: devices, templates, the unread queue
    admin.post('/providers/:id/devices', { schema: doc({ id: 'createDevice', summary: 'Add a phone that forwards a pool\'s bank messages for some of its requisites', description: 'The answer carries the device\'s `signingKey`, for a forwarding app that signs its deliveries itself; it is shown this once.', params: providerId, body: M.CreateDeviceBody, ok: M.DeviceWithKey, status: 201, errors: ['PROVIDER_NOT_FOUND', 'REQUISITE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'device.create', null, (c) => createDevice(c, req.params.id, req.body), (r) => r.id), 201),
    );
    admin.post('/devices/:id/signing-key', { schema: doc({ id: 'rotateDeviceSigningKey', summary: 'Issue a device a new signing key; the old one fails at once', description: 'The new `signingKey` is shown in this answer only; type it into the forwarding app\'s settings.', params: M.DeviceIdParam, ok: M.DeviceWithKey, errors: ['DEVICE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'device.signingKey', req.params.id, (c) => rotateDeviceSigningKey(c, req.params.id))),
    );
    admin.get('/providers/:id/devices', { schema: doc({ id: 'listDevices', summary: 'A pool\'s devices, oldest first, with when each was last heard from', params: providerId, ok: Type.Array(M.Device), errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await listDeviceViews(ctx, req.params.id)),
    );
    admin.patch('/devices/:id', { schema: doc({ id: 'patchDevice', summary: 'Rename a device or change the requisites it forwards for', params: M.DeviceIdParam, body: M.PatchDeviceBody, ok: M.Device, errors: ['DEVICE_NOT_FOUND', 'REQUISITE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'device.update', req.params.id, (c) => patchDevice(c, req.params.id, req.body))),
    );
    admin.post('/message-templates', { schema: doc({ id: 'createMessageTemplate', summary: 'Add a template that reads bank messages into credits', body: M.CreateTemplateBody, ok: M.MessageTemplate, status: 201, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'messageTemplate.create', null, (c) => createTemplate(c, req.body), (r) => r.id), 201),
    );
    admin.get('/message-templates', { schema: doc({ id: 'listMessageTemplates', summary: 'Templates in the order messages are read with them: operators\' (a pool\'s own first), then the built-in ones', querystring: M.ListTemplatesQuery, ok: Type.Array(M.MessageTemplate), errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await listTemplateViews(ctx, req.query.providerId ?? null)),
    );
    admin.post('/message-templates/try', { schema: doc({ id: 'tryMessageTemplates', summary: 'What each enabled template reads of a text, and what the message would become', body: M.TryTemplatesBody, ok: M.TryTemplatesResult, errors: ['PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await tryTemplates(ctx, req.body)),
    );
    admin.get('/message-templates/:id', { schema: doc({ id: 'getMessageTemplate', summary: 'A template', params: M.TemplateIdParam, ok: M.MessageTemplate, errors: ['TEMPLATE_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await getTemplateView(ctx, req.params.id)),
    );
    admin.patch('/message-templates/:id', { schema: doc({ id: 'patchMessageTemplate', summary: 'Change a template, or turn it off (`enabled`)', params: M.TemplateIdParam, body: M.PatchTemplateBody, ok: M.MessageTemplate, errors: ['TEMPLATE_NOT_FOUND', 'TEMPLATE_BUILT_IN', 'PROVIDER_NOT_FOUND'] }) }, async (req, reply) =>
      sendOk(req, reply, await act(req, 'messageTemplate.update', req.params.id, (c) => patchTemplate(c, req.params.id, req.body))),
    );
    admin.get('/messages/unread', { schema: doc({ id: 'listUnreadMessages', summary: 'Messages no template read, oldest first: each waits for a template or a credit by hand', querystring: M.ListUnreadQuery, ok: Type.Array(M.UnreadMessage) }) }, async (req, reply) =>
      sendOk(req, reply, await listUnread(ctx, limit(req.query))),
    );

    // ---- reports
    admin.get(
      '/reconciliation',
      {
        schema: doc({
          id: 'getReconciliation',
          summary: 'A pool provider\'s day: orders against money, per requisite',
          querystring: S.ReconciliationQuery,
          ok: S.Reconciliation,
          errors: ['PROVIDER_NOT_FOUND'],
          extra: { 429: { description: 'reports and exports of this caller or of the process at their limit: empty body', headers: { 'Retry-After': { type: 'integer', description: 'seconds' } } } },
        }),
      },
      async (req, reply) => {
        // One aggregate per requisite, read holding one of the caller's export slots (as in the back office).
        const read = await readSmallExport(ctx, 'reconciliation-report', req.actor ?? 'token', () => reconciliationReport(ctx, req.query.providerId, req.query.date));
        if (!read.ok) return sendTooMany(reply, read.retryAfterMs);
        return sendOk(req, reply, read.value);
      },
    );
    admin.get(
      '/merchants/:id/statement',
      {
        schema: doc({
          id: 'getMerchantStatement',
          summary: 'A merchant\'s live money between two UTC days: opening, entries, closing',
          description: MERCHANT_STATEMENT_HELP,
          params: merchantId,
          querystring: S.MerchantStatementQuery,
          ok: S.MerchantStatement,
          errors: ['MERCHANT_NOT_FOUND'],
          extra: { 429: { description: 'statements at their limit: empty body', headers: { 'Retry-After': { type: 'integer', description: 'seconds' } } } },
        }),
      },
      async (req, reply) => {
        const opened = await openMerchantStatement(ctx, req.params.id, req.query);
        if (!opened.ok) return sendTooMany(reply, opened.retryAfterMs);
        return sendStatementJson(req, reply, opened.statement);
      },
    );
  };
}

const MERCHANT_STATEMENT_HELP = `One JSON document, written while it is read: the balances at both ends first (\`closingBalance\` before
\`entries\`), then the entries oldest first (by time, then in the order they were written), read from the database as fast
as the client takes them, so a statement of any length starts at once and costs the server the same memory. The statement
is one moment of the ledger: money written while it is read is in the next one. Bad days and an unknown merchant are
refused before the first byte. A statement that fails after it (the database lost, entries that do not add up to the
closing balance, a client that took nothing for 60 s) ends the connection without the chunked answer's last chunk: the
client's read fails and the document, cut short, does not parse. An instance reads at most 2 statements of one merchant
and 4 in all at once (settings \`STATEMENT_EXPORTS_PER_MERCHANT\`, \`STATEMENT_EXPORTS_PER_PROCESS\`); one more answers
\`429\` with \`Retry-After\`.`;

const STATEMENT_HELP = `The body is the file itself, up to 50 MiB, read as a stream; its format is recognised from its content:
ISO 20022 camt.052, camt.053 and camt.054 (001.02 to 001.13), SWIFT MT940 and MT942, the 1C client-bank exchange file
(\`1CClientBankExchange\`), a CSV with the header \`transactionId,account,amount,currency,receivedAt,payer,reference\`
(an 8th column \`bankReference\` may follow), or a bank's own CSV read with a profile (\`?profile=csp_…\`). Text is read in
the encoding the file declares (XML declaration, byte order mark, 1C \`Кодировка\`) or its profile names, else UTF-8,
windows-1251 or ISO-8859-1 as its bytes say. Only booked credits become credits (one per \`TxDtls\` of a batch); debits
are read for the balance check. An entry that cannot be read is listed in \`problems\` and the others are recorded; a file
that is no statement at all is \`400 STATEMENT_INVALID\` naming what is wrong, and nothing is recorded. Each entry is the
same money as a credit recorded before when its terms (account, currency, amount, booking day) and the bank's own
reference agree (see the reconciliation guide); the same bytes uploaded again answer the statement already recorded
(\`sameAs\`). \`?filename=\` names the file in the statement's record.`;

/**
 * The upload's body as the document shows it: the file itself, in one of the types the service
 * reads (statements/index.ts `statementKindOf`), never JSON. Kept under `x-request-body`, so Fastify
 * does not validate it: the route reads the stream itself.
 */
const STATEMENT_FILE = {
  content: {
    'application/xml': { schema: { type: 'string', contentMediaType: 'application/xml', description: 'an ISO 20022 camt.052, camt.053 or camt.054 document' } },
    'text/xml': { schema: { type: 'string', contentMediaType: 'text/xml', description: 'the same camt document, sent as `text/xml`' } },
    'text/csv': {
      schema: { type: 'string', contentMediaType: 'text/csv', description: 'a CSV file with the header row `transactionId,account,amount,currency,receivedAt,payer,reference`, or a bank\'s CSV read with `?profile=`' },
    },
    'text/plain': { schema: { type: 'string', contentMediaType: 'text/plain', description: 'any of the formats (MT940 and 1C files are usually sent so)' } },
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream', description: 'any of the formats, as bytes' } },
  },
};

/**
 * A request refused before its large body has all arrived has its connection closed once the
 * answer is written, so no more of the body is read than came with the headers (one read, 64 KiB):
 * Node would otherwise read on, to discard it, until the sender stopped (some 190 KiB a sender,
 * which 400 refused senders turn into megabytes of garbage). A small body (64 KiB or less) is left
 * to Node: it costs nothing to discard, and a connection cut while such a sender is still writing
 * may reach it as a reset before it has read the answer.
 */
const SMALL_BODY = 64 * 1024;
function readNoMore(req: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared <= SMALL_BODY) return;
  reply.header('connection', 'close');
  reply.raw.once('finish', () => {
    if (!req.raw.complete) req.raw.socket?.destroy?.();
  });
}

/** The types a statement may be sent as; the format is recognised from the content whatever the type. */
const STATEMENT_TYPES = new Set(['application/xml', 'text/xml', 'text/csv', 'text/plain', 'application/octet-stream']);

/**
 * `POST /admin/v1/providers/{id}/statements`. The file is not read by a body parser: the route's
 * own parser leaves the request stream untouched, so the token is checked before a byte of the
 * file is read, and the statement reader takes it chunk by chunk under its 50 MiB limit.
 */
function statementUpload(ctx: Ctx) {
  return async (files: FastifyInstance) => {
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_req, _payload, done) => done(null));
    files.post(
      '/providers/:id/statements',
      {
        schema: {
          ...doc({
            id: 'importStatement',
            summary: 'Upload a bank statement (camt, MT940/MT942, 1C or CSV): kept as a record, its credits recorded and matched',
            description: STATEMENT_HELP,
            params: providerId,
            ok: S.StatementSummary,
            errors: ['PROVIDER_NOT_FOUND', 'STATEMENT_INVALID', 'STATEMENT_PROFILE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
          }),
          'x-request-body': STATEMENT_FILE,
          'x-error-descriptions': {
            PAYLOAD_TOO_LARGE: 'the file is over 50 MiB',
            UNSUPPORTED_MEDIA_TYPE: 'the file is sent as another type than `application/xml`, `text/xml`, `text/csv`, `text/plain` or `application/octet-stream`',
          },
        },
      },
      async (req, reply) => {
        const { id } = req.params as { id: string };
        const type = (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
        if (type !== '' && !STATEMENT_TYPES.has(type)) {
          return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', `send the file itself as ${[...STATEMENT_TYPES].join(', ')}; its format is recognised from its content`);
        }
        // A file declared larger than a statement may be is refused before a byte of it is read.
        const declared = Number(req.headers['content-length']);
        if (Number.isFinite(declared) && declared > STATEMENT_MAX_BYTES) {
          readNoMore(req, reply);
          return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'a statement is at most 50 MiB');
        }
        const query = req.query as { filename?: unknown; profile?: unknown };
        const filename = typeof query.filename === 'string' && query.filename.length > 0 ? query.filename.slice(0, 255) : null;
        const profile = typeof query.profile === 'string' && query.profile.length > 0 ? await loadProfile(ctx, id, query.profile) : null;
        return sendOk(req, reply, await importStatement(ctx, id, req.raw, { filename, profile, actor: req.actor ?? 'token' }));
      },
    );
  };
}

/**
 * The feed keeps bodies up to 1 MiB whole (the shared parser keeps 64 KiB): the signature covers
 * the exact bytes, so they are kept as sent and parsed only after it passed.
 */
function feedBodyParser(req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: RawBody) => void): void {
  const chunks: Buffer[] = [];
  let total = 0;
  let finished = false;
  const finish = (body: RawBody) => {
    if (finished) return;
    finished = true;
    done(null, body);
  };
  const tooLarge = (): RawBody => ({ bytes: Buffer.alloc(0), sha256: '', tooLarge: true });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > FEED_MAX_BYTES) return finish(tooLarge());
  const onData = (chunk: Buffer) => {
    total += chunk.length;
    if (total > FEED_MAX_BYTES) {
      // Not destroyed: the sender gets its 413 envelope, and Node discards what is still coming.
      payload.removeListener('data', onData);
      finish(tooLarge());
      return;
    }
    chunks.push(chunk);
  };
  const timer = setTimeout(() => {
    if (finished) return;
    finished = true;
    payload.removeListener('data', onData);
    chunks.length = 0;
    done(new AppError('REQUEST_TIMEOUT', `the body did not arrive whole within ${FEED_BODY_TIMEOUT_MS / 1000} s`));
  }, FEED_BODY_TIMEOUT_MS);
  timer.unref();
  payload.on('data', onData);
  payload.on('end', () => {
    clearTimeout(timer);
    finish({ bytes: Buffer.concat(chunks), sha256: '', tooLarge: false });
  });
  payload.on('error', (err) => {
    clearTimeout(timer);
    if (!finished) {
      finished = true;
      done(err as Error);
    }
  });
}

/**
 * Feed bodies being read at once hold at most this many bytes between them: a request that would
 * pass it is answered `503` before its body is read, so many slow or stalled senders cannot grow
 * the server's memory (400 stalled 1 MiB bodies would otherwise hold 400 MiB).
 */
export const FEED_BODY_BUDGET = 16 * 1024 * 1024;
/** A feed body still not complete after this long is given up (`408`), freeing its share of the budget. */
export const FEED_BODY_TIMEOUT_MS = 30_000;

declare module 'fastify' {
  interface FastifyRequest {
    feedReserved?: number;
  }
}

function creditFeed(ctx: Ctx) {
  let reserved = 0;
  const release = (req: FastifyRequest) => {
    if (req.feedReserved) {
      reserved -= req.feedReserved;
      req.feedReserved = 0;
    }
  };
  return async (feed: FastifyInstance) => {
    feed.removeAllContentTypeParsers();
    feed.addContentTypeParser('*', feedBodyParser);
    // Authenticated from the headers before a byte of the body is read; then the body's share of the budget.
    feed.addHook('preParsing', async (req, reply, payload) => {
      const params = req.params as { providerId: string; deviceId?: string };
      // The forwarding app signs with the device's own key, in its own headers.
      const verdict = (req.routeOptions.config as { signedByApp?: boolean } | undefined)?.signedByApp
        ? await precheckAppDelivery(ctx, params.providerId, params.deviceId ?? '', req.headers)
        : { code: 'AUTH_FAILED' as const, ...(await precheckCreditFeed(ctx, params.providerId, req.headers)) };
      if (!verdict.ok) {
        readNoMore(req, reply);
        return sendError(req, reply, verdict.code, verdict.detail);
      }
      const declared = Number(req.headers['content-length']);
      const want = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, FEED_MAX_BYTES + 1) : FEED_MAX_BYTES + 1;
      if (reserved + want > FEED_BODY_BUDGET) {
        readNoMore(req, reply);
        reply.header('retry-after', '1');
        return sendError(req, reply, 'SERVICE_UNAVAILABLE', 'the credit feed is receiving as much as it takes at once; retry in a second');
      }
      reserved += want;
      req.feedReserved = want;
      return payload;
    });
    feed.addHook('onResponse', async (req) => release(req));
    feed.addHook('onRequestAbort', async (req) => release(req));
    feed.post(
      '/:providerId/credits',
      {
        schema: {
          ...routeSchema({
            security: PROVIDER_SECURITY,
            tags: ['providers'],
            operationId: 'providerCredits',
            summary: 'Money that arrived on a pool\'s requisites, from a bank poller or a notification forwarder',
            description:
              'Signed like the provider events: `X-Gate-Sign` = hex HMAC-SHA256 with the pool provider\'s secret over `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`, ' +
              'plus `X-Gate-Key`; the headers are checked before the body is read (an unknown provider or key costs no body). 1 to 500 credits, at most 1 MiB (`413`). ' +
              'An item repeated with the same `transactionId` and terms (account, currency, amount, booking day) answers `duplicate: true` with `duplicateOf`; the same id with ' +
              'other terms is another credit, answered with the warning `TRANSACTION_ID_REUSED`. Money a statement recorded already is found, not doubled. Each new credit is matched to the order it pays; ' +
              'a repeat answers `duplicate: true` with the credit as recorded, so a whole request may be retried.',
            params: Type.Object({ providerId: Type.String({ description: '`prv_` id of a pool provider' }) }),
            ok: { status: 200, result: S.CreditFeedResult, description: 'every credit recorded now or before, in order' },
            errors: ['AUTH_FAILED', 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'REQUEST_TIMEOUT'],
          }),
          // Documented, not validated here: the body is checked after the signature, by the service.
          'x-request-body': S.CreditFeedBody,
          'x-error-descriptions': {
            PAYLOAD_TOO_LARGE: 'the body is over 1 MiB',
            REQUEST_TIMEOUT: `the body did not arrive whole within ${FEED_BODY_TIMEOUT_MS / 1000} s`,
            SERVICE_UNAVAILABLE: 'the feed is receiving 16 MiB of bodies at once already (answered before the body is read, with `Retry-After: 1`), or the database cannot be reached',
          },
        },
      },
      async (req, reply) => {
        const raw = (req.body ?? { bytes: Buffer.alloc(0), sha256: '', tooLarge: false }) as RawBody;
        if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'the feed takes at most 1 MiB in one request; send fewer credits at a time');
        if (!isJsonRequest(req.headers['content-type'], raw)) return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
        const r = await receiveCreditFeed(ctx, (req.params as { providerId: string }).providerId, req.headers, raw.bytes);
        if (!r.ok) return sendError(req, reply, r.code, r.detail);
        return sendOk(req, reply, { credits: r.credits });
      },
    );
    feed.post(
      '/:providerId/messages',
      {
        schema: {
          ...routeSchema({
            security: PROVIDER_SECURITY,
            tags: ['providers'],
            operationId: 'providerMessages',
            summary: 'Bank SMS and push notifications forwarded by the phones on a pool\'s requisites, read into credits',
            description:
              'Signed exactly as the credit feed (`X-Gate-Key`, `X-Gate-Ts`, `X-Gate-Event-Id`, `X-Gate-Sign` over `{ts}.{eventId}.{raw body}` with the pool\'s secret), ' +
              'the headers checked before the body is read. 1 to 500 messages, at most 1 MiB. Every message is kept: read by the first template that matches it into a credit ' +
              '(matched to the order it pays, source `device`, the message\'s `id` as its item id), skipped (debits, balance notices, one-time codes) or unread (no template reads it, ' +
              'or its `deviceId` is no device of the pool: `unknown device`), one answer per message in order. The same `id` and text again answers `duplicate: true` with what it became; ' +
              'the same `id` with another text is read again, and a credit of other terms under it carries `TRANSACTION_ID_REUSED`. Each message counts as a heartbeat of its device.',
            params: Type.Object({ providerId: Type.String({ description: '`prv_` id of a pool provider' }) }),
            ok: { status: 200, result: M.MessagesResult, description: 'what became of every message, in order' },
            errors: ['AUTH_FAILED', 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'REQUEST_TIMEOUT'],
          }),
          'x-request-body': M.MessagesBody,
          'x-error-descriptions': { PAYLOAD_TOO_LARGE: 'the body is over 1 MiB', REQUEST_TIMEOUT: `the body did not arrive whole within ${FEED_BODY_TIMEOUT_MS / 1000} s` },
        },
      },
      async (req, reply) => {
        const raw = (req.body ?? { bytes: Buffer.alloc(0), sha256: '', tooLarge: false }) as RawBody;
        if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'at most 1 MiB in one request; send fewer messages at a time');
        if (!isJsonRequest(req.headers['content-type'], raw)) return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
        const r = await receiveMessages(ctx, (req.params as { providerId: string }).providerId, req.headers, raw.bytes);
        if (!r.ok) return sendError(req, reply, r.code, r.detail);
        return sendOk(req, reply, { messages: r.value });
      },
    );
    feed.post(
      `/:providerId/devices/:deviceId/${APP_PATH}`,
      {
        config: { signedByApp: true },
        schema: {
          ...routeSchema({
            security: [],
            tags: ['providers'],
            operationId: 'forwardingAppWebhook',
            summary: 'The webhook of the "SMS Gateway for Android" app on a device: its SMS read as the device\'s messages, its pings as heartbeats',
            description:
              'Register this URL in the app for the events `sms:received` and `system:ping`, and type the device\'s `signingKey` into the app\'s signing key setting. ' +
              'Signed as the app signs: `X-Timestamp` (Unix seconds, within ' + APP_MAX_SKEW_SEC + ' s of the gateway\'s clock, else `401 AUTH_TIMESTAMP_SKEW`) and `X-Signature` = hex HMAC-SHA256 ' +
              'with the device\'s signing key over the raw body followed by the timestamp (`401 AUTH_FAILED` otherwise), checked before the body is read as far as the headers allow. ' +
              'The body is the app\'s `{id, webhookId, event, deviceId, payload}`. `sms:received` is read like a message of `POST /providers/v1/{providerId}/messages` ' +
              'with the id `{deviceId}:{payload.messageId}` (the app\'s retries of one SMS are one message), `payload.sender` (else `phoneNumber`), `payload.message` and `payload.receivedAt`; ' +
              '`system:ping` is a heartbeat; the app\'s other events are acknowledged (`ignored`) and count as a sign of life; an event the app does not have is `400 VALIDATION_ERROR`.',
            params: Type.Object({ providerId: Type.String({ description: '`prv_` id of a pool provider' }), deviceId: Type.String({ description: '`dev_` id' }) }),
            ok: { status: 200, result: M.AppDeliveryResult, description: 'what became of the delivery' },
            errors: ['AUTH_HEADERS_MISSING', 'AUTH_TIMESTAMP_INVALID', 'AUTH_TIMESTAMP_SKEW', 'AUTH_FAILED', 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'REQUEST_TIMEOUT'],
          }),
          'x-request-body': Type.Object(
            {
              id: Type.String({ description: 'the app\'s id of the delivery' }),
              webhookId: Type.String(),
              event: Type.String({ description: '`sms:received`, `system:ping`, or another of the app\'s events' }),
              deviceId: Type.String({ description: 'the app\'s own id of the phone (the gateway\'s is in the path)' }),
              payload: Type.Object({}, { additionalProperties: true, description: '`sms:received`: `messageId`, `message`, `sender`, `phoneNumber`, `simNumber`, `receivedAt`; `system:ping`: `health`' }),
            },
            { title: 'ForwardingAppDelivery' },
          ),
          'x-error-descriptions': { PAYLOAD_TOO_LARGE: 'the body is over 1 MiB', REQUEST_TIMEOUT: `the body did not arrive whole within ${FEED_BODY_TIMEOUT_MS / 1000} s` },
        },
      },
      async (req, reply) => {
        const raw = (req.body ?? { bytes: Buffer.alloc(0), sha256: '', tooLarge: false }) as RawBody;
        if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'at most 1 MiB in one delivery');
        if (!isJsonRequest(req.headers['content-type'], raw)) return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
        const { providerId: pid, deviceId } = req.params as { providerId: string; deviceId: string };
        const r = await receiveAppDelivery(ctx, pid, deviceId, req.headers, raw.bytes);
        if (!r.ok) return sendError(req, reply, r.code, r.detail);
        return sendOk(req, reply, r.value);
      },
    );
    feed.post(
      '/:providerId/devices/:deviceId/heartbeat',
      {
        schema: routeSchema({
          security: PROVIDER_SECURITY,
          tags: ['providers'],
          operationId: 'deviceHeartbeat',
          summary: 'A device says it is alive: its requisites keep taking orders',
          description: 'Signed as the credit feed, over an empty body. A device not heard from (heartbeat or message) for `DEVICE_SILENCE_MINUTES` pauses its requisites for new orders until it is heard from again.',
          params: Type.Object({ providerId: Type.String({ description: '`prv_` id of a pool provider' }), deviceId: Type.String({ description: '`dev_` id' }) }),
          ok: { status: 200, result: M.Device, description: 'the device as it is now' },
          errors: ['AUTH_FAILED', 'VALIDATION_ERROR', 'DEVICE_NOT_FOUND'],
        }),
      },
      async (req, reply) => {
        const raw = (req.body ?? { bytes: Buffer.alloc(0), sha256: '', tooLarge: false }) as RawBody;
        if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'a heartbeat has an empty body');
        const { providerId: pid, deviceId } = req.params as { providerId: string; deviceId: string };
        const r = await receiveHeartbeat(ctx, pid, deviceId, req.headers, raw.bytes);
        if (!r.ok) return sendError(req, reply, r.code, r.detail);
        return sendOk(req, reply, r.value);
      },
    );
  };
}
