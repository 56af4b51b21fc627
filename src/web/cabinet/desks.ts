import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { dec } from '../../domain/money.js';
import { merchantDesk } from '../../services/cabinet.js';
import { methodsFor } from '../../services/gatewayReads.js';
import { createDesk, deskView, listCurrencyViews, listDeskViews, patchDesk, rotateDeskSecret } from '../../services/operator.js';
import { sendTestCallback } from '../../services/testCallback.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { ButtonForm, formOf, formWithProblem, withForm } from '../forms.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { deskCreatedPage, deskPage, desksPage, EMPTY_DESK_FORM, secretRotatedPage, type DeskForm as DeskFormView } from './desksView.js';
import { DeskEnabledForm, DeskForm } from './forms.js';

/** Cash desks: the list and the new-desk form, one desk's settings and actions (web spec's fixed paths). */
export function deskRoutes(app: FastifyInstance, ctx: Ctx): void {
  const desksOf = async (merchantId: string) => (await listDeskViews(ctx, { merchantId, limit: 500 })).items;
  const enabledCurrencies = async () => (await listCurrencyViews(ctx)).filter((c) => c.enabled).map((c) => c.code);

  app.get('/cabinet/desks', async (req, reply) => {
    const c = cab(req);
    return sendPage(reply, 200, desksPage(c, await desksOf(c.merchant.id), await enabledCurrencies(), EMPTY_DESK_FORM, null));
  });

  app.post('/cabinet/desks', withForm(DeskForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, DeskForm);
    const f = deskFormOf(form);
    try {
      const d = await createDesk(ctx, c.merchant.id, { method: f.method, ...deskFields(f, problem), name: f.name === '' ? undefined : f.name, sandbox: f.sandbox });
      const { secret, ...view } = d;
      return sendPage(reply, 201, deskCreatedPage(c, view, secret, ctx.config.publicBaseUrl));
    } catch (err) {
      // Nothing was created: the form again, beside its reason, with what was typed.
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      return sendPage(reply, refusalStatus(err), desksPage(c, await desksOf(c.merchant.id), await enabledCurrencies(), f, refusalText(err)));
    }
  });

  app.get('/cabinet/desks/:deskId', async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const picture = await methodsFor(ctx, desk, c.merchant);
    const done = query(req).done;
    const notice =
      done === 'on' ? 'The desk is on: it takes new orders.'
      : done === 'off' ? 'The desk is off: new orders answer SHOP_INACTIVE.'
      : done === 'saved' ? 'Settings saved. New orders use them at once.'
      : null;
    const view = deskView(desk);
    return sendPage(reply, 200, deskPage(c, view, picture, notice, { form: storedDeskForm(view), currencies: await enabledCurrencies(), error: null, test: null }));
  });

  app.post('/cabinet/desks/:deskId/settings', withForm(DeskForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { form, problem } = formWithProblem(req, DeskForm);
    // The method and the test mode are the desk's for life; a form without a name (an empty field) keeps the desk's.
    const typed = deskFormOf(form);
    const f = { ...typed, method: desk.method, name: typed.name || desk.name, sandbox: desk.sandbox };
    // The form has no mode; one sent that differs from the desk's is refused like a bad field.
    const modeChanged = form.sandbox !== undefined && (form.sandbox === 'true') !== desk.sandbox;
    const refused = (problem?.startsWith('method:') ? null : problem) ?? (modeChanged ? 'sandbox: a cash desk keeps its test mode for life; create another desk' : null);
    try {
      await patchDesk(ctx, desk.id, { ...deskFields(f, refused), name: f.name });
      return seeOther(reply, `/cabinet/desks/${desk.id}?done=saved`);
    } catch (err) {
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      const picture = await methodsFor(ctx, desk, c.merchant);
      const extras = { form: f, currencies: await enabledCurrencies(), error: refusalText(err), test: null };
      return sendPage(reply, refusalStatus(err), deskPage(c, deskView(desk), picture, null, extras));
    }
  });

  app.post('/cabinet/desks/:deskId/test-callback', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const test = await sendTestCallback(ctx, c.merchant.id, param(req, 'deskId'));
    const desk = await merchantDesk(ctx, c.merchant.id, test.deskId);
    const view = deskView(desk);
    return sendPage(reply, 200, deskPage(c, view, await methodsFor(ctx, desk, c.merchant), null, { form: storedDeskForm(view), currencies: await enabledCurrencies(), error: null, test }));
  });

  app.post('/cabinet/desks/:deskId/enabled', withForm(DeskEnabledForm), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { enabled } = formOf(req, DeskEnabledForm);
    if (enabled === undefined) throw new AppError('VALIDATION_ERROR', 'enabled: must be true or false');
    await patchDesk(ctx, desk.id, { enabled: enabled === 'true' });
    return seeOther(reply, `/cabinet/desks/${desk.id}?done=${enabled === 'true' ? 'on' : 'off'}`);
  });

  app.post('/cabinet/desks/:deskId/secret', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const desk = await merchantDesk(ctx, c.merchant.id, param(req, 'deskId'));
    const { secret } = await rotateDeskSecret(ctx, desk.id);
    return sendPage(reply, 200, secretRotatedPage(c, deskView(desk), secret, ctx.config.publicBaseUrl));
  });

}

/** A refusal of the desk form, as the form shows it: the reason in a sentence and its code. */
const refusalText = (err: AppError) => `${sentence(err.detail)} (${err.code})`;
const refusalStatus = (err: AppError) => (ERROR_STATUS[err.code] === 409 ? 409 : 400);

/** The desk form as the page shows it again: lists without repeats, an empty limit as 0. */
function deskFormOf(form: Static<typeof DeskForm>): DeskFormView {
  const uniq = (v: string[] = []) => [...new Set(v.map((s) => s.trim()).filter(Boolean))];
  return {
    name: str(form.name, 300),
    method: str(form.method, 40),
    rails: uniq(form.rails),
    currencies: uniq(form.currencies).map((s) => s.toUpperCase()),
    minUsd: str(form.minUsd, 40) || '0',
    maxUsd: str(form.maxUsd, 40) || '0',
    callbackUrl: str(form.callbackUrl, 2048),
    callbacksEnabled: form.callbacksEnabled !== 'false',
    sandbox: form.sandbox === 'true',
  };
}

/** A stored limit as the form shows it: empty for none, else without trailing zeros (`50`, not `50.00000000`). */
function limitField(v: string): string {
  const d = dec(v);
  return d.isZero() ? '' : d.toFixed();
}

/** The settings form as the desk has them now. */
function storedDeskForm(d: ReturnType<typeof deskView>): DeskFormView {
  return { name: d.name, method: d.method, rails: d.rails, currencies: d.currencies, minUsd: limitField(d.minUsd), maxUsd: limitField(d.maxUsd), callbackUrl: d.callbackUrl ?? '', callbacksEnabled: d.callbacksEnabled, sandbox: d.sandbox };
}

/** What the schema leaves to the form: at least one currency, and a bound on the lists. */
function deskFormProblem(f: DeskFormView): string | null {
  if (f.currencies.length === 0) return 'currencies: choose at least one currency';
  if (f.rails.length > 50 || f.currencies.length > 50) return 'rails: too many values';
  return null;
}

/**
 * The desk fields of the form, checked (the schema's problem first, in the API's words), as the
 * operator API's create and patch take them; a refusal is VALIDATION_ERROR.
 */
function deskFields(f: DeskFormView, schemaProblem: string | null) {
  const problem = schemaProblem ?? deskFormProblem(f);
  if (problem) throw new AppError('VALIDATION_ERROR', problem);
  return {
    rails: f.rails,
    currencies: f.currencies,
    minUsd: f.minUsd,
    maxUsd: f.maxUsd,
    callbackUrl: f.callbackUrl === '' ? null : f.callbackUrl,
    callbacksEnabled: f.callbacksEnabled,
  };
}

