import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { Ctx } from '../../context.js';
import type { ErrorCode } from '../../domain/errors.js';
import { sendTooMany } from '../../server/errors.js';
import { PayerReferenceBody } from '../../schemas/gateway.js';
import { getPayPage, reportPayerReference, type PayPage } from '../../services/payPage.js';
import { formatAmount } from '../format.js';
import { escapeHtml } from '../html.js';
import { chooseLang, translator, type Lang } from '../i18n/index.js';
import { sendPage } from '../layout.js';
import { fieldsFrom, formWithProblem, publicForm, withForm } from '../forms.js';
import { payKind, renderNotFound, renderPayPage, upiLinkOf, viewOf, type ReferenceError } from './view.js';

/**
 * The reference form of the payment page: the field of `POST /api/pay/{id}/payer-reference`, with
 * its rule. A value the rule refuses is answered on the page with the value kept, as the service's
 * own refusal (the rule of the order's rail) is.
 */
const ReferenceForm = publicForm(fieldsFrom(PayerReferenceBody, ['payerReference']));

/** How much of a refused value is shown back: more than any valid reference, far less than the form allows. */
const SHOWN_BACK = 100;

/**
 * GET /pay/{id}: the hosted payment page; POST /pay/{id}: its reference form, so the page works
 * without JavaScript. Both count against the same per-IP limits as the JSON API.
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

  app.post('/pay/:id', withForm(ReferenceForm, { invalid: 'route' }), async (req, reply) => {
    const admission = await ctx.limits.payerReference.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const lang = langOf(req);
    const { form, problem } = formWithProblem(req, ReferenceForm);
    const value = form.payerReference ?? null;
    const reported = problem ? null : await reportPayerReference(ctx, idOf(req), value);
    // Post/redirect/get: a reload does not post the form again.
    if (reported?.ok) return reply.code(303).header('Location', `/pay/${encodeURIComponent(idOf(req))}?lang=${lang}`).send('');
    const page = await getPayPage(ctx, idOf(req));
    if (!page) return sendPage(reply, 404, renderNotFound(lang, translator(lang)));
    const error = referenceErrorOf(reported ? reported.refusal.code : 'VALIDATION_ERROR');
    const shown = typeof value === 'string' ? value.slice(0, SHOWN_BACK) : null;
    return sendPage(reply, error === 'invalid' ? 400 : 409, await render(ctx, page, lang, error, shown));
  });
}

/** The page's wording for the service's refusal: the rail's rule, a paid order (whichever of its codes), anything else. */
function referenceErrorOf(code: ErrorCode): ReferenceError {
  switch (code) {
    case 'VALIDATION_ERROR':
      return 'invalid';
    case 'ORDER_ALREADY_PAID':
    case 'ORDER_ALREADY_COMPLETED':
    case 'ORDER_IN_DISPUTE':
      return 'paid';
    default:
      return 'refused';
  }
}

function idOf(req: FastifyRequest): string {
  return (req.params as { id: string }).id;
}

function langOf(req: FastifyRequest): Lang {
  return chooseLang((req.query as { lang?: unknown }).lang, req.headers['accept-language']);
}

async function render(ctx: Ctx, page: PayPage, lang: Lang, referenceError: ReferenceError | null, referenceValue: string | null) {
  const t = translator(lang);
  return renderPayPage({ page, lang, t, now: ctx.clock.now(), qrSvg: await qrFor(page, lang, t), referenceError, referenceValue });
}

/** The UPI link of a Upi order, or the provider's link of a bank-app or national-QR order, as an inline SVG. */
async function qrFor(page: PayPage, lang: Lang, t: ReturnType<typeof translator>): Promise<string | null> {
  if (viewOf(page) !== 'open') return null;
  const kind = payKind(page.method, page.rail);
  let text: string | null = null;
  let label = t('qrLinkLabel');
  const upi = upiLinkOf(page);
  if (upi) {
    text = upi;
    label = t('qrUpiLabel', { amount: formatAmount(lang, page.amount, page.currency) });
  } else if ((kind === 'bankApp' || kind === 'nationalQr') && page.payment.url) {
    text = page.payment.url;
  }
  if (text === null) return null;
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  // The encoder's own markup, made an accessible image; the label is escaped like any text.
  return svg.replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" class="qr-code" `);
}
