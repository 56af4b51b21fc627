import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { createLink, listLinkViews, merchantLink, openPaymentLink, setMerchantLinkEnabled } from '../../services/links.js';
import { listDeskViews } from '../../services/operator.js';
import { html } from '../html.js';
import { document, sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { formOf, formWithProblem, withForm } from '../forms.js';
import { sinceOf } from './callbacks.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { LinkEnabledForm, LinkForm } from './forms.js';
import { EMPTY_LINK_FORM, linkPage, linksPage, type LinkDesk, type LinkFormValues } from './linksView.js';
import { orderDetail } from './orders.js';

const LINKS_PAGE = 50;

/** Payment links in the cabinet: the list, a new link, one link with its orders, the switch. */
export function linkRoutes(app: FastifyInstance, ctx: Ctx): void {
  const desksOf = async (merchantId: string): Promise<LinkDesk[]> =>
    (await listDeskViews(ctx, { merchantId, limit: 500 })).items.map((d) => ({ id: d.id, name: d.name, rails: d.rails, currencies: d.currencies }));

  const listPage = async (req: Parameters<typeof cab>[0], reply: FastifyReply, status: number, form: LinkFormValues, error: string | null, notice: string | null) => {
    const c = cab(req);
    const [page, desks] = await Promise.all([listLinkViews(ctx, c.merchant.id, { before: str(query(req).before, 64) || undefined, limit: LINKS_PAGE }), desksOf(c.merchant.id)]);
    const ordersOf = (id: string) => page.ordersOf(id).map(orderDetail);
    return sendPage(reply, status, linksPage(c, { lines: page.items, ordersOf, desks, next: page.hasMore ? page.next : null, form, error, notice }));
  };

  app.get('/cabinet/links', async (req, reply) => {
    const done = query(req).done;
    const notice = done === 'off' ? 'The link is off: opening it now says it is no longer active.' : done === 'on' ? 'The link is on again.' : null;
    return listPage(req, reply, 200, EMPTY_LINK_FORM, null, notice);
  });

  app.post('/cabinet/links', withForm(LinkForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, LinkForm);
    const values = linkFormOf(form);
    try {
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      const expiresAt = values.expiresAt === '' ? null : expiryOf(values.expiresAt);
      const link = await createLink(ctx, c.merchant.id, { ...values, expiresAt, rail: values.rail || null });
      const { link: line, orders } = await merchantLink(ctx, c.merchant.id, link.id);
      const desks = await desksOf(c.merchant.id);
      const notice = line.state === 'expired'
        ? 'Link created, but its expiry time has already passed: it answers “no longer active”. Make another with a later time.'
        : 'Link created. Send it to your customer: each opening makes a new order.';
      return sendPage(reply, 201, linkPage(c, line, orders.map(orderDetail), desks, notice));
    } catch (err) {
      // A desk of another merchant is not found, as anywhere else; a refused field, the form again as typed.
      if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
      return listPage(req, reply, ERROR_STATUS[err.code] === 409 ? 409 : 400, values, `${sentence(err.detail)} (${err.code})`, null);
    }
  });

  app.get('/cabinet/links/:linkId', async (req, reply) => {
    const c = cab(req);
    const { link, orders } = await merchantLink(ctx, c.merchant.id, param(req, 'linkId'));
    return sendPage(reply, 200, linkPage(c, link, orders.map(orderDetail), await desksOf(c.merchant.id), null));
  });

  app.post('/cabinet/links/:linkId/enabled', withForm(LinkEnabledForm), async (req, reply) => {
    const c = cab(req);
    const { enabled } = formOf(req, LinkEnabledForm);
    if (enabled === undefined) throw new AppError('VALIDATION_ERROR', 'enabled: must be true or false');
    await setMerchantLinkEnabled(ctx, c.merchant.id, param(req, 'linkId'), enabled === 'true');
    return seeOther(reply, `/cabinet/links?done=${enabled === 'true' ? 'on' : 'off'}`);
  });
}

/** A `datetime-local` value or an ISO 8601 time (as "redeliver since"), or a date alone: the end of that UTC day. */
function expiryOf(text: string): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return new Date(Date.parse(`${text}T00:00:00Z`) + 86_400_000);
  return sinceOf(text);
}

function linkFormOf(form: Static<typeof LinkForm>): LinkFormValues {
  return {
    amount: str(form.amount, 40),
    currency: str(form.currency, 3).toUpperCase(),
    deskId: str(form.deskId, 64),
    description: str(form.description, 255),
    expiresAt: str(form.expiresAt, 40),
    rail: str(form.rail, 40),
  };
}

/** A page the customer who opened a link sees when there is no order to send them to. */
function linkAnswer(reply: FastifyReply, status: number, title: string, text: string) {
  return sendPage(
    reply,
    status,
    document({
      lang: 'en',
      title: `${title} · Paygate`,
      styles: ['pay.css'],
      body: html`<main class="pay" id="main"><section class="state state-cancelled"><h1>${title}</h1><p>${text}</p></section></main>`,
    }),
  );
}

/**
 * `/l/{linkId}`, for anyone: each GET creates an order and answers 303 to its payment page; a link
 * switched off or past its expiry answers 410. HEAD (link previews) creates nothing. Openings are
 * limited per client address like the payment page, and per desk like any order.
 */
export function publicLinkRoute(app: FastifyInstance, ctx: Ctx): void {
  app.get('/l/:linkId', { exposeHeadRoute: false }, async (req, reply) => {
    const id = param(req, 'linkId');
    if (!/^lnk_[0-9a-z]{26}$/.test(id)) return linkAnswer(reply, 404, 'No such payment link', 'Check the address you were given.');
    const admission = await ctx.limits.payPage.take(`link:${req.ip}`);
    if (!admission.ok) {
      reply.header('Retry-After', String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))));
      return linkAnswer(reply, 429, 'Too many attempts', 'Wait a few seconds and open the link again.');
    }
    const r = await openPaymentLink(ctx, id);
    if (r.kind === 'order') return seeOther(reply, `/pay/${r.orderId}`);
    if (r.kind === 'unknown') return linkAnswer(reply, 404, 'No such payment link', 'Check the address you were given.');
    if (r.kind === 'gone') {
      return linkAnswer(reply, 410, 'This payment link is no longer active', r.state === 'expired' ? 'It has expired. Ask the seller for a new one.' : 'The seller has switched it off. Ask them for a new one.');
    }
    if (r.kind === 'tooMany') {
      reply.header('Retry-After', String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))));
      return linkAnswer(reply, 429, 'Too many payments at once', 'Wait a few seconds and open the link again.');
    }
    req.log.info({ linkId: id, code: r.code }, 'payment link refused an order');
    return linkAnswer(reply, 503, 'Payments through this link are not possible right now', 'Try again later, or ask the seller.');
  });
  app.head('/l/:linkId', async (_req, reply) => reply.code(200).header('Cache-Control', 'no-store').send(''));
}
