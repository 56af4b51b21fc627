import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { APPLICATION_FIELDS, type ApplicationField, type FieldProblem } from '../../domain/applications.js';
import { AppError } from '../../domain/errors.js';
import { findMerchantApplication, saveApplication } from '../../services/applications.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { formWithProblem, withForm } from '../forms.js';
import { cab, query, sentence } from './common.js';
import { ApplicationForm } from './forms.js';
import { messagePage } from './layout.js';
import { applicationPage, applicationValues, type ApplicationFormValues } from './applicationView.js';

const NOTICES: Record<string, string> = {
  saved: 'Draft saved. Submit it when every field is filled in.',
  submitted: 'Submitted: we review it and write to the account’s owners with our decision.',
};

/**
 * The application for approval (web spec, "Asking for approval"): `GET /cabinet/application`
 * shows where it stands and its form; `POST /cabinet/application` saves it as a draft, or with
 * `submit=true` submits it. Only an owner writes it; a refused form comes back with what was typed
 * and a message beside each field at fault (`400`), a submission while one waits for review or
 * after approval is `409`.
 */
export function applicationRoutes(app: FastifyInstance, ctx: Ctx): void {
  const page = async (req: FastifyRequest, reply: FastifyReply, status: number, o: { values?: ApplicationFormValues; problems?: FieldProblem[]; error?: string | null } = {}) => {
    const c = cab(req);
    const application = await findMerchantApplication(ctx, c.merchant.id);
    const done = query(req).done;
    const notice = status === 200 && typeof done === 'string' ? (NOTICES[done] ?? null) : null;
    return sendPage(reply, status, applicationPage(c, { application, values: o.values ?? applicationValues(application), problems: o.problems ?? [], notice, error: o.error ?? null }));
  };

  app.get('/cabinet/application', async (req, reply) => page(req, reply, 200));

  app.post('/cabinet/application', withForm(ApplicationForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    // The application speaks for the business: an owner's to write (developers and viewers read it).
    if (c.user.role !== 'owner') return sendPage(reply, 403, messagePage(c, 'Not for your role', `Only an owner of ${c.merchant.name} applies for approval.`));
    const { form, problem } = formWithProblem(req, ApplicationForm);
    const values = Object.fromEntries(APPLICATION_FIELDS.map((f) => [f, typeof form[f] === 'string' ? form[f] : ''])) as ApplicationFormValues;
    if (problem) {
      // Only a value far past any field's limit gets here: named beside its field like the rest.
      const field = problem.split(':')[0] as ApplicationField;
      return page(req, reply, 400, { values, problems: [{ field: APPLICATION_FIELDS.includes(field) ? field : 'legalName', message: sentence(problem) }] });
    }
    const submit = form.submit === 'true';
    try {
      const r = await saveApplication(ctx, { merchantId: c.merchant.id, userId: c.user.id, input: values, submit });
      if (r.kind === 'invalid') return page(req, reply, 400, { values, problems: r.problems });
      return seeOther(reply, `/cabinet/application?done=${submit ? 'submitted' : 'saved'}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'APPLICATION_ALREADY_SUBMITTED') throw err;
      return page(req, reply, 409, { error: `Nothing was changed: ${sentence(err.detail)}` });
    }
  });
}
