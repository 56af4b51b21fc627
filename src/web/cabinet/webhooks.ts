import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { listDeskViews } from '../../services/operator.js';
import {
  createEndpoint, endpointAttempts, getEndpoint, listEndpoints, recoverEndpoint, RECOVER_MAX_MS, rotateEndpointSecret, sendTestEvent, updateEndpoint, type EndpointView,
} from '../../services/webhookEndpoints.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { ButtonForm, formOf, formWithProblem, withForm } from '../forms.js';
import { sinceOf } from './callbacks.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { WebhookEnabledForm, WebhookEndpointForm, WebhookRecoverForm, WebhookRotateForm } from './forms.js';
import {
  EMPTY_ENDPOINT_FORM, endpointCreatedPage, endpointPage, secretRotatedPage, webhooksPage, type DetailProblem, type EndpointFormValues, type RecoverBounds,
} from './webhooksView.js';

const ATTEMPTS_PAGE = 50;
const MINUTE = 60_000;

/**
 * Webhook endpoints in the cabinet: the same service calls as `/gw/v1/webhook-endpoints`, with the
 * signed-in merchant as scope and the user as the actor of the audit trail. Every form posts and
 * answers with a page or a redirect; a refused one comes back with the reason and its code.
 */
export function webhookRoutes(app: FastifyInstance, ctx: Ctx): void {
  const desksOf = async (merchantId: string) => (await listDeskViews(ctx, { merchantId, limit: 500 })).items.map((d) => ({ id: d.id, name: d.name }));

  const listPage = async (req: FastifyRequest, reply: FastifyReply, status: number, form: EndpointFormValues, error: string | null, notice: string | null) => {
    const c = cab(req);
    const [endpoints, desks] = await Promise.all([listEndpoints(ctx, c.merchant.id), desksOf(c.merchant.id)]);
    return sendPage(reply, status, webhooksPage(c, { endpoints, desks, form, error, notice }));
  };

  /** `datetime-local` bounds of "recover since": 30 days ago (to the minute, inside the bound) to now; a day ago by default. */
  const recoverBounds = (): RecoverBounds => {
    const now = ctx.clock.now();
    const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    return { min: local(Math.ceil((now - RECOVER_MAX_MS) / MINUTE) * MINUTE), max: local(now), value: local(now - 86_400_000) };
  };

  const detailPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    o: { endpoint?: EndpointView; notice?: string | null; form?: EndpointFormValues; problem?: DetailProblem | null } = {},
  ) => {
    const c = cab(req);
    const id = param(req, 'endpointId');
    const e = o.endpoint ?? (await getEndpoint(ctx, c.merchant.id, id));
    const before = str(query(req).before, 20) || undefined;
    const [page, desks] = await Promise.all([endpointAttempts(ctx, c.merchant.id, e.id, { before, limit: ATTEMPTS_PAGE }), desksOf(c.merchant.id)]);
    return sendPage(
      reply,
      status,
      endpointPage(c, e, {
        desks,
        attempts: { attempts: page.attempts, next: page.next, before: before ?? null },
        notice: o.notice ?? null,
        form: o.form ?? storedForm(e),
        problem: o.problem ?? null,
        recover: recoverBounds(),
      }),
    );
  };

  app.get('/cabinet/webhooks', async (req, reply) => listPage(req, reply, 200, EMPTY_ENDPOINT_FORM, null, null));

  app.post('/cabinet/webhooks', withForm(WebhookEndpointForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, WebhookEndpointForm);
    const values = endpointFormOf(form);
    try {
      const input = endpointInput(values, problem);
      const { secret, ...endpoint } = await createEndpoint(ctx, c.merchant.id, c.user.id, input);
      return sendPage(reply, 201, endpointCreatedPage(c, endpoint, secret));
    } catch (err) {
      // Nothing was created: the form again, beside its reason, with what was typed.
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      return listPage(req, reply, refusalStatus(err), values, refusalText(err), null);
    }
  });

  app.get('/cabinet/webhooks/:endpointId', async (req, reply) => {
    const q = query(req);
    const done = q.done;
    const recovered = str(q.recovered, 10);
    const test = str(q.test, 64);
    const notice =
      done === 'saved' ? 'Saved. The next deliveries use it.'
      : done === 'on' ? 'The endpoint is enabled: new events are delivered to it. Recover the events it missed while it was off, below.'
      : done === 'off' ? 'The endpoint is disabled: nothing is delivered to it, and events meanwhile are not queued for it.'
      : /^\d+$/.test(recovered) ? `${recovered === '1' ? '1 event is' : `${recovered} events are`} queued again for this endpoint; each attempt appears in the log below.`
      : /^evt_[0-9a-z]+$/.test(test) ? `Test event ${test} is queued: it is sent within seconds, and its attempt appears in the log below (reload the page).`
      : null;
    return detailPage(req, reply, 200, { notice });
  });

  app.post('/cabinet/webhooks/:endpointId/settings', withForm(WebhookEndpointForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const id = param(req, 'endpointId');
    const endpoint = await getEndpoint(ctx, c.merchant.id, id);
    const { form, problem } = formWithProblem(req, WebhookEndpointForm);
    const values = endpointFormOf(form);
    try {
      const input = endpointInput(values, problem);
      await updateEndpoint(ctx, c.merchant.id, c.user.id, endpoint.id, input);
      return seeOther(reply, `/cabinet/webhooks/${endpoint.id}?done=saved`);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      return detailPage(req, reply, refusalStatus(err), { endpoint, form: values, problem: { form: 'settings', text: refusalText(err) } });
    }
  });

  app.post('/cabinet/webhooks/:endpointId/enabled', withForm(WebhookEnabledForm), async (req, reply) => {
    const c = cab(req);
    const { enabled } = formOf(req, WebhookEnabledForm);
    if (enabled === undefined) throw new AppError('VALIDATION_ERROR', 'enabled: must be true or false');
    const e = await updateEndpoint(ctx, c.merchant.id, c.user.id, param(req, 'endpointId'), { enabled: enabled === 'true' });
    return seeOther(reply, `/cabinet/webhooks/${e.id}?done=${e.enabled ? 'on' : 'off'}`);
  });

  app.post('/cabinet/webhooks/:endpointId/rotate-secret', withForm(WebhookRotateForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const endpoint = await getEndpoint(ctx, c.merchant.id, param(req, 'endpointId'));
    const { form } = formWithProblem(req, WebhookRotateForm);
    if (form.confirm !== 'yes') {
      const err = new AppError('VALIDATION_ERROR', 'confirm: tick the box first: the old secret stops working 24 hours after a rotation');
      return detailPage(req, reply, 400, { endpoint, problem: { form: 'rotate', text: refusalText(err) } });
    }
    const { secret } = await rotateEndpointSecret(ctx, c.merchant.id, c.user.id, endpoint.id);
    return sendPage(reply, 200, secretRotatedPage(c, endpoint, secret));
  });

  app.post('/cabinet/webhooks/:endpointId/recover', withForm(WebhookRecoverForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const endpoint = await getEndpoint(ctx, c.merchant.id, param(req, 'endpointId'));
    const { form, problem } = formWithProblem(req, WebhookRecoverForm);
    try {
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      const since = str(form.since, 64);
      if (since === '') throw new AppError('VALIDATION_ERROR', 'since: give the date and time (UTC) to recover from');
      const r = await recoverEndpoint(ctx, c.merchant.id, c.user.id, endpoint.id, sinceOf(since));
      return seeOther(reply, `/cabinet/webhooks/${endpoint.id}?recovered=${r.requeued}`);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      return detailPage(req, reply, refusalStatus(err), { endpoint, problem: { form: 'recover', text: refusalText(err) } });
    }
  });

  app.post('/cabinet/webhooks/:endpointId/test', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const { eventId } = await sendTestEvent(ctx, c.merchant.id, c.user.id, param(req, 'endpointId'));
    return seeOther(reply, `/cabinet/webhooks/${param(req, 'endpointId')}?test=${eventId}`);
  });
}

/** A refusal as the forms show it: the reason in a sentence and its code. */
const refusalText = (err: AppError) => `${sentence(err.detail)} (${err.code})`;
const refusalStatus = (err: AppError) => (ERROR_STATUS[err.code] === 409 ? 409 : 400);

/** The form as the page shows it again: lists without repeats, "All events" alone when ticked. */
function endpointFormOf(form: Static<typeof WebhookEndpointForm>): EndpointFormValues {
  const uniq = (v: string[] = []) => [...new Set(v.map((s) => s.trim()).filter(Boolean))];
  const events = uniq(form.events);
  return {
    url: str(form.url, 2048),
    events: events.includes('*') ? ['*'] : events,
    allDesks: form.deskScope !== 'chosen',
    // A nullable list in the API (null: every desk); the form sends it as repeated fields, a list.
    desks: uniq(([] as string[]).concat(form.desks ?? [])),
    description: str(form.description, 500),
  };
}

/** The stored endpoint as its settings form shows it. */
function storedForm(e: EndpointView): EndpointFormValues {
  return { url: e.url, events: [...e.events], allDesks: e.desks === null, desks: e.desks ? [...e.desks] : [], description: e.description ?? '' };
}

/**
 * The endpoint fields of the form, as the service takes them; the schema's problem first (in the
 * API's words), then what only a form can leave out. An empty description clears it.
 */
function endpointInput(v: EndpointFormValues, schemaProblem: string | null) {
  const problem =
    schemaProblem ??
    (v.url === '' ? 'url: give the address that receives the deliveries'
    : v.events.length === 0 ? 'events: tick “All events” or at least one kind'
    : !v.allDesks && v.desks.length === 0 ? 'desks: tick at least one desk, or choose every desk'
    : null);
  if (problem) throw new AppError('VALIDATION_ERROR', problem);
  return { url: v.url, events: v.events, desks: v.allDesks ? null : v.desks, description: v.description === '' ? null : v.description };
}
