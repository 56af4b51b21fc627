import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { sendTooMany } from '../../server/errors.js';
import { simulatePayment } from '../../services/orderActions.js';
import { getPayPage } from '../../services/payPage.js';
import { formatAmount } from '../format.js';
import { html } from '../html.js';
import { chooseLang, type Lang } from '../i18n/index.js';
import { document, sendPage } from '../layout.js';
import { publicForm, withForm } from '../forms.js';

/** The bank's pay button posts nothing but itself. */
const PayForm = publicForm({});

/**
 * A simulated bank app for sandbox orders of methods without rails (BankApp, Counterparty,
 * NationalQr): the sandbox provider's `payment.url` leads here, as a live provider's leads to the
 * bank. "Pay" completes the order the way the operator's simulate-payment does, then returns to
 * the payment page, which shows the success. A tester's page, so English only.
 */
export function sandboxBankRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/sandbox/bank/:id', async (req, reply) => {
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const page = await getPayPage(ctx, idOf(req));
    const lang = langOf(req);
    if (!page || !page.sandbox) return sendPage(reply, 404, notFound());
    const back = `/pay/${page.id}?lang=${lang}`;
    const open = page.status === 'Created';
    const body = html`<main class="pay bank">
<p class="sandbox" role="note">Sandbox bank: a simulation for testing. No money moves.</p>
<header class="summary"><h1 class="merchant">Sandbox Bank · ${page.method}</h1>
<p class="label">Payment to ${page.merchant.displayName ?? ''}</p>
<p class="amount">${formatAmount(lang, page.amount, page.currency)}</p>
<p class="currency">${page.amount} ${page.currency}</p></header>
${open
  ? html`<form method="post" action="${`/sandbox/bank/${page.id}/pay?lang=${lang}`}" class="cta"><button type="submit" class="button" id="bank-pay">Pay ${page.amount} ${page.currency}</button></form>`
  : html`<p class="state-note">This order is ${page.status}; there is nothing to pay.</p>`}
<p class="back"><a href="${back}" id="bank-back">Back to the payment page without paying</a></p>
</main>`;
    return sendPage(reply, 200, document({ lang: 'en', title: 'Sandbox Bank', styles: ['pay.css'], body }));
  });

  app.post('/sandbox/bank/:id/pay', withForm(PayForm), async (req, reply) => {
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const page = await getPayPage(ctx, idOf(req));
    if (!page || !page.sandbox) return sendPage(reply, 404, notFound());
    try {
      await simulatePayment(ctx, {}, page.id);
    } catch (err) {
      // Paying an order that closed meanwhile changes nothing; the payment page says what it is.
      if (!(err instanceof AppError)) throw err;
    }
    return reply.code(303).header('Location', `/pay/${page.id}?lang=${langOf(req)}`).send('');
  });
}

function idOf(req: FastifyRequest): string {
  return (req.params as { id: string }).id;
}

function langOf(req: FastifyRequest): Lang {
  return chooseLang((req.query as { lang?: unknown }).lang, undefined);
}

function notFound() {
  return document({ lang: 'en', title: 'Not found', styles: ['pay.css'], body: html`<main class="pay"><h1>Not found</h1><p>No sandbox order with this id.</p></main>` });
}
