/**
 * The pool providers' pages in the back office: the list, a pool's requisites with a new one and
 * the statement upload, and a requisite's page. Every change is the operator API's service
 * (`POST /admin/v1/providers/{id}/requisites`, `PATCH /admin/v1/requisites/{id}`,
 * `POST /admin/v1/providers/{id}/statements`) with the operator as actor.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { PAYMENT_KEYS } from '../../domain/payment.js';
import { choice, formOf, formWithProblem, sessionForm, withForm } from '../../web/forms.js';
import { param, query, type Kit } from '../../web/office/kit.js';
import { off } from '../../web/office/session.js';
import { seeOther } from '../../web/session.js';
import { importStatement } from '../statementImport.js';
import { listProfiles, loadProfile } from '../statementProfiles.js';
import { listDeviceViews } from '../messages.js';
import { poolProvider, poolProviders } from '../queue.js';
import { createRequisite, getRequisiteView, listRequisites, patchRequisite, poolDeclines, type RequisitePatchInput } from '../requisites.js';
import { CreateRequisiteForm, EditRequisiteForm, StatementForm } from './forms.js';
import { poolPage, poolsPage, RECONCILIATION_PATH, requisitePage, type PoolPageState, type RequisiteFormValues } from './poolsView.js';
import { noticeOf } from './ui.js';
import { adminUploads } from './uploads.js';

const NOTICES = {
  created: 'Requisite added: it takes orders from now on.',
  saved: 'Requisite saved.',
  paused: 'Requisite paused: it takes no new orders; money to it is still matched.',
  resumed: 'Requisite active: it takes orders again.',
  retired: 'Requisite retired: it takes no new orders; money to it is still matched.',
};

/** The form of a requisite's pause, resume and retire buttons: which page to return to. */
const RequisiteStateForm = sessionForm({ back: choice(['pool', 'requisite'] as const) });
const STATES = { pause: ['paused', 'paused'], resume: ['active', 'resumed'], retire: ['retired', 'retired'] } as const;

/** The new requisite as `POST /admin/v1/providers/{id}/requisites` takes it; a field left empty takes the API's default. */
function requisiteInput(f: Static<typeof CreateRequisiteForm>) {
  const payment: Record<string, string> = {};
  for (const k of PAYMENT_KEYS) {
    const v = f[k]?.trim();
    if (v) payment[k] = v;
  }
  // A repeated field (one per ticked rail) arrives as a list, whatever the nullable API type says.
  const rails = ([] as string[]).concat((f.rails as unknown as string[] | undefined) ?? []);
  return {
    payment,
    currency: f.currency || null,
    rails: rails.length > 0 ? rails : null,
    minAmount: f.minAmount,
    maxAmount: f.maxAmount,
    dailyLimit: f.dailyLimit,
    maxOpenOrders: f.maxOpenOrders ? Number(f.maxOpenOrders) : undefined,
    label: f.label?.trim() || null,
  };
}

/** The patch of the edit form: an emptied bound is unbounded ("0"), an emptied label cleared. */
function requisitePatch(f: Static<typeof EditRequisiteForm>): RequisitePatchInput {
  return {
    minAmount: f.minAmount ?? '0',
    maxAmount: f.maxAmount ?? '0',
    dailyLimit: f.dailyLimit ?? '0',
    ...(f.maxOpenOrders ? { maxOpenOrders: Number(f.maxOpenOrders) } : {}),
    label: f.label?.trim() || null,
  };
}

/** The form as typed, for showing it again: strings and lists of strings only, never a file. */
function typed(form: Record<string, unknown>): RequisiteFormValues {
  const out: RequisiteFormValues = {};
  for (const [k, v] of Object.entries(form)) {
    if (k === '_csrf') continue;
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

export async function poolPages(app: FastifyInstance, kit: Kit): Promise<void> {
  const { ctx, page, act, adminPost } = kit;

  app.get(RECONCILIATION_PATH, async (req, reply) => {
    const pools = await poolProviders(ctx);
    const withCounts = await Promise.all(
      pools.map(async (p) => {
        const rows = await listRequisites(ctx, p.id);
        return { ...p, requisites: rows.length, active: rows.filter((r) => r.state === 'active').length };
      }),
    );
    return page(req, reply, (s) => poolsPage(s, withCounts));
  });

  const showPool = async (req: FastifyRequest, reply: FastifyReply, id: string, st: PoolPageState, status = 200) => {
    const { provider, requisites } = await poolProvider(ctx, id);
    const [declines, profiles, devices] = await Promise.all([poolDeclines(ctx, provider.id), listProfiles(ctx, provider.id), listDeviceViews(ctx, provider.id)]);
    return page(req, reply, (s) => poolPage(s, provider, requisites, declines, profiles, st, devices), status);
  };

  app.get('/office/pools/:id', async (req, reply) => showPool(req, reply, param(req, 'id'), { done: noticeOf(query(req).done, NOTICES) }));

  adminPost(
    '/office/pools/:id/requisites',
    CreateRequisiteForm,
    async (req, reply) => {
      const id = param(req, 'id');
      const { form, problem } = formWithProblem(req, CreateRequisiteForm);
      const refuse = (error: string) => showPool(req, reply, id, { create: { values: typed(form), error } }, 400);
      if (problem) return refuse(problem);
      try {
        const r = await act(req, 'requisite.create', null, (c) => createRequisite(c, id, requisiteInput(form)), (r) => r.id);
        return seeOther(reply, `/office/pools/${id}?done=created#requisite-${r.id}`);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return refuse(err.detail ?? 'the requisite is not valid');
        throw err;
      }
    },
    { invalid: 'route' },
  );

  app.get('/office/requisites/:id', async (req, reply) => {
    const r = await getRequisiteView(ctx, param(req, 'id'));
    const { provider } = await poolProvider(ctx, r.providerId);
    return page(req, reply, (s) => requisitePage(s, provider, r, { done: noticeOf(query(req).done, NOTICES) }));
  });

  adminPost(
    '/office/requisites/:id',
    EditRequisiteForm,
    async (req, reply) => {
      const id = param(req, 'id');
      const { form, problem } = formWithProblem(req, EditRequisiteForm);
      const refuse = async (error: string) => {
        const r = await getRequisiteView(ctx, id);
        const { provider } = await poolProvider(ctx, r.providerId);
        return page(req, reply, (s) => requisitePage(s, provider, r, { edit: { values: typed(form), error } }), 400);
      };
      if (problem) return refuse(problem);
      try {
        await act(req, 'requisite.update', id, (c) => patchRequisite(c, id, requisitePatch(form)));
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return refuse(err.detail ?? 'the limits are not valid');
        throw err;
      }
      return seeOther(reply, `/office/requisites/${id}?done=saved`);
    },
    { invalid: 'route' },
  );

  for (const [verb, [state, done]] of Object.entries(STATES)) {
    adminPost(`/office/requisites/:id/${verb}`, RequisiteStateForm, async (req, reply) => {
      const id = param(req, 'id');
      const f = formOf(req, RequisiteStateForm);
      const r = await act(req, 'requisite.update', id, (c) => patchRequisite(c, id, { state }));
      return seeOther(reply, f.back === 'pool' ? `/office/pools/${r.providerId}?done=${done}#requisite-${id}` : `/office/requisites/${id}?done=${done}`);
    });
  }

  // The statement upload reads multipart bodies up to the statement's own cap, in a scope of its own.
  await adminUploads(app, ctx, 'Uploading statements is for administrators.', (upload) => {
    upload.post('/office/pools/:id/statements', withForm(StatementForm, { preHandler: kit.adminOnly }), async (req, reply) => {
      const id = param(req, 'id');
      await poolProvider(ctx, id);
      const form = formOf(req, StatementForm);
      const file = form.statement?.[0];
      const fileName = file?.fileName || null;
      const chosen = form.profile ?? null;
      const refuse = (status: number, error: string) => showPool(req, reply, id, { statement: { error, fileName, profile: chosen } }, status);
      if (!file || file.content.length === 0) return refuse(400, 'Choose a statement file: camt, MT940 or MT942, 1C, or CSV.');
      if (file.tooLarge) return refuse(413, 'The file is larger than 50 MiB, the most a statement may be (PAYLOAD_TOO_LARGE).');
      try {
        // A profile of another pool, or one gone, is refused before the file is read.
        const profile = chosen ? await loadProfile(ctx, id, chosen) : null;
        const body = (async function* () {
          yield file.content;
        })();
        const summary = await importStatement(ctx, id, body, { filename: file.fileName || null, profile, actor: off(req).operator.id });
        return showPool(req, reply, id, { statement: { summary, fileName: file.fileName || 'The statement', profile: chosen } });
      } catch (err) {
        if (err instanceof AppError && err.code === 'STATEMENT_INVALID') return refuse(ERROR_STATUS[err.code], `This is not a statement we can read (STATEMENT_INVALID): ${err.detail ?? ''}`);
        if (err instanceof AppError && err.code === 'STATEMENT_PROFILE_NOT_FOUND') return refuse(400, 'That CSV profile is not one of this pool\'s (STATEMENT_PROFILE_NOT_FOUND): choose another, or none.');
        if (err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE') return refuse(413, 'The file is larger than 50 MiB, the most a statement may be (PAYLOAD_TOO_LARGE).');
        throw err;
      }
    });
  });
}
