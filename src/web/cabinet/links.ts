import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { createLink, listLinkViews, merchantLink, openPaymentLink, OPEN_PER_CLIENT, setMerchantLinkEnabled, showPaymentLink, type OpenLinkOrder, type PublicLink } from '../../services/links.js';
import { listDeskViews } from '../../services/operator.js';
import { formatAmount, formatUtcTime } from '../format.js';
import { html, raw, type Html } from '../html.js';
import { chooseLang, isLang, translator, type Lang } from '../i18n/index.js';
import { document, sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { formOf, formWithProblem, publicForm, withForm } from '../forms.js';
import { ICONS, languageSwitcher, renderNotFound } from '../pay/view.js';
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
        : 'Link created. Send it to your customer: each press of its Pay button makes a new order.';
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

const LINK_ID = /^lnk_[0-9a-z]{26}$/;

/** The Pay button's form: nothing but the button (no session, so no CSRF token). */
const PayForm = publicForm({});

type LinkState = 'pay' | 'unavailable' | 'busy';

/**
 * The page of `/l/{id}` in the customer's language, on the payment page's stylesheet and wording:
 * the merchant's name, what the link is for and the amount as the payment page shows them, then
 * the Pay button (a plain form: it works without JavaScript), or why there is none: no order of the
 * link can be created now, or the customer already has OPEN_PER_CLIENT orders of it open (each
 * linked to its payment page).
 */
function renderLinkPage(o: { link: PublicLink; state: LinkState; open: readonly OpenLinkOrder[]; lang: Lang; chosen: Lang | null }): Html {
  const { link, lang } = o;
  const t = translator(lang);
  const merchant = link.merchantName ?? '';
  const suffix = o.chosen ? `?lang=${o.chosen}` : '';
  const self = `/l/${link.id}`;
  let action: Html;
  if (o.state === 'pay') {
    action = html`<form method="post" action="${self + suffix}" class="cta" id="pay-form"><button type="submit" class="button" id="pay">${t('openPayment')}</button></form>`;
  } else if (o.state === 'unavailable') {
    action = html`<section class="state state-dispute" id="state" role="status"><div class="icon" aria-hidden="true">${raw(ICONS.dispute)}</div><h2>${t('linkUnavailableTitle')}</h2><p>${t('linkUnavailableText')}</p></section>`;
  } else {
    const [before, after] = t('payBefore').split('{time}');
    const rows = o.open.map((p) => {
      const when = p.status === 'Payed' ? t('payedTitle') : html`${before}<time datetime="${p.expiresAt}">${formatUtcTime(lang, new Date(p.expiresAt))}</time>${after}`;
      return html`<div class="row"><dt>${when}</dt><dd><a class="value" href="${`/pay/${p.orderId}${suffix}`}">${p.orderId}</a></dd></div>\n`;
    });
    action = html`<section class="state state-payed" id="state" role="status"><div class="icon" aria-hidden="true">${raw(ICONS.payed)}</div><h2>${t('linkOpenTitle')}</h2><p>${t('linkOpenText', { n: String(OPEN_PER_CLIENT) })}</p></section>
<section class="details" id="open-payments" aria-labelledby="open-h"><h2 id="open-h">${t('orderIdLabel')}</h2>
<dl>
${rows}</dl>
</section>`;
  }
  const body = html`<main class="pay" id="main">
${link.sandbox && html`<p class="sandbox" role="note">${t('sandboxBanner')}</p>`}
<header class="summary${o.state === 'pay' ? '' : ' muted'}">
<h1 class="merchant">${t('payTo', { merchant })}</h1>
<p class="description"><span class="what">${t('paymentFor')}:</span> <span id="description" dir="auto">${link.description}</span></p>
<p class="label">${t('amountToPay')}</p>
<p class="amount" id="amount">${formatAmount(lang, link.amount, link.currency)}</p>
<p class="currency"><span class="mono" id="exact-amount">${link.amount} ${link.currency}</span></p>
</header>
${action}
${languageSwitcher(self, lang, t)}
</main>`;
  return document({ lang, title: t('pageTitle', { merchant }), styles: ['pay.css'], body });
}

/** A link's page without the link on it: switched off or lapsed (410), or too many requests (429). */
function renderLinkState(lang: Lang, o: { self: string | null; title: string; text: Html | string; icon: keyof typeof ICONS }): Html {
  const t = translator(lang);
  return document({
    lang,
    title: o.title,
    styles: ['pay.css'],
    body: html`<main class="pay" id="main"><section class="state state-${o.icon}" id="state"><div class="icon" aria-hidden="true">${raw(ICONS[o.icon])}</div><h1>${o.title}</h1><p>${o.text}</p></section>
${o.self && languageSwitcher(o.self, lang, t)}
</main>`,
  });
}

/**
 * `/l/{linkId}`, for anyone. `GET` shows the link's page and creates nothing (no order, no
 * requisite taken): anyone may open it any number of times. Its Pay button, `POST`, creates the
 * order and answers 303 to its payment page, at most OPEN_PER_CLIENT open orders of the link per
 * client address (the next is answered with the page listing them, 429, and creates nothing). A
 * link switched off or past its expiry answers 410, an unknown one 404, one whose orders nothing
 * can take now 503 (the page without the button). HEAD (link previews) creates nothing. Both
 * methods are limited per client address like the payment page, and orders per desk like any.
 *
 * The POST carries no CSRF token (no session) and its Origin is not checked, like the payment
 * page's own form: our pages send no referrer, so a browser's form POST from them says
 * `Origin: null`, as a foreign page's may.
 */
export function publicLinkRoute(app: FastifyInstance, ctx: Ctx): void {
  /** `?lang=` when it names a language: kept on the form, the language links and the way to the payment page. */
  const chosenLang = (req: FastifyRequest): Lang | null => {
    const q = (req.query as { lang?: unknown } | undefined)?.lang;
    return isLang(q) ? q : null;
  };
  const langOf = (req: FastifyRequest): Lang => chooseLang((req.query as { lang?: unknown } | undefined)?.lang, req.headers['accept-language']);

  const tooMany = (reply: FastifyReply, lang: Lang, retryAfterMs: number) => {
    const t = translator(lang);
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const at = new Date(ctx.clock.now() + seconds * 1000);
    const wait = seconds < 60 ? t('waitSeconds', { n: String(seconds) }) : t('waitMinutes', { n: String(Math.ceil(seconds / 60)) });
    const [before, after] = t('tooManyText', { wait }).split('{time}');
    const text = html`${before}<time datetime="${at.toISOString()}">${formatUtcTime(lang, at)}</time>${after ?? ''}`;
    return sendPage(reply.header('Retry-After', String(seconds)), 429, renderLinkState(lang, { self: null, title: t('tooManyTitle'), text, icon: 'expired' }));
  };
  const goneAnswer = (reply: FastifyReply, lang: Lang, id: string, state: 'off' | 'expired') => {
    const t = translator(lang);
    return sendPage(reply, 410, renderLinkState(lang, { self: `/l/${id}`, title: t('linkGoneTitle'), text: t(state === 'expired' ? 'linkExpiredText' : 'linkOffText'), icon: 'expired' }));
  };
  const notFound = (reply: FastifyReply, lang: Lang) => sendPage(reply, 404, renderNotFound(lang, translator(lang)));

  /** The link's page as `client` sees it now; `state` overrides what it offers (a refusal or the limit met at POST). */
  const page = async (req: FastifyRequest, reply: FastifyReply, id: string, force?: { status: number; state: LinkState }) => {
    const lang = langOf(req);
    const shown = await showPaymentLink(ctx, id, req.ip);
    if (shown.kind === 'unknown') return notFound(reply, lang);
    if (shown.kind === 'gone') return goneAnswer(reply, lang, id, shown.state);
    const state: LinkState = force?.state ?? (shown.refusal ? 'unavailable' : shown.open.length >= OPEN_PER_CLIENT ? 'busy' : 'pay');
    const status = force?.status ?? (state === 'unavailable' ? 503 : 200);
    return sendPage(reply, status, renderLinkPage({ link: shown.link, state, open: shown.open, lang, chosen: chosenLang(req) }));
  };

  /** The id's form and the per-address limit: false when answered already. */
  const admitted = async (req: FastifyRequest, reply: FastifyReply, id: string): Promise<boolean> => {
    if (!LINK_ID.test(id)) {
      await notFound(reply, langOf(req));
      return false;
    }
    const admission = await ctx.limits.payPage.take(`link:${req.ip}`);
    if (!admission.ok) {
      await tooMany(reply, langOf(req), admission.retryAfterMs);
      return false;
    }
    return true;
  };

  app.get('/l/:linkId', { exposeHeadRoute: false }, async (req, reply) => {
    const id = param(req, 'linkId');
    if (!(await admitted(req, reply, id))) return reply;
    return page(req, reply, id);
  });

  app.post('/l/:linkId', withForm(PayForm), async (req, reply) => {
    const id = param(req, 'linkId');
    // A browser says where a form was sent from: a press made on another site (a page making its
    // visitors' browsers order) is refused; clients that send no such header are not browsers.
    if (req.headers['sec-fetch-site'] === 'cross-site') return page(req, reply, id, { status: 403, state: 'pay' });
    if (!(await admitted(req, reply, id))) return reply;
    const lang = langOf(req);
    const r = await openPaymentLink(ctx, id, req.ip);
    if (r.kind === 'order') {
      const chosen = chosenLang(req);
      return seeOther(reply, `/pay/${r.orderId}${chosen ? `?lang=${chosen}` : ''}`);
    }
    if (r.kind === 'unknown') return notFound(reply, lang);
    if (r.kind === 'gone') return goneAnswer(reply, lang, id, r.state);
    if (r.kind === 'tooMany') return tooMany(reply, lang, r.retryAfterMs);
    if (r.kind === 'busy') return page(req, reply, id, { status: 429, state: 'busy' });
    req.log.info({ linkId: id, code: r.code }, 'payment link refused an order');
    return page(req, reply, id, { status: 503, state: 'unavailable' });
  });
  app.head('/l/:linkId', async (_req, reply) => reply.code(200).header('Cache-Control', 'no-store').send(''));
}
