import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { Ctx } from '../../context.js';
import { sendTooMany } from '../../server/errors.js';
import { PayerReferenceBody } from '../../http/schemas/gateway.js';
import { getPayPage, reportPayerReference, type PayPage } from '../../services/payPage.js';
import { escapeHtml } from '../html.js';
import { chooseLang, translator, type Lang } from '../i18n/index.js';
import { sendPage } from '../layout.js';
import { fieldsFrom, formWithProblem, publicForm, withForm } from '../forms.js';
import { payKind, renderNotFound, renderPayPage, upiLink, viewOf } from './view.js';

/**
 * The UTR form of the payment page: the field of `POST /api/pay/{id}/payer-reference`, with its
 * rule. A value the rule refuses is answered on the page with the value kept, as the service's
 * own refusal is.
 */
const UtrForm = publicForm(fieldsFrom(PayerReferenceBody, ['payerReference']));

/**
 * GET /pay/{id}: the hosted payment page; POST /pay/{id}: the UTR form of a Upi order, so the
 * page works without JavaScript. Both count against the same per-IP limits as the JSON API.
 */
export function payPageRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/pay/:id', async (req, reply) => {
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const lang = langOf(req);
    const page = await getPayPage(ctx, idOf(req));
    if (!page) return sendPage(reply, 404, renderNotFound(lang, translator(lang)));
    return sendPage(reply, 200, await render(ctx, page, lang, null, null));
  });

  app.post('/pay/:id', withForm(UtrForm, { invalid: 'route' }), async (req, reply) => {
    const admission = await ctx.limits.payerReference.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const lang = langOf(req);
    const { form, problem } = formWithProblem(req, UtrForm);
    const value = form.payerReference ?? null;
    const reported = problem ? null : await reportPayerReference(ctx, idOf(req), value);
    // Post/redirect/get: a reload does not post the form again.
    if (reported?.ok) return reply.code(303).header('Location', `/pay/${encodeURIComponent(idOf(req))}?lang=${lang}`).send('');
    const page = await getPayPage(ctx, idOf(req));
    if (!page) return sendPage(reply, 404, renderNotFound(lang, translator(lang)));
    const error = !reported || reported.refusal.code === 'VALIDATION_ERROR' ? 'invalid' : 'refused';
    return sendPage(reply, error === 'invalid' ? 400 : 409, await render(ctx, page, lang, error, typeof value === 'string' ? value.slice(0, 64) : null));
  });
}

function idOf(req: FastifyRequest): string {
  return (req.params as { id: string }).id;
}

function langOf(req: FastifyRequest): Lang {
  return chooseLang((req.query as { lang?: unknown }).lang, req.headers['accept-language']);
}

async function render(ctx: Ctx, page: PayPage, lang: Lang, utrError: 'invalid' | 'refused' | null, utrValue: string | null) {
  const t = translator(lang);
  return renderPayPage({ page, lang, t, now: ctx.clock.now(), qrSvg: await qrFor(page, t), utrError, utrValue });
}

/** The UPI link of a Upi order, or the provider's link of a bank-app or national-QR order, as an inline SVG. */
async function qrFor(page: PayPage, t: ReturnType<typeof translator>): Promise<string | null> {
  if (viewOf(page) !== 'open') return null;
  const kind = payKind(page.method, page.rail);
  let text: string | null = null;
  let label = t('qrLinkLabel');
  if (kind === 'upi' && page.payment.upiId) {
    text = upiLink(page.payment.upiId, page.payment.holder, page.amount);
    label = t('qrUpiLabel', { amount: `${page.amount} ${page.currency}` });
  } else if ((kind === 'bankApp' || kind === 'nationalQr') && page.payment.url) {
    text = page.payment.url;
  }
  if (text === null) return null;
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  // The encoder's own markup, made an accessible image; the label is escaped like any text.
  return svg.replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" class="qr-code" `);
}
