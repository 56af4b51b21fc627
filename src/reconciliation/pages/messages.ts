/**
 * Device messages in the back office: the unread queue with its actions (a template made from a
 * message, a credit entered by hand from it through the hand credit's service, a message put
 * aside), and the templates with their "try it on this text" preview. Every change is the
 * operator API's service with the operator as actor.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { AppError } from '../../domain/errors.js';
import { bankAmount, currencyOf, draftPattern } from '../../domain/messageText.js';
import { choice, formOf, formWithProblem, sessionForm, text, withForm } from '../../web/forms.js';
import { param, query, sentence, type Kit } from '../../web/office/kit.js';
import { seeOther } from '../../web/session.js';
import { createOperatorCredit } from '../credits.js';
import { closeMessage, createDevice, listDeviceViews, rotateDeviceSigningKey, createTemplate, getMessageView, getTemplateView, listTemplateViews, listUnread, patchTemplate, tryTemplates } from '../messages.js';
import { devicesPage, MESSAGES_PATH, TEMPLATES_PATH, templateFormPage, templatesPage, unreadPage, type TemplateValues } from './messagesView.js';
import { noticeOf } from './ui.js';
import { poolProvider } from '../queue.js';

const NOTICES = {
  credited: 'Credit recorded from the message and matched like any other; the message left the queue.',
  'put-aside': 'Message put aside: it is kept, out of the queue.',
  'template-saved': 'Template saved: the next messages are read with it.',
};

const TemplateForm = sessionForm({
  intent: choice(['preview', 'save'] as const),
  name: text({ maxLength: 100 }),
  sender: text({ maxLength: 2000 }),
  pattern: text({ maxLength: 2000 }),
  kind: choice(['credit', 'debit', 'other'] as const),
  currency: text({ maxLength: 3 }),
  providerId: text({ maxLength: 128 }),
  enabled: choice(['true'] as const),
  sampleSender: text({ maxLength: 255 }),
  sampleText: text({ maxLength: 4000 }),
});
const TryForm = sessionForm({ sampleSender: text({ maxLength: 255 }), sampleText: text({ maxLength: 4000 }) });
const CreditForm = sessionForm({ account: text({ minLength: 1, maxLength: 255 }), amount: text({ minLength: 1, maxLength: 20 }), currency: text({ minLength: 1, maxLength: 3 }), payer: text({ maxLength: 255 }) });
const DeviceForm = sessionForm({ name: text({ maxLength: 100 }), requisiteIds: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 100 })) });
const DismissForm = sessionForm({ reason: text({ minLength: 1, maxLength: 500 }) });

type TForm = Static<typeof TemplateForm>;

const blankToNull = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());

/** The template the form describes, as `POST /admin/v1/message-templates` takes it. */
const templateInput = (f: TForm, withEnabled: boolean) => ({
  name: f.name ?? '',
  sender: blankToNull(f.sender),
  pattern: f.pattern ?? '',
  kind: f.kind ?? 'credit',
  currency: blankToNull(f.currency)?.toUpperCase() ?? null,
  providerId: blankToNull(f.providerId),
  ...(withEnabled ? { enabled: f.enabled === 'true' } : {}),
});

const typed = (f: TForm): TemplateValues => ({ ...f, enabled: f.enabled ?? (f.intent ? 'false' : undefined) });

export async function messagePages(app: FastifyInstance, kit: Kit): Promise<void> {
  const { ctx, page, act } = kit;

  app.get(MESSAGES_PATH, async (req, reply) => {
    const messages = await listUnread(ctx, 100);
    return page(req, reply, (s) => unreadPage(s, messages, noticeOf(query(req).done, NOTICES)));
  });

  kit.adminPost(`${MESSAGES_PATH}/:id/credit`, CreditForm, async (req, reply) => {
    const m = await getMessageView(ctx, param(req, 'id'));
    const f = formOf(req, CreditForm);
    // Written as the bank wrote it (`1 500,00`) or as the API takes it: one exact amount either way.
    const amount = bankAmount(f.amount ?? '') ?? f.amount ?? '';
    const currency = currencyOf(f.currency ?? '') ?? (f.currency ?? '').toUpperCase();
    await act(req, 'credit.create', m.id, async (c) => {
      const r = await createOperatorCredit(c, { providerId: m.providerId, account: f.account ?? '', amount, currency, receivedAt: m.receivedAt, payer: blankToNull(f.payer), sourceId: `msg:${m.messageId}` });
      if (!(await closeMessage(c, m.id, r.credit.id, 'credited by hand'))) throw new AppError('VALIDATION_ERROR', 'the message was dealt with meanwhile');
      return r;
    });
    return seeOther(reply, `${MESSAGES_PATH}?done=credited`);
  });

  kit.adminPost(`${MESSAGES_PATH}/:id/dismiss`, DismissForm, async (req, reply) => {
    const m = await getMessageView(ctx, param(req, 'id'));
    const f = formOf(req, DismissForm);
    await act(req, 'message.putAside', m.id, (c) => closeMessage(c, m.id, null, `put aside: ${(f.reason ?? '').trim()}`));
    return seeOther(reply, `${MESSAGES_PATH}?done=put-aside`);
  });

  const showDevices = async (req: FastifyRequest, reply: FastifyReply, id: string, st: { done?: string | null; error?: string | null; key?: { deviceId: string; signingKey: string; isNew: boolean } }, status = 200) => {
    const { provider, requisites } = await poolProvider(ctx, id);
    const devices = await listDeviceViews(ctx, provider.id);
    return page(req, reply, (s) => devicesPage(s, provider, devices, requisites, { ...st, silenceMinutes: ctx.config.deviceSilenceMinutes, publicUrl: ctx.config.publicBaseUrl }), status);
  };
  // A signing key is shown on the page that answers its making and never again, so that page is answered directly.
  kit.adminPost('/office/devices/:id/signing-key', sessionForm({}), async (req, reply) => {
    const d = await act(req, 'device.signingKey', param(req, 'id'), (c) => rotateDeviceSigningKey(c, param(req, 'id')));
    reply.header('cache-control', 'no-store');
    return showDevices(req, reply, d.providerId, { key: { deviceId: d.id, signingKey: d.signingKey, isNew: false } });
  });
  app.get('/office/pools/:id/devices', async (req, reply) => showDevices(req, reply, param(req, 'id'), { done: noticeOf(query(req).done, NOTICES) }));
  kit.adminPost('/office/pools/:id/devices', DeviceForm, async (req, reply) => {
    const id = param(req, 'id');
    const { form, problem } = formWithProblem(req, DeviceForm);
    if (problem) return showDevices(req, reply, id, { error: problem }, 400);
    let made;
    try {
      made = await act(req, 'device.create', null, (c) => createDevice(c, id, { name: form.name ?? '', requisiteIds: form.requisiteIds ?? [] }), (r) => r.id);
    } catch (err) {
      if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'REQUISITE_NOT_FOUND')) return showDevices(req, reply, id, { error: `Not added: ${sentence(err.detail)}` }, 400);
      throw err;
    }
    reply.header('cache-control', 'no-store');
    return showDevices(req, reply, id, { key: { deviceId: made.id, signingKey: made.signingKey, isNew: true } });
  }, { invalid: 'route' });

  app.get(TEMPLATES_PATH, async (req, reply) => {
    const templates = await listTemplateViews(ctx, null);
    return page(req, reply, (s) => templatesPage(s, templates, { done: noticeOf(query(req).done, NOTICES) }));
  });

  // Trying changes nothing: support operators may too.
  app.post(`${TEMPLATES_PATH}/try`, withForm(TryForm, { invalid: 'route' }), async (req, reply) => {
    const { form, problem } = formWithProblem(req, TryForm);
    const templates = await listTemplateViews(ctx, null);
    const values = { sampleSender: form.sampleSender, sampleText: form.sampleText };
    if (problem) return page(req, reply, (s) => templatesPage(s, templates, { values, error: problem }), 400);
    try {
      const tried = await tryTemplates(ctx, { sender: form.sampleSender ?? '', text: form.sampleText ?? '' });
      return page(req, reply, (s) => templatesPage(s, templates, { values, tried }));
    } catch (err) {
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return page(req, reply, (s) => templatesPage(s, templates, { values, error: sentence(err.detail) }), 400);
      throw err;
    }
  });

  app.get(`${TEMPLATES_PATH}/new`, { preHandler: kit.adminOnly }, async (req, reply) => {
    const from = query(req).from;
    const m = typeof from === 'string' && from.startsWith('msg_') ? await getMessageView(ctx, from).catch(() => null) : null;
    const values: TemplateValues = m
      ? { name: `${m.sender}: credit`, sender: `^${m.sender.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$`, pattern: draftPattern(m.text), kind: 'credit', sampleSender: m.sender, sampleText: m.text }
      : { kind: 'credit' };
    return page(req, reply, (s) => templateFormPage(s, { existing: null, values }));
  });

  app.get(`${TEMPLATES_PATH}/:id`, { preHandler: kit.adminOnly }, async (req, reply) => {
    const t = await getTemplateView(ctx, param(req, 'id'));
    const values: TemplateValues = { name: t.name, sender: t.sender ?? '', pattern: t.pattern, kind: t.kind, currency: t.currency ?? '', providerId: t.providerId ?? '', enabled: String(t.enabled) };
    return page(req, reply, (s) => templateFormPage(s, { existing: t, values, done: noticeOf(query(req).done, NOTICES) }));
  });

  /** Preview (the template as typed, tried on the sample before the others) or save. */
  const answer = async (req: FastifyRequest, reply: FastifyReply, id: string | null) => {
    const existing = id ? await getTemplateView(ctx, id) : null;
    const { form, problem } = formWithProblem(req, TemplateForm);
    const values = typed(form);
    const show = (st: { error?: string; tried?: Awaited<ReturnType<typeof tryTemplates>> }, status: number) => page(req, reply, (s) => templateFormPage(s, { existing, values, ...st }), status);
    if (problem) return show({ error: problem }, 400);
    const input = templateInput(form, existing !== null);
    try {
      if (form.intent !== 'save') {
        if (!form.sampleText) return show({ error: 'Paste a message text to preview the template on.' }, 400);
        return show({ tried: await tryTemplates(ctx, { sender: form.sampleSender ?? '', text: form.sampleText, template: { ...input, enabled: true } }) }, 200);
      }
      if (existing) {
        await act(req, 'messageTemplate.update', existing.id, (c) => patchTemplate(c, existing.id, input));
        return seeOther(reply, `${TEMPLATES_PATH}/${existing.id}?done=template-saved`);
      }
      await act(req, 'messageTemplate.create', null, (c) => createTemplate(c, input), (r) => r.id);
      return seeOther(reply, `${TEMPLATES_PATH}?done=template-saved`);
    } catch (err) {
      if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'PROVIDER_NOT_FOUND')) return show({ error: `${form.intent === 'save' ? 'Not saved' : 'Cannot preview'}: ${sentence(err.detail)}` }, 400);
      throw err;
    }
  };
  kit.adminPost(`${TEMPLATES_PATH}/new`, TemplateForm, (req, reply) => answer(req, reply, null), { invalid: 'route' });
  kit.adminPost(`${TEMPLATES_PATH}/:id`, TemplateForm, (req, reply) => answer(req, reply, param(req, 'id')), { invalid: 'route' });
}
